"""The state of a Millionaire game: immutable values, queries only. Transitions live in `millionaire.py`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from voicemaster.rules.errors import InvalidSetup
from voicemaster.rules.letters import Letter
from voicemaster.rules.variants import AudienceForm, Joker, PhoneForm, Variant

MAX_PLAYERS = 6
OPTIONS = Letter.first(4)


class Mode(StrEnum):
    EVERYONE = "everyone"
    """Every player answers every question (the board game)."""
    SHOW = "show"
    """One candidate per round, in turn; the others are the audience and the phone partners (the TV show)."""


class SeatStatus(StrEnum):
    PLAYING = "playing"
    WALKED_AWAY = "walked_away"
    OUT = "out"
    """Answered wrongly."""
    WON = "won"
    """Answered the last question correctly."""


class Termination(StrEnum):
    TOP_PRIZE = "top_prize"
    """Someone won the top prize."""
    ROUNDS_PLAYED = "rounds_played"
    """The agreed number of rounds has been played."""
    STOPPED = "stopped"
    """The players ended the game; anyone still in a round took home what they had."""


@dataclass(frozen=True)
class GameSettings:
    variant: Variant
    players: tuple[str, ...]
    mode: Mode = Mode.EVERYONE
    audience_form: AudienceForm = AudienceForm.SIMULATED
    phone_form: PhoneForm = PhoneForm.CALL
    rounds: int | None = None
    """The agreed number of rounds; None plays until someone wins the top prize or the players stop."""
    seed: int = 0

    def __post_init__(self) -> None:
        if not 1 <= len(self.players) <= MAX_PLAYERS:
            raise InvalidSetup(f"A game needs 1 to {MAX_PLAYERS} players, not {len(self.players)}.")
        if any(not name.strip() for name in self.players):
            raise InvalidSetup("Every player needs a name.")
        if len({name.casefold() for name in self.players}) != len(self.players):
            raise InvalidSetup("Two players have the same name; give them different names.")
        if self.rounds is not None and self.rounds < 1:
            raise InvalidSetup("The number of rounds must be at least 1.")
        others = len(self.players) - 1
        if others == 0 and self.audience_form is AudienceForm.PLAYERS:
            raise InvalidSetup("An audience of players needs at least two players.")
        if others == 0 and self.phone_form is PhoneForm.PARTNER:
            raise InvalidSetup("A phone partner needs at least two players.")
        second_chance = self.audience_form is AudienceForm.SECOND_CHANCE or self.phone_form is PhoneForm.SECOND_CHANCE
        if second_chance and self.candidates_per_round > 1:
            raise InvalidSetup("Second-chance jokers are for one player alone, or for show mode.")

    @property
    def candidates_per_round(self) -> int:
        return 1 if self.mode is Mode.SHOW else len(self.players)

    def candidates(self, round_number: int) -> tuple[str, ...]:
        """Who answers in this round: everyone, or in show mode one candidate after another."""
        if self.mode is Mode.SHOW:
            return (self.players[(round_number - 1) % len(self.players)],)
        return self.players


@dataclass(frozen=True)
class Helper:
    """The person whose answer a player took with the Zusatzjoker."""

    player: str
    letter: Letter


@dataclass(frozen=True)
class Seat:
    """One candidate in one round."""

    player: str
    status: SeatStatus = SeatStatus.PLAYING
    jokers_used: tuple[Joker, ...] = ()
    payout: int | None = None
    """What the player takes home from this round, once they have left it."""
    answer: Letter | None = None
    """Given on this question, waiting for "Is that your final answer?"."""
    locked: Letter | None = None
    removed: tuple[Letter, ...] = ()
    """Options this player can no longer choose on this question (50:50, failed tries)."""
    tries_left: int = 1
    judged_at_once: bool = False
    """A second-chance joker is running: each locked answer is judged at once."""
    helper: Helper | None = None

    @property
    def playing(self) -> bool:
        return self.status is SeatStatus.PLAYING

    @property
    def available(self) -> tuple[Letter, ...]:
        return tuple(letter for letter in OPTIONS if letter not in self.removed)


@dataclass(frozen=True)
class Question:
    id: str
    """The question bank's id, opaque to the rules; kept so a resumed game asks the same question."""
    correct: Letter


@dataclass(frozen=True)
class Reward:
    player: str
    amount: int


@dataclass(frozen=True)
class Round:
    number: int
    level: int
    """The question being played, or the next one to be asked (1 to 15)."""
    seats: tuple[Seat, ...]
    question: Question | None = None
    """None between questions, when players may walk away."""
    turn_order: tuple[str, ...] = ()
    rewards: tuple[Reward, ...] = ()

    @property
    def over(self) -> bool:
        return not any(seat.playing for seat in self.seats)

    def seat(self, player: str) -> Seat | None:
        return next((seat for seat in self.seats if seat.player == player), None)

    @property
    def to_act(self) -> str | None:
        """Whose turn it is on the current question: the first in turn order still deciding."""
        if self.question is None:
            return None
        for player in self.turn_order:
            seat = self.seat(player)
            if seat is not None and seat.playing and seat.locked is None:
                return player
        return None


@dataclass(frozen=True)
class PlayerResult:
    player: str
    payout: int
    bonus: int = 0
    """Rewards earned as a Zusatzjoker helper."""

    @property
    def total(self) -> int:
        return self.payout + self.bonus


@dataclass(frozen=True)
class RoundResult:
    number: int
    results: tuple[PlayerResult, ...]

    def total(self, player: str) -> int:
        return sum(r.total for r in self.results if r.player == player)


@dataclass(frozen=True)
class GameOutcome:
    termination: Termination
    totals: tuple[tuple[str, int], ...]
    winners: tuple[str, ...]
    """Everyone with the highest total: ties share the win."""


@dataclass(frozen=True)
class Game:
    settings: GameSettings
    sheet: tuple[RoundResult, ...] = ()
    """The score sheet ("Wertungsblock"): one line per finished round."""
    round: Round | None = None
    outcome: GameOutcome | None = None

    def totals(self) -> dict[str, int]:
        return {player: sum(r.total(player) for r in self.sheet) for player in self.settings.players}
