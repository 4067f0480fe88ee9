"""A progress bar for the long commands (the match bench, the book build, the fit).

tqdm's when it is installed; otherwise one line on a text stream (stderr),
redrawn in place::

    book [##########....................] 80/233 positions 160s, 306s left D d19

:class:`Progress` counts steps of equal weight; the endgame build, whose layers
differ in size, has its own bar (``companion.endgame_store.ProgressBar``).
"""

from __future__ import annotations

import time
from typing import Any, TextIO


class Progress:
    """``total`` steps, ``initial`` of them done before this run (a resumed build)."""

    def __init__(
        self, total: int, stream: TextIO, *, label: str, unit: str, initial: int = 0
    ) -> None:
        self.total, self.done, self.stream = total, initial, stream
        self.label, self.unit, self.initial = label, unit, initial
        self.started = time.monotonic()
        self.bar: Any = None
        try:
            from tqdm import tqdm  # type: ignore[import-untyped]

            self.bar = tqdm(total=total, initial=initial, unit=unit, file=stream)
        except ImportError:
            self._draw("")

    def step(self, note: str = "") -> None:
        """One more step done; ``note`` says which."""
        self.done += 1
        if self.bar is not None:
            self.bar.set_postfix_str(note)
            self.bar.update(1)
        else:
            self._draw(note)

    def write(self, line: str, out: TextIO) -> None:
        """Print ``line`` on ``out`` without breaking the bar."""
        if self.bar is not None:
            self.bar.write(line, file=out)
        else:
            self.stream.write("\r" + " " * 70 + "\r")
            out.write(line + "\n")
            out.flush()
            self._draw("")

    def close(self) -> None:
        """End the bar's line."""
        if self.bar is not None:
            self.bar.close()
        else:
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, note: str) -> None:
        width = 30
        filled = int(width * self.done / max(self.total, 1))
        elapsed = time.monotonic() - self.started
        made = self.done - self.initial
        left = f", {elapsed / made * (self.total - self.done):.0f}s left" if made else ""
        self.stream.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
            f"{self.unit} {elapsed:.0f}s{left} {note:<36}"
        )
        self.stream.flush()
