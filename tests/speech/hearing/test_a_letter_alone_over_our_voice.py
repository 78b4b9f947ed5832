"""A letter said alone over the quizmaster's line: the canceller takes its onset (a German "C", "tse", comes out "Z."
or "See"), and what is left is the whole reading. Over our voice the decoder's words decide (decision 017); a reading
that is one letter's sound and nothing else names that letter, and where the words name the answer the scores pick,
the scores need not pick it by the meaning margin (docs/decisions/037-a-letter-alone-over-our-voice.md). People's
German letters (klettres) over Pico's question on the demo's stage, through the game's canceller and pipeline, and
decided as if begun over our voice; a letter that is no answer is never taken for one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.play.simulated_ear import STAGE_SETTINGS
from voicemaster.play.stage import Stage
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.frontend import FrontEndUnavailable, open_front_end
from voicemaster.speech.hearing.pipeline import ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster.speech.voice.speakers import Engines, Speakers
from voicemaster_lab.asr.samples import Sample, real_samples

OPTIONS = ("Die Schnecke", "Der Frosch", "Der Igel", "Die Maus")
QUESTION = "Welches Tier trägt sein Haus auf dem Rücken? A: Die Schnecke. B: Der Frosch. C: Der Igel. D: Die Maus."
PROMPT = "Anna, deine Antwort?"
ANIMALS = Context(ContextName.ANSWER, "de", OPTIONS)


def _letters() -> list[Sample]:
    real, missing = real_samples(("de",))
    found = [sample for sample in real if sample.context is ContextName.ANSWER and len(sample.path.stem) == 8]
    if not found:
        pytest.skip(missing or "no German letters said by people")
    return found


def _letter(name: str) -> Sample:
    found = [sample for sample in _letters() if sample.path.name == name]
    if not found:
        pytest.skip(f"no recording {name}")
    return found[0]


def test_a_persons_letter_said_alone_over_the_prompt_is_understood(
    whisper: Callable[[str], WhisperRecognizer],
) -> None:
    # A person's "C" 0.6 s into "Anna, deine Antwort?": read "Z" (its "t" taken), the scores pick C by 0.6 only.
    try:
        front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    except FrontEndUnavailable as missing:
        pytest.skip(str(missing))
    host = Speakers({"de": Voice()}, Engines())
    line = host.render(f"{QUESTION} {PROMPT}", "de")
    stage = Stage(FileSink(rate=RECOGNITION_RATE), front_end=front_end)
    playing = stage.play(line)
    person = resample(Audio.read(_letter("answer-c.wav").path), RECOGNITION_RATE)
    stage.speak(person, line.seconds - host.render(PROMPT, "de").seconds + 0.6, 0.0)
    pipeline = ListeningPipeline(stage, whisper("de"), vad=SileroVad(), settings=STAGE_SETTINGS, clock=stage.now)
    hearing = pipeline.listen(ANIMALS, 8.0, playing)
    assert hearing.barged_in_at is not None, "the person did not stop the line"
    heard = hearing.heard
    assert heard is not None and (heard.intent, heard.value) == (Intent.ANSWER, "C"), heard


def _over_our_voice(whisper: Callable[[str], WhisperRecognizer], audio: Audio) -> Heard:
    return whisper("de").recognize(audio, ANIMALS, over_our_voice=True)


def test_people_s_letters_said_alone_over_our_voice_are_their_own_or_asked_again(
    whisper: Callable[[str], WhisperRecognizer],
) -> None:
    # "Ah?" (A) and "Z." (C) are their letters' sounds, read whole; before, both were asked again.
    heard = {sample.path.name: _over_our_voice(whisper, Audio.read(sample.path)) for sample in _letters()}
    assert (heard["answer-a.wav"].intent, heard["answer-a.wav"].value) == (Intent.ANSWER, "A"), heard["answer-a.wav"]
    assert (heard["answer-c.wav"].intent, heard["answer-c.wav"].value) == (Intent.ANSWER, "C"), heard["answer-c.wav"]
    for sample in _letters():  # E to Z name no answer among the animals; A to D name only their own
        said = heard[sample.path.name]
        assert said.intent is Intent.UNKNOWN or (said.intent, said.value) == (sample.intent, sample.value), (
            sample.path.name,
            said,
        )
