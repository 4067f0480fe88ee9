"""The camera source: URLs, a video file end to end, reconnecting, closing from a thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from core.observation import Observation
from core.source import SourceURLError
from tests.vision.conftest import Board
from vision.capture.count_health import BOARDS, NEAR_SHARE
from vision.capture.source import CameraSource, CameraTarget, parse_url
from vision.counting.deep import DeepCounter
from vision.counting.ensemble import FEW_COUNTS_TEMPERATURE
from vision.learning.calibrate import locate, teach
from vision.render.synth import render_game


def test_urls() -> None:
    assert parse_url("camera://2") == CameraTarget("device", 2)
    assert parse_url("camera://http://phone:8080/video").target == "http://phone:8080/video"
    assert parse_url("video://match.avi") == CameraTarget("file", "match.avi")
    assert parse_url("video:///abs/m.avi?realtime=0") == CameraTarget("file", "/abs/m.avi", False)
    for bad in ("camera://", "camera://ftp://x", "serial://auto", "video://"):
        with pytest.raises(SourceURLError):
            parse_url(bad)


def test_video_file_end_to_end(
    tmp_path: Path, board: Board, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "m.avi"
    positions = [[4] * 12, [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]]
    render_game(positions, [2], path, style=board.style, seed=1, still_frames=8, markers=True)
    source = CameraSource(f"video://{path}?realtime=0")
    source.open()
    items = list(source)
    assert items[0] == {"type": "camera", "state": "connected", "detail": str(path)}
    # the video's end is said to be an end, not a fault (the service stays "ok")
    assert items[-1] == {  # type: ignore[comparison-overlap]
        "type": "camera",
        "state": "disconnected",
        "detail": "end of video",
        "ended": True,
    }
    observations = [i for i in items if isinstance(i, Observation)]
    assert observations, "the board (ArUco markers) should have been found"
    assert any(o.stable for o in observations)
    assert any(any(r is None for r in o.pits) for o in observations)  # the sowing hand
    # Found by its markers, with no calibration: the counter never saw this board.
    assert "holds no counter taught on this board" in caplog.text
    health = source.health()
    assert health["frames"] >= len(observations) and health["calibration_method"] == "aruco"
    # Observation times follow the video's clock (frame number / fps), so replays agree.
    assert all(round(o.t * 10, 6).is_integer() for o in observations)
    assert [o.t for o in observations] == sorted(o.t for o in observations)
    # A still board is not sent for every frame: once, then a repeat each second.
    assert len(observations) < health["frames"]


def test_missing_camera_is_retried_until_closed() -> None:
    source = CameraSource("camera://rtsp://127.0.0.1:9/none", max_retry_delay=0.2)
    source.open()
    seen: list[object] = []

    def run() -> None:
        for item in source:
            seen.append(item)

    worker = threading.Thread(target=run)
    worker.start()
    time.sleep(1.5)
    source.close()
    worker.join(timeout=5)
    assert not worker.is_alive(), "close() must end a blocked iteration"
    states = [s["state"] for s in seen if isinstance(s, dict)]
    assert states and set(states) == {"reconnecting"}
    assert source.health()["state"] == "closed"


def test_missing_video_file_is_an_error() -> None:
    with pytest.raises(FileNotFoundError):
        CameraSource("video:///no/such/file.avi").open()


def test_a_late_frame_unsettles_the_board(board: Board) -> None:
    """After a gap in the frames the board may have changed unseen: not stable at once."""
    source = CameraSource("camera://0", calibration=board.calibration, repeat_every=0.0)
    frame = board.frame([2] * 12, seed=5, noise=0.0)
    states = [source._handle(frame, k * 0.03, late=False) for k in range(8)]
    assert states[-1] is not None and states[-1].stable
    late = source._handle(frame, 5.0, late=True)
    assert late is not None and not late.stable


def test_confirmed_positions_teach_the_counter(board: Board) -> None:
    source = CameraSource("camera://0", calibration=board.calibration, repeat_every=0.0)
    assert not source.confirm([4] * 12)  # nothing seen yet
    pits = [0, 1, 2, 3, 4, 5, 6, 7, 5, 4, 3, 2]
    frame = board.frame(pits, seed=61, noise=0.0)
    for k in range(8):
        source._handle(frame, k * 0.03, late=False)
    before = source._reader.counter if source._reader else None
    assert source.confirm(pits)
    assert source.wait_for_learning(60)  # the refit runs on its own thread
    after = source._reader.counter if source._reader else None
    assert after is not before  # refitted with the twelve new labels
    assert after is not None and after.source == "area+game"


def test_corners_placed_by_hand_move_the_reading_at_once(board: Board, tmp_path: Path) -> None:
    """set_corners (the dashboard's fallback): the next frames are read through the new
    corners, with the same counter; the file is rewritten and the old one kept."""
    from vision.geometry.calibration import Calibration, CalibrationError

    path = tmp_path / "cal.json"
    board.calibration.save(path)
    source = CameraSource(
        "camera://0", calibration=board.calibration, repeat_every=0.0, calibration_path=path
    )
    with pytest.raises(ValueError, match="no frame"):
        source.set_corners(board.calibration.corners)
    pits = [0, 1, 2, 3, 4, 5, 6, 7, 5, 4, 3, 2]
    frame = board.frame(pits, seed=61, noise=0.0)

    def reading(first_t: float) -> list[int]:
        obs = [source._handle(frame, first_t + k * 0.03, late=False) for k in range(8)]
        last = obs[-1]
        assert last is not None and last.stable
        return [max(range(len(r)), key=r.__getitem__) for r in last.pits if r is not None]

    straight = reading(0.0)
    counter = source._reader.counter if source._reader else None
    with pytest.raises(CalibrationError, match="inside the 1280 × 720 frame"):
        source.set_corners([(0, 0), (2000, 0), (1280, 720), (0, 720)])
    nw, ne, se, sw = board.calibration.corners
    turned, previous = source.set_corners([se, sw, nw, ne])  # the board seen from North
    assert turned.method == "manual" and previous == tmp_path / "cal.json.previous"
    saved = Calibration.load(path)
    assert saved.method == "manual"
    assert saved.corners[0] == pytest.approx(se, abs=0.01)  # the file keeps 1/100 pixel
    assert source._reader is not None and source._reader.counter is counter  # kept
    assert source._reader.calibration is turned
    # Turned half a circle, pit p is read where pit p + 6 lies. Not exactly its count:
    # the area counter compares each pit's crop with that pit's own empty view.
    turned_reading = reading(1.0)
    shifted = [straight[(p + 6) % 12] for p in range(12)]
    assert turned_reading != straight
    assert np.corrcoef(turned_reading, shifted)[0, 1] > 0.7
    assert np.corrcoef(turned_reading, straight)[0, 1] < 0


@pytest.mark.parametrize("unsure", [False, True], ids=["sure-counter", "unsure-counter"])
def test_a_camera_counting_too_unsurely_to_follow_the_game_says_so(
    game_dir: Path, unsure: bool
) -> None:
    """The user's calibration step teaches a counter that follows the rendered game; networks
    that learnt two counts only (their temperature floored, as calibrate's are) spread every
    pit over a dozen counts, and the camera says it cannot follow the game."""
    empty = np.asarray(cv2.imread(str(game_dir / "empty.png")), np.uint8)
    start = np.asarray(cv2.imread(str(game_dir / "start.png")), np.uint8)
    calibration = teach(locate(empty), [(empty, [0] * 12), (start, [4] * 12)])
    counter = None
    if unsure:
        counter = DeepCounter.builtin()
        for network in counter.networks:
            network.temperature = FEW_COUNTS_TEMPERATURE
    source = CameraSource(
        f"video://{game_dir / 'game.avi'}?realtime=0", calibration=calibration, counter=counter
    )
    source.open()
    items = list(source)
    said = [i for i in items if isinstance(i, dict) and i.get("state") == "unsure"]
    health = source.health()
    assert health["counts_unsure"] is unsure
    assert health["median_near_share"] is not None
    if not unsure:
        assert not said and health["median_near_share"] >= NEAR_SHARE
        return
    assert len(said) == 1 and said[0]["type"] == "camera"
    assert "cannot count the seeds surely" in said[0]["detail"]
    assert "train-counter" in said[0]["detail"]
    # Said after BOARDS settled boards, each a different reading, and not before.
    before = items[: items.index(said[0])]
    settled = {o.pits for o in before if isinstance(o, Observation) and o.stable}
    assert len(settled) >= BOARDS
