"""The views of a board's page, who each is for, and the link that opens it.

One table for the home page (``/``, :mod:`dashboard.routers.pages`), the links
``serve`` and ``demo`` print at start, and the page's own menu (``js/main.js``
keeps the same names). A view is the board's page (``/board/N``) with
``?view=NAME``; the spectators' view is the default.

>>> view_path("2", "referee")
'/board/2?view=referee'
>>> view_path("1", "spectator")
'/board/1'
>>> [v.name for v in VIEWS]
['referee', 'player', 'spectator', 'overlay', 'corner', 'teaching']
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class View:
    name: str
    title: str
    who: str
    """Who opens it, and what they get (one line)."""
    size: str = ""
    """For the stream overlays: the browser source's size to give the streaming software."""


#: The size of the browser source a streaming program (OBS, vMix…) should give an overlay.
OVERLAY_SIZE = "the stream's own size (1920 × 1080 or 1280 × 720); the page is transparent"

VIEWS = (
    View("referee", "Referee", "the referee: alerts, questions, corrections"),
    View("player", "Players", "the players' screen (no suggestions under fair play)"),
    View("spectator", "Spectators", "the hall's screen, phones"),
    View("overlay", "Stream overlay", "a stream: the whole frame", OVERLAY_SIZE),
    View("corner", "Stream corner", "a stream: a corner of the frame", OVERLAY_SIZE),
    View("teaching", "Class", "a class: what each move would do"),
)

VIEW_NAMES = tuple(v.name for v in VIEWS)


def view_path(board: str, view: str) -> str:
    """The path of ``view`` of ``board`` (the spectators' view is the board's page itself)."""
    if view not in VIEW_NAMES:
        raise ValueError(f"no view {view!r}; views: {', '.join(VIEW_NAMES)}")
    return f"/board/{board}" if view == "spectator" else f"/board/{board}?view={view}"


def links_text(base_url: str, boards: list[tuple[str, str, str]]) -> str:
    """What ``serve`` prints: each board (number, source, rules) and each view's link.

    >>> text = links_text("http://127.0.0.1:8000", [("1", "sim://", "abapa")])
    >>> print(text.splitlines()[0])
    board 1 (sim://, abapa):
    >>> text.splitlines()[1].split()[:2]
    ['referee', 'http://127.0.0.1:8000/board/1?view=referee']
    """
    base = base_url.rstrip("/")
    lines = []
    for board, source, rules in boards:
        lines.append(f"board {board} ({source}, {rules}):")
        for v in VIEWS:
            lines.append(
                f"  {v.name:<10} {base + view_path(board, v.name):<{len(base) + 24}} {v.who}"
            )
    sizes = {v.size for v in VIEWS if v.size}
    lines.extend(f"overlays: give the browser source {size}" for size in sorted(sizes))
    return "\n".join(lines)
