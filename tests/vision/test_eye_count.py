"""Blind contact sheets, and the eye's counts against labels and a counter
(:mod:`vision.evaluation.eye_count`, printed by ``python -m bench.eye_count``)."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.eye_count import main
from vision.evaluation.eye_count import TILE, read_counts, save_beliefs, write_sheets
from vision.render.synth import random_style, render_pit


def _folder(root: Path, counts: range, per_count: int) -> Path:
    rng = np.random.default_rng(5)
    style = random_style(rng)
    for count in counts:
        (root / str(count)).mkdir(parents=True)
        for k in range(per_count):
            cv2.imwrite(str(root / str(count) / f"e{count}_{k}.png"), render_pit(count, style, rng))
    return root


def _fill(sheets: Path, counts: dict[int, int]) -> None:
    (sheets / "counts.txt").write_text(
        "# by eye\n" + "".join(f"{n}: {c}\n" for n, c in counts.items()), encoding="utf-8"
    )


def test_sheets_hold_every_chosen_photo_once_shuffled_and_unlabelled(tmp_path: Path) -> None:
    data = _folder(tmp_path / "data", range(0, 8), per_count=3)
    photos, pages = write_sheets(data, "all", range(2, 6), tmp_path / "s", seed=1)
    assert (photos, pages) == (12, 1)
    key = json.loads((tmp_path / "s" / "key.json").read_text())
    assert [k["number"] for k in key] == list(range(12))
    assert sorted(k["file"] for k in key) == sorted(
        f"e{c}_{k}.png" for c in range(2, 6) for k in range(3)
    )
    assert all(k["file"].startswith(f"e{k['label']}_") for k in key)
    labels = [k["label"] for k in key]
    assert labels != sorted(labels)  # dealt in a shuffled order, not folder by folder
    sheet = cv2.imread(str(tmp_path / "s" / "sheet-00.png"))
    assert sheet is not None and sheet.shape == (4 * TILE, 4 * TILE, 3)
    template = (tmp_path / "s" / "counts.txt").read_text().splitlines()
    assert [line for line in template if not line.startswith("#")] == [f"{n}:" for n in range(12)]
    # The same seed deals the same sheets; 17 photos need a second sheet.
    write_sheets(data, "all", range(2, 6), tmp_path / "t", seed=1)
    assert json.loads((tmp_path / "t" / "key.json").read_text()) == key
    assert write_sheets(data, "all", range(0, 6), tmp_path / "u", seed=1) == (18, 2)


def test_no_photo_of_the_counts_asked_for_is_an_error(tmp_path: Path) -> None:
    data = _folder(tmp_path / "data", range(0, 3), per_count=1)
    with pytest.raises(ValueError, match="no photographs of 6-9 seeds"):
        write_sheets(data, "all", range(6, 10), tmp_path / "s", seed=1)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0: 1\n1: 2\n", "1 photographs not counted yet: 2"),
        ("0: 1\n1: two\n2: 0\n", "counts.txt:2: expected 'number: count'"),
        ("0: 1\n1: 2\n2: 0\n7: 3\n", "counts.txt:4: no photograph 7"),
        ("0 1\n1: 2\n2: 0\n", "counts.txt:1: expected 'number: count'"),
    ],
)
def test_counts_that_cannot_be_scored_are_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "counts.txt"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        read_counts(path, 3)


def test_score_compares_the_eye_and_the_counter_with_the_labels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _folder(tmp_path / "data", range(0, 4), per_count=2)
    sheets = tmp_path / "s"
    assert main(["sheets", "--dataset", str(data), "--split", "all", "--out", str(sheets)]) == 0
    key = json.loads((sheets / "key.json").read_text())
    # The eye sees one seed more on photographs 0 and 1; a counter reads photograph 0 as the
    # eye does and photograph 2 wrongly, everything else as labelled.
    counted = {k["number"]: k["label"] + (k["number"] in (0, 1)) for k in key}
    _fill(sheets, counted)
    read = {k["file"]: k["label"] for k in key}
    read[key[0]["file"]] = counted[0]
    read[key[2]["file"]] = key[2]["label"] + 1
    names = sorted(read)
    beliefs = np.zeros((len(names), 10))
    beliefs[np.arange(len(names)), [read[n] for n in names]] = 0.9
    saved = tmp_path / "beliefs.npz"
    save_beliefs(saved, names, np.array([int(n[1]) for n in names]), beliefs + 0.01)
    capsys.readouterr()
    code = main(["score", "--sheets", str(sheets), "--beliefs", str(saved)])
    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0].startswith("the eye agrees with the label on 6 of 8 photographs (75.0%)")
    assert out[1].startswith("the counter reads 6 of 8 as labelled (75.0%); of its 2 errors, 1")
    rows = [line.split() for line in out[3:]]
    assert [r[0] for r in rows] == ["0", "1", "2"]
    assert rows[2][2:] == [str(key[2]["label"]), str(key[2]["label"]), str(key[2]["label"] + 1)]


def test_score_says_what_is_missing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _folder(tmp_path / "data", range(0, 2), per_count=1)
    sheets = tmp_path / "s"
    main(["sheets", "--dataset", str(data), "--split", "all", "--out", str(sheets)])
    assert main(["score", "--sheets", str(sheets)]) == 1  # the template is still empty
    assert "2 photographs not counted yet: 0, 1" in capsys.readouterr().err
    _fill(sheets, {0: 0, 1: 1})
    assert main(["score", "--sheets", str(sheets)]) == 0
    assert capsys.readouterr().out.startswith("the eye agrees with the label on 2 of 2")
    np.savez(tmp_path / "b.npz", names=np.array(["other.png"]), beliefs=np.ones((1, 3)))
    assert main(["score", "--sheets", str(sheets), "--beliefs", str(tmp_path / "b.npz")]) == 1
    assert "the beliefs file has no reading of" in capsys.readouterr().err
