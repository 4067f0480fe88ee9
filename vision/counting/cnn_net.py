"""A small convolutional network in plain numpy: pit image → probabilities over counts.

Why a network: hand-made features (:mod:`vision.counting.features`) summarise a pit
by colour and edge histograms, and those histograms cannot tell six
touching seeds from seven. A few convolution layers learn what one seed
looks like on the user's board and count the shapes (figures:
``docs/VISION.md``, "The two networks").

Why numpy: the product must run with what it already depends on and train
on the user's machine during calibration, without downloading anything. The
network is small enough for that: about 25,000 weights (its speed:
``docs/VISION.md``, "The two networks").

Shape of the network (images are ``SIDE`` × ``SIDE``, channels last)::

    input  (colour relative to the wood around the pit, see :func:`prepare`)
    conv 3×3 → 16, ReLU, max-pool 2
    conv 3×3 → 32, ReLU, max-pool 2
    conv 3×3 → 48, ReLU
    mean and max over the pit disk   (counting: "how much seed" and "how sure")
    dense → classes, softmax / temperature

Every convolution is computed as nine shifted matrix products (one per
kernel tap), which keeps forward and backward passes short and readable and
lets BLAS do the work.

>>> net = Network.initial(classes=4, seed=0)
>>> x = np.zeros((2, SIDE, SIDE, 3), np.float32)
>>> net.predict_proba(x).shape
(2, 4)
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.counting.model import softmax
from vision.image_types import Image

Tensor = npt.NDArray[np.float32]

SIDE = 40
"""Crops are resized to SIDE × SIDE before the network sees them."""
CHANNELS = (16, 32, 48)
"""Output channels of the three convolutions."""
HIDDEN = 64
"""Width of the dense layer between the pooled features and the counts."""


def wood_ring(side: int) -> npt.NDArray[np.bool_]:
    """The corners of a side × side crop: bare wood around the pit (its colour is the reference)."""
    yy, xx = np.mgrid[0:side, 0:side].astype(np.float32)
    return np.asarray(np.hypot(xx - (side - 1) / 2, yy - (side - 1) / 2) / side > 0.49)


def relative_to_wood(img: Tensor, ring: npt.NDArray[np.bool_]) -> Tensor:
    """A BGR float image → colour relative to the median of its ``ring`` (the wood), / 48."""
    ref = np.median(img[ring], axis=0)
    return np.asarray((img - ref[None, None, :]) / 48.0, np.float32)


_RING = wood_ring(SIDE)


def prepare(crop: Image) -> Tensor:
    """One BGR crop → the network's input (see :func:`normalise`)."""
    img = cv2.resize(crop, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    return normalise(img.astype(np.float32))


def normalise(img: Tensor) -> Tensor:
    """A SIDE × SIDE BGR image → colour relative to the surrounding wood.

    Subtracting the median colour of the crop's corners (wood under the
    current light) and dividing by a fixed scale removes most of what the
    lighting and the wood's tint change, so the network learns seeds, not lamps.
    """
    return relative_to_wood(img, _RING)


def prepare_many(crops: Sequence[Image]) -> Tensor:
    """Inputs for many crops, stacked (n, SIDE, SIDE, 3)."""
    if not crops:
        return np.zeros((0, SIDE, SIDE, 3), np.float32)
    return np.stack([prepare(c) for c in crops])


def training_base(crop: Image) -> Image:
    """A crop at twice the network's size: what :func:`jitter` turns and shrinks."""
    return cv2.resize(crop, (2 * SIDE, 2 * SIDE), interpolation=cv2.INTER_AREA)


def jitter(base: Image, rng: np.random.Generator) -> Tensor:
    """A randomly rotated, mirrored, shifted, rescaled, relit copy of a crop, as input.

    ``base`` comes from :func:`training_base`. The count of a round pit does
    not change under any of these, so each labelled crop stands for many.
    Rotation is by any angle (the pit is round); the border is filled by
    reflection, which keeps wood at the corners.
    """
    size = base.shape[0]
    angle = float(rng.uniform(0, 360))
    scale = float(rng.uniform(0.9, 1.1))
    m = cv2.getRotationMatrix2D((size / 2, size / 2), angle, scale)
    m[:, 2] += rng.uniform(-0.04, 0.04, 2) * size
    out = cv2.warpAffine(
        base, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    if rng.random() < 0.5:
        out = out[:, ::-1]
    img = cv2.resize(out, (SIDE, SIDE), interpolation=cv2.INTER_AREA).astype(np.float32)
    # Light: overall gain, a colour cast, a little contrast change, blur, sensor noise.
    img *= (rng.uniform(0.75, 1.25) * rng.uniform(0.9, 1.1, 3)).astype(np.float32)
    mean = img.mean(axis=(0, 1), keepdims=True)
    img = mean + (img - mean) * np.float32(rng.uniform(0.8, 1.2))
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.4, 0.9)))
    img += rng.normal(0, rng.uniform(0, 4), img.shape).astype(np.float32)
    return normalise(np.clip(img, 0, 255))


