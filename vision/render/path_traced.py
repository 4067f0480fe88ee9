"""Pit photos of physics-dropped piles, lit by a path tracer (Mitsuba 3).

The piles are :mod:`vision.render.physics_piles`'s: seeds dropped by PyBullet into a
carved bowl, held in the pit. What changes is the picture. The rasteriser there has one
directional light and flat shading, so a bowl looks carved only because its texture is
painted darker; here light is traced: soft shadows of the seeds on each other and on the
bowl, the bowl's own shade, light bounced off the wood onto the seeds, glossy highlights on
varnished or polished seeds. Those are what a camera sees on a real board, and what a
counter must see through to tell five touching seeds from six.

Each photo draws its own board and light: wood colour, grain and varnish, a bowl of end
grain darker than the top; one seed kind and size (as in the physics), of one colour, a
mixed set of two or three, or speckled; a lamp (a glowing sphere) anywhere from overhead to
low across the board, small and hard or wide and soft, over a sky-like ambient of another
colour temperature; the camera's height, tilt and framing as in the physics renders. The
tracer's own picture is exposed automatically, then blurred, given sensor noise and a
white balance by the same finish as the physics renders.

Mitsuba's ``scalar_rgb`` variant runs on any processor with no compiler (the vectorised
``llvm_ad_rgb`` needs an LLVM library it can drive; ``cuda_ad_rgb`` a GPU): cost figures
are in ``docs/VISION.md``.

``python -m vision.render.path_traced OUT --per-count N`` writes ``OUT/<count>/<k>.png``
with a progress bar, keeping the photos already there (the same cache as the physics
renders, so a stopped run goes on where it stopped).
"""

from __future__ import annotations

import argparse
import math
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.image_types import Image
from vision.render.physics_piles import (
    PIT_RADIUS,
    Pile,
    PitStyle,
    _bowl_mesh,
    _finish,
    _hsv,
    build,
    drop_pile,
    random_pit_style,
    seed_axes,
)

SPP = 48
"""Samples per pixel: the finish's sensor noise is larger than what is left of the tracer's."""
MAX_DEPTH = 5
"""Bounces traced: light off the wood onto the seeds and back is what a third adds."""
SEED_RINGS, SEED_SECTORS = 12, 20
"""Tessellation of a seed's ellipsoid for the picture (the physics uses a coarser hull)."""

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Lighting:
    """The lamp and the ambient light of one photo."""

    lamp: tuple[float, float, float]
    """Centre of the glowing sphere, metres from the pit's centre."""
    lamp_radius: float
    lamp_rgb: tuple[float, float, float]
    """Radiance of the lamp."""
    ambient_rgb: tuple[float, float, float]
    """Radiance of the sky all around."""


@dataclass(frozen=True)
class Finish:
    """The surfaces of one photo: the wood's and each seed's."""

    wood_roughness: float
    """GGX roughness of the varnish (0.05 polished to 0.6 raw wood)."""
    bowl_shade: float
    """How much darker the carved end grain of the bowl is than the top (0 to 0.45)."""
    seed_roughness: float
    seed_palette: tuple[tuple[float, float, float], ...]
    """The colours of the set; each seed takes one, with a little jitter of its own."""
    speckled: bool
    """Seeds mottled with a darker colour (nickernuts, some beans)."""


def random_lighting(rng: np.random.Generator) -> Lighting:
    """A lamp from overhead to low across the board, under an ambient sky."""
    elevation = rng.uniform(math.radians(25), math.radians(88))
    azimuth = rng.uniform(0, 2 * math.pi)
    distance = rng.uniform(0.35, 1.5)
    lamp = (
        distance * math.cos(elevation) * math.cos(azimuth),
        distance * math.cos(elevation) * math.sin(azimuth),
        distance * math.sin(elevation),
    )
    radius = distance * rng.uniform(0.02, 0.3)  # a bare bulb to a softbox or a window
    # Irradiance E = pi * L * (r / d)^2 on a surface facing the lamp: pick E, derive L,
    # so a small far lamp is as bright on the board as a big near one.
    ambient_level = rng.uniform(0.05, 0.5)
    lamp_irradiance = math.pi * ambient_level * rng.uniform(0.8, 6.0)
    radiance = lamp_irradiance / (math.pi * (radius / distance) ** 2)
    return Lighting(
        lamp=lamp,
        lamp_radius=radius,
        lamp_rgb=_tint(rng, radiance),
        ambient_rgb=_tint(rng, ambient_level),
    )


