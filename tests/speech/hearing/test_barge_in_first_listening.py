"""A player who answers over the quizmaster's line before the room has ever been heard alone: a game's first
listenings, where the player answers as each line ends and the game decides at the pause, so no quiet of the room's
is left to learn its floor from. People's German recordings said over one of our lines from a laptop's speaker, the
laptop's echo 10 dB over them (`bench frontend`'s scene), heard through the game's canceller, barge-in filter and
pipeline with a room that knows nothing yet: the person stops the line, and the line alone stops for nothing
(docs/decisions/031-the-room-under-our-voice.md)."""

from __future__ import annotations

import pytest

from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.speech.audio import Audio
from voicemaster.speech.frontend import FrontEndUnavailable, open_front_end
from voicemaster.speech.frontend.room_level import RoomLevel
from voicemaster.speech.hearing.pipeline import Hearing, ListeningPipeline, PipelineStage
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster_lab.asr.samples import Sample, _spoken, real_samples
from voicemaster_lab.corpora import echo
from voicemaster_lab.harness.laptop import Laptop

PEOPLE = ("answer-lisa.wav", "answer-baer.wav", "answer-l.wav")
"""Two words and a letter, as people answer: each stopped no line in a game's first listening before."""


def _sample(name: str) -> Sample:
    real, missing = real_samples(("de",))
    found = [sample for sample in real if sample.path.name == name]
    if not found:
        pytest.skip(missing or f"no recording {name}")
    return found[0]


def _listened(sample: Sample, player: Audio | None) -> Hearing:
    """A first listening over the line `bench frontend` plays over `sample`, with `player` (or nobody) speaking from
    `echo.LEAD_SECONDS` in; nothing is read (the endpointer's stage is where a line stops)."""
    try:
        front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    except FrontEndUnavailable as absent:
        pytest.skip(str(absent))
    laptop = Laptop(echo.line_over(_spoken(sample), "de"), player, echo.LEAD_SECONDS, front_end)
    pipeline = ListeningPipeline(laptop, None, vad=SileroVad(), room=RoomLevel(), end_stage=PipelineStage.ENDPOINTER)
    return pipeline.listen(Context(ContextName.ANSWER, "de"), 1.0, laptop.playing)


@pytest.mark.parametrize("name", PEOPLE)
def test_a_person_over_our_line_stops_it_before_the_room_was_ever_heard_alone(name: str) -> None:
    sample = _sample(name)
    hearing = _listened(sample, Audio.read(sample.path))
    assert hearing.barged_in_at is not None, "the line played on over the person"
    assert hearing.barged_in_at >= echo.LEAD_SECONDS  # stopped by them, not before they spoke


@pytest.mark.parametrize("name", PEOPLE)
def test_our_line_alone_stops_for_nothing_before_the_room_was_ever_heard_alone(name: str) -> None:
    hearing = _listened(_sample(name), None)
    assert hearing.barged_in_at is None and hearing.audio is None, "our own voice was taken for a player"
