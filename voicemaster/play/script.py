"""The demo's plan: how long a game the demo plays, and which moments a short one stages whatever the seed.

`SHORT` is what `voicemaster demo` plays by default: two players, a few questions, and a `Script` of the moments a
newcomer should see (a joker, an answer said over the quizmaster, a walk-away, a loss, the ladder); `FULL` is a whole
evening, left to the simulated players' seeded policy (`simulated.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from voicemaster.rules.variants import Joker


class Act(StrEnum):
    """A moment a `Script` has a player (or team) stage."""

    SPEAK_OVER = "speak_over"
    """Answers over the quizmaster's line, before it ends (a money-drop team: names its category)."""
    JOKER = "joker"
    """Takes the cue's joker before answering (a money-drop team: switches category)."""
    WALK_AWAY = "walk_away"
    """Hears the question and walks away with what they have (no such thing in the money drop)."""
    WRONG = "wrong"
    """Answers wrongly and says yes to it (a money-drop team: puts all its money on a wrong answer)."""


@dataclass(frozen=True)
class Cue:
    """`act` at question `level` (a money-drop card's number, counted in each team's run) by the player or team at
    place `seat` in the game's order (0 the first)."""

    level: int
    seat: int
    act: Act
    joker: Joker | None = None
    """The joker an `Act.JOKER` takes."""


@dataclass(frozen=True)
class Script:
    """The moments the simulated players are told to stage, whatever the seed. Scripted, they otherwise know every
    answer, take no joker and never walk away, and speak over the quizmaster only where told; what they say, and
    whether they hesitate at "final answer?", still follows the seed."""

    cues: tuple[Cue, ...]

    def acts(self, level: int, seat: int, seats: int) -> tuple[Cue, ...]:
        """The cues of the player at place `seat` of `seats` on question `level`. Fewer players than the script has
        places take on the places left over (one player alone plays them all); more repeat them in turn (a third
        player plays the first's), so every player's game ends where the script's does."""
        places = max((cue.seat for cue in self.cues), default=0) + 1
        return tuple(cue for cue in self.cues if cue.level == level and cue.seat % seats == seat % places)

    def cued(self, act: Act, level: int, seat: int, seats: int) -> bool:
        return any(cue.act is act for cue in self.acts(level, seat, seats))


@dataclass(frozen=True)
class DemoPlan:
    """What a demo plays, chosen in one place: how many players, rounds, money-drop teams and cards, and what the
    players are told to stage. `--players` (or teams) and `--rounds` override the plan's."""

    told: str
    """What the demo says it plays, in its first line."""
    players: int
    rounds: int
    teams: int
    cards: tuple[int, ...] | None
    """The options of each money-drop card, one number a card; None: the rules' eight cards."""
    script: Script | None
    """The moments staged whatever the seed; None: the seeded policy decides everything."""


SHORT = DemoPlan(
    told="a short game of about five minutes (--full plays a whole evening)",
    players=2,
    rounds=1,
    teams=1,
    cards=(4, 3, 2),
    script=Script(
        (
            # Question 1: the first player answers over the quizmaster; 2: the second takes the 50:50; 3: both are
            # right; 4: the first walks away with what 3 won, the second answers wrongly and leaves with nothing. A
            # money-drop team alone: names its first card's category over the quizmaster, switches its second.
            Cue(1, 0, Act.SPEAK_OVER),
            Cue(2, 1, Act.JOKER, Joker.FIFTY_FIFTY),
            Cue(4, 0, Act.WALK_AWAY),
            Cue(4, 1, Act.WRONG),
        )
    ),
)
"""`voicemaster demo`: about five minutes; a newcomer hears the ladder climb, a joker, an answer said over the
quizmaster, a walk-away and a wrong answer; in the money drop, one team's three cards."""
FULL = DemoPlan(told="a whole evening", players=3, rounds=2, teams=3, cards=None, script=None)
"""`voicemaster demo --full`: a whole evening, three players over two rounds (three teams of eight cards), as the
seed has it."""
