"""Deciding early: a complete answer ends the utterance at a short pause, an incomplete one is heard out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from tests.fakes import UnderstandsNothing
from tests.speech.conftest import matches
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSource
from voicemaster.speech.frame import FRAME_SECONDS
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.endpointer import Timeline
from voicemaster.speech.hearing.pipeline import Hearing, ListeningPipeline
from voicemaster.speech.hearing.segmenter import Endpoint, Segmenter
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import resample
from voicemaster.speech.voice.synthesis import Espeak

RATE = 16_000
SETTINGS = EndpointSettings()
SHORT_PAUSE = EndpointSettings(early_silence_seconds=0.25)
"""The segmenter tests count in 10 ms steps from a pause of their own, not the shipped one."""
ANSWER = Context(ContextName.ANSWER, "de", ("Berlin", "Paris", "Rom", "Wien"))
READING_SECONDS = 0.15
"""How long each reading of the real recognizer counts as having taken: Whisper base reads "Antwort B" in 0.15 s on
one machine here, 0.7 s on another (a 2-core AVX2 EPYC) and over a minute on a machine run by twenty processes; what
is tested is what the pipeline does with the reading, so its time is given (`TickingClock`)."""


class TickingClock:
    """A clock that advances half of `READING_SECONDS` each time it is read: the pipeline reads it before and after
    each reading."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += READING_SECONDS / 2
        return self.now


# --- the segmenter: the short pause is a state, ending there is the caller's call ---------------------------------


def test_a_short_pause_is_reported_and_the_caller_may_end_the_utterance_there() -> None:
    segmenter = Segmenter(SHORT_PAUSE, timeout=5)
    for _ in range(50):
        segmenter.process(0.01, True)
    for _ in range(24):
        assert segmenter.process(0.01, False) is Endpoint.SPEAKING
    assert segmenter.process(0.01, False) is Endpoint.PAUSED
    assert segmenter.end_early() is Endpoint.ENDED_EARLY
    assert segmenter.state.finished and segmenter.end == pytest.approx(0.5)


def test_speech_after_a_short_pause_goes_on_and_a_long_pause_still_ends_it() -> None:
    segmenter = Segmenter(SHORT_PAUSE, timeout=5)
    pattern = [(0.5, True), (0.3, False), (0.4, True), (0.69, False)]
    states = [segmenter.process(0.01, speech) for seconds, speech in pattern for _ in range(round(seconds / 0.01))]
    assert Endpoint.PAUSED in states[50:80] and states[80] is Endpoint.SPEAKING
    assert segmenter.process(0.01, False) is Endpoint.ENDED
    with pytest.raises(ValueError, match="only at a pause"):
        segmenter.end_early()


def test_an_early_pause_longer_than_the_full_pause_is_refused() -> None:
    with pytest.raises(ValueError, match="must not be longer"):
        EndpointSettings(early_silence_seconds=0.8)


# --- the pipeline: a complete reading ends the utterance only if the player stays silent while it is read ---------


class LoudIsSpeech:
    """Voice activity by loudness alone: enough for frames that are either a tone or digital silence."""

    def probability(self, frame: bytes) -> float:
        return float(np.abs(np.frombuffer(frame, dtype="<i2")).max() > 1000)

    def reset(self) -> None:
        pass


def tone(seconds: float) -> bytes:
    t = np.arange(round(seconds * RATE)) / RATE
    return (8000 * np.sin(2 * np.pi * 220 * t)).astype("<i2").tobytes()


class SlowReader:
    """Understands every utterance as answer B, and takes `seconds` of the (fake) clock to say so."""

    def __init__(self, seconds: float) -> None:
        self.now, self.seconds, self.given = 0.0, seconds, list[Audio]()

    def clock(self) -> float:
        return self.now

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
        self.now += self.seconds
        return Heard(Intent.ANSWER, "B", "Antwort B", 1.0)


def read_slowly(stream: bytes, reader: SlowReader) -> Hearing:
    source = FileSource([Audio(stream, RATE)])
    return ListeningPipeline(source, reader, vad=LoudIsSpeech(), settings=SETTINGS, clock=reader.clock).listen(
        ANSWER, 3
    )


