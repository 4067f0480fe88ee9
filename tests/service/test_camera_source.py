"""A camera source and its calibration, the way a person sets one up.

``oware-companion calibrate --source camera://0`` saves the calibration in
the user's config directory; ``serve --source camera://0`` must then read
it without being told (it used to refuse unless a venue config named the
file). ``--calibration FILE`` or the config's ``[camera] calibration`` name
another one. A camera with no usable calibration is refused before the
server starts, with a message that says how to make one.

Every test points the user's config directory (``XDG_CONFIG_HOME``) at its
own temporary folder, so nothing here reads or writes the real one.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from companion.service.config import ServiceConfig
from companion.service.service import Service
from companion.sources import SourceURLError, camera_calibration_path, open_source
from vision.capture.source import CameraSource
from vision.evaluation.dataset import load_folder
from vision.geometry.calibration import Calibration, CalibrationError, default_path

from .conftest import read_jsonl, session_log, start_server

CLI = [sys.executable, "-m", "companion.cli"]
CORNERS = ((100.0, 100.0), (1100.0, 100.0), (1100.0, 500.0), (100.0, 500.0))


@pytest.fixture
def saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where ``calibrate`` would save (nothing there yet), in a private config dir."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return default_path()


def _write(path: Path, corners: tuple[tuple[float, float], ...] = CORNERS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Calibration(corners, (1280, 720), method="manual").save(path)
    return path


def test_the_saved_calibration_lives_in_the_users_config_dir(saved: Path, tmp_path: Path) -> None:
    assert saved == tmp_path / "config" / "oware-companion" / "camera-calibration.json"


def test_without_any_calibration_the_message_says_how_to_make_one(saved: Path) -> None:
    url = "video:///match.avi"
    with pytest.raises(SourceURLError) as caught:
        open_source(url)
    text = str(caught.value)
    assert "needs a camera calibration" in text
    assert str(saved) in text
    assert f"oware-companion calibrate --source {url}" in text
    assert "--calibration FILE" in text


def test_the_calibration_calibrate_saved_is_read_by_default(saved: Path) -> None:
    _write(saved)
    assert camera_calibration_path("camera://0") == saved
    source = open_source("camera://0")
    assert isinstance(source, CameraSource)
    assert source.calibration.corners == CORNERS


def test_a_calibration_given_wins_over_the_saved_one(saved: Path, tmp_path: Path) -> None:
    _write(saved)
    other = ((0.0, 0.0), (640.0, 0.0), (640.0, 300.0), (0.0, 300.0))
    given = _write(tmp_path / "board2.json", other)
    assert camera_calibration_path("camera://0", given) == given
    assert open_source("camera://0", given).calibration.corners == other
    # a file named but missing is an error, not a silent fall-back to the saved one
    with pytest.raises(SourceURLError, match=r"not found: .*nope\.json"):
        open_source("camera://0", tmp_path / "nope.json")


def test_the_service_refuses_an_unusable_camera_before_starting(
    saved: Path, tmp_path: Path
) -> None:
    config = ServiceConfig(data_dir=tmp_path / "data")
    with pytest.raises(SourceURLError, match="needs a camera calibration"):
        Service(["sim://", "camera://0"], config)
    saved.parent.mkdir(parents=True)
    saved.write_text("{not json")
    with pytest.raises(CalibrationError, match="not valid JSON"):
        Service(["camera://0"], config)
    _write(saved)
    with pytest.raises(SourceURLError, match="camera://N"):
        Service(["camera://front"], config)
    service = Service(["camera://0"], config)  # a usable one: accepted
    assert service.urls == ["camera://0"]
    assert not (tmp_path / "data").exists()  # nothing was started


def test_serve_without_a_calibration_exits_with_the_message_and_no_traceback(
    saved: Path, tmp_path: Path
) -> None:
    run = subprocess.run(
        [*CLI, "serve", "--source", "camera://0", "--data-dir", str(tmp_path / "d")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1, run.stderr
    assert "oware-companion: error:" in run.stderr
    assert f"none is saved at {saved}" in run.stderr
    assert "Traceback" not in run.stderr + run.stdout
    missing = tmp_path / "missing.json"
    run = subprocess.run(
        [*CLI, "serve", "--source", "camera://0", "--calibration", str(missing)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1 and f"not found: {missing}" in run.stderr, run.stderr


def test_calibrate_then_serve_referees_a_recorded_game(saved: Path, tmp_path: Path) -> None:
    """The README's steps on a rendered game: calibrate saves (and keeps the photos it was
    taught from), serve finds it and keeps the game's labelled pit photos, train-counter
    learns from both."""
    from vision.render.synth_game import render_session

    game = tmp_path / "game"
    render_session(game, n_moves=4, seed=3)
    rendered = json.loads((game / "game.json").read_text())
    truth = rendered["names"]
    cal = subprocess.run(
        [
            *CLI,
            "calibrate",
            "--source",
            f"video://{game / 'empty.png'}",
            "--empty",
            str(game / "empty.png"),
            "--start",
            str(game / "start.png"),
            # the two views and the area counter, instant (layouts: tests/vision/test_cli.py)
            "--layouts",
            "0",
            "--yes",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert cal.returncode == 0, cal.stdout + cal.stderr
    assert f"wrote {saved}" in cal.stdout and saved.is_file()
    # the photos it was taught from, kept beside it: twelve empty pits, twelve of four
    taught = load_folder(saved.with_suffix(".photos"))
    assert sorted((e.count, e.path.stem.split("-")[-2]) for e in taught) == sorted(
        [(0, "empty")] * 12 + [(4, "start")] * 12
    )
    assert f"kept its 24 labelled pit photos in {saved.with_suffix('.photos')}" in cal.stdout

    data = tmp_path / "data"
    server = start_server(
        data, "--source", f"video://{game / 'game.avi'}?realtime=0", "--no-engine"
    )
    try:
        moves: list[str] = []
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and len(moves) < len(truth):
            time.sleep(0.5)
            moves = [e["name"] for e in read_jsonl(session_log(data)) if e.get("type") == "move"]
        camera = server.get("/health").json()["boards"]["1"]["link"]
    finally:
        server.stop()
    assert moves == truth, server.log_text()[-3000:]

    # Every confirmed position left its twelve pit photos, labelled, for train-counter.
    album = data / "pit-photos" / f"video-{game.as_posix().strip('/').replace('/', '-')}-game.avi"
    assert camera["pit_photos"]["folder"] == str(album)
    photos = load_folder(album)
    assert len(photos) == 12 * len(truth), sorted(p.path.name for p in photos)
    for photo in photos:
        move, pit = (int(part[1:]) for part in photo.path.stem.split("-")[-2:])
        assert photo.count == rendered["positions"][move][pit], photo.path
    train = subprocess.run(
        # no folder: it finds the photos serve kept of the one camera
        [*CLI, "train-counter", "--data-dir", str(data), "--counter", "cnn", "--steps", "5"]
        + ["--members", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert train.returncode == 0, train.stdout + train.stderr
    assert f"{len(photos) + 24} labelled pit photos (24 of them the calibration's" in train.stdout
    assert f"kept of your games: {album}" in train.stdout
    assert Calibration.load(saved).counter["kind"] == "cnn"  # type: ignore[index]


def test_one_calibration_serves_every_camera_and_several_pair_in_order(tmp_path: Path) -> None:
    from companion.commands.serve import with_calibrations

    sources = ["camera://0", "sim://", "video:///m.avi", "camera://2"]
    a, b, c = (tmp_path / f"{n}.json" for n in "abc")
    one = with_calibrations(ServiceConfig(), sources, [a])
    assert [one.calibration_for(u) for u in sources] == [a, a, a, a]
    three = with_calibrations(ServiceConfig(), sources, [a, b, c])
    assert [three.calibration_for(u) for u in sources if u != "sim://"] == [a, b, c]
    assert with_calibrations(ServiceConfig(), sources, []) == ServiceConfig()
    with pytest.raises(ValueError, match="2 --calibration files for 3 camera sources"):
        with_calibrations(ServiceConfig(), sources, [a, b])


def test_each_camera_is_checked_against_its_own_calibration(saved: Path, tmp_path: Path) -> None:
    good = _write(tmp_path / "table1.json")
    config = ServiceConfig(
        data_dir=tmp_path / "data",
        camera_calibrations=(("camera://0", good), ("camera://1", tmp_path / "table2.json")),
    )
    with pytest.raises(SourceURLError, match=r"for camera://1 not found: .*table2\.json"):
        Service(["camera://0", "camera://1"], config)
    other = ((0.0, 0.0), (900.0, 0.0), (900.0, 400.0), (0.0, 400.0))
    _write(tmp_path / "table2.json", other)
    Service(["camera://0", "camera://1"], config)
    assert open_source("camera://1", config.calibration_for("camera://1")).calibration.corners == (
        other
    )


def test_serve_refuses_calibrations_that_do_not_pair_with_the_cameras(tmp_path: Path) -> None:
    a = _write(tmp_path / "a.json")
    sources = ["--source", "camera://0", "--source", "camera://1", "--source", "camera://2"]
    run = subprocess.run(
        [*CLI, "serve", *sources, "--calibration", str(a), "--calibration", str(a)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1, run.stderr
    assert "2 --calibration files for 3 camera sources" in run.stderr
    assert "Traceback" not in run.stderr


def test_pit_photos_are_kept_per_camera_unless_the_venue_says_not(tmp_path: Path) -> None:
    from companion.service.config import ConfigError, parse_config

    cal = _write(tmp_path / "cal.json")
    config = ServiceConfig(data_dir=tmp_path / "data", camera_calibration=cal)
    service = Service(["sim://", "camera://0", "camera://1"], config)
    assert service.pit_photos_for("sim://") is None
    folders = [service.pit_photos_for(u) for u in ("camera://0", "camera://1")]
    assert folders == [(tmp_path / "data" / "pit-photos" / f"camera-{n}").resolve() for n in (0, 1)]
    off = parse_config({"camera": {"keep_pit_photos": False}}, tmp_path)
    assert off.keep_pit_photos is False
    assert (
        Service(["camera://0"], off.with_overrides(camera_calibration=cal)).pit_photos_for(
            "camera://0"
        )
        is None
    )
    with pytest.raises(ConfigError, match="keep_pit_photos has the wrong type"):
        parse_config({"camera": {"keep_pit_photos": "yes"}}, tmp_path)


def test_the_venue_config_names_each_cameras_calibration(tmp_path: Path) -> None:
    from companion.commands.serve import with_calibrations
    from companion.service.config import ConfigError, load_config

    venue = tmp_path / "venue.toml"
    venue.write_text(
        '[camera]\ncalibration = "all.json"\n'
        '[camera.per_source]\n"camera://1" = "tables/two.json"\n"camera://2" = "three.json"\n'
    )
    config = load_config(venue)
    assert config.calibration_for("camera://0") == tmp_path / "all.json"
    assert config.calibration_for("camera://1") == tmp_path / "tables" / "two.json"
    # the command line wins: several files pair with the cameras it lists ...
    sources = ["camera://1", "camera://0"]
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    paired = with_calibrations(config, sources, [a, b])
    assert [paired.calibration_for(u) for u in sources] == [a, b]
    assert paired.calibration_for("camera://2") == tmp_path / "three.json"  # not named: kept
    # ... and one file is every camera's
    one = with_calibrations(config, sources + ["camera://2"], [a])
    assert {one.calibration_for(u) for u in ("camera://0", "camera://1", "camera://2")} == {a}
    venue.write_text('[camera.per_source]\n"sim://" = "x.json"\n')
    with pytest.raises(ConfigError, match="not a camera:// or video:// URL"):
        load_config(venue)
    venue.write_text('[camera.per_source]\n"camera://0" = 3\n')
    with pytest.raises(ConfigError, match="must name a calibration file"):
        load_config(venue)
