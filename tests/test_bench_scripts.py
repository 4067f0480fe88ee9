"""Every bench is a script run as ``python -m bench.NAME`` from the repository root.

Each starts (``--help``) as a real subprocess and names itself that way in its usage; none
reaches into ``sys.path`` or loads files by path; libraries live in the product packages.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SCRIPTS = sorted(
    p.stem for p in BENCH.glob("*.py") if 'if __name__ == "__main__":' in p.read_text("utf-8")
)


def test_the_benches_are_found() -> None:
    assert {"eye_count", "learning_curve", "rules", "vision"} <= set(SCRIPTS)


def test_every_bench_is_listed_in_the_benchmarks_page() -> None:
    # (bench.referee_games, the referee's goals, and bench.hall were missing from it)
    page = (ROOT / "docs" / "BENCHMARKS.md").read_text("utf-8")
    helpers = {"hall_board"}  # a process bench.hall starts, one per group of boards
    missing = [n for n in SCRIPTS if n not in helpers and f"python -m bench.{n} " not in page]
    assert missing == []


@pytest.mark.parametrize("name", SCRIPTS)
def test_a_bench_starts_as_a_module_and_says_how_to_run_it(name: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the root is enough
    done = subprocess.run(
        [sys.executable, "-m", f"bench.{name}", "--help"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: python -m bench.{name} ")


@pytest.mark.parametrize("path", sorted(BENCH.glob("*.py")), ids=lambda p: p.name)
def test_no_bench_reaches_into_sys_path_or_loads_files_by_path(path: Path) -> None:
    text = path.read_text("utf-8")
    assert "sys.path" not in text
    assert "spec_from_file_location" not in text


def test_the_referee_bench_says_how_many_desyncs_were_found_within_two_still_boards(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # (the goal is counted per session: a median and a maximum do not say it)
    from bench import referee_games

    argv = ["--games", "0", "--mistakes", "0", "--desyncs", "1", "--models", "sensor"]
    assert referee_games.main([*argv, "--seed", "2000"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if "desyncs found again" in x)
    assert "5/5 (5 within two still boards; 5 to a move confirmed)" in line
