"""`oware-companion rules`: list the rule sets and presets with their options, in words."""

from __future__ import annotations

import argparse
import json
import textwrap

from core.rules import PRESETS, RuleSet, get_rules, parse_rules_spec


def rules_spec(spec: str) -> str:
    """The argparse type of every ``--rules`` option: a spec ``NAME[:key=value,...]``
    checked by the one parser of rule specs (:func:`core.rules.parse_rules_spec`), which
    every command then reads it with; a bad one is a one-line usage error.

    >>> rules_spec("universal:players=3,variants=3+9")
    'universal:players=3,variants=3+9'
    """
    try:
        parse_rules_spec(spec)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (see `oware-companion rules`)") from None
    return spec


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("rules", help="list the rule sets, presets and their options")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.json:
        out = {
            name: {
                "family": get_rules(name).family,
                "text": preset.text,
                "options": get_rules(name).options,
                "description": get_rules(name).describe(),
            }
            for name, preset in PRESETS.items()
        }
        print(json.dumps(out, indent=2))
        return 0
    print(rules_text())
    return 0


def rules_text() -> str:
    """The rule sets and options as readable text."""
    lines = ["Rule sets (use --rules NAME; options as --rules NAME:key=value,...):", ""]
    for name, preset in PRESETS.items():
        lines.append(f"  {name}")
        lines.extend(
            textwrap.wrap(preset.text, 76, initial_indent="      ", subsequent_indent="      ")
        )
    families: dict[str, type[RuleSet]] = {}
    for name in PRESETS:
        rules = get_rules(name)
        families.setdefault(rules.family, type(rules))
    for family, cls in families.items():
        lines += ["", f"Options of {family}:"]
        for info in cls.option_info():
            choices = " | ".join(map(str, info.choices))
            lines.append(f"  {info.name} = {choices}   (default {info.default})")
            lines.extend(
                textwrap.wrap(info.text, 76, initial_indent="      ", subsequent_indent="      ")
            )
    lines += ["", "Universal variants may also be given by number: variants=3+9"]
    return "\n".join(lines)
