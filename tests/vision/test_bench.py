"""The benchmark script runs on any folder laid out as <count>/<image>.png."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.synth import random_style, render_pit

BENCH = Path(__file__).resolve().parents[2] / "bench" / "vision.py"


@pytest.mark.parametrize("counter", ["deep", "cnn", "mlp"])
def test_bench_prints_the_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], counter: str
) -> None:
    rng = np.random.default_rng(1)
    style = random_style(rng)
    for count in range(4):
        (tmp_path / str(count)).mkdir()
        for k in range(8):
            cv2.imwrite(
                str(tmp_path / str(count) / f"p{count}_{k}.png"), render_pit(count, style, rng)
            )
    spec = importlib.util.spec_from_file_location("bench_vision", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    code = bench.main(
        ["--dataset", str(tmp_path), "--adapt", str(tmp_path), "--repeat", "1"]
        + ["--counter", counter, "--steps", "40", "--members", "2", "--pasted", "20"]
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
    spec = importlib.util.spec_from_file_location("bench_vision", BENCH)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    with pytest.raises(SystemExit) as exit_:
        bench.main(["--dataset", "anywhere", "--pasted", "-3"])
    assert exit_.value.code == 2
    assert "--pasted: must be at least 0, not -3" in capsys.readouterr().err
