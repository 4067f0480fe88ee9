"""The table of source schemes: every scheme has its module, opens a real source through
the table, and the one URL error names every scheme; mypy refuses an opener whose source
breaks the contract (:class:`core.source.Source`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import companion.sources as sources
from companion.sources import SCHEMES, SourceURLError, check_source, open_source
from core.observation import Observation
from core.position import Position
from core.referee.session import session_header
from core.source import Source, SourceItem
from firmware_bridge.virtual_board import DeviceOptions, PlayerOptions, VirtualBoard

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(autouse=True)
def private_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reads the user's saved calibrations."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def first_items(source: Source, until: type | str, limit_s: float = 20.0) -> list[SourceItem]:
    """Iterate an opened source (in a thread, as the service does) until an item of type
    ``until`` (or a status dict in state ``until``) comes, then close it."""
    got: list[SourceItem] = []

    def pump() -> None:
        for item in source:
            got.append(item)
            if isinstance(until, str) and isinstance(item, dict) and item.get("state") == until:
                return
            if isinstance(until, type) and isinstance(item, until):
                return

    source.open()
    worker = threading.Thread(target=pump, daemon=True)
    worker.start()
    worker.join(limit_s)
    source.close()
    worker.join(5)
    assert not worker.is_alive(), "close() must end the iteration"
    return got


def test_the_table_lists_every_scheme_each_in_its_own_module() -> None:
    assert list(SCHEMES) == ["sim", "serial", "camera", "video", "replay"]
    for name, row in SCHEMES.items():
        assert (ROOT / "companion" / "sources" / f"{name}.py").is_file()
        assert row.open.__module__ == f"companion.sources.{name}", name
        assert row.check.__module__ == f"companion.sources.{name}", name
        assert row.example.startswith(f"{name}://")


def test_an_unknown_scheme_is_the_one_url_error_listing_every_scheme() -> None:
    for url in ("ftp://x", "/dev/ttyUSB0", "simulator://"):
        with pytest.raises(SourceURLError) as caught:
            open_source(url)
        message = str(caught.value)
        assert message.startswith(f"unknown source {url!r}; use one of ")
        assert all(f"{s}://" in message for s in SCHEMES)
        assert "\n" not in message
        with pytest.raises(SourceURLError, match="unknown source"):
            check_source(url)
    assert issubclass(SourceURLError, ValueError)  # callers that catch ValueError still do


def test_bad_sim_and_camera_urls_are_the_same_error() -> None:
    """One failure, one type: sim:// options and camera URLs (vision's old SourceError)."""
    for url in ("sim://?sped=3", "sim://?rate=7", "camera://front", "video://"):
        with pytest.raises(SourceURLError):
            check_source(url)


def test_sim_opens_through_the_table_and_reads_the_virtual_board() -> None:
    source = open_source("sim://?speed=0&seed=1&moves=C")
    assert isinstance(source, Source)
    items = first_items(source, Observation)
    assert isinstance(items[-1], Observation), items[-3:]
    assert source.health()["source"] == "sim"


def test_serial_opens_through_the_table_and_reads_a_board_on_a_pty(tmp_path: Path) -> None:
    from firmware_bridge.weights import Calibration

    calibration = tmp_path / "cal.json"
    Calibration().save(calibration)
    idle = DeviceOptions(seed=1, speed=1.0, player=PlayerOptions(max_moves=0))
    with VirtualBoard(idle) as board:
        source = open_source(f"serial://{board.port}?calibration={calibration}")
        assert isinstance(source, Source)
        items = first_items(source, Observation)
    assert isinstance(items[-1], Observation), items[-3:]
    health = source.health()
    assert health["source"] == "sensor"
    assert health["firmware"] == "1.0.0"


