"""``oware-companion virtual-board`` (issue 26, defect 12): SIGTERM removes its link and
temporary folder; ``--link PATH`` puts the port at a fixed path, again after a restart."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _board(*args: str) -> tuple[subprocess.Popen[str], Path]:
    cmd = [sys.executable, "-m", "companion.cli", "virtual-board", "--speed", "0", *args]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stderr is not None
    line = proc.stdout.readline()
    assert line.startswith("virtual sensor board on serial://"), line + proc.stderr.read()
    return proc, Path(line.strip().removeprefix("virtual sensor board on serial://"))


def _terminate(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(20) == 0
    assert proc.stderr is not None and "Traceback" not in proc.stderr.read()


def test_sigterm_removes_the_link_and_its_folder() -> None:
    proc, port = _board()
    assert port.is_symlink()
    _terminate(proc)
    assert not port.exists() and not port.is_symlink()
    assert not port.parent.exists()


def test_a_fixed_link_comes_back_on_the_same_path(tmp_path: Path) -> None:
    link = tmp_path / "board"
    for _ in range(2):
        proc, port = _board("--link", str(link))
        assert port == link and link.is_symlink()
        _terminate(proc)
        assert not link.is_symlink()
    # a link left behind by a killed board is replaced
    proc, _ = _board("--link", str(link))
    proc.kill()
    proc.wait(10)
    assert link.is_symlink()
    proc, port = _board("--link", str(link))
    assert port == link and link.resolve().exists()
    _terminate(proc)


def test_a_link_path_that_is_a_file_is_refused(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("mine")
    cmd = [sys.executable, "-m", "companion.cli", "virtual-board", "--link", str(taken)]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "is not a link" in done.stderr
    assert "Traceback" not in done.stderr and taken.read_text() == "mine"


def test_a_link_in_a_folder_that_takes_no_link_is_one_line() -> None:
    """/proc is a folder, but no link can be made in it: said in one line, no traceback."""
    cmd = [sys.executable, "-m", "companion.cli", "virtual-board", "--link", "/proc/oware-port"]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == (
        "oware-companion: error: cannot make the port /proc/oware-port (No such file or"
        " directory): give --link a path in a folder you can write\n"
    )
