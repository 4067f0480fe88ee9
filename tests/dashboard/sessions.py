"""Session logs made for the browser tests, played by the real service with ``replay://``.

Each function writes a JSONL session log (``core.referee.session`` format):
the observations a board would report while people play, rendered by
:func:`core.referee.scenarios.render_game` from real moves, and then a
situation the page must show and stay on, because the replay ends there:

* :func:`ambiguous_log`: a reading that fits two moves equally well, so the
  referee asks to count pits (answered from the page);
* :func:`wrong_sowing_log`: a sowing that skipped a pit (an ``illegal_sowing``
  alert that stays on the page);
* :func:`stalled_log`: a camera's reading of a move whose last pile it reads,
  surely, a seed short (the referee asks after ``stall_time``; answered from
  the page);
* :func:`universal_log`: a 3- or 4-player game of universal mancala;
* :func:`quiet_log`: a few ordinary moves and then nothing (for fair play).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from core import Position
from core.observation import Observation
from core.referee import presets
from core.referee.scenarios import random_game, render_game
from core.referee.session import session_header


def _write(path: Path, start: Position, observations: list[dict[str, Any]]) -> Path:
    lines = [session_header(start), *observations]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def _frames(t: float, pits: list[Any], count: int) -> tuple[float, list[dict[str, Any]]]:
    out = []
    for _ in range(count):
        t = round(t + 0.1, 3)
        out.append(Observation.from_json({"t": t, "source": "test", "stable": True, "pits": pits}))
    return t, [o.to_json() for o in out]


def ambiguous_log(path: Path) -> tuple[Path, list[int]]:
    """Four moves, then a board that is move A or move B: pits A, B and a read 50/50.

    Returns the path and the pits the referee will ask about ([0, 1, 6])."""
    start = Position.initial()
    session = render_game(start, [5, 6, 4, 7], style="settled", seed=1)
    assert session.final is not None
    a, b = session.final.play(0).pits, session.final.play(1).pits
    pits: list[Any] = []
    for x, y in zip(a, b, strict=True):
        if x == y:
            pits.append(x)
        else:
            vec = [0.0] * 9
            vec[x] += 0.5
            vec[y] += 0.5
            pits.append(vec)
    t = session.observations[-1].t
    _, tail = _frames(t, pits, 25)
    obs = [o.to_json() for o in session.observations] + tail
    return _write(path, start, obs), [i for i in range(12) if a[i] != b[i]]


def stalled_log(path: Path) -> tuple[Path, int, int]:
    """Two moves, then South's D sown, a sensor sure its last pile holds a seed less (a seed
    still in the hand: a camera would see no hand, and take the move as done).

    Returns the path, the pit the referee will ask about and its true count."""
    start = Position.initial()
    session = render_game(start, [5, 6], style="settled", seed=1, source="camera")
    assert session.final is not None
    out = session.final.outcome(3)
    board: list[Any] = list(out.position.pits)
    last = out.sown[-1]
    belief = [0.0] * (board[last] + 2)
    belief[board[last] - 1], belief[board[last]] = 0.97, 0.03
    board[last] = belief
    _, tail = _frames(session.observations[-1].t, board, 100)  # 10 s of a still board
    header = session_header(start, **presets.SENSOR)
    lines = [header, *(o.to_json() for o in session.observations), *tail]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path, last, out.position.pits[last]


def wrong_sowing_log(path: Path) -> Path:
    """Three moves, then North sows pit b skipping a pit (and the board stays so)."""
    start = Position.initial()
    session = render_game(start, [5, 6, 3], style="settled", seed=2)
    pos = session.final
    assert pos is not None
    pit = 7  # b: 5 seeds
    sown = pos.outcome(pit).sown
    wrong_path = [sown[0], *sown[2:], (sown[-1] + 1) % 12]
    board = list(pos.pits)
    board[pit] = 0
    for s in wrong_path:
        board[s] += 1
    t = session.observations[-1].t
    _, tail = _frames(t, board, 12)
    return _write(path, start, [o.to_json() for o in session.observations] + tail)


def universal_log(path: Path, players: int, moves: int = 10, seed: int = 3) -> Path:
    """A game of universal mancala for ``players`` players (seed style: every step)."""
    start = Position.initial(f"universal-{players}")
    played = random_game(start, moves, seed=seed)
    session = render_game(start, played, style="settled", seed=seed)
    return _write(path, start, [o.to_json() for o in session.observations])


def quiet_log(path: Path) -> Path:
    """Four ordinary moves, then the board rests (the engine's suggestion for it stays)."""
    start = Position.initial()
    session = render_game(start, [2, 8, 4, 9], style="settled", seed=4)
    return _write(path, start, [o.to_json() for o in session.observations])
