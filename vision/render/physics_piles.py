"""Pit photos with seeds dropped by a physics engine (PyBullet) into a carved bowl.

:mod:`vision.render.synth` paints piles by rule (side by side while they fit, then on top);
real seeds lean, roll to the bottom, stack and hide each other in ways no rule draws.
Here every seed is a rigid body: a marble (sphere), a pebble or cowrie (flattened
ellipsoid) or a bean (long ellipsoid), dropped from above the pit at a random spot and
turn, into a bowl carved as a spherical cap in a wooden top. When they have settled, a
seed that bounced out of the bowl is dropped again, so a photo of ``n`` seeds holds
``n`` seeds in the pit (:class:`Pile` says where each one lies).

The picture is PyBullet's own CPU rasteriser (TinyRenderer: one directional light and
its shadows, a wood texture made here), seen from above at a random height and tilt,
then blurred, given sensor noise and a white balance by :mod:`vision.render.synth`'s finish.
The physics, not the rasteriser, decides the cost (figures: ``docs/VISION.md``,
"Physics renders"). A path tracer (Cycles through ``bpy``, Mitsuba 3) would light the
piles more faithfully; what has been tried so far is in ``docs/VISION.md``.

``python -m vision.render.physics_piles OUT --per-count N`` writes ``OUT/<count>/<k>.png``
with a progress bar; photos already there are kept (the cache), so a stopped run goes
on where it stopped.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.image_types import Image

PIT_RADIUS = 0.022
"""Radius of the pit's rim, metres (Oware pits are 4 to 5 cm across)."""
SHAPES = ("marble", "pebble", "cowrie", "bean")
SETTLE_STEPS = 480
"""Simulation steps (1/240 s each) for a pile to settle: two seconds."""
MAX_TRIES = 4
"""Times a pile is dropped again when a seed bounced out of the bowl."""


@dataclass(frozen=True)
class PitStyle:
    """Everything random about one pit photo's board, seeds, light and camera."""

    depth: float
    """Depth of the bowl as a fraction of its radius."""
    shape: str
    seed_size: float
    """Seed length, metres."""
    seed_colour: tuple[float, float, float]
    """RGB 0-1."""
    wood: tuple[float, float, float]
    light: tuple[float, float, float]
    height: float
    """Camera height above the rim, metres."""
    tilt: float
    """Camera tilt from straight down, radians."""
    framing: float = 1.25
    """Half the photo's width over the pit's radius: how much wood the crop keeps."""


def random_pit_style(rng: np.random.Generator) -> PitStyle:
    """A plausible board, seed kind and camera."""
    hue = rng.uniform(0, 1)
    sat = rng.uniform(0.1, 0.8)
    val = rng.uniform(0.2, 0.95)
    seed_rgb = _hsv(hue, sat, val)
    wood = _hsv(rng.uniform(0.02, 0.1), rng.uniform(0.35, 0.8), rng.uniform(0.35, 0.9))
    angle = rng.uniform(0, 2 * math.pi)
    light = (math.cos(angle) * 0.6, math.sin(angle) * 0.6, 1.0)
    return PitStyle(
        depth=float(rng.uniform(0.35, 0.7)),
        shape=str(rng.choice(SHAPES)),
        # Marbles and pebbles of 8 mm up to nickernuts of 1.6 cm, in pits of 4.4 cm:
        # the seed's share of the pit's width spans the sets sold for Oware.
        seed_size=float(rng.uniform(0.008, 0.016)),
        seed_colour=seed_rgb,
        wood=wood,
        light=light,
        height=float(rng.uniform(0.12, 0.25)),
        tilt=float(rng.uniform(0.0, 0.35)),
        # The board geometry cuts a pit anywhere from its rim to a good margin of wood.
        framing=float(rng.uniform(1.02, 1.45)),
    )


def _hsv(h: float, s: float, v: float) -> tuple[float, float, float]:
    i = int(h * 6) % 6
    f = h * 6 - int(h * 6)
    p, q, t = v * (1 - s), v * (1 - f * s), v * (1 - (1 - f) * s)
    return [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i]


def _bowl_mesh(depth: float) -> tuple[list[list[float]], list[int], list[list[float]]]:
    """Vertices, triangle indices and texture coordinates of the carved top around a pit."""
    a = PIT_RADIUS
    d = depth * a
    sphere = (a * a + d * d) / (2 * d)  # the sphere whose cap is the bowl
    rings, sectors, outer = 14, 40, 2.2 * a
    verts: list[list[float]] = []
    uvs: list[list[float]] = []
    for i in range(rings + 1):
        r = outer * i / rings
        z = (sphere - math.sqrt(max(sphere * sphere - r * r, 0.0))) - d if r < a else 0.0
        for j in range(sectors):
            t = 2 * math.pi * j / sectors
            x, y = r * math.cos(t), r * math.sin(t)
            verts.append([x, y, z])
            uvs.append([x / (2 * outer) + 0.5, y / (2 * outer) + 0.5])
    idx: list[int] = []
    for i in range(rings):
        for j in range(sectors):
            a0, a1 = i * sectors + j, i * sectors + (j + 1) % sectors
            b0, b1 = a0 + sectors, a1 + sectors
            idx += [a0, b0, a1, a1, b0, b1]
    return verts, idx, uvs


