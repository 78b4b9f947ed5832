"""The shape of a turn: the quizmaster emits effects and receives observations.

Nothing here performs I/O or reads a clock. A runner carries the effects out against a speaker and a microphone,
against files, or against a scripted player, and sends back what came of each `Listen`.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from voicemaster.dialogue.meaning import Context, Heard


@dataclass(frozen=True)
class Say:
    """Speak the line `key` of the phrase file, filled with `params` (amounts as numbers, spoken by the runner)."""

    key: str
    params: Mapping[str, Any] = field(default_factory=dict)
    leads_to_listening: bool = False
    """A line that leads up to the next `Listen` (the question, its options, "Anna, deine Antwort?"): the player may
    answer over it, and a player who does stops it."""
    form: str = ""
    """Which form of the line the situation calls for ("one" player or "many", "safe" or "none"): chosen by the
    game from the rules state (`wording.py`); a language without that distinction says its plain line."""
    vary: int = 0
    """Which of the line's wordings, modulo their number: derived from the game's seed and the moment, so a replayed
    or resumed game says the same words and the foresight renders exactly what is then said."""


@dataclass(frozen=True)
class Listen:
    """Hear one utterance from `player` in `context`; the runner answers with `Heard` or `Silence`."""

    context: Context
    player: str | None
    timeout_seconds: float
    seat: int | None = None
    """While the players are named: which player is being asked for (1 for the first), whose name is not known
    yet; a phone that joined as a new player is listened to for the seat it is given."""
    to_all: bool = False
    """A question put to all the players at once ("another round?"): heard through one player's phone when the
    players hold phones (`Phones.for_all`), as the room's microphone at a party hears the others' talk too."""


@dataclass(frozen=True)
class StartTimer:
    """Start the game clock of a timed moment (the phone call) now."""

    seconds: int


@dataclass(frozen=True)
class ReadTimer:
    """How long the timer has run (the quizmaster's own speech counts): the runner answers with `Elapsed`."""


@dataclass(frozen=True)
class LookForNewcomers:
    """Whether a phone waits to join as a new player ("Ich spiele neu mit"): the runner answers `NewcomersWaiting`
    (none, without phones). A game of a fixed number of rounds asks nobody aloud, and so asks only when one waits."""


@dataclass(frozen=True)
class WaitUntil:
    """Let game time pass without listening until the timer has run `elapsed` seconds (the quizmaster's own speech
    counts): a real runner sleeps, a demo adds silence."""

    elapsed: float


@dataclass(frozen=True)
class Play:
    """A short sound without words: `suspense` before a reveal, `timer_end` when the phone call is over."""

    earcon: str


@dataclass(frozen=True)
class ChangeVoice:
    """Change the quizmaster's voice: `rate` or `volume` by `steps` (negative: slower, quieter)."""

    setting: str
    steps: int


@dataclass(frozen=True)
class Record:
    """A step of the game for the transcript (and for the store when `state` is given): written before it is said."""

    event: str
    data: Mapping[str, Any] = field(default_factory=dict)
    state: str | None = None
    """The whole game to store, serialized: a crash after this point resumes here."""


@dataclass(frozen=True)
class Foresee:
    """Lines the quizmaster expects to say soon, the likeliest first (the replies to each answer, the next question):
    a runner may render them ahead, so that a reply is ready the moment it is decided. Each foresight replaces the
    one before; nothing is said."""

    lines: tuple[Say, ...]


Effect = Say | Listen | StartTimer | ReadTimer | LookForNewcomers | WaitUntil | Play | ChangeVoice | Record | Foresee


@dataclass(frozen=True)
class Silence:
    """Nobody spoke before the listening timed out."""


@dataclass(frozen=True)
class Elapsed:
    seconds: float


@dataclass(frozen=True)
class NewcomersWaiting:
    phones: int


Observation = Heard | Silence | Elapsed | NewcomersWaiting
Dialogue = Generator[Effect, Observation | None, None]
"""A flow of the quizmaster: yields effects; each `Listen` is sent back `Heard` or `Silence`, each `ReadTimer`
`Elapsed`, each `LookForNewcomers` `NewcomersWaiting` (or None: nobody waits), every other effect None."""
