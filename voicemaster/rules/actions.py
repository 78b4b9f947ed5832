"""What players and the quizmaster can do in a Millionaire game. `millionaire.apply` carries them out."""

from __future__ import annotations

from dataclasses import dataclass

from voicemaster.rules.letters import Letter


@dataclass(frozen=True)
class StartRound:
    pass


@dataclass(frozen=True)
class AddPlayer:
    """A newcomer joins the game when the next round starts (docs/rules.md, "Several players and rounds"): every
    player answers the round's one question at its one level, so one seated mid-round would hold money for questions
    they never answered. Their earlier rounds count 0."""

    player: str


@dataclass(frozen=True)
class AskQuestion:
    question_id: str
    correct: Letter


@dataclass(frozen=True)
class WalkAway:
    player: str


@dataclass(frozen=True)
class UseFiftyFifty:
    player: str


@dataclass(frozen=True)
class AskAudience:
    player: str
    votes: tuple[tuple[str, Letter], ...] = ()
    """With an audience of players: every other player's letter."""


@dataclass(frozen=True)
class PhoneAFriend:
    player: str
    partner: str | None = None
    """With a partner player: who was asked, and their letter."""
    partner_letter: Letter | None = None


@dataclass(frozen=True)
class UseExtraJoker:
    player: str
    helper: str | None = None
    """The volunteer whose answer the player takes, or None if the player takes nobody's."""
    helper_letter: Letter | None = None


@dataclass(frozen=True)
class GiveAnswer:
    player: str
    letter: Letter


@dataclass(frozen=True)
class ConfirmAnswer:
    """The player's reply to "Is that your final answer?"."""

    player: str
    final: bool


@dataclass(frozen=True)
class TakeBack:
    """The player takes back a locked answer before the reveal ("Ja ... nein, warte!"): it is open again, and the
    player answers again. Not where a locked answer is judged at once (a second chance): that one is decided."""

    player: str


@dataclass(frozen=True)
class Reveal:
    pass


@dataclass(frozen=True)
class StopGame:
    pass


Action = (
    StartRound
    | AddPlayer
    | AskQuestion
    | WalkAway
    | UseFiftyFifty
    | AskAudience
    | PhoneAFriend
    | UseExtraJoker
    | GiveAnswer
    | ConfirmAnswer
    | TakeBack
    | Reveal
    | StopGame
)
