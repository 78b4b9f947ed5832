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


@dataclass(frozen=True)
class Heard:
    """One understood utterance: the observation the quizmaster receives.

    `intent` is one of `answer` (value A-D), `joker` (fifty_fifty, audience, phone, extra), `yes`, `no`,
    `walk_away`, `repeat`, `help`, `pause`, `quit`, `slower`, `faster`, `louder`, `quieter`, `placement`
    (value like "A=10,C=rest"), `name` (value the name), or `unknown` when nothing matched clearly.
    """

    intent: str
    value: str | None
    text: str
    confidence: float
    decode_ms: float = 0.0


class Recognizer(Protocol):
    def recognize(self, audio: Audio, context: Context) -> Heard: ...


class RecognizerUnavailable(RuntimeError):
    """An engine or its model is missing; the message says what to install."""
