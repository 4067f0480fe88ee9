"""Training the deeper counting network (:mod:`vision.counting.deep_net`) with PyTorch.

PyTorch is an optional extra (``pip install 'oware-companion[learn]'``):
only training needs it. The trained network is exported to plain numpy
weights, batch normalisation folded into the convolutions, and stored in the
calibration file like any other counter.

What a training run does, and why:

* **Every labelled crop is seen many times, changed.** Each batch draws
  crops and turns them by any angle (a pit is round), mirrors, shifts and
  rescales them a little, changes the light's strength, colour and
  contrast, blurs and adds sensor noise; the count never changes under any
  of these.
* **Counts the user's crops lack are rehearsed** from rendered pits
  (:func:`vision.counting.ensemble.rehearsal_pits`), so the top classes ("ten or
  more") still mean something on a board photographed only up to nine.
* **Taller piles are pasted** from the user's own seeds
  (:mod:`vision.learning.seed_paste`): seeds cut from crops of one seed, laid onto
  other crops, make piles of the user's board that nobody photographed.
* **One fifth is held back** (by position, :mod:`vision.counting.ensemble`) to fit
  the softmax temperature, so reported confidence matches how often the
  network is right. Members of an ensemble hold back different fifths.

Variants tried and not adopted (larger crops, training on every crop,
drawing every count equally often, a head that adds up a map of seed
density), and the figures of the adopted training, with the command that
measured them, are in ``docs/VISION.md``, "Training the deep network".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.counting.deep_net import (
    LAYERS,
    SIDE,
    WIDTH,
    ConvLayer,
    DeepNetwork,
    normalise_deep,
    prepare_deep,
)
from vision.image_types import Image

Progress = Callable[[int, int], None]
Pool = tuple[Sequence[Image], Sequence[int], float]
"""Further training examples: (crops, counts, the share of every batch drawn from them)."""

STEPS = 1500
"""Batches per network: about two and a half minutes on two cores."""
BATCH = 64
PEAK_LR = 3e-3
"""Peak of the one-cycle learning-rate schedule (AdamW)."""
WEIGHT_DECAY = 5e-4
LABEL_SMOOTHING = 0.05
"""A little belief on every other count while training: softer, better-calibrated outputs."""

INSTALL_HINT = "training the deep counter needs PyTorch: pip install 'oware-companion[learn]'"


def torch_available() -> bool:
    """Whether PyTorch can be imported (the ``learn`` extra is installed)."""
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


def _torch() -> Any:
    try:
        import torch
    except ImportError as exc:
        raise RuntimeError(INSTALL_HINT) from exc
    return torch


def jitter_deep(crop: Image, rng: np.random.Generator) -> npt.NDArray[np.float32]:
    """A randomly turned, mirrored, shifted, rescaled, relit copy of a crop, as input."""
    h, w = crop.shape[:2]
    scale = float(rng.uniform(0.9, 1.12)) * SIDE / max(h, w)
    centre = (w / 2 + float(rng.uniform(-3, 3)), h / 2 + float(rng.uniform(-3, 3)))
    m = cv2.getRotationMatrix2D(centre, float(rng.uniform(0, 360)), scale)
    # Move the (shifted) crop centre to the output centre.
    m[0, 2] += SIDE / 2 - w / 2
    m[1, 2] += SIDE / 2 - h / 2
    img = cv2.warpAffine(
        crop, m, (SIDE, SIDE), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REFLECT
    ).astype(np.float32)
    if rng.random() < 0.5:
        img = img[:, ::-1]
    img = img * (rng.uniform(0.85, 1.15, 3) * rng.uniform(0.8, 1.2)).astype(np.float32)
    mean = img.mean()
    img = (img - mean) * np.float32(rng.uniform(0.8, 1.2)) + mean
    if rng.random() < 0.3:
        img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.3, 1.2)))
    img = img + rng.normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
    return normalise_deep(np.clip(img, 0, 255).astype(np.float32))


def _module(classes: int, width: int) -> Any:
    """The PyTorch twin of :class:`DeepNetwork` (with batch normalisation)."""
    torch = _torch()
    nn = torch.nn

    class Twin(nn.Module):  # type: ignore[misc, name-defined]
        def __init__(self) -> None:
            super().__init__()
            parts: list[Any] = []
            cin = 3
            for m in LAYERS:
                if m:
                    cout = m * width
                    parts += [
                        nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                        nn.BatchNorm2d(cout),
                        nn.ReLU(),
                    ]
                    cin = cout
                else:
                    parts.append(nn.MaxPool2d(2))
            self.body = nn.Sequential(*parts)
            self.head = nn.Linear(2 * cin, classes)

        def forward(self, x: Any) -> Any:
            z = self.body(x)
            return self.head(torch.cat([z.mean((2, 3)), z.amax((2, 3))], 1))

    return Twin()


def _conv_pairs(module: Any) -> list[tuple[Any, Any]]:
    """The twin's (convolution, batch normalisation after it) pairs, in order."""
    layers = list(module.body)
    return [
        (layer, layers[i + 1])
        for i, layer in enumerate(layers)
        if layer.__class__.__name__ == "Conv2d"
    ]