def test_a_complete_reading_ends_the_utterance_once_the_pause_has_lasted_as_long_as_reading_took() -> None:
    reader = SlowReader(0.2)
    hearing = read_slowly(tone(0.5), reader)
    timeline = hearing.timeline
    assert timeline.state is Endpoint.ENDED_EARLY and len(timeline.pauses) == 1 and hearing.early
    assert timeline.speech_end is not None
    waited = timeline.stopped - timeline.speech_end
    assert SETTINGS.early_silence_seconds + 0.2 <= waited < SETTINGS.early_silence_seconds + 0.2 + 2 * FRAME_SECONDS
    assert hearing.audio == reader.given[0] and len(hearing.recognitions) == 1  # the reading at the pause stands


def test_speech_while_the_reading_is_made_means_the_answer_was_not_complete() -> None:
    reader = SlowReader(0.2)
    hearing = read_slowly(tone(0.5) + bytes(2 * round(0.15 * RATE)) + tone(0.5), reader)
    assert hearing.timeline.state is Endpoint.ENDED_EARLY and len(reader.given) == 2
    assert hearing.audio == reader.given[1] and hearing.audio is not None and hearing.audio.seconds > 1.0


def test_a_reading_slower_than_the_rest_of_the_pause_stands_when_the_pause_ends() -> None:
    reader = SlowReader(1.0)
    hearing = read_slowly(tone(0.5), reader)
    assert hearing.timeline.state is Endpoint.ENDED and not hearing.early
    assert len(reader.given) == 1 and hearing.audio == reader.given[0]  # nothing said since: not read again


def test_speech_that_never_pauses_is_cut_at_the_longest_utterance_and_asked_again() -> None:
    """Babble the voice detector takes for one endless voice: whatever the reading makes of it, nothing is acted on."""
    hearing = read_slowly(tone(SETTINGS.max_seconds + 2), SlowReader(0.2))
    assert hearing.timeline.state is Endpoint.CUT and hearing.audio is not None
    assert hearing.heard is not None and hearing.heard.intent is Intent.UNKNOWN


# --- listening and recognizing: real speech, the real recognizer ------------------------------------------------


@pytest.fixture(scope="module")
def recognizer(whisper: Callable[[str], WhisperRecognizer]) -> WhisperRecognizer:
    return whisper("de")


def spoken(espeak: Espeak, text: str) -> Audio:
    """eSpeak-NG's rendering without its own silence before and after."""
    audio = resample(espeak.render(text, "de"), RATE)
    loud = np.nonzero(np.abs(np.frombuffer(audio.samples, dtype="<i2")) > 300)[0]
    return Audio(audio.samples[2 * loud[0] : 2 * (loud[-1] + 1)], RATE)


def joined(*parts: Audio) -> Audio:
    return Audio(b"".join(part.samples for part in parts), RATE)


def pause(seconds: float) -> Audio:
    return Audio(bytes(2 * round(seconds * RATE)), RATE)


def hear(line: Audio, recognizer: WhisperRecognizer, vad: SileroVad, *, early: bool) -> tuple[Hearing, Timeline, float]:
    """What was heard, how listening went, and how long it went on after the speech. Not `early`: the short pause is
    the whole pause, so nothing is read before the end."""
    settings = SETTINGS if early else replace(SETTINGS, early_silence_seconds=SETTINGS.silence_seconds)
    source = FileSource([line])
    hearing = ListeningPipeline(source, recognizer, vad=vad, settings=settings, clock=TickingClock()).listen(ANSWER, 3)
    timeline = hearing.timeline
    assert timeline.speech_end is not None
    return hearing, timeline, timeline.stopped - timeline.speech_end


def meaning(hearing: Hearing) -> tuple[str, str | None]:
    assert hearing.heard is not None
    return hearing.heard.intent, hearing.heard.value


