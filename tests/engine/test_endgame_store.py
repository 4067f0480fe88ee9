"""Endgame databases on disk: build, resume after an interruption, load, progress bar."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from companion import endgame_store
from core.engine import retrograde, tighten
from core.engine.analysis import analyze, make_searcher
from core.engine.ranking import layer_offset, layer_size
from core.position import Position


def test_build_writes_layers_and_loads_them_back(tmp_path: Path) -> None:
    stream = io.StringIO()
    built = endgame_store.build(5, root=tmp_path, stream=stream)
    assert endgame_store.complete_layers(tmp_path) == 6
    assert endgame_store.values_path(tmp_path).stat().st_size == layer_offset(6)
    loaded = endgame_store.load(root=tmp_path)
    assert loaded is not None
    assert np.array_equal(loaded, built)
    assert np.array_equal(loaded, retrograde.build(5))
    assert endgame_store.database_seeds(loaded) == 5
    assert "layer 5/5" in stream.getvalue() and stream.getvalue().endswith("\n")


def test_load_maps_the_file_copy_on_write_and_up_to_the_layer_asked(tmp_path: Path) -> None:
    built = endgame_store.build(6, root=tmp_path, show_progress=False)
    loaded = endgame_store.load(4, root=tmp_path)
    assert isinstance(loaded, np.memmap) and loaded.filename is not None
    assert endgame_store.database_seeds(loaded) == 4
    assert np.array_equal(loaded, built[: layer_offset(5)])
    loaded[0] = 99  # the search's compiled code wants a writable array: the file keeps its bytes
    again = endgame_store.load(root=tmp_path)
    assert again is not None and again[0] == built[0] != 99


def test_the_search_runs_on_the_mapped_databases(tmp_path: Path) -> None:
    endgame_store.build(8, root=tmp_path, show_progress=False)
    mapped = endgame_store.load(root=tmp_path)
    assert isinstance(mapped, np.memmap)
    position = Position.from_text("0-0-0-0-1-2-1-0-0-0-2-1-20-21-S")

    def search(values: np.ndarray) -> tuple[list[tuple[int, int]], int]:
        result = analyze(
            position, seconds=None, max_depth=9, searcher=make_searcher(position, values, 8)
        )
        return [(m.pit, m.score) for m in result.moves], int(result.extra["db_hits"])

    on_disk, in_memory = search(mapped), search(retrograde.build(8))
    assert on_disk == in_memory and on_disk[1] > 0  # the same values, read from the file


def test_an_interrupted_build_resumes_at_the_first_missing_layer(tmp_path: Path) -> None:
    endgame_store.build(6, root=tmp_path, show_progress=False)
    path = endgame_store.values_path(tmp_path)
    # a build stopped while appending layer 5: its first ten bytes reached the disk
    with path.open("r+b") as f:
        f.truncate(layer_offset(5) + 10)
    assert endgame_store.complete_layers(tmp_path) == 5
    loaded = endgame_store.load(root=tmp_path)
    assert loaded is not None and endgame_store.database_seeds(loaded) == 4
    done: list[dict[str, int | float]] = []
    values = endgame_store.build(6, root=tmp_path, show_progress=False, on_layer=done.append)
    assert [int(d["seeds"]) for d in done] == [5, 6]
    assert np.array_equal(values, retrograde.build(6))
    assert path.stat().st_size == layer_offset(7)


def test_a_smaller_build_keeps_the_layers_above(tmp_path: Path) -> None:
    endgame_store.build(6, root=tmp_path, show_progress=False)
    done: list[dict[str, int | float]] = []
    values = endgame_store.build(4, root=tmp_path, show_progress=False, on_layer=done.append)
    assert done == [] and endgame_store.database_seeds(values) == 4
    assert endgame_store.complete_layers(tmp_path) == 7


def test_layer_files_of_earlier_versions_are_taken_into_the_values_file(tmp_path: Path) -> None:
    whole = retrograde.build(6)
    endgame_store.store_dir(tmp_path).mkdir(parents=True)
    for seeds in range(6):  # layers 0-5 as earlier versions wrote them; 6 half-written
        start = layer_offset(seeds)
        whole[start : start + layer_size(seeds)].tofile(endgame_store.layer_path(seeds, tmp_path))
    endgame_store.layer_path(6, tmp_path).write_bytes(b"\x00" * 10)
    assert endgame_store.complete_layers(tmp_path) == 6
    loaded = endgame_store.load(root=tmp_path)
    assert loaded is not None and np.array_equal(loaded, whole[: layer_offset(6)])
    left = sorted(p.name for p in endgame_store.store_dir(tmp_path).glob("layer-*.u8"))
    assert left == ["layer-06.u8"]  # not whole: left alone, and built again
    values = endgame_store.build(6, root=tmp_path, show_progress=False)
    assert np.array_equal(values, whole)


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


def test_game_bounds_are_stored_beside_the_values_and_resume(tmp_path: Path) -> None:
    stream = io.StringIO()
    endgame_store.build(6, root=tmp_path, stream=stream, bounds=True)
    assert "bounds [" in stream.getvalue()
    assert endgame_store.complete_bound_layers(tmp_path) == 7
    stored = endgame_store.load_bounds(root=tmp_path)
    values = retrograde.build(8)
    expect = tighten.closed_bounds(7, values)
    # the layers up to five seeds closed by proofs, those above swept from them
    assert tighten.CLOSED_UP_TO == 5
    games = retrograde.game_bounds(7)
    assert (games[0] <= expect[0]).all() and (expect[1] <= games[1]).all()
    small = layer_offset(tighten.CLOSED_UP_TO + 1)
    assert np.array_equal(expect[0][:small], expect[1][:small])
    assert (expect[0] < expect[1]).sum() < (games[0] < games[1]).sum()
    assert stored is not None
    assert np.array_equal(stored[0], expect[0]) and np.array_equal(stored[1], expect[1])
    # a build stopped while appending layer 7 to one file: the next one cuts and redoes it
    low_path, high_path = endgame_store.bounds_paths(tmp_path)
    with low_path.open("ab") as out:
        out.write(b"\x01" * 1000)
    assert endgame_store.complete_bound_layers(tmp_path) == 7
    figures: list[dict[str, int | float]] = []
    endgame_store.build_bounds(8, root=tmp_path, show_progress=False, on_layer=figures.append)
    assert [int(f["seeds"]) for f in figures] == [7, 8]
    assert low_path.stat().st_size == high_path.stat().st_size == layer_offset(9)
    again = endgame_store.load_bounds(7, root=tmp_path)
    expect = tighten.closed_bounds(8, values)
    assert again is not None and np.array_equal(again[0], expect[0])
    assert np.array_equal(again[1], expect[1])
    # bounds closed with other settings (an older version's, none at all): all again
    marker = low_path.parent / "bounds-closed.txt"
    assert marker.read_text().split() == [str(tighten.CLOSED_UP_TO), str(tighten.PROOF_NODES)]
    marker.unlink()
    figures.clear()
    endgame_store.build_bounds(8, root=tmp_path, show_progress=False, on_layer=figures.append)
    assert [int(f["seeds"]) for f in figures] == list(range(9)) and marker.exists()


def test_no_bounds_are_stored_unless_asked(tmp_path: Path) -> None:
    endgame_store.build(4, root=tmp_path, show_progress=False)
    assert endgame_store.load_bounds(root=tmp_path) is None
