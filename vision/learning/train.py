"""Train the built-in seed counters from rendered pits only.

    python -m vision.learning.train [--samples 2400] [--out vision/models/counter_synth.json]
    python -m vision.learning.train --model cnn [--samples 4000] [--steps 4000]
    python -m vision.learning.train --model deep [--samples 24000] [--steps 1500]
    python -m vision.learning.train --model deep --renders DIR [--renders DIR ...] \
        [--painted-share 0.3] [--start NET.json]

The first (features + small MLP, :mod:`vision.counting.mlp`) takes about a minute
on one core; the second (the convolutional network of :mod:`vision.counting.cnn_net`,
written to ``vision/models/counter_cnn.json``) about five. The third (the
deeper network of :mod:`vision.counting.deep_net`, ``vision/models/counter_deep.json``)
needs PyTorch (the ``learn`` extra) and takes about four minutes on two
cores. The committed mlp and cnn models were made with the defaults; the deep one
from path-traced renders (``docs/VISION.md`` gives the commands).

Every training image comes from :mod:`vision.render.synth` (seeded, so the result is
reproducible) or, with ``--renders``, from folders of physics renders written by
:mod:`vision.render.physics_piles` (``<count>/<k>.png``), mixed with painted pits for
``--painted-share`` of every batch; no photograph is used. ``--start`` trains on from a
network this command saved before (more renders seen, in a second run) instead of from
scratch. The model is small JSON and may be
committed because the repository made all of its data. On a real board the
calibration step (:meth:`vision.counting.mlp.Counter.adapt`) then adapts it to
the user's wood, seeds and light.

The top class ``CLASSES - 1`` is trained on piles of that many seeds *or
more*, because a camera cannot tell 13 seeds from 17 in one heap; the counter
spreads that class's belief over the higher counts.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from vision.counting.beliefs import augment
from vision.counting.cnn_net import Network
from vision.counting.deep_net import WIDTH
from vision.counting.features import features_of
from vision.counting.mlp import MODEL_PATH, Counter
from vision.counting.model import MLP, fit_temperature, load_model_json
from vision.render.synth import random_pit, random_style, render_pit

if TYPE_CHECKING:
    from vision.counting.cnn import NetCounter
    from vision.counting.deep import DeepCounter

CLASSES = 14
"""Counts 0 … 12 exactly, and 13-or-more."""


def synthetic_set(samples: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Features (with the eight orientations) and labels of ``samples`` rendered pits."""
    rng = np.random.default_rng(seed)
    feats = []
    labels = []
    for i in range(samples):
        style = random_style(rng)
        count = int(rng.integers(0, CLASSES + 6))  # 14 … 19 seeds: labelled "13 or more"
        crop = render_pit(count, style, rng, size=int(rng.integers(56, 100)))
        orient = augment(crop)
        # Two of the eight orientations per sample: variety at a quarter of the cost.
        pick = [orient[i % 8], orient[(i + 3) % 8]]
        feats.append(features_of(pick))
        labels += [min(count, CLASSES - 1)] * len(pick)
    return np.concatenate(feats), np.asarray(labels, np.int64)


def rendered_pits(samples: int, seed: int) -> tuple[list[np.ndarray], list[int]]:
    """``samples`` rendered pit crops and their labels (counts above the top class join it)."""
    rng = np.random.default_rng(seed)
    crops, labels = [], []
    for _ in range(samples):
        count = int(rng.integers(0, CLASSES + 6))
        crops.append(random_pit(count, rng))
        labels.append(min(count, CLASSES - 1))
    return crops, labels


