"""The referee on full games at playing pace: does it follow them, and catch what goes wrong?

Random full Abapa games (to their end, piles of any size) rendered as the
sessions a camera or a sensor board gives (``core.referee.playthrough``): the
board still 0.3-3 s between moves, one move in five with no still board before
the next hand, hands hiding the pits around a move. Each belief model gets:

* clean games: games followed move for move, moves confirmed wrongly, false
  alerts and questions per 1,000 moves, the delay from a move's board being
  complete to its confirmation (median, p99), and the oracle's moves right;
* one game per mistake kind and seed, with that mistake injected at a random
  move: mistakes found (right kind, right move);
* desync sessions (a new game set up on the board, the players starting
  again, Undo, New game or a position set by hand that the board does not
  show): found again, in how many still boards and seconds (a game never lost is
  found when the move after the desync is shown; the count to that move's
  confirmation is printed beside it).

Per observation processing time (median, p99) is measured over everything. The
referee is run as in the live service: between observations the next readings are
prepared (``Referee.prepare``) and the garbage collector runs
(``companion.service.collector``), that time reported apart; and each frame's
latency, its wait for the work before it (processing and the work between) plus its
own processing.

    python -m bench.referee_games [--games 200] [--mistakes 3] [--desyncs 4]
                                  [--models growing,flat02,...] [--photos FILE.npz]
                                  [--seed 0] [--jobs 2] [--answer 3]

``--answer SECONDS``: a person at the board answers every question the referee
asks (counts the pits it names, or names the move when two moves leave the same
board) that many seconds after it is asked, as an arbiter would; by default
nobody answers, and a doubt left open counts against the game.

``--photos``: beliefs a real counter gave real photographs, as written by
``python -m bench.vision --save-beliefs`` (arrays ``beliefs`` and ``labels``).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from companion.service.collector import IdleCollector
from core import Position
from core.referee import Referee, presets
from core.referee.evaluation import Score, oracle, score
from core.referee.playthrough import (
    CAMERA,
    DESYNCS,
    FLAT_01,
    FLAT_02,
    GROWING,
    MISTAKES,
    SENSOR,
    SENSOR_NOISE,
    WEIGHED,
    BeliefModel,
    Pace,
    PhotoBeliefs,
    desync_session,
    random_full_game,
    render_game,
    seeded_game_with_mistake,
)


@dataclass(frozen=True)
class Model:
    key: str
    label: str
    beliefs: BeliefModel
    pace: Pace
    settings: dict[str, Any]
    answer: float | None = None
    """A person answers each question this many seconds after it is asked (None: nobody)."""


CAMERA_SETTINGS: dict[str, Any] = dict(presets.CAMERA)
#: A source whose noise changes frame to frame, under a camera's pace and hands.
NOISY_CAMERA: dict[str, Any] = {"sees_hands": True, "independent_frames": True}
SENSOR_SETTINGS: dict[str, Any] = dict(presets.SENSOR)


def models(photos: Path | None) -> dict[str, Model]:
    out = {
        "sensor": Model(
            "sensor", "(a) exact, 1% off by one, camera pace", SENSOR_NOISE, CAMERA, NOISY_CAMERA
        ),
        "growing": Model(
            "growing", "(b) spread growing with the pile", GROWING, CAMERA, CAMERA_SETTINGS
        ),
        "flat01": Model("flat01", "(b) flat spread 0.1", FLAT_01, CAMERA, CAMERA_SETTINGS),
        "flat02": Model("flat02", "(b) flat spread 0.2", FLAT_02, CAMERA, CAMERA_SETTINGS),
        "seeds": Model(
            "seeds", "(d) sensor board, seed by seed, 1% off", SENSOR_NOISE, SENSOR, SENSOR_SETTINGS
        ),
        "weights": Model(
            "weights", "(e) sensor board, seeds of unequal weight", WEIGHED, SENSOR, SENSOR_SETTINGS
        ),
    }
    if photos is not None:
        out["photos"] = Model(
            "photos",
            "(c) real counter's beliefs on real photographs",
            load_photos(photos),
            CAMERA,
            CAMERA_SETTINGS,
        )
    return out


def load_photos(path: Path) -> PhotoBeliefs:
    try:
        data = np.load(path)
        beliefs, labels = data["beliefs"], data["labels"]
    except (OSError, KeyError, ValueError) as exc:
        sys.exit(f"referee_games: cannot read beliefs from {path}: {exc}")
    by_count: dict[int, list[list[float]]] = {}
    for b, c in zip(beliefs, labels, strict=True):
        by_count.setdefault(int(c), []).append([float(x) for x in b])
    return PhotoBeliefs(by_count, name=f"photos {path.name}")


@dataclass
class Tally:
    games: int = 0
    followed: int = 0
    moves: int = 0
    wrong: int = 0
    false_alerts: int = 0
    questions: int = 0
    delays: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    between: list[float] = field(default_factory=list)
    latency: list[float] = field(default_factory=list)
    oracle_moves: int = 0
    oracle_right: int = 0
    oracle_games: int = 0
    """Games in which the oracle names every move right."""
    mistakes: int = 0
    found: int = 0
    missed_kinds: dict[str, int] = field(default_factory=dict)
    desyncs: int = 0
    resynced: int = 0
    resync_boards: list[int] = field(default_factory=list)
    resync_confirmed_boards: list[int] = field(default_factory=list)
    """The same, counted to the first move confirmed where the game was never lost."""
    resync_seconds: list[float] = field(default_factory=list)
    desync_alerts: int = 0
    lost: list[str] = field(default_factory=list)

    def add_clean(self, s: Score, oracle_moves: int, oracle_right: int, label: str) -> None:
        self.games += 1
        self.followed += s.followed
        self.moves += s.moves
        self.wrong += s.wrong_moves
        self.false_alerts += s.false_alerts
        self.questions += s.questions
        self.delays += s.delays
        self.seconds += s.seconds
        self.between += s.between
        self.latency += s.latency
        self.oracle_moves += oracle_moves
        self.oracle_right += oracle_right
        self.oracle_games += oracle_right == oracle_moves
        if not s.followed:
            self.lost.append(label)


#: The garbage collector as the live service runs it: between observations.
_COLLECTOR = IdleCollector()


def _between(referee: Referee) -> object:
    """What the live service does while it waits for the next frame."""
    _COLLECTOR.install()  # (once per process: the pool's workers start without it)
    referee.prepare()
    return _COLLECTOR.idle()


def _clean(args: tuple[Model, int]) -> tuple[Score, int, int]:
    model, seed = args
    rng = random.Random(seed)
    start = Position.initial()
    moves = random_full_game(start, rng)
    play = render_game(start, moves, model.beliefs, model.pace, rng)
    o = oracle(play)
    return score(play, model.settings, answer=model.answer, between=_between), o.moves, o.right


def _mistake(args: tuple[Model, str, int]) -> Score | None:
    model, kind, seed = args
    play = seeded_game_with_mistake(Position.initial(), kind, model.beliefs, model.pace, seed)
    if play is None:
        return None
    return score(play, model.settings, answer=model.answer, between=_between)


def _desync(args: tuple[Model, str, int]) -> Score:
    model, kind, seed = args
    rng = random.Random(seed)
    play = desync_session(Position.initial(), kind, model.beliefs, model.pace, rng)
    return score(play, model.settings, answer=model.answer, between=_between)


def run_model(
    model: Model,
    games: int,
    mistakes: int,
    desyncs: int,
    seed: int,
    jobs: int,
    progress: Callable[[str], None],
) -> Tally:
    tally = Tally()
    pool: Any = ProcessPoolExecutor(jobs) if jobs > 1 else None
    mapper = pool.map if pool is not None else map
    try:
        clean_args = [(model, seed + g) for g in range(games)]
        for g, (s, om, orr) in enumerate(mapper(_clean, clean_args)):
            tally.add_clean(s, om, orr, f"clean game seed {seed + g}")
            progress(f"{model.key}: clean {g + 1}/{games}")
        kinds = list(MISTAKES)
        mistake_args = [(model, kind, seed + k) for kind in kinds for k in range(mistakes)]
        for (_, kind, sd), ms in zip(mistake_args, mapper(_mistake, mistake_args), strict=True):
            progress(f"{model.key}: mistake {kind} seed {sd}")
            if ms is None:
                continue
            tally.mistakes += ms.mistakes
            tally.found += ms.found
            tally.seconds += ms.seconds
            tally.between += ms.between
            tally.latency += ms.latency
            if ms.found < ms.mistakes:
                tally.missed_kinds[kind] = tally.missed_kinds.get(kind, 0) + 1
        desync_args = [(model, kind, seed + k) for kind in DESYNCS for k in range(desyncs)]
        for (_, kind, sd), ds in zip(desync_args, mapper(_desync, desync_args), strict=True):
            progress(f"{model.key}: desync {kind} seed {sd}")
            tally.desyncs += 1
            tally.seconds += ds.seconds
            tally.between += ds.between
            tally.latency += ds.latency
            tally.desync_alerts += ds.out_of_sync_alerts
            if ds.resync is not None:
                tally.resynced += 1
                tally.resync_seconds.append(ds.resync)
                tally.resync_boards.append(ds.resync_boards or 0)
                tally.resync_confirmed_boards.append(ds.resync_confirmed_boards or 0)
            else:
                tally.lost.append(f"desync {kind} seed {sd}")
    finally:
        if pool is not None:
            pool.shutdown()
    return tally


def _q(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    return float(np.quantile(np.asarray(values), q))


def report(model: Model, t: Tally) -> str:
    per_k = 1000.0 / max(1, t.moves)
    asked = (
        "nobody answers its questions"
        if model.answer is None
        else f"a person answers each question {model.answer:g} s after it is asked"
    )
    lines = [
        f"== {model.label}; {asked} ==",
        f"  games followed move for move   {t.followed}/{t.games}"
        f" ({100 * t.followed / max(1, t.games):.1f} %), {t.moves} moves",
        f"  moves confirmed wrongly        {t.wrong}",
        f"  false alerts per 1,000 moves   {t.false_alerts * per_k:.2f} ({t.false_alerts})",
        f"  questions per 1,000 moves      {t.questions * per_k:.2f} ({t.questions})",
        f"  delay to confirmation          median {_q(t.delays, 0.5):.2f} s,"
        f" p99 {_q(t.delays, 0.99):.2f} s",
        f"  oracle: moves right            {t.oracle_right}/{t.oracle_moves}"
        f" (referee: {t.moves - t.wrong}/{t.moves} named right),"
        f" games with every move right {t.oracle_games}/{t.games}",
        f"  mistakes found                 {t.found}/{t.mistakes}"
        + (f"  missed: {t.missed_kinds}" if t.missed_kinds else ""),
        f"  desyncs found again            {t.resynced}/{t.desyncs}"
        f" ({sum(1 for b in t.resync_boards if b <= 2)} within two still boards;"
        f" {sum(1 for b in t.resync_confirmed_boards if b <= 2)} to a move confirmed),"
        f" still boards median {_q(t.resync_boards, 0.5):.0f}"
        f" max {max(t.resync_boards, default=0)}, "
        f"seconds median {_q(t.resync_seconds, 0.5):.2f}"
        f" max {max(t.resync_seconds, default=0):.2f}; "
        f"out-of-sync alerts {t.desync_alerts}",
        f"  processing per observation     median {1000 * _q(t.seconds, 0.5):.2f} ms,"
        f" p99 {1000 * _q(t.seconds, 0.99):.2f} ms, max {1000 * max(t.seconds, default=0):.1f} ms",
        f"  work between them              {1000 * sum(t.between) / max(1, len(t.between)):.2f} ms"
        f" per observation, max {1000 * max(t.between, default=0):.1f} ms (the next"
        f" readings prepared, garbage collected: as the service, waiting for a frame)",
        f"  frame to events, waits included median {1000 * _q(t.latency, 0.5):.2f} ms,"
        f" p99 {1000 * _q(t.latency, 0.99):.2f} ms, max {1000 * max(t.latency, default=0):.1f} ms",
    ]
    if t.lost:
        lines.append(
            "  not followed: " + ", ".join(t.lost[:12]) + (" …" if len(t.lost) > 12 else "")
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m bench.referee_games",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    p.add_argument("--games", type=int, default=200, help="clean games per model")
    p.add_argument("--mistakes", type=int, default=3, help="games per mistake kind and model")
    p.add_argument("--desyncs", type=int, default=4, help="sessions per desync case and model")
    p.add_argument("--models", default="sensor,growing,flat01,flat02,seeds,weights")
    p.add_argument("--photos", type=Path, help="beliefs of a real counter (.npz)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=1, help="processes")
    p.add_argument(
        "--answer",
        type=float,
        metavar="SECONDS",
        help="a person at the board answers each question (counts the pits it names) this"
        " many seconds after it is asked; by default nobody answers",
    )
    a = p.parse_args(argv)
    table = models(a.photos)
    keys = a.models.split(",")
    if a.photos is not None and "photos" not in keys:
        keys.append("photos")
    unknown = [k for k in keys if k not in table]
    if unknown:
        p.error(f"unknown model(s) {', '.join(unknown)}; models: {', '.join(table)}")
    started = time.monotonic()

    def progress(msg: str) -> None:
        if sys.stderr.isatty():
            print(f"\r{msg:<60}", end="", file=sys.stderr, flush=True)

    if a.answer is not None and a.answer < 0:
        p.error("--answer needs a delay of 0 seconds or more")
    for key in keys:
        table[key] = replace(table[key], answer=a.answer)
        tally = run_model(table[key], a.games, a.mistakes, a.desyncs, a.seed, a.jobs, progress)
        if sys.stderr.isatty():
            print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
        print(report(table[key], tally), flush=True)
    print(f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
