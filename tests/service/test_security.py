"""Security: tokens off loopback, read-only spectators, origins, traversal, payload limits."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from .conftest import Server, start_server

TOKEN = "club-night-token-42"


@pytest.fixture(scope="module")
def exposed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server listening on every address (not loopback), with a token."""
    data = tmp_path_factory.mktemp("exposed") / "data"
    server = start_server(
        data,
        "--source",
        "sim://?speed=0&seed=2",
        "--no-engine",
        "--host",
        "0.0.0.0",
        "--token",
        TOKEN,
    )
    yield server
    server.stop()


def test_commands_without_the_right_token_are_refused(exposed: Server) -> None:
    cmd = {"command": "new_game"}
    missing = exposed.post("/api/board/1/command", json=cmd)
    assert missing.status_code == 401 and "token" in missing.json()["detail"]
    wrong = exposed.post("/api/board/1/command", json=cmd, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    ok = exposed.post(
        "/api/board/1/command", json=cmd, headers={"Authorization": f"Bearer {TOKEN}"}
    )
    assert ok.status_code == 200 and ok.json()["events"][0]["type"] == "new_game"
    also_ok = exposed.post("/api/board/1/command", json=cmd, params={"token": TOKEN})
    assert also_ok.status_code == 200
    # reading stays open to spectators
    assert exposed.get("/api/board/1/state").status_code == 200


def test_spectators_and_tokenless_referees_are_read_only(exposed: Server) -> None:
    for query in ("role=spectator", "role=referee", "role=player"):
        with connect(f"{exposed.ws}/ws/board/1?{query}") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
            ws.send(json.dumps({"command": "new_game"}))
            answer = _first(ws, "command_result")
            assert answer["ok"] is False
    with connect(f"{exposed.ws}/ws/board/1?role=referee&token={TOKEN}") as ws:
        ws.send(json.dumps({"command": "undo", "t": 1}))
        answer = _first(ws, "command_result")
        assert answer["ok"] is False and "unexpected field" in answer["detail"]
        ws.send(json.dumps({"command": "new_game"}))
        assert _first(ws, "command_result")["ok"] is True


def _first(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(500):
        msg = json.loads(ws.recv(timeout=10))
        if msg["type"] == kind:
            return dict(msg)
    raise AssertionError(f"no {kind}")


def test_websocket_origins_are_checked(exposed: Server) -> None:
    with pytest.raises(InvalidStatus) as refused:
        connect(f"{exposed.ws}/ws/board/1", origin=Origin("http://evil.example"))
    assert refused.value.response.status_code == 403
    own = f"http://127.0.0.1:{exposed.port}"
    with connect(f"{exposed.ws}/ws/board/1", origin=Origin(own)) as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "state"
    with pytest.raises(InvalidStatus):
        connect(f"{exposed.ws}/ws/board/9")
    with pytest.raises(InvalidStatus):
        connect(f"{exposed.ws}/ws/board/1?role=admin")


def _raw_get(server: Server, path: str) -> tuple[int, bytes]:
    """GET with the path sent byte for byte (clients normalise ``..`` away)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data


@pytest.mark.parametrize(
    "path",
    [
        "/static/../../../../etc/passwd",
        "/static/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
        "/static/..%2f..%2f..%2fetc%2fpasswd",
        "/api/games/..%2f..%2fetc%2fpasswd/export",
        "/api/games/1%2f..%2f..%2fgames.sqlite/log",
        "/board/..%2f..%2fetc%2fpasswd",
    ],
)
def test_no_file_outside_the_data_directory_can_be_read(exposed: Server, path: str) -> None:
    status, body = _raw_get(exposed, path)
    assert status in (400, 404, 422), (status, body[:200])
    assert b"root:" not in body and b"SQLite format" not in body


def test_oversized_and_malformed_payloads_are_rejected(exposed: Server) -> None:
    auth = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    url = "/api/board/1/command"
    big = exposed.post(url, content=b"{" + b" " * 200_000 + b"}", headers=auth)
    assert big.status_code == 413 and "too large" in big.json()["detail"]

    def chunks() -> Iterator[bytes]:
        for _ in range(100):
            yield b" " * 4096

    chunked = httpx.post(exposed.url + url, content=chunks(), headers=auth, timeout=10)
    assert chunked.status_code == 413
    not_json = exposed.post(url, content=b"{nope", headers=auth)
    assert not_json.status_code == 400 and "not valid JSON" in not_json.json()["detail"]
    for body, words in [
        ([1, 2], "JSON object"),
        ({"command": "confirm", "move": "Z"}, "not a pit name"),
        ({"command": "set_position", "position": "4-4-4"}, "bad position"),
        ({"command": "confirm", "pit": 99, "count": 1}, "pit name"),
        ({"command": "new_game", "options": {"players": "lots"}}, "new_game"),
    ]:
        r = exposed.post(url, json=body, headers=auth)
        assert r.status_code in (400, 409), (body, r.text)
        assert words in r.json()["detail"], (body, r.json())
    assert exposed.get("/api/board/abc/state").status_code == 422
    assert exposed.get("/api/board/7/state").status_code == 404
    assert exposed.get("/api/games", params={"limit": 10**9}).status_code == 422


def test_health_reports_source_and_link(exposed: Server, tmp_path: Path) -> None:
    board = exposed.get("/health").json()["boards"]["1"]
    assert board["source"].startswith("sim://")
    assert board["link"]["state"] == "connected"
    assert board["link"]["source"] == "sim"
    assert board["link_state"] == "connected"
