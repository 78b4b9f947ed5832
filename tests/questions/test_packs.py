"""Our own packs: the counts the issue asks for, honest levels, and a clean bill from the validator."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from voicemaster.paths import QUESTIONS_DIR
from voicemaster.questions.model import Entry, Format
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.stats import counts
from voicemaster.questions.validation import validate

BANK = QUESTIONS_DIR


@pytest.fixture(scope="module")
def entries() -> list[Entry]:
    loaded = load(pack_files(BANK))
    assert loaded.problems == ()
    return list(loaded.entries)


def test_every_pack_validates(entries: list[Entry]) -> None:
    assert [str(p) for p in validate(entries)] == []


@pytest.mark.parametrize(("language", "per_level"), [("de", 50), ("en", 20), ("fr", 20)])
def test_millionaire_counts_per_level(entries: list[Entry], language: str, per_level: int) -> None:
    levels = counts(entries)[language]["millionaire"]
    assert set(levels) == {str(level) for level in range(1, 16)}
    assert min(levels.values()) >= per_level


def test_german_money_drop_cards(entries: list[Entry]) -> None:
    cards = counts(entries)["de"]["moneydrop"]
    assert cards["4"] >= 60 and cards["3"] >= 40 and cards["2"] >= 20


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_at_least_twelve_categories(entries: list[Entry], language: str) -> None:
    mine = [e for e in entries if e.language == language and e.format is Format.MILLIONAIRE]
    assert len({e.category for e in mine}) >= 12


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_the_right_answer_is_not_always_in_the_same_place(entries: list[Entry], language: str) -> None:
    places = Counter(e.answer_index for e in entries if e.language == language)
    assert len(places) == 4 and max(places.values()) < 0.4 * sum(places.values())


def test_ids_say_language_and_level(entries: list[Entry]) -> None:
    for entry in entries:
        assert entry.id.startswith(f"{entry.language}-")
        if entry.format is Format.MILLIONAIRE:
            assert entry.id.startswith(f"{entry.language}-m-{entry.level:02d}-"), entry.id


def test_packs_are_ours_and_free(entries: list[Entry]) -> None:
    assert {(e.source, e.license) for e in entries} == {("voicemaster", "CC0-1.0")}
    assert all(isinstance(e.path, Path) for e in entries)
