"""Board layout: where each pit sits in the rectified, top-down view of the board.

The camera image is warped ("rectified") so that the playing area becomes an
axis-aligned rectangle seen from straight above, North at the top and South
(player 0, who starts) at the bottom. The playing area is the rectangle that
holds the pits only: ``cols`` cells wide and ``rows`` cells tall, one pit
centred in each square cell. Stores, when a board has them, sit in one more
cell at each end (left and right) and are read as extra regions.

Pit numbering follows ``ARCHITECTURE.md``: sowing order, counter-clockwise.
South's pits 0–5 run left to right along the bottom row; North's pits 6–11
run right to left along the top row (pit 6 is top right, pit 11 top left).

>>> lay = BoardLayout()
>>> lay.cell_of(0), lay.cell_of(5), lay.cell_of(6), lay.cell_of(11)
((1, 0), (1, 5), (0, 5), (0, 0))
>>> lay.size
(384, 128)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """Geometry of a two-row board in the rectified view (pixels)."""

    cols: int = 6
    """Pits per row (per player)."""
    rows: int = 2
    """Rows of pits (2 for Oware)."""
    cell: int = 64
    """Side of one square cell of the rectified view, in pixels."""
    stores: bool = False
    """True when the board has a store at each end (read as extra regions)."""

    @property
    def pits(self) -> int:
        """Number of pits on the board."""
        return self.cols * self.rows

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the rectified playing area in pixels."""
        return self.cols * self.cell, self.rows * self.cell

    def cell_of(self, pit: int) -> tuple[int, int]:
        """(row, column) of a pit; row 0 is North (top), row 1 South (bottom)."""
        if not 0 <= pit < self.pits:
            raise ValueError(f"pit {pit} is not on a board of {self.pits} pits")
        if pit < self.cols:
            return self.rows - 1, pit
        return 0, self.cols - 1 - (pit - self.cols)

    def centre(self, pit: int) -> tuple[float, float]:
        """(x, y) of the centre of a pit in the rectified view."""
        row, col = self.cell_of(pit)
        return (col + 0.5) * self.cell, (row + 0.5) * self.cell

    def box(self, pit: int) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) of the square cell around a pit (x1, y1 exclusive)."""
        row, col = self.cell_of(pit)
        return col * self.cell, row * self.cell, (col + 1) * self.cell, (row + 1) * self.cell

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (part of a calibration file)."""
        return {"cols": self.cols, "rows": self.rows, "cell": self.cell, "stores": self.stores}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BoardLayout:
        """Inverse of :meth:`to_json`; missing keys take the defaults."""
        return cls(
            cols=int(data.get("cols", 6)),
            rows=int(data.get("rows", 2)),
            cell=int(data.get("cell", 64)),
            stores=bool(data.get("stores", False)),
        )
