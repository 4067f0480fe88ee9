"""What the two learned counters share: an ensemble of networks behind the counter interface.

:class:`vision.counting.cnn.NetCounter` (the small numpy network) and
:class:`vision.counting.deep.DeepCounter` (the deeper one, trained with
PyTorch) differ only in their network: how a crop is prepared for it, how it
is fine-tuned and where its built-in weights live. Everything else is here:

* **Why several networks.** Fine-tuned on a few hundred crops, one network's
  accuracy depends on its luck (which batches it saw, which fifth it held
  back). Averaging the beliefs of networks that each held back a different
  fifth removes much of that luck and uses every crop for training;
  ``python -m bench.vision`` measures what it gains (figures:
  ``docs/VISION.md``, "Ensembles and views").
* **A fine-tuning does not forget.** The calibration gives only two counts
  (0 and 4); fine-tuning on them alone would teach the network that every
  pit holds 0 or 4 seeds. Rendered pits (:func:`rehearsal_pits`) rehearse
  the counts the user's crops lack.
* **Its confidence is measured.** One fifth of the user's crops (chosen by
  position, deterministic) is held back while fine-tuning; the softmax
  temperature is fitted on them, so a reported 90 % is right about 9 times
  in 10. Then :func:`vision.counting.mlp.shape_beliefs` spreads the top class
  ("that many or more") over the higher counts.
* **It does not claim what it could not check.** Crops of only one or two
  counts (the calibration's empty board and start position) cannot show
  how wrong the networks are on the other counts; fitted on them, the
  temperature made networks that read nearly every real pit as 0 or 4 sure
  of it. Below :data:`FEW_COUNTS` counts the temperature is at least
  :data:`FEW_COUNTS_TEMPERATURE`: the beliefs stay wide rather than
  confidently wrong. Wide is not enough for the referee to name moves from
  such beliefs (``docs/VISION.md``, "Ensembles and views"), so such networks
  wait for labelled photos of more counts (``train-counter``); the
  calibrate command says so.

* **It may look more than once.** A pit is round and seen from above, so
  its count does not change when the crop is turned by a quarter or
  mirrored. With ``views`` > 1 every network also reads the turned and
  mirrored crops and all those beliefs are averaged ("test-time
  augmentation"). It costs ``views`` times the counting time. More views
  made the beliefs better but not the counts, at a large cost in speed
  (``docs/VISION.md``, "Ensembles and views"), so one view is the default
  and more are an option.

A subclass names its network's JSON kind and preparation, and implements
:meth:`EnsembleCounter._fine_tune_one` for one member: the base class has
already chosen that member's crops and rendered its rehearsal pits.
"""

from __future__ import annotations

import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, Self, TypeVar

import numpy as np
import numpy.typing as npt

from vision.counting.beliefs import MAX_COUNT, MODELS, shape_beliefs
from vision.counting.model import best_temperature, load_model_json
from vision.image_types import Image
from vision.learning.seed_paste import pasted_piles

Inputs = npt.NDArray[np.float32]
Progress = Callable[[int, int], None]

REHEARSAL = 600
"""Rendered pits mixed in, spread over the counts the user's crops do not cover."""
FOLDS = 5
"""The crops are dealt into this many parts by position; each network holds one back."""
MEMBERS = 5
"""Networks the commands fine-tune and average by default (``--members``)."""
FEW_COUNTS = 3
"""Below this many different counts among the crops that fit the temperature, it is floored."""
FEW_COUNTS_TEMPERATURE = 3.0
"""The floor: crops of two counts (the calibration's 0 and 4) cannot show how wrong the
networks are on the others. Measured on the development photographs (networks fine-tuned
on the train split's 0 and 4 seed pits, judged on its other counts): at the fitted
temperature (0.5) the true count lay inside the 95 % set for 13 % of pits; at 2, 92 %;
at 3, the smallest temperature reaching 95 %, for all of them."""
VIEWS = (1, 2, 4, 8)
"""How many views of each crop a counter may average: itself; and mirrored; its four
quarter turns; those and their mirror images (the order of :func:`views_of`)."""


