"""A match between two engines that speak the protocol, our rules core as the arbiter.

Used by ``python -m bench.engine --match-engine CMD`` (see its ``--help``). Each
engine is a subprocess started from a command line (ours by default is
``python -m companion.cli engine``); both get ``position startpos moves ...``
with the whole game so far and ``go movetime MS``. Games come in pairs with
the colours swapped, each pair from the same random opening (``--opening``
plies, drawn from the pair's seed), so that a strong opening favours both
sides once. Or the openings are lines read from a file (:func:`read_openings`: a
line of moves, or a game line of the match's own output), pair ``k`` from line ``k``
(cycling): to play again from where earlier games went wrong.

The arbiter is :class:`core.Position`: a move it refuses, a ``bestmove
0000`` (a claim that the game is over) while it says the game goes on, no
answer within the time plus a grace period, or a crash is a fault of that
engine; the game is then void (it counts for neither side) and the fault is
reported. The game ends when the rules end it (25 seeds, 24-24, the rule
set's cycle rule, no move), without asking the engines.

With the endgame databases in the cache, every covered position of a game
is rated by them, and a game the first engine ends below a rating it had
(a position rated won, then drawn or lost) is marked. Those values may rest
on the databases' cycle convention, directly below 11 seeds and through
captures above, so such a rating may be one the cycle rule never gives.
A position reached without a capture has a history, the positions played since
the last one, which the boards' values leave out: with the game bounds, its
rating is lowered where the cycle rule with that history proves the first engine
cannot have it (a board rated drawn whose play must come back to a position seen).
With the game bounds stored too (``endgame build --bounds``), a position
reached by a capture (no history) is also rated by what they prove the first
engine can force there, under the real cycle rule: a game ended below that
was really thrown away.

Figures: points of the first engine, seeds, the Elo difference with a 95 %
margin from the spread of the game results, and for each side the mean and
median depth of its last ``info`` line before each move and nodes per second
where the engine reports them (Aalina reports depth only; a move from its
opening book has no depth and is counted apart).
"""

from __future__ import annotations

import json
import math
import re
import shlex
import statistics
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import numpy as np
import numpy.typing as npt

from companion.commands.engine_client import EngineFault, MoveReport, ProtocolEngine
from companion.progress import Progress
from core.engine import retrograde
from core.engine.kernel import to_relative
from core.engine.proof import result_range
from core.engine.protocol import (
    ProtocolError,
    build_position,
    move_pit,
    moves_word,
    split_moves,
)
from core.position import Position

#: Our engine as a subprocess (the console script ``oware-companion engine`` also works).
OUR_ENGINE = f"{shlex.quote(sys.executable)} -m companion.cli engine"


@dataclass
class GameResult:
    """One game of the match, from the first engine's side."""

    number: int
    seed: int
    first_side: int
    opening: list[int]
    moves: list[int] = field(default_factory=list)
    points: float | None = None
    """1, 1/2, 0 for the first engine; None if the game is void."""
    seeds: tuple[int, int] = (0, 0)
    """(first engine, second engine) at the end."""
    ending: str = ""
    fault: str | None = None
    faulty: int | None = None
    """0: the first engine broke the rules/protocol, 1: the second."""
    reports: tuple[list[MoveReport], list[MoveReport]] = field(default_factory=lambda: ([], []))
    promise: float | None = None
    """Best result for the first engine the endgame databases rated a position of the game,
    a position with a history rated as far as its history allows (:func:`rate_game`)."""
    board_promise: float | None = None
    """The same by the boards' values alone, a position's history left out."""
    lowered_by_history: int = 0
    """Positions rated above the game's result whose history lowered the rating."""
    capture_promise: float | None = None
    """The same, over the positions reached by a capture only: those have no history, the
    ground the databases' values are computed on (elsewhere a repetition may end the game
    otherwise)."""
    proven_promise: float | None = None
    """Best result the game bounds prove the first engine could force at a position of
    the game reached by a capture."""
    line: int | None = None
    """The number of the file's opening the game started from (1-based, counting its
    lines of moves only), where the openings came from a file."""

    @property
    def broken(self) -> bool:
        """Ended below a position's database rating (for the first engine)."""
        return self.points is not None and self.promise is not None and self.points < self.promise

    def _lost_after(self, rated: float | None) -> bool:
        return self.points == 0.0 and rated is not None and rated >= 0.5

    @property
    def lost_from_rating(self) -> bool:
        """Lost (not merely drawn) after a position the databases rate won or drawn: the
        goal's own words."""
        return self._lost_after(self.promise)

    @property
    def lost_from_board_rating(self) -> bool:
        """Lost after a position whose board the databases rate won or drawn, its history
        left out."""
        return self._lost_after(self.board_promise)

    @property
    def lost_from_capture_rating(self) -> bool:
        """Lost after a position reached by a capture the databases rate won or drawn."""
        return self._lost_after(self.capture_promise)

    @property
    def proven_broken(self) -> bool:
        """Ended below a result the game bounds proved the first engine could force."""
        return (
            self.points is not None
            and self.proven_promise is not None
            and self.points < self.proven_promise
        )


