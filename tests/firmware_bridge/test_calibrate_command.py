"""`oware-companion calibrate` on a sensor board, end to end, as a newcomer runs it.

On ``sim://`` the virtual board's own person does each step (its players stay still),
so the calibration finishes with nobody at the keyboard, ``--yes`` or not; a real
board with nobody to answer says so in one line (it crashed with EOFError, and on
``sim://`` never finished: "the board never settled" while the players played on).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.sources import open_source
from firmware_bridge.virtual_board import DeviceOptions, PlayerOptions, VirtualBoard

pytestmark = pytest.mark.timeout(120)

CLI = [sys.executable, "-m", "companion.cli", "--log-level", "WARNING"]


def calibrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "calibrate", *args],
        capture_output=True,
        text=True,
        timeout=100,
        stdin=subprocess.DEVNULL,  # nobody at the keyboard
    )


@pytest.mark.parametrize(("query", "cells"), [("speed=4", 14), ("speed=4&players=3", 21)])
def test_calibrate_the_virtual_board_with_yes(tmp_path: Path, query: str, cells: int) -> None:
    out = tmp_path / "scale.json"
    done = calibrate("--source", f"sim://?{query}", "--yes", "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "at the virtual board: took every seed off the board" in done.stdout
    assert f"Saved {out}" in done.stdout
    data = json.loads(out.read_text())
    assert len(data["tare_g"]) == len(data["scale"]) == cells
    assert 2.0 < data["seed_mean_g"] < 2.8  # the virtual seeds weigh 2.4 g on average
    # the file is one a serial:// board of that size reads
    source = open_source(f"serial:///dev/null-board?calibration={out}")
    assert source.calibration.channels == cells


def test_a_real_board_with_nobody_to_answer_says_so(tmp_path: Path) -> None:
    opts = DeviceOptions(seed=3, speed=4.0, player=PlayerOptions(max_moves=0))
    with VirtualBoard(opts) as board:  # a board on a port, as a real one would be
        done = calibrate("--source", f"serial://{board.port}", "--out", str(tmp_path / "c.json"))
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "EOFError" not in done.stderr
    assert "nobody at the keyboard" in done.stdout
    assert not (tmp_path / "c.json").exists()
    refused = calibrate("--source", f"serial://{tmp_path}/port", "--yes")
    assert refused.returncode == 1 and "--yes cannot calibrate a sensor board" in refused.stderr


def test_no_board_at_the_port_is_one_line(tmp_path: Path) -> None:
    """At the default log level the wizard's reason is all a person reads (the link's own
    "link reconnecting" line would say it twice)."""
    port = tmp_path / "no-board"
    done = subprocess.run(
        [sys.executable, "-m", "companion.cli", "calibrate", "--source", f"serial://{port}"]
        + ["--connect-timeout", "1", "--out", str(tmp_path / "c.json")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stdout.startswith("calibration failed: no sensor board answered within 1 s")
    assert f"{port}: no such port: is the sensor board plugged in?" in done.stdout
    assert done.stderr == ""
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("source", ["sim://", "video:///no-such-video.avi"])
def test_a_calibration_that_could_not_be_saved_is_refused_before_the_first_step(
    tmp_path: Path, source: str
) -> None:
    """A person would go through every step, then lose them at the save: the file the
    calibration goes to is checked first (a folder, or a folder that cannot be made)."""
    not_a_folder = tmp_path / "notes.txt"
    not_a_folder.write_text("")
    for out, why in [
        (not_a_folder / "c.json", f"cannot write the calibration to {not_a_folder / 'c.json'}"),
        (tmp_path, f"{tmp_path} is a folder: give --out a file, such as"),
    ]:
        done = calibrate("--source", source, "--out", str(out), "--yes")
        assert done.returncode != 0 and why in done.stderr, done.stderr
        assert "Step" not in done.stdout and done.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no probe left
