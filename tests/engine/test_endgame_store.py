"""Endgame databases on disk: build, resume after an interruption, load, progress bar."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from companion import endgame_store
from core.engine import retrograde, tighten
from core.engine.analysis import analyze, make_searcher
from core.engine.ranking import layer_offset
from core.position import Position


def test_build_writes_layers_and_loads_them_back(tmp_path: Path) -> None:
    stream = io.StringIO()
    built = endgame_store.build(5, root=tmp_path, stream=stream)
    assert endgame_store.complete_layers(tmp_path) == 6
    assert endgame_store.values_path(tmp_path).stat().st_size == layer_offset(6)
    loaded = endgame_store.load(root=tmp_path)
    assert loaded is not None
    assert np.array_equal(loaded, built)
    assert np.array_equal(loaded, tighten.build_exact(5)[0])
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

    on_disk, in_memory = search(mapped), search(tighten.build_exact(8)[0])
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
    assert np.array_equal(values, tighten.build_exact(6)[0])
    assert path.stat().st_size == layer_offset(7)


def test_a_smaller_build_keeps_the_layers_above(tmp_path: Path) -> None:
    endgame_store.build(6, root=tmp_path, show_progress=False)
    done: list[dict[str, int | float]] = []
    values = endgame_store.build(4, root=tmp_path, show_progress=False, on_layer=done.append)
    assert done == [] and endgame_store.database_seeds(values) == 4
    assert endgame_store.complete_layers(tmp_path) == 7


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
    assert "bounds [" not in stream.getvalue()  # (built with the values up to 10 seeds)
    assert endgame_store.complete_bound_layers(tmp_path) == 7
    stored = endgame_store.load_bounds(root=tmp_path)
    values, lows, highs = tighten.build_exact(8)
    assert stored is not None
    assert np.array_equal(stored[0], lows[: layer_offset(7)])
    assert np.array_equal(stored[1], highs[: layer_offset(7)])
    # the layers up to five seeds closed by proofs, those above built on them
    assert tighten.CLOSED_UP_TO == 5
    games = retrograde.game_bounds(9)
    assert (games[0] <= lows).all() and (highs <= games[1]).all()
    small = layer_offset(tighten.CLOSED_UP_TO + 1)
    assert np.array_equal(lows[:small], highs[:small])
    assert (lows < highs).sum() < (games[0] < games[1]).sum()
    # a build stopped while appending layer 7 to one file: the next one cuts and redoes
    # it, the values with it
    low_path, high_path = endgame_store.bounds_paths(tmp_path)
    with low_path.open("ab") as out:
        out.write(b"\x01" * 1000)
    assert endgame_store.complete_bound_layers(tmp_path) == 7
    figures: list[dict[str, int | float]] = []
    endgame_store.build(8, root=tmp_path, show_progress=False, on_layer=figures.append)
    assert [int(f["seeds"]) for f in figures] == [7, 8]
    assert all(
        int(f["open"])
        == int(
            np.count_nonzero(
                lows[layer_offset(int(f["seeds"])) : layer_offset(int(f["seeds"]) + 1)]
                < highs[layer_offset(int(f["seeds"])) : layer_offset(int(f["seeds"]) + 1)]
            )
        )
        for f in figures
    )
    assert low_path.stat().st_size == high_path.stat().st_size == layer_offset(9)
    again = endgame_store.load_bounds(root=tmp_path)
    assert again is not None and np.array_equal(again[0], lows)
    assert np.array_equal(again[1], highs)
    loaded = endgame_store.load(root=tmp_path)
    assert loaded is not None and np.array_equal(loaded, values)
    # a layer whose values reached the disk and whose bounds did not is built again
    with low_path.open("r+b") as out:
        out.truncate(layer_offset(8) + 5)
    figures.clear()
    endgame_store.build(8, root=tmp_path, show_progress=False, on_layer=figures.append)
    assert [int(f["seeds"]) for f in figures] == [8]
    assert np.array_equal(np.fromfile(low_path, np.uint8), lows)


def test_values_clamped_into_closed_bounds_are_the_games_where_they_close() -> None:
    """The values of the small layers rest on their cycle convention where the layer's
    own bounds stay open; where the bounds the proofs closed disagree, the value is
    now the game's (the brute force agrees on 2 and 3 seeds: ``test_tighten.py``)."""
    values, lows, highs = tighten.build_exact(6)
    convention = retrograde.build(6)
    small = layer_offset(tighten.CLOSED_UP_TO + 1)
    assert np.array_equal(values[:small], lows[:small])
    moved = int(np.count_nonzero(values != convention))
    assert moved > 0, "the convention was right everywhere"
    assert ((lows <= values) & (values <= highs)).all()


