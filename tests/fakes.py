"""The fakes every test folder shares: small stand-ins that make a test fast, never make it pass.

Each keeps what it was asked, so that a test can check the part under test really used it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from voicemaster.dialogue.meaning import Context, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import Frame


class UnderstandsNothing:
    """A recognizer that refuses every utterance at once, and counts how often it was asked: with it, no pause ends
    an utterance early and no model is loaded, so a test stays about where speech begins and ends."""

    def __init__(self) -> None:
        self.asked = 0
        self.contexts: list[Context] = []
        """The context of each reading asked for, in order."""
        self.over_our_voice: list[bool] = []
        """Whether each reading was of an utterance begun over our voice."""
        self.crowded: list[bool] = []
        """Whether each reading was of an utterance said over other people's talk."""

    def prepare(self, context: Context) -> None:
        del context

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        del audio, line_stopped_at
        self.asked += 1
        self.contexts.append(context)
        self.over_our_voice.append(over_our_voice)
        self.crowded.append(crowded)
        return Heard(Intent.UNKNOWN, None, "", 0.0)


@dataclass
class ReferenceKept:
    """An echo canceller that cleans nothing and keeps the reference it is handed with each frame: which part of
    what the loudspeaker played a phone's (or a microphone's) frame was matched with."""

    references: list[bytes] = field(default_factory=list)
    name: str = "reference kept"
    cancels_echo: bool = True

    def process(self, frame: bytes, reference: bytes) -> Frame:
        self.references.append(reference)
        return Frame(frame)
