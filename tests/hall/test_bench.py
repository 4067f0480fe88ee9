"""The hall benchmark itself, small: it must keep measuring what it says it measures."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from bench.hall_board import schedule

ROOT = Path(__file__).resolve().parents[2]


def test_schedule_starts_every_board_with_its_header_then_merges_their_lines(
    tmp_path: Path,
) -> None:
    template = tmp_path / "t.jsonl"
    lines = [{"format": "x"}, {"t": 10.0}, {"t": 12.0, "type": "move"}, {"t": 20.0}]
    template.write_text("".join(json.dumps(line) + "\n" for line in lines))
    plan = schedule(template, pace=2.0, delays=[0.0, 1.5])
    assert [(due, board) for due, board, _, _ in plan[:2]] == [(0.0, 0), (0.0, 1)]
    # times from the first reading, halved by the pace, each board after its delay
    assert [(due, board, event) for due, board, _, event in plan[2:]] == [
        (0.0, 0, False),
        (1.0, 0, True),
        (1.5, 1, False),
        (2.5, 1, True),
        (5.0, 0, False),
        (6.5, 1, False),
    ]


def test_a_small_hall_bench_delivers_every_event_and_times_the_pages() -> None:
    # as people run it: a separate process (its pages run an asyncio loop of their own)
    command = [
        sys.executable, "-m", "bench.hall", "--boards", "3", "--seconds", "8",
        "--speed", "3", "--spectators", "6", "--probes", "2", "--per-process", "2",
    ]  # fmt: skip
    out = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=True,
    )
    result = json.loads(out.stdout)
    shutil.rmtree(result["folder"], ignore_errors=True)
    delivered = result["delivered"]
    assert delivered["logged"] == delivered["taken"] > 0
    assert delivered["boards_not_exact"] == []
    assert result["page_delay_ms"]["n"] > 0 and result["page_delay_ms"]["median"] > 0
    assert result["feed"]["feeds_ended"] == 0