def test_bounds_above_ten_seeds_are_stored_only_when_asked(tmp_path: Path) -> None:
    assert endgame_store.load_bounds(root=tmp_path) is None
    endgame_store.build(11, root=tmp_path, show_progress=False)
    assert endgame_store.complete_layers(tmp_path) == 12
    assert endgame_store.complete_bound_layers(tmp_path) == tighten.CLAMPED_UP_TO + 1 == 11
    endgame_store.build(11, root=tmp_path, show_progress=False, bounds=True)
    assert endgame_store.complete_bound_layers(tmp_path) == 12


def test_a_build_asked_to_close_further_builds_again_from_the_first_layer_to_close(
    tmp_path: Path,
) -> None:
    """The store records how far proofs closed it: asking for more closes it further
    (the layers below kept), asking for less or the same keeps it as it is, and so does
    asking bigger proofs of a layer with no board left open. Proofs of 50 nodes leave
    boards open in layers 3 and 4."""
    endgame_store.build(6, root=tmp_path, show_progress=False, close_up_to=3, proof_nodes=50)
    assert endgame_store.stored_closing(tmp_path)[:7] == [0, 0, 50, 50, 0, 0, 0]
    lows, highs = (np.array(a) for a in endgame_store.load_bounds(root=tmp_path) or ())
    four = slice(layer_offset(4), layer_offset(5))
    swept = int(np.count_nonzero(lows[four] < highs[four]))
    assert swept > 0
    below = lows[: layer_offset(4)].copy()
    figures: list[dict[str, int | float]] = []
    endgame_store.build(
        6, root=tmp_path, show_progress=False, close_up_to=4, proof_nodes=50,
        on_layer=figures.append,
    )  # fmt: skip
    assert [int(f["seeds"]) for f in figures] == [4, 5, 6]
    assert int(figures[0]["closed"]) > 0
    lows, highs = (np.array(a) for a in endgame_store.load_bounds(root=tmp_path) or ())
    closed_four = (lows[four], highs[four])
    assert int(np.count_nonzero(lows[four] < highs[four])) == swept - int(figures[0]["closed"])
    assert np.array_equal(lows[: layer_offset(4)], below)
    assert endgame_store.stored_closing(tmp_path)[4] == 50
    # the same, less, or smaller proofs: nothing to do; nor bigger proofs of layer 2,
    # whose every board is closed
    two = slice(layer_offset(2), layer_offset(3))
    assert (lows[two] == highs[two]).all()
    three = slice(layer_offset(3), layer_offset(4))
    assert (lows[three] < highs[three]).any()
    figures.clear()
    for close_up_to, nodes in ((4, 50), (3, 50), (4, 20), (2, 30_000)):
        endgame_store.build(
            6, root=tmp_path, show_progress=False, close_up_to=close_up_to,
            proof_nodes=nodes, on_layer=figures.append,
        )  # fmt: skip
    assert figures == []

    # bigger proofs of layer 3: built again from there, the build stopped after layer 3
    # (the files cut from layer 3 up) and run again
    def stop_after_three(info: dict[str, int | float]) -> None:
        figures.append(info)
        if info["seeds"] == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        endgame_store.build(
            6, root=tmp_path, show_progress=False, close_up_to=3, proof_nodes=30_000,
            on_layer=stop_after_three,
        )  # fmt: skip
    assert endgame_store.earlier_path(tmp_path).exists()
    endgame_store.build(
        6, root=tmp_path, show_progress=False, close_up_to=3, proof_nodes=30_000,
        on_layer=figures.append,
    )  # fmt: skip
    assert [int(f["seeds"]) for f in figures] == [3, 4, 5, 6]
    assert int(figures[0]["closed"]) > 0
    assert endgame_store.stored_closing(tmp_path)[:5] == [0, 0, 50, 30_000, 0]
    assert not endgame_store.earlier_path(tmp_path).exists()
    # layer 4, built again without proofs, keeps what its earlier proofs closed
    assert int(figures[1]["closed"]) == 0
    lows, highs = (np.array(a) for a in endgame_store.load_bounds(root=tmp_path) or ())
    assert (lows[four] >= closed_four[0]).all() and (highs[four] <= closed_four[1]).all()
    assert int(np.count_nonzero(lows[four] < highs[four])) < swept


