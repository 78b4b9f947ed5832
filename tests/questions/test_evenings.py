"""A household's evenings: game after game through the selection and the real SQLite store, no question heard twice
while the bank has one they have not heard; then the one heard longest ago first."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from voicemaster.questions.model import Entry, Format
from voicemaster.questions.selection import Bank, Presented
from voicemaster.store import Store

PLAYERS = ("Anna", "Ben", "Cem")
CATEGORIES = ("Geschichte", "Geografie", "Natur", "Sport", "Musik", "Film", "Essen", "Kunst", "Sprache", "Politik")


def synthetic_bank(languages: tuple[str, ...], per_level: int) -> Bank:
    entries = [
        Entry(
            id=f"{language}-m-{level:02d}-{number:03d}",
            language=language,
            format=Format.MILLIONAIRE,
            category=CATEGORIES[number % len(CATEGORIES)],
            question=f"Frage {level} {number}?",
            options=("Eins", "Zwei", "Drei", "Vier"),
            answer="Eins",
            explanation="So ist es.",
            level=level,
        )
        for language in languages
        for level in range(1, 16)
        for number in range(per_level)
    ]
    return Bank(tuple(entries))


def evening(store: Store, bank: Bank, language: str, seed: int, switch_at: int | None = None) -> list[Presented]:
    """One game of fifteen questions for the three players, as `play` runs it: what they heard is read from the
    store at the start, and each question asked is stored as heard by all three. At `switch_at` the level is
    asked twice (the switch joker)."""
    heard = store.last_heard_by(PLAYERS)
    asked: tuple[str, ...] = ()
    presented = []
    for level in range(1, 16):
        for _ in range(2 if level == switch_at else 1):
            question = bank.next_question(language, level, seed=seed, asked=asked, heard=heard)
            asked += (question.entry.id,)
            presented.append(question)
            store.save_game(f"game-{seed}", "{}", heard=[(player, question.entry.id) for player in PLAYERS])
    return presented


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_fifty_evenings_of_three_players_hear_no_question_twice(tmp_path: Path, language: str) -> None:
    bank = synthetic_bank(("de", "en", "fr"), per_level=100)
    rng = random.Random(language)
    with Store(tmp_path / "voicemaster.db") as store:
        for _ in range(50):
            played = evening(store, bank, language, seed=rng.randrange(1 << 30), switch_at=rng.randint(1, 15))
            assert not any(question.heard_before for question in played)
        for player in PLAYERS:
            heard = Store(tmp_path / "voicemaster.db").heard(player)
            assert len(heard) == 50 * 16 and set(heard.values()) == {1}, player


def test_when_a_level_runs_out_the_question_heard_longest_ago_comes_back_first(tmp_path: Path) -> None:
    bank = synthetic_bank(("en",), per_level=3)
    with Store(tmp_path / "voicemaster.db") as store:
        games = [evening(store, bank, "en", seed=seed) for seed in range(3)]  # every question heard once
        first_heard = [game[4].entry.id for game in games]  # level 5, in the order the evenings heard them
        assert sorted(first_heard) == sorted(e.id for e in bank.millionaire("en", 5))
        again = [evening(store, bank, "en", seed=seed) for seed in range(10, 13)]
    assert [game[4].entry.id for game in again] == first_heard
    assert all(question.heard_before for game in again for question in game)


def test_a_new_player_at_the_table_makes_no_question_fresh_again(tmp_path: Path) -> None:
    """What one player heard is stale for the table: a guest who joins does not bring the old questions back."""
    bank = synthetic_bank(("fr",), per_level=2)
    with Store(tmp_path / "voicemaster.db") as store:
        first = evening(store, bank, "fr", seed=1)
        store.mark_heard(["Dora"], first[0].entry.id)
        heard = store.last_heard_by(("Dora", "Ben"))
        question = bank.next_question("fr", 1, seed=2, asked=(), heard=heard)
    assert question.entry.id != first[0].entry.id and not question.heard_before
