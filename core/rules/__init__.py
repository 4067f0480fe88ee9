"""Rule sets by name: the two families and the named presets.

>>> get_rules("abapa").describe().split("; ")[1]
'a grand slam is legal and captures nothing'
>>> get_rules("mankala-pl").options["grand_slam"]
'forbidden'
>>> get_rules("universal", players=4, variants=[3, 9]).options["relay_sowing"]
True
>>> get_rules("awari")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
core.errors.UnknownRulesError: unknown rule set 'awari'; known: abapa, abapa-declared, ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.errors import UnknownRulesError
from core.rules.base import Ending, OptionInfo, RuleSet, Sowing, store_slot
from core.rules.oware import OwareRules
from core.rules.universal import UniversalRules

__all__ = [
    "PRESETS",
    "Ending",
    "OptionInfo",
    "Preset",
    "RuleSet",
    "Sowing",
    "get_rules",
    "parse_rules_spec",
    "store_slot",
]


@dataclass(frozen=True)
class Preset:
    """A named combination of options of one family."""

    family: type[RuleSet]
    options: dict[str, Any]
    text: str


PRESETS: dict[str, Preset] = {
    "abapa": Preset(
        OwareRules,
        {},
        "Oware under the international Abapa rules (the default): grand slam "
        "captures nothing, must feed, a repeated position ends the game "
        "(German Brettspielnetz text)",
    ),
    "oware": Preset(OwareRules, {}, "same as abapa"),
    "abapa-declared": Preset(
        OwareRules,
        {"cycle": "declaration"},
        "Abapa with cycles ended only by declaration, as the Czech "
        "federation's and the encyclopedia's texts describe",
    ),
    "mankala-pl": Preset(
        OwareRules,
        {"grand_slam": "forbidden", "cycle": "two_rounds"},
        "the Polish shop's Oware: a move leaving the opponent without seeds "
        "is forbidden; the game ends after two full rounds without change",
    ),
    "grand-slam-all": Preset(
        OwareRules, {"grand_slam": "capture_all"}, "Oware where a grand slam captures everything"
    ),
    "universal": Preset(
        UniversalRules, {}, "universal mancala for 2 players (options: players, variants 1-10)"
    ),
    "universal-3": Preset(UniversalRules, {"players": 3}, "universal mancala for 3 players"),
    "universal-4": Preset(UniversalRules, {"players": 4}, "universal mancala for 4 players"),
}


def get_rules(name: str = "abapa", **options: Any) -> RuleSet:
    """The rule set called ``name`` (a preset), with ``options`` overriding the preset's."""
    try:
        preset = PRESETS[name]
    except KeyError:
        known = ", ".join(sorted(PRESETS))
        raise UnknownRulesError(f"unknown rule set {name!r}; known: {known}") from None
    merged = {**preset.options, **options}
    # Keep the preset's name only when no option changed it, so that the name
    # alone is enough to rebuild the rule set from a record.
    label = name if not options or merged == preset.options else _family_name(preset.family)
    if preset.family is OwareRules:
        return OwareRules(label, merged)
    return UniversalRules(label, merged)


def _family_name(family: type[RuleSet]) -> str:
    return "abapa" if family is OwareRules else "universal"


def non_default_options(rules: RuleSet) -> dict[str, Any]:
    """The options of ``rules`` that differ from its name's preset (for records)."""
    base = get_rules(rules.name)
    return {k: v for k, v in rules.options.items() if base.options.get(k) != v}


def parse_rules_spec(spec: str) -> RuleSet:
    """A rule set from a command-line spec ``NAME[:key=value,...]``.

    Values are ``true``/``false``, integers, words, or ``+``-joined variant numbers.

    >>> parse_rules_spec("universal:players=3,variants=3+9").options["relay_sowing"]
    True
    >>> parse_rules_spec("abapa:grand_slam=forbidden").options["grand_slam"]
    'forbidden'
    """
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, raw = item.partition("=")
        if not eq:
            raise UnknownRulesError(f"option {item!r} must be written key=value")
        key = key.strip()
        raw = raw.strip()
        value: Any
        if key == "variants":
            try:
                value = [int(v) for v in raw.split("+") if v]
            except ValueError:
                raise UnknownRulesError(
                    f"variants must be numbers joined by + (got {raw!r})"
                ) from None
        elif raw.lower() in ("true", "yes", "on"):
            value = True
        elif raw.lower() in ("false", "no", "off"):
            value = False
        elif raw.isdigit():
            value = int(raw)
        else:
            value = raw
        options[key] = value
    return get_rules(name.strip() or "abapa", **options)
