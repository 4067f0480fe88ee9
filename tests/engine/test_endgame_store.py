"""Endgame databases on disk: build, resume after an interruption, load, progress bar."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from companion import endgame_store
from core.engine import retrograde


def test_build_writes_layers_and_loads_them_back(tmp_path: Path) -> None:
    stream = io.StringIO()
    built = endgame_store.build(5, root=tmp_path, stream=stream)
    assert endgame_store.complete_layers(tmp_path) == 6
    assert endgame_store.layer_path(5, tmp_path).stat().st_size == 4368
    loaded = endgame_store.load(root=tmp_path)
    assert loaded is not None
    assert np.array_equal(loaded, built)
    assert np.array_equal(loaded, retrograde.build(5))
    assert endgame_store.database_seeds(loaded) == 5
    assert "layer 5/5" in stream.getvalue() and stream.getvalue().endswith("\n")


def test_an_interrupted_build_resumes_at_the_first_missing_layer(tmp_path: Path) -> None:
    endgame_store.build(6, root=tmp_path, show_progress=False)
    endgame_store.layer_path(6, tmp_path).unlink()
    # a half-written file (as left by a crash before the rename) does not count
    endgame_store.layer_path(5, tmp_path).write_bytes(b"\x00" * 10)
    done: list[dict[str, int | float]] = []
    values = endgame_store.build(6, root=tmp_path, show_progress=False, on_layer=done.append)
    assert [int(d["seeds"]) for d in done] == [5, 6]
    assert np.array_equal(values, retrograde.build(6))


def test_load_without_databases_returns_none(tmp_path: Path) -> None:
    assert endgame_store.load(root=tmp_path) is None
    assert endgame_store.complete_layers(tmp_path) == 0


def test_cache_directory_follows_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(endgame_store.CACHE_ENV, str(tmp_path))
    assert endgame_store.store_dir() == tmp_path / "endgame" / endgame_store.FORMAT
    monkeypatch.delenv(endgame_store.CACHE_ENV)
    assert "oware-companion" in str(endgame_store.cache_root())
