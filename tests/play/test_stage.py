"""The demo's stage: a player who speaks over the quizmaster stops it where they did, through the pipeline `play`
listens through, and the session holds both voices as they were heard."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from tests.fakes import UnderstandsNothing
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.play.paced import Paced
from voicemaster.play.stage import LEAD_SECONDS, Stage
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import Playback, Words
from voicemaster.speech.frame import FRAME_SECONDS
from voicemaster.speech.hearing.pipeline import ListeningPipeline, PipelineStage, StageEvent
from voicemaster.speech.signal import RECOGNITION_RATE

RATE = RECOGNITION_RATE
ANSWER = Context(ContextName.ANSWER, "de", options=("Wien", "Graz"))


class LoudIsSpeech:
    def probability(self, frame: bytes) -> float:
        return float(np.abs(np.frombuffer(frame, dtype="<i2")).max() > 1000)

    def reset(self) -> None:
        pass


def tone(seconds: float, level: int) -> Audio:
    t = np.arange(round(seconds * RATE)) / RATE
    return Audio((level * np.sin(2 * np.pi * 220 * t)).astype("<i2").tobytes(), RATE)


def test_a_player_speaking_over_the_line_stops_it_there() -> None:
    stage = Stage(FileSink(rate=RATE))
    line = stage.play(tone(6.0, 4000))
    began = stage.speak(tone(1.0, 16000), over=2.0, quiet_seconds=0.0)
    recognizer = UnderstandsNothing()
    hearing = ListeningPipeline(stage, recognizer, vad=LoudIsSpeech(), clock=stage.now).listen(ANSWER, 3, line)
    stage.settle()

    assert began == 2.0
    assert hearing.barged_in_at is not None and 2.0 <= hearing.barged_in_at < 2.2 and line.done()
    # Begun over our voice, the utterance is read as such: its decision is stricter.
    assert recognizer.over_our_voice and all(recognizer.over_our_voice)
    # The session: the line up to where it stopped, the player over it from 2 s, then the player's pause.
    assert 3.0 < stage.sink.seconds < 6.0
    session = np.frombuffer(stage.sink.session.samples, dtype="<i2")
    assert np.abs(session[:RATE]).max() < 4100 and np.abs(session[2 * RATE + 100 : 3 * RATE - 100]).max() > 16000


def test_a_player_who_waits_answers_after_the_line() -> None:
    stage = Stage(FileSink(rate=RATE))
    line = stage.play(tone(2.0, 4000))
    began = stage.speak(tone(0.5, 8000), over=None, quiet_seconds=0.0)
    recognizer = UnderstandsNothing()
    hearing = ListeningPipeline(stage, recognizer, vad=LoudIsSpeech(), clock=stage.now).listen(ANSWER, 3, line)
    stage.settle()

    assert began == 2.0 + LEAD_SECONDS and hearing.barged_in_at is None and hearing.audio is not None
    assert recognizer.over_our_voice and not any(recognizer.over_our_voice)
    assert stage.sink.seconds > 3.0


class Loudspeaker:
    """Plays in steps: each wait moves the sound on by a tenth of a second; `heard`: seconds played so far."""

    def __init__(self) -> None:
        self.before = 0.0
        self.playing: Stepping | None = None

    @property
    def heard(self) -> float:
        return self.before + (self.playing.position() if self.playing is not None else 0.0)

    def play(self, audio: Audio, words: tuple[Words, ...] = ()) -> Playback:
        if self.playing is not None:
            self.before += self.playing.audio.seconds
        self.playing = Stepping(audio, words)
        return self.playing


class Stepping:
    def __init__(self, audio: Audio, words: tuple[Words, ...] = ()) -> None:
        self.audio, self.words, self.at = audio, words, 0.0

    def position(self) -> float:
        return min(self.at, self.audio.seconds)

    def done(self) -> bool:
        return self.at >= self.audio.seconds

    def wait(self, timeout: float | None = None) -> bool:
        del timeout
        self.at += 0.1
        return self.done()

    def stop(self) -> None:
        self.at = self.audio.seconds


@dataclass
class Watching:
    """What a watcher saw, and how far the loudspeaker had played when it saw it."""

    loudspeaker: Loudspeaker
    seen: list[tuple[str, float]] = field(default_factory=list)

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None:
        del t
        if event == "say":
            self.seen.append((data["text"], self.loudspeaker.heard))

    def stored(self, t: float, state: str) -> None:
        pass


def test_aloud_each_step_is_shown_when_the_sound_reaches_it() -> None:
    loudspeaker = Loudspeaker()
    watching = Watching(loudspeaker)
    paced = Paced(watching)
    stage = Stage(FileSink(rate=RATE), loudspeaker, paced)
    stage.play(tone(1.0, 4000)).wait()
    paced.publish(stage.now(), "say", {"text": "B: Graz."})  # the next line, one second into the session
    paced.publish(stage.now() + 0.5, "say", {"text": "halfway through it"})
    assert watching.seen == []  # nothing is shown before its sound
    stage.play(tone(1.0, 4000)).wait()
    stage.finish()

    (line, at_line), (halfway, at_halfway) = watching.seen
    assert line == "B: Graz." and at_line == pytest.approx(1.0)
    assert halfway == "halfway through it" and 1.5 <= at_halfway < 1.6
    assert loudspeaker.heard == pytest.approx(2.0) == stage.sink.seconds  # everything went to the loudspeaker


@pytest.mark.parametrize("aloud", [True, False])
def test_a_line_cut_off_before_it_began_is_never_told(aloud: bool) -> None:
    """The lines up to a listening are written down ahead; a player who answers over the first of them cuts the rest
    off (the runner then takes them back: `unsaid`). The terminal and the screen must not show the quizmaster saying
    them over its reply, aloud or as fast as it can (`voicemaster demo --fast`)."""
    loudspeaker = Loudspeaker()
    watching = Watching(loudspeaker)
    paced = Paced(watching)
    stage = Stage(FileSink(rate=RATE), loudspeaker if aloud else None, paced)
    playing = stage.play(tone(2.0, 4000))
    paced.publish(0.0, "say", {"text": "C: Schwan."})
    paced.publish(1.0, "say", {"text": "Anna, deine Antwort?", "start": 1.0})
    stage.speak(tone(0.5, 8000), 0.5, 0.0)
    for count, _ in enumerate(stage.frames()):  # the player is heard over the line, which stops 0.6 s in
        if count == round(0.6 / FRAME_SECONDS):
            playing.stop()
    stage.settle()  # the line as far as it played, and the player, are in the session
    paced.publish(0.5, "unsaid", {"start": 1.0})
    paced.publish(stage.now(), "say", {"text": "Das habe ich nicht sicher verstanden."})
    stage.play(tone(1.0, 4000)).wait()
    stage.finish()
    assert [text for text, _ in watching.seen] == ["C: Schwan.", "Das habe ich nicht sicher verstanden."]


def test_each_stage_of_a_barge_in_is_told_in_order_and_the_decision_says_how_it_was_heard() -> None:
    stage = Stage(FileSink(rate=RATE))
    line = stage.play(tone(6.0, 4000))
    stage.speak(tone(1.0, 16000), over=2.0, quiet_seconds=0.0)
    seen: list[StageEvent] = []
    pipeline = ListeningPipeline(stage, UnderstandsNothing(), LoudIsSpeech(), clock=stage.now, observe=seen.append)
    hearing = pipeline.listen(ANSWER, 3, line)
    stage.settle()

    assert tuple(seen) == hearing.events  # told as it happened, kept on what was heard
    order = [(event.stage, event.started) for event in hearing.events]
    assert order[0] == (PipelineStage.SOURCE, True) and order[-1] == (PipelineStage.SOURCE, False)
    for stage_name in (PipelineStage.BARGE_IN, PipelineStage.ENDPOINTER, PipelineStage.READER):
        assert order.index((stage_name, True)) < order.index((stage_name, False))
    # Barge-in listens from the first frame over the line, and ends where the player stopped it.
    assert order.index((PipelineStage.BARGE_IN, True)) < order.index((PipelineStage.ENDPOINTER, True))
    told = {(event.stage, event.started): event for event in hearing.events}
    assert told[(PipelineStage.BARGE_IN, False)].detail["line_at"] == hearing.barged_in_at
    decision = told[(PipelineStage.DECISION, False)].detail
    assert decision["over_our_voice"] is True and decision["intent"] == "unknown"
    assert told[(PipelineStage.ENDPOINTER, False)].detail["speech_end"] == hearing.timeline.speech_end
    heard_over = told[(PipelineStage.FRONT_END, False)].detail["over_our_voice"]
    assert isinstance(heard_over, int) and heard_over > 0  # frames heard while the line played


def test_a_pipeline_that_ends_at_the_endpointer_reads_nothing() -> None:
    stage = Stage(FileSink(rate=RATE))
    stage.speak(tone(0.5, 8000), over=None, quiet_seconds=0.0)
    pipeline = ListeningPipeline(stage, None, LoudIsSpeech(), clock=stage.now, end_stage=PipelineStage.ENDPOINTER)
    hearing = pipeline.listen(ANSWER, 3)
    assert hearing.audio is not None and hearing.recognitions == () and hearing.heard is None
    assert not any(event.stage in (PipelineStage.READER, PipelineStage.DECISION) for event in hearing.events)
    with pytest.raises(ValueError, match="recognizer"):
        ListeningPipeline(stage, UnderstandsNothing(), LoudIsSpeech(), end_stage=PipelineStage.ENDPOINTER)