def _tint(rng: np.random.Generator, level: float) -> tuple[float, float, float]:
    """A light's colour from warm bulb to cold daylight, at ``level``."""
    warmth = rng.uniform(-0.25, 0.35)
    return (level * (1 + warmth), level, level * (1 - warmth))


def random_finish(style: PitStyle, rng: np.random.Generator) -> Finish:
    """Varnish, bowl and the set's colours around the style's own seed colour."""
    kind = rng.uniform()
    if kind < 0.55:
        palette: tuple[tuple[float, float, float], ...] = (style.seed_colour,)
    else:  # a mixed set: the style's colour and one or two others
        others = [
            _hsv(rng.uniform(0, 1), rng.uniform(0.1, 0.8), rng.uniform(0.2, 0.95))
            for _ in range(int(rng.integers(1, 3)))
        ]
        palette = (style.seed_colour, *others)
    return Finish(
        wood_roughness=float(rng.uniform(0.05, 0.6)),
        bowl_shade=float(rng.uniform(0.0, 0.45)),
        seed_roughness=float(rng.uniform(0.03, 0.6)),
        seed_palette=palette,
        speckled=bool(rng.uniform() < 0.2),
    )


def render_traced_pit(
    count: int,
    rng: np.random.Generator,
    size: int = 96,
    style: PitStyle | None = None,
    spp: int = SPP,
    finish: Finish | None = None,
) -> tuple[Image, Pile]:
    """One pit photo holding ``count`` seeds dropped by the physics, traced; BGR uint8."""
    st = style or random_pit_style(rng)
    pile = drop_pile(count, st, rng)
    lighting = random_lighting(rng)
    finish = finish or random_finish(st, rng)
    with tempfile.TemporaryDirectory() as tmp:
        scene = _scene(Path(tmp), st, pile, lighting, finish, rng, size, spp)
        linear = _trace(scene, spp, int(rng.integers(0, 2**31 - 1)))
    return _finish(_expose(linear, rng), rng), pile


def _mitsuba() -> Any:
    import mitsuba as mi  # the render extra: only this module needs it

    if mi.variant() is None:
        mi.set_variant("scalar_rgb")
        mi.set_log_level(mi.LogLevel.Error)  # not a line per seed on the progress bar
    return mi


def _scene(
    folder: Path,
    st: PitStyle,
    pile: Pile,
    lighting: Lighting,
    finish: Finish,
    rng: np.random.Generator,
    size: int,
    spp: int,
) -> dict[str, Any]:
    """Mitsuba's scene description: the carved top, the seeds, the lamp, the sky, the camera."""
    mi = _mitsuba()
    verts, idx, uvs = _bowl_mesh(st.depth)
    top = folder / "top.ply"
    _write_ply(top, np.array(verts), np.array(idx).reshape(-1, 3), np.array(uvs))
    wood = folder / "wood.png"
    _write_wood(wood, st, finish, rng)
    scene: dict[str, Any] = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": MAX_DEPTH},
        "sensor": _camera(mi, st, rng, size, spp),
        "sky": {"type": "constant", "radiance": {"type": "rgb", "value": lighting.ambient_rgb}},
        "lamp": {
            "type": "sphere",
            "center": list(lighting.lamp),
            "radius": lighting.lamp_radius,
            "emitter": {"type": "area", "radiance": {"type": "rgb", "value": lighting.lamp_rgb}},
        },
        "top": {
            "type": "ply",
            "filename": str(top),
            "bsdf": {
                "type": "roughplastic",
                "distribution": "ggx",
                "alpha": finish.wood_roughness,
                "diffuse_reflectance": {"type": "bitmap", "filename": str(wood)},
            },
        },
    }
    if pile.positions:
        seed_mesh = folder / "seed.ply"
        _write_ply(seed_mesh, *_ellipsoid(seed_axes(st.shape, st.seed_size)))
        for k, (pos, turn) in enumerate(zip(pile.positions, pile.turns, strict=True)):
            scene[f"seed{k}"] = {
                "type": "ply",
                "filename": str(seed_mesh),
                "to_world": mi.ScalarTransform4f(_pose(pos, turn)),
                "bsdf": _seed_bsdf(finish, rng, folder, k),
            }
    return scene


