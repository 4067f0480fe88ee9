"""The live service: sources, referee, recorder, index and broadcast, wired per board.

Start with :mod:`companion.service.service` (the :class:`Service` that
``oware-companion serve`` builds) and :mod:`companion.service.board` (one
board's run-time: source thread → referee → session log → pages). The other
modules each hold one part:

* :mod:`.config` – venue settings from a TOML file;
* :mod:`.recorder` – the JSONL session log, flushed and fsync-ed;
* :mod:`.index` – the SQLite catalogue of games, players, results, logs;
* :mod:`.camera` – a camera board's controls for the pages (corners placed by hand);
* :mod:`.engine_worker` – the engine's suggestions, following each board's game on a thread.

Sources are opened from their URLs by :mod:`companion.sources` (the table of
schemes). The web API around it is :mod:`dashboard.app`; what it needs of the service is
written as Protocols in :mod:`dashboard.contracts` (the service implements them; the fan-out
of messages to every connected page is :mod:`dashboard.hub`).
"""
