"""Our own line heard back must never act (issue 48): the quizmaster's lines hold the words of the context they open
("Final answer?", "C'est ton dernier mot ?", "Das habe ich nicht sicher verstanden.", whose "nicht sicher" is a no),
and an echo of them taken for a player would lock an answer, or refuse one, the player never spoke to.

Each line is rendered in Pico's voice from the shipped phrase file and played from a laptop's speaker through a room
(`bench frontend`'s scene, `harness.laptop`) into the game's canceller and pipeline, the line's words carried with
its playback as the game's loudspeaker carries them. Our voice heard back is the line itself coming round again half
a second late, as loud as its echo, as a loaded machine's sound server replays it (issue 48 saw our lines stop
themselves and be read back): it stops the line or begins in its echo's tail, is read as our own words, and decides
nothing. A person answering over the same line, or just after it, is still understood
(docs/decisions/041-our-own-line-heard-back.md)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.cpu import AVX512
from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.host import lines
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Words
from voicemaster.speech.frontend import FrontEndUnavailable, open_front_end
from voicemaster.speech.hearing.pipeline import Hearing, ListeningPipeline
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster.speech.voice.speakers import Engines, Speakers
from voicemaster_lab.asr.samples import real_samples
from voicemaster_lab.harness.laptop import Laptop

LATE_SECONDS = 0.5
"""How late our line comes round again: past what the canceller's filter models, so it is not cancelled."""
PLAYER = {"de": "Markus", "en": "Anna", "fr": "Marc"}
CITIES = {"de": ("Berlin", "Paris", "Rom", "Wien"), "en": ("Berlin", "Paris", "Rome", "Vienna")}
CITIES["fr"] = ("Berlin", "Paris", "Rome", "Vienne")


Line = tuple[Audio, tuple[Words, ...]]
"""What the game plays as one sound, and the words of each of its lines."""


def _lines(language: str, *said: tuple[str, int, dict[str, Any]]) -> Line:
    """Lines (key, wording, placeholders) of the shipped phrase file, rendered in Pico's voice at 16 kHz one after
    the other as one sound, with their words, as the game plays the lines that lead to a listening."""
    phrases, voice = lines.load(language), Speakers({language: Voice(engine="pico")}, Engines())
    samples, words, at = b"", list[Words](), 0.0
    for key, vary, params in said:
        text = phrases.render(key, params, vary=vary)
        sound = resample(voice.render(text, language), RECOGNITION_RATE)
        samples, at = samples + sound.samples, at + sound.seconds
        words.append(Words(text, at - sound.seconds, at))
    return Audio(samples, RECOGNITION_RATE), tuple(words)


def _heard(
    whisper: Callable[[str], WhisperRecognizer],
    context: Context,
    line: Line,
    voice: Audio,
    at: float,
    echo_over_voice_db: float,
) -> Hearing:
    try:
        front_end = open_front_end(echo_cancel=True, noise_suppression=False)
    except FrontEndUnavailable as absent:
        pytest.skip(str(absent))
    sound, words = line
    laptop = Laptop(sound, voice, at, front_end, words, echo_over_player_db=echo_over_voice_db)
    pipeline = ListeningPipeline(laptop, whisper(context.language), vad=SileroVad(), clock=lambda: 0.0)
    return pipeline.listen(context, 1.5, laptop.playing)


def _ours_again(
    whisper: Callable[[str], WhisperRecognizer],
    context: Context,
    line: Line,
    from_seconds: float,
    to_seconds: float | None = None,
) -> Hearing:
    """Our line from `from_seconds` to `to_seconds` (its end for None), heard again `LATE_SECONDS` late and as loud
    as its echo."""
    sound = line[0]
    end = len(sound.samples) if to_seconds is None else 2 * round(to_seconds * sound.rate)
    rest = Audio(sound.samples[2 * round(from_seconds * sound.rate) : end], sound.rate)
    return _heard(whisper, context, line, rest, from_seconds + LATE_SECONDS, 0.0)


def _final_answer(language: str, vary: int) -> tuple[str, int, dict[str, Any]]:
    return "final_answer", vary, {"player": PLAYER[language], "letter": "B", "text": CITIES[language][1]}


def _decided(heard: Heard | None) -> bool:
    return heard is not None and heard.intent is not Intent.UNKNOWN


def _question(language: str) -> Line:
    """The lines that lead to an answer: the question, its options, the player asked."""
    options = [
        ("option", 0, {"letter": letter, "text": text}) for letter, text in zip("ABCD", CITIES[language], strict=True)
    ]
    asked = ("your_answer", 0, {"player": PLAYER[language]})
    return _lines(language, ("question", 0, {"text": QUESTION[language]}), *options, asked)