#: How far :func:`_rate_with_history` searches a position with a history: the segment's
#: attractors settle most (a board all on the mover's side that must come back round
#: to a position seen), a short search some more; a few seconds at most a position.
HISTORY_PLIES = 8
HISTORY_NODES = 2_000

Database = tuple[npt.NDArray[np.uint8], int]
#: The game bounds, lower and upper, and the highest layer they hold.
Bounds = tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8], int]


def proven(p: Position, first_side: int, bounds: Bounds | None) -> float | None:
    """The result (1, 1/2, 0) the game bounds prove the first engine can force at ``p``,
    whatever the other side does; None unless ``p`` was reached by a capture (the
    bounds hold without a history) and its layer is stored."""
    if bounds is None or p.is_over or p.prev is not None:
        return None
    lows, highs, top = bounds
    board = to_relative(p.pits, p.to_move)
    seeds = int(board.sum())
    if seeds > top:
        return None
    if p.to_move == first_side:
        mine = p.stores[first_side] + retrograde.lookup(lows, board)
    else:
        mine = p.stores[first_side] + seeds - retrograde.lookup(highs, board)
    total = p.stores[0] + p.stores[1] + seeds
    return 1.0 if 2 * mine > total else 0.5 if 2 * mine == total else 0.0


def rating(p: Position, first_side: int, database: Database | None) -> float | None:
    """The databases' result for the first engine at ``p`` (1, 1/2, 0), None if not covered."""
    if database is None or p.is_over:
        return None
    values, db_max = database
    mover = p.to_move
    board = to_relative(p.pits, mover)
    seeds = int(board.sum())
    if seeds > db_max:
        return None
    v = retrograde.lookup(values, board)
    mine, theirs = p.stores[mover] + v, p.stores[1 - mover] + seeds - v
    if mover != first_side:
        mine, theirs = theirs, mine
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def opening_for(seed: int, plies: int, rules: str) -> list[int]:
    """``plies`` random legal moves from the start, drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    p = Position.initial(rules)
    line: list[int] = []
    for _ in range(plies):
        legal = p.legal_moves()
        if not legal:
            break
        pit = int(rng.choice(legal))
        line.append(pit)
        p = p.play(pit)
    return line


def read_openings(path: Path, rules: str = "abapa") -> list[list[int]]:
    """The openings of a file: one per line, a line of moves (``AaFbDc``, the letters
    the protocol uses), or a whole game line of the match's output (the moves after its
    last ``moves``, replayed as written: cut it where play should resume).
    Blank lines and lines starting with ``#`` are skipped; a line that is not a legal
    game from the start raises ``ValueError`` naming it.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write("# two openings\\nAaFb\\ngame 1 seed 3 ours South: win | moves Cd\\n")
    >>> read_openings(Path(f.name))  # South's pits are A-F, North's a-f
    [[0, 6, 5, 7], [2, 9]]
    >>> Path(f.name).unlink()
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read the openings file {path}: {exc.strerror}") from None
    openings: list[list[int]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        if "moves" in words:
            words = words[len(words) - words[::-1].index("moves") :]
        where = f"line {number} of {path}"
        try:
            letters = split_moves(words)
            p = build_position(None, letters, rules)  # the protocol's own replay and check
        except ProtocolError as exc:
            raise ValueError(f"{where}: {exc}") from None
        if p.is_over:
            raise ValueError(f"{where}: the game is over after it: nothing left to play")
        openings.append([move_pit(ch) for ch in letters])
    if not openings:
        raise ValueError(f"the openings file {path} holds no line of moves")
    return openings


def play_game(
    engines: Sequence[ProtocolEngine],
    number: int,
    seed: int,
    first_side: int,
    movetime_ms: int,
    plies: int,
    rules: str = "abapa",
    grace: float = 5.0,
    database: Database | None = None,
    bounds: Bounds | None = None,
    opening: list[int] | None = None,
) -> GameResult:
    """One game; ``engines[0]`` plays ``first_side`` (0 South, 1 North).

    With ``database`` (values, top layer) each covered position's rating is
    noted, to tell games lost from a position rated won or drawn; with ``bounds``,
    what they prove at each position reached by a capture. ``opening``: these moves
    instead of ``plies`` random ones drawn from ``seed``.
    """
    opening = list(opening) if opening is not None else opening_for(seed, plies, rules)
    result = GameResult(number, seed, first_side, opening)
    p = Position.initial(rules)
    for pit in opening:
        p = p.play(pit)
    result.moves = list(opening)
    for e in engines:
        e.new_game()
    while not p.is_over:
        k = 0 if p.to_move == first_side else 1
        try:
            report = engines[k].think(result.moves, movetime_ms, grace)
        except EngineFault as exc:
            result.fault, result.faulty = str(exc), k
            return result
        report.seeds = sum(p.pits)
        report.ply = len(result.moves) + 1
        result.reports[k].append(report)
        if report.pit is None:
            result.fault, result.faulty = f"{engines[k].name} claimed the game was over", k
            return result
        if not p.is_legal(report.pit):
            why = p.illegal_reason(report.pit) or "not legal here"
            result.fault = f"{engines[k].name} played an illegal move: {why}"
            result.faulty = k
            return result
        p = p.play(report.pit)
        result.moves.append(report.pit)
    scores = p.scores
    mine, theirs = scores[first_side], scores[1 - first_side]
    result.seeds = (mine, theirs)
    result.points = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
    result.ending = p.ending.reason if p.ending else "?"
    rate_game(result, rules, database, bounds)
    return result


def rate_game(
    result: GameResult,
    rules: str = "abapa",
    database: Database | None = None,
    bounds: Bounds | None = None,
) -> None:
    """Rate the positions of the finished game ``result`` by the databases (``promise``,
    ``board_promise``, ``capture_promise``) and, with ``bounds``, by what they prove
    (``proven_promise``); a void game is left unrated. Done once the game is over, so
    that the looking up and the proofs take no time from the engines."""
    if result.points is None or database is None:
        return
    p = Position.initial(rules)
    quiet: list[tuple[float, Position]] = []  # rated positions with a history
    for pit in result.moves:
        if p.is_over:
            break
        rated = rating(p, result.first_side, database)
        if rated is not None:
            result.board_promise = max(rated, result.board_promise or 0.0)
            if p.prev is None:
                result.promise = max(rated, result.promise or 0.0)
                result.capture_promise = max(rated, result.capture_promise or 0.0)
            else:
                quiet.append((rated, p))
        forced = proven(p, result.first_side, bounds)
        if forced is not None:
            result.proven_promise = max(forced, result.proven_promise or 0.0)
        p = p.play(pit)
    _rate_with_history(result, quiet, database, bounds)


def _rate_with_history(
    result: GameResult,
    quiet: list[tuple[float, Position]],
    database: Database,
    bounds: Bounds | None,
) -> None:
    """Fold the ratings of the positions with a history into ``result.promise``, each
    lowered to the best result the cycle rule with that history leaves the first engine
    (:func:`core.engine.proof.result_range`) where that is less: a board the databases
    rate drawn may be lost for the positions played since the last capture, a return to
    one ending the game. Only a rating above the game's result and the promise so far
    is looked at: one below them changes neither."""
    points = result.points or 0.0
    for rated, p in quiet:
        if rated <= max(points, result.promise or 0.0):
            continue
        best = (
            rated
            if bounds is None
            else result_range(
                p, result.first_side, database[0], bounds[:2], HISTORY_PLIES, HISTORY_NODES
            )[1]
        )
        if best < rated:
            result.lowered_by_history += 1
        result.promise = max(min(rated, best), result.promise or 0.0)


def elo(points: float, games: int, results: list[float]) -> tuple[float, float, float]:
    """Elo difference for a score, with the 95 % interval from the results' spread.

    Returns (elo, low, high); a score of 0 or 100 % is clamped half a game in.
    """

    def to_elo(s: float) -> float:
        s = min(max(s, 0.5 / games), 1 - 0.5 / games)
        return -400 * math.log10(1 / s - 1)

    s = points / games
    spread = statistics.pstdev(results) if games > 1 else 0.5
    if spread == 0:  # every game the same result: the binomial spread of the clamped score
        c = min(max(s, 0.5 / games), 1 - 0.5 / games)
        spread = math.sqrt(c * (1 - c))
    se = spread / math.sqrt(games)
    return to_elo(s), to_elo(s - 1.96 * se), to_elo(s + 1.96 * se)


def full_time(reports: list[MoveReport], movetime: float) -> list[MoveReport]:
    """The moves that took at least half of ``movetime`` and came from no book: a move
    answered sooner was found in a book or proven (an endgame table, a forced line), and
    its depth says nothing about the search's speed."""
    return [r for r in reports if r.seconds >= movetime / 2 and not r.book]


def side_figures(reports: list[MoveReport], movetime: float) -> str:
    """Depth and nps of one side over its full-time moves (:func:`full_time`), with the
    rest counted."""
    full = full_time(reports, movetime)
    depths = [r.depth for r in full if r.depth is not None]
    nps = [r.nps for r in full if r.nps is not None]
    book = sum(r.book for r in reports)
    early = len(reports) - len(full) - book
    secs = [r.seconds for r in reports]
    parts = []
    if depths:
        parts.append(f"depth mean {statistics.mean(depths):.1f} median {statistics.median(depths)}")
    else:
        parts.append("depth not reported")
    if nps:
        parts.append(f"nps mean {statistics.mean(nps):,.0f} median {statistics.median(nps):,.0f}")
    else:
        parts.append("nps not reported")
    parts.append(f"over {len(full)} full-time moves ({early} answered early, {book} from a book)")
    if secs:
        parts.append(f"{statistics.mean(secs):.2f} s/move (max {max(secs):.2f})")
    return ", ".join(parts)


def longest_move(results: Sequence[GameResult], side: int) -> str:
    """Where one side took longest over a move: the game, ply, board and depth (a move far
    over the time asked is a fault to look for, and this says which to replay).

    >>> slow = MoveReport(3, 31, None, None, 2.6, False, seeds=14, ply=40)
    >>> g = GameResult(6, 1, 0, [], reports=([MoveReport(1, 9, None, None, 0.5, False), slow], []))
    >>> longest_move([g], 0)
    'longest move 2.60 s: game 7, ply 40, 14 seeds, depth 31'
    >>> longest_move([g], 1)
    'no move'
    """
    moves = [(r.seconds, g.number, r) for g in results for r in g.reports[side]]
    if not moves:
        return "no move"
    seconds, number, r = max(moves, key=lambda m: (m[0], -m[1]))
    where = [f"game {number + 1}"]
    if r.ply is not None:
        where.append(f"ply {r.ply}")
    if r.seeds is not None:
        where.append(f"{r.seeds} seeds")
    where.append("from a book" if r.book else f"depth {r.depth}" if r.depth else "no depth said")
    return f"longest move {seconds:.2f} s: " + ", ".join(where)


#: Boards with more seeds than this are in no endgame table of ours (22) or Aalina's (12).
NO_TABLE_ABOVE = 22


def open_board_depth(reports: list[MoveReport], movetime: float) -> str:
    """Depth over the full-time moves of boards no endgame table holds (more than
    :data:`NO_TABLE_ABOVE` seeds), and per second of thinking: where both sides search
    on their evaluation alone, the fair comparison of search speed (an engine that
    reports no nodes can still be compared by it)."""
    moves = [
        (r.depth, r.seconds)
        for r in full_time(reports, movetime)
        if r.depth is not None and r.seeds is not None and r.seeds > NO_TABLE_ABOVE
    ]
    if not moves:
        return f"boards of more than {NO_TABLE_ABOVE} seeds: no full-time move with a depth"
    depths = [depth for depth, _ in moves]
    per_second = [depth / seconds for depth, seconds in moves]
    return (
        f"boards of more than {NO_TABLE_ABOVE} seeds: depth mean {statistics.mean(depths):.1f} "
        f"median {statistics.median(depths)}, per second of thinking median "
        f"{statistics.median(per_second):.1f}, over {len(moves)} full-time moves"
    )


#: A game line of the match's output (:func:`game_line`, a valid game): its number, the
#: first engine's side, what happened (from its side), and the moves of the whole game.
GAME_LINE = re.compile(
    r"^game\s+(\d+) (?:seed|opening) \d+ ours (South|North): (.*?) \| .*\| moves ([A-Fa-f]+)\s*$"
)


def game_lines(text: str) -> Iterator[tuple[int, int, str, list[int]]]:
    """The game lines of a match's output (progress bars and other lines skipped): each
    game's number (1-based, as printed), the first engine's side, what happened (from
    its side, as printed) and the moves of the whole game."""
    for line in text.replace("\r", "\n").splitlines():
        match = GAME_LINE.match(line.strip())
        if match is not None:
            side = 0 if match.group(2) == "South" else 1
            moves = [move_pit(ch) for ch in match.group(4)]
            yield int(match.group(1)), side, match.group(3), moves


def games_of_output(text: str) -> list[GameResult]:
    """The valid games of a match's output, as results with their number (0-based),
    the first engine's side, its points and the moves, unrated (:func:`rate_game`).

    >>> line = "game  2 seed 5 ours North: loss 21-27 (repetition, 4 plies) | x | y | moves AaFb"
    >>> [(g.number, g.first_side, g.points, g.moves) for g in games_of_output(line)]
    [(1, 1, 0.0, [0, 6, 5, 7])]
    """
    games = []
    for number, side, said, moves in game_lines(text):
        points = {"win": 1.0, "draw": 0.5, "loss": 0.0}.get(said.split()[0])
        if points is not None:
            games.append(GameResult(number - 1, 0, side, [], moves, points=points))
    return games


def game_line(g: GameResult, names: tuple[str, str], movetime: float) -> str:
    side = "South" if g.first_side == 0 else "North"
    start = f"opening {g.line}" if g.line is not None else f"seed {g.seed}"
    head = f"game {g.number + 1:3d} {start} {names[0]} {side}"
    if g.points is None:
        return f"{head}: VOID after {len(g.moves)} plies ({moves_word(g.moves)}): {g.fault}"
    return (
        f"{head}: {result_words(g)} {g.seeds[0]}-{g.seeds[1]} ({g.ending}, {len(g.moves)} "
        f"plies) | {names[0]}: {side_figures(g.reports[0], movetime)} | "
        f"{names[1]}: {side_figures(g.reports[1], movetime)} | moves {moves_word(g.moves)}"
    )


def result_words(g: GameResult) -> str:
    """A valid game's result for the first engine, with the rating it ended below."""
    points = g.points or 0.0
    word = {1.0: "win", 0.5: "draw", 0.0: "loss"}[points]
    if g.broken:
        rated = {1.0: "won", 0.5: "drawn"}[g.promise or 0.0]
        word += f" (from a position the databases rate {rated}"
        if g.capture_promise is not None and points < g.capture_promise:
            if g.capture_promise == g.promise:
                word += ", reached by a capture"
            else:  # rated won after a quiet move only, drawn after a capture
                word += "; drawn at one reached by a capture"
        word += ", proven by the game bounds)" if g.proven_broken else ")"
    return word


def run_match(
    first_cmd: str,
    second_cmd: str,
    games: int,
    seconds: float,
    seed: int,
    *,
    jobs: int = 1,
    plies: int = 2,
    rules: str = "abapa",
    names: tuple[str, str] = ("ours", "other"),
    out: TextIO | None = None,
    progress: TextIO | None = None,
    cwd: str | None = None,
    database: Database | None = None,
    bounds: Bounds | None = None,
    openings: Sequence[list[int]] | None = None,
    moves_log: TextIO | None = None,
) -> list[GameResult]:
    """Play the match and print each game and the totals; return the games.

    ``openings`` (from :func:`read_openings`): pair ``k`` starts from ``openings[k]``,
    cycling, instead of a random opening drawn from ``seed``. ``moves_log``: a JSON line
    per game as it ends (:func:`moves_record`), to read a move of a finished run again."""
    out = out if out is not None else sys.stdout
    bar = Progress(
        games, progress if progress is not None else sys.stderr, label="match", unit="games"
    )
    movetime_ms = max(round(seconds * 1000), 1)
    local = threading.local()
    made: list[ProtocolEngine] = []
    made_lock = threading.Lock()
    print_lock = threading.Lock()
    results: list[GameResult] = []
    points = 0.0

    def engines() -> list[ProtocolEngine]:
        pair: list[ProtocolEngine] | None = getattr(local, "pair", None)
        if pair is None or any(e.proc.poll() is not None for e in pair):
            pair = [
                ProtocolEngine(first_cmd, names[0], cwd=cwd),
                ProtocolEngine(second_cmd, names[1], cwd=cwd),
            ]
            with made_lock:
                made.extend(pair)
            local.pair = pair
        return pair

    def one(number: int) -> GameResult:
        pair_seed = seed * 100_000 + number // 2
        line = number // 2 % len(openings) if openings else None
        start = openings[line] if openings and line is not None else None
        try:
            pair = engines()
        except EngineFault as exc:
            g = GameResult(number, pair_seed, number % 2, [])
            g.fault = f"could not start the engines: {exc}"
            return g
        g = play_game(
            pair,
            number,
            pair_seed,
            number % 2,
            movetime_ms,
            plies,
            rules,
            database=database,
            bounds=bounds,
            opening=start,
        )
        g.line = None if line is None else line + 1
        if g.fault is not None and g.faulty is not None:  # start afresh after a fault
            faulty = pair[g.faulty]
            faulty.close(keep_log=True)
            if faulty.log.name not in g.fault:
                g.fault += f" (its stderr: {faulty.log.name})"
        return g

    def done(g: GameResult) -> None:
        nonlocal points
        with print_lock:
            results.append(g)
            if g.points is not None:
                points += g.points
            valid = sum(r.points is not None for r in results)
            bar.write(game_line(g, names, seconds), out)
            if moves_log is not None:
                moves_log.write(json.dumps(moves_record(g, names)) + "\n")
                moves_log.flush()  # a run stopped midway keeps the games it played
            bar.step(f"{names[0]} {points}/{valid}")

    try:
        with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            futures = [pool.submit(one, n) for n in range(games)]
            for f in futures:
                done(f.result())
    except KeyboardInterrupt:
        out.write("(interrupted: totals of the games played)\n")
    finally:
        bar.close()
        for e in made:
            e.close()
    out.write(f"  {names[0]}: {first_cmd}\n  {names[1]}: {second_cmd}\n")
    print_totals(results, names, seconds, out)
    return results


def moves_record(g: GameResult, names: tuple[str, str]) -> dict[str, object]:
    """What each engine said of each of its moves in game ``g`` (ply from 1, the pit
    played, depth, score, line, time, book), with the game's number and result.

    >>> g = GameResult(0, 5, 0, [0, 6], moves=[0, 6, 1], points=1.0)
    >>> g.reports[0].append(MoveReport(1, 9, 100, 1000, 0.5, False, 12, None, ("B",), 44, 3))
    >>> record = moves_record(g, ("ours", "other"))
    >>> record["game"], record["moves"], record["ours"]
    (1, 'AaB', [{'ply': 3, 'move': 'B', 'depth': 9, 'score_cp': 12, 'mate': None, \
'pv': 'B', 'seconds': 0.5, 'book': False, 'seeds': 44, 'error': None}])
    """
    record: dict[str, object] = {
        "game": g.number + 1,
        "seed": g.seed,
        "first_side": "South" if g.first_side == 0 else "North",
        "points": g.points,
        "moves": moves_word(g.moves),
    }
    for name, reports in zip(names, g.reports, strict=True):
        record[name] = [
            {
                "ply": r.ply,
                "move": None if r.pit is None else moves_word([r.pit]),
                "depth": r.depth,
                "score_cp": r.score_cp,
                "mate": r.mate,
                "pv": " ".join(r.pv),
                "seconds": round(r.seconds, 3),
                "book": r.book,
                "seeds": r.seeds,
                "error": r.error,
            }
            for r in reports
        ]
    return record


def print_totals(
    results: list[GameResult], names: tuple[str, str], seconds: float, out: TextIO
) -> None:
    valid = [g for g in results if g.points is not None]
    void = [g for g in results if g.points is None]
    pts = [g.points for g in valid if g.points is not None]
    n = len(valid)
    w = sum(p == 1.0 for p in pts)
    d = sum(p == 0.5 for p in pts)
    lo = sum(p == 0.0 for p in pts)
    write = out.write
    write(
        f"match: {names[0]} vs {names[1]}, {len(results)} games at {seconds} s per move, "
        f"{len(void)} void\n"
    )
    faults = [0, 0]
    for g in void:
        if g.faulty is not None:
            faults[g.faulty] += 1
    if void:
        write(f"  faults: {names[0]} {faults[0]}, {names[1]} {faults[1]}\n")
        for g in void:
            write(f"    game {g.number + 1} (seed {g.seed}): {g.fault}\n")
    if n == 0:
        write("  no valid game\n")
        return
    total = sum(pts)
    seeds_a = sum(g.seeds[0] for g in valid)
    seeds_b = sum(g.seeds[1] for g in valid)
    e, e_lo, e_hi = elo(total, n, pts)
    write(
        f"  {names[0]}: {total}/{n} = {100 * total / n:.1f} % (+{w} ={d} -{lo}), "
        f"seeds {seeds_a}-{seeds_b}\n"
    )
    write(f"  Elo difference: {e:+.0f} (95 % interval {e_lo:+.0f} to {e_hi:+.0f})\n")
    print_ratings(valid, names, write)
    sides = [[r for g in results for r in g.reports[k]] for k in (0, 1)]
    for k in (0, 1):
        write(f"  {names[k]}: {side_figures(sides[k], seconds)}\n")
    for k in (0, 1):
        write(f"  {names[k]}, {open_board_depth(sides[k], seconds)}\n")
    for k in (0, 1):
        write(f"  {names[k]}, {longest_move(results, k)}\n")
    for k in (0, 1):
        errors = [(g, r) for g in results for r in g.reports[k] if r.error is not None]
        if errors:
            g, r = errors[0]
            write(
                f"  {names[k]}: {len(errors)} moves answered after an error "
                f"(first: game {g.number + 1}, ply {r.ply}: {r.error})\n"
            )
    lines = sorted({g.line for g in results if g.line is not None})
    if lines:
        write(f"  openings: {lines[0]}..{lines[-1]} of the file's (pair k: opening k + 1)\n")
        return
    seeds = sorted({g.seed for g in results})
    write(f"  opening seeds: {seeds[0]}..{seeds[-1]} (pair k: seed*100000 + k)\n")


def print_ratings(
    valid: Sequence[GameResult], names: tuple[str, str], write: Callable[[str], object]
) -> None:
    """The totals of :func:`print_totals` on the databases' ratings and what the game
    bounds prove, over the rated ``valid`` games."""
    rated = [g for g in valid if g.promise is not None or g.board_promise is not None]
    if rated:
        write(
            f"  {names[0]} ended below the databases' rating of a position in "
            f"{sum(g.broken for g in rated)} of {len(rated)} games reaching them "
            "(a rating may rest on their cycle convention)\n"
        )
        lost = [g for g in rated if g.lost_from_rating]
        write(
            f"  {names[0]} lost {len(lost)} of them (the others below a rating were drawn "
            f"from one rated won); {sum(g.lost_from_capture_rating for g in lost)} of those "
            "after a position reached by a capture (no history) rated won or drawn\n"
        )
        lowered = [g for g in rated if g.lowered_by_history]
        write(
            f"  by the boards' values alone, histories left out: {names[0]} lost "
            f"{sum(g.lost_from_board_rating for g in rated)} from a rating; the history "
            f"of {sum(g.lowered_by_history for g in lowered)} positions in {len(lowered)} "
            "games lowered their rating (a return to a position seen ends the game)\n"
        )
    proved = [g for g in valid if g.proven_promise is not None]
    if proved:
        write(
            f"  {names[0]} ended below a result the game bounds prove it could force in "
            f"{sum(g.proven_broken for g in proved)} of {len(proved)} games reaching them "
            f"(won {sum(g.proven_promise == 1.0 for g in proved)}, drawn "
            f"{sum(g.proven_promise == 0.5 for g in proved)}; the goal: none below)\n"
        )
