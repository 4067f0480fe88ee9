"""Move names and player names.

Two players (Oware and 2-player universal mancala) use the common convention:
South's pits are ``A``–``F`` (pits 0–5, left to right from South's seat) and
North's pits ``a``–``f`` (pits 6–11, left to right from North's seat).

Three and four players number the players 1…n around the table in sowing
order and name a pit by the player's number and the pit's letter from that
player's seat: ``1A`` … ``1F``, ``2A`` … ``2F``, and so on. So player 2 (index
1)'s third pit is ``2C``, pit index 8.

>>> move_name(2), move_name(7), move_name(8, players=3)
('C', 'b', '2C')
>>> parse_move('b'), parse_move('2C', players=3), parse_move('4f', players=4)
(7, 8, 23)
"""

from __future__ import annotations

from core.errors import IllegalMoveError

PITS_PER_PLAYER = 6
LETTERS = "ABCDEF"

_TWO_PLAYER_NAMES = "ABCDEFabcdef"


def move_name(pit: int, players: int = 2) -> str:
    """The name of pit ``pit`` (a move is named by the pit it is played from)."""
    if not 0 <= pit < PITS_PER_PLAYER * players:
        raise IllegalMoveError(f"there is no pit {pit} on a {players}-player board")
    if players == 2:
        return _TWO_PLAYER_NAMES[pit]
    owner, k = divmod(pit, PITS_PER_PLAYER)
    return f"{owner + 1}{LETTERS[k]}"


def parse_move(name: str, players: int = 2) -> int:
    """The pit index of a move name; raises :class:`IllegalMoveError` for a bad name."""
    text = name.strip()
    if players == 2:
        idx = _TWO_PLAYER_NAMES.find(text) if len(text) == 1 else -1
        if idx < 0:
            raise IllegalMoveError(f"{name!r} is not a pit name: South plays A-F, North plays a-f")
        return idx
    if len(text) == 2 and text[0].isdigit() and text[1].upper() in LETTERS:
        owner = int(text[0]) - 1
        if 0 <= owner < players:
            return owner * PITS_PER_PLAYER + LETTERS.index(text[1].upper())
    raise IllegalMoveError(
        f"{name!r} is not a pit name: with {players} players name a pit by the player's "
        f"number and a letter, 1A … {players}F"
    )


def player_name(player: int, players: int = 2) -> str:
    """South/North for two players, "player N" (1-based) for more.

    >>> player_name(0), player_name(1), player_name(2, players=3)
    ('South', 'North', 'player 3')
    """
    if players == 2:
        return ("South", "North")[player]
    return f"player {player + 1}"


def side_letter(player: int, players: int = 2) -> str:
    """The side-to-move field of the text form: ``S``/``N``, or ``1``…``n``."""
    return ("S", "N")[player] if players == 2 else str(player + 1)


def join_names(names: list[str]) -> str:
    """Join names as a person would: "D", "D or E", "D, E or F".

    >>> join_names(['D']), join_names(['D', 'E']), join_names(['D', 'E', 'F'])
    ('D', 'D or E', 'D, E or F')
    """
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " or " + names[-1]
