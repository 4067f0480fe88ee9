"""The benchmark script runs on any folder laid out as <count>/<image>.png."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType
from typing import Any

import cv2
import numpy as np
import pytest

from vision.render.synth import random_style, render_pit


def _load_bench() -> ModuleType:
    """``python -m bench.vision``'s module, imported when a test runs: importing it asks for
    one thread per BLAS library (the bench measures speed on one core)."""
    return importlib.import_module("bench.vision")


def _rendered_folder(root: Path, counts: int, per_count: int = 6, seed: int = 2) -> Path:
    """``per_count`` rendered pits of each count 0 … counts - 1, in the bench's layout."""
    rng = np.random.default_rng(seed)
    style = random_style(rng)
    for count in range(counts):
        (root / str(count)).mkdir(parents=True)
        for k in range(per_count):
            cv2.imwrite(str(root / str(count) / f"p{count}_{k}.png"), render_pit(count, style, rng))
    return root


@pytest.mark.parametrize("counter", ["deep", "cnn", "mlp"])
def test_bench_prints_the_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], counter: str
) -> None:
    _rendered_folder(tmp_path, 4, per_count=8, seed=1)
    bench: Any = _load_bench()
    code = bench.main(
        ["--dataset", str(tmp_path), "--adapt", str(tmp_path), "--repeat", "1"]
        + ["--counter", counter, "--steps", "10", "--members", "2", "--pasted", "20"]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert f"{counter}" in out.splitlines()[0]
    if counter == "deep":
        assert "20 piles pasted from" in out.splitlines()[0]
    elif counter == "cnn":  # the small network draws none
        assert "0 piles pasted from 0" in out.splitlines()[0]
    for needle in (
        "overall exact",
        "within one seed",
        "mean log-likelihood",
        "95% set",
        "images per second",
    ):
        assert needle in out


def test_bench_refuses_a_negative_number_of_pasted_piles(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bench: Any = _load_bench()
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--dataset", "anywhere", "--pasted", "-3"])
    assert exit_.value.code == 2
    assert "--pasted: must be at least 0, not -3" in capsys.readouterr().err


def test_bench_plays_games_with_the_photographs_and_keeps_the_beliefs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _rendered_folder(tmp_path, 6)
    bench: Any = _load_bench()
    code = bench.main(
        ["--dataset", str(folder), "--split", "all", "--repeat", "1", "--counter", "mlp"]
        + ["--short-games", "3", "--save-beliefs", str(tmp_path / "kept" / "beliefs.npz")]
    )
    out = capsys.readouterr().out
    assert code == 0
    with np.load(tmp_path / "kept" / "beliefs.npz") as kept:
        names = [str(n) for n in kept["names"]]
        assert sorted(names) == sorted(p.name for p in folder.glob("*/*.png"))
        assert [int(n[1]) for n in names] == kept["truth"].tolist()
        assert np.allclose(kept["beliefs"].sum(axis=1), 1.0)
    assert "games played with the photographs: 3" in out
    assert "moves the referee named in order:" in out
    assert "(lost silently):" in out


def test_bench_says_why_no_game_can_be_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _rendered_folder(tmp_path, 4)  # 0 … 3 seeds: the start position has 4
    bench: Any = _load_bench()
    code = bench.main(
        ["--dataset", str(folder), "--split", "all", "--repeat", "1", "--counter", "mlp"]
        + ["--games", "3"]
    )
    assert code == 1
    assert "no games played: a game needs photographs of every count from 0 to 4" in (
        capsys.readouterr().out
    )
