"""The physics renderer: piles hold the asked count, and the set is cached on disk."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.render.physics_piles import build, main, render_physics_pit


@pytest.mark.parametrize("count", [0, 1, 5, 12, 25])
def test_the_physics_keeps_every_seed_in_the_pit(count: int) -> None:
    img, pile = render_physics_pit(count, np.random.default_rng(count), size=64)
    assert len(pile.positions) == count
    assert pile.in_pit() == count
    assert img.shape == (64, 64, 3) and img.dtype == np.uint8


def test_more_seeds_cover_more_of_the_picture() -> None:
    rng = np.random.default_rng(3)
    from vision.render.physics_piles import random_pit_style

    style = random_pit_style(rng)
    empty, _ = render_physics_pit(0, np.random.default_rng(1), 64, style)
    full, _ = render_physics_pit(10, np.random.default_rng(1), 64, style)
    change = np.abs(full.astype(int) - empty.astype(int)).mean()
    assert change > 3  # the seeds show (noise alone differs by about 2)


def test_the_set_is_built_once_and_kept(tmp_path: Path) -> None:
    assert build(tmp_path, per_count=1, counts=range(3)) == 3
    photos = sorted(tmp_path.glob("*/*.png"))
    assert [p.parent.name for p in photos] == ["0", "1", "2"]
    assert cv2.imread(str(photos[0])).shape == (96, 96, 3)
    assert build(tmp_path, per_count=1, counts=range(3)) == 0  # all kept: nothing rendered


def test_bad_options_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main([str(tmp_path), "--per-count", "0"]) == 2
    assert "--per-count" in capsys.readouterr().out
