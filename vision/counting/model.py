"""A small classifier in plain numpy: features → probabilities over seed counts.

One hidden layer (tanh) and a softmax output, trained full-batch with Adam.
It is small on purpose: it trains in seconds on one core from a few hundred
examples, runs in microseconds per pit, and its weights are a few kilobytes
of JSON that fit inside a calibration file.

Adapting to the user's board (``fit(..., prior=base)``) starts from the base
model and pulls the weights toward it (an L2 penalty around the prior instead
of around zero), so that a dozen labelled images move the model only as far
as they have evidence for.

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> x = rng.normal(size=(200, 3)).astype(np.float32); y = (x[:, 0] > 0).astype(int)
>>> m = MLP.fit(x, y, classes=2, hidden=8, steps=300)
>>> float((m.predict_proba(x).argmax(1) == y).mean()) > 0.95
True
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]


@dataclass
class MLP:
    """Standardise → tanh hidden layer → softmax over ``classes`` counts."""

    mean: Array
    scale: Array
    w1: Array
    b1: Array
    w2: Array
    b2: Array
    temperature: float = 1.0
    """Logits are divided by this: > 1 widens over-confident beliefs."""

    @property
    def classes(self) -> int:
        """Number of counts the model tells apart (0 … classes-1)."""
        return int(self.w2.shape[1])

    def logits(self, x: npt.NDArray[np.floating[Any]]) -> Array:
        """Raw scores, before the temperature and the softmax."""
        z = (np.asarray(x, np.float64) - self.mean) / self.scale
        h = np.tanh(z @ self.w1 + self.b1)
        return np.asarray(h @ self.w2 + self.b2, np.float64)

    def predict_proba(self, x: npt.NDArray[np.floating[Any]]) -> Array:
        """Probabilities (n, classes)."""
        return softmax(self.logits(x) / self.temperature)

    @classmethod
    def fit(
        cls,
        x: npt.NDArray[np.floating[Any]],
        y: npt.NDArray[np.integer[Any]],
        classes: int,
        hidden: int = 32,
        steps: int = 600,
        l2: float = 1e-3,
        lr: float = 0.02,
        prior: MLP | None = None,
        sample_weight: npt.NDArray[np.floating[Any]] | None = None,
        seed: int = 0,
    ) -> MLP:
        """Train on features ``x`` and counts ``y`` (cross-entropy + L2).

        With ``prior`` the model starts from the prior's weights and the L2
        penalty pulls toward them; the prior's standardisation is kept so the
        weights stay comparable.
        """
        xs = np.asarray(x, np.float64)
        ys = np.asarray(y, np.int64)
        n, d = xs.shape
        sw = np.ones(n) if sample_weight is None else np.asarray(sample_weight, np.float64)
        sw = sw / sw.sum()
        if prior is not None:
            mean, scale = prior.mean.copy(), prior.scale.copy()
            params = [p.copy() for p in (prior.w1, prior.b1, prior.w2, prior.b2)]
            if params[2].shape[1] < classes:  # widen the output for new, higher counts
                extra = classes - params[2].shape[1]
                params[2] = np.concatenate([params[2], np.zeros((hidden_of(prior), extra))], 1)
                params[3] = np.concatenate([params[3], np.full(extra, params[3].min() - 2)])
            centre = [p.copy() for p in params]
        else:
            mean = xs.mean(axis=0)
            scale = xs.std(axis=0) + 1e-3
            rng = np.random.default_rng(seed)
            params = [
                rng.normal(0, 1 / np.sqrt(d), (d, hidden)),
                np.zeros(hidden),
                rng.normal(0, 1 / np.sqrt(hidden), (hidden, classes)),
                np.zeros(classes),
            ]
            centre = [np.zeros_like(p) for p in params]
        z = (xs - mean) / scale
        onehot = np.zeros((n, classes))
        onehot[np.arange(n), ys] = 1.0
        m = [np.zeros_like(p) for p in params]
        v = [np.zeros_like(p) for p in params]
        for step in range(1, steps + 1):
            w1, b1, w2, b2 = params
            h = np.tanh(z @ w1 + b1)
            p = softmax(h @ w2 + b2)
            g_out = (p - onehot) * sw[:, None]
            g_w2 = h.T @ g_out
            g_b2 = g_out.sum(0)
            g_h = (g_out @ w2.T) * (1 - h * h)
            g_w1 = z.T @ g_h
            g_b1 = g_h.sum(0)
            grads = [g_w1, g_b1, g_w2, g_b2]
            for k in range(4):
                if k in (0, 2):
                    grads[k] = grads[k] + l2 * (params[k] - centre[k])
                m[k] = 0.9 * m[k] + 0.1 * grads[k]
                v[k] = 0.999 * v[k] + 0.001 * grads[k] ** 2
                mh = m[k] / (1 - 0.9**step)
                vh = v[k] / (1 - 0.999**step)
                params[k] = params[k] - lr * mh / (np.sqrt(vh) + 1e-8)
        w1, b1, w2, b2 = params
        return cls(mean, scale, w1, b1, w2, b2)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready parameters (lists of floats)."""
        return {
            "kind": "mlp",
            "mean": _rounded(self.mean),
            "scale": _rounded(self.scale),
            "w1": _rounded(self.w1),
            "b1": _rounded(self.b1),
            "w2": _rounded(self.w2),
            "b2": _rounded(self.b2),
            "temperature": self.temperature,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MLP:
        """Inverse of :meth:`to_json`."""
        if data.get("kind") != "mlp":
            raise ValueError("not an MLP counter model")
        mean, scale, w1, b1, w2, b2 = (
            np.asarray(data[k], np.float64) for k in ("mean", "scale", "w1", "b1", "w2", "b2")
        )
        return cls(
            mean,
            scale,
            w1,
            b1,
            w2,
            b2,
            temperature=float(data.get("temperature", 1.0)),
        )


def _rounded(a: Array) -> Any:
    """Nested lists of floats with 6 significant digits (half the JSON, same predictions)."""
    return np.vectorize(lambda v: float(f"{v:.6g}"), otypes=[float])(a).tolist()


def hidden_of(model: MLP) -> int:
    """Width of the hidden layer."""
    return int(model.w1.shape[1])


def softmax(logits: Array) -> Array:
    """Row-wise softmax, numerically stable."""
    z = logits - logits.max(axis=1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=1, keepdims=True), np.float64)