class CountingNetwork(Protocol):
    """What the ensemble needs of one network."""

    temperature: float

    @property
    def classes(self) -> int: ...

    def logits(self, x: Inputs) -> npt.NDArray[np.float64]: ...

    def predict_proba(self, x: Inputs) -> npt.NDArray[np.float64]: ...

    def to_json(self) -> dict[str, Any]: ...


Net = TypeVar("Net", bound=CountingNetwork)


@dataclass
class Holdout:
    """One member's share of the user's crops: what it trains on and what calibrates it."""

    keep: list[int]
    """Indices of the crops it is fine-tuned on."""
    back: list[int]
    """Indices held back to fit its temperature (empty below ten crops: too few to spare)."""
    missing: list[int]
    """Counts (classes) none of the kept crops shows: rendered pits rehearse them."""

    @classmethod
    def of(cls, ys: Sequence[int], fold: int, classes: int) -> Holdout:
        n = len(ys)
        back = list(range(fold, n, FOLDS)) if n >= 10 else []
        keep = sorted(set(range(n)) - set(back))
        missing = sorted(set(range(classes)) - {ys[i] for i in keep})
        return cls(keep, back, missing)


@dataclass
class TrainingSet:
    """What one member is fine-tuned on: the user's crops it keeps, and rendered rehearsal."""

    crops: list[Image]
    counts: list[int]
    rehearsal_crops: list[Image]
    rehearsal_counts: list[int]
    rehearsal_share: float
    """The share of the counts the rehearsal stands for (a batch may give it as much room)."""
    pasted_crops: list[Image] = field(default_factory=list)
    """Piles made by pasting the user's own seeds onto their crops
    (:mod:`vision.learning.seed_paste`)."""
    pasted_counts: list[int] = field(default_factory=list)


