"""One parser of rule specs (``NAME[:key=value,...]``) behind every command's ``--rules``.

``rules`` advertises specs with options; ``serve`` accepted them, ``analyze`` refused
them (issue 27, item 12). And ``analyze --explain`` names as the best reply the move
the printed line gives, not one a shorter search of its own found.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from companion.cli import build_parser
from companion.commands import engine as engine_cmd
from core import Position
from core.engine.analysis import analyze
from core.engine.explain import explain_move

CLI = [sys.executable, "-m", "companion.cli"]
SPEC = "universal:players=3,variants=3+9"


def test_every_rules_option_takes_a_spec_with_options() -> None:
    parser = build_parser()
    for argv in (
        ["analyze", "4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-0-0-0-1", "--rules", SPEC],
        ["serve", "--rules", SPEC],
        ["demo", "--rules", SPEC],
        ["virtual-board", "--rules", SPEC],
    ):
        assert parser.parse_args(argv).rules == SPEC, argv


def test_analyze_a_three_player_position_with_options(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser()
    engine_cmd.register(parser.add_subparsers(dest="command"))
    start = "4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-4-0-0-0-1"
    args = parser.parse_args(["analyze", start, "--rules", SPEC, "--time", "0.2", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best_name"][0] == "1" and len(out["moves"]) == 6


def test_a_bad_spec_is_one_line_that_says_where_to_look() -> None:
    result = subprocess.run(
        [*CLI, "analyze", "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S", "--rules", "universal:players=7"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "2, 3 or 4 players" in result.stderr and "oware-companion rules" in result.stderr


@pytest.mark.parametrize(
    "text",
    ["0-3-3-1-3-2-2-0-5-14-7-2-3-3-N", "3-14-1-10-2-9-1-0-5-0-0-1-2-0-S"],
)
def test_explained_best_reply_is_the_printed_lines_next_move(text: str) -> None:
    # positions where a separate 0.3 s search of the reply chose another move than the line
    position = Position.from_text(text)
    analysis = analyze(position, seconds=0.3)
    assert len(analysis.pv) >= 2
    explanation = explain_move(position, analysis.pv[0], seconds=0.3, analysis=analysis)
    assert explanation.reply == analysis.pv_names[1]
    assert (
        f"Best reply: {'South' if position.to_move else 'North'} plays {analysis.pv_names[1]}"
        in (explanation.text)
    )
