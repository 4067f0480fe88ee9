"""Train the built-in seed counter from rendered pits only.

    python -m vision.train [--samples 2400] [--out vision/models/counter_synth.json]

(about a minute on one core; the committed model was made with the defaults).

Every training image comes from :mod:`vision.synth` (seeded, so the result is
reproducible); no photograph is used. The model is small JSON and may be
committed because the repository made all of its data. On a real board the
calibration step (:meth:`vision.counter.Counter.adapt`) then adapts it to
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

import numpy as np

from vision.counter import MODEL_PATH, Counter, augment
from vision.features import features_of
from vision.model import MLP, fit_temperature
from vision.synth import random_style, render_pit

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


def main(argv: list[str] | None = None) -> int:
    """Render, train, calibrate the temperature on a separate rendered set, save."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=2400)
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
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
