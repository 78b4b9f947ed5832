"""A household's evenings: game after game through the selection and the real SQLite store, no question heard twice
while the bank has one they have not heard; then the one heard longest ago first."""

from __future__ import annotations

import random
from collections.abc import Callable
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


# Money drop: two cards offered at each question, the one the team chooses read and so heard by every team.

TEAMS = ("Rot", "Blau")
OPTION_COUNTS = (4, 4, 4, 4, 3, 3, 3, 2)


def money_drop_game(
    store: Store, bank: Bank, language: str, seed: int, check: Callable[[Presented, Presented, tuple[str, ...]], None]
) -> None:
    """A money drop of a run per team, as `play` runs it: what the teams heard is read from the store at the start,
    and the card a team chooses (by its category) is stored as heard by both. `check` sees each pair offered with
    the cards offered before it in the game."""
    heard = store.last_heard_by(TEAMS)
    rng = random.Random(seed)
    asked: tuple[str, ...] = ()
    for _ in TEAMS:
        for options in OPTION_COUNTS:
            first, second = bank.next_cards(language, options, seed=seed, asked=asked, heard=heard)
            check(first, second, asked)
            asked += (first.entry.id, second.entry.id)
            chosen = rng.choice((first, second))
            store.save_game(f"drop-{seed}", "{}", heard=[(team, chosen.entry.id) for team in TEAMS])


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_many_money_drops_offer_no_card_heard_before_until_the_cards_run_out(
    tmp_path: Path, bank: Bank, language: str
) -> None:
    """Forty evenings of two teams with the shipped cards: more runs than there are cards of two options, so every
    kind of card runs out; until then no card offered was heard before, and after that the one heard longest ago
    comes back."""
    came_back: list[str] = []
    with Store(tmp_path / "voicemaster.db") as store:

        def check(first: Presented, second: Presented, asked: tuple[str, ...]) -> None:
            heard = store.last_heard_by(TEAMS)  # cards read in this game since its start are among those `asked`
            kind = [e for e in bank.cards(language, len(first.options)) if e.id not in asked]
            fresh = {e.category for e in kind if e.id not in heard}
            assert first.entry.category != second.entry.category
            if len(fresh) >= 2:
                assert not first.heard_before and not second.heard_before
            for card, other in ((first, second), (second, first)):
                if card.heard_before:
                    rivals = [heard[e.id] for e in kind if e.category != other.entry.category and e.id in heard]
                    assert heard[card.entry.id] == min(rivals), "not the card heard longest ago"
                    came_back.append(card.entry.id)

        for evening in range(40):
            money_drop_game(store, bank, language, seed=evening, check=check)
        read = store.heard(TEAMS[0])
    for options in (2, 3, 4):
        cards = {e.id for e in bank.cards(language, options)}
        assert cards <= read.keys(), f"cards with {options} options never read"
    assert came_back  # the two-option cards ran out (80 runs, 55 cards)
    assert all(times <= 3 for times in read.values())


def test_a_money_drop_team_hears_the_card_heard_longest_ago_first(tmp_path: Path) -> None:
    bank = Bank(
        tuple(
            Entry(f"en-d-2-{n:03d}", "en", Format.MONEYDROP, CATEGORIES[n % 2], f"Card {n}?", ("Yes", "No"), "Yes", "")
            for n in range(4)
        )
    )
    with Store(tmp_path / "voicemaster.db") as store:
        for card in ("en-d-2-002", "en-d-2-000", "en-d-2-003", "en-d-2-001"):  # heard in this order
            store.mark_heard(TEAMS, card)
        offered = bank.next_cards("en", 2, seed=1, asked=(), heard=store.last_heard_by(TEAMS))
    assert {card.entry.id for card in offered} == {"en-d-2-002", "en-d-2-003"}  # the oldest of each category
    assert all(card.heard_before for card in offered)
