"""The web API, one router per concern; :func:`dashboard.app.create_app` wires them.

* :mod:`.state` – boards, game state, event history, commands;
* :mod:`.games` – history of games, records, export, session logs;
* :mod:`.camera` – a camera board's last frame and its four corners placed by hand;
* :mod:`.ws` – the WebSocket hub (state on connect, then every event);
* :mod:`.health` – ``/health``;
* :mod:`.deps` – shared dependencies (the service, a board, the token check).
"""
