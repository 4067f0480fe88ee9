"""Start-up errors (issue 26, defect 11): one line saying what to do, a non-zero exit, and
nothing recorded (no session log, no game in the history)."""

from __future__ import annotations

import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, free_port


def _serve(data: Path, *args: str, port: int | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "companion.commands.serve", "serve", "--no-engine"]
    cmd += ["--data-dir", str(data), "--port", str(free_port() if port is None else port), *args]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)


def _refused(done: subprocess.CompletedProcess[str], *words: str) -> None:
    assert done.returncode != 0, done.stdout + done.stderr
    errors = [ln for ln in done.stderr.splitlines() if "error" in ln.lower()]
    assert len(errors) == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    for word in words:
        assert word in errors[0], errors[0]


def _nothing_recorded(data: Path) -> None:
    assert not list(data.glob("sessions/*.jsonl"))
    db = data / "games.sqlite"
    if db.exists():
        assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("source", "words"),
    [
        ("video:///no/such/match.mp4", ("video file not found", "/no/such/match.mp4")),
        ("sim://?speed=abc", ("speed", "abc")),
        ("sim://?bogus=1", ("bogus",)),
    ],
)
def test_a_bad_source_is_one_line(tmp_path: Path, source: str, words: tuple[str, ...]) -> None:
    data = tmp_path / "data"
    _refused(_serve(data, "--source", source), *words)
    _nothing_recorded(data)


@pytest.mark.parametrize("port", [70000, 0, -1])
def test_a_port_out_of_range_is_one_line(tmp_path: Path, port: int) -> None:
    data = tmp_path / "data"
    _refused(_serve(data, "--source", "sim://", port=port), str(port), "--port")
    assert not data.exists()  # the port is checked first: no folder or index left behind


def test_a_port_in_use_is_one_line_and_no_phantom_game(tmp_path: Path) -> None:
    data = tmp_path / "data"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        _refused(_serve(data, "--source", "sim://", port=port), "in use", str(port))
    assert not data.exists()


def test_two_services_starting_on_one_port_the_second_is_refused_at_preflight() -> None:
    """Both bind with SO_REUSEADDR, which Linux allows twice while neither socket listens:
    the second service then failed in the server's startup, after making its session log
    (a hall test's board had two logs). The preflight's socket listens at once."""
    from companion.service.preflight import StartError, bind_socket

    port = free_port()
    first = bind_socket("127.0.0.1", port)
    try:
        with pytest.raises(StartError, match="already in use"):
            bind_socket("127.0.0.1", port).close()
    finally:
        first.close()


def test_a_data_directory_that_cannot_be_written_is_named(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    _refused(_serve(blocked / "data", "--source", "sim://"), str(blocked / "data"), "--data-dir")


def test_a_read_only_data_directory_is_named(tmp_path: Path) -> None:
    disk = tmp_path / "ro"
    disk.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip("mounting a read-only tmpfs is not allowed here (root writes anywhere else)")
    try:
        done = _serve(disk / "data", "--source", "sim://")
        _refused(done, str(disk / "data"), "cannot be written", "Read-only")
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)


@pytest.mark.parametrize(
    ("again", "words"),
    [
        (("--source", "sim://?speed=0.01&seed=2"), ("recorded from sim://?speed=0.01&seed=1",)),
        (("--source", "sim://?speed=0.01&seed=1", "--rules", "oware"), ("recorded playing",)),
    ],
)
def test_resuming_with_another_source_or_rules_names_fresh(
    tmp_path: Path, again: tuple[str, ...], words: tuple[str, ...]
) -> None:
    from .conftest import start_server

    data = tmp_path / "data"
    first = start_server(data, "--source", "sim://?speed=0.01&seed=1", "--no-engine")
    first.stop()
    _refused(_serve(data, *again), "--fresh", *words)
    assert len(list(data.glob("sessions/*.jsonl"))) == 1  # nothing new recorded
    fresh = start_server(data, *again, "--no-engine", "--fresh")  # and --fresh starts anew
    fresh.stop()
    assert len(list(data.glob("sessions/*.jsonl"))) == 2
