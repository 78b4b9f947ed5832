"""Selection: seeded, no repeats in a game, unheard first across games (SQLite), categories spread, shuffles."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from pathlib import Path

import pytest

from voicemaster.questions.model import Entry, Format
from voicemaster.questions.selection import Bank, NoQuestionLeft, present
from voicemaster.rules import Letter
from voicemaster.store import Store


def play_game(bank: Bank, seed: int, heard: dict[str, int], language: str = "de") -> list[str]:
    asked: tuple[str, ...] = ()
    for level in range(1, 16):
        asked += (bank.next_question(language, level, seed=seed, asked=asked, heard=heard).entry.id,)
    return list(asked)


def test_the_same_seed_chooses_the_same_questions_and_shuffles(bank: Bank) -> None:
    first = [bank.next_question("de", 3, seed=5, asked=(), heard={}) for _ in range(2)]
    assert first[0] == first[1]
    assert play_game(bank, 11, {}) == play_game(bank, 11, {})
    assert play_game(bank, 11, {}) != play_game(bank, 12, {})


def test_no_question_twice_in_a_game_even_when_the_level_is_asked_again(bank: Bank) -> None:
    asked: tuple[str, ...] = ()
    for _ in range(len(bank.millionaire("en", 1))):
        asked += (bank.next_question("en", 1, seed=1, asked=asked, heard={}).entry.id,)
    assert len(set(asked)) == len(asked)
    with pytest.raises(NoQuestionLeft):
        bank.next_question("en", 1, seed=1, asked=asked, heard={})


def test_unheard_questions_come_first_across_games(bank: Bank, tmp_path: Path) -> None:
    """Forty games by one profile: nobody hears a question twice while the level still has unheard ones."""
    with Store(tmp_path / "voicemaster.db") as store:
        per_level = min(len(bank.millionaire("de", level)) for level in range(1, 16))
        for game in range(per_level):
            for question_id in play_game(bank, game, store.heard("Anna")):
                store.mark_heard(["Anna"], question_id)
        heard = store.heard("Anna")
    assert max(heard.values()) == 1
    assert len(heard) == 15 * per_level
    assert Store(tmp_path / "voicemaster.db").heard("Ben") == {}


def test_categories_are_spread(bank: Bank) -> None:
    for seed in range(10):
        asked = play_game(bank, seed, {})
        categories = [next(e.category for e in bank.entries if e.id == q) for q in asked]
        assert all(a != b for a, b in itertools.pairwise(categories)), categories


def test_options_are_shuffled_and_the_letter_follows(bank: Bank) -> None:
    entry = bank.millionaire("de", 5)[0]
    letters: Counter[Letter] = Counter()
    for seed in range(40):
        shown = present(entry, random.Random(seed))
        assert sorted(shown.options) == sorted(entry.options)
        assert shown.options[shown.correct.position] == entry.answer
        letters[shown.correct] += 1
    assert len(letters) == 4


def test_pinned_options_keep_their_order() -> None:
    entry = Entry(
        id="de-m-05-999",
        language="de",
        format=Format.MILLIONAIRE,
        category="Sprache",
        question="Welche dieser Antworten ist richtig?",
        options=("Keine", "Eine", "Zwei", "Alle genannten"),
        answer="Alle genannten",
        explanation="Alle stimmen.",
        level=5,
        pin_order=True,
    )
    for seed in range(10):
        shown = present(entry, random.Random(seed))
        assert shown.options == entry.options and shown.correct is Letter.D
