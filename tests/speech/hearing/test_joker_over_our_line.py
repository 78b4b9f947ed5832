"""A joker said over the quizmaster's line, as `bench room`'s player says it (Pico's voices at its rate and pitches)
from across a laptop whose speaker plays the question (`bench frontend`'s scene, `harness.laptop`), heard through the
game's canceller and pipeline: the canceller takes its start, and Whisper reads "Fünfzig-fünfzig" as "50" or "50, 50
50". Over our voice only the decoder's words decide (017); the end of a joker's phrase, beside the scores at the
joker's margins, is its word for the joker, as a letter at the end is for an answer (024), and the joker is said back
and spent only after a yes. Our own line's "Fünfzig-fünfzig" heard back is still no joker (041)
(docs/decisions/043-a-joker-over-our-line.md)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.cpu import AVX512
from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.host import lines
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Words
from voicemaster.speech.frontend import FrontEndUnavailable, open_front_end
from voicemaster.speech.hearing.pipeline import Hearing, ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster.speech.voice import pico
from voicemaster.speech.voice.speakers import Engines, Speakers
from voicemaster_lab.harness.laptop import Laptop

OPTIONS = ("Die Schnecke", "Der Frosch", "Der Igel", "Die Maus")
ANSWER = Context(ContextName.ANSWER, "de", OPTIONS)
QUESTION = "Welches Tier trägt sein Haus auf dem Rücken? A: Die Schnecke. B: Der Frosch. C: Der Igel. D: Die Maus."
PROMPT = "Anna, deine Antwort?"


def _rendered(text: str, voice: Voice) -> Audio:
    return resample(Speakers({"de": voice}, Engines()).render(text, "de"), RECOGNITION_RATE)


def _heard(
    line: Audio, words: tuple[Words, ...], said: Audio, at: float, echo_db: float, ear: WhisperRecognizer
) -> Hearing:
    try:
        front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    except FrontEndUnavailable as absent:
        pytest.skip(str(absent))
    laptop = Laptop(line, said, at, front_end, words, echo_over_player_db=echo_db)
    return ListeningPipeline(laptop, ear, vad=SileroVad(), clock=lambda: 0.0).listen(ANSWER, 1.0, laptop.playing)


@pytest.mark.parametrize(
    ("player", "before_the_end", "echo_db"),
    # Read whole "50" (the first "fünfzig" taken by the canceller) and "50, 50 50"; asked again before 043.
    [
        (0, 0.8, 10.0),
        pytest.param(
            1, 0.8, 10.0, marks=pytest.mark.xfail(AVX512, strict=True, reason="with AVX-512 read '50', asked again")
        ),
        (0, 0.4, 0.0),
    ],
)
def test_a_joker_said_over_our_line_is_understood(
    whisper: Callable[[str], WhisperRecognizer], player: int, before_the_end: float, echo_db: float
) -> None:
    names = pico.voice_names("de")
    voice = Voice(names[player % len(names)], rate=150, engine="pico", pitch=(90, 110)[player % 2])
    line = _rendered(f"{QUESTION} {PROMPT}", Voice())
    words = (Words(f"{QUESTION} {PROMPT}", 0.0, line.seconds),)
    hearing = _heard(line, words, _rendered("Fünfzig-fünfzig", voice), line.seconds - before_the_end, echo_db,
                     whisper("de"))  # fmt: skip
    assert hearing.barged_in_at is not None, "the player did not stop the line: no test"
    assert hearing.heard is not None and (hearing.heard.intent, hearing.heard.value) == (Intent.JOKER, "fifty_fifty")


def test_our_own_fifty_fifty_heard_back_is_no_joker(whisper: Callable[[str], WhisperRecognizer]) -> None:
    # The help line's "Joker: Fünfzig-fünfzig" comes round again about half a second late (a loaded sound server), as
    # loud as its echo: read "50", the joker by its end and the scores, but our own word where it was heard.
    phrases = lines.load("de")
    text = f"{phrases.render('help_answer', {})} {phrases.render('your_answer_again', {'player': 'Anna'})}"
    line = _rendered(text, Voice(engine="pico"))
    words = (Words(text, 0.0, line.seconds),)
    again = text.index("-fünfzig") / len(text) * line.seconds + 0.5
    hearing = _heard(line, words, _rendered("Fünfzig-fünfzig", Voice(engine="pico")), again, 0.0, whisper("de"))
    assert any(heard.intent is Intent.JOKER for heard in hearing.recognitions), hearing.recognitions
    assert hearing.heard is not None and hearing.heard.intent is Intent.UNKNOWN, hearing.recognitions
