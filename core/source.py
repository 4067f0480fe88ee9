"""The contract of a source: what every input of the companion offers the service.

A source turns a board (a sensor board, a camera, a recorded session) into
:class:`~core.observation.Observation` objects. It is opened from a URL
(``sim://``, ``serial://``, ``camera://``, ``video://``, ``replay://``) by the
table of schemes in :mod:`companion.sources`; every source it returns is a
:class:`Source`:

* ``open()`` prepares it (a source that cannot open raises here);
* iterating it blocks (in a worker thread) and yields observations and status
  dicts such as ``{"type": "link" | "camera", "state": "connected", "detail": ...}``
  (a replay also yields the commands people gave, ``{"command": ...}``);
* ``close()`` is thread-safe and makes a blocked iteration end soon;
* ``health()`` is a JSON-ready :class:`SourceHealth` for the ``/health`` endpoint.

Some sources offer more, and the service asks for it by name: a sensor board
lights its LEDs (``set_leds``), a camera learns from confirmed positions
(``confirm``) and takes corners placed by hand (``set_corners``), a replay
names the start and referee settings it was recorded with (``header``).

This module holds types only (no I/O).

>>> isinstance(SourceURLError("unknown source 'ftp://x'"), ValueError)
True
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, TypedDict, runtime_checkable

from core.observation import Observation

SourceItem = Observation | dict[str, Any]
"""What iterating a source yields: an observation, or a status or command dict."""


class SourceHealth(TypedDict):
    """What every source's ``health()`` holds; each kind of source adds its own keys
    (a sub-TypedDict: ``SensorHealth``, ``CameraHealth``, ``ReplayHealth``...)."""

    source: str
    """The kind of source: ``"sensor"``, ``"sim"``, ``"camera"``, ``"replay"``."""


@runtime_checkable
class Source(Protocol):
    """What the service needs from a source (see the module docstring)."""

    def open(self) -> None: ...
    def close(self) -> None: ...
    def __iter__(self) -> Iterator[SourceItem]: ...
    def health(self) -> SourceHealth: ...


class SourceURLError(ValueError):
    """A source URL that cannot be used (unknown scheme, bad option, missing file or
    calibration); its message is one line that says why and what is accepted."""
