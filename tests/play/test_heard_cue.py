"""The "heard you" cue: a person's real answer heard through the pipeline on the demo's stage brings a soft tick into
the sound the players hear, after their speech ends and before the quizmaster's reply; turned off, no tick; never
over the quizmaster's own voice."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from voicemaster.config.settings import default_paths, load_settings
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.play.ear import heard_cue
from voicemaster.play.simulated_ear import STAGE_SETTINGS
from voicemaster.play.stage import Stage
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import Words
from voicemaster.speech.hearing.pipeline import Hearing, ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import resample
from voicemaster.speech.voice.earcons import earcon
from voicemaster_lab.corpora import real_speech

RATE = 22_050
ANSWER = Context(ContextName.ANSWER, "de", ("Berlin", "Paris", "Rom", "Wien"))
B = next(clip for clip in real_speech.load() if clip.language == "de" and clip.kind == "letter" and clip.text == "B")


def line(seconds: float) -> Audio:
    """The quizmaster's line: a voice-like hum (its own sound is never taken for the cue)."""
    t = np.arange(round(seconds * RATE)) / RATE
    hum = 6000 * np.sin(2 * np.pi * 180 * t) * (0.6 + 0.4 * np.sin(2 * np.pi * 3 * t))
    return Audio(hum.astype("<i2").tobytes(), RATE)


def samples(audio: Audio) -> npt.NDArray[np.float64]:
    return np.frombuffer(resample(audio, RATE).samples, dtype="<i2").astype(np.float64)


def found_at(session: Audio, sound: Audio) -> tuple[float, float]:
    """Where `sound` is best found in `session` (seconds) and how well (1.0: exactly, alone)."""
    a, b = samples(session), samples(sound)
    scores = np.correlate(a, b, "valid")
    best = int(np.argmax(scores))
    fit = scores[best] / np.sqrt(np.sum(b**2) * np.sum(a[best : best + len(b)] ** 2) + 1e-12)
    return best / RATE, float(fit)


def game_turn(recognizer: WhisperRecognizer, vad: SileroVad, *, cue: bool, over: float | None) -> tuple[Hearing, Stage]:
    """A question, a person's "B" (after it, or `over` seconds into it), the reply: as the demo's stage hears it."""
    stage = Stage(FileSink(rate=RATE))
    question = stage.play(line(3.0))
    stage.speak(resample(Audio.read(B.path()), 16_000), over, 0.0)
    sound = heard_cue(cue)
    hearing = ListeningPipeline(
        stage,
        recognizer,
        vad=vad,
        settings=STAGE_SETTINGS,
        clock=stage.now,
        cue=None if sound is None else (lambda: stage.cue(sound)),
    ).listen(ANSWER, 8, question)
    stage.settle()
    stage.play(line(1.0))  # the reply
    stage.finish()
    return hearing, stage


@pytest.fixture(scope="module")
def recognizer(whisper: Callable[[str], WhisperRecognizer]) -> WhisperRecognizer:
    return whisper("de")


def test_the_cue_sounds_after_the_players_speech_and_before_the_reply(
    recognizer: WhisperRecognizer, vad: SileroVad
) -> None:
    hearing, stage = game_turn(recognizer, vad, cue=True, over=None)
    assert hearing.heard is not None and (hearing.heard.intent, hearing.heard.value) == (Intent.ANSWER, "B")
    session = stage.sink.session
    tick = earcon("heard", RATE)
    at, fit = found_at(session, tick)
    assert fit > 0.9
    # The microphone was read from the start of the question, so the timeline's seconds are the session's; the
    # reply is its last second.
    timeline = hearing.timeline
    assert hearing.cued_at is not None and timeline.speech_end is not None and timeline.pauses
    assert at == pytest.approx(hearing.cued_at, abs=0.01)
    assert 3.0 < timeline.speech_end < at < session.seconds - 1.0
    # It sounds in the pause after the speech, before the utterance is read: not after the whole pause.
    assert hearing.cued_at <= timeline.pauses[0] < timeline.speech_end + STAGE_SETTINGS.silence_seconds


def test_no_cue_when_the_setting_is_off(recognizer: WhisperRecognizer, vad: SileroVad) -> None:
    hearing, stage = game_turn(recognizer, vad, cue=False, over=None)
    assert hearing.heard is not None and hearing.cued_at is None
    _, fit = found_at(stage.sink.session, earcon("heard", RATE))
    assert fit < 0.5


def test_the_setting_is_on_by_default_and_turned_off_in_speech(tmp_path: Path) -> None:
    shipped = default_paths()[:1]
    assert load_settings(shipped).heard_cue
    mine = tmp_path / "config.toml"
    mine.write_text("[speech]\nheard_cue = false\n", encoding="utf-8")
    settings = load_settings([*shipped, mine])
    assert not settings.heard_cue and set(settings.speech) == {"de", "en", "fr"}
    assert heard_cue(False) is None and heard_cue(True) is not None


class StillPlaying:
    """A line that plays on (a loudspeaker that did not stop for the player)."""

    def __init__(self, audio: Audio) -> None:
        self.audio = audio
        self.words: tuple[Words, ...] = ()

    def position(self) -> float:
        return 1.0

    def done(self) -> bool:
        return False

    def wait(self, timeout: float | None = None) -> bool:
        del timeout
        return False

    def stop(self) -> None:
        pass


def test_never_over_the_quizmasters_own_voice(recognizer: WhisperRecognizer, vad: SileroVad) -> None:
    stage = Stage(FileSink(rate=RATE))
    stage.speak(resample(Audio.read(B.path()), 16_000), None, 0.0)
    cues: list[float] = []
    playing = StillPlaying(line(10.0))
    hearing = ListeningPipeline(
        stage, recognizer, vad=vad, settings=STAGE_SETTINGS, cue=lambda: cues.append(1.0)
    ).listen(ANSWER, 8, playing)
    assert hearing.heard is not None and hearing.cued_at is None and not cues
