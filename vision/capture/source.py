"""The camera source: frames from OpenCV → observations, behind the Source interface.

URLs (as the rest of the companion's sources):

* ``camera://0`` – USB webcam number 0;
* ``camera://rtsp://host/stream``, ``camera://http://phone:8080/video`` –
  network streams (RTSP, or HTTP MJPEG from a phone app);
* ``video://match.avi`` – a recorded match, played once at its own pace
  (``?realtime=0`` plays it as fast as it decodes).

The interface every source of the companion follows (:class:`core.source.Source`):

* ``open()`` / ``close()`` – ``close`` is thread-safe and makes a blocked
  iteration end soon;
* iteration (blocking, in a worker thread) yields
  :class:`core.observation.Observation` objects and status dicts
  ``{"type": "camera", "state": "connected" | "disconnected" | "reconnecting" |
  "unsure", "detail": ...}``; "unsure" means connected, but counting so unsurely that
  the referee cannot follow the game (:mod:`vision.capture.count_health`; "connected" again
  when the counts are sure again);
* ``health()`` – a JSON-ready :class:`CameraHealth` for the /health endpoint;
* ``confirm(pits)`` (camera only) – the referee confirmed a position: its pit
  images become labelled examples and the counter learns this board; with a
  :class:`~vision.learning.pit_album.PitAlbum` they are also kept on disk for
  ``train-counter``.

A camera that disconnects is reported, then retried with a growing delay (up
to 5 s) until it comes back or the source is closed. Frames that arrive late
are fine: observations carry the time the frame was read, and a frame that
took longer than ``stale_after`` seconds to arrive resets the motion detector
(the board may have changed unseen). An unchanged reading is sent once and
then repeated every ``repeat_every`` seconds, not for every frame.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import cv2
import numpy as np

from core.observation import Observation
from core.source import SourceHealth, SourceURLError
from vision.capture.count_health import CountHealth
from vision.capture.pipeline import BoardReader, counter_for
from vision.counting.beliefs import PitCounter
from vision.geometry.calibration import Calibration, CalibrationError
from vision.geometry.locate import find_board
from vision.learning.calibrate import PositionLearner
from vision.learning.pit_album import PitAlbum

Status = dict[str, Any]
log = logging.getLogger(__name__)


class CameraHealth(SourceHealth):
    """A camera's ``health()`` (JSON-ready, for /health)."""

    url: str
    state: str
    detail: str
    frames: int
    observations: int
    reconnects: int
    calibrated: bool
    calibration_method: str | None
    counts_unsure: bool
    median_near_share: float | None
    pit_photos: dict[str, Any] | None
    seconds_since_frame: float | None


@dataclass(frozen=True)
class CameraTarget:
    """What to open, parsed from a URL."""

    kind: str
    """"device", "stream" or "file"."""
    target: int | str
    realtime: bool = True


def parse_url(url: str) -> CameraTarget:
    """Parse a ``camera://`` or ``video://`` URL.

    >>> parse_url("camera://0")
    CameraTarget(kind='device', target=0, realtime=True)
    >>> parse_url("camera://rtsp://10.0.0.2/live").target
    'rtsp://10.0.0.2/live'
    >>> parse_url("video:///tmp/m.avi?realtime=0")
    CameraTarget(kind='file', target='/tmp/m.avi', realtime=False)
    """
    if url.startswith("camera://"):
        rest = url[len("camera://") :]
        if rest.isdigit():
            return CameraTarget("device", int(rest))
        if rest.startswith(("rtsp://", "http://", "https://", "rtmp://")):
            return CameraTarget("stream", rest)
        raise SourceURLError(f"camera URL must be camera://N or camera://<stream URL>, got {url!r}")
    if url.startswith("video://"):
        parts = urlsplit(url)
        path = (parts.netloc + parts.path) if parts.netloc else parts.path
        if not path:
            raise SourceURLError(f"video URL needs a file: {url!r}")
        query = parse_qs(parts.query)
        realtime = query.get("realtime", ["1"])[0] not in ("0", "false", "no")
        return CameraTarget("file", path, realtime)
    raise SourceURLError(f"not a camera or video URL: {url!r}")


