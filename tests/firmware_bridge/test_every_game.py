"""The virtual board plays every game the rules core has, and the referee follows it.

Every preset of ``core.rules`` and every variant of universal mancala with 2, 3 and 4
players: the virtual player sows seed by seed (relay pits lifted, stores in the
sowing ring, captures carried to the store) and the physical board matches the
rules after every move, to the end of the game; then the players gather the seeds
and lay out the next game. Through the pseudo-terminal (a three- or four-player
board sends READING_WIDE), today's referee follows each preset's game to its end,
move for move.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from core import Position
from core.observation import Observation
from core.referee import Referee
from core.referee.presets import SENSOR
from core.referee.session import feed_line, referee_from_header
from core.rules import PRESETS, parse_rules_spec
from firmware_bridge.protocol import (
    FrameDecoder,
    MsgType,
    Reading,
    parse_message,
    reading_message,
    tare_payload,
)
from firmware_bridge.source import SimSource, device_options_from_query, sim_rules
from firmware_bridge.virtual_board import BoardPhysics, PlayerOptions, VirtualPlayer, channels_for

pytestmark = pytest.mark.timeout(120)

SESSIONS = Path(__file__).parent / "sessions"


def _variant_specs() -> list[str]:
    specs = []
    for players in (2, 3, 4):
        for variant in range(1, 11):
            if variant == 6 and players != 4:
                continue  # single_opponent_capture is a four-player variant
            specs.append(f"universal:players={players},variants={variant}")
    return specs


GAMES = list(PRESETS) + _variant_specs()


def play_one_game(spec: str, seed: int = 1, loop: bool = False) -> VirtualPlayer:
    rules = parse_rules_spec(spec)
    rng = random.Random(seed)
    physics = BoardPhysics(rng, channels=channels_for(rules))
    player = VirtualPlayer(physics, rng, PlayerOptions(rules=rules, loop=loop))
    for t in player.script():
        if player.finished or (loop and player.games > 1 and t > player.truth[-1].t + 5):
            break
        assert t < 20_000, f"{spec}: the game did not end"
    return player


@pytest.mark.parametrize("spec", GAMES)
def test_virtual_player_plays_every_game_to_its_end_seed_by_seed(spec: str) -> None:
    player = play_one_game(spec)
    rules = parse_rules_spec(spec)
    pos = Position.initial(rules)
    moves = [e for e in player.truth if e.kind == "move"]
    assert moves, spec
    for e in moves:
        assert e.pit is not None
        pos = pos.play(e.pit)
        # the board holds what the rules say, pits and stores, after every move
        assert e.counts == (*pos.pits, *pos.stores), (spec, e)
    assert pos.is_over, f"{spec}: stopped before the end"
    assert player.truth[-1].kind == "game_over"
    assert sum(player.physics.counts()) == rules.total_seeds


def test_relay_sowing_lifts_the_relay_pits() -> None:
    """Variant 9: the relays (the moves with several laps of sowing) happen on the board."""
    player = play_one_game("universal:players=3,variants=9", seed=4)
    pos = Position.initial("universal", players=3, variants=[9])
    relays = 0
    for e in (e for e in player.truth if e.kind == "move"):
        assert e.pit is not None
        relays += len(pos.outcome(e.pit).relays)
        pos = pos.play(e.pit)
        assert e.counts == (*pos.pits, *pos.stores)
    assert relays >= 5  # the check above covered moves with relays, not only plain ones


@pytest.mark.parametrize("spec", ["abapa", "universal-3", "universal-4"])
def test_after_a_game_the_players_lay_out_the_next(spec: str) -> None:
    player = play_one_game(spec, loop=True)
    kinds = [e.kind for e in player.truth]
    assert "game_over" in kinds and "new_game" in kinds
    over = kinds.index("game_over")
    new = player.truth[kinds.index("new_game")]
    start = Position.initial(spec)
    assert new.counts == (*start.pits, *start.stores)
    # gathering the seeds takes a few seconds, with hands over the pits
    assert new.t - player.truth[over].t >= 4.0
    assert player.games == 2


def test_sim_url_options_for_every_game() -> None:
    assert sim_rules("players=3").players == 3
    assert sim_rules("players=4").name == "universal-4"
    assert sim_rules("rules=universal:players=3,variants=3+9").options["relay_sowing"]
    assert sim_rules("", "universal-3").players == 3  # the service's --rules
    assert sim_rules("players=4", "universal:variants=9").options["relay_sowing"]
    with pytest.raises(ValueError, match="2 players"):
        sim_rules("rules=abapa&players=3")
    with pytest.raises(ValueError, match="2, 3 or 4"):
        sim_rules("players=5")
    for bad, words in [("speed=abc", "speed must be a number"), ("bogus=1", "unknown")]:
        with pytest.raises(ValueError, match=words):
            device_options_from_query(bad)


def test_wide_reading_round_trip() -> None:
    reading = Reading(7, 0, tuple(range(-3, 25)), stale=1 << 27)
    kind, payload = reading_message(reading)
    assert kind == MsgType.READING_WIDE and len(payload) == 10 + 4 * 28
    from firmware_bridge.protocol import encode_frame

    (frame,) = FrameDecoder().feed(encode_frame(kind, 1, payload))
    assert parse_message(frame) == reading
    # a two-player board's reading keeps the READING layout of the firmware
    assert reading_message(Reading(1, 0, (0,) * 14))[0] == MsgType.READING
    assert tare_payload((1 << 28) - 1, 28) == b"\xff\xff\xff\x0f"


def _follow(query: str, limit_s: float = 100.0) -> tuple[Referee, list[int], list[str]]:
    """Run ``sim://?query`` flat out through the pty and a referee until the referee's game is
    over (or ``limit_s`` of board time pass twice over); the referee's and the board's moves."""
    src = SimSource(device_options_from_query(query))
    ref = Referee(Position.initial(src.board.player.ruleset), **SENSOR)
    alerts: list[str] = []
    src.open()
    try:
        for item in src:
            if isinstance(item, Observation):
                for e in ref.observe(item):
                    # a provisional move is the move being read, not an alert
                    quiet = ("move", "move_provisional", "game_over", "capture_pending")
                    if e.type not in (*quiet, "board_restored"):
                        alerts.append(f"{e.type}: {e.data.get('text')}")
            if ref.position.is_over or src.board.player.games > 1:
                break
    finally:
        src.close()
    truth = []
    for e in src.board.player.truth:
        if e.kind == "game_over":
            break
        if e.kind == "move" and e.pit is not None:
            truth.append(e.pit)
    return ref, truth, alerts


# (no_cover: pure computation that other tests cover; traced, it takes three times as long)
@pytest.mark.no_cover
@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "seed"),
    [(name, 3) for name in PRESETS if name != "oware"]  # oware is abapa by another name
    + [("universal:players=4,variants=9", 1), ("universal:players=3,variants=10", 2)]
    + [("universal-3", 1)],
)
def test_referee_follows_the_virtual_board_to_the_end(spec: str, seed: int) -> None:
    ref, truth, alerts = _follow(f"speed=0&seed={seed}&rules={spec}")
    assert ref.position.is_over, (spec, len(ref.moves), alerts)
    played = [m.pit for m in ref.moves]
    # the board notes a move once its captures are stored: the referee may be one ahead
    assert played[: len(truth)] == truth[: len(played)] and len(played) >= len(truth)
    # No false alert. A pile whose seeds weigh like one seed fewer may be asked about (the
    # universal-3 game: 3B's nine seeds weigh like eight, 8 at 0.95), at most once per 25
    # moves, the referee bench's pace for questions.
    questions = [a for a in alerts if a.startswith("ambiguous:")]
    assert [a for a in alerts if a not in questions] == []
    assert len(questions) <= len(played) / 25, questions


@pytest.mark.parametrize(
    "name",
    [
        # Sessions recorded from the virtual board at the end of a game whose last move
        # captures: the old referee crashed on them. The tracker does not, but the
        # fragments' store readings disagree with their headers (universal4: store 1
        # reads 12, its header says 13), so no history ends the game.
        pytest.param(
            "universal4-lone-seed-end",
            marks=pytest.mark.xfail(
                strict=True,
                reason="no crash since the tracker (issue 24), but the fragment never shows "
                "its game's end: "
                "its stores read one seed off the header's (recorder, not referee)",
            ),
        ),
        pytest.param(
            "universal3-first-empty-end",
            marks=pytest.mark.xfail(
                strict=True,
                reason="no crash since the tracker (issue 24), but the fragment never shows "
                "its game's end: "
                "its stores read one seed off the header's (recorder, not referee)",
            ),
        ),
    ],
)
def test_referee_reaches_the_end_of_recorded_virtual_games(name: str) -> None:
    lines = [json.loads(ln) for ln in (SESSIONS / f"{name}.jsonl").read_text().splitlines()]
    ref = referee_from_header(lines[0])
    for line in lines[1:]:
        feed_line(ref, line)
    assert ref.position.is_over
