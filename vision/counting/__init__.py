"""Counting seeds in a pit: every counter kind, and which one runs by default.

One entry of :data:`KINDS` per kind of counter (as pyserial names one module per URL
scheme). Each names the module that holds it, says in one line what it is, and knows how
to make one from a user's labelled pit photos (:attr:`CounterKind.calibrate`) and how to
read one back from a calibration file (:func:`counter_from_json`).

:data:`DEFAULT` is the kind ``calibrate`` makes when the user does not choose;
``docs/CAMERA.md`` names the same (a test checks it).

Each kind lives in ``vision/counting/<kind>.py``; what they share is in
:mod:`vision.counting.beliefs` (the belief shape and the :class:`PitCounter` interface),
:mod:`vision.counting.ensemble` (networks averaged, fine-tuned), and the networks and
features the learned kinds are made of (``deep_net``, ``cnn_net``, ``features``,
``model``).

To add a counter: write ``vision/counting/<kind>.py`` with a class that has
``beliefs(crops, pits) -> (n, 49) array`` and ``to_json()`` holding ``"kind": "<kind>"``,
add its :class:`CounterKind` here, and measure it with ``python -m bench.vision
--new-board DIR --counter <kind>``.

>>> sorted(KINDS) == sorted(["area", "head", "deep", "cnn", "mlp"])
True
>>> counter_kind(DEFAULT).name
'deep'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from vision.counting.beliefs import PitCounter
from vision.image_types import Image


@dataclass(frozen=True)
class CounterKind:
    """One kind of counter."""

    name: str
    module: str
    """Where it lives."""
    summary: str
    calibrate: Callable[[Sequence[Image], Sequence[int]], PitCounter]
    """A counter of this kind for a board, from its labelled pit photos (crops, counts)."""
    load: Callable[[dict[str, Any]], PitCounter]
    """The counter stored in a calibration file's JSON."""


def _area(crops: Sequence[Image], counts: Sequence[int]) -> PitCounter:
    from vision.counting.area import AreaCounter

    return AreaCounter.from_examples(crops, counts)


def _load_area(data: dict[str, Any]) -> PitCounter:
    from vision.counting.area import AreaCounter

    return AreaCounter.from_json(data)


def _head(crops: Sequence[Image], counts: Sequence[int]) -> PitCounter:
    from vision.counting.head import HeadCounter

    return HeadCounter.fit(crops, counts)


def _load_head(data: dict[str, Any]) -> PitCounter:
    from vision.counting.head import HeadCounter

    return HeadCounter.from_json(data)


def _deep(crops: Sequence[Image], counts: Sequence[int]) -> PitCounter:
    from vision.counting.deep import DeepCounter

    return DeepCounter.builtin().adapt(crops, counts)


def _load_deep(data: dict[str, Any]) -> PitCounter:
    from vision.counting.deep import DeepCounter

    return DeepCounter.from_json(data)


def _cnn(crops: Sequence[Image], counts: Sequence[int]) -> PitCounter:
    from vision.counting.cnn import NetCounter

    return NetCounter.builtin().adapt(crops, counts)


def _load_cnn(data: dict[str, Any]) -> PitCounter:
    from vision.counting.cnn import NetCounter

    return NetCounter.from_json(data)


def _mlp(crops: Sequence[Image], counts: Sequence[int]) -> PitCounter:
    from vision.counting.mlp import Counter

    return Counter.builtin().adapt(crops, counts)


def _load_mlp(data: dict[str, Any]) -> PitCounter:
    from vision.counting.mlp import Counter

    return Counter.from_json(data)


KINDS: dict[str, CounterKind] = {
    k.name: k
    for k in (
        CounterKind(
            "area",
            "vision.counting.area",
            "seed area against the same pit photographed empty (else a colour model)",
            _area,
            _load_area,
        ),
        CounterKind(
            "head",
            "vision.counting.head",
            "the rendered-trained deep network's features, a new head fitted in seconds",
            _head,
            _load_head,
        ),
        CounterKind(
            "deep",
            "vision.counting.deep",
            "seven-layer network fine-tuned with PyTorch on every calibration pit (minutes)",
            _deep,
            _load_deep,
        ),
        CounterKind(
            "cnn", "vision.counting.cnn", "small numpy networks, fine-tuned", _cnn, _load_cnn
        ),
        CounterKind(
            "mlp", "vision.counting.mlp", "hand-made features and a small MLP", _mlp, _load_mlp
        ),
    )
}
"""Every counter kind, by the name its calibration files and ``--counter`` options use."""

DEFAULT = "deep"
"""The kind ``calibrate`` makes unless told otherwise, from the empty board, the start
position and the spread layouts: on a board it never saw, twice as many pits right as
``head`` and four times as many as ``area`` (``docs/VISION.md``). Where PyTorch is missing
``calibrate`` makes ``head``, and with no layouts ``area``; ``docs/CAMERA.md`` names it."""


def counter_kind(name: str) -> CounterKind:
    """The kind called ``name``; a one-line error naming the known ones otherwise."""
    try:
        return KINDS[name]
    except KeyError:
        raise ValueError(f"no counter kind {name!r}: use one of {', '.join(KINDS)}") from None


def counter_from_json(data: dict[str, Any]) -> PitCounter:
    """Rebuild whichever counter a calibration file holds (older files without a kind
    hold the feature counter, ``mlp``)."""
    return counter_kind(str(data.get("kind", "mlp"))).load(data)
