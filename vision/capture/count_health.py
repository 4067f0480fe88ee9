"""Whether the camera's counts are sure enough for the referee to follow a game.

The referee reads a camera's beliefs through the rules, so a belief spread
over two or three counts is fine: at most six moves can follow a position.
A counter that has not learnt this board is another matter. Networks
fine-tuned on the calibration's empty board and start position alone, for
example, spread every pit's belief over about thirteen counts; then the
referee names almost no move and asks a person at nearly every one. Its
questions are about pits; the person at the board needs to hear that the
*counter* is the problem, and what fixes it: calibrating the camera on this
board (a camera that found the board by itself counts with the built-in
counter, which has never seen it), or teaching the counter more counts
(``oware-companion train-counter``).

How a board is judged: for every pit the camera sees (not under a hand), how
much of its belief lies within one seed of some count (the most that three
neighbouring counts hold; usually those around the most likely one). A pit
holding less than :data:`NEAR_SHARE` of it there is *vague*: the camera
cannot tell its count within one seed. The board is *unsure* when more than
half the seen pits are vague (the median pit is). The median, because honest
beliefs widen on tall piles, and an Oware board's 48 seeds leave at least
half its pits with few: a board is not unsure for its two piles of fifteen.

How well this tells a taught counter from an untaught one, on real photographs
and on rendered games, is in ``docs/VISION.md``, "Count health".

:class:`CountHealth` turns the per-board verdict into a state that changes
only after :data:`BOARDS` settled boards in a row say so, so one odd board
(a glare, a pile knocked over) neither raises nor clears the warning.

>>> def board(k: int) -> Observation:  # twelve pits, each spread evenly over 13 + k counts
...     vague = (1 / (13 + k),) * (13 + k)
...     return Observation(t=k, source="camera", stable=True, pits=(vague,) * 12)
>>> health = CountHealth()
>>> [health.judge(board(k)) for k in range(3)]
[None, None, True]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from core.observation import Observation, PitReading

NEAR_SHARE = 0.7
"""A pit is vague when less than this share of its belief lies within one seed of any
count (between the taught pit-area counter's 0.81 and floored networks' 0.65 on the
rendered games' boards)."""
BOARDS = 3
"""Settled boards in a row that must agree before the state changes."""
MIN_SEEN = 6
"""Fewer pits seen (the rest under hands) give no verdict."""


def near_share(reading: PitReading) -> float | None:
    """The share of a pit's belief within one seed of some count: the most that three
    neighbouring counts hold.

    An exact count holds all of it; a hidden pit (``None``) has no belief.

    >>> near_share(3), near_share(None), near_share((0.1, 0.2, 0.6, 0.05, 0.05))
    (1.0, None, 0.9)
    """
    if reading is None:
        return None
    if isinstance(reading, int):
        return 1.0
    belief = np.asarray(reading, dtype=np.float64)
    # The best run of three neighbouring counts (ties between counts need no breaking).
    runs = np.convolve(belief, np.ones(3), mode="full")
    return round(float(runs.max() / belief.sum()), 9)


def median_near(pits: Sequence[PitReading]) -> float | None:
    """The median pit's :func:`near_share` over the pits seen, or None when too few are seen."""
    shares = [s for s in (near_share(p) for p in pits) if s is not None]
    if len(shares) < MIN_SEEN:
        return None
    return float(np.median(shares))


def board_is_unsure(pits: Sequence[PitReading]) -> bool | None:
    """The verdict on one board: True unsure, False sure, None too little seen."""
    median = median_near(pits)
    return None if median is None else median < NEAR_SHARE


@dataclass
class CountHealth:
    """Follows a camera's settled boards and says when its counts turn unsure, or sure again."""

    unsure: bool = False
    """The current state: whether the last :data:`BOARDS` judged boards were unsure."""
    last_median: float | None = None
    """The median pit's :func:`near_share` on the last board judged."""
    _streak: int = field(default=0, init=False)
    _last: tuple[PitReading, ...] | None = field(default=None, init=False)

    def judge(self, obs: Observation) -> bool | None:
        """The new state when this observation changes it (True: unsure now; False: sure
        again), else None. Only settled boards count, each reading once."""
        if not obs.stable or obs.pits == self._last:
            return None  # a moving board, or the same reading repeated
        self._last = obs.pits
        median = median_near(obs.pits)
        if median is None:
            return None
        self.last_median = median
        if (median < NEAR_SHARE) == self.unsure:
            self._streak = 0
            return None
        self._streak += 1
        if self._streak < BOARDS:
            return None
        self._streak = 0
        self.unsure = not self.unsure
        return self.unsure

    def words(self) -> str:
        """What to tell the person at the board about the current state."""
        if not self.unsure:
            return "the camera's counts are sure enough again to follow the game"
        return (
            f"the camera cannot count the seeds surely: on the last {BOARDS} still boards it"
            " could not tell most of the pits it saw within one seed, too vaguely for the"
            " referee to follow the game. Calibrate the camera on this board if it is not yet"
            " ('oware-companion calibrate'), or teach its counter more counts"
            " ('oware-companion train-counter', see the README)"
        )
