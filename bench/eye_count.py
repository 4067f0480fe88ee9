"""Count labelled pit photographs by eye, blind to their labels, and compare.

    python -m bench.eye_count sheets --dataset DIR [--split held_out|train|all]
                                     [--counts 0-5] [--out FOLDER] [--seed S]
    python -m bench.eye_count score --sheets FOLDER [--beliefs FILE.npz]

``sheets`` writes numbered, label-free contact sheets of the chosen photographs, a key
and a ``counts.txt`` template for the person to fill in with what they count
(:mod:`vision.evaluation.eye_count`). ``score`` reads the filled-in ``counts.txt`` and
prints how often the eye agrees with the labels, and every photograph where they differ.
With ``--beliefs`` (the file ``python -m bench.vision --save-beliefs`` writes) it also
prints what the counter read on those photographs and how many of its errors are
photographs where it agrees with the eye.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from vision.evaluation.eye_count import (
    COUNTS,
    KEY,
    counter_readings,
    read_counts,
    score,
    write_sheets,
)


def count_range(text: str) -> range:
    """``"0-5"`` → 0 … 5; ``"7"`` → only 7."""
    low, _, high = text.partition("-")
    try:
        first, last = int(low), int(high or low)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a count or range of counts: {text!r}") from None
    if first < 0 or last < first:
        raise argparse.ArgumentTypeError(f"not a range of counts: {text!r}")
    return range(first, last + 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.eye_count", description="blind counting by eye (see the docstring)"
    )
    verbs = parser.add_subparsers(dest="verb", required=True)
    sheets = verbs.add_parser("sheets", help="write numbered, label-free contact sheets")
    sheets.add_argument("--dataset", type=Path, required=True, help="<count>/<image>.png folder")
    sheets.add_argument("--split", choices=["held_out", "train", "all"], default="held_out")
    sheets.add_argument("--counts", type=count_range, default=range(0, 6), help="e.g. 0-5")
    sheets.add_argument("--out", type=Path, default=Path("eye-count"))
    sheets.add_argument("--seed", type=int, default=7, help="the shuffle")
    scored = verbs.add_parser("score", help="compare the filled-in counts with the labels")
    scored.add_argument("--sheets", type=Path, required=True, help="the folder 'sheets' wrote")
    scored.add_argument("--beliefs", type=Path, help="a python -m bench.vision --save-beliefs file")
    args = parser.parse_args(argv)
    try:
        if args.verb == "sheets":
            photos, pages = write_sheets(args.dataset, args.split, args.counts, args.out, args.seed)
            print(
                f"{photos} photographs on {pages} sheet{'s' * (pages != 1)} in {args.out};"
                f" write what you count"
                f" in {args.out / COUNTS}, then run: score --sheets {args.out}"
            )
            return 0
        key = json.loads((args.sheets / KEY).read_text(encoding="utf-8"))
        counted = read_counts(args.sheets / COUNTS, len(key))
        read = counter_readings(args.beliefs) if args.beliefs is not None else None
        print("\n".join(score(key, counted, read).lines()))
        return 0
    except (OSError, ValueError, KeyError) as exc:
        print(f"eye_count: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