def seed_axes(shape: str, size: float) -> tuple[float, float, float]:
    """Half-axes of the ellipsoid of a seed kind ``size`` metres long."""
    half = size / 2
    return {
        "marble": (half, half, half),
        "pebble": (half, half * 0.8, half * 0.5),
        "cowrie": (half, half * 0.7, half * 0.45),
        "bean": (half, half * 0.55, half * 0.4),
    }[shape]


def _seed_vertices(shape: str, size: float) -> list[list[float]]:
    """A convex ellipsoid for one seed kind (half-axes from its length)."""
    axes = seed_axes(shape, size)
    out = []
    for i in range(1, 6):
        phi = math.pi * i / 6
        for j in range(10):
            t = 2 * math.pi * j / 10
            out.append(
                [
                    axes[0] * math.sin(phi) * math.cos(t),
                    axes[1] * math.sin(phi) * math.sin(t),
                    axes[2] * math.cos(phi),
                ]
            )
    return out + [[0, 0, axes[2]], [0, 0, -axes[2]]]


@dataclass(frozen=True)
class Pile:
    """Where the seeds came to rest, metres, pit centre at the origin, rim at z = 0."""

    positions: tuple[tuple[float, float, float], ...]
    tries: int
    turns: tuple[tuple[float, float, float, float], ...] = ()
    """Each seed's orientation as a quaternion (x, y, z, w), in the order of ``positions``."""

    def in_pit(self) -> int:
        """Seeds lying inside the rim (not on the wooden top around it)."""
        return sum(math.hypot(x, y) < PIT_RADIUS * 1.02 for x, y, _z in self.positions)


def _wood_texture(style: PitStyle, rng: np.random.Generator, folder: Path) -> Path:
    """A grained wood picture for the top (file: PyBullet loads textures from disk)."""
    side = 256
    y = np.linspace(0, 1, side)[:, None]
    x = np.linspace(0, 1, side)[None, :]
    freq = rng.uniform(8, 30)
    grain = np.sin(2 * math.pi * (freq * y + 0.6 * np.sin(3 * x + rng.uniform(0, 6)))) * 0.5 + 0.5
    shade = 0.8 + 0.2 * grain + rng.normal(0, 0.03, (side, side))
    # The carved bowl is end grain, darker than the top, with a worn lighter rim: the
    # rasteriser's single light barely shades a smooth cap, so the texture does.
    r = np.hypot(x - 0.5, y - 0.5) / (PIT_RADIUS / (2 * 2.2 * PIT_RADIUS))
    inside = 1 / (1 + np.exp((r - 1) * 40))
    rim = np.exp(-(((r - 1) / 0.04) ** 2))
    shade *= 1 - style.depth * 0.6 * inside * (1 - 0.5 * r**2)
    shade += 0.12 * rim
    rgb = np.clip(np.array(style.wood)[None, None, :] * shade[..., None], 0, 1)
    path = folder / "wood.png"
    cv2.imwrite(str(path), (rgb[..., ::-1] * 255).astype(np.uint8))
    return path


def render_physics_pit(
    count: int, rng: np.random.Generator, size: int = 96, style: PitStyle | None = None
) -> tuple[Image, Pile]:
    """One pit photo holding ``count`` seeds dropped by the physics engine, and the pile."""
    import pybullet as pb  # the render extra: only this script needs it

    st = style or random_pit_style(rng)
    client = pb.connect(pb.DIRECT)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            pile = _drop(pb, client, count, st, rng)
            texture = pb.loadTexture(str(_wood_texture(st, rng, Path(tmp))), physicsClientId=client)
            pb.changeVisualShape(
                pile_body(client), -1, textureUniqueId=texture, physicsClientId=client
            )
            img = _shoot(pb, client, st, rng, size)
    finally:
        pb.disconnect(client)
    return _finish(img, rng), pile


def drop_pile(count: int, style: PitStyle, rng: np.random.Generator) -> Pile:
    """Only the physics: where ``count`` seeds of ``style`` come to rest in its bowl."""
    import pybullet as pb

    client = pb.connect(pb.DIRECT)
    try:
        return _drop(pb, client, count, style, rng)
    finally:
        pb.disconnect(client)


def pile_body(client: int) -> int:
    """The bowl is always the first body created."""
    return 0


