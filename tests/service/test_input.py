"""Input the service refuses, and the order it keeps: issue 26, defects 1, 2 (without a
browser), 7 and 10.

* A command is written to the session log first and applied only once written: with
  the log's file descriptor pointed at ``/dev/full`` (a real ``ENOSPC`` from the
  kernel at the file layer), a command answers 503, the game is unchanged, nothing
  is broadcast, and the log afterwards holds exactly what the referee applied.
* Commands are read strictly: unknown keys inside a position, ``NaN``, ``1e999``,
  values nested too deep, integers past 4,300 digits: 400 with one line, the game
  unchanged and nothing logged.
* Over the WebSocket a binary frame closes with 1003, text that is not strict JSON
  with 1007; one log line (however many clients), no traceback.
* Commands only as ``application/json`` and, from a browser, only from the
  service's own origin; ``Host`` names only the addresses served; the pages carry
  ``X-Frame-Options`` and a content security policy.
* One rule for the token's strength, on the command line as in the config file.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect
from websockets.typing import Origin

from companion.service.config import ServiceConfig
from companion.service.recorder import read_log
from companion.service.service import Service
from core import Position
from core.referee import CommandError, Referee
from core.referee.command_check import CommandInvalid, parse_json, validate_command
from core.referee.session import replay, session_header
from dashboard.app import create_app

from .conftest import ROOT, Server, start_server

COMMAND = "/api/board/1/command"
#: A legal position other than the start (48 seeds), set by hand.
MOVED = {"pits": [5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3], "stores": [0, 0]}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A loopback server with no token (the default: anyone on this machine commands)."""
    folder = tmp_path_factory.mktemp("input")
    log = folder / "quiet.jsonl"
    log.write_text(json.dumps(session_header(Position.initial())) + "\n")
    server = start_server(folder / "data", "--source", f"replay://{log}?speed=0", "--no-engine")
    yield server
    server.stop()


def _position(server: Server) -> list[int]:
    return list(server.get("/api/board/1/state").json()["position"]["pits"])


def _log_lines(server: Server) -> list[dict[str, Any]]:
    (path,) = sorted((server.data_dir / "sessions").glob("board1-*.jsonl"))
    return read_log(path)[0]


# -- defect 1: written first, applied once written ----------------------------------------
def _fd_of(path: Path) -> int:
    """This process's file descriptor open on ``path``."""
    for name in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{name}") == str(path.resolve()):
                return int(name)
        except OSError:
            continue
    raise AssertionError(f"{path} is not open")


def test_a_command_the_log_cannot_take_is_not_applied(tmp_path: Path) -> None:
    recorded = tmp_path / "quiet.jsonl"
    recorded.write_text(json.dumps(session_header(Position.initial())) + "\n")
    config = ServiceConfig(data_dir=tmp_path / "data", port=8000)
    service = Service([f"replay://{recorded}?speed=0"], config, engine=False, resume=False)
    app = create_app(service)
    with TestClient(app, base_url="http://127.0.0.1:8000", raise_server_exceptions=False) as client:
        deadline = time.monotonic() + 10
        while "1" not in service.boards and time.monotonic() < deadline:
            time.sleep(0.05)  # (a board joins once its log is resumed)
        board = service.boards["1"]
        # the recorded session ends at once and says so (a link message to the
        # pages); wait for it, so that nothing but the command is published below
        while board.link.get("state") != "disconnected" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert board.link.get("detail") == "end of the recorded session", board.link
        # the state is set a moment before it is published: wait until the count of
        # messages published has stood still for a while (a loaded machine may be slow)
        settled, last = time.monotonic(), board.hub.published
        while time.monotonic() - settled < 0.5 and time.monotonic() < deadline:
            time.sleep(0.05)
            if board.hub.published != last:
                settled, last = time.monotonic(), board.hub.published
        before = client.get("/api/board/1/state").json()["position"]
        published, events = board.hub.published, len(board.events)
        fd = _fd_of(board.session.path)
        saved = os.dup(fd)
        full = os.open("/dev/full", os.O_WRONLY)
        try:
            os.dup2(full, fd)  # every write to the log now fails: No space left on device
            r = client.post(COMMAND, json={"command": "set_position", "position": MOVED})
            with client.websocket_connect("ws://127.0.0.1:8000/ws/board/1?role=referee") as ws:
                assert ws.receive_json()["type"] == "state"
                ws.send_json({"command": "set_position", "position": MOVED})
                answer = ws.receive_json()
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            os.close(full)
        assert r.status_code == 503, r.text
        detail = r.json()["detail"]
        assert "not applied" in detail and "No space left on device" in detail, detail
        assert answer["type"] == "command_result" and answer["ok"] is False, answer
        assert "not applied" in answer["detail"], answer
        assert client.get("/api/board/1/state").json()["position"] == before
        assert len(board.events) == events
        # what was published since is the storage message alone (the pages' card)
        assert board.hub.published - published == 1 and board.storage_error is not None

        # space again: the same command goes through, and the log holds it once
        again = client.post(COMMAND, json={"command": "set_position", "position": MOVED})
        assert again.status_code == 200, again.text
        live = client.get("/api/board/1/state").json()["position"]
        assert live["pits"] == MOVED["pits"]
        lines, _ = read_log(board.session.path)
    commands = [line for line in lines if line.get("command") == "set_position"]
    assert len(commands) == 1, commands
    # the log replays to what the pages were shown
    shown = [e for e in replay(lines) if e.type == "corrected"]
    assert len(shown) == 1 and list(shown[0].to_json()["position"]["pits"]) == MOVED["pits"]


