"""`bench read-aloud`: what came back from Whisper otherwise than it was written is named and classed, plain words
misheard are told from reading faults, and a French question with a king's numeral is read right only with the
quizmaster's reading."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from voicemaster.config.settings import default_paths, load_settings
from voicemaster.questions.model import Entry, Format
from voicemaster.questions.selection import Bank
from voicemaster.questions.spoken import lexicon
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice.speakers import Speakers, quizmaster_voice
from voicemaster_lab.reading.demo_games import demo_questions
from voicemaster_lab.reading.faults import ABBREVIATION, NAME, NUMBER, ROMAN, SYMBOL, WORD, misreadings, sensitive
from voicemaster_lab.reading.read_aloud import Reader, entry_item


def kinds(said: str, heard: str, language: str) -> list[tuple[str, str]]:
    return [(m.said, m.kind) for m in misreadings(said, heard, language)]


def test_a_stretch_heard_otherwise_is_classed_by_what_was_written() -> None:
    assert kinds("Wer gründete 1863 den Verein?", "Wir gründete 18003 und 60 den Verein?", "de") == [
        ("Wer", WORD),
        ("1863", NUMBER),
    ]
    said = "Quel roi ? A : Louis XIV. B : L’OMS. C : Jules Ferry. D : Élisabeth II."
    heard = "Quel roi ? A Louis 14 Romain B l'homme C Jules Ferry D Élisabeth deux romain"
    assert kinds(said, heard, "fr") == [("XIV.", ROMAN), ("L’OMS.", ABBREVIATION), ("II.", ROMAN)]
    assert kinds("Who painted it? A: Diego Velázquez.", "Who painted it? A. Diego Velasco.", "en") == [
        ("Velázquez.", NAME)
    ]


def test_letters_near_spellings_and_silent_symbols_are_not_faults_but_a_symbol_said_is() -> None:
    assert kinds("B: Scrabble. C: Marabu.", "Be, Skrabble, Zeh, Marabou", "de") == []
    assert kinds("„Für eine Handvoll Dollar“", "Anführungszeichen für eine Handvoll Dollar", "de") == [("", SYMBOL)]


def test_numbers_numerals_and_abbreviations_are_weighed_in_each_way_of_saying_them() -> None:
    year, numeral, spelled, word = (s for line in ("In 1963", "Louis XIV et l’OCDE, l’OTAN") for s in sensitive(line,
                                    "en" if line.startswith("In") else "fr"))  # fmt: skip
    assert (year.kind, year.ways[0].words) == (NUMBER, "nineteen sixty-three")
    assert {way.words for way in year.ways[1:]} >= {
        "one thousand, nine hundred and sixty-three",
        "nineteen hundred and sixty-three",
    }
    assert (numeral.kind, numeral.ways[0].words) == (ROMAN, "quatorze")
    assert "quatorze romain" in {way.words for way in numeral.ways}
    assert (spelled.kind, spelled.ways[0].words, word.ways[0].words) == (ABBREVIATION, "O C D E", "Otan")


def test_a_demo_game_is_replayed_by_its_seed(bank: Bank) -> None:
    settings = load_settings(default_paths()[:1])
    asked = demo_questions(settings, bank.entries, "de", 11)
    assert asked == demo_questions(settings, bank.entries, "de", 11)
    assert asked[:2] == ["de-m-01-009", "de-m-02-017"] and len(set(asked)) == len(asked) >= 15


def test_the_french_voice_says_a_kings_numeral_as_a_number_only_with_the_quizmasters_reading(
    whisper: Callable[[str], WhisperRecognizer], bank: Bank
) -> None:
    entry = Entry("fr-m-06-999", "fr", Format.MILLIONAIRE, "Histoire", "Quel roi de France était le Roi-Soleil ?",
                  ("Louis XIV", "Henri IV"), "Louis XIV", "", level=6)  # fmt: skip
    item = entry_item(entry, "test")
    voices = load_settings(default_paths()[:1]).speech
    plain = Reader(Speakers(voices), whisper("fr")).read(item)
    read = Reader(quizmaster_voice(voices, lexicon(bank.entries)), whisper("fr")).read(item)
    assert any(m.kind == ROMAN for _, m in plain.misread), plain.clips
    assert not any(m.kind == ROMAN for _, m in read.misread), read.clips
    assert "romain" not in " ".join(heard for _, _, heard in read.clips).lower()


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_every_roman_numeral_and_abbreviation_of_the_bank_has_an_intended_way(bank: Bank, language: str) -> None:
    for entry in bank.entries:
        if entry.language == language:
            for line in (entry.question, *entry.options):
                assert all(word.ways[0].name == "intended" for word in sensitive(line, language))