def _drop(pb: Any, client: int, count: int, st: PitStyle, rng: np.random.Generator) -> Pile:
    pb.setGravity(0, 0, -9.81, physicsClientId=client)
    verts, idx, uvs = _bowl_mesh(st.depth)
    col = pb.createCollisionShape(
        pb.GEOM_MESH,
        vertices=verts,
        indices=idx,
        flags=pb.GEOM_FORCE_CONCAVE_TRIMESH,
        physicsClientId=client,
    )
    vis = pb.createVisualShape(
        pb.GEOM_MESH,
        vertices=verts,
        indices=idx,
        uvs=uvs,
        rgbaColor=[1, 1, 1, 1],
        physicsClientId=client,
    )
    pb.createMultiBody(0, col, vis, physicsClientId=client)
    # An invisible collar over the rim: seeds dropped from high up on a tall pile would
    # otherwise bounce across the table (a player's hand keeps them in the pit).
    collar = pb.createCollisionShape(
        pb.GEOM_BOX, halfExtents=[0.001, PIT_RADIUS * 0.2, 0.15], physicsClientId=client
    )
    collars = []
    for k in range(24):
        t = 2 * math.pi * k / 24
        collar_body = pb.createMultiBody(
            0,
            collar,
            -1,
            [PIT_RADIUS * math.cos(t), PIT_RADIUS * math.sin(t), 0.15],
            pb.getQuaternionFromEuler([0, 0, t]),
            physicsClientId=client,
        )
        collars.append(collar_body)
    seed_col = pb.createCollisionShape(
        pb.GEOM_MESH, vertices=_seed_vertices(st.shape, st.seed_size), physicsClientId=client
    )
    bodies: list[int] = []
    for _ in range(count):
        jitter = rng.uniform(-0.12, 0.12, 3)
        colour = [
            float(np.clip(c * (1 + j), 0, 1)) for c, j in zip(st.seed_colour, jitter, strict=True)
        ]
        vis_seed = pb.createVisualShape(
            pb.GEOM_MESH,
            vertices=_seed_vertices(st.shape, st.seed_size),
            indices=_hull_indices(st.shape, st.seed_size),
            rgbaColor=[*colour, 1],
            physicsClientId=client,
        )
        bodies.append(
            pb.createMultiBody(
                0.0015,
                seed_col,
                vis_seed,
                _above(rng, len(bodies), st),
                _turn(pb, rng),
                physicsClientId=client,
            )
        )
    for body in bodies:
        pb.changeDynamics(
            body,
            -1,
            lateralFriction=0.6,
            rollingFriction=1e-4,
            restitution=0.2,
            physicsClientId=client,
        )
    tries = 0
    while True:
        tries += 1
        for step in range(SETTLE_STEPS):
            pb.stepSimulation(physicsClientId=client)
            if step % 24 == 23 and _at_rest(pb, client, bodies):
                break  # most piles settle in well under the two seconds
        out = [
            b
            for b in bodies
            if math.hypot(*pb.getBasePositionAndOrientation(b, physicsClientId=client)[0][:2])
            >= PIT_RADIUS
        ]
        if not out or tries >= MAX_TRIES:
            break
        for k, b in enumerate(out):  # bounced out: drop again, as a player would put it back
            pb.resetBasePositionAndOrientation(
                b, _above(rng, k, st), _turn(pb, rng), physicsClientId=client
            )
    for body in collars:  # gone before the photo (the rasteriser would draw them)
        pb.removeBody(body, physicsClientId=client)
    poses = [pb.getBasePositionAndOrientation(b, physicsClientId=client) for b in bodies]
    positions = tuple(tuple(float(v) for v in pos) for pos, _turn in poses)
    turns = tuple(tuple(float(v) for v in turn) for _pos, turn in poses)
    return Pile(positions, tries, turns)  # type: ignore[arg-type]


REST_SPEED = 0.005
"""Metres per second under which a seed counts as at rest."""


def _at_rest(pb: Any, client: int, bodies: list[int]) -> bool:
    for b in bodies:
        lin, ang = pb.getBaseVelocity(b, physicsClientId=client)
        if math.hypot(*lin) > REST_SPEED or math.hypot(*ang) * PIT_RADIUS > REST_SPEED:
            return False
    return True


def _hull_indices(shape: str, size: float) -> list[int]:
    """Triangles over :func:`_seed_vertices` (5 rings of 10, then the two poles)."""
    idx: list[int] = []
    rings, sectors = 5, 10
    for i in range(rings - 1):
        for j in range(sectors):
            a0, a1 = i * sectors + j, i * sectors + (j + 1) % sectors
            idx += [a0, a0 + sectors, a1, a1, a0 + sectors, a1 + sectors]
    top, bottom = rings * sectors, rings * sectors + 1
    for j in range(sectors):
        idx += [top, j, (j + 1) % sectors]
        last = (rings - 1) * sectors
        idx += [bottom, last + (j + 1) % sectors, last + j]
    return idx


