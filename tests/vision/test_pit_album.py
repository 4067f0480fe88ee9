"""The album of labelled pit photos a game leaves behind (vision/learning/pit_album.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.evaluation.dataset import load_folder
from vision.learning.pit_album import PitAlbum, calibration_photo_folder, keep_calibration_photos


def _crops(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, (40, 40, 3), dtype=np.uint8) for _ in range(n)]


def test_a_position_is_saved_in_the_layout_train_counter_reads(tmp_path: Path) -> None:
    album = PitAlbum(tmp_path / "album")
    crops, counts = _crops(12), [4, 4, 4, 4, 0, 5, 5, 5, 5, 4, 4, 4]
    assert album.add(crops, counts, move=1) == 12
    assert album.saved == 12
    read = load_folder(tmp_path / "album")
    assert sorted(e.count for e in read) == sorted(counts)
    by_name = {e.path.name: e for e in read}
    for pit, (crop, count) in enumerate(zip(crops, counts, strict=True)):
        (name,) = [n for n in by_name if n.endswith(f"-m001-p{pit:02d}.png")]
        assert by_name[name].count == count
        assert np.array_equal(by_name[name].image, crop)  # PNG: the pixels, unchanged
    assert not list((tmp_path / "album").rglob("*.part"))  # no half-written photo left


def test_a_position_the_reading_contradicts_is_left_out(tmp_path: Path) -> None:
    album = PitAlbum(tmp_path / "album")
    sure_of_three = np.eye(49)[3]
    beliefs = [sure_of_three, None]
    assert album.add(_crops(2), [3, 9], beliefs, move=2) == 2  # no reading of pit 1: kept
    assert album.add(_crops(2), [4, 9], beliefs, move=3) == 0  # pit 0 surely is not 4
    assert (album.saved, album.skipped) == (2, 1)
    assert len(load_folder(tmp_path / "album")) == 2


def test_bad_positions_are_refused(tmp_path: Path) -> None:
    album = PitAlbum(tmp_path / "album")
    with pytest.raises(ValueError, match="2 crops for 3 counts"):
        album.add(_crops(2), [1, 2, 3])
    with pytest.raises(ValueError, match="negative"):
        album.add(_crops(1), [-1])
    assert not (tmp_path / "album").exists()


def test_a_new_calibration_s_photos_replace_the_old_ones_whole(tmp_path: Path) -> None:
    calibration = tmp_path / "camera.json"
    first = [("empty", _crops(12, 1), [0] * 12), ("start", _crops(12, 2), [4] * 12)]
    folder, saved = keep_calibration_photos(calibration, first)
    assert folder == calibration_photo_folder(calibration) == tmp_path / "camera.photos"
    assert saved == 24
    assert sorted(e.count for e in load_folder(folder)) == [0] * 12 + [4] * 12
    layout = list(range(10)) + [1, 2]
    again = [("layout1", _crops(12, 3), layout)]
    assert keep_calibration_photos(calibration, again) == (folder, 12)
    read = load_folder(folder)
    assert sorted(e.count for e in read) == sorted(layout)  # none of the first set is left
    assert all("-layout1-p" in e.path.name for e in read)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["camera.photos"]  # no .new, no .old