def train_cnn(samples: int, steps: int, out: Path, seed: int) -> int:
    """Render pits, train the network on them, fit its temperature on other renders, save."""
    from vision.counting.cnn import NetCounter

    start = time.perf_counter()
    crops, labels = rendered_pits(samples, seed)
    network = Network.initial(CLASSES, seed=seed)

    def show(step: int, total: int) -> None:
        if step % 100 == 0 or step == total:
            print(f"\rtraining {step}/{total}", end="", flush=True)

    network.train(crops, labels, steps=steps, lr=5e-3, seed=seed, progress=show)
    print()
    check_crops, check_labels = rendered_pits(max(200, samples // 10), seed + 1)
    network.temperature = NetCounter.fit_temperature(network, check_crops, check_labels)
    return _save(NetCounter([network], "synthetic"), check_crops, check_labels, out, start, samples)


CHECK_EVERY = 20
"""With ``--renders``, every this-many-th render is kept out of training to fit the
temperature and report the accuracy on."""


def physics_renders(folders: list[Path]) -> tuple[list[np.ndarray], list[int]]:
    """Every render under the folders and its label (counts above the top class join it)."""
    from vision.evaluation.dataset import load_folder

    crops, labels = [], []
    for folder in folders:
        for example in load_folder(folder):
            crops.append(example.image)
            labels.append(min(example.count, CLASSES - 1))
    return crops, labels


def train_deep(
    samples: int,
    steps: int,
    out: Path,
    seed: int,
    renders: list[Path] | None = None,
    painted_share: float = 0.3,
    start_from: Path | None = None,
) -> int:
    """Train the deeper network on rendered pits, fit its temperature, save.

    Without ``renders`` every crop is painted by :mod:`vision.render.synth`; with them the physics
    renders train it, painted pits filling ``painted_share`` of every batch. From scratch, or
    on from the network saved in ``start_from``.
    """
    from vision.counting.deep import DeepCounter
    from vision.learning.deep_train import export, fit

    start = time.perf_counter()
    first = None
    if start_from is not None:
        try:
            saved = load_model_json(start_from, "python -m vision.learning.train --model deep")
            first = DeepCounter.from_json(saved).networks[0]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            print(f"cannot start from {start_from}: {exc}; give a file this command wrote")
            return 1
    extras: list[tuple[list[np.ndarray], list[int], float]] = []
    check_crops: list[np.ndarray] = []
    check_labels: list[int] = []
    if renders:
        made, made_labels = physics_renders(renders)
        if not made:
            print(
                f"no renders under {', '.join(map(str, renders))}: make them first with "
                "python -m vision.render.physics_piles DIR"
            )
            return 1
        check_crops = made[::CHECK_EVERY]
        check_labels = made_labels[::CHECK_EVERY]
        train = [i for i in range(len(made)) if i % CHECK_EVERY]
        if painted_share > 0:
            extras.append((*rendered_pits(samples, seed), painted_share))
        crops, labels = [made[i] for i in train], [made_labels[i] for i in train]
    else:
        crops, labels = rendered_pits(samples, seed)

    def show(step: int, total: int) -> None:
        if step % 50 == 0 or step == total:
            print(f"\rtraining {step}/{total}", end="", flush=True)

    module = fit(
        crops, labels, CLASSES, steps=steps, seed=seed, start=first, extras=extras, progress=show
    )
    print()
    network = export(module, WIDTH)
    if not check_crops:
        check_crops, check_labels = rendered_pits(max(200, samples // 20), seed + 1)
    network.temperature = DeepCounter.fit_temperature(network, check_crops, check_labels)
    trained = len(crops) + sum(len(extra[0]) for extra in extras)
    return _save(
        DeepCounter([network], "synthetic"), check_crops, check_labels, out, start, trained
    )


def _save(
    counter: NetCounter | DeepCounter,
    check_crops: list[np.ndarray],
    check_labels: list[int],
    out: Path,
    start: float,
    samples: int,
) -> int:
    """Write a trained one-network counter and report its accuracy on other renders."""
    acc = float(np.mean(counter.beliefs(check_crops).argmax(axis=1) == np.asarray(check_labels)))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(counter.to_json(), separators=(",", ":")) + "\n", encoding="utf-8")
    print(
        f"trained on {samples} rendered crops in {time.perf_counter() - start:.0f} s; "
        f"rendered validation accuracy {acc:.3f}, "
        f"temperature {counter.networks[0].temperature:.2f}; wrote {out}"
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    """Render, train, calibrate the temperature on a separate rendered set, save."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=["mlp", "cnn", "deep"], default="mlp")
    parser.add_argument(
        "--samples", type=int, default=None, help="2400 (mlp), 4000 (cnn) or 24000 (deep)"
    )
    parser.add_argument(
        "--steps", type=int, default=None, help="training steps: 4000 (cnn) or 1500 (deep)"
    )
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--renders",
        type=Path,
        action="append",
        help="deep: train on physics renders in this folder (<count>/<k>.png); repeatable",
    )
    parser.add_argument(
        "--start",
        type=Path,
        default=None,
        help="deep: train on from this saved network instead of from scratch",
    )
    parser.add_argument(
        "--painted-share",
        type=float,
        default=0.3,
        help="deep with --renders: the share of every batch drawn from painted pits",
    )
    args = parser.parse_args(argv)
    if args.start is not None and args.model != "deep":
        parser.error("--start trains on a deep network: add --model deep")
    if args.model == "cnn":
        from vision.counting.cnn import NetCounter

        out = args.out or NetCounter.model_path()
        return train_cnn(args.samples or 4000, args.steps or 4000, out, args.seed)
    if args.model == "deep":
        from vision.counting.deep import DeepCounter

        steps = args.steps or 1500
        out = args.out or DeepCounter.model_path()
        return train_deep(
            args.samples or 24000,
            steps,
            out,
            args.seed,
            args.renders,
            args.painted_share,
            args.start,
        )
    args.samples = args.samples or 2400
    args.out = args.out or MODEL_PATH
    start = time.perf_counter()
    x, y = synthetic_set(args.samples, args.seed)
    xv, yv = synthetic_set(max(200, args.samples // 6), args.seed + 1)
    model = MLP.fit(x, y, CLASSES, hidden=48, steps=800, l2=3e-3)
    model.temperature = fit_temperature(model, xv, yv)
    acc = float((model.predict_proba(xv).argmax(1) == yv).mean())
    args.out.parent.mkdir(parents=True, exist_ok=True)
    payload = Counter(model, "synthetic").to_json()
    args.out.write_text(json.dumps(payload, separators=(",", ":")) + "\n", encoding="utf-8")
    print(
        f"trained on {len(y)} rendered crops in {time.perf_counter() - start:.1f} s; "
        f"rendered validation accuracy {acc:.3f}, temperature {model.temperature:.2f}; "
        f"wrote {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