def _camera(mi: Any, st: PitStyle, rng: np.random.Generator, size: int, spp: int) -> dict[str, Any]:
    """From above at the style's height and tilt, framed as the pit crops are."""
    t = rng.uniform(0, 2 * math.pi)
    off = st.height * math.tan(st.tilt)
    eye = [off * math.cos(t), off * math.sin(t), st.height]
    up = [math.cos(rng.uniform(0, 2 * math.pi)), math.sin(rng.uniform(0, 2 * math.pi)), 0.0]
    if abs(up[0]) + abs(up[1]) < 1e-6:
        up = [0.0, 1.0, 0.0]
    fov = math.degrees(2 * math.atan(PIT_RADIUS * st.framing / st.height))
    return {
        "type": "perspective",
        "fov": fov,
        "near_clip": 0.005,
        "far_clip": 5.0,
        "to_world": mi.ScalarTransform4f().look_at(origin=eye, target=[0, 0, 0], up=up),
        "film": {
            "type": "hdrfilm",
            "width": size,
            "height": size,
            "rfilter": {"type": "gaussian"},
            "pixel_format": "rgb",
        },
        "sampler": {"type": "independent", "sample_count": spp},
    }


def _seed_bsdf(finish: Finish, rng: np.random.Generator, folder: Path, k: int) -> dict[str, Any]:
    base = np.array(finish.seed_palette[int(rng.integers(0, len(finish.seed_palette)))])
    colour = np.clip(base * (1 + rng.uniform(-0.12, 0.12, 3)), 0.01, 0.95)
    reflectance: dict[str, Any] = {"type": "rgb", "value": colour.tolist()}
    if finish.speckled:
        path = folder / f"speckle{k}.png"
        _write_speckles(path, colour, rng)
        reflectance = {"type": "bitmap", "filename": str(path)}
    return {
        "type": "roughplastic",
        "distribution": "ggx",
        "alpha": float(np.clip(finish.seed_roughness * rng.uniform(0.8, 1.25), 0.02, 0.8)),
        "diffuse_reflectance": reflectance,
    }


def _trace(scene: dict[str, Any], spp: int, seed: int) -> Floats:
    mi = _mitsuba()
    loaded = mi.load_dict(scene)
    return np.asarray(mi.render(loaded, spp=spp, seed=seed), np.float64)


def _expose(linear: Floats, rng: np.random.Generator) -> Image:
    """Auto exposure (the brightest percent near white, as a webcam sets it), sRGB, BGR."""
    level = np.percentile(linear.max(axis=2), 99)
    scaled = linear * (rng.uniform(0.75, 1.0) / max(float(level), 1e-6))
    srgb = np.where(
        scaled <= 0.0031308,
        12.92 * scaled,
        1.055 * np.power(np.maximum(scaled, 0), 1 / 2.4) - 0.055,
    )
    return np.ascontiguousarray((np.clip(srgb, 0, 1) * 255).astype(np.uint8)[..., ::-1])


def _ellipsoid(
    axes: tuple[float, float, float],
) -> tuple[Floats, npt.NDArray[np.int64], Floats]:
    """Vertices, triangles and texture coordinates of a smooth ellipsoid."""
    verts, uvs = [], []
    for i in range(SEED_RINGS + 1):
        phi = math.pi * i / SEED_RINGS
        for j in range(SEED_SECTORS + 1):
            t = 2 * math.pi * j / SEED_SECTORS
            verts.append(
                [
                    axes[0] * math.sin(phi) * math.cos(t),
                    axes[1] * math.sin(phi) * math.sin(t),
                    axes[2] * math.cos(phi),
                ]
            )
            uvs.append([j / SEED_SECTORS, i / SEED_RINGS])
    faces = []
    row = SEED_SECTORS + 1
    for i in range(SEED_RINGS):
        for j in range(SEED_SECTORS):
            a, b = i * row + j, (i + 1) * row + j
            if i > 0:  # at the poles one of the two triangles has no area
                faces.append([a, b, a + 1])
            if i < SEED_RINGS - 1:
                faces.append([a + 1, b, b + 1])
    return np.array(verts), np.array(faces), np.array(uvs)


