"""Venue settings: what a club or a tournament sets once, in a TOML file.

The command line overrides the file, the file overrides the defaults. Example
(``oware-companion serve --config venue.toml``)::

    [venue]
    rules = "abapa"                  # rule set spec, as --rules
    languages = ["en", "fr"]         # for the announcer and the page
    token = "a-long-secret"          # commands need it (always, once set)
    fair_play = true                 # players' screens get no suggestions
    host = "127.0.0.1"
    port = 8000
    data_dir = "/var/lib/oware"      # session logs and the games database
    allowed_origins = ["http://club.local:8000"]   # extra origins (and Host names)
    silent_after = 2.0               # seconds without a frame: the board is "silent"

    [camera]
    calibration = "board.json"       # for camera:// and video:// (default: the saved one)
    keep_pit_photos = true           # the game's labelled pit photos, for train-counter

    [camera.per_source]              # one camera per board, each with its own calibration
    "camera://1" = "table2.json"

    [engine]
    enabled = true
    seconds = 3.0                    # thinking time per position
    command = "oware-companion engine"  # a program speaking the protocol, as serve --engine

    [hall]                           # serve --publish / hall --broker (companion.hall)
    broker = "mqtts://broker.local/club"
    board = 7                        # the hall's number of this service's first board
    username = "7"
    password = "board-7-secret"
    ca_file = "hall-ca.pem"          # the broker's CA, for mqtts://

Unknown keys are refused with a message naming them, so a typo does not
silently leave a venue without its token.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import platformdirs

from companion.sources import is_camera_url
from core.rules import parse_rules_spec


class ConfigError(ValueError):
    """A configuration file that cannot be used; the message says which key and why."""


#: The shortest token accepted, from the config file and the command line alike.
MIN_TOKEN = 8


def check_token(token: str | None, where: str = "--token") -> None:
    """The one rule for command tokens: none at all, or at least :data:`MIN_TOKEN`
    characters. An empty one is refused too (off loopback it would let anyone command;
    on loopback, leave the token out).

    >>> check_token(None), check_token("a-long-secret")
    (None, None)
    >>> check_token("x")
    Traceback (most recent call last):
    ...
    companion.service.config.ConfigError: --token must be at least 8 characters (it has 1)
    """
    if token is None:
        return
    if not token.strip():
        raise ConfigError(
            f"{where} is empty: a token must be at least {MIN_TOKEN} characters "
            "(leave it out to have one made when listening beyond this machine)"
        )
    if len(token) < MIN_TOKEN:
        raise ConfigError(f"{where} must be at least {MIN_TOKEN} characters (it has {len(token)})")


def default_data_dir() -> Path:
    """Where session logs and the games database live unless told otherwise."""
    return platformdirs.user_data_path("oware-companion")


@dataclass(frozen=True)
class ServiceConfig:
    """Everything the live service needs to know that is not a source URL."""

    rules: str = "abapa"
    languages: tuple[str, ...] = ("en",)
    token: str | None = None
    fair_play: bool = False
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = field(default_factory=default_data_dir)
    allowed_origins: tuple[str, ...] = ()
    camera_calibration: Path | None = None
    """The calibration of every camera:// and video:// source not named below."""
    camera_calibrations: tuple[tuple[str, Path], ...] = ()
    """(source URL, calibration) for boards that each have their own camera."""
    keep_pit_photos: bool = True
    """Save every confirmed position's pit crops under data_dir/pit-photos/ for train-counter."""
    engine: bool = True
    engine_seconds: float = 3.0
    engine_command: str | None = None
    """An outside engine program (``serve --engine``) for the suggestions; None: ours."""
    max_body_bytes: int = 64 * 1024
    """Largest request body (and WebSocket message) accepted."""
    silent_after: float = 2.0
    """Seconds without a frame after which a connected board is reported silent (0: never)."""
    hall: tuple[tuple[str, Any], ...] = ()
    """The ``[hall]`` table (broker, board, username, password, ca_file), for companion.hall."""

    def calibration_for(self, url: str) -> Path | None:
        """The camera calibration given for ``url`` (None: the one `calibrate` saved)."""
        return dict(self.camera_calibrations).get(url, self.camera_calibration)

    def with_overrides(self, **changes: Any) -> ServiceConfig:
        """A copy with the given fields replaced; ``None`` values are ignored."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})


_SECTIONS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "venue": {
        "rules": str,
        "languages": list,
        "token": str,
        "fair_play": bool,
        "host": str,
        "port": int,
        "data_dir": str,
        "allowed_origins": list,
        "silent_after": (int, float),
    },
    "camera": {"calibration": str, "keep_pit_photos": bool, "per_source": dict},
    "engine": {"enabled": bool, "seconds": (int, float), "command": str},
    "hall": {"broker": str, "board": int, "username": str, "password": str, "ca_file": str},
}


def parse_config(data: dict[str, Any], base_dir: Path | None = None) -> ServiceConfig:
    """A :class:`ServiceConfig` from parsed TOML; relative paths are taken from ``base_dir``."""
    base = base_dir or Path.cwd()
    unknown_sections = set(data) - set(_SECTIONS)
    if unknown_sections:
        raise ConfigError(
            f"unknown section(s) {', '.join(sorted(unknown_sections))}; "
            f"known: {', '.join(_SECTIONS)}"
        )
    values: dict[str, Any] = {}
    for section, keys in _SECTIONS.items():
        table = data.get(section, {})
        if not isinstance(table, dict):
            raise ConfigError(f"[{section}] must be a table")
        unknown = set(table) - set(keys)
        if unknown:
            raise ConfigError(
                f"unknown key(s) in [{section}]: {', '.join(sorted(unknown))}; "
                f"known: {', '.join(keys)}"
            )
        for key, kind in keys.items():
            if key not in table:
                continue
            value = table[key]
            # bool is an int in Python: do not let `port = true` through
            if isinstance(value, bool) and kind is not bool:
                raise ConfigError(f"[{section}] {key} has the wrong type")
            if not isinstance(value, kind):
                raise ConfigError(f"[{section}] {key} has the wrong type ({type(value).__name__})")
            values[f"{section}.{key}"] = value
    cfg: dict[str, Any] = {}
    if "venue.rules" in values:
        try:
            parse_rules_spec(values["venue.rules"])
        except ValueError as exc:
            raise ConfigError(f"[venue] rules: {exc}") from None
        cfg["rules"] = values["venue.rules"]
    for key in ("languages", "allowed_origins"):
        if f"venue.{key}" in values:
            items = values[f"venue.{key}"]
            if not all(isinstance(s, str) for s in items):
                raise ConfigError(f"[venue] {key} must be a list of strings")
            cfg[key] = tuple(items)
    if "venue.token" in values:
        token = values["venue.token"]
        check_token(token, "[venue] token")
        cfg["token"] = token
    for key in ("fair_play", "host"):
        if f"venue.{key}" in values:
            cfg[key] = values[f"venue.{key}"]
    if "venue.port" in values:
        port = values["venue.port"]
        if not 0 <= port <= 65535:
            raise ConfigError(f"[venue] port must be 0-65535 (got {port})")
        cfg["port"] = port
    if "venue.silent_after" in values:
        silent = float(values["venue.silent_after"])
        if not 0 <= silent <= 3600:
            raise ConfigError("[venue] silent_after must be between 0 (never) and 3600 seconds")
        cfg["silent_after"] = silent
    if "venue.data_dir" in values:
        cfg["data_dir"] = (base / values["venue.data_dir"]).resolve()
    if "camera.calibration" in values:
        cfg["camera_calibration"] = (base / values["camera.calibration"]).resolve()
    if "camera.per_source" in values:
        pairs = []
        for url, file in values["camera.per_source"].items():
            if not is_camera_url(url):
                raise ConfigError(f"[camera.per_source] {url!r} is not a camera:// or video:// URL")
            if not isinstance(file, str):
                raise ConfigError(f"[camera.per_source] {url!r} must name a calibration file")
            pairs.append((url, (base / file).resolve()))
        cfg["camera_calibrations"] = tuple(pairs)
    if "camera.keep_pit_photos" in values:
        cfg["keep_pit_photos"] = values["camera.keep_pit_photos"]
    if "engine.enabled" in values:
        cfg["engine"] = values["engine.enabled"]
    if "engine.seconds" in values:
        seconds = float(values["engine.seconds"])
        if not 0 < seconds <= 600:
            raise ConfigError("[engine] seconds must be between 0 and 600")
        cfg["engine_seconds"] = seconds
    if "engine.command" in values:
        command = values["engine.command"]
        if not command.strip():
            raise ConfigError("[engine] command is empty (leave it out to use the built-in search)")
        cfg["engine_command"] = command
    hall = {k.split(".", 1)[1]: v for k, v in values.items() if k.startswith("hall.")}
    if "ca_file" in hall:
        hall["ca_file"] = str((base / hall["ca_file"]).resolve())
    if hall:
        cfg["hall"] = tuple(sorted(hall.items()))
    return ServiceConfig(**cfg)


def load_config(path: Path | str) -> ServiceConfig:
    """Read a venue TOML file (see the module docstring)."""
    p = Path(path)
    try:
        with p.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"cannot read {p}: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p} is not valid TOML: {exc}") from None
    return parse_config(data, p.parent)