def export(module: Any, width: int) -> DeepNetwork:
    """The numpy network of a trained twin (normalisations kept as trained)."""
    convs: list[ConvLayer] = []
    for layer, bn in _conv_pairs(module):
        weight = (
            layer.weight.detach().numpy().transpose(2, 3, 1, 0)
        )  # (out, in, 3, 3) → (3, 3, in, out)
        convs.append(
            ConvLayer(
                np.ascontiguousarray(weight, np.float32),
                *(
                    np.array(t.detach().numpy(), np.float32)
                    for t in (bn.weight, bn.bias, bn.running_mean, bn.running_var)
                ),
            )
        )
    head_w = np.ascontiguousarray(module.head.weight.detach().numpy().T, np.float32)
    head_b = np.array(module.head.bias.detach().numpy(), np.float32)
    return DeepNetwork(convs, (head_w, head_b), width)


def load_into(module: Any, network: DeepNetwork) -> None:
    """Copy a stored network's weights into a fresh twin (to fine-tune it)."""
    torch = _torch()
    with torch.no_grad():
        for (layer, bn), c in zip(_conv_pairs(module), network.convs, strict=True):
            layer.weight.copy_(torch.from_numpy(c.weight.transpose(3, 2, 0, 1).copy()))
            for t, a in (
                (bn.weight, c.gamma),
                (bn.bias, c.beta),
                (bn.running_mean, c.mean),
                (bn.running_var, c.var),
            ):
                t.copy_(torch.from_numpy(a))
        module.head.weight.copy_(torch.from_numpy(network.head[0].T.copy()))
        module.head.bias.copy_(torch.from_numpy(network.head[1]))


def fit(
    crops: Sequence[Image],
    counts: Sequence[int],
    classes: int,
    steps: int = STEPS,
    seed: int = 0,
    start: DeepNetwork | None = None,
    peak_lr: float = PEAK_LR,
    extras: Sequence[Pool] = (),
    progress: Progress | None = None,
) -> Any:
    """A trained PyTorch twin: from scratch, or fine-tuned from ``start``.

    Each of ``extras`` is (crops, counts, share): further examples (rendered
    rehearsal pits, pasted piles) drawn for that share of every batch; the
    labelled ``crops`` fill the rest.
    """
    torch = _torch()
    if not len(crops):
        raise ValueError("need as many counts as crops, and at least one")
    if steps < 1:
        raise ValueError("training needs at least one step")
    pools: list[tuple[list[Image], npt.NDArray[np.int64]]] = []
    shares: list[float] = []
    for pool_crops, pool_counts, share in ((crops, counts, 0.0), *extras):
        ys = np.asarray(pool_counts, np.int64)
        if len(pool_crops) != len(ys):
            raise ValueError("need as many counts as crops in every pool")
        if len(ys) and (int(ys.min()) < 0 or int(ys.max()) >= classes):
            raise ValueError(f"counts must lie in 0 … {classes - 1}")
        if not pools or (len(ys) and share > 0):
            pools.append((list(pool_crops), ys))
            shares.append(float(share))
    shares[0] = 1.0 - sum(shares[1:])  # the labelled crops fill the rest of every batch
    if shares[0] <= 0:
        raise ValueError("the extra pools leave no room in a batch for the labelled crops")
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    width = start.width if start is not None else WIDTH
    module = _module(classes, width)
    if start is not None:
        if start.classes != classes:
            raise ValueError("the starting network tells apart another number of counts")
        load_into(module, start)
    # A GPU, where there is one, trains the same network tens of times faster; the crops
    # are still turned and relit on the processor.
    device = "cuda" if torch.cuda.is_available() else "cpu"
    module.to(device)
    opt = torch.optim.AdamW(module.parameters(), peak_lr, weight_decay=WEIGHT_DECAY)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, peak_lr, total_steps=steps)
    loss_of = torch.nn.CrossEntropyLoss(label_smoothing=LABEL_SMOOTHING)
    module.train()
    for step in range(1, steps + 1):
        # Each place in the batch picks its pool by the shares, then a crop of that pool.
        chosen = rng.choice(len(pools), BATCH, p=np.asarray(shares))
        picks = [(int(w), int(rng.integers(len(pools[w][0])))) for w in chosen]
        x = np.stack([jitter_deep(pools[w][0][i], rng) for w, i in picks]).transpose(0, 3, 1, 2)
        targets = np.asarray([pools[w][1][i] for w, i in picks], np.int64)
        logits = module(torch.from_numpy(np.ascontiguousarray(x)).to(device))
        loss = loss_of(logits, torch.from_numpy(targets).to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if progress is not None:
            progress(step, steps)
    module.eval()
    return module.cpu()


def twin_logits(module: Any, crops: Sequence[Image]) -> npt.NDArray[np.float64]:
    """The PyTorch twin's logits for crops (to check an export against)."""
    torch = _torch()
    x = prepare_deep(crops)
    with torch.no_grad():
        out = module(torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2))))
    return np.asarray(out.numpy(), np.float64)
