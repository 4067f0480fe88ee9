"""The calibration wizard and `calibrate_serial`, against the virtual board over a real pty.

The "person" is a callback that answers the prompts by changing the virtual
board's physics: emptying it, putting a known weight on each cell, laying out
the start position.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from companion.commands import bridge as bridge_cmd
from companion.sources import open_source
from firmware_bridge.calibration_wizard import CalibrationError, run_calibration
from firmware_bridge.source import SimSource
from firmware_bridge.virtual_board import DeviceOptions, PlayerOptions
from firmware_bridge.weights import Calibration

pytestmark = pytest.mark.timeout(120)


def still_board(seed: int = 2) -> SimSource:
    """A virtual board whose player never moves (the person is the test)."""
    return SimSource(DeviceOptions(seed=seed, speed=4.0, player=PlayerOptions(max_moves=0)))


class Person:
    """Answers the wizard's prompts by acting on the virtual board."""

    def __init__(self, src: SimSource, known_weight: str = "") -> None:
        self.src = src
        self.known = known_weight
        self.prompts: list[str] = []
        self.on: int | None = None

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        ph = self.src.board.physics
        if self.on is not None:  # take the known weight off the previous cell
            ph.cup_g[self.on] -= float(self.known)
            self.on = None
        if prompt.startswith("Step 1/3"):
            ph.set_counts([0] * 12, [0, 0])
        elif prompt.startswith("Step 2/3"):
            return self.known
        elif "Put the" in prompt:
            self.on = len([p for p in self.prompts if "Put the" in p]) - 1
            ph.cup_g[self.on] += float(self.known)
        elif prompt.startswith("Step 3/3"):
            ph.set_counts([4] * 12, [0, 0])
        return ""


def test_wizard_learns_tare_and_seed_weight(tmp_path: Path) -> None:
    src = still_board()
    person = Person(src)
    said: list[str] = []
    out = tmp_path / "cal.json"
    cal = run_calibration(src, out, person.ask, said.append)
    true_seeds = [w for pit in src.board.physics.seeds[:12] for w in pit]
    assert len(true_seeds) == 48
    assert cal.seed_mean_g == pytest.approx(sum(true_seeds) / 48, abs=0.03)
    assert 0.0 < cal.seed_sd_g < 0.5
    assert 0.005 < cal.noise_g < 0.2
    assert Calibration.load(out) == cal
    assert any("Saved" in s for s in said)
    assert src.board.fw_tare_g[0] == pytest.approx(src.board.physics.cup_g[0], abs=0.1)


@pytest.mark.slow
def test_wizard_sets_scales_with_a_known_weight(tmp_path: Path) -> None:
    src = still_board(3)
    # A cell whose gain is 5 % off, as the firmware would see before calibration.
    src.board.fw_scale[5] = 0.95
    person = Person(src, known_weight="100")
    run_calibration(src, tmp_path / "cal.json", person.ask, lambda _: None)
    assert len([p for p in person.prompts if "Put the" in p]) == 14
    assert src.board.fw_scale[5] == pytest.approx(1.0, abs=0.005)
    assert all(s == pytest.approx(1.0, abs=0.005) for s in src.board.fw_scale)


def test_wizard_refuses_a_start_position_with_an_empty_pit(tmp_path: Path) -> None:
    src = still_board(4)

    def ask(prompt: str) -> str:
        if prompt.startswith("Step 1/3"):
            src.board.physics.set_counts([0] * 12, [0, 0])
        elif prompt.startswith("Step 3/3"):
            src.board.physics.set_counts([4] * 11 + [0], [0, 0])
        return ""

    with pytest.raises(CalibrationError, match="no seeds seen on f"):
        run_calibration(src, tmp_path / "cal.json", ask, lambda _: None)
    assert not (tmp_path / "cal.json").exists()


def test_calibrate_serial_command_and_the_saved_file_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The CLI handler end to end (sim:// stands in for the board), then serial:// loads it."""
    src = still_board(5)
    person = Person(src)
    monkeypatch.setattr(bridge_cmd, "open_source", lambda url: src)
    monkeypatch.setattr("builtins.input", person.ask)
    out = tmp_path / "scale.json"
    rc = bridge_cmd.calibrate_serial(argparse.Namespace(source="sim://", out=str(out)))
    assert rc == 0
    assert "One seed weighs" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert data["format"] == "oware-scale-calibration"
    loaded = open_source(f"serial:///dev/null-board?calibration={out}")
    assert loaded.calibration.seed_mean_g == data["seed_mean_g"]


def test_calibrate_serial_reports_a_missing_board(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = argparse.Namespace(
        source=f"serial://{tmp_path}/no-such-port",
        out=str(tmp_path / "c.json"),
        connect_timeout=0.5,
    )
    assert bridge_cmd.calibrate_serial(args) == 1
    said = capsys.readouterr().out
    # why, in the link's words (the port it could not open), and what to check
    assert "no sensor board answered within 0.5 s: " in said and "no-such-port" in said, said
    assert said.rstrip().endswith("(and check the USB cable)"), said
    assert not (tmp_path / "c.json").exists()
