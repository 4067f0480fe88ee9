"""The calibration's layouts: where the user puts how many seeds, and the check of a photo.

The empty board and the start position show a counter only two counts (0 and 4).
The layouts that follow put a different count in every pit: 0 to 9 seeds in ten
pits and the rest of the 48 seeds in the last two; each next layout is the same
turned by one more pit, so with the four the calibration asks for ten pits show four
different counts (B and C three) and every count is seen in at least four different
pits (and so under as many lights).

>>> LAYOUTS[0].pits
(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2)
>>> LAYOUTS[1].pits
(2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 1)
>>> sum(LAYOUTS[1].pits)
48

Before a photo is accepted, the counter reads it and :func:`check_layout` asks one
question the counter can answer even on a board it has never seen: of all the ways
the asked counts could have been laid out by a slip of the hand (turned by any number
of pits, or laid in the other sowing direction), is the asked one the most likely, by
a clear margin? A counter that is not sure of the exact counts still knows that a
pile of 9 is taller than a pile of 2, which is all the comparison needs.

>>> import numpy as np
>>> sure = np.eye(49)[list(LAYOUTS[0].pits)]  # a counter that reads every pit right
>>> check_layout(sure, LAYOUTS[0]).accepted
True
>>> check_layout(sure, LAYOUTS[1]).accepted  # the user forgot to turn the layout
False
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from vision.geometry.layout import BoardLayout
from vision.image_types import Image

SEEDS = 48
"""Seeds in an Oware set: every layout uses all of them."""
LETTERS = "ABCDEFabcdef"
"""Pit names in sowing order (ARCHITECTURE.md: South A–F, North a–f)."""
MARGIN = 3.0
"""How much more likely (natural log, about 20 times) the asked layout must be than the
likeliest slip of the hand before the photo is accepted."""
FLOOR = 1e-4
"""Smallest belief a count is given when scoring a layout: one pit the counter reads
badly must not outweigh the eleven others."""


@dataclass(frozen=True)
class Layout:
    """Seeds to put in each pit (sowing order) for one calibration photo."""

    name: str
    pits: tuple[int, ...]

    def words(self) -> str:
        """The instruction in one line, pit by pit.

        >>> LAYOUTS[0].words()[:40]
        'A: 0, B: 1, C: 2, D: 3, E: 4, F: 5, a: 6'
        """
        return ", ".join(f"{LETTERS[i]}: {n}" for i, n in enumerate(self.pits))


def spread_layout(shift: int = 0, pits: int = 12) -> Layout:
    """0 … 9 seeds in ten pits, the rest of the 48 in the last two, turned by ``shift`` pits.

    >>> spread_layout(11).pits
    (1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 0)
    """
    base = list(range(10))
    rest = SEEDS - sum(base)  # 3: one pit of 1 and one of 2
    base += [rest // 2, rest - rest // 2]
    if pits != len(base):
        raise ValueError(f"the calibration layouts are for 12-pit boards, not {pits}")
    turned = tuple(base[(i - shift) % pits] for i in range(pits))
    return Layout(f"counts 0-9, turned by {shift}" if shift else "counts 0-9", turned)


LAYOUTS: tuple[Layout, ...] = tuple(spread_layout(k) for k in range(4))
"""The layouts the calibration asks for, in order, after the empty board and the start.
Four, as measured on a board the counter never saw (``docs/VISION.md``, "How many
calibration photographs"): two more than two cost the user two minutes and gain about six
points of pits read exactly; a second photograph of each gains nothing more."""
EMPTY = Layout("empty board", (0,) * 12)
START = Layout("start position", (4,) * 12)


def calibration_layouts(extra: int = len(LAYOUTS)) -> list[Layout]:
    """Everything the calibration asks for: empty, start, then ``extra`` spread layouts."""
    if not 0 <= extra <= 12:
        raise ValueError(f"between 0 and 12 spread layouts, not {extra}")
    return [EMPTY, START] + [spread_layout(k) for k in range(extra)]


def crops_per_count(layouts: Sequence[Layout]) -> dict[int, int]:
    """How many labelled pit photos of each count a calibration gives.

    >>> crops_per_count(calibration_layouts(2))[0], crops_per_count(calibration_layouts(2))[7]
    (14, 2)
    """
    out: dict[int, int] = {}
    for lay in layouts:
        for n in lay.pits:
            out[n] = out.get(n, 0) + 1
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class LayoutCheck:
    """What the counter thinks of a photo that should show a layout."""

    accepted: bool
    margin: float
    """Log-likelihood of the asked layout minus that of the likeliest other arrangement."""
    likeliest: str
    """The likeliest slip of the hand ("turned by 1 pit", "mirrored", …) or "as asked"."""
    doubtful: tuple[int, ...]
    """Pits whose belief gives the asked count little weight (a misplaced pile, maybe)."""

    def words(self, layout: Layout) -> str:
        """One line for the user."""
        if self.accepted:
            return f"the photo shows {layout.name}: accepted"
        hint = ""
        if self.doubtful:
            names = ", ".join(f"{LETTERS[p]} ({layout.pits[p]})" for p in self.doubtful)
            hint = f"; check pits {names}"
        if self.likeliest != "as asked":
            return (
                f"the seeds look {self.likeliest} from what was asked{hint}: "
                f"lay them out as the picture shows and take the photo again"
            )
        return (
            f"the counter cannot tell this photo from a slip of the hand{hint}: "
            f"check the layout and the light, and take the photo again"
        )


def _arrangements(layout: Layout) -> list[tuple[str, tuple[int, ...]]]:
    """The asked layout turned by every number of pits, and laid the other way round."""
    n = len(layout.pits)
    out = []
    for mirror in (False, True):
        base = layout.pits[::-1] if mirror else layout.pits
        for shift in range(n):
            pits = tuple(base[(i - shift) % n] for i in range(n))
            if mirror:
                name = f"mirrored and turned by {shift} pit{'s' * (shift != 1)}"
            else:
                name = f"turned by {shift} pit{'s' * (shift != 1)}"
            out.append((name, pits))
    return out


def check_layout(
    beliefs: npt.NDArray[np.float64], layout: Layout, margin: float = MARGIN
) -> LayoutCheck:
    """Whether the counter's ``beliefs`` (one row per pit) show ``layout`` rather than a slip.

    Only distinct arrangements compete (a layout equal to its own mirror image cannot be
    told from it, and needs not be).
    """
    if beliefs.shape[0] != len(layout.pits):
        raise ValueError(f"expected beliefs for {len(layout.pits)} pits, got {beliefs.shape[0]}")
    logp = np.log(np.maximum(beliefs, FLOOR))
    cols = beliefs.shape[1]

    def score(pits: tuple[int, ...]) -> float:
        return float(sum(logp[i, min(c, cols - 1)] for i, c in enumerate(pits)))

    asked = score(layout.pits)
    rivals = [(score(p), name) for name, p in _arrangements(layout) if p != layout.pits]
    best, name = max(rivals) if rivals else (-np.inf, "")
    gap = asked - best
    doubtful = tuple(i for i, c in enumerate(layout.pits) if beliefs[i, min(c, cols - 1)] < 0.01)
    likeliest = "as asked" if gap >= 0 else name
    return LayoutCheck(bool(gap >= margin), float(gap), likeliest, doubtful)


def layout_picture(layout: Layout, board: BoardLayout | None = None, cell: int = 120) -> Image:
    """A picture of the board seen from South's seat, with the seeds to put in each pit.

    Each pit shows its letter, its number of seeds in large figures and that many dots,
    so the user can lay the seeds out by looking, without reading a list.

    >>> layout_picture(LAYOUTS[0]).shape
    (380, 720, 3)
    """
    import cv2  # the picture is for the camera commands; the layouts need only numpy

    lay = board or BoardLayout()
    if lay.pits != len(layout.pits):
        raise ValueError(f"a layout of {len(layout.pits)} pits on a board of {lay.pits}")
    font = cv2.FONT_HERSHEY_SIMPLEX
    ink, aa = (40, 40, 40), cv2.LINE_AA
    label = cell // 4  # a line under each pit: its letter and its number of seeds
    top = cell // 3
    height = top + lay.rows * (cell + label) + top
    img = np.full((height, lay.cols * cell, 3), (205, 225, 240), np.uint8)
    cv2.putText(img, f"{layout.name}  (North)", (10, top - 12), font, 0.6, ink, 2, aa)
    cv2.putText(img, "South (your seat)", (10, height - 12), font, 0.6, ink, 2, aa)
    for pit, count in enumerate(layout.pits):
        row, col = lay.cell_of(pit)
        x0, y0 = col * cell, top + row * (cell + label)
        cx, cy = x0 + cell // 2, y0 + cell // 2
        radius = int(cell * 0.42)
        cv2.circle(img, (cx, cy), radius, (120, 160, 200), -1, aa)
        cv2.circle(img, (cx, cy), radius, (60, 90, 130), 2, aa)
        # One dot per seed on a sunflower spiral: evenly spread, however many.
        dot = max(3, int(radius * 0.8 / (1.6 * np.sqrt(max(count, 1)))))
        dot = min(dot, cell // 14)
        for k in range(count):
            r = radius * 0.72 * np.sqrt((k + 0.5) / count)
            a = k * 2.39996
            cv2.circle(
                img, (int(cx + r * np.cos(a)), int(cy + r * np.sin(a))), dot, (60, 100, 80), -1, aa
            )
        text = f"{LETTERS[pit]}: {count}"
        size, _ = cv2.getTextSize(text, font, 0.8, 2)
        cv2.putText(img, text, (cx - size[0] // 2, y0 + cell + label - 6), font, 0.8, ink, 2, aa)
    return img
