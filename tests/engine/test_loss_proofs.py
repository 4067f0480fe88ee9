"""Games lost from a database rating, looked at under the cycle rule
(:mod:`companion.loss_proofs`, ``python -m bench.engine --prove-losses``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from companion.loss_proofs import lost_games, rated_boards
from core.engine import retrograde
from tests.engine.test_engine_match import GAME_43
from tests.engine.test_segment import GAME_3_START

#: Game 3 of a match against Aalina at 0.5 s a move (seed 3), as the match printed it
#: (the figures between the result and the moves shortened).
GAME_3 = (
    "game   3 seed 300001 ours South: loss (from a position the databases rate won; drawn "
    "at one reached by a capture) 23-25 (repetition, 212 plies) | ours: depth mean 31.2 "
    "| other: depth mean 42.1 | moves "
    "BdBfBcDfFcAfFeAaAfAdCdBaFaDeFdBfBeCfDcCeBbBaAaDbCcBfBeCfAdAeBfEfFeBaDaEdFcCaFdEa"
    "DfBeCfAbAeBdEeDcCdEeDfFbEaAcDeEbCdDeBcDdCeDfFbCcBdAeBaEaDbEcCdEeDfFcEaBdAeCbBdDe"
    "CcDdEeFfCbBcAdDaCcBeEdDeCbEcDdEfBeAfFcCdBeAbDcCaBdEb"
)
WON = "game   4 seed 300001 ours North: win 26-20 (score, 90 plies) | ours: x | moves AbCd"
DRAWN = GAME_3.replace("loss (from", "draw (from")


def test_the_games_lost_from_a_rating_are_read_from_the_match_output() -> None:
    games = lost_games("\n".join(["match [###] 2/50 games\r" + WON, GAME_3, DRAWN, "junk"]))
    assert [(g.number, g.side, len(g.moves)) for g in games] == [(3, 0, 212)]


def test_each_board_a_capture_left_rated_drawn_or_won_is_given_to_the_proof() -> None:
    """With the layers to six seeds only the last of game 3's such boards is rated (the
    proof itself: ``test_proof.py``); a budget of a hundred nodes proves nothing."""
    (game,) = lost_games(GAME_3)
    database = (retrograde.build(6), 6)
    lows, highs = retrograde.game_bounds(6)
    seen = []
    boards = rated_boards(game, database, (lows, highs, 5), 100, on_board=seen.append)
    assert [(b.ply, b.text, b.rated) for b in boards] == [(135, GAME_3_START, 0.5)]
    assert boards == seen and not boards[0].proof.proven and boards[0].proof.nodes > 100


def run_bench(cache: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "OWARE_COMPANION_CACHE": str(cache)}
    command = [sys.executable, "-m", "bench.engine", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)


def test_the_bench_says_each_board_and_what_its_proof_found(tmp_path: Path) -> None:
    log = tmp_path / "match.log"
    log.write_text(GAME_3 + "\n", encoding="utf-8")
    empty = run_bench(tmp_path / "none", "--prove-losses", str(log))
    assert empty.returncode == 2 and "endgame build" in empty.stderr
    assert "Traceback" not in empty.stderr
    build = [sys.executable, "-m", "companion.cli", "endgame", "build", "--max-seeds", "6"]
    env = {**os.environ, "OWARE_COMPANION_CACHE": str(tmp_path / "cache")}
    subprocess.run([*build, "--bounds"], check=True, env=env, capture_output=True, timeout=600)
    done = run_bench(tmp_path / "cache", "--prove-losses", str(log), "--proof-nodes", "100")
    assert done.returncode == 0, done.stderr
    assert f"ply 135 {GAME_3_START} rated drawn: no proof" in done.stdout
    assert "1 games lost from a rating; in 0 of them" in done.stdout
    # the two proof searches side by side on a sample of the six-seed boards left open
    compared = run_bench(
        tmp_path / "cache", "--proofs", "6", "--proof-sample", "5", "--proof-nodes", "200"
    )
    assert compared.returncode == 0, compared.stderr
    assert "layer 6: " in compared.stdout and "5 drawn (seed 1), 200 nodes" in compared.stdout
    assert "proof-number search" in compared.stdout and "deepened" in compared.stdout
    assert compared.stdout.count(" of 5, ") == 2
    missing = run_bench(tmp_path / "none", "--proofs", "6")
    assert missing.returncode == 2 and "endgame build" in missing.stderr
    assert "Traceback" not in missing.stderr
    # the games rated again, each position with its history
    log.write_text(GAME_3 + "\n" + GAME_43 + "\n", encoding="utf-8")
    rated = run_bench(tmp_path / "cache", "--rate", str(log))
    assert rated.returncode == 0, rated.stderr
    print(rated.stdout)
    assert "2 games of" in rated.stdout
    assert "histories left out: ours lost 2 from a rating; the history of 1 positions in 1" in (
        rated.stdout
    )
    assert "game   3 ours South: loss (from a position the databases rate won" in rated.stdout
    assert "game  43" not in rated.stdout  # rated lost for its history
    log.write_text("junk\n", encoding="utf-8")
    junk = run_bench(tmp_path / "cache", "--rate", str(log))
    assert junk.returncode == 2 and "no game line" in junk.stderr
    assert "Traceback" not in junk.stderr