def _columns(x: Tensor) -> Tensor:
    """im2col for a 'same' 3 × 3 convolution: (n, h, w, c) → (n·h·w, 9·c)."""
    n, h, w, c = x.shape
    p = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    taps = [p[:, dy : dy + h, dx : dx + w, :] for dy in range(3) for dx in range(3)]
    return np.concatenate(taps, axis=3).reshape(n * h * w, 9 * c)


SHIFTED_FROM = 8
"""Input channels from which :func:`conv_same` sums shifted products instead of im2col."""


def conv_same(x: Tensor, w: Tensor, b: Tensor) -> Tensor:
    """:func:`_conv` for counting only (no columns kept for a gradient), faster.

    im2col copies nine taps of ``c`` floats for every pixel, and with 16 to 64 channels
    that copy, not the product, took most of the time. Here the padded image is laid out
    flat, row after row: each tap is then one contiguous slice of it, multiplied in
    place, and the nine products are summed. The output is computed on the padded
    width and its two extra columns dropped. With three input channels the products are
    too thin for the matrix routine, and im2col stays.

    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=(2, 6, 5, 8)).astype(np.float32)
    >>> w = rng.normal(size=(3, 3, 8, 4)).astype(np.float32)
    >>> b = rng.normal(size=4).astype(np.float32)
    >>> bool(np.allclose(conv_same(x, w, b), _conv(x, w, b)[0], atol=1e-4))
    True
    """
    n, h, wd, c = x.shape
    if c < SHIFTED_FROM:
        return _conv(x, w, b)[0]
    width = wd + 2
    # One spare row below: the last taps of the last row read two floats past it.
    padded = np.zeros((n, h + 3, width, c), np.float32)
    padded[:, 1 : h + 1, 1 : wd + 1, :] = x
    flat = padded.reshape(n, (h + 3) * width, c)
    length = h * width
    out: Tensor = np.matmul(flat[:, :length, :], w[0, 0])
    for k in range(1, 9):
        dy, dx = divmod(k, 3)
        off = dy * width + dx
        out += np.matmul(flat[:, off : off + length, :], w[dy, dx])
    out += b
    return out.reshape(n, h, width, w.shape[3])[:, :, :wd, :]