def fit_temperature(
    model: MLP, x: npt.NDArray[np.floating[Any]], y: npt.NDArray[np.integer[Any]]
) -> float:
    """The temperature that maximises the likelihood of held-back examples (grid search)."""
    return best_temperature(model.logits(x), y)


def best_temperature(
    logits: Array,
    y: npt.NDArray[np.integer[Any]] | list[int],
    to_beliefs: Callable[[Array], Array] | None = None,
) -> float:
    """The temperature in 0.5 … 8 under which ``logits`` explain the counts ``y`` best.

    ``to_beliefs`` turns the softmax into what the counter finally reports
    (e.g. :func:`vision.counting.mlp.shape_beliefs`), so the fit is of those beliefs.
    """
    ys = np.asarray(y, np.int64)
    best_t, best_ll = 1.0, -np.inf
    for t in np.exp(np.linspace(np.log(0.5), np.log(8.0), 40)):
        p = softmax(logits / t)
        if to_beliefs is not None:
            p = to_beliefs(p)
        ll = float(np.mean(np.log(p[np.arange(len(ys)), np.minimum(ys, p.shape[1] - 1)] + 1e-12)))
        if ll > best_ll:
            best_t, best_ll = float(t), ll
    return best_t


def load_model_json(path: Path, make: str) -> dict[str, Any]:
    """A committed model file's JSON; if missing, name the command (``make``) that writes it."""
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `{make}` to make it")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
