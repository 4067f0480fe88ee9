"""What the web app needs of the service it serves, written as :class:`typing.Protocol`\\ s.

The routers see the running service only through these types, so ``dashboard``
imports nothing of the application around it: ``companion.service`` implements
them structurally (:class:`companion.service.service.Service` is a
:class:`LiveService`, its ``BoardRuntime`` a :class:`LiveBoard`, its
``GameIndex`` a :class:`GameArchive`, and a camera board's controls a
:class:`CameraControl`), and mypy checks that where ``serve`` hands the service
to :func:`dashboard.app.create_app`.

* :class:`ServerSettings` – the addresses served, the origins allowed, the body limit;
* :class:`LiveService` – the boards, the games archive, the data directory, the token
  check, health;
* :class:`LiveBoard` – one board: its state, event history, commands, broadcast hub
  (:class:`dashboard.hub.Hub`) and, for a camera board, its camera;
* :class:`GameArchive` – the games index (the history list and one game);
* :class:`CameraControl` – a camera board's calibration, last frame and manual corners.

The errors named here are the contract's too: the service raises them and the routers
turn them into HTTP statuses (:class:`CommandNotLogged` 503, :class:`NoFrameYet` 409,
:class:`CornersRefused` 422).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Protocol

from core.referee import Referee

from .hub import Hub, Role


class CommandNotLogged(RuntimeError):
    """A command that could not be written to the session log, so was not applied."""


class NoFrameYet(ValueError):
    """The camera has sent no frame yet: there is nothing to place corners on."""


class CornersRefused(ValueError):
    """Corners that cannot be a board (outside the frame, enclosing no area…)."""


class ServerSettings(Protocol):
    """The settings the app itself applies (``Host``/``Origin`` checks, body limit)."""

    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def allowed_origins(self) -> tuple[str, ...]: ...
    @property
    def max_body_bytes(self) -> int: ...


class CameraControl(Protocol):
    """What the referee's page does with a camera board's camera."""

    def describe(self) -> dict[str, Any]:
        """The calibration in use: ``url``, ``frame_size`` (None before the first frame),
        ``corners`` (NW NE SE SW in frame pixels), ``image_size``, ``method``, ``file``."""
        ...

    def frame_jpeg(self) -> bytes | None:
        """The last frame as JPEG, None before the first (ValueError if it cannot be
        encoded)."""
        ...

    def set_corners(self, corners: Sequence[tuple[float, float]]) -> dict[str, Any]:
        """Place the board's four corners by hand: the live reading follows them and the
        calibration file is rewritten. :meth:`describe`'s answer plus ``previous`` (where
        the old file went, or None). Raises :class:`CornersRefused`, :class:`NoFrameYet`,
        or OSError when the file could not be written (the reading follows anyway)."""
        ...


class LiveBoard(Protocol):
    """One board as the pages and the API see it."""

    @property
    def board(self) -> str:
        """The board's number: ``"1"``, ``"2"``, …"""
        ...

    @property
    def url(self) -> str:
        """Its source URL."""
        ...

    @property
    def referee(self) -> Referee: ...
    @property
    def hub(self) -> Hub:
        """Where the board's messages go out to the connected pages."""
        ...

    @property
    def events(self) -> Sequence[dict[str, Any]]:
        """Every event of the board's session, oldest first."""
        ...

    @property
    def link(self) -> Mapping[str, Any]:
        """The link's last status (``type``, ``state``, ``detail``; ``ended`` once a
        recording has been read to its end)."""
        ...

    def link_problem(self) -> str | None:
        """One line while the board is not followed (as ``/health`` says it), else None."""
        ...

    def state(self, role: Role | None = None) -> dict[str, Any]:
        """The game as the page with this role may see it (``docs/SERVICE_API.md``)."""
        ...

    def command(self, raw: Any) -> list[dict[str, Any]]:
        """Carry out a person's command; its events. Raises ``CommandInvalid``,
        ``CommandError`` or :class:`CommandNotLogged`."""
        ...

    def camera(self) -> CameraControl | None:
        """The board's camera, or None when no camera watches it."""
        ...


class GameArchive(Protocol):
    """The games played, as the history pages read them."""

    def games(self, limit: int = 50, board: str | None = None) -> list[dict[str, Any]]:
        """Newest first, without the records."""
        ...

    def game(self, game_id: int) -> dict[str, Any] | None:
        """One game with its record, or None."""
        ...


HealthStatus = Literal["ok", "degraded", "resuming"]
"""The service's word in ``/health``: ``resuming`` while boards replay their logs, ``degraded``
while a board's log cannot be written or a board is not followed (its link reconnecting,
silent or disconnected, its camera unsure)."""


class LiveService(Protocol):
    """The running service the app serves (started and stopped with the app)."""

    @property
    def config(self) -> ServerSettings: ...
    @property
    def boards(self) -> Mapping[str, LiveBoard]:
        """The boards that play (those still resuming their logs are not here yet)."""
        ...

    @property
    def index(self) -> GameArchive | None:
        """The games archive; None until the service has started."""
        ...

    @property
    def data_dir(self) -> Path:
        """Where the session logs are; no file outside it is ever sent."""
        ...

    @property
    def token_required(self) -> bool: ...
    def check_token(self, given: str | None) -> bool: ...
    def health(self) -> dict[str, Any]:
        """``status`` (a :data:`HealthStatus`), ``problems``, ``boards``, …"""
        ...

    def board_list(self) -> list[dict[str, Any]]: ...
    async def start(self) -> None: ...
    async def stop(self) -> None: ...
