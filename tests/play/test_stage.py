"""The demo's stage: a player who speaks over the quizmaster stops it where they did, through the pipeline `play`
listens through, and the session holds both voices as they were heard."""

from __future__ import annotations

import numpy as np

from tests.fakes import UnderstandsNothing
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.play.stage import LEAD_SECONDS, Stage
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.hearing.pipeline import listen_and_recognize
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
    hearing = listen_and_recognize(stage, UnderstandsNothing(), ANSWER, 3, line, vad=LoudIsSpeech(), clock=stage.now)
    stage.settle()

    assert began == 2.0
    assert hearing.barged_in_at is not None and 2.0 <= hearing.barged_in_at < 2.2 and line.done()
    # The session: the line up to where it stopped, the player over it from 2 s, then the player's pause.
    assert 3.0 < stage.sink.seconds < 6.0
    session = np.frombuffer(stage.sink.session.samples, dtype="<i2")
    assert np.abs(session[:RATE]).max() < 4100 and np.abs(session[2 * RATE + 100 : 3 * RATE - 100]).max() > 16000


def test_a_player_who_waits_answers_after_the_line() -> None:
    stage = Stage(FileSink(rate=RATE))
    line = stage.play(tone(2.0, 4000))
    began = stage.speak(tone(0.5, 8000), over=None, quiet_seconds=0.0)
    hearing = listen_and_recognize(stage, UnderstandsNothing(), ANSWER, 3, line, vad=LoudIsSpeech(), clock=stage.now)
    stage.settle()

    assert began == 2.0 + LEAD_SECONDS and hearing.barged_in_at is None and hearing.audio is not None
    assert stage.sink.seconds > 3.0