def _above(rng: np.random.Generator, k: int, st: PitStyle) -> list[float]:
    """A drop point over the pit, each seed a little higher than the last (no overlap)."""
    r = PIT_RADIUS * 0.6 * math.sqrt(rng.uniform())
    t = rng.uniform(0, 2 * math.pi)
    return [r * math.cos(t), r * math.sin(t), 0.01 + k * st.seed_size * 0.9]


def _turn(pb: Any, rng: np.random.Generator) -> Any:
    return pb.getQuaternionFromEuler(list(rng.uniform(0, 2 * math.pi, 3)))


def _shoot(pb: Any, client: int, st: PitStyle, rng: np.random.Generator, size: int) -> Image:
    """The pit from above, a little tilted, at the style's height; BGR uint8."""
    t = rng.uniform(0, 2 * math.pi)
    off = st.height * math.tan(st.tilt)
    eye = [off * math.cos(t), off * math.sin(t), st.height]
    view = pb.computeViewMatrix(eye, [0, 0, 0], [0, 1, 0])
    # The field of view frames the rim and a little wood around it, as the pit crops do.
    fov = math.degrees(2 * math.atan(PIT_RADIUS * st.framing / st.height))
    proj = pb.computeProjectionMatrixFOV(fov, 1.0, 0.01, 1.0)
    _w, _h, rgba, _depth, _seg = pb.getCameraImage(
        size,
        size,
        view,
        proj,
        lightDirection=list(st.light),
        shadow=1,
        lightAmbientCoeff=float(rng.uniform(0.4, 0.7)),
        lightDiffuseCoeff=float(rng.uniform(0.4, 0.7)),
        lightSpecularCoeff=float(rng.uniform(0.0, 0.3)),
        renderer=pb.ER_TINY_RENDERER,
        physicsClientId=client,
    )
    rgb = np.asarray(rgba, np.uint8).reshape(size, size, 4)[..., :3]
    return np.ascontiguousarray(rgb[..., ::-1])


def _finish(img: Image, rng: np.random.Generator) -> Image:
    """Blur, white balance and sensor noise, as a webcam adds them."""
    sigma = rng.uniform(0.2, 1.3)
    blurred = np.asarray(cv2.GaussianBlur(img.astype(np.float64), (0, 0), sigma), np.float64)
    balance = rng.uniform(0.85, 1.15, 3)[None, None, :]  # white balance per channel
    noisy = blurred * balance + rng.normal(0, rng.uniform(1, 6), blurred.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


Renderer = Callable[[int, np.random.Generator, int], tuple[Image, Pile]]
"""Makes one pit photo of a count at a size, from a generator: the physics and a picture."""


def build(
    out: Path,
    per_count: int,
    counts: range,
    seed: int = 0,
    size: int = 96,
    render: Renderer = render_physics_pit,
) -> int:
    """Write ``per_count`` photos of each count under ``out/<count>/``; keep those there."""
    jobs = [(c, k) for c in counts for k in range(per_count)]
    todo = [(c, k) for c, k in jobs if not (out / str(c) / f"{k:05d}.png").exists()]
    done = len(jobs) - len(todo)
    for n, (c, k) in enumerate(todo, 1):
        # One generator per photo: photo (c, k) is the same whatever ran before it.
        rng = np.random.default_rng([seed, c, k])
        img, _pile = render(c, rng, size)
        folder = out / str(c)
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{k:05d}.png"
        cv2.imwrite(str(tmp), img)
        tmp.rename(folder / f"{k:05d}.png")  # never a half-written photo under a count
        _bar(done + n, len(jobs))
    print(f"\n{len(jobs)} photos in {out} ({len(todo)} rendered now, {done} kept)")
    return len(todo)


def _bar(step: int, total: int) -> None:
    filled = int(30 * step / max(total, 1))
    sys.stdout.write(f"\rrendering [{'#' * filled}{'.' * (30 - filled)}] {step}/{total}")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="render pit photos of physics-dropped piles")
    parser.add_argument("out", type=Path, help="folder to write <count>/<k>.png into")
    parser.add_argument("--per-count", type=int, default=200)
    parser.add_argument("--max-count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=96)
    args = parser.parse_args(argv)
    if args.per_count < 1 or args.max_count < 0:
        print("--per-count must be at least 1 and --max-count at least 0")
        return 2
    try:
        import pybullet  # noqa: F401
    except ImportError:
        print("PyBullet is missing: install the render extra (pip install -e '.[render]')")
        return 1
    build(args.out, args.per_count, range(args.max_count + 1), args.seed, args.size)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
