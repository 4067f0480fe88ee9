"""The path-traced renderer: the asked count in the pit, seeds that show, a cached set."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.render.path_traced import Finish, main, render_traced_pit
from vision.render.physics_piles import build, random_pit_style

BLUE = (0.08, 0.2, 0.85)


@pytest.mark.parametrize("count", [0, 1, 7])
def test_the_photo_holds_the_asked_pile(count: int) -> None:
    img, pile = render_traced_pit(count, np.random.default_rng(count), size=48, spp=4)
    assert img.shape == (48, 48, 3) and img.dtype == np.uint8
    assert len(pile.positions) == len(pile.turns) == count
    assert pile.in_pit() == count
    assert img.std() > 3  # a lit scene, not a blank frame


def _blue_share(img: np.ndarray) -> float:
    b, g, r = (img[..., k].astype(int) for k in range(3))
    return float(((b > r + 40) & (b > g + 20)).mean())


def test_more_seeds_cover_more_of_the_bowl() -> None:
    # Blue seeds on orange wood: the share of blue pixels grows with the pile.
    style = replace(random_pit_style(np.random.default_rng(5)), seed_colour=BLUE, tilt=0.0)
    finish = Finish(
        wood_roughness=0.4,
        bowl_shade=0.2,
        seed_roughness=0.3,
        seed_palette=(BLUE,),
        speckled=False,
    )
    shares = [
        _blue_share(render_traced_pit(n, np.random.default_rng(9), 64, style, 8, finish)[0])
        for n in (0, 3, 10)
    ]
    assert shares[0] < 0.01
    assert shares[0] < shares[1] < shares[2]
    assert shares[2] > 0.1


def test_the_set_is_cached_and_bad_options_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path), "--per-count", "1", "--max-count", "1", "--size", "32"]) == 0
    photos = sorted(tmp_path.glob("*/*.png"))
    assert [p.parent.name for p in photos] == ["0", "1"]
    second = cv2.imread(str(photos[1]))
    assert second is not None and second.shape == (32, 32, 3)
    assert build(tmp_path, per_count=1, counts=range(2), size=32) == 0  # kept, not redone
    assert main([str(tmp_path), "--per-count", "0"]) == 2
    assert "--per-count" in capsys.readouterr().out.splitlines()[-1]
