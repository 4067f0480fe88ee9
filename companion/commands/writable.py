"""A file a command writes at its end, checked before the minutes of work before it.

``calibrate`` walks a person through photos or weighings, ``train-counter`` fine-tunes
networks for minutes: a file that cannot be saved at the end is refused first, in one
line that says what to do.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def check_can_write(out: Path, what: str, option: str = "--out") -> None:
    """Raise :class:`ValueError` unless ``what`` can be written at ``out`` (its folder is
    made if missing, as saving would make it)."""
    if out.is_dir():
        raise ValueError(
            f"{out} is a folder: give {option} a file, such as {out / 'calibration.json'}"
        )
    probe = out.parent / f".{out.name}.write-test-{os.getpid()}"
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        probe.write_bytes(b"")
    except OSError as exc:
        raise ValueError(
            f"cannot write {what} to {out} ({exc.strerror or exc}): give {option} a file"
            " in a folder you can write"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            probe.unlink()
