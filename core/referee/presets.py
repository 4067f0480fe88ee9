"""Referee settings that suit each kind of source (pass as ``Referee(start, **CAMERA)``).

A camera sees the hands over the board (so a still board with every pit in view has no
seeds in a hand) and reads an untouched pile the same way frame after frame (so only a
reading that changes is new evidence). A sensor board under the pits sees no hands, and
its noise changes from one frame to the next (so its frames add up, as far as each
reading's own belief goes, and a move is confirmed only on two sure readings in a row).

>>> from core.referee import Referee
>>> Referee(**CAMERA).sees_hands, Referee(**CAMERA).independent_frames
(True, False)
>>> Referee(**SENSOR).independent_frames
True
"""

from __future__ import annotations

from typing import Any

CAMERA: dict[str, Any] = {"sees_hands": True, "independent_frames": False}
"""A camera over the board (``camera://``, ``video://``)."""

SENSOR: dict[str, Any] = {"sees_hands": False, "independent_frames": True}
"""A sensor board under the pits (``serial://``, ``sim://``)."""
