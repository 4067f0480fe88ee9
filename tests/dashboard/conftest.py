"""Fixtures for the dashboard's browser tests: the real live service and headless Chromium.

The service is started as a subprocess exactly as a user would start it
(``python -m companion.commands.serve serve --source … --token …``), with six
boards:

1. ``sim://``: the virtual sensor board (a real firmware-protocol link over a
   pseudo-terminal) playing a game with occasional mistakes;
2. ``replay://`` a session ending in an ambiguous reading (``sessions.ambiguous_log``);
3. ``replay://`` a session ending in a wrong sowing (``sessions.wrong_sowing_log``);
4. and 5. ``replay://`` games of universal mancala for 4 and 3 players;
6. ``replay://`` a camera session ending in a sowing that stands still
   (``sessions.stalled_log``).

``fair_play_server`` is a second service, started with ``--fair-play``, on one
short game that then rests (``sessions.quiet_log``), for the fair-play test.

Chromium is Debian's (``/usr/bin/chromium``, installed by scripts/setup.sh);
Playwright never downloads a browser here.
"""

from __future__ import annotations

import contextlib
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

from tests.dashboard.sessions import (
    ambiguous_log,
    quiet_log,
    stalled_log,
    universal_log,
    wrong_sowing_log,
)

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "test-artifacts" / "screenshots"
TOKEN = "test-token-8"
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """The running service: its URL and small REST helpers."""

    def __init__(
        self, url: str, ambiguous_pits: list[int], stalled: tuple[int, int] = (-1, -1)
    ) -> None:
        self.url = url
        self.ambiguous_pits = ambiguous_pits
        self.stalled = stalled
        """Board 6: the pit the referee will ask about, and its true count."""

    def state(self, board: int) -> dict[str, Any]:
        return httpx.get(f"{self.url}/api/board/{board}/state", timeout=5).json()  # type: ignore[no-any-return]

    def command(self, board: int, cmd: dict[str, Any]) -> httpx.Response:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        return httpx.post(
            f"{self.url}/api/board/{board}/command", json=cmd, headers=headers, timeout=5
        )


@contextlib.contextmanager
def run_service(folder: Path, sources: list[str], *extra: str) -> Iterator[str]:
    """Start ``serve`` on ``sources`` (plus ``extra`` options) and yield its URL until done."""
    port = free_port()
    cmd = [sys.executable, "-m", "companion.commands.serve", "serve"]
    for s in sources:
        cmd += ["--source", s]
    cmd += ["--port", str(port), "--data-dir", str(folder / "data"), "--fresh"]
    cmd += ["--token", TOKEN, "--engine-seconds", "0.3", *extra]
    log = (folder / "serve.log").open("w")
    proc = subprocess.Popen(
        ["nice", "-n", "5", *cmd],
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"the service exited: {(folder / 'serve.log').read_text()}")
            try:
                if httpx.get(f"{url}/health", timeout=5).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("the service did not start within 60 s")
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("live")
    ambiguous, pits = ambiguous_log(folder / "ambiguous.jsonl")
    stalled, stalled_pit, stalled_count = stalled_log(folder / "stalled.jsonl")
    sources = [
        "sim://?seed=11&speed=2.5&mistakes=0.1",
        f"replay://{ambiguous}?speed=4",
        f"replay://{wrong_sowing_log(folder / 'wrong.jsonl')}?speed=4",
        f"replay://{universal_log(folder / 'u4.jsonl', 4)}?speed=4",
        f"replay://{universal_log(folder / 'u3.jsonl', 3)}?speed=4",
        f"replay://{stalled}?speed=2",
    ]
    with run_service(folder, sources) as url:
        yield LiveServer(url, pits, (stalled_pit, stalled_count))


@pytest.fixture(scope="session")
def fair_play_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A second service started with ``--fair-play``: one board, a short game that then rests,
    so the engine's suggestion for the final position stays on the page."""
    folder = tmp_path_factory.mktemp("fair")
    sources = [f"replay://{quiet_log(folder / 'quiet.jsonl')}?speed=8"]
    with run_service(folder, sources, "--fair-play") as url:
        yield LiveServer(url, [])


@pytest.fixture
def page_errors() -> list[str]:
    return []


@pytest.fixture
def new_page(browser: Any, page_errors: list[str]) -> Iterator[Any]:
    """A function opening a fresh page (own context) at a viewport size; errors are collected."""
    contexts: list[Any] = []

    def make(width: int = 1400, height: int = 900, **kwargs: Any) -> Any:
        # The tests' own string predicates (wait_for_function) are evaluated with eval(),
        # which the service's content security policy forbids; the page's code is held to
        # the policy in test_foreign_pages.py (every view, bypass_csp=False).
        kwargs.setdefault("bypass_csp", True)
        ctx = browser.new_context(viewport={"width": width, "height": height}, **kwargs)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: page_errors.append(str(e)))
        page.on(
            "console",
            lambda m: page_errors.append(m.text) if m.type == "error" else None,
        )
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def open_view(page: Any, url: str, view: str, board: int = 1, **params: str) -> Any:
    """Load a view and wait until the first state is drawn."""
    query = "&".join([f"view={view}", f"board={board}", *(f"{k}={v}" for k, v in params.items())])
    page.goto(f"{url}/?{query}")
    # attached, not visible: the stream corner draws nothing in the page's flow (its body
    # has no height), the pits below are what must be seen
    page.wait_for_selector("body[data-ready=true]", state="attached", timeout=10_000)
    page.wait_for_selector("#board svg .pit", timeout=10_000)
    return page


def screenshot(page: Any, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
