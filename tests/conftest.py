"""Fixtures for every test suite."""

from __future__ import annotations

from pathlib import Path

import pytest


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
    """
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    return home
