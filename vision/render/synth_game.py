"""Rendered game sessions: a video of a played game plus what a user would calibrate with.

:func:`render_session` plays a game (given moves, or random legal ones)
with the rules core, renders it with :func:`vision.render.synth.render_game`, and
writes next to the video:

* ``empty.png`` and ``start.png`` – the calibration step's two still views
  (empty board, start position), same board, camera and light as the video;
* ``game.json`` – the truth: rules, moves (pit indices and names), the
  positions after each move, and the playing-area corners in the frame.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from core import Position
from core.notation import move_name
from vision.render.synth import Camera, random_style, render_game, render_scene


@dataclass(frozen=True)
class Session:
    """Paths and truth of a rendered session."""

    video: Path
    empty: Path
    start: Path
    truth: Path
    moves: tuple[int, ...]
    frames: int


def play_random(moves: int, seed: int, rules: str = "abapa") -> list[int]:
    """``moves`` random legal moves from the start (fewer if the game ends)."""
    rng = np.random.default_rng(seed)
    pos = Position.initial(rules)
    out = []
    for _ in range(moves):
        legal = pos.legal_moves()
        if pos.is_over or not legal:
            break
        pit = int(legal[int(rng.integers(len(legal)))])
        out.append(pit)
        pos = pos.play(pit)
    return out


def render_session(
    out_dir: Path | str,
    moves: Sequence[int] | None = None,
    n_moves: int = 8,
    seed: int = 0,
    fps: float = 10.0,
    still_frames: int = 12,
    size: tuple[int, int] = (1280, 720),
    rules: str = "abapa",
    markers: bool = True,
) -> Session:
    """Render a game into ``out_dir`` (created) and return where everything is."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    played = list(moves) if moves is not None else play_random(n_moves, seed, rules)
    pos = Position.initial(rules)
    positions = [pos.pits]
    for pit in played:
        pos = pos.play(pit)
        positions.append(pos.pits)
    style = random_style(np.random.default_rng(seed + 1000))
    video = out / "game.avi"
    frames = render_game(
        positions, played, video, style, seed, fps, still_frames, size=size, markers=markers
    )
    cam = Camera.centred(size)
    pits = len(positions[0])
    views = []
    for k, pits_now in enumerate(([0] * pits, list(positions[0]))):
        img, truth = render_scene(
            pits_now,
            style,
            np.random.default_rng(seed + 1 + k),
            cam,
            size,
            markers=markers,
            blur=0.6,
            noise=0.0,
        )
        # Through JPEG, like the video's frames: calibration views come from the same camera.
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        views.append(np.asarray(img if decoded is None else decoded, np.uint8))
    cv2.imwrite(str(out / "empty.png"), views[0])
    cv2.imwrite(str(out / "start.png"), views[1])
    truth_path = out / "game.json"
    truth_path.write_text(
        json.dumps(
            {
                "rules": rules,
                "moves": played,
                "names": [move_name(p) for p in played],
                "positions": [list(p) for p in positions],
                "corners": truth.corners.tolist(),
                "fps": fps,
                "frames": frames,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    return Session(video, out / "empty.png", out / "start.png", truth_path, tuple(played), frames)
