"""`oware-companion count` and the camera half of `calibrate`, called as the CLI would."""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.commands import count as count_command
from companion.commands import train_counter
from companion.commands.camera_calibration import calibrate_camera
from tests.vision.conftest import Board
from vision.geometry.calibration import Calibration


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="oware-companion")
    subparsers = parser.add_subparsers(dest="command")
    train_counter.register(subparsers)
    count_command.register(subparsers)
    return parser


@pytest.fixture
def files(tmp_path: Path, board: Board) -> dict[str, Path]:
    out = {
        "empty": tmp_path / "empty.png",
        "start": tmp_path / "start.png",
        "photo": tmp_path / "photo.png",
        "cal": tmp_path / "cal.json",
    }
    cv2.imwrite(str(out["empty"]), board.empty)
    cv2.imwrite(str(out["start"]), board.start)
    cv2.imwrite(str(out["photo"]), board.frame([0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5], seed=77))
    return out


def _calibrate(files: dict[str, Path], **changes: object) -> argparse.Namespace:
    """The arguments `calibrate --source camera://0 --empty … --start … --yes` gives."""
    values: dict[str, object] = {
        "source": "camera://0",
        "out": str(files["cal"]),
        "corners": None,
        "empty": files["empty"],
        "start": files["start"],
        "no_teach": False,
        "yes": True,
        "layouts": 0,
        "layout": None,
        "counter": None,
    }
    values.update(changes)
    return argparse.Namespace(**values)


def test_calibrate_then_count(files: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    args = _calibrate(files)
    assert calibrate_camera(args) == 0
    cal = Calibration.load(files["cal"])
    assert cal.method == "aruco" and cal.counter is not None
    assert "warning" not in capsys.readouterr().err  # the area counter learns every count

    ns = _parser().parse_args(
        ["count", str(files["photo"]), "--calibration", str(files["cal"]), "--json"]
    )
    assert ns.func(ns) == 0
    report = json.loads(capsys.readouterr().out)
    counts = [p["count"] for p in report["pits"]]
    assert counts[:4] == [0, 1, 2, 3]  # small counts exactly
    truth = [0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5]
    assert sum(t in p["credible_95"] for t, p in zip(truth, report["pits"], strict=True)) >= 11
    assert all(0 < p["confidence"] <= 1 for p in report["pits"])

    ns = _parser().parse_args(["count", str(files["photo"]), "--calibration", str(files["cal"])])
    assert ns.func(ns) == 0
    text = capsys.readouterr().out
    assert "pit A" in text and "pit f" in text and "confidence" in text


def test_manual_corners(files: dict[str, Path], board: Board) -> None:
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in board.calibration.corners)
    args = _calibrate(files, corners=corners)
    assert calibrate_camera(args) == 0
    assert Calibration.load(files["cal"]).method == "manual"


def test_errors_give_exit_codes(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = _parser().parse_args(["count", str(tmp_path / "nope.png"), "--calibration", "x"])
    assert missing.func(missing) == 1
    assert "no image file at" in capsys.readouterr().err
    (tmp_path / "text.png").write_text("not a picture")
    unreadable = _parser().parse_args(["count", str(tmp_path / "text.png")])
    assert unreadable.func(unreadable) == 1
    assert "cannot read image" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{}")
    bad = _parser().parse_args(
        ["count", str(files["photo"]), "--calibration", str(tmp_path / "bad.json")]
    )
    assert bad.func(bad) == 2
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.zeros((720, 1280, 3), np.uint8))
    args = _calibrate(files, out=str(tmp_path / "c.json"), empty=blank, start=blank)
    assert calibrate_camera(args) == 2  # no board in a black picture: said in words


def test_a_camera_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    """No device 97: one line saying what to check, not OpenCV's warnings from each backend."""
    cmd = [sys.executable, "-m", "companion.cli", "calibrate", "--source", "camera://97"]
    cmd += ["--out", str(tmp_path / "c.json"), "--yes"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "error: cannot open camera://97: no camera answers there (is it plugged in, and not in"
        " use by another program? another camera is camera://1, camera://2 ...)"
    ]
    assert not (tmp_path / "c.json").exists()


