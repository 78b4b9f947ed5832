"""A yes answered at once, a take-back still heard: a person's "ja" followed, after a pause of 0.1 to 1.5 s, by
"nein, warte" or "doch nicht", heard as the game hears it on the demo's stage (the pipeline `play` listens through:
Silero's voice activity, the endpointer, Whisper). The yes to "final answer?" may end listening at the first short
pause; the quizmaster then says its lock line while it listens on (`host.listening.take_back_window`). Whatever the
pause, a yes taken back is never left standing: either the whole utterance is heard and is no yes, or the yes is
taken at once and the take-back is heard over the lock line.

The real-speech set has a person's "ja" (German) and a person's "No" and "Non" (English, French), no "yes" or "oui":
English and French splice Pico's yes before the person's no, German the person's yes before Pico's take-back.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.host.listening import TAKE_BACK_SECONDS
from voicemaster.play.simulated_ear import STAGE_SETTINGS
from voicemaster.play.stage import Stage
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.hearing.pipeline import Hearing, ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster.speech.voice import pico
from voicemaster_lab.corpora import real_speech

RATE = RECOGNITION_RATE
PAUSES = (0.1, 0.3, 0.5, 0.8, 1.0, 1.5)
CLIPS = real_speech.load()
LOCK_SECONDS = 2.0
"""The lock line, "Markus, Antwort B ist eingeloggt.", as long as Pico says it."""


def trimmed(audio: Audio) -> Audio:
    samples = np.frombuffer(resample(audio, RATE).samples, dtype="<i2")
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) >= 328)
    return Audio(samples[loud[0] : loud[-1] + 1].tobytes(), RATE)


def person(language: str, kind: str) -> Audio:
    clip = next(clip for clip in CLIPS if clip.language == language and clip.kind == kind)
    return trimmed(Audio.read(clip.path()))


def said(language: str, text: str) -> Audio:
    if not pico.installed():
        pytest.skip(pico.missing_message())
    return trimmed(pico.Pico().speak(text, Voice(pico.DEFAULT_VOICE[language], rate=150, engine="pico")))


def lock_line() -> Audio:
    t = np.arange(round(LOCK_SECONDS * RATE)) / RATE
    return Audio((5000 * np.sin(2 * np.pi * 170 * t)).astype("<i2").tobytes(), RATE)


def spliced(yes: Audio, pause: float, back: Audio) -> Audio:
    return Audio(yes.samples + bytes(2 * round(pause * RATE)) + back.samples, RATE)


def heard_with_lock(recognizer: WhisperRecognizer, vad: SileroVad, utterance: Audio, language: str) -> list[Hearing]:
    """ "Final answer?" heard with a yes taken at once; if it was a yes, the lock line said while listening on for
    the take-back, the player going on as they spoke."""
    stage = Stage(FileSink(rate=RATE))
    stage.speak(utterance, None, 0.0)

    def hear(context: Context, timeout: float, line: Audio | None) -> Hearing:
        playing = stage.play(line) if line is not None else None
        hearing = ListeningPipeline(stage, recognizer, vad=vad, settings=STAGE_SETTINGS, clock=stage.now).listen(
            context, timeout, playing
        )
        stage.settle()
        return hearing

    answer = hear(Context(ContextName.CONFIRM, language, yes_at_once=True), 5.0, None)
    if answer.heard is None or answer.heard.intent is not Intent.YES:
        return [answer]
    return [answer, hear(Context(ContextName.CONFIRM, language), TAKE_BACK_SECONDS, lock_line())]


QUICK = (0.1, 0.5, 1.5)
"""The pauses the default suite tries; `make test-slow` tries every pause, and every language."""
CASES = [
    pytest.param("de", "ja", "nein, warte", QUICK, id="de-nein-warte"),
    pytest.param("de", "ja", "nein, warte", PAUSES, id="de-nein-warte-every-pause", marks=pytest.mark.slow),
    pytest.param("de", "ja", "doch nicht", PAUSES, id="de-doch-nicht", marks=pytest.mark.slow),
    pytest.param("en", "Yes", "no", PAUSES, id="en-no", marks=pytest.mark.slow),
    pytest.param("fr", "Oui", "non", PAUSES, id="fr-non", marks=pytest.mark.slow),
]


@pytest.mark.parametrize(("language", "yes_said", "back_said", "pauses"), CASES)
def test_a_yes_taken_back_after_any_pause_is_never_left_standing(
    whisper: Callable[[str], WhisperRecognizer],
    vad: SileroVad,
    language: str,
    yes_said: str,
    back_said: str,
    pauses: tuple[float, ...],
) -> None:
    yes = person("de", "yes") if language == "de" else said(language, yes_said)
    back = said("de", back_said) if language == "de" else person(language, "no")
    recognizer = whisper(language)
    at_once = []
    for pause in pauses:
        hearings = heard_with_lock(recognizer, vad, spliced(yes, pause, back), language)
        answer = hearings[0]
        assert answer.heard is not None
        if len(hearings) == 1:  # heard whole: the utterance is a no, or not clear enough to lock anything
            assert answer.heard.intent in (Intent.NO, Intent.UNKNOWN), pause
            continue
        window = hearings[1]
        assert answer.early, pause  # the yes ended listening at once
        assert window.heard is not None and window.heard.intent is Intent.NO, pause
        assert window.barged_in_at is not None or pause > LOCK_SECONDS, pause  # heard over the lock line
        at_once.append(pause)
    # From a pause a person cannot hold back a take-back in, the yes was answered at once.
    assert at_once and max(pauses) in at_once


def test_a_yes_left_standing_is_a_yes(whisper: Callable[[str], WhisperRecognizer], vad: SileroVad) -> None:
    hearings = heard_with_lock(whisper("de"), vad, person("de", "yes"), "de")
    assert len(hearings) == 2 and hearings[0].early and hearings[1].heard is None  # nobody took it back
