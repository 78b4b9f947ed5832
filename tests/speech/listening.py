"""Hearing where an utterance begins and ends, without what it means: for the tests of the devices and the endpointer.

The pipeline is the one the game runs (`ListeningPipeline`); its recognizer here understands nothing, so no pause
ends an utterance early and no model is loaded: the test stays about what the devices deliver.
"""

from __future__ import annotations

from functools import cache

from tests.fakes import UnderstandsNothing
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import AudioIn, Playback
from voicemaster.speech.hearing.pipeline import Hearing, ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad

ANYTHING = Context(ContextName.ANSWER, "de")


@cache
def silero() -> SileroVad:
    return SileroVad()


def hear(source: AudioIn, timeout: float, during: Playback | None = None) -> Hearing:
    return ListeningPipeline(source, UnderstandsNothing(), vad=silero()).listen(ANYTHING, timeout, during)


def listen(source: AudioIn, timeout: float, during: Playback | None = None) -> Audio | None:
    """The utterance the source delivered, or None if nobody spoke within `timeout` seconds."""
    return hear(source, timeout, during).audio
