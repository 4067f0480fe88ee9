"""The camera source: URLs, a video file end to end, reconnecting, closing from a thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from core.observation import Observation
from tests.vision.conftest import Board
from vision.source import CameraSource, CameraTarget, SourceError, parse_url
from vision.synth import render_game


def test_urls() -> None:
    assert parse_url("camera://2") == CameraTarget("device", 2)
    assert parse_url("camera://http://phone:8080/video").target == "http://phone:8080/video"
    assert parse_url("video://match.avi") == CameraTarget("file", "match.avi")
    assert parse_url("video:///abs/m.avi?realtime=0") == CameraTarget("file", "/abs/m.avi", False)
    for bad in ("camera://", "camera://ftp://x", "serial://auto", "video://"):
        with pytest.raises(SourceError):
            parse_url(bad)


def test_video_file_end_to_end(tmp_path: Path, board: Board) -> None:
    path = tmp_path / "m.avi"
    positions = [[4] * 12, [4, 4, 0, 5, 5, 5, 5, 4, 4, 4, 4, 4]]
    render_game(positions, [2], path, style=board.style, seed=1, still_frames=8, markers=True)
    source = CameraSource(f"video://{path}?realtime=0")
    source.open()
    items = list(source)
    assert items[0] == {"type": "camera", "state": "connected", "detail": str(path)}
    assert items[-1]["state"] == "disconnected"  # type: ignore[index]
    observations = [i for i in items if isinstance(i, Observation)]
    assert observations, "the board (ArUco markers) should have been found"
    assert any(o.stable for o in observations)
    assert any(any(r is None for r in o.pits) for o in observations)  # the sowing hand
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