def test_replay_opens_through_the_table_and_plays_the_log(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    lines = [
        session_header(Position.initial()),
        Observation(0.0, "sim", True, (4,) * 12).to_json(),
        {"command": "undo", "t": 0.5},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    source = open_source(f"replay://{path}?speed=0")
    assert isinstance(source, Source)
    items = first_items(source, "disconnected")
    assert [type(i).__name__ for i in items] == ["dict", "Observation", "dict", "dict"]
    assert source.health() == {
        "source": "replay",
        "file": "rec.jsonl",
        "lines": 2,
        "played": 2,
        "finished": True,
    }


def test_camera_and_video_open_through_the_table(tmp_path: Path) -> None:
    cv2 = pytest.importorskip("cv2")  # the vision extra
    import numpy as np

    from vision.geometry.calibration import Calibration

    calibration = tmp_path / "camera.json"
    Calibration(((4.0, 4.0), (60.0, 4.0), (60.0, 44.0), (4.0, 44.0)), (64, 48)).save(calibration)
    video = tmp_path / "m.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10.0, (64, 48))
    for _ in range(3):
        writer.write(np.full((48, 64, 3), 128, np.uint8))
    writer.release()

    camera = open_source("camera://0", calibration)
    assert isinstance(camera, Source)
    assert camera.health()["source"] == "camera"
    check_source("camera://0", calibration)

    check_source(f"video://{video}", calibration)
    source = open_source(f"video://{video}?realtime=0", calibration)
    assert isinstance(source, Source)
    items = first_items(source, "connected")
    assert items == [{"type": "camera", "state": "connected", "detail": str(video)}]
    with pytest.raises(SourceURLError, match="video file not found"):
        check_source(f"video://{tmp_path}/missing.avi", calibration)


def test_each_kind_gets_its_referee_settings_and_rules() -> None:
    from core.referee import presets
    from core.rules import get_rules

    assert sources.referee_settings_for("camera://0") == dict(presets.CAMERA)
    assert sources.referee_settings_for("serial://auto") == dict(presets.SENSOR)
    assert sources.referee_settings_for("replay://x.jsonl") == {}
    abapa = get_rules("abapa")
    assert sources.rules_for("sim://?players=4", abapa).players == 4
    assert sources.rules_for("serial://auto", abapa) is abapa


BAD_ROWS = """
from collections.abc import Iterator
from typing import Any

from companion.sources.options import OpenOptions, Scheme
from companion.sources.sim import check_sim, open_sim
from core.source import SourceItem


class HealthIsAnyDict:
    def open(self) -> None: ...
    def close(self) -> None: ...
    def __iter__(self) -> Iterator[SourceItem]:
        yield {}
    def health(self) -> dict[str, Any]:
        return {}


class NoClose:
    def open(self) -> None: ...
    def __iter__(self) -> Iterator[SourceItem]:
        yield {}
    def health(self) -> Any: ...


def open_any_dict(url: str, options: OpenOptions) -> HealthIsAnyDict:
    return HealthIsAnyDict()


def open_no_close(url: str, options: OpenOptions) -> NoClose:
    return NoClose()


GOOD = Scheme(open_sim, check_sim, "sensor", "sim://")
BAD_HEALTH = Scheme(open_any_dict, check_sim, "sensor", "bad://")
BAD_CLOSE = Scheme(open_no_close, check_sim, "sensor", "bad://")
"""


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_mypy_refuses_an_opener_whose_source_breaks_the_contract(tmp_path: Path) -> None:
    """The table's rows are typed: an opener must return a :class:`core.source.Source`
    (here checked on two broken ones; the real table passes the project's mypy run)."""
    module = tmp_path / "rows.py"
    module.write_text(BAD_ROWS)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent"]
        + ["--cache-dir", str(tmp_path / "cache"), str(module)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "MYPYPATH": str(ROOT)},
        timeout=280,
    )
    errors = [ln for ln in run.stdout.splitlines() if ": error:" in ln]
    lines = BAD_ROWS.splitlines()
    flagged = {lines[int(ln.split(":")[1]) - 1].split(" =")[0] for ln in errors}
    assert flagged == {"BAD_HEALTH", "BAD_CLOSE"}, run.stdout
    assert all("OpenOptions], Source]" in ln for ln in errors), run.stdout
