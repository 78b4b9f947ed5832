"""Which form and which wording of a line the situation calls for: pure functions of the game's facts.

The phrase files hold the grammar (`welcome.one`, `welcome.many`, `play_on.none`); these only name the form, so a
language adds a distinction by adding a form, never by code.
"""

from __future__ import annotations

import zlib
from collections.abc import Collection

ONE, MANY, NONE = "one", "many", "none"


def number(people: Collection[object] | int) -> str:
    """ "one" for one player (or name, or bundle), "many" for several: "Es spielt Anna", "Es spielen Anna und Ben"."""
    count = people if isinstance(people, int) else len(people)
    return ONE if count == 1 else MANY


def counted(count: int) -> str:
    """As `number`, and "none" for zero: "keine Versuche mehr"."""
    return NONE if count == 0 else number(count)


def amount(money: int) -> str:
    """ "none" for nothing, so that nobody is told "du nimmst null Euro mit"; else the plain line."""
    return NONE if money == 0 else ""


def vary(seed: int, key: str, moment: int) -> int:
    """Which wording of `key`: a start drawn from the seed, then the next wording at each moment (each question,
    each player), so two questions in a row never sound the same and a replayed game says the same words."""
    return zlib.crc32(f"{seed}:{key}".encode()) + moment