def _pose(pos: tuple[float, ...], turn: tuple[float, ...]) -> Floats:
    """The 4 × 4 matrix of a seed's rest pose (PyBullet's quaternion is x, y, z, w)."""
    x, y, z, w = turn
    rot = np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
        ]
    )
    out = np.eye(4)
    out[:3, :3] = rot
    out[:3, 3] = pos
    return out


def _write_ply(path: Path, verts: Floats, faces: npt.NDArray[np.int64], uvs: Floats) -> None:
    """An ASCII PLY with texture coordinates (Mitsuba computes smooth normals)."""
    lines = [
        "ply",
        "format ascii 1.0",
        f"element vertex {len(verts)}",
        "property float x",
        "property float y",
        "property float z",
        "property float u",
        "property float v",
        f"element face {len(faces)}",
        "property list uchar int vertex_indices",
        "end_header",
    ]
    lines += [
        f"{v[0]:.6g} {v[1]:.6g} {v[2]:.6g} {t[0]:.5g} {t[1]:.5g}"
        for v, t in zip(verts, uvs, strict=True)
    ]
    lines += [f"3 {f[0]} {f[1]} {f[2]}" for f in faces]
    path.write_text("\n".join(lines) + "\n")


def _write_wood(path: Path, st: PitStyle, finish: Finish, rng: np.random.Generator) -> None:
    """The top's wood: grain across it, the carved bowl darker (end grain), a worn rim."""
    side = 256
    y = np.linspace(0, 1, side)[:, None]
    x = np.linspace(0, 1, side)[None, :]
    freq = rng.uniform(6, 30)
    wobble = 0.6 * np.sin(3 * x + rng.uniform(0, 6)) + 0.2 * np.sin(11 * x + rng.uniform(0, 6))
    grain = np.sin(2 * math.pi * (freq * y + wobble)) * 0.5 + 0.5
    shade = 0.78 + rng.uniform(0.05, 0.3) * grain + rng.normal(0, 0.025, (side, side))
    # The texture spans 2.2 pit radii each side of the centre (_bowl_mesh's uvs).
    r = np.hypot(x - 0.5, y - 0.5) / (1 / (2 * 2.2))
    inside = 1 / (1 + np.exp((r - 1) * 40))
    shade *= 1 - finish.bowl_shade * inside
    shade += rng.uniform(0.0, 0.12) * np.exp(-(((r - 1) / 0.05) ** 2))
    rgb = np.clip(np.array(st.wood)[None, None, :] * shade[..., None], 0.01, 0.95)
    cv2.imwrite(str(path), (rgb[..., ::-1] * 255).astype(np.uint8))


def _write_speckles(path: Path, colour: Floats, rng: np.random.Generator) -> None:
    """A mottled seed: blotches of a darker shade over its colour."""
    side = 64
    noise = cv2.GaussianBlur(rng.normal(0, 1, (side, side)), (0, 0), rng.uniform(1.5, 4))
    dark = noise > np.percentile(noise, rng.uniform(40, 75))
    rgb = np.where(dark[..., None], colour * rng.uniform(0.3, 0.7), colour)
    cv2.imwrite(str(path), (np.clip(rgb, 0, 1)[..., ::-1] * 255).astype(np.uint8))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="render pit photos of piles, path traced")
    parser.add_argument("out", type=Path, help="folder to write <count>/<k>.png into")
    parser.add_argument("--per-count", type=int, default=150)
    parser.add_argument("--max-count", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--size", type=int, default=96)
    args = parser.parse_args(argv)
    if args.per_count < 1 or args.max_count < 0 or args.size < 16:
        print("--per-count must be at least 1, --max-count at least 0 and --size at least 16")
        return 2
    try:
        import mitsuba  # noqa: F401
        import pybullet  # noqa: F401
    except ImportError:
        print(
            "Mitsuba or PyBullet is missing: install the render extra: pip install -e '.[render]'"
        )
        return 1
    build(
        args.out,
        args.per_count,
        range(args.max_count + 1),
        args.seed,
        args.size,
        render=render_traced_pit,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
