"""What happened, for the quizmaster to announce. Each transition returns the events it caused, in order."""

from __future__ import annotations

from dataclasses import dataclass

from voicemaster.rules.letters import Letter
from voicemaster.rules.state import GameOutcome, RoundResult
from voicemaster.rules.variants import Joker


@dataclass(frozen=True)
class RoundStarted:
    number: int
    candidates: tuple[str, ...]


@dataclass(frozen=True)
class PlayerJoined:
    player: str
    first_round: int
    """The round the newcomer plays first: the next one."""


@dataclass(frozen=True)
class QuestionAsked:
    level: int
    amount: int
    turn_order: tuple[str, ...]


@dataclass(frozen=True)
class WalkedAway:
    player: str
    amount: int


@dataclass(frozen=True)
class FiftyFiftyUsed:
    player: str
    removed: tuple[Letter, ...]
    remaining: tuple[Letter, ...]


@dataclass(frozen=True)
class AudienceVoted:
    """An audience of players: votes per letter, in random order, the quizmaster's vote included."""

    player: str
    tally: tuple[tuple[Letter, int], ...]


@dataclass(frozen=True)
class AudiencePolled:
    """A simulated audience: whole percentages per option, summing to 100."""

    player: str
    percentages: tuple[tuple[Letter, int], ...]


@dataclass(frozen=True)
class SecondChanceGranted:
    player: str
    joker: Joker
    tries_left: int


@dataclass(frozen=True)
class PhoneCallStarted:
    player: str
    seconds: int


@dataclass(frozen=True)
class PartnerAnswered:
    """The partner's letter, as the partner said it within the call's time; the quizmaster adds none (docs/rules.md,
    "Jokers")."""

    player: str
    partner: str
    letter: Letter


@dataclass(frozen=True)
class ExtraJokerUsed:
    player: str
    helper: str | None
    letter: Letter | None


@dataclass(frozen=True)
class AnswerGiven:
    player: str
    letter: Letter


@dataclass(frozen=True)
class AnswerWithdrawn:
    player: str
    letter: Letter


@dataclass(frozen=True)
class AnswerTakenBack:
    """A locked answer taken back before the reveal: the player is on turn again."""

    player: str
    letter: Letter


@dataclass(frozen=True)
class AnswerLocked:
    player: str
    letter: Letter


@dataclass(frozen=True)
class TryFailed:
    """A second-chance try was wrong; the player may try again, use a joker or walk away."""

    player: str
    letter: Letter
    tries_left: int


@dataclass(frozen=True)
class Revealed:
    correct: Letter


@dataclass(frozen=True)
class AnsweredCorrectly:
    player: str
    level: int
    amount: int


@dataclass(frozen=True)
class AnsweredWrongly:
    player: str
    letter: Letter
    payout: int


@dataclass(frozen=True)
class TopPrizeWon:
    player: str
    amount: int


@dataclass(frozen=True)
class HelperRewarded:
    helper: str
    amount: int


@dataclass(frozen=True)
class RoundEnded:
    result: RoundResult


@dataclass(frozen=True)
class GameEnded:
    outcome: GameOutcome


Event = (
    RoundStarted
    | PlayerJoined
    | QuestionAsked
    | WalkedAway
    | FiftyFiftyUsed
    | AudienceVoted
    | AudiencePolled
    | SecondChanceGranted
    | PhoneCallStarted
    | PartnerAnswered
    | ExtraJokerUsed
    | AnswerGiven
    | AnswerWithdrawn
    | AnswerTakenBack
    | AnswerLocked
    | TryFailed
    | Revealed
    | AnsweredCorrectly
    | AnsweredWrongly
    | TopPrizeWon
    | HelperRewarded
    | RoundEnded
    | GameEnded
)
