"""What the quizmaster's voice is given to say: years, numerals after names, abbreviations and words eSpeak-NG takes
for another language's, as each language's `read.toml` says; the packs' hints wherever the word is said. The screen
and the transcript keep the written words."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from voicemaster.config.files import ConfigError
from voicemaster.config.voice import Voice
from voicemaster.dialogue.turns import Say, Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.play.ear import Answers
from voicemaster.play.runner import Runner, SessionClock, Transcript
from voicemaster.questions.selection import Bank
from voicemaster.questions.spoken import lexicon
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.voice.reading import Pronunciation, reading, readings
from voicemaster.speech.voice.speakers import Engines, quizmaster_voice, rendered_path


@pytest.fixture(scope="module")
def said(bank: Bank) -> dict[str, Pronunciation]:
    return readings(lexicon(bank.entries))


def spoken(said: dict[str, Pronunciation], language: str, text: str) -> str:
    return said[language].spoken(text)


def test_english_years_are_said_as_people_say_them(said: dict[str, Pronunciation]) -> None:
    assert spoken(said, "en", "Who won in 1066, 1588 and 1901, and who in 2012?") == (
        "Who won in ten sixty-six, fifteen eighty-eight and nineteen oh-one, and who in twenty twelve?"
    )
    assert spoken(said, "en", "2001: A Space Odyssey") == "two thousand and one: A Space Odyssey"
    assert spoken(said, "en", "500.000 or 3,5") == "500.000 or 3,5"  # a player's amount is no year


def test_german_years_are_said_as_years_even_standing_alone_as_an_option(said: dict[str, Pronunciation]) -> None:
    """Pico said the option "A: 1789." as "tausendsiebenhundertneunundachtzig"."""
    assert spoken(said, "de", "A: 1789.") == "A: siebzehnhundertneunundachtzig."
    assert spoken(said, "de", "Im Jahr 1066 und 2002") == "Im Jahr tausendsechsundsechzig und zweitausendzwei"


def test_french_numerals_after_names_are_said_as_numbers(said: dict[str, Pronunciation]) -> None:
    assert spoken(said, "fr", "A : Louis XIV. B : François Ier. C : Henri IV. D : Charles X.") == (
        "A : Louis quatorze. B : François premier. C : Henri quatre. D : Charles dix."
    )
    assert spoken(said, "fr", "Élisabeth Ire, Léopold II, au XIXe siècle, la Ve République") == (
        "Élisabette première, Léopolde deux, au dix-neuvième siècle, la cinquième République"
    )
    assert spoken(said, "fr", "les rayons X, How I Met Your Mother") == "les rayons X, How I Met Your Mother"


def test_french_words_espeak_takes_for_english_are_respelled_but_english_ones_kept(
    said: dict[str, Pronunciation],
) -> None:
    assert spoken(said, "fr", "Marthe aime la menthe, le rythme et Jules Ferry, devant le jury.") == (
        "Marte aime la mente, le rytme et Jules Ferri, devant le juri."
    )
    assert spoken(said, "fr", "The Beatles, Thank you, Happy Days") == "The Beatles, Thank you, Happy Days"
    assert spoken(said, "fr", "la note do, sur son dos, l’OMS et l’OCDE") == (
        "la note dô, sur son dô, l’O M S et l’O C D E"
    )


def test_a_packs_hint_is_said_wherever_the_word_is(said: dict[str, Pronunciation]) -> None:
    """The hint of one question is the word's sound in its options read back and its explanation too."""
    lines = load_lines("de")
    correct = lines.render("correct_answer", {"letter": "B", "text": "São Miguel"})
    assert "São Miguel" in correct and "Saung Migell" in spoken(said, "de", correct)
    assert spoken(said, "fr", "Louis XIV") == "Louis quatorze"  # a hint and the rule agree


def test_a_mistake_in_a_read_file_is_named_when_the_voice_is_made(tmp_path: Path) -> None:
    (tmp_path / "xx").mkdir()
    (tmp_path / "xx" / "read.toml").write_text('[respell]\nrules = [["(", "x"]]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"respell\.rules: not a regular expression"):
        reading("xx", {}, tmp_path)


@pytest.mark.audio
def test_the_transcript_keeps_the_written_words_while_the_voice_says_the_hint(
    bank: Bank, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    engines = Engines()
    speakers = quizmaster_voice({"de": Voice()}, lexicon(bank.entries), engines)
    out = io.StringIO()
    sink = FileSink()
    ear = Answers(lambda *_: Silence())
    runner = Runner(load_lines("de"), speakers, sink, SessionClock(sink), ear, Transcript(out), render_ahead=False)
    runner.perform(Say("question", {"text": "Welches ist die größte Insel der Azoren, São Miguel?"}))
    (step,) = [json.loads(line) for line in out.getvalue().splitlines()]
    assert step["text"] == "Welches ist die größte Insel der Azoren, São Miguel?"
    voice = engines.resolve(Voice(), "de")
    assert rendered_path("Welches ist die größte Insel der Azoren, Saung Migell?", voice).exists()
    assert not rendered_path(step["text"], voice).exists()
