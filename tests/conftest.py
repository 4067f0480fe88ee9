"""Fixtures for every test suite."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole run: Playwright's sync API runs an event loop of
    its own, and a second one started while the first is open fails."""
    from tests.dashboard.conftest import CHROMIUM, LAUNCH_ARGS

    if not CHROMIUM.exists():
        # Fail, not skip: the browser tests are part of the suite and setup installs it.
        pytest.fail(f"{CHROMIUM} is missing: run scripts/setup.sh (it installs Debian's chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield b
        b.close()


@pytest.fixture(autouse=True)
def private_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point the user's config and data directories at a fresh folder for each test.

    The commands read and write there by default (the saved camera and scale
    calibrations, the games database): a test must neither see what a
    developer saved on this machine nor leave anything behind. Subprocesses
    inherit it through the environment. The cache directory is left alone:
    the endgame databases built there are only ever a speed-up.

    The temporary folder too: what a program a test kills on purpose cannot
    clean up (a virtual board's serial port, an engine's stderr log) stays in
    pytest's folders, which pytest prunes, not in the machine's ``/tmp``.
    """
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    temporary = home / "tmp"
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    return home