def test_train_counter_learns_the_calibration_s_photos_with_a_folder_once(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The photos calibrate kept are added to a folder of photos, and not twice when the
    folder given is theirs."""
    assert calibrate_camera(_calibrate(files)) == 0
    taught = files["cal"].with_suffix(".photos")
    assert f"kept its 24 labelled pit photos in {taught}" in capsys.readouterr().out
    mine = tmp_path / "mine"
    for count, crop in ((1, 0), (2, 1)):
        (mine / str(count)).mkdir(parents=True)
        shutil.copy(next((taught / str(4 * crop)).iterdir()), mine / str(count) / "a.png")
    train = ["train-counter", "--calibration", str(files["cal"]), "--counter", "cnn"]
    train += ["--steps", "2", "--members", "1", "--out", str(tmp_path / "out.json")]
    for folder, said in (
        (
            mine,
            f"26 labelled pit photos (24 of them the calibration's, {taught}), counts [0, 1, 2, 4]",
        ),
        (taught, "24 labelled pit photos, counts [0, 4]"),
    ):
        args = _parser().parse_args([*train[:1], str(folder), *train[1:]])
        assert args.func(args) == 0
        assert said in capsys.readouterr().out


@pytest.mark.parametrize("option", ["--steps", "--members", "--views"])
@pytest.mark.parametrize("value", ["0", "-2", "many"])
def test_training_sizes_must_be_positive(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """0 is refused in words, not silently replaced by the default."""
    with pytest.raises(SystemExit) as stop:
        _parser().parse_args(["train-counter", "pits", "--calibration", "c.json", option, value])
    assert stop.value.code == 2
    assert option in capsys.readouterr().err


def test_calibrate_deep_without_pytorch_says_so_before_anything(
    files: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import vision.learning.deep_train

    monkeypatch.setattr(vision.learning.deep_train, "torch_available", lambda: False)
    assert calibrate_camera(_calibrate(files, counter="deep")) == 2
    assert "PyTorch" in capsys.readouterr().err
    assert not files["cal"].exists()


def test_the_help_names_the_real_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI cannot import vision for its help, so it writes the numbers: keep them true."""
    from vision.counting.cnn import NetCounter
    from vision.counting.deep import DeepCounter
    from vision.counting.ensemble import MEMBERS

    with pytest.raises(SystemExit):
        _parser().parse_args(["train-counter", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"default {DeepCounter.ADAPT_STEPS} deep, {NetCounter.ADAPT_STEPS} cnn" in text
    assert f"default {MEMBERS};" in text
    assert DeepCounter.DEFAULT_VIEWS == NetCounter.DEFAULT_VIEWS
    assert f"default {DeepCounter.DEFAULT_VIEWS}; counting takes" in text
    from vision.capture.pipeline import SETTLE_VIEWS

    assert f"a board settles, once a move, reads {SETTLE_VIEWS})" in text


@pytest.mark.parametrize("kind", ["cnn", "deep"])
def test_calibrate_with_the_network_counter(
    files: dict[str, Path], kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """--counter cnn|deep fine-tunes the networks on the two views and stores them."""
    args = _calibrate(files, counter=kind, steps=30, members=2)
    assert calibrate_camera(args) == 0
    cal = Calibration.load(files["cal"])
    assert cal.counter is not None and cal.counter["kind"] == kind
    assert len(cal.counter["networks"]) == 2
    err = capsys.readouterr().err
    assert "fine-tuning the counter" in err  # the progress bar
    assert "learn only 0 and 4" in err  # and what two views cannot teach a network
    assert _parser().parse_args(["count", str(files["photo"]), "--calibration", str(files["cal"])])
    count = _parser().parse_args(
        ["count", str(files["photo"]), "--calibration", str(files["cal"]), "--json"]
    )
    assert count.func(count) == 0
    pits = json.loads(capsys.readouterr().out)["pits"]
    assert len(pits) == 12 and all(abs(sum(p["belief"]) - 1) < 0.01 for p in pits)


def test_train_counter_on_a_labelled_folder(
    tmp_path: Path, files: dict[str, Path], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.render.synth import render_pit

    board.calibration.save(files["cal"])
    folder = tmp_path / "pits"
    rng = np.random.default_rng(3)
    for count in (0, 1, 2, 3):
        (folder / str(count)).mkdir(parents=True)
        for i in range(3):
            crop = render_pit(count, board.style, rng, size=90)
            cv2.imwrite(str(folder / str(count) / f"{i}.png"), crop)
    out = tmp_path / "trained.json"
    train = ["train-counter", str(folder), "--calibration", str(files["cal"]), "--out", str(out)]
    args = _parser().parse_args([*train, "--steps", "20", "--members", "2"])
    assert args.func(args) == 0
    text = capsys.readouterr()
    assert "12 labelled pit photos, counts [0, 1, 2, 3]; fine-tuning the deep counter" in text.out
    assert "(2 networks, temperatures" in text.out
    assert "fine-tuning" in text.err
    trained = Calibration.load(out)
    assert trained.counter is not None and trained.counter["kind"] == "deep"
    assert len(trained.counter["networks"]) == 2
    assert trained.corners == Calibration.load(files["cal"]).corners  # only the counter changed
    small = _parser().parse_args(
        [*train, "--steps", "20", "--members", "1", "--counter", "cnn", "--views", "2"]
    )
    assert small.func(small) == 0
    assert "each pit read in 2 views" in capsys.readouterr().out
    stored = Calibration.load(out).counter
    assert stored is not None and stored["kind"] == "cnn" and stored["views"] == 2
    # bad input: an empty folder, a missing calibration
    (tmp_path / "none").mkdir()
    bad = _parser().parse_args(
        ["train-counter", str(tmp_path / "none"), "--calibration", str(files["cal"])]
    )
    assert bad.func(bad) == 1
    missing = _parser().parse_args(
        ["train-counter", str(folder), "--calibration", str(tmp_path / "nope.json")]
    )
    assert missing.func(missing) in (1, 2)
    assert "error:" in capsys.readouterr().err
    # a counter that could not be saved is refused before the minutes of fine-tuning
    unwritable = _parser().parse_args([*train[:-1], str(tmp_path), "--steps", "20"])
    assert unwritable.func(unwritable) == 2
    said = capsys.readouterr()
    such = tmp_path / "calibration.json"
    assert said.err == f"error: {tmp_path} is a folder: give --out a file, such as {such}\n"
    assert "fine-tuning" not in said.out


def test_calibrate_once_and_every_command_reads_it(
    tmp_path: Path, files: dict[str, Path], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --out, calibrate saves in the user's config directory (private to the
    test, see tests/conftest.py); count and train-counter read it from there."""
    from vision.geometry.calibration import default_path
    from vision.render.synth import render_pit

    saved = default_path()
    count = ["count", str(files["photo"]), "--json"]
    # nothing saved yet: count finds the board in the photo, train-counter says what to do
    ns = _parser().parse_args(count)
    assert ns.func(ns) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["calibration"] is None
    folder = tmp_path / "pits"
    rng = np.random.default_rng(4)
    for n in (0, 1):
        (folder / str(n)).mkdir(parents=True)
        for i in range(2):
            cv2.imwrite(str(folder / str(n) / f"{i}.png"), render_pit(n, board.style, rng, size=90))
    train = _parser().parse_args(
        ["train-counter", str(folder), "--counter", "cnn", "--steps", "5", "--members", "1"]
    )
    assert train.func(train) == 2
    err = capsys.readouterr().err
    assert f"no camera calibration at {saved}" in err and "oware-companion calibrate" in err

    assert calibrate_camera(_calibrate(files, out=None)) == 0
    assert f"wrote {saved}" in capsys.readouterr().out
    ns = _parser().parse_args(count)
    assert ns.func(ns) == 0
    by_default = json.loads(capsys.readouterr().out)
    assert by_default["calibration"] == str(saved) and by_default["method"] == "aruco"
    ns = _parser().parse_args([*count, "--calibration", str(saved)])
    assert ns.func(ns) == 0
    assert json.loads(capsys.readouterr().out)["pits"] == by_default["pits"]
    ns = _parser().parse_args(count[:2])
    assert ns.func(ns) == 0
    assert f"(calibration {saved}, by: aruco; counter:" in capsys.readouterr().out

    assert train.func(train) == 0  # fine-tunes into the saved calibration, in place
    stored = Calibration.load(saved)
    assert stored.counter is not None and stored.counter["kind"] == "cnn"
    out = capsys.readouterr().out
    assert f"wrote {saved}" in out
    previous = saved.with_name(saved.name + ".previous")  # the area counter, kept aside
    assert f"the previous calibration is kept as {previous}" in out
    assert Calibration.load(previous).counter["kind"] == "area"  # type: ignore[index]


def test_calibrating_again_keeps_the_trained_counter(
    files: dict[str, Path], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    """Re-locating a nudged board (--no-teach) keeps the counter in the file; teaching
    anew moves the old file aside rather than losing a counter that took hours."""
    trained = board.calibration.with_counter({"kind": "deep", "networks": ["stand-in"]})
    trained.save(files["cal"])
    before = files["cal"].read_text()
    corners = " ".join(f"{x + 3:.1f},{y:.1f}" for x, y in board.calibration.corners)
    grab = f"video://{files['photo']}"  # the frame --no-teach takes from the "camera"
    assert calibrate_camera(_calibrate(files, no_teach=True, corners=corners, source=grab)) == 0
    out = capsys.readouterr().out
    assert f"kept the deep counter already in {files['cal']}" in out
    relocated = Calibration.load(files["cal"])
    assert relocated.counter == trained.counter
    assert relocated.corners[0][0] == pytest.approx(board.calibration.corners[0][0] + 3, abs=0.1)
    backup = files["cal"].with_name("cal.json.previous")
    assert backup.read_text() == before
    assert calibrate_camera(_calibrate(files)) == 0  # teach anew: the area counter
    assert f"the previous calibration is kept as {backup}" in capsys.readouterr().out
    assert Calibration.load(files["cal"]).counter["kind"] == "area"  # type: ignore[index]
    assert Calibration.load(backup).counter == trained.counter


def test_locating_without_teaching_and_no_counter_to_keep_warns(
    files: dict[str, Path], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    """--no-teach on a first calibration leaves the built-in counter: say what that costs."""
    corners = " ".join(f"{x:.1f},{y:.1f}" for x, y in board.calibration.corners)
    grab = f"video://{files['photo']}"
    assert not files["cal"].exists()
    assert calibrate_camera(_calibrate(files, no_teach=True, corners=corners, source=grab)) == 0
    err = capsys.readouterr().err
    assert "warning: no counter was taught" in err and "without --no-teach" in err
    assert Calibration.load(files["cal"]).counter is None


def test_train_counter_learns_from_the_photos_kept_of_your_games(
    tmp_path: Path, files: dict[str, Path], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a folder, train-counter finds what serve kept (DATA_DIR/pit-photos/<camera>/)."""
    from companion.service.config import default_data_dir
    from companion.sources import pit_photo_folder
    from vision.render.synth import render_pit

    board.calibration.save(files["cal"])
    quick = ["--calibration", str(files["cal"]), "--counter", "cnn", "--steps", "5"]
    quick += ["--members", "1", "--out", str(tmp_path / "out.json")]

    def train(*extra: str) -> tuple[int, str, str]:
        ns = _parser().parse_args(["train-counter", *extra, *quick])
        code = ns.func(ns)
        out = capsys.readouterr()
        return code, out.out, out.err

    def keep(root: Path, url: str, photos: int) -> Path:
        folder = pit_photo_folder(root, url)
        rng = np.random.default_rng(photos)
        for i in range(photos):
            (folder / str(i % 3)).mkdir(parents=True, exist_ok=True)
            crop = render_pit(i % 3, board.style, rng, size=64)
            cv2.imwrite(str(folder / str(i % 3) / f"{url[-1]}-{i}.png"), crop)
        return folder

    code, _, err = train()  # nothing kept yet: say how to get some
    assert code == 1
    assert "no pit photos kept" in err and "oware-companion serve --source" in err
    first = keep(default_data_dir(), "camera://0", 6)
    code, out, _ = train()
    assert code == 0, out
    assert f"kept of your games: {first}" in out and "6 labelled pit photos" in out
    keep(default_data_dir(), "camera://1", 9)
    code, _, err = train()  # two cameras: which board's seeds and light?
    assert code == 1 and "2 cameras" in err and "camera-0, camera-1" in err and "--source" in err
    code, out, _ = train("--source", "camera://1")
    assert code == 0 and "9 labelled pit photos" in out
    code, _, err = train("--source", "camera://7")
    assert code == 1 and "no pit photos kept of camera://7" in err
    elsewhere = keep(tmp_path / "venue-data", "camera://2", 3)  # a venue's data_dir
    code, out, _ = train("--data-dir", str(tmp_path / "venue-data"))
    assert code == 0 and str(elsewhere) in out and "3 labelled pit photos" in out


def test_calibrate_with_layouts_fine_tunes_the_deep_network_on_every_pit(
    files: dict[str, Path], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    """The default calibration: empty, start, then four spread layouts, each shown as a
    picture and read before it is kept; the deep network learns from all 72 pits."""
    from companion.commands.camera_calibration import LAYOUTS as ASKED
    from vision.learning.layouts import LAYOUTS

    assert ASKED == len(LAYOUTS) == 4  # (the command's default is the layouts' list)
    shots = []
    for k, layout in enumerate(LAYOUTS):
        shots.append(files["cal"].parent / f"layout{k}.png")
        cv2.imwrite(str(shots[-1]), board.frame(list(layout.pits), seed=50 + k))
    args = _calibrate(files, layouts=ASKED, layout=shots, steps=20, members=1)
    assert calibrate_camera(args) == 0
    cal = Calibration.load(files["cal"])
    assert cal.counter is not None and cal.counter["kind"] == "deep"
    out, err = capsys.readouterr()
    assert "layout 2 of 4" in out and "A: 2, B: 0, C: 1" in out  # where to put how many
    assert "layout 4 of 4" in out and "A: 9, B: 1, C: 2, D: 0, E: 1" in out
    assert (files["cal"].parent / "cal.layout-3.png").is_file()  # and the picture of it
    assert "and 4 layouts" in out
    assert "warning" not in err  # every photo read as the layout asked for
    assert "fine-tuning the counter" in err


def test_a_layout_photo_that_shows_another_layout_is_said(
    files: dict[str, Path], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    from vision.learning.layouts import LAYOUTS

    first = files["cal"].parent / "layout0.png"
    cv2.imwrite(str(first), board.frame(list(LAYOUTS[0].pits), seed=50))
    args = _calibrate(files, layouts=2, layout=[first, first], counter="head")
    assert calibrate_camera(args) == 0  # kept (the user was not at the keyboard), but said
    err = capsys.readouterr().err
    assert "warning: layout 2: the seeds look turned by 11 pits" in err
    assert "warning: layout 1" not in err


def test_more_layout_photos_than_layouts_is_one_line(
    files: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    args = _calibrate(files, layouts=1, layout=[files["start"], files["start"]])
    assert calibrate_camera(args) == 2
    assert "2 --layout photos for 1 layouts" in capsys.readouterr().err
    assert not files["cal"].exists()
