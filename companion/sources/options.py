"""What opening a source may need besides its URL (:class:`OpenOptions`), and the
record each scheme has in the table (:class:`Scheme`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from core.rules import RuleSet
from core.source import Source

SourceKind = Literal["sensor", "camera", "replay"]
"""What reads the board: weights (a sensor board, real or virtual), a camera, a log."""


@dataclass(frozen=True)
class OpenOptions:
    """What the service knows that a URL does not say."""

    calibration: Path | None = None
    """``camera://``, ``video://``: the calibration file to read (else the saved one)."""
    pit_photos: Path | None = None
    """``camera://``, ``video://``: where to keep the pit photos the game labels (None: none)."""
    rules: str | RuleSet = "abapa"
    """``sim://``: the game a virtual board plays when its URL names none."""


@dataclass(frozen=True)
class Scheme:
    """One row of the table of schemes (:data:`companion.sources.SCHEMES`)."""

    open: Callable[[str, OpenOptions], Source]
    """The (not yet opened) source for a URL; :class:`~core.source.SourceURLError` if none."""
    check: Callable[[str, OpenOptions], None]
    """Refuse, before anything starts, a URL ``open`` could not open."""
    kind: SourceKind
    example: str
    """A URL of this scheme, for the help and the error that lists the schemes."""
    rules: Callable[[str, RuleSet], RuleSet] | None = None
    """The rule set the board at a URL plays, given the service's (None: the service's)."""
