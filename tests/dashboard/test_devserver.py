"""The development server (tests/dashboard/devserver.py) serves the page and a real referee."""

from __future__ import annotations

from fastapi.testclient import TestClient

from core import Position
from core.referee.scenarios import render_game
from tests.dashboard.devserver import create_app


def test_dev_server_serves_the_page_and_referees_observations() -> None:
    client = TestClient(create_app())
    page = client.get("/board/1")
    assert page.status_code == 200 and "/static/js/main.js" in page.text
    assert client.get("/static/i18n/pl.json").json()["player.0"] == "Południe"
    session = render_game(Position.initial(), [5, 6], style="seed")
    body = [o.to_json() for o in session.observations]
    events = client.post("/dev/board/1/observe", json=body).json()["events"]
    assert [e["type"] for e in events] == ["move", "move"]
    with client.websocket_connect("/ws/board/1?role=spectator") as ws:
        state = ws.receive_json()
        assert state["type"] == "state" and len(state["moves"]) == 2
        ws.send_json({"command": "undo"})
        answer = ws.receive_json()
        assert answer["type"] == "command_result" and answer["ok"] is False