def test_a_store_without_its_closing_record_counts_as_built_with_the_defaults(
    tmp_path: Path,
) -> None:
    """Closed to 3 seeds by proofs of 50 nodes (boards of layer 3 left open), the record
    lost: proofs of 60 nodes count as smaller than the default's, bigger ones close the
    store again from layer 3 (layer 2 has no board open)."""
    endgame_store.build(5, root=tmp_path, show_progress=False, close_up_to=3, proof_nodes=50)
    endgame_store.closing_path(tmp_path).unlink()
    figures: list[dict[str, int | float]] = []
    endgame_store.build(
        5, root=tmp_path, show_progress=False, close_up_to=3, proof_nodes=60,
        on_layer=figures.append,
    )  # fmt: skip
    assert figures == []
    endgame_store.build(
        5, root=tmp_path, show_progress=False, close_up_to=3,
        proof_nodes=tighten.PROOF_NODES + 1, on_layer=figures.append,
    )  # fmt: skip
    assert [int(f["seeds"]) for f in figures] == [3, 4, 5]


def test_a_build_stopped_halfway_through_a_layers_proofs_goes_on_from_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Layer 4 proved in parts with a budget too small to close most of its boards: a
    build stopped after five parts tries, when run again, only the boards those parts
    did not, and ends with the bounds of a build never stopped."""
    figures: list[dict[str, int | float]] = []
    whole = tmp_path / "whole"
    endgame_store.build(
        4, root=whole, show_progress=False, close_up_to=4, proof_nodes=50,
        on_layer=figures.append,
    )  # fmt: skip
    expected = endgame_store.load_bounds(root=whole)
    assert expected is not None
    swept = int(figures[4]["open"]) + int(figures[4]["closed"])  # open before the proofs
    assert int(figures[4]["open"]) > 0  # (the budget leaves boards open: tried, not closed)

    real = endgame_store._tighten_part
    given: list[int] = []  # how many boards each part of layer 4 was given
    start, size = layer_offset(4), layer_offset(5) - layer_offset(4)

    def counted(
        seeds: int, values: np.ndarray, lows: np.ndarray, highs: np.ndarray,
        nodes: int, part: int, parts: int, skip: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        if seeds == 4:
            if stop and len(given) == 5:
                raise KeyboardInterrupt
            still_open = (lows[start : start + size] < highs[start : start + size]) & ~skip
            given.append(len(np.flatnonzero(still_open)[part::parts]))
        return real(seeds, values, lows, highs, nodes, part, parts, skip)

    monkeypatch.setattr(endgame_store, "_tighten_part", counted)
    stopped = tmp_path / "stopped"
    stop = True
    with pytest.raises(KeyboardInterrupt):
        endgame_store.build(
            4, root=stopped, show_progress=False, close_up_to=4, proof_nodes=50, workers=1
        )
    assert endgame_store.tried_path(stopped).exists()
    before = sum(given)
    assert 0 < before < swept
    given.clear()
    stop = False
    endgame_store.build(
        4, root=stopped, show_progress=False, close_up_to=4, proof_nodes=50, workers=1
    )
    # each board the sweep left open tried once over the two builds
    assert before + sum(given) == swept
    again = endgame_store.load_bounds(root=stopped)
    assert again is not None
    assert np.array_equal(again[0], expected[0]) and np.array_equal(again[1], expected[1])
    assert not endgame_store.tried_path(stopped).exists()
    assert not endgame_store.earlier_path(stopped).exists()
