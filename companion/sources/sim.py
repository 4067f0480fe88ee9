"""``sim://?seed=3&speed=10&...``: the virtual sensor board (``firmware_bridge.source``).

Its options are :data:`firmware_bridge.source.SIM_OPTIONS`; a board whose URL
names no rule set plays the service's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from core.rules import RuleSet

from .options import OpenOptions

if TYPE_CHECKING:
    from firmware_bridge.source import SimSource


def open_sim(url: str, options: OpenOptions) -> SimSource:
    """The virtual board ``url`` describes (not yet started)."""
    from firmware_bridge.source import SimSource, device_options_from_query

    return SimSource(device_options_from_query(urlsplit(url).query, options.rules))


def check_sim(url: str, options: OpenOptions) -> None:
    """Refuse unknown or bad ``sim://`` options."""
    from firmware_bridge.source import device_options_from_query

    device_options_from_query(urlsplit(url).query)


def sim_rules(url: str, default: RuleSet) -> RuleSet:
    """The board's own game (``rules=``, ``players=``), else ``default``.

    >>> from core.rules import get_rules
    >>> sim_rules("sim://?players=3", get_rules("abapa")).name
    'universal-3'
    """
    from firmware_bridge.source import sim_rules as rules_of_query

    return rules_of_query(urlsplit(url).query, default)