@dataclass
class EnsembleCounter(ABC, Generic[Net]):
    """Turns pit crops into beliefs over seed counts: the averaged beliefs of networks."""

    networks: list[Net]
    """One network, or several trained alike whose beliefs are averaged (an ensemble)."""
    source: str = "synthetic"
    """Where the networks were last trained: "synthetic" or "adapted"."""
    views: int | None = None
    """Views of each crop averaged (one of :data:`VIEWS`); None: the kind's DEFAULT_VIEWS."""

    KIND: ClassVar[str]
    """The ``kind`` of the JSON form (what :func:`vision.counting.mlp.counter_from_json` reads);
    also names the built-in weights' file and ``vision.learning.train``'s ``--model``."""
    ADAPT_STEPS: ClassVar[int]
    """Fine-tuning steps per member by default."""
    DEFAULT_VIEWS: ClassVar[int] = 1
    """One view: eight cost eight times the counting time for better beliefs, not counts."""
    PASTED: ClassVar[int] = 0
    """Piles pasted from the user's seeds for each member's fine-tuning (see
    :mod:`vision.learning.seed_paste`); a subclass whose network draws them sets how many. 0: the
    network does not draw them (the small one: not measured), whatever ``adapt`` is asked."""

    def __post_init__(self) -> None:
        if not self.networks:
            raise ValueError("a counter needs at least one network")
        if len({n.classes for n in self.networks}) != 1:
            raise ValueError("the networks of one counter must tell apart the same counts")
        if self.views is not None and self.views not in VIEWS:
            raise ValueError(f"views must be one of {VIEWS}, not {self.views!r}")

    @property
    def view_count(self) -> int:
        """Views of each crop this counter averages."""
        return self.DEFAULT_VIEWS if self.views is None else self.views

    # -- what a subclass provides -------------------------------------------
    @staticmethod
    @abstractmethod
    def prepare(crops: Sequence[Image]) -> Inputs:
        """The networks' inputs for pit crops."""

    @classmethod
    @abstractmethod
    def network_from_json(cls, data: dict[str, Any]) -> Net:
        """One network from its JSON form."""

    @abstractmethod
    def _fine_tune_one(
        self, start: Net, data: TrainingSet, steps: int, seed: int, progress: Progress | None
    ) -> Net:
        """A copy of ``start`` fine-tuned on ``data`` (its temperature is fitted afterwards)."""

    def can_adapt(self) -> bool:
        """Whether :meth:`adapt` can run here (the deep network needs PyTorch)."""
        return True

    # -- shared ---------------------------------------------------------------
    @property
    def classes(self) -> int:
        """Counts the networks tell apart; the last one means "that many or more"."""
        return self.networks[0].classes

    def beliefs(
        self, crops: Sequence[Image], pits: Sequence[int] | None = None
    ) -> npt.NDArray[np.float64]:
        """(len(crops), MAX_COUNT + 1) probabilities, one row per crop (``pits`` unused)."""
        if not crops:
            return np.zeros((0, MAX_COUNT + 1))
        n = len(crops)
        # Turning the prepared inputs equals preparing turned crops: both networks
        # normalise against a ring of wood, which quarter turns and mirrors keep.
        x = views_of(self.prepare(list(crops)), self.view_count)
        p = np.mean([network.predict_proba(x) for network in self.networks], axis=0)
        p = p.reshape(self.view_count, n, -1).mean(axis=0)
        return np.asarray(shape_beliefs(p), np.float64)

    def adapt(
        self,
        crops: Sequence[Image],
        counts: Sequence[int],
        steps: int | None = None,
        rehearsal: int = REHEARSAL,
        progress: Progress | None = None,
        seed: int = 0,
        members: int = 1,
        pasted: int | None = None,
    ) -> Self:
        """A copy of this counter fine-tuned on labelled crops of the user's board.

        ``members`` networks are fine-tuned, member ``k`` starting from
        network ``k`` of this counter (cycling) with batch seed ``seed + k``
        and holding back a different fifth of the crops; together they learn
        from every crop. Takes ``members`` times as long as one.
        ``steps`` defaults to the subclass's ``ADAPT_STEPS``; ``pasted``
        (piles pasted from the user's seeds per member) to its ``PASTED``,
        and a subclass that pastes none ignores it.
        """
        if len(crops) != len(counts) or not crops:
            raise ValueError("need as many counts as crops, and at least one")
        if members < 1:
            raise ValueError("an ensemble needs at least one member")
        to_paste = self.piles_to_paste(pasted)
        ys = [min(int(c), self.classes - 1) for c in counts]
        if min(ys) < 0:
            raise ValueError("seed counts cannot be negative")
        networks = []
        for k in range(members):
            start = self.networks[k % len(self.networks)]
            fold = (FOLDS - 1 - k) % FOLDS  # the first member holds back what one network did
            part = Holdout.of(ys, fold, start.classes)
            extra_crops, extra_counts = rehearsal_pits(part.missing, rehearsal, seed + k)
            kept_crops = [crops[i] for i in part.keep]
            kept_counts = [ys[i] for i in part.keep]
            # Only from the crops this member keeps: a held-back seed must not leak in.
            piles = pasted_piles(kept_crops, kept_counts, to_paste, seed + k)
            data = TrainingSet(
                kept_crops,
                kept_counts,
                extra_crops,
                extra_counts,
                len(part.missing) / start.classes,
                *piles,
            )
            report = _part_of(progress, k, members)
            network = self._fine_tune_one(start, data, steps or self.ADAPT_STEPS, seed + k, report)
            if part.back:
                temperature = self.fit_temperature(
                    network, [crops[i] for i in part.back], [ys[i] for i in part.back]
                )
            else:
                temperature = max(1.0, start.temperature)
            # What the temperature was judged on: the held-back crops (else all of them).
            judged = {ys[i] for i in part.back} if part.back else set(ys)
            if len(judged) < FEW_COUNTS:
                temperature = max(temperature, FEW_COUNTS_TEMPERATURE)
            network.temperature = temperature
            networks.append(network)
        return type(self)(networks, "adapted", self.views)

    def piles_to_paste(self, asked: int | None = None) -> int:
        """Piles :meth:`adapt` pastes per member when asked for ``asked`` (None: the default)."""
        if asked is not None and asked < 0:
            raise ValueError("cannot paste a negative number of piles")
        return self.PASTED if asked is None or not self.PASTED else asked

    @classmethod
    def fit_temperature(cls, network: Net, crops: Sequence[Image], counts: Sequence[int]) -> float:
        """The softmax temperature that best explains held-back crops, as shaped beliefs."""
        logits = network.logits(cls.prepare(list(crops)))
        return best_temperature(logits, list(counts), shape_beliefs)

    def to_json(self) -> dict[str, Any]:
        """JSON form (stored in a calibration file)."""
        nets = [network.to_json() for network in self.networks]
        out: dict[str, Any] = {"kind": self.KIND, "source": self.source, "networks": nets}
        if self.views is not None:
            out["views"] = self.views
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Inverse of :meth:`to_json` (also reads files of one network, ``"network"``)."""
        if data.get("kind") != cls.KIND:
            raise ValueError(f"not a {cls.KIND} counter (kind {data.get('kind')!r})")
        stored: list[Any] = data["networks"] if "networks" in data else [data.get("network")]
        if not stored or not all(isinstance(n, dict) for n in stored):
            raise ValueError(f"a {cls.KIND} counter without networks")
        nets = [cls.network_from_json(n) for n in stored]
        views = data.get("views")
        return cls(nets, str(data.get("source", "adapted")), None if views is None else int(views))

    def with_views(self, views: int | None) -> Self:
        """The same networks, averaging ``views`` views of each crop (None: the default)."""
        return type(self)(self.networks, self.source, views)

    @classmethod
    def model_path(cls) -> Path:
        """The built-in weights, trained on rendered pits only by ``vision.learning.train``."""
        return MODELS / f"counter_{cls.KIND}.json"

    @classmethod
    def builtin(cls) -> Self:
        """The networks trained on rendered boards (``python -m vision.learning.train --model
        KIND``)."""
        command = f"python -m vision.learning.train --model {cls.KIND}"
        return cls.from_json(load_model_json(cls.model_path(), command))


@contextlib.contextmanager
def training_threads(n: int) -> Iterator[None]:
    """Let PyTorch train on at most ``n`` threads inside the block (its pool is process-wide).

    Learning from the game runs beside the camera's frame loop: a refit that
    took every core would make the live view stutter. Without PyTorch (the
    small numpy network) this does nothing.
    """
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def views_of(x: Inputs, views: int) -> Inputs:
    """Prepared inputs (n, side, side, channels) → (views * n, …): each view of all of them."""
    if views == 1:
        return x
    turns = [np.rot90(x, k, axes=(1, 2)) for k in range(4 if views >= 4 else 1)]
    if views in (2, 8):
        turns += [t[:, :, ::-1] for t in turns]
    return np.ascontiguousarray(np.concatenate(turns[:views]), np.float32)


def _part_of(progress: Progress | None, k: int, parts: int) -> Progress | None:
    """Progress of part ``k`` of ``parts`` equal parts, reported as progress of the whole."""
    if progress is None:
        return None
    whole = progress  # a local name: mypy does not narrow ``progress`` inside the closure

    def report(step: int, total: int) -> None:
        whole(k * total + step, parts * total)

    return report


def rehearsal_pits(counts: Sequence[int], total: int, seed: int) -> tuple[list[Image], list[int]]:
    """About ``total`` rendered pits spread over ``counts`` (the top count also renders piles)."""
    if not counts or total <= 0:
        return [], []
    from vision.render.synth import random_pit

    rng = np.random.default_rng(seed + 1)
    top = max(counts)
    per = max(1, total // len(counts))
    crops: list[Image] = []
    labels: list[int] = []
    for c in counts:
        for _ in range(per):
            seeds = c if c < top else int(rng.integers(c, c + 6))  # "that many or more"
            crops.append(random_pit(seeds, rng))
            labels.append(c)
    return crops, labels
