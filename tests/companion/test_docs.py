"""The README fits on two screens and its links lead somewhere; the docs pages match the code.

Issue 27, item 2: the README was a wall (benchmark figures in its command table), linked
``../shared/…`` outside the repository, and said nothing of where data goes, what a venue
file looks like, which ``sim://`` options exist, or how to play with three or four players.
"""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

from companion.cli import build_parser
from companion.service.config import _SECTIONS, parse_config
from firmware_bridge.source import SIM_OPTIONS

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")

#: A screen: 50 lines of 100 characters (a laptop's browser or terminal, roughly).
SCREEN_LINES, SCREEN_WIDTH = 50, 100


def test_the_readme_fits_on_two_screens() -> None:
    shown = sum(max(1, math.ceil(len(line) / SCREEN_WIDTH)) for line in README.splitlines())
    assert shown <= 2 * SCREEN_LINES, f"{shown} lines as shown"
    # figures belong in the docs pages and the benches, not in the command table
    assert not re.search(r"\d+(\.\d+)? ?%", README)


def test_every_path_the_readme_names_is_in_the_repository() -> None:
    assert "../shared" not in README
    named = set(re.findall(r"`((?:docs|hardware|scripts)/[^`\s]+)`", README))
    named |= set(re.findall(r"\]\(((?:docs|hardware)/[^)]+)\)", README))
    assert {"docs/ARCHITECTURE.md", "docs/CAMERA.md", "docs/SENSOR_BOARD.md"} <= named
    assert "docs/VENUE.md" in named and "docs/images/referee.png" in named
    missing = [path for path in named if not (ROOT / path).exists()]
    assert missing == []
    for page in (ROOT / "docs").glob("*.md"):
        assert "../shared" not in page.read_text(encoding="utf-8"), page.name


def test_every_command_the_readme_names_exists() -> None:
    commands = set(re.findall(r"`oware-companion ([a-z-]+)", README))
    assert {"demo", "serve", "calibrate", "replay", "rules"} <= commands
    choices = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert commands <= set(choices)
    # and the two commands, with a three- or four-player game
    assert "scripts/run.sh" in README and "scripts/test.sh" in README
    assert "--rules universal-4" in README


def test_the_venue_page_holds_a_complete_config_that_loads() -> None:
    page = (ROOT / "docs" / "VENUE.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"```toml\n(.*?)```", page, re.S)
    data = tomllib.loads(block)
    config = parse_config(data, ROOT)
    assert config.fair_play and config.token == "a-long-secret" and config.engine_seconds == 3.0
    every_key = {f"{section}.{key}" for section, keys in _SECTIONS.items() for key in keys}
    given = {f"{section}.{key}" for section, table in data.items() for key in table}
    assert every_key <= given, every_key - given
    assert "Where the data goes" in page and "games.sqlite" in page


def test_the_sensor_board_page_lists_every_sim_option() -> None:
    page = (ROOT / "docs" / "SENSOR_BOARD.md").read_text(encoding="utf-8")
    for option in SIM_OPTIONS:
        assert f"`{option}=" in page or f"{option}=" in page, option
