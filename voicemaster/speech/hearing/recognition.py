"""What the recognizers share: audio and a listening context in, what was heard out.

Engines turn audio into a `Transcript`; the intent matcher turns a transcript into `Heard` (the dialogue's own
vocabulary, `voicemaster.dialogue.meaning`). Nothing here imports an engine, so the quizmaster never pulls in numpy
or vosk.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from voicemaster.dialogue.meaning import Context, Heard
from voicemaster.speech.audio import Audio


@dataclass(frozen=True)
class Transcript:
    """What an engine heard: its text, and how sure it is (0-1)."""

    text: str
    confidence: float


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
