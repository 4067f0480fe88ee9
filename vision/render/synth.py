"""Synthetic renderer: pictures of Oware boards with exact labels.

Real photographs are few and carry no licence, so the repository makes its own
training and test data. Everything here is random but seeded, so a test that
renders "board 7" gets the same picture every time.

What varies (see :class:`Style`): wood colour and grain, pit size and depth,
seed kind (round or bean-like), seed colour and size, light direction and
strength, a cast shadow, blur, sensor noise, the camera's perspective, and
hands over the board. Piles: seeds are packed side by side while they fit and
then pile on top of each other, hiding the ones below, as on a real board.

Three levels of output:

* :func:`render_pit` – one pit cell seen from above (training crops);
* :func:`render_board` – the rectified, top-down playing area;
* :func:`render_scene` – a full camera frame (default 1280 × 720) with the
  board in perspective, optional ArUco markers at the corners and an optional
  hand; returns the ground truth (board corners, covered pits).

:func:`render_game` writes a whole game as a video from a list of positions
(the pits after each move), with a hand sowing between positions.

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> crop = render_pit(3, random_style(rng), rng, size=64)
>>> crop.shape, crop.dtype
((64, 64, 3), dtype('uint8'))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.geometry.layout import BoardLayout
from vision.image_types import FloatImage, Image


@dataclass(frozen=True)
class Style:
    """Everything random about one board and its lighting (colours are BGR 0–255)."""

    wood: tuple[float, float, float]
    grain: float
    """Strength of the wood grain (0 = flat colour)."""
    grain_freq: float
    pit_radius: float
    """Pit radius as a fraction of the cell side."""
    pit_shade: float
    """How much darker the bottom of a pit is (0 – 1)."""
    seed_colour: tuple[float, float, float]
    seed_jitter: float
    """Seed-to-seed colour variation (fraction)."""
    seed_size: float
    """Seed length as a fraction of the cell side."""
    seed_aspect: float
    """Seed width / length (1 = round)."""
    light_angle: float
    """Direction the light comes from, radians."""
    light: float
    """Overall brightness factor."""
    seed: int
    """Random seed for the textures of this style."""


def random_style(rng: np.random.Generator) -> Style:
    """A random, plausible board (wood, pits, seeds, light)."""
    # Wood from pale beech to dark walnut and reddish mahogany: orange-red hues.
    wood = _hsv_to_bgr(rng.uniform(2, 22), rng.uniform(0.35, 0.8), rng.uniform(0.35, 0.9))
    # Seeds of any hue (grey-green nickernuts, dark beans, pale pebbles ...).
    seed_colour = _hsv_to_bgr(rng.uniform(0, 180), rng.uniform(0.05, 0.6), rng.uniform(0.15, 0.85))
    return Style(
        wood=wood,
        grain=float(rng.uniform(0.0, 0.25)),
        grain_freq=float(rng.uniform(0.05, 0.3)),
        pit_radius=float(rng.uniform(0.38, 0.46)),
        pit_shade=float(rng.uniform(0.25, 0.6)),
        seed_colour=seed_colour,
        seed_jitter=float(rng.uniform(0.03, 0.15)),
        seed_size=float(rng.uniform(0.19, 0.27)),
        seed_aspect=float(rng.uniform(0.7, 1.0)),
        light_angle=float(rng.uniform(0, 2 * math.pi)),
        light=float(rng.uniform(0.75, 1.2)),
        seed=int(rng.integers(2**31)),
    )


def _hsv_to_bgr(hue: float, sat: float, val: float) -> tuple[float, float, float]:
    """OpenCV hue (0–180), saturation and value (0–1) to a BGR colour (0–255)."""
    hsv = np.array([[[hue, sat * 255, val * 255]]], np.float32)
    bgr = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)[0, 0]
    return float(bgr[0]), float(bgr[1]), float(bgr[2])


# --------------------------------------------------------------------------- wood


def _wood(width: int, height: int, style: Style) -> FloatImage:
    """A float BGR wood texture (0–1 range) with grain along x."""
    rng = np.random.default_rng(style.seed)
    y = np.mgrid[0:height, 0:width][0].astype(np.float32)
    # Grain: sinusoids along x whose phase wanders slowly with position.
    low = cv2.resize(
        rng.normal(0, 1, (max(2, height // 24), max(2, width // 24))).astype(np.float32),
        (width, height),
        interpolation=cv2.INTER_CUBIC,
    )
    phase = y * style.grain_freq + 3.0 * low
    grain = np.sin(phase) * 0.5 + 0.5 * np.sin(phase * 2.7 + 1.0)
    base = np.array(style.wood, dtype=np.float32) / 255.0
    shade = 1.0 + style.grain * grain[..., None] * 0.6 + 0.04 * low[..., None]
    return np.asarray(base[None, None, :] * shade, np.float32)


# --------------------------------------------------------------------------- seeds


def _seed_positions(
    count: int, radius: float, seed_r: float, rng: np.random.Generator
) -> list[tuple[float, float, int]]:
    """(x, y, layer) offsets of ``count`` seeds inside a pit of ``radius``.

    Seeds are dropped one by one at random spots; a spot is accepted when it
    does not overlap the seeds already on the same layer. When a layer is
    full the seed goes on the next layer, nearer the middle: a pile.
    """
    out: list[tuple[float, float, int]] = []
    layer = 0
    for _ in range(count):
        placed = False
        while not placed:
            reach = max(radius - seed_r * (1.05 + 0.6 * layer), seed_r * 0.3)
            for _try in range(60):
                ang = rng.uniform(0, 2 * math.pi)
                dist = reach * math.sqrt(rng.uniform(0, 1))
                x, y = dist * math.cos(ang), dist * math.sin(ang)
                if all(
                    (x - ox) ** 2 + (y - oy) ** 2 > (1.75 * seed_r) ** 2
                    for ox, oy, lay in out
                    if lay == layer
                ):
                    out.append((x, y, layer))
                    placed = True
                    break
            else:
                layer += 1
                if layer > 6:  # hopeless: stack anywhere
                    out.append(
                        (rng.uniform(-reach, reach) * 0.5, rng.uniform(-reach, reach) * 0.5, layer)
                    )
                    placed = True
    return out


def _draw_seed(
    img: FloatImage,
    cx: float,
    cy: float,
    length: float,
    aspect: float,
    angle: float,
    colour: npt.NDArray[np.float32],
    light_angle: float,
) -> None:
    """Draw one shaded seed (an ellipse with a shadow and a highlight), in place."""
    s = 8  # sub-pixel precision for cv2 drawing
    axes = (max(1, int(length / 2 * s)), max(1, int(length * aspect / 2 * s)))
    deg = math.degrees(angle)
    lx, ly = math.cos(light_angle), math.sin(light_angle)
    # Soft shadow away from the light.
    sh = (int((cx - lx * length * 0.15) * s), int((cy - ly * length * 0.15) * s))
    shadow = np.zeros(img.shape[:2], np.float32)
    cv2.ellipse(shadow, sh, axes, deg, 0, 360, 1.0, -1, cv2.LINE_AA, 3)
    shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), max(0.8, length * 0.08)), np.float32)
    img *= (1.0 - 0.45 * shadow)[..., None]
    # Body, darker rim, and a highlight toward the light.
    centre = (int(cx * s), int(cy * s))
    body = np.zeros(img.shape[:2], np.float32)
    cv2.ellipse(body, centre, axes, deg, 0, 360, 1.0, -1, cv2.LINE_AA, 3)
    inner = np.zeros(img.shape[:2], np.float32)
    hi = (int((cx + lx * length * 0.12) * s), int((cy + ly * length * 0.12) * s))
    cv2.ellipse(
        inner, hi, (axes[0] * 2 // 3, axes[1] * 2 // 3), deg, 0, 360, 1.0, -1, cv2.LINE_AA, 3
    )
    inner = np.asarray(cv2.GaussianBlur(inner, (0, 0), max(0.8, length * 0.12)), np.float32)
    tone = colour[None, None, :] * (0.7 + 0.45 * inner[..., None])
    img[:] = img * (1 - body[..., None]) + tone * body[..., None]


def _paint_pit(
    img: FloatImage,
    cx: float,
    cy: float,
    cell: float,
    count: int,
    style: Style,
    rng: np.random.Generator,
) -> None:
    """Carve one pit centred at (cx, cy) into ``img`` and drop ``count`` seeds in it."""
    h, w = img.shape[:2]
    radius = style.pit_radius * cell
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    dx, dy = x - cx, y - cy
    r = np.sqrt(dx * dx + dy * dy) / radius
    inside = np.clip((1.0 - r) * radius / 1.5, 0, 1)  # anti-aliased disk
    # A concave bowl: the side facing the light is in shadow, the far side lit.
    lx, ly = math.cos(style.light_angle), math.sin(style.light_angle)
    slope = (dx * lx + dy * ly) / radius
    bowl = 1.0 - style.pit_shade * (1 - r**2) * 0.6 - 0.25 * style.pit_shade * slope
    bowl = np.where(r < 1, bowl, 1.0).astype(np.float32)
    img *= (1 + (bowl - 1) * inside)[..., None]
    # Dark rim line where the bowl meets the surface.
    rim = np.exp(-(((r - 1.0) * radius / 1.2) ** 2)).astype(np.float32)
    img *= (1 - 0.35 * rim * (0.5 + 0.5 * np.clip(slope, 0, 1)))[..., None]
    seed_len = style.seed_size * cell
    base = np.array(style.seed_colour, np.float32) / 255.0
    for sx, sy, _layer in _seed_positions(count, radius, seed_len / 2, rng):
        colour = (base * (1 + rng.normal(0, style.seed_jitter, 3))).astype(np.float32)
        colour *= np.float32(rng.uniform(0.85, 1.1))
        _draw_seed(
            img,
            cx + sx,
            cy + sy,
            seed_len * rng.uniform(0.9, 1.1),
            style.seed_aspect,
            rng.uniform(0, math.pi),
            colour,
            style.light_angle,
        )


def _finish(
    img: FloatImage, style: Style, rng: np.random.Generator, blur: float, noise: float
) -> Image:
    """Light, blur, noise, convert to 8-bit."""
    out = img * style.light
    if blur > 0:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), blur), np.float32)
    if noise > 0:
        out = out + rng.normal(0, noise, out.shape).astype(np.float32)
    return np.clip(out * 255.0, 0, 255).astype(np.uint8)


def render_pit(
    count: int,
    style: Style,
    rng: np.random.Generator,
    size: int = 64,
    jitter: float = 0.06,
) -> Image:
    """One pit cell seen from above, ``size`` × ``size`` pixels, holding ``count`` seeds.

    ``jitter`` moves the pit off-centre by up to that fraction of the cell, as
    an imperfect calibration would.
    """
    img = _wood(size, size, style)
    cx = size / 2 + rng.uniform(-jitter, jitter) * size
    cy = size / 2 + rng.uniform(-jitter, jitter) * size
    _paint_pit(img, cx, cy, size, count, style, rng)
    return _finish(img, style, rng, float(rng.uniform(0, 1.2)), float(rng.uniform(0, 0.03)))


def random_pit(count: int, rng: np.random.Generator, sizes: tuple[int, int] = (56, 100)) -> Image:
    """A pit of a random board (:func:`random_style`) at a random size: training material."""
    style = random_style(rng)
    return render_pit(count, style, rng, size=int(rng.integers(*sizes)))


def render_board(
    pits: Sequence[int],
    style: Style,
    rng: np.random.Generator,
    layout: BoardLayout | None = None,
    margin: float = 0.5,
) -> tuple[FloatImage, tuple[int, int]]:
    """The top-down board as a float image and the offset of the playing area in it.

    ``margin`` is the wooden border around the playing area, in cells.
    """
    lay = layout or BoardLayout()
    cell = lay.cell
    m = int(margin * cell)
    w, h = lay.size
    img = _wood(w + 2 * m, h + 2 * m, style)
    for pit, count in enumerate(pits):
        x, y = lay.centre(pit)
        _paint_pit(img, x + m, y + m, cell, int(count), style, rng)
    return img, (m, m)


# --------------------------------------------------------------------------- scenes


@dataclass
class Truth:
    """What a rendered scene really shows."""

    corners: npt.NDArray[np.float32]
    """Image coordinates of the playing-area corners: NW, NE, SE, SW (4 × 2)."""
    pits: tuple[int, ...]
    covered: set[int] = field(default_factory=set)
    """Pits hidden (fully or partly) by a hand."""


@dataclass(frozen=True)
class Camera:
    """Where the board lands in the frame: the playing-area corners NW, NE, SE, SW."""

    corners: tuple[tuple[float, float], ...]

    @classmethod
    def random(
        cls, rng: np.random.Generator, size: tuple[int, int] = (1280, 720), tilt: float = 0.15
    ) -> Camera:
        """A random, moderately oblique view that keeps the board well inside the frame."""
        w, h = size
        bw = w * rng.uniform(0.55, 0.72)
        bh = bw / 3.0
        cx = w / 2 + rng.uniform(-0.06, 0.06) * w
        cy = h / 2 + rng.uniform(-0.06, 0.06) * h
        t = rng.uniform(0, tilt)  # far (North) edge shorter: the camera looks from South
        rot = rng.uniform(-0.08, 0.08)
        pts = [
            (-bw / 2 * (1 - t), -bh / 2),
            (bw / 2 * (1 - t), -bh / 2),
            (bw / 2, bh / 2),
            (-bw / 2, bh / 2),
        ]
        c, s = math.cos(rot), math.sin(rot)
        out = tuple(
            (cx + x * c - y * s + rng.normal(0, 3), cy + x * s + y * c + rng.normal(0, 3))
            for x, y in pts
        )
        return cls(out)

    @classmethod
    def centred(cls, size: tuple[int, int] = (1280, 720), tilt: float = 0.1) -> Camera:
        """A fixed, slightly oblique view (for videos and reproducible tests)."""
        w, h = size
        bw, bh = 0.66 * w, 0.22 * w
        t = tilt
        return cls(
            (
                (w / 2 - bw / 2 * (1 - t), h / 2 - bh / 2),
                (w / 2 + bw / 2 * (1 - t), h / 2 - bh / 2),
                (w / 2 + bw / 2, h / 2 + bh / 2),
                (w / 2 - bw / 2, h / 2 + bh / 2),
            )
        )


def aruco_marker(marker_id: int, pixels: int) -> Image:
    """The printable ArUco marker ``marker_id`` (4×4 dictionary), with a white quiet zone."""
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    inner = cv2.aruco.generateImageMarker(dictionary, marker_id, pixels)
    pad = pixels // 4
    return np.asarray(cv2.copyMakeBorder(inner, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255))


def _background(size: tuple[int, int], rng: np.random.Generator) -> FloatImage:
    w, h = size
    colour = rng.uniform(0.15, 0.7, 3).astype(np.float32)
    low = cv2.resize(
        rng.normal(0, 0.05, (9, 16)).astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC
    )
    return (colour[None, None, :] * (1 + low[..., None])).astype(np.float32)


def hand_mask(
    size: tuple[int, int], tip: tuple[float, float], angle: float, scale: float
) -> FloatImage:
    """A hand-and-arm silhouette (float mask 0–1) whose fingertips reach ``tip``.

    ``angle`` is the direction the arm comes from (radians, 0 = from the right);
    ``scale`` is the palm length in pixels.
    """
    w, h = size
    mask = np.zeros((h, w), np.float32)
    ux, uy = math.cos(angle), math.sin(angle)
    palm = (tip[0] + ux * scale * 0.9, tip[1] + uy * scale * 0.9)
    deg = math.degrees(angle)
    cv2.ellipse(
        mask,
        (int(palm[0]), int(palm[1])),
        (int(scale * 0.6), int(scale * 0.45)),
        deg,
        0,
        360,
        1.0,
        -1,
    )
    # Fingers fanning out toward the tip.
    for k in range(-2, 2):
        a = angle + k * 0.18 + 0.09
        fx = palm[0] - math.cos(a) * scale * 0.8
        fy = palm[1] - math.sin(a) * scale * 0.8
        cv2.ellipse(
            mask,
            (int(fx), int(fy)),
            (int(scale * 0.4), int(scale * 0.1)),
            math.degrees(a),
            0,
            360,
            1.0,
            -1,
        )
    # The arm out to the frame edge.
    far = (palm[0] + ux * 3 * w, palm[1] + uy * 3 * w)
    cv2.line(mask, (int(palm[0]), int(palm[1])), (int(far[0]), int(far[1])), 1.0, int(scale * 0.8))
    return mask


def render_scene(
    pits: Sequence[int],
    style: Style,
    rng: np.random.Generator,
    camera: Camera | None = None,
    size: tuple[int, int] = (1280, 720),
    markers: bool = False,
    hand: tuple[float, float] | None = None,
    layout: BoardLayout | None = None,
    blur: float | None = None,
    noise: float | None = None,
) -> tuple[Image, Truth]:
    """A full camera frame of a board holding ``pits`` and its ground truth.

    ``hand`` is an optional fingertip position in *rectified* playing-area
    pixels (e.g. the centre of a pit); the hand comes in from the South side.
    With ``markers`` the four ArUco markers (ids 0–3: NW, NE, SE, SW) are laid
    with their inner corners touching the playing-area corners.
    """
    lay = layout or BoardLayout()
    cam = camera or Camera.random(rng, size)
    board, (ox, oy) = render_board(pits, style, rng, lay, margin=0.75 if markers else 0.5)
    bh, bw = board.shape[:2]
    w, h = lay.size
    if markers:
        mk = int(lay.cell * 0.4)
        for marker_id, (px, py, sx, sy) in enumerate(
            [(ox, oy, -1, -1), (ox + w, oy, 1, -1), (ox + w, oy + h, 1, 1), (ox, oy + h, -1, 1)]
        ):
            tile = aruco_marker(marker_id, mk).astype(np.float32) / 255.0
            t = tile.shape[0]
            pad = mk // 4
            # Inner corner of the black square touches the playing-area corner.
            x0 = px - pad - (t - 2 * pad) if sx < 0 else px - pad
            y0 = py - pad - (t - 2 * pad) if sy < 0 else py - pad
            x0, y0 = max(0, x0), max(0, y0)
            x1, y1 = min(bw, x0 + t), min(bh, y0 + t)
            board[y0:y1, x0:x1] = tile[: y1 - y0, : x1 - x0, None] * 0.95
    src = np.array([[ox, oy], [ox + w, oy], [ox + w, oy + h], [ox, oy + h]], np.float32)
    dst = np.array(cam.corners, np.float32)
    hom = cv2.getPerspectiveTransform(src, dst)
    frame = _background(size, np.random.default_rng(style.seed + 2))
    warped = cv2.warpPerspective(board, hom, size, flags=cv2.INTER_LINEAR)
    cover = cv2.warpPerspective(
        np.ones(board.shape[:2], np.float32), hom, size, flags=cv2.INTER_LINEAR
    )
    frame = frame * (1 - cover[..., None]) + warped * cover[..., None]
    # Uneven light and a soft cast shadow across part of the frame.
    gx = np.linspace(-1, 1, size[0], dtype=np.float32)[None, :]
    gy = np.linspace(-1, 1, size[1], dtype=np.float32)[:, None]
    a = style.light_angle
    frame *= (1 + 0.12 * (gx * math.cos(a) + gy * math.sin(a)))[..., None]
    light_rng = np.random.default_rng(style.seed + 1)  # the room's light belongs to the style
    if light_rng.uniform() < 0.5:
        shadow = np.zeros((size[1], size[0]), np.float32)
        x = int(light_rng.uniform(0, size[0]))
        cv2.rectangle(shadow, (x, 0), (x + int(light_rng.uniform(100, 500)), size[1]), 1.0, -1)
        shadow = np.asarray(cv2.GaussianBlur(shadow, (0, 0), 40), np.float32)
        frame *= (1 - 0.25 * shadow)[..., None]
    covered: set[int] = set()
    if hand is not None:
        tip_board = np.array([[[hand[0] + ox, hand[1] + oy]]], np.float32)
        tip = cv2.perspectiveTransform(tip_board, hom)[0, 0]
        scale = float(np.linalg.norm(dst[1] - dst[0])) / 6 * 0.9
        mask = hand_mask(
            size, (float(tip[0]), float(tip[1])), math.pi / 2 + rng.uniform(-0.5, 0.5), scale
        )
        skin = (
            np.array(
                [rng.uniform(60, 140), rng.uniform(90, 170), rng.uniform(140, 230)], np.float32
            )
            / 255
        )
        shade = 0.85 + 0.15 * cv2.GaussianBlur(mask, (0, 0), 6)
        frame = (
            frame * (1 - mask[..., None])
            + (skin[None, None, :] * shade[..., None]) * mask[..., None]
        )
        for pit in range(lay.pits):
            cx, cy = lay.centre(pit)
            r = lay.cell * style.pit_radius
            pts = np.array(
                [
                    [
                        [
                            cx + ox + r * math.cos(k * math.pi / 4),
                            cy + oy + r * math.sin(k * math.pi / 4),
                        ]
                    ]
                    for k in range(8)
                ]
                + [[[cx + ox, cy + oy]]],
                np.float32,
            )
            img_pts = cv2.perspectiveTransform(pts, hom).reshape(-1, 2)
            for px, py in img_pts:
                if (
                    0 <= int(py) < size[1]
                    and 0 <= int(px) < size[0]
                    and mask[int(py), int(px)] > 0.5
                ):
                    covered.add(pit)
                    break
    out = _finish(
        frame,
        style,
        rng,
        float(rng.uniform(0.3, 1.2)) if blur is None else blur,
        float(rng.uniform(0.005, 0.025)) if noise is None else noise,
    )
    return out, Truth(dst, tuple(int(p) for p in pits), covered)


def render_game(
    positions: Sequence[Sequence[int]],
    moves: Sequence[int],
    path: Path | str,
    style: Style | None = None,
    seed: int = 0,
    fps: float = 10.0,
    still_frames: int = 12,
    hand_frames: int = 1,
    size: tuple[int, int] = (1280, 720),
    markers: bool = False,
) -> int:
    """Write a video of a game: ``positions[0]`` then each move's result.

    ``moves[i]`` is the pit played to go from ``positions[i]`` to
    ``positions[i + 1]``. Between positions a hand hovers over the played pit
    for ``hand_frames`` frames per seed sown, then the new position is shown
    still for ``still_frames`` frames. The camera and lighting stay fixed, as
    in a real session. Returns the number of frames written.

    The video is Motion-JPEG in an AVI container (always available in
    OpenCV's own build, lossy enough to be a fair test).
    """
    if len(moves) != len(positions) - 1:
        raise ValueError("need exactly one move between consecutive positions")
    rng = np.random.default_rng(seed)
    sty = style or random_style(rng)
    cam = Camera.centred(size)
    lay = BoardLayout()
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, size)
    if not writer.isOpened():
        raise OSError(f"cannot write video {path}")
    frames = 0

    def still(pits: Sequence[int], n: int, hand: tuple[float, float] | None = None) -> None:
        nonlocal frames
        # One render per still stretch (the board does not change), fresh noise per frame.
        frame, _ = render_scene(
            pits,
            sty,
            np.random.default_rng(seed + frames),
            cam,
            size,
            markers=markers,
            hand=hand,
            blur=0.6,
            noise=0.0,
        )
        for _ in range(n):
            noisy = np.clip(
                frame.astype(np.int16) + rng.integers(-3, 4, frame.shape), 0, 255
            ).astype(np.uint8)
            writer.write(noisy)
            frames += 1

    try:
        still(positions[0], still_frames)
        for move, before, after in zip(moves, positions[:-1], positions[1:], strict=True):
            # The hand picks the seeds up (the pit looks empty under it) and sows.
            lifted = list(before)
            seeds = lifted[move]
            lifted[move] = 0
            still(lifted, hand_frames, hand=lay.centre(move))
            for k in range(1, min(seeds, 6) + 1):
                still(lifted, hand_frames, hand=lay.centre((move + k) % lay.pits))
            still(after, still_frames)
        if moves:
            still(positions[-1], still_frames)  # a longer rest at the end: the last move settles
    finally:
        writer.release()
    return frames
