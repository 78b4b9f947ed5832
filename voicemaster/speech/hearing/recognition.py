"""What the recognizers share: a listening context in, what was heard out.

A listening context names what may be said now (answer, confirm, number, name) and carries what is specific to the
moment (the four options, the players' names). Engines turn audio into a `Transcript`; the intent matcher turns a
transcript into `Heard`. Nothing here imports an engine, so the quizmaster never pulls in numpy or vosk.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from voicemaster.speech.audio import Audio


class ContextName(StrEnum):
    ANSWER = "answer"
    """A question is open: a letter, an option's text, a joker, or a command."""
    CONFIRM = "confirm"
    """'Ist das deine endgültige Entscheidung?': yes or no (and commands)."""
    NUMBER = "number"
    """Money placement in the money drop: amounts or bundles on letters."""
    NAME = "name"
    """A player's name, when players introduce themselves or a partner is chosen."""


@dataclass(frozen=True)
class Context:
    name: ContextName
    language: str
    options: tuple[str, ...] = ()
    """The texts of the options on offer, in letter order (A first)."""
    names: tuple[str, ...] = ()
    """The players' names, for the name context."""


@dataclass(frozen=True)
class Transcript:
    """What an engine heard: its text, and how sure it is (0-1)."""

    text: str
    confidence: float


class Intent(StrEnum):
    """What an utterance means. A `StrEnum`, so that it reads, logs and stores as its plain name."""

    ANSWER = "answer"
    """An option: value the letter, A-D."""
    JOKER = "joker"
    """Value the joker: fifty_fifty, audience, phone, extra."""
    YES = "yes"
    NO = "no"
    PLACEMENT = "placement"
    """Money placed on options in the money drop: value like "A=10,C=rest"."""
    SWITCH_CATEGORY = "switch_category"
    """The money drop's category joker: the other category's question."""
    NAME = "name"
    """Value the name."""
    WALK_AWAY = "walk_away"
    REPEAT = "repeat"
    HELP = "help"
    PAUSE = "pause"
    RESUME = "resume"
    SCORE = "score"
    QUIT = "quit"
    SLOWER = "slower"
    FASTER = "faster"
    LOUDER = "louder"
    QUIETER = "quieter"
    SCREEN_ADDRESS = "screen_address"
    """Where the screen for the room can be opened: said so that a player can type it."""
    UNKNOWN = "unknown"
    """Nothing matched clearly: the player is asked again."""


@dataclass(frozen=True)
class Heard:
    """One understood utterance: the observation the quizmaster receives."""

    intent: Intent
    value: str | None
    text: str
    confidence: float
    decode_ms: float = 0.0

    def __post_init__(self) -> None:
        # A plain name ("answer") is accepted where a test or a saved game writes one; an unknown name is an error.
        object.__setattr__(self, "intent", Intent(self.intent))


class Recognizer(Protocol):
    def prepare(self, context: Context) -> None:
        """Work out ahead what the context alone decides (a grammar, a phrase trie), while the question is read, so
        that hearing the answer need not; harmless to call again."""
        ...

    def recognize(self, audio: Audio, context: Context) -> Heard:
        """What `audio` means in `context`; `unknown` when that is not clear."""
        ...


class RecognizerUnavailable(RuntimeError):
    """An engine or its model is missing; the message says what to install."""
