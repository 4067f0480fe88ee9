"""The hall: many boards' companions publishing to one MQTT broker, one hall gathering them.

* :mod:`companion.hall.broker`: ``mqtt://HOST[:PORT]/HALL`` addresses, topics, clients.
* :mod:`companion.hall.summary`: what a board's events say about it (pure).
* :mod:`companion.hall.publisher`: ``serve --publish``: tails each board's session log
  and publishes its events, in order, numbered by their place in the log.
* :mod:`companion.hall.gatherer`: ``hall --broker``: receives every board, drops
  duplicates, holds back what comes after a gap, writes the round's OGN.
* :mod:`companion.hall.app`: the read-only hall page and its JSON.
"""
