"""The fakes every test folder shares: small stand-ins that make a test fast, never make it pass.

Each keeps what it was asked, so that a test can check the part under test really used it.
"""

from __future__ import annotations

from voicemaster.dialogue.meaning import Context, Heard, Intent
from voicemaster.speech.audio import Audio


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
        self, audio: Audio, context: Context, *, over_our_voice: bool = False, crowded: bool = False
    ) -> Heard:
        del audio
        self.asked += 1
        self.contexts.append(context)
        self.over_our_voice.append(over_our_voice)
        self.crowded.append(crowded)
        return Heard(Intent.UNKNOWN, None, "", 0.0)