QUESTION = {
    "de": "Welche Stadt ist die Hauptstadt von Frankreich?",
    "en": "Which city is the capital of France?",
    "fr": "Quelle ville est la capitale de la France ?",
}


@pytest.mark.parametrize(
    ("language", "said", "context", "heard_back"),
    [
        # Read "dernier mot": a yes, in the echo's tail.
        pytest.param(
            "fr",
            _final_answer("fr", 2),
            ContextName.CONFIRM,
            (1.0, None),
            marks=pytest.mark.xfail(AVX512, strict=True, reason="with AVX-512 read 'dernier bout', taken for a yes"),
        ),
        # Read "That's right.": a yes, over our line.
        pytest.param(
            "en",
            ("confirm_walk_away", 0, {"player": "Anna", "amount": "£1,000"}),
            ContextName.CONFIRM,
            (3.0, 4.0),
            marks=pytest.mark.xfail(AVX512, strict=True, reason="with AVX-512 our line is read as nothing: no test"),
        ),
    ],
)
def test_our_confirming_line_heard_back_locks_nothing(
    whisper: Callable[[str], WhisperRecognizer],
    language: str,
    said: tuple[str, int, dict[str, Any]],
    context: ContextName,
    heard_back: tuple[float, float | None],
) -> None:
    hearing = _ours_again(whisper, Context(context, language), _lines(language, said), *heard_back)
    assert any(_decided(heard) for heard in hearing.recognitions), "our line was not read as anything: no test"
    assert not _decided(hearing.heard), hearing.recognitions


@pytest.mark.xfail(AVX512, strict=True, reason="with AVX-512 read 'Being Paris', taken for B: said back, needs a yes")
def test_our_option_heard_back_is_no_answer(whisper: Callable[[str], WhisperRecognizer]) -> None:
    # Our "A: Berlin. B: Paris." read back "B, Paris" over our line: answer B, never said.
    line = _question("en")
    option_b = line[1][2]
    answer = Context(ContextName.ANSWER, "en", CITIES["en"])
    hearing = _ours_again(whisper, answer, line, option_b.start - 0.3, option_b.end + 0.5)
    assert any(_decided(heard) for heard in hearing.recognitions), "our line was not read as anything: no test"
    assert not _decided(hearing.heard), hearing.recognitions


def _person(language: str, name: str) -> Audio:
    real, missing = real_samples((language,))
    found = [sample for sample in real if sample.path.name == name]
    if not found:
        pytest.skip(missing or f"no recording {name}")
    return Audio.read(found[0].path)


def test_a_person_who_says_yes_just_after_our_final_answer_line_is_heard(
    whisper: Callable[[str], WhisperRecognizer],
) -> None:
    line = _lines("de", _final_answer("de", 2))
    confirm = Context(ContextName.CONFIRM, "de")
    hearing = _heard(whisper, confirm, line, _person("de", "confirm-ja.wav"), line[0].seconds, 10.0)
    assert hearing.heard is not None and hearing.heard.intent is Intent.YES, hearing.recognitions


def test_a_person_who_names_the_option_being_read_is_heard(whisper: Callable[[str], WhisperRecognizer]) -> None:
    # "Haus" said as our line reads "B: Haus.": one word of our line, where it was heard, and theirs.
    options = ("Gut", "Haus", "Heu", "Hund")
    said = [("option", 0, {"letter": letter, "text": text}) for letter, text in zip("ABCD", options, strict=True)]
    line = _lines("de", ("question", 0, {"text": QUESTION["de"]}), *said)
    answer = Context(ContextName.ANSWER, "de", options)
    hearing = _heard(whisper, answer, line, _person("de", "answer-haus.wav"), line[1][2].start, 10.0)
    assert hearing.heard is not None and (hearing.heard.intent, hearing.heard.value) == (Intent.ANSWER, "B")


def test_a_person_who_answers_with_a_letter_our_options_said_is_heard(
    whisper: Callable[[str], WhisperRecognizer],
) -> None:
    # "B" is a word of our line, said seconds before the person says it as the line ends: theirs.
    line = _question("en")
    answer = Context(ContextName.ANSWER, "en", CITIES["en"])
    hearing = _heard(whisper, answer, line, _person("en", "answer-b.wav"), line[0].seconds, 10.0)
    assert hearing.heard is not None and (hearing.heard.intent, hearing.heard.value) == (Intent.ANSWER, "B")