def test_a_refused_command_is_logged_and_refused_again_on_replay(server: Server) -> None:
    assert server.get("/api/board/1/state").json()["position"]["to_move"] == 0
    r = server.post(COMMAND, json={"command": "confirm", "move": "a"})
    assert r.status_code == 409, r.text  # North's pit while South is to move: refused
    lines = _log_lines(server)
    assert lines[-1]["command"] == "confirm"  # what the referee saw, in order
    assert all(e.type not in ("confirmed", "move") for e in replay(lines))


# -- defects 1 and 10: strict reading -----------------------------------------------------
DEEP = "[" * 30_000 + "]" * 30_000


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (json.dumps({"command": "set_position", "position": {**MOVED, "x": [[1]]}}), "unexpected"),
        (
            '{"command": "set_position", "position": {"pits": [4,4,4,4,4,4,4,4,4,4,4,4], '
            '"stores": [0, 0], "to_move": NaN}}',
            "NaN",
        ),
        (
            '{"command": "set_position", "position": {"pits": [4,4,4,4,4,4,4,4,4,4,4,4], '
            '"stores": [0, 0], "extra": NaN}}',
            "NaN",
        ),
        ('{"command": "confirm", "pit": 1, "count": 1e999}', "too large"),
        ('{"command": "confirm", "pit": 1, "count": ' + "9" * 4400 + "}", "too many digits"),
        ('{"command": "undo", "x": ' + DEEP + "}", "nested deeper"),
        (DEEP, "nested deeper"),
        ('{"command": "new_game", "options": {"x": ' + "[" * 20 + "]" * 20 + "}}", "nested"),
        (
            json.dumps({"command": "set_position", "position": {**MOVED, "pits": [-1] * 12}}),
            "seed counts",
        ),
        (json.dumps({"command": "set_position", "position": {**MOVED, "to_move": 7}}), "to_move"),
        ('{"command": "undo"', "not valid JSON"),
    ],
)
def test_malformed_commands_answer_400_in_one_line(server: Server, body: str, words: str) -> None:
    pits, logged = _position(server), len(_log_lines(server))
    r = server.post(COMMAND, content=body.encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 400, (r.status_code, r.text[:300])
    detail = r.json()["detail"]
    assert words in detail and "\n" not in detail and len(detail) < 300, detail
    assert _position(server) == pits and len(_log_lines(server)) == logged
    assert "Traceback" not in server.log_text()


def test_bad_frames_close_the_websocket_with_one_log_line(server: Server) -> None:
    def closed_with(payload: str | bytes, role: str = "spectator") -> int:
        with connect(f"{server.ws}/ws/board/1?role={role}", max_size=None) as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
            ws.send(payload)
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(100):
                    ws.recv(timeout=10)
            assert closed.value.rcvd is not None, "closed without a close frame"
            return int(closed.value.rcvd.code)

    before = server.log_text().count("connection from")
    assert closed_with(b"\x00\x01") == 1003
    assert closed_with(b"{}", role="referee") == 1003  # any binary frame, any role
    assert closed_with("{nope", role="referee") == 1007
    assert closed_with(DEEP) == 1007
    assert closed_with('{"command": "confirm", "count": ' + "9" * 4400 + "}", "referee") == 1007
    assert closed_with('{"command": "undo", "t": NaN}', "referee") == 1007
    assert closed_with('"' + "x" * 70_000 + '"') == 1009  # over 64 KiB: uvicorn closes it
    for _ in range(20):  # a flood: the log does not grow with it
        closed_with(b"x")
    text = server.log_text()
    assert "Traceback" not in text and "Task exception" not in text
    lines = text.count("connection from") - before
    assert 1 <= lines <= 2, lines
    # a well-formed command still works on a new connection
    with connect(f"{server.ws}/ws/board/1?role=referee") as ws:
        ws.send(json.dumps({"command": "new_game"}))
        for _ in range(100):
            msg = json.loads(ws.recv(timeout=10))
            if msg["type"] == "command_result":
                assert msg["ok"] is True, msg
                break


# -- defect 2 (the browser's part is tests/dashboard/test_foreign_pages.py) ----------------
def test_commands_only_as_json_and_only_from_the_own_origin(server: Server) -> None:
    pits = _position(server)
    body = json.dumps({"command": "set_position", "position": MOVED}).encode()
    for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data", ""):
        r = server.post(COMMAND, content=body, headers={"Content-Type": kind} if kind else {})
        assert r.status_code == 415, (kind, r.text)
    foreign = {"Content-Type": "application/json", "Origin": "http://evil.example"}
    assert server.post(COMMAND, content=body, headers=foreign).status_code == 403
    other_port = {"Content-Type": "application/json", "Origin": "http://127.0.0.1:1"}
    assert server.post(COMMAND, content=body, headers=other_port).status_code == 403
    assert _position(server) == pits
    own = {"Content-Type": "application/json", "Origin": server.url}
    r = server.post(COMMAND, content=body, headers=own)
    assert r.status_code == 200 and _position(server) == MOVED["pits"]


def _websocket_handshake(server: Server, host: str) -> bytes:
    """The answer's first line to a WebSocket handshake naming ``host`` (the clients
    always send the address they connect to)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(
            f"GET /ws/board/1 HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
            "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        return s.recv(4096).split(b"\r\n", 1)[0]


@pytest.mark.parametrize("host", ["evil.example", "rebind.example:{port}", "127.0.0.1:1", "a:b:c"])
def test_a_host_not_served_is_refused(server: Server, host: str) -> None:
    host = host.format(port=server.port)
    page = httpx.get(server.url + "/board/1", headers={"Host": host}, timeout=10)
    assert page.status_code == 400 and "Host" in page.json()["detail"]
    r = httpx.post(server.url + COMMAND, json={"command": "undo"}, headers={"Host": host})
    assert r.status_code == 400
    assert _websocket_handshake(server, host).startswith(b"HTTP/1.1 403")
    assert _websocket_handshake(server, f"localhost:{server.port}").startswith(b"HTTP/1.1 101")
    for served in (f"127.0.0.1:{server.port}", f"localhost:{server.port}", "localhost"):
        assert httpx.get(server.url + "/health", headers={"Host": served}).status_code == 200


def test_pages_may_not_be_framed(server: Server) -> None:
    for path in ("/", "/board/1", "/static/js/main.js", "/health"):
        headers = server.get(path).headers
        assert headers["x-frame-options"] == "DENY", path
        policy = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "script-src 'self'" in policy, path
    assert "frame-ancestors 'none'" in server.get("/docs").headers["content-security-policy"]


def test_websocket_origins_are_still_checked(server: Server) -> None:
    with pytest.raises(InvalidStatus):
        connect(f"{server.ws}/ws/board/1", origin=Origin("http://evil.example"))


# -- defect 7: one rule for the token ------------------------------------------------------
def _serve_fails(tmp_path: Path, *args: str) -> str:
    cmd = [
        sys.executable,
        "-m",
        "companion.commands.serve",
        "serve",
        "--no-engine",
        "--data-dir",
        str(tmp_path / "data"),
        "--port",
        "1",
        *args,
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0, done.stdout
    assert "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if "error" in line]
    assert len(errors) == 1, done.stderr
    return errors[0]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--host", "0.0.0.0", "--token", ""), "empty"),
        (("--host", "127.0.0.1", "--token", ""), "empty"),
        (("--token", "x"), "at least 8 characters"),
        (("--host", "0.0.0.0", "--token", "seven77"), "at least 8 characters"),
    ],
)
def test_weak_tokens_are_refused_at_start(
    tmp_path: Path, args: tuple[str, ...], words: str
) -> None:
    assert words in _serve_fails(tmp_path, *args)
    assert not (tmp_path / "data" / "sessions").exists()  # refused before anything started


def test_the_config_file_follows_the_same_rule(tmp_path: Path) -> None:
    venue = tmp_path / "venue.toml"
    venue.write_text('[venue]\ntoken = "seven77"\n')
    assert "at least 8 characters" in _serve_fails(tmp_path, "--config", str(venue))
    venue.write_text('[venue]\ntoken = ""\nhost = "0.0.0.0"\n')
    assert "empty" in _serve_fails(tmp_path, "--config", str(venue))


# -- whatever passes validation, the referee either applies or refuses in words ------------
_ATOMS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(["abapa", "universal", "F", "a", "4-4-4-4-4-4-4-4-4-4-4-4 0-0 S", "oware"]),
)
_VALUES = st.recursive(
    _ATOMS,
    lambda inner: st.lists(inner, max_size=13) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=30,
)
_ALLOWED = {
    "new_game": ["rules", "options", "position", "south", "north"],
    "set_position": ["position"],
    "undo": [],
    "confirm": ["pit", "count", "move"],
    "declare_cycle_end": [],
}
_PLAUSIBLE = {
    "rules": st.sampled_from(["abapa", "universal", "oware", "grand-slam", "x" * 61]),
    "options": st.dictionaries(
        st.sampled_from(["players", "grand_slam", "pits", "seeds", "x"]),
        st.one_of(st.integers(-3, 30), st.booleans(), st.text(max_size=5)),
        max_size=3,
    ),
    "south": st.text(max_size=70),
    "north": st.text(max_size=70),
    "pit": st.one_of(st.integers(-1, 25), st.sampled_from(list("ABCDEFabcdefZ"))),
    "count": st.integers(-1, 200),
    "move": st.one_of(st.integers(-1, 25), st.sampled_from(list("ABCDEFabcdefZ"))),
}


@st.composite
def _positions(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        return draw(st.sampled_from(["4-4-4-4-4-4-4-4-4-4-4-4 0-0 S", "nonsense", ""]))
    pits = st.integers(-1, 20) if draw(st.booleans()) else st.integers(0, 8)
    out: dict[str, Any] = {
        "pits": draw(st.lists(pits, min_size=10, max_size=25)),
        "stores": draw(st.lists(st.integers(-1, 60), min_size=1, max_size=5)),
    }
    extra = st.sampled_from(["rules", "to_move", "options"])
    for key in draw(st.lists(extra, max_size=3, unique=True)):
        out[key] = draw(_PLAUSIBLE.get(key, st.integers(-1, 4)) | _VALUES)
    return out


@st.composite
def _commands(draw: st.DrawFn) -> dict[str, Any]:
    name = draw(st.sampled_from(list(_ALLOWED)))
    fields = draw(st.lists(st.sampled_from(_ALLOWED[name] or ["t"]), max_size=3, unique=True))
    cmd: dict[str, Any] = {"command": name}
    for field in fields:
        plausible = _positions() if field == "position" else _PLAUSIBLE.get(field, _VALUES)
        cmd[field] = draw(plausible if draw(st.integers(0, 4)) else _VALUES)
    return cmd


@settings(max_examples=300, deadline=None)
@given(_commands())
def test_a_validated_command_is_applied_or_refused_in_words(cmd: dict[str, Any]) -> None:
    """A command is logged before the referee sees it: so anything validation lets through
    must log as strict JSON and give the referee nothing but a CommandError to raise (a
    replay, after a restart, meets the same line)."""
    try:
        clean = validate_command(parse_json(json.dumps(cmd)))
    except CommandInvalid:
        return
    line = {**clean, "t": 1.0}
    json.dumps(line, allow_nan=False)
    referee = Referee(Position.initial())
    with contextlib.suppress(CommandError):
        referee.command(line, 1.0)
