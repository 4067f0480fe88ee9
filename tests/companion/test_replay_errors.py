"""``oware-companion replay`` on malformed logs (issue 26, defect 12): one line naming the
line at fault, exit 1, no traceback; and never a ``NaN`` in its JSON output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from core import Position
from core.referee.session import session_header

ROOT = Path(__file__).resolve().parents[2]
HEADER = json.dumps(session_header(Position.initial()))
OBS = '{"t": 1.0, "source": "sim", "stable": true, "pits": [4,4,4,4,4,0,5,5,5,5,4,4]}'


def _replay(path: Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "companion.cli", "replay", str(path)]
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)


def _header(**changes: object) -> str:
    return json.dumps({**json.loads(HEADER), **changes})


CASES = {
    "referee-not-object": ([_header(referee=[1]), OBS], 1),
    "referee-not-number": ([_header(referee={"settle_time": "abc"}), OBS], 1),
    "start-missing": ([_header(start=None), OBS], 1),
    "command-time-text": ([HEADER, '{"command": "undo", "t": "abc"}', OBS], 2),
    "nan-time": ([HEADER, OBS.replace('"t": 1.0', '"t": NaN'), OBS], 2),
    "infinite-time": ([HEADER, OBS.replace('"t": 1.0', '"t": 1e999'), OBS], 2),
    "not-an-object": ([HEADER, "[1]", OBS], 2),
    "not-json-middle": ([HEADER, OBS, "{oops", OBS], 3),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_malformed_log_is_one_line_with_its_line_number(tmp_path: Path, case: str) -> None:
    lines, bad = CASES[case]
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(lines) + "\n")
    done = _replay(path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert f"line {bad}" in done.stderr, done.stderr


def test_invalid_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(HEADER.encode() + b"\n" + OBS.encode() + b"\n" + b'{"t": "\xff"}\n' + b"\n")
    done = _replay(path)
    assert done.returncode == 1 and "line 3" in done.stderr and "Traceback" not in done.stderr


def test_the_json_output_never_holds_nan(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join([HEADER, OBS, OBS.replace("1.0", "3.0")]) + "\n")
    done = _replay(path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()
    for line in done.stdout.splitlines():
        json.loads(line, parse_constant=lambda name: pytest.fail(f"{name} in the output"))