def _conv(x: Tensor, w: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """'Same' 3×3 convolution, x (n, h, w, c) and w (3, 3, c, k) → (n, h, w, k), and the columns."""
    n, h, wd, _c = x.shape
    cols = _columns(x)
    out = cols @ w.reshape(-1, w.shape[3]) + b
    return out.reshape(n, h, wd, w.shape[3]), cols


def _conv_back(
    shape: tuple[int, ...], cols: Tensor, w: Tensor, g: Tensor, need_dx: bool
) -> tuple[Tensor | None, Tensor]:
    """Gradients of :func:`_conv` with respect to its input (of ``shape``) and its weights."""
    n, h, wd, c = shape
    g2 = g.reshape(-1, g.shape[3])
    gw = (cols.T @ g2).reshape(w.shape)
    if not need_dx:
        return None, gw
    gcols = (g2 @ w.reshape(-1, w.shape[3]).T).reshape(n, h, wd, 9, c)
    gp = np.zeros((n, h + 2, wd + 2, c), gcols.dtype)
    for k in range(9):
        dy, dx = divmod(k, 3)
        gp[:, dy : dy + h, dx : dx + wd, :] += gcols[:, :, :, k, :]
    return gp[:, 1:-1, 1:-1, :], gw


def _pool(x: Tensor) -> tuple[Tensor, Tensor]:
    """2 × 2 max-pool; also returns where each maximum came from (for the gradient)."""
    n, h, w, c = x.shape
    blocks = x.reshape(n, h // 2, 2, w // 2, 2, c)
    out = blocks.max(axis=(2, 4))
    mask = blocks == out[:, :, None, :, None, :]
    return out, mask


def _pool_back(g: Tensor, mask: Tensor) -> Tensor:
    """Gradient of :func:`_pool` (ties share it, which is harmless)."""
    n, h2, _, w2, _, c = mask.shape
    return (mask * g[:, :, None, :, None, :]).reshape(n, h2 * 2, w2 * 2, c)


def _disk(size: int) -> Tensor:
    """Weights of the pit disk at a feature-map size (what the pooled features average over)."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    r = np.sqrt((xx - (size - 1) / 2) ** 2 + (yy - (size - 1) / 2) ** 2) / size
    m = (r < 0.47).astype(np.float32)
    return np.asarray(m / m.sum(), np.float32)


_POOL_DISK = _disk(SIDE // 4)
"""The pit disk on the last feature map (SIDE / 4 after two pools)."""


@dataclass
class Network:
    """The weights of the counting network, and the softmax temperature."""

    params: dict[str, Tensor]
    temperature: float = 1.0
    """Logits are divided by this: > 1 widens over-confident beliefs."""

    @property
    def classes(self) -> int:
        """Number of counts the network tells apart (0 … classes - 1)."""
        return int(self.params["wd"].shape[1])

    @classmethod
    def initial(cls, classes: int, seed: int = 0) -> Network:
        """Random (He) initial weights."""
        rng = np.random.default_rng(seed)
        params: dict[str, Tensor] = {}
        cin = 3
        for i, cout in enumerate(CHANNELS, 1):
            std = np.sqrt(2.0 / (9 * cin))
            params[f"w{i}"] = rng.normal(0, std, (3, 3, cin, cout)).astype(np.float32)
            params[f"b{i}"] = np.zeros(cout, np.float32)
            cin = cout
        feat = 2 * CHANNELS[-1]
        params["wh"] = rng.normal(0, np.sqrt(2.0 / feat), (feat, HIDDEN)).astype(np.float32)
        params["bh"] = np.zeros(HIDDEN, np.float32)
        params["wd"] = rng.normal(0, np.sqrt(1.0 / HIDDEN), (HIDDEN, classes)).astype(np.float32)
        params["bd"] = np.zeros(classes, np.float32)
        return cls(params)

    def _forward(self, x: Tensor) -> tuple[Tensor, dict[str, Any]]:
        """Logits and what the backward pass needs."""
        p = self.params
        z1, c1 = _conv(x, p["w1"], p["b1"])
        a1 = np.maximum(z1, 0)
        q1, m1 = _pool(a1)
        z2, c2 = _conv(q1, p["w2"], p["b2"])
        a2 = np.maximum(z2, 0)
        q2, m2 = _pool(a2)
        z3, c3 = _conv(q2, p["w3"], p["b3"])
        a3 = np.maximum(z3, 0)
        disk = _POOL_DISK
        mean = np.einsum("nhwc,hw->nc", a3, disk)
        inside = np.where(disk[None, :, :, None] > 0, a3, 0)
        mx = inside.max(axis=(1, 2))
        feat = np.concatenate([mean, mx], axis=1)
        hid = np.maximum(feat @ p["wh"] + p["bh"], 0)
        logits = hid @ p["wd"] + p["bd"]
        cache = {"x": x, "a1": a1, "m1": m1, "q1": q1, "a2": a2, "m2": m2, "q2": q2}
        cache.update({"c1": c1, "c2": c2, "c3": c3})
        cache.update({"a3": a3, "inside": inside, "mx": mx, "feat": feat, "hid": hid})
        return logits, cache

    def _backward(self, g_logits: Tensor, cache: dict[str, Any]) -> dict[str, Tensor]:
        """Gradients of every parameter, given the gradient of the logits."""
        p = self.params
        grads: dict[str, Tensor] = {}
        grads["wd"] = cache["hid"].T @ g_logits
        grads["bd"] = g_logits.sum(axis=0)
        g_hid = (g_logits @ p["wd"].T) * (cache["hid"] > 0)
        grads["wh"] = cache["feat"].T @ g_hid
        grads["bh"] = g_hid.sum(axis=0)
        g_feat = g_hid @ p["wh"].T
        k = CHANNELS[-1]
        g_mean, g_max = g_feat[:, :k], g_feat[:, k:]
        g_a3 = g_mean[:, None, None, :] * _POOL_DISK[None, :, :, None]
        # Where each channel's maximum inside the disk was (outside the disk,
        # ``inside`` is 0 and must not catch the gradient of an all-zero channel).
        argmax = (cache["inside"] == cache["mx"][:, None, None, :]) & (
            _POOL_DISK[None, :, :, None] > 0
        )
        g_a3 = g_a3 + argmax * g_max[:, None, None, :]
        g_a3 = g_a3 * (cache["a3"] > 0)
        g_q2, grads["w3"] = _conv_back(cache["q2"].shape, cache["c3"], p["w3"], g_a3, True)
        grads["b3"] = g_a3.sum(axis=(0, 1, 2))
        assert g_q2 is not None
        g_a2 = _pool_back(g_q2, cache["m2"]) * (cache["a2"] > 0)
        g_q1, grads["w2"] = _conv_back(cache["q1"].shape, cache["c2"], p["w2"], g_a2, True)
        grads["b2"] = g_a2.sum(axis=(0, 1, 2))
        assert g_q1 is not None
        g_a1 = _pool_back(g_q1, cache["m1"]) * (cache["a1"] > 0)
        _, grads["w1"] = _conv_back(cache["x"].shape, cache["c1"], p["w1"], g_a1, False)
        grads["b1"] = g_a1.sum(axis=(0, 1, 2))
        return grads

    def logits(self, x: Tensor, batch: int = 256) -> npt.NDArray[np.float64]:
        """Raw scores for prepared inputs (n, SIDE, SIDE, 3), before the temperature."""
        out = [self._forward(x[i : i + batch])[0] for i in range(0, len(x), batch)]
        if not out:
            return np.zeros((0, self.classes))
        return np.concatenate(out).astype(np.float64)

    def predict_proba(self, x: Tensor) -> npt.NDArray[np.float64]:
        """Probabilities (n, classes) for prepared inputs."""
        return softmax(self.logits(x) / self.temperature)

    def train(
        self,
        crops: Sequence[Image],
        counts: Sequence[int],
        steps: int = 3000,
        batch: int = 32,
        lr: float = 2e-3,
        weight_decay: float = 1e-4,
        seed: int = 0,
        progress: Callable[[int, int], None] | None = None,
    ) -> Network:
        """Train in place on labelled crops (each step sees freshly jittered copies).

        Adam with a cosine-decaying learning rate; classes are balanced by
        sampling (rare counts are drawn as often as common ones), so a board
        photographed mostly at 4 seeds still learns 0 and 9.
        """
        ys = np.asarray(counts, np.int64)
        if len(crops) != len(ys) or not len(ys):
            raise ValueError("need as many counts as crops, and at least one")
        if int(ys.max()) >= self.classes:
            raise ValueError(
                f"count {int(ys.max())} is beyond the network's {self.classes} classes"
            )
        rng = np.random.default_rng(seed)
        bases = [training_base(c) for c in crops]
        present = np.unique(ys)
        by_class = {int(c): np.flatnonzero(ys == c) for c in present}
        m = {k: np.zeros_like(v) for k, v in self.params.items()}
        v = {k: np.zeros_like(val) for k, val in self.params.items()}
        for step in range(1, steps + 1):
            classes = rng.choice(present, batch)
            idx = np.array([rng.choice(by_class[int(c)]) for c in classes])
            x = np.stack([jitter(bases[i], rng) for i in idx])
            logits, cache = self._forward(x)
            prob = softmax(logits.astype(np.float64))
            prob[np.arange(batch), ys[idx]] -= 1.0
            grads = self._backward((prob / batch).astype(np.float32), cache)
            rate = lr * 0.5 * (1 + np.cos(np.pi * step / steps))
            for key, g in grads.items():
                m[key] = 0.9 * m[key] + 0.1 * g
                v[key] = 0.999 * v[key] + 0.001 * g * g
                mh = m[key] / (1 - 0.9**step)
                vh = v[key] / (1 - 0.999**step)
                update = mh / (np.sqrt(vh) + 1e-8)
                if key.startswith("w"):
                    update = update + weight_decay * self.params[key] / lr
                self.params[key] = (self.params[key] - rate * update).astype(np.float32)
            if progress is not None:
                progress(step, steps)
        return self

    def to_json(self) -> dict[str, Any]:
        """JSON-ready weights (exact float32, base64)."""
        return {
            "kind": "cnn",
            "side": SIDE,
            "channels": list(CHANNELS),
            "temperature": self.temperature,
            "params": {k: _encode(v) for k, v in self.params.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Network:
        """Inverse of :meth:`to_json`; refuses weights made for another shape."""
        if data.get("kind") != "cnn":
            raise ValueError("not a CNN counter model")
        if data.get("side") != SIDE or list(data.get("channels", [])) != list(CHANNELS):
            raise ValueError("this CNN was trained for another input size or layer widths")
        params = {k: _decode(v) for k, v in data["params"].items()}
        return cls(params, float(data.get("temperature", 1.0)))


def _encode(a: Tensor) -> dict[str, Any]:
    """An array as its shape and base64 little-endian float32 bytes (exact, a third of text)."""
    raw = np.ascontiguousarray(a, "<f4").tobytes()
    return {"shape": list(a.shape), "f32": base64.b64encode(raw).decode("ascii")}


def _decode(data: dict[str, Any]) -> Tensor:
    """Inverse of :func:`_encode`."""
    flat = np.frombuffer(base64.b64decode(data["f32"]), "<f4").astype(np.float32)
    return flat.reshape(tuple(int(s) for s in data["shape"]))
