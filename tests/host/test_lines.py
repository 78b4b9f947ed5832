"""The quizmaster's lines: every language has every line, and amounts are spoken as a native speaker says them."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicemaster.config import ConfigError
from voicemaster.host.lines import Line, load


@pytest.mark.parametrize(
    ("language", "amount", "currency", "spoken"),
    [
        ("de", 16_000, "EUR", "sechzehntausend Euro"),
        ("de", 1_000, "EUR", "tausend Euro"),
        ("de", 125_000, "EUR", "hundertfünfundzwanzigtausend Euro"),
        ("de", 1_000_000, "EUR", "eine Million Euro"),
        ("en", 32_000, "GBP", "thirty-two thousand pounds"),
        ("en", 1, "GBP", "one pound"),
        ("fr", 16_000, "EUR", "seize mille euros"),
        ("fr", 1_000_000, "EUR", "un million d'euros"),
        ("fr", 0, "EUR", "zéro euro"),
        ("fr", 2_000_000, "points", "deux millions de points"),
    ],
)
def test_amounts_are_spoken_in_words(language: str, amount: int, currency: str, spoken: str) -> None:
    assert load(language).money(amount, currency) == spoken


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_language_has_every_line_with_the_same_placeholders(language: str) -> None:
    german, other = load("de"), load(language)
    assert set(other.texts) == set(german.texts)
    assert [key for key in german.texts if other.placeholders(key) != german.placeholders(key)] == []


def test_lists_and_other_lines_fill_placeholders() -> None:
    lines = load("de")
    assert lines.render("welcome", {"players": ["Anna", "Ben", "Cem"]}).endswith("Anna, Ben und Cem.")
    assert lines.render("joker_used_up", {"joker": Line("joker_phone")}) == "Den Telefonjoker hast du schon benutzt."


def test_a_missing_line_names_the_file_and_the_key(tmp_path: Path) -> None:
    (tmp_path / "de").mkdir()
    (tmp_path / "de" / "say.toml").write_text('joiner = "und"\n[lines]\nhello = "Hallo {who}"\n', encoding="utf-8")
    lines = load("de", tmp_path)
    with pytest.raises(ConfigError, match=r"say\.toml.*welcome"):
        lines.render("welcome", {})
    with pytest.raises(ConfigError, match=r"hello.*\{who\}"):
        lines.render("hello", {})
