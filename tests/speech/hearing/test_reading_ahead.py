"""Reading ahead (`ahead=True`, a live microphone): the utterance is read on a worker thread from the short pause while
the frames go on being heard; a reading overtaken by more speech is thrown away, and real recordings of people mean
the same read ahead as read between frames."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSource
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.pipeline import Hearing, ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech import LETTERS
from voicemaster_lab.corpora.real_speech_sources import RealClip

RATE = 16_000
ANSWER = Context(ContextName.ANSWER, "de", ("Berlin", "Paris", "Rom", "Wien"))


class LoudIsSpeech:
    def probability(self, frame: bytes) -> float:
        return float(np.abs(np.frombuffer(frame, dtype="<i2")).max() > 1000)

    def reset(self) -> None:
        pass


def tone(seconds: float) -> bytes:
    t = np.arange(round(seconds * RATE)) / RATE
    return (8000 * np.sin(2 * np.pi * 220 * t)).astype("<i2").tobytes()


def quiet(seconds: float) -> bytes:
    return bytes(2 * round(seconds * RATE))


class Reader:
    """Understands every utterance as answer B, noting each audio it was given and on which thread; a slow one takes
    longer than the frames of a file take to come."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.given: list[Audio] = []
        self.threads: set[str] = set()
        self.seconds = seconds

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
        del context, over_our_voice, crowded, line_stopped_at
        self.given.append(audio)
        self.threads.add(threading.current_thread().name)
        time.sleep(self.seconds)
        return Heard(Intent.ANSWER, "B", "Antwort B", 1.0, decode_ms=1.0)


def hear(stream: bytes, reader: Reader) -> Hearing:
    source = FileSource([Audio(stream, RATE)])
    return ListeningPipeline(source, reader, vad=LoudIsSpeech(), ahead=True).listen(ANSWER, 3)


def test_the_utterance_is_read_on_another_thread_from_the_pause_and_that_reading_decides() -> None:
    reader = Reader()
    hearing = hear(tone(0.5), reader)
    assert hearing.heard is not None and hearing.heard.value == "B"
    assert all(name.startswith("reading-ahead") for name in reader.threads)
    assert hearing.speculation is not None and hearing.speculation.started == 1 and hearing.speculation.used == 1
    # The pause's own audio: what reading between frames would read.
    assert reader.given == [hearing.audio] and len(hearing.recognitions) == 1


def test_a_reading_overtaken_by_more_speech_is_thrown_away() -> None:
    reader = Reader(seconds=0.2)
    hearing = hear(tone(0.5) + quiet(0.15) + tone(0.5), reader)
    speculation = hearing.speculation
    assert speculation is not None and speculation.started == 2 and speculation.used == 1
    assert speculation.thrown_ms > 0 and len(hearing.recognitions) == 1
    assert hearing.audio is not None and hearing.audio.seconds > 1.0
    assert reader.given[-1].seconds > 1.0  # the decision is the reading of the whole


def test_a_final_burst_before_the_pause_is_read_with_the_word() -> None:
    """The burst of a final "k" after its closure: too short and soft for the voice detector, but part of the word."""
    reader = Reader(seconds=0.2)
    burst = (900 * np.sin(2 * np.pi * 2000 * np.arange(round(0.03 * RATE)) / RATE)).astype("<i2").tobytes()
    hearing = hear(tone(0.5) + quiet(0.05) + burst, reader)
    assert len(reader.given) == 1 and burst in reader.given[0].samples
    assert hearing.heard is not None and hearing.heard.value == "B"


def test_nobody_speaking_reads_nothing() -> None:
    reader = Reader()
    hearing = hear(quiet(1.0), reader)
    assert hearing.heard is None and not reader.given
    assert hearing.speculation is not None and hearing.speculation.started == 0


SAMPLE = tuple(
    clip
    for clip in real_speech.load()
    if (clip.kind == "letter" and clip.text in LETTERS and clip.language == "de") or clip.kind in ("yes", "no")
)


@pytest.mark.parametrize("clip", SAMPLE, ids=[clip.file for clip in SAMPLE])
def test_people_mean_the_same_read_ahead_as_read_at_the_pause(
    clip: RealClip, whisper: Callable[[str], WhisperRecognizer], vad: SileroVad
) -> None:
    recognizer = whisper(clip.language)
    context = Context(ContextName(clip.context), clip.language, clip.options)
    audio = Audio.read(clip.path())
    meanings = []
    for ahead in (False, True):
        hearing = ListeningPipeline(
            FileSource([audio]), recognizer, vad=vad, settings=EndpointSettings(), ahead=ahead
        ).listen(context, 3)
        assert hearing.heard is not None
        meanings.append((hearing.heard.intent, hearing.heard.value))
    assert meanings[0] == meanings[1]
