"""The `analyze` and `endgame` subcommands, called through their handlers."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from companion import endgame_store
from companion.commands import engine as engine_cmd
from core.engine import retrograde


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    engine_cmd.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(list(argv))


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(endgame_store.CACHE_ENV, str(tmp_path))
    return tmp_path


def test_analyze_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse("analyze", "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S", "--time", "0.3", "--json")
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best_name"] in "ABCDEF" and len(out["moves"]) == 6
    assert out["pv_names"][0] == out["best_name"]
    assert out["depth"] >= 2 and out["endgame_database"] == -1


def test_analyze_table_with_explanation(capsys: pytest.CaptureFixture[str]) -> None:
    args = parse("analyze", "0-0-0-0-0-1-1-1-0-0-0-0-24-21-S", "--time", "0.3", "--explain", "F")
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "win by" in out and "best F" in out and "solved exactly" in out
    assert "South plays F" in out


def test_endgame_build_then_analyze_uses_it(
    capsys: pytest.CaptureFixture[str], private_cache: Path
) -> None:
    args = parse("endgame", "build", "--max-seeds", "6")
    assert args.func(args) == 0
    out, err = capsys.readouterr()
    assert "layer  6:" in out and "endgame [" in err
    assert endgame_store.complete_layers(private_cache) == 7
    status = parse("endgame", "status")
    assert status.func(status) == 0
    assert "up to 6 seeds" in capsys.readouterr().out
    args = parse("analyze", "1-0-0-0-2-0-0-1-0-0-1-0-24-19-S", "--time", "0.5", "--json")
    assert args.func(args) == 0
    out_json = json.loads(capsys.readouterr().out)
    assert out_json["endgame_database"] == 6
    assert all(m["final"] and sum(m["final"]) == 48 for m in out_json["moves"])  # from it


def test_endgame_build_prints_each_layer_as_it_ends(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A layer's line is out before the next layer starts (an hour's build shows its
    layers as they come), on a line of its own: the bar's line is wiped first."""
    printed_before: dict[int, str] = {}
    build_layer = retrograde.build_layer

    def noting(seeds: int, *rest: Any) -> Any:
        printed_before[seeds] = capsys.readouterr().out
        return build_layer(seeds, *rest)

    monkeypatch.setattr(retrograde, "build_layer", noting)
    args = parse("endgame", "build", "--max-seeds", "4")
    assert args.func(args) == 0
    assert "layer  2:" in printed_before[3] and "layer  3:" not in printed_before[3]
    assert "layer  3:" in printed_before[4]
    assert "\r" + " " * endgame_store.BAR_LINE + "\r" in capsys.readouterr().err


def test_endgame_build_with_bounds_reports_them(
    capsys: pytest.CaptureFixture[str], private_cache: Path
) -> None:
    args = parse("endgame", "build", "--max-seeds", "5", "--bounds", "--quiet")
    assert args.func(args) == 0
    out = capsys.readouterr().out
    # (the bounds of the small layers come with their values, closed by proofs)
    assert "layer  5:" in out and "bounds 0 open (" in out and "closed by proofs" in out
    assert "game bounds up to 5 seeds" in out
    assert endgame_store.complete_bound_layers(private_cache) == 6
    status = parse("endgame", "status")
    assert status.func(status) == 0
    assert "game bounds up to 5 seeds" in capsys.readouterr().out


def test_analyze_three_players(capsys: pytest.CaptureFixture[str]) -> None:
    text = "-".join(["4"] * 18 + ["0"] * 3 + ["1"])
    args = parse("analyze", text, "--rules", "universal-3", "--time", "0.3", "--json")
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["engine"] == "paranoid" and out["best_name"].startswith("1")


def test_bad_input_is_an_error() -> None:
    args = parse("endgame", "build", "--max-seeds", "99")
    with pytest.raises(ValueError):
        args.func(args)
    for option, value in (("--close-up-to", "11"), ("--proof-nodes", "0")):
        args = parse("endgame", "build", "--max-seeds", "6", option, value)
        with pytest.raises(ValueError, match=option):
            args.func(args)


def test_analyze_with_an_outside_engine_through_the_protocol(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import shlex
    import sys

    root = Path(__file__).resolve().parents[2]
    monkeypatch.setenv("PYTHONPATH", str(root))
    ours = f"{shlex.quote(sys.executable)} -m companion.cli engine --no-endgame"
    text = "0-0-0-0-0-1-1-1-0-0-0-0-24-21-S"  # F wins at once
    args = parse("analyze", text, "--time", "0.5", "--json", "--engine", ours)
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best_name"] == "F" and out["mate"] == 1 and out["engine"].startswith("oware")
    args = parse("analyze", text, "--time", "0.5", "--engine", "/no/such/engine")
    with pytest.raises(ValueError, match="cannot start the engine"):
        args.func(args)
