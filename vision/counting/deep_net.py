"""The deeper counting network, run in plain numpy (its training is in
:mod:`vision.learning.deep_train`).

Why a second network: the small network of :mod:`vision.counting.cnn_net` trains in
numpy on the user's machine, but three convolutions are not enough to count
piles of four to eight seeds that touch and hide each other. This one has
seven convolutions with batch normalisation and counts such piles right more
often (figures: ``docs/VISION.md``, "The two networks"). Training it needs
PyTorch (the ``learn`` extra); *running* it needs only numpy and OpenCV, so a
calibration file made on one machine counts on any other.

Shape (images are ``SIDE`` × ``SIDE``, channels last; ``w`` is the width)::

    input  (colour relative to the wood around the pit, as in vision.counting.cnn_net)
    conv w, conv w,        max-pool 2
    conv 2w, conv 2w,      max-pool 2
    conv 4w, conv 4w,      max-pool 2
    conv 4w
    mean and max over the whole map → dense → classes, softmax / temperature

Each convolution is 3 × 3 "same", followed by batch normalisation and ReLU;
the normalisation is folded into the convolution's weights and bias when a
network is loaded, so the forward pass here is conv + ReLU only.

>>> net = DeepNetwork.initial(classes=4, width=4, seed=0)
>>> net.predict_proba(prepare_deep([np.zeros((60, 60, 3), np.uint8)])).shape
(1, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.counting.cnn_net import _decode, _encode, conv_same, relative_to_wood, wood_ring
from vision.counting.model import softmax
from vision.image_types import Image

Tensor = npt.NDArray[np.float32]

SIDE = 48
"""Crops are resized to SIDE × SIDE before the network sees them."""
LAYERS = (1, 1, 0, 2, 2, 0, 4, 4, 0, 4)
"""The layer sequence: a number is a convolution of that many times the width, 0 a max-pool."""
WIDTH = 16
"""Channels of the first convolutions (the default width)."""

_RING = wood_ring(SIDE)


def normalise_deep(img: Tensor) -> Tensor:
    """A SIDE × SIDE BGR float image → colour relative to the wood at its corners (/ 48)."""
    return relative_to_wood(img, _RING)


def prepare_deep(crops: Sequence[Image]) -> Tensor:
    """The network's inputs for pit crops, stacked (n, SIDE, SIDE, 3)."""
    if not crops:
        return np.zeros((0, SIDE, SIDE, 3), np.float32)
    out = []
    for crop in crops:
        img = cv2.resize(crop, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
        out.append(normalise_deep(img.astype(np.float32)))
    return np.stack(out)


BN_EPS = 1e-5
"""The batch normalisation's epsilon (PyTorch's default)."""


@dataclass
class ConvLayer:
    """One 3 × 3 convolution and the batch normalisation after it, as trained."""

    weight: Tensor
    """(3, 3, in, out), no bias (the normalisation's shift replaces it)."""
    gamma: Tensor
    beta: Tensor
    mean: Tensor
    """Running mean of the convolution's output, per channel."""
    var: Tensor
    """Running variance of the convolution's output, per channel."""

    def folded(self) -> tuple[Tensor, Tensor]:
        """Weight and bias of one convolution doing both (what inference runs)."""
        scale = self.gamma / np.sqrt(self.var + BN_EPS)
        w = self.weight * scale[None, None, None, :]
        return np.asarray(w, np.float32), np.asarray(self.beta - self.mean * scale, np.float32)


@dataclass
class DeepNetwork:
    """Weights of the deeper network and its softmax temperature.

    The batch normalisations are kept as trained (so :mod:`vision.learning.deep_train`
    can fine-tune a stored network exactly) and folded into the convolutions
    for the forward pass.
    """

    convs: list[ConvLayer]
    head: tuple[Tensor, Tensor]
    """Dense layer: weight (2 · last channels, classes), bias (classes,)."""
    width: int = WIDTH
    temperature: float = 1.0
    """Logits are divided by this: > 1 widens over-confident beliefs."""
    _folded: list[tuple[Tensor, Tensor]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        expected = [m * self.width for m in LAYERS if m]
        got = [int(c.weight.shape[3]) for c in self.convs]
        if got != expected:
            raise ValueError(f"convolution widths {got} do not match the layout {expected}")
        self._folded = [c.folded() for c in self.convs]

    @property
    def classes(self) -> int:
        """Counts the network tells apart (0 … classes - 1; the last means "or more")."""
        return int(self.head[0].shape[1])

    @classmethod
    def initial(cls, classes: int, width: int = WIDTH, seed: int = 0) -> DeepNetwork:
        """Random weights (for tests and shapes; real weights come from training)."""
        rng = np.random.default_rng(seed)
        convs = []
        cin = 3
        for m in LAYERS:
            if m:
                cout = m * width
                w = rng.normal(0, np.sqrt(2.0 / (9 * cin)), (3, 3, cin, cout)).astype(np.float32)
                ones, zeros = np.ones(cout, np.float32), np.zeros(cout, np.float32)
                convs.append(ConvLayer(w, ones, zeros.copy(), zeros.copy(), ones.copy()))
                cin = cout
        wd = rng.normal(0, np.sqrt(1.0 / (2 * cin)), (2 * cin, classes)).astype(np.float32)
        return cls(convs, (wd, np.zeros(classes, np.float32)), width)

    def logits(self, x: Tensor, batch: int = 128) -> npt.NDArray[np.float64]:
        """Raw scores for prepared inputs (n, SIDE, SIDE, 3), before the temperature."""
        out = [self._forward(x[i : i + batch]) for i in range(0, len(x), batch)]
        if not out:
            return np.zeros((0, self.classes))
        return np.concatenate(out).astype(np.float64)

    def predict_proba(self, x: Tensor) -> npt.NDArray[np.float64]:
        """Probabilities (n, classes) for prepared inputs."""
        return softmax(self.logits(x) / self.temperature)

    def features(self, x: Tensor, batch: int = 128) -> Tensor:
        """The pooled features the dense head reads (n, 2 · last channels), for new heads."""
        out = [self._features(x[i : i + batch]) for i in range(0, len(x), batch)]
        return np.concatenate(out) if out else np.zeros((0, self.head[0].shape[0]), np.float32)

    def _forward(self, x: Tensor) -> Tensor:
        feat = self._features(x)
        return np.asarray(feat @ self.head[0] + self.head[1], np.float32)

    def _features(self, x: Tensor) -> Tensor:
        a = x
        convs = iter(self._folded)
        for m in LAYERS:
            if m:
                w, b = next(convs)
                a = conv_same(a, w, b)
                np.maximum(a, 0, out=a)
            else:
                n, h, wd, c = a.shape  # 2 × 2 max-pool (no mask: nothing flows back)
                a = a.reshape(n, h // 2, 2, wd // 2, 2, c).max(axis=(2, 4))
        return np.concatenate([a.mean(axis=(1, 2)), a.max(axis=(1, 2))], axis=1)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready weights (exact float32, base64)."""
        return {
            "kind": "deep",
            "side": SIDE,
            "layers": list(LAYERS),
            "width": self.width,
            "temperature": self.temperature,
            "convs": [
                {k: _encode(getattr(c, k)) for k in ("weight", "gamma", "beta", "mean", "var")}
                for c in self.convs
            ],
            "head": [_encode(self.head[0]), _encode(self.head[1])],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DeepNetwork:
        """Inverse of :meth:`to_json`; refuses weights made for another input size or layout."""
        if data.get("kind") != "deep":
            raise ValueError("not a deep counting network")
        if data.get("side") != SIDE or list(data.get("layers", [])) != list(LAYERS):
            raise ValueError("this network was trained for another input size or layout")
        convs = [ConvLayer(**{k: _decode(v) for k, v in c.items()}) for c in data["convs"]]
        head = (_decode(data["head"][0]), _decode(data["head"][1]))
        return cls(convs, head, int(data["width"]), float(data.get("temperature", 1.0)))
