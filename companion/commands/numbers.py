"""Argparse types for the numbers the commands take: a bad one is a one-line usage error.

A negative thinking time or a probability of 2 used to be taken as given (``analyze
--time -1`` searched two plies; ``serve --engine-seconds -1`` served suggestions with no
time to think).

>>> seconds("2.5"), seconds_or_zero("0"), probability("0.1"), at_least_one("3")
(2.5, 0.0, 0.1, 3)
>>> seconds("-1")
Traceback (most recent call last):
argparse.ArgumentTypeError: '-1' is not a number of seconds above 0
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def _number(
    text: str, kind: type[float] | type[int], what: str, ok: Callable[[float], bool]
) -> float:
    """``text`` read as ``kind``, finite and ``ok``; else a usage error: it is not ``what``."""
    try:
        value = float(kind(text))
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and ok(value)):
        raise argparse.ArgumentTypeError(f"{text!r} is not {what}")
    return value


def seconds(text: str) -> float:
    """A time in seconds, more than 0."""
    return _number(text, float, "a number of seconds above 0", lambda v: v > 0)


def seconds_or_zero(text: str) -> float:
    """A rate or a time that may be 0 (its option's help says what 0 means), not below."""
    return _number(text, float, "a number of 0 or more", lambda v: v >= 0)


def probability(text: str) -> float:
    """A probability, from 0 to 1."""
    return _number(text, float, "a probability from 0 to 1", lambda v: 0 <= v <= 1)


def at_least_one(text: str) -> int:
    """A whole number, 1 or more."""
    return int(_number(text, int, "a whole number of 1 or more", lambda v: v >= 1))
