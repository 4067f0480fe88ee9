"""Closing the game bounds of small layers with proofs under the cycle rule.

The game bounds (:func:`core.engine.retrograde.game_bounds`) of a board reached by a
capture (no history) hold under Abapa's real cycle rule, but the two-bound construction
leaves many boards open (``L < U``): what the mover gets there depends on which
positions the play goes through, and a return to one ends the game. The path search of
:mod:`core.engine.proof` settles such a board threshold by threshold: the mover forces
at least ``t`` of the seeds, or the other side keeps it below ``t``. A binary search over
``t`` between the bounds closes the board where every proof it asks for comes within the
budget, and narrows it otherwise.

A layer's boards never lead into each other through a capture, only into lower layers,
so closing the lower layers first gives each proof the tightest scores for its
captures; the layers above then need their bounds swept again
(:func:`core.engine.retrograde.bound_layer`), their own captures now scored by the
closed ones.

>>> from core.engine import retrograde
>>> values = retrograde.build(3)
>>> lows, highs = retrograde.game_bounds(4)
>>> open_before = int((lows < highs).sum())
>>> report = tighten_layer(3, lows, highs, values)
>>> report.closed > 0 and int((lows < highs).sum()) == open_before - report.closed
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from core.engine import retrograde
from core.engine.proof import prove_share
from core.engine.ranking import CUMULATIVE, layer_offset, layer_size, unrank_into
from core.engine.segment import MAX_SEEDS, play_out

U8 = npt.NDArray[np.uint8]
BOOL = npt.NDArray[np.bool_]

#: The layers whose bounds the store closes as it builds them, by default: up to 5 seeds
#: every board closes, in seconds (``endgame build --close-up-to 7`` closes most of the
#: next two layers too, in about eleven minutes of proofs on two cores at
#: ``--proof-nodes 5000`` and about 35 at the default budget, which leaves half as many
#: open: figures in docs/ENGINE.md).
CLOSED_UP_TO = 5
#: The budget of each proof there (one threshold of one board).
PROOF_NODES = 20_000
#: The layers whose values may rest on their own cycles' convention (none from 11 seeds
#: up, :mod:`core.engine.retrograde`): the store clamps them into the game bounds.
CLAMPED_UP_TO = 10

#: ``progress(done, total)``: boards of the layer looked at so far, of how many open.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class LayerReport:
    """What :func:`tighten_layer` did to one layer."""

    seeds: int
    open_before: int
    """Boards with ``L < U`` before."""
    closed: int
    """Of those, boards whose exact value every proof settled (``L == U`` now)."""
    narrowed: int
    """Boards left open with a narrower interval."""
    proofs: int
    """Proofs asked for, settled or not."""


def tighten_layer(
    seeds: int,
    lows: U8,
    highs: U8,
    values: U8,
    max_nodes: int = PROOF_NODES,
    progress: Progress | None = None,
    part: int = 0,
    parts: int = 1,
    skip: BOOL | None = None,
    deepening: bool = False,
) -> LayerReport:
    """Close what the proofs can of layer ``seeds`` of the game bounds ``lows`` and
    ``highs`` (flat, laid out as the databases; written in place), every layer under it
    already as tight as it will be; ``values`` the databases, holding those layers.
    ``max_nodes``: the budget of each proof (one threshold of one board). ``part`` of
    ``parts``: only the open boards whose place among them is ``part`` modulo ``parts``
    (for processes sharing a layer). ``skip``: boards of the layer (by rank) left as they
    are and out of that count (those whose proofs a stopped build already tried).
    ``deepening``: the proofs by the search deepened two plies at a time (to compare)."""
    if seeds > MAX_SEEDS:
        raise ValueError(f"a segment of {seeds} seeds is not played out (at most {MAX_SEEDS})")
    start = layer_offset(seeds)
    size = layer_size(seeds)
    still_open = lows[start : start + size] < highs[start : start + size]
    if skip is not None:
        still_open &= ~skip
    todo = np.flatnonzero(still_open)[part::parts]
    board = np.zeros(12, dtype=np.int8)
    closed = narrowed = proofs = 0
    for done, index in enumerate(todo):
        at = start + int(index)
        low, high = int(lows[at]), int(highs[at])
        unrank_into(int(index), seeds, CUMULATIVE, board)
        segment = play_out(board, [], values, 2 * size, (lows, highs))
        if segment is not None:
            # the value lies in [low, high]: each proof settles one threshold (the mover
            # forces it, or the other side keeps it below), the databases' value first,
            # which is mostly the game's, then halving what is left
            guess = int(values[at])
            while low < high:
                if low < guess <= high:
                    threshold = guess
                elif low <= guess < high:
                    threshold = guess + 1
                else:
                    threshold = (low + high + 1) // 2
                proofs += 1
                mover = prove_share(segment, 0, threshold, max_nodes=max_nodes, deepening=deepening)
                reached, kept_below = mover.proven, mover.disproven
                if not (reached or kept_below):
                    # the search for the mover's proof found no refutation either: the
                    # other side's proof looked for on its own
                    proofs += 1
                    other = prove_share(
                        segment, 1, threshold, max_nodes=max_nodes, deepening=deepening
                    )
                    reached, kept_below = other.disproven, other.proven
                if reached:
                    low = threshold
                elif kept_below:
                    high = threshold - 1
                else:
                    break
        if (low, high) != (int(lows[at]), int(highs[at])):
            lows[at], highs[at] = low, high
            closed += low == high
            narrowed += low < high
        if progress is not None:
            progress(done + 1, len(todo))
    return LayerReport(seeds, len(todo), closed, narrowed, proofs)


def clamp_layer(seeds: int, values: U8, lows: U8, highs: U8) -> int:
    """Clamp layer ``seeds`` of ``values`` into its game bounds (flat arrays laid out
    alike; ``values`` written in place): a value the bounds close is then the game's,
    and one they leave open at least lies where the game's does. Returns how many
    values changed."""
    start, stop = layer_offset(seeds), layer_offset(seeds + 1)
    layer = values[start:stop]
    clamped = np.clip(layer, lows[start:stop], highs[start:stop])
    changed = int(np.count_nonzero(clamped != layer))
    layer[:] = clamped
    return changed


def build_exact(
    max_seeds: int, up_to: int = CLOSED_UP_TO, max_nodes: int = PROOF_NODES
) -> tuple[U8, U8, U8]:
    """The databases and their game bounds as the store builds them, every layer up to
    ``max_seeds``: layer by layer the values (:func:`core.engine.retrograde.build_layer`,
    their captures scored by the lower layers as they now are), the game bounds, those
    of 2 to ``up_to`` seeds closed by :func:`tighten_layer`, and the values of the
    layers with cycles of their own (:data:`CLAMPED_UP_TO`) clamped into them.

    >>> values, lows, highs = build_exact(5)
    >>> bool((lows <= values).all() and (values <= highs).all() and (lows == highs).all())
    True
    """
    values = retrograde.empty_values(max_seeds)
    lows = np.zeros_like(values)
    highs = np.zeros_like(values)
    for seeds in range(max_seeds + 1):
        retrograde.build_layer(seeds, values)
        retrograde.bound_layer(seeds, lows, highs)
        if 2 <= seeds <= up_to:
            tighten_layer(seeds, lows, highs, values, max_nodes)
        if seeds <= CLAMPED_UP_TO:
            clamp_layer(seeds, values, lows, highs)
    return values, lows, highs
