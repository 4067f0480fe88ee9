"""Errors raised by the rules core. Every message says what is wrong in words."""

from __future__ import annotations


class RulesError(ValueError):
    """Base class of every error the rules core raises."""


class IllegalMoveError(RulesError):
    """A move that the rules do not allow in this position ("pit C is empty")."""


class InvalidPositionError(RulesError):
    """A position that cannot occur under its rule set (wrong seed total, bad text form…)."""


class UnknownRulesError(RulesError):
    """A rule set, preset or option that does not exist, or options that do not combine."""