def open_capture(target: str | int) -> cv2.VideoCapture | None:
    """An opened OpenCV capture of a camera index, stream URL or file, or None.

    OpenCV's own warnings while trying (one per backend it tries, several lines for a
    camera that is not there) are kept quiet: the caller says what failed, in one line,
    and a source retrying a missing camera would otherwise repeat them at every try.
    """
    quiet = cv2.utils.logging.LOG_LEVEL_ERROR
    before = cv2.utils.logging.getLogLevel()
    cv2.utils.logging.setLogLevel(min(before, quiet))
    try:
        cap = cv2.VideoCapture(target) if isinstance(target, str) else cv2.VideoCapture(int(target))
    finally:
        cv2.utils.logging.setLogLevel(before)
    if not cap.isOpened():
        cap.release()
        return None
    return cap


class CameraSource:
    """Observations from a camera, a network stream or a video file."""

    def __init__(
        self,
        url: str,
        calibration: Calibration | None = None,
        counter: PitCounter | None = None,
        stale_after: float = 1.0,
        max_retry_delay: float = 5.0,
        repeat_every: float = 1.0,
        album: PitAlbum | None = None,
        calibration_path: Path | None = None,
    ) -> None:
        self.url = url
        self.album = album
        self.calibration_path = calibration_path
        """Where :meth:`set_corners` saves the calibration (None: it is only used live)."""
        self._last_frame: np.ndarray | None = None
        self._album_writer: ThreadPoolExecutor | None = None
        self.target = parse_url(url)
        self.calibration = calibration
        self._counter = counter
        self.stale_after = stale_after
        self.max_retry_delay = max_retry_delay
        self.repeat_every = repeat_every
        self._last_sent: tuple[bool, tuple[object, ...]] | None = None
        self._last_sent_t = float("-inf")
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._capture: cv2.VideoCapture | None = None
        self._reader: BoardReader | None = None
        self._learner: PositionLearner | None = None
        self._learning: threading.Thread | None = None
        self._state = "closed"
        self._frames = 0
        self._observations = 0
        self._last_frame_at: float | None = None
        self._detail = ""
        self._reconnects = 0
        self.count_health = CountHealth()
        """Whether the counts of the settled boards are sure enough to follow a game."""

    # ----------------------------------------------------------------- interface

    def open(self) -> None:
        """Prepare to read; the device itself is opened by the iteration (and retried)."""
        if self.target.kind == "file" and not Path(str(self.target.target)).exists():
            raise FileNotFoundError(f"no such video: {self.target.target}")
        self._closed.clear()
        with self._lock:
            self._state = "opening"

    def close(self) -> None:
        """Stop: the iteration ends after the frame it is reading (thread-safe).

        Photos still queued for the album are written before the writer stops."""
        self._closed.set()
        with self._lock:
            self._state = "closed"
            writer, self._album_writer = self._album_writer, None
        if writer is not None:
            writer.shutdown(wait=True)

    def confirm(self, pits: Sequence[int], move: int | None = None) -> bool:
        """Learning from the game: the referee confirmed the board now holds ``pits``.

        Call it on every ``move`` event (thread-safe, returns at once). The
        crops of the last stable frame, labelled by the confirmed position,
        refit the counter on a background thread (a network's refit takes
        seconds, and the caller is the service's event loop); the new counter
        replaces the old one when it is ready. Returns False when there is no
        stable view to label yet, or while the previous refit is still running
        (that position is skipped: the next ones will teach the same board). A
        position the counter flatly contradicts is not learnt from (see
        PositionLearner.add).

        With an album, every confirmed position's crops are also saved (on a
        writer thread, ``move`` naming them), even while a refit runs.
        """
        with self._lock:
            reader, learner = self._reader, self._learner
            if reader is None or learner is None or reader.last_stable_crops is None:
                return False
            crops = list(reader.last_stable_crops)
            labels = list(pits)
            beliefs = reader.last_stable_beliefs  # what was read of these crops: not again
            if self.album is not None and len(crops) == len(labels):
                if self._album_writer is None:
                    self._album_writer = ThreadPoolExecutor(1, thread_name_prefix="pit-album")
                self._album_writer.submit(self._keep, crops, labels, beliefs, move)
            if self._learning is not None and self._learning.is_alive():
                return False

            def learn() -> None:
                refit = learner.add(crops, labels, beliefs)
                if refit is not None:
                    with self._lock:  # the reader now, which set_corners may have replaced
                        if self._reader is not None:
                            self._reader.counter = refit

            self._learning = threading.Thread(target=learn, name="camera-learning", daemon=True)
            self._learning.start()
        return True

    def snapshot(self) -> np.ndarray | None:
        """The last frame read (for the person placing the corners), or None yet."""
        with self._lock:
            return self._last_frame

    def set_corners(self, corners: Sequence[Sequence[float]]) -> tuple[Calibration, Path | None]:
        """The manual fallback: the board's four corners (NW NE SE SW, in pixels of
        the last frame) placed by a person. The live reading follows them at once,
        keeping its counter and what it learnt; then, with a ``calibration_path``,
        the file is rewritten (the old one kept as ``.previous``; OSError if it
        cannot be). Returns the calibration and where the previous file went.
        Raises CalibrationError for corners that cannot be a board, ValueError
        before the first frame.
        """
        frame = self.snapshot()
        if frame is None:
            raise ValueError("no frame from the camera yet: the corners need one to refer to")
        h, w = frame.shape[:2]
        points = tuple((float(x), float(y)) for x, y in corners)
        if not all(0 <= x <= w and 0 <= y <= h for x, y in points):
            raise CalibrationError(f"corners must lie inside the {w} × {h} frame")
        # Calibration itself refuses anything but four corners enclosing an area.
        base = self.calibration or Calibration(points, (w, h))
        calibration = replace(base, corners=points, image_size=(w, h), method="manual")
        with self._lock:
            self.calibration = calibration
            if self._reader is not None:  # same counter (and its learning), new geometry
                self._reader = BoardReader(calibration, self._reader.counter)
        backup = None
        if self.calibration_path is not None:  # after: a full disk still moves the reading
            backup = calibration.save_replacing(self.calibration_path)
        return calibration, backup

    def _keep(
        self,
        crops: list[Any],
        labels: list[int],
        beliefs: list[Any] | None,
        move: int | None,
    ) -> None:
        """Write one position to the album (on the writer thread): a full disk is
        logged, never raised into the game."""
        assert self.album is not None
        try:
            self.album.add(crops, labels, beliefs, move)
        except (OSError, ValueError) as exc:
            log.warning("pit photos not saved in %s: %s", self.album.folder, exc)

    @property
    def learnt(self) -> int:
        """Pit photos of this board the counter has learnt from during play."""
        with self._lock:
            return 0 if self._learner is None else self._learner.learnt

    def wait_for_learning(self, timeout: float | None = None) -> bool:
        """Wait for the running refit (if any); True when none is running any more."""
        thread = self._learning
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def health(self) -> CameraHealth:
        """JSON-ready state for /health."""
        with self._lock:
            return {
                "source": "camera",
                "url": self.url,
                "state": self._state,
                "detail": self._detail,
                "frames": self._frames,
                "observations": self._observations,
                "reconnects": self._reconnects,
                "calibrated": self.calibration is not None,
                "calibration_method": None if self.calibration is None else self.calibration.method,
                "counts_unsure": self.count_health.unsure,
                "median_near_share": self.count_health.last_median,
                "pit_photos": None
                if self.album is None
                else {"folder": str(self.album.folder), "saved": self.album.saved},
                "seconds_since_frame": None
                if self._last_frame_at is None
                else round(time.monotonic() - self._last_frame_at, 3),
            }

    def __iter__(self) -> Iterator[Observation | Status]:
        delay = 0.25
        start = time.monotonic()
        while not self._closed.is_set():
            cap = self._open_capture()
            if cap is None:
                if self.target.kind == "file":
                    yield self._status("disconnected", f"cannot open {self.target.target}")
                    return
                yield self._status(
                    "reconnecting", f"cannot open {self.target.target}; retry in {delay:.1f} s"
                )
                if self._closed.wait(delay):
                    break
                delay = min(delay * 2, self.max_retry_delay)
                continue
            delay = 0.25
            yield self._status("connected", str(self.target.target))
            if self.count_health.unsure:  # still true after a reconnection: say it again
                yield self._status("unsure", self.count_health.words())
            fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
            frame_no = 0
            last = time.monotonic()
            try:
                while not self._closed.is_set():
                    ok, frame = cap.read()
                    now = time.monotonic()
                    if not ok or frame is None:
                        break
                    frame_no += 1
                    if self.target.kind == "file":
                        # Video time comes from the frame number, so a replay is reproducible.
                        t = frame_no / fps if fps > 0 else now - start
                        if self.target.realtime and fps > 0:
                            ahead = t - (now - start)
                            if ahead > 0 and self._closed.wait(ahead):
                                break
                    else:
                        t = now - start
                    late = now - last > self.stale_after
                    last = now
                    obs = self._handle(np.asarray(frame, np.uint8), t, late)
                    if obs is not None:
                        yield obs
                        turned = self.count_health.judge(obs)
                        if turned is not None:
                            state = "unsure" if turned else "connected"
                            yield self._status(state, self.count_health.words())
            finally:
                cap.release()
                with self._lock:
                    self._capture = None
            if self._closed.is_set():
                break
            if self.target.kind == "file":
                # the end of the file, not a fault: /health stays ok
                yield {**self._status("disconnected", "end of video"), "ended": True}
                return
            self._reconnects += 1
            yield self._status("disconnected", "the camera stopped sending frames")

    # ----------------------------------------------------------------- internals

    def _status(self, state: str, detail: str) -> Status:
        with self._lock:
            self._state = state
            self._detail = detail
        return {"type": "camera", "state": state, "detail": detail}

    def _open_capture(self) -> cv2.VideoCapture | None:
        cap = open_capture(self.target.target)
        if cap is None:
            return None
        with self._lock:
            self._capture = cap
        return cap

    def _handle(self, frame: np.ndarray, t: float, late: bool) -> Observation | None:
        with self._lock:
            self._frames += 1
            self._last_frame_at = time.monotonic()
            self._last_frame = frame  # each read is a new array: no copy needed
        if self._reader is None:
            if self.calibration is None:
                self.calibration = find_board(frame)
                if self.calibration is None:
                    return None  # keep looking in the next frames
            if self._counter is None and self.calibration.counter is None:
                log.warning(
                    "camera %s: the calibration holds no counter taught on this board; the"
                    " built-in one misreads unseen boards often (run 'oware-companion calibrate')",
                    self.url,
                )
            counter = self._counter or counter_for(self.calibration)
            self._reader = BoardReader(self.calibration, counter)
            self._learner = PositionLearner(counter)
        if late:
            self._reader.motion.reset()
        with self._lock:  # confirm() may swap the counter from another thread
            obs = self._reader.process(frame, t)
        # A still board gives the same reading 30 times a second: send it once,
        # then again every ``repeat_every`` seconds (the session log stays small).
        key = (obs.stable, obs.pits)
        if key == self._last_sent and t - self._last_sent_t < self.repeat_every:
            return None
        self._last_sent, self._last_sent_t = key, t
        with self._lock:
            self._observations += 1
        return obs