def test_a_complete_answer_ends_at_the_short_pause_with_the_same_meaning(
    espeak: Espeak, recognizer: WhisperRecognizer, vad: SileroVad
) -> None:
    answer = spoken(espeak, "Antwort B")
    early, timeline, early_wait = hear(answer, recognizer, vad, early=True)
    full, _, full_wait = hear(answer, recognizer, vad, early=False)
    assert meaning(early) == meaning(full) == ("answer", "B")
    assert early.early and timeline.state is Endpoint.ENDED_EARLY and len(early.recognitions) == 1
    assert early_wait < SETTINGS.early_silence_seconds + READING_SECONDS + 2 * FRAME_SECONDS
    assert SETTINGS.silence_seconds <= full_wait and not full.early


def test_an_answer_not_complete_at_a_short_pause_is_heard_out_whole(
    espeak: Espeak, recognizer: WhisperRecognizer, vad: SileroVad
) -> None:
    start, answer = spoken(espeak, "Ich nehme"), spoken(espeak, "Antwort B")
    line = joined(start, pause(0.4), answer)
    early, timeline, _ = hear(line, recognizer, vad, early=True)
    full, _, _ = hear(line, recognizer, vad, early=False)
    # "Ich nehme" was read at its pause, not understood, and listening went on.
    assert len(timeline.pauses) >= 1 and early.recognitions[0].intent is Intent.UNKNOWN
    assert early.audio is not None and matches(early.audio, start) > 0.99 and matches(early.audio, answer) > 0.99
    assert meaning(early) == meaning(full)


def test_an_utterance_not_understood_at_its_last_pause_is_not_read_again(espeak: Espeak, vad: SileroVad) -> None:
    puzzled = UnderstandsNothing()
    hearing = ListeningPipeline(FileSource([spoken(espeak, "Antwort B")]), puzzled, vad=vad).listen(ANSWER, 3)
    assert puzzled.asked == 1 and not hearing.early and meaning(hearing) == ("unknown", None)


def test_nobody_speaking_is_heard_as_nobody(vad: SileroVad) -> None:
    hearing = ListeningPipeline(FileSource([pause(1.0)]), UnderstandsNothing(), vad=vad).listen(ANSWER, 1)
    assert hearing.heard is None and hearing.audio is None and hearing.recognitions == ()


def test_a_yes_is_never_taken_at_a_short_pause(espeak: Espeak, recognizer: WhisperRecognizer, vad: SileroVad) -> None:
    """ "Ja ... nein, warte!": a yes locks an answer, so it is only taken once the player has finished."""
    yes, wait = spoken(espeak, "Ja"), spoken(espeak, "Nein, warte")
    source = FileSource([joined(yes, pause(0.4), wait)])
    hearing = ListeningPipeline(source, recognizer, vad=vad).listen(Context(ContextName.CONFIRM, "de"), timeout=3)
    # The "Ja" was read at its pause and listening went on; the whole utterance is a no, or too unclear to be
    # anything (asked again), and never the yes it began with.
    assert hearing.recognitions[0].intent is Intent.YES and len(hearing.recognitions) > 1
    assert hearing.audio is not None and matches(hearing.audio, wait) > 0.99
    assert hearing.heard is not None and hearing.heard.intent in (Intent.NO, Intent.UNKNOWN)


def test_a_placement_of_amounts_only_is_heard_out_to_the_rest(
    espeak: Espeak, recognizer: WhisperRecognizer, vad: SileroVad
) -> None:
    """ "Zehn auf A ... und den Rest auf C": a player who breathes after the first amount has not finished placing."""
    first, rest = spoken(espeak, "Zehn auf A"), spoken(espeak, "und den Rest auf C")
    source = FileSource([joined(first, pause(0.4), rest)])
    money = Context(ContextName.NUMBER, "de", ("Berlin", "Paris", "Rom", "Wien"))
    hearing = ListeningPipeline(source, recognizer, vad=vad, settings=SETTINGS, clock=TickingClock()).listen(money, 3)
    # "Zehn auf A" was read at the breath, understood, and listening went on to the rest.
    assert "A=10" in [heard.value for heard in hearing.recognitions[:-1]]
    assert meaning(hearing) == ("placement", "A=10,C=rest")
