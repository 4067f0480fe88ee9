"""Numbers out of range on the command line are one-line usage errors, not taken as given
(``analyze --time -1`` searched two plies; ``serve --engine-seconds -1`` served
suggestions with no time to think; ``book build --max-positions -1`` did nothing)."""

from __future__ import annotations

import pytest

from companion.cli import main

START = "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S"
BOOK = ["book", "build", "--plies", "1", "--nodes", "10"]


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["analyze", "--time", "-1", START], "'-1' is not a number of seconds above 0"),
        (["analyze", "--time", "0", START], "'0' is not a number of seconds above 0"),
        (["analyze", "--time", "nan", START], "'nan' is not a number of seconds above 0"),
        (["serve", "--engine-seconds", "-1"], "'-1' is not a number of seconds above 0"),
        (["calibrate", "--source", "sim://", "--connect-timeout", "-1"], "above 0"),
        (["virtual-board", "--speed", "-1"], "'-1' is not a number of 0 or more"),
        (["virtual-board", "--mistakes", "2"], "'2' is not a probability from 0 to 1"),
        (["virtual-board", "--faults", "-0.5"], "'-0.5' is not a number of 0 or more"),
        ([*BOOK, "--max-positions", "0"], "'0' is not a whole number of 1 or more"),
        ([*BOOK, "--max-positions", "x"], "'x' is not a whole number of 1 or more"),
    ],
)
def test_a_number_out_of_range_is_a_usage_error(
    argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("oware-companion")


def test_zero_is_a_speed_of_the_virtual_board() -> None:
    # (0: as fast as it is read, as sim://'s speed option)
    from companion.cli import build_parser

    args = build_parser().parse_args(["virtual-board", "--speed", "0", "--mistakes", "1"])
    assert (args.speed, args.mistakes) == (0.0, 1.0)
