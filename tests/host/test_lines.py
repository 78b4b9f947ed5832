"""The quizmaster's lines: every language has every line in every form, and amounts are spoken as a native speaker
says them, for any amount a ladder may hold, in every unit a ladder may count in."""

from __future__ import annotations

import itertools
import random
import re
from pathlib import Path

import pytest

from voicemaster.config.files import CURRENCIES, ConfigError
from voicemaster.config.settings import load_settings
from voicemaster.host.lines import Choice, Line, load
from voicemaster.paths import DEFAULT_CONFIG
from voicemaster.rules.ladders import LADDERS
from voicemaster.rules.moneydrop import MoneyDropSettings
from voicemaster.rules.variants import VARIANTS

LANGUAGES = ("de", "en", "fr")


@pytest.mark.parametrize(
    ("language", "amount", "currency", "spoken"),
    [
        ("de", 16_000, "EUR", "sechzehntausend Euro"),
        ("de", 1_000, "EUR", "tausend Euro"),
        ("de", 125_000, "EUR", "hundertfünfundzwanzigtausend Euro"),
        ("de", 1_000_000, "EUR", "eine Million Euro"),
        ("de", 1, "EUR", "ein Euro"),
        ("de", 1, "points", "ein Punkt"),
        ("de", 2, "points", "zwei Punkte"),
        ("de", 1, "GBP", "ein Pfund"),
        ("de", 101, "EUR", "hundertein Euro"),
        ("de", 1_001, "EUR", "tausendein Euro"),
        ("de", 21, "EUR", "einundzwanzig Euro"),
        ("de", 1_000_001, "EUR", "eine Million und ein Euro"),
        ("en", 32_000, "GBP", "thirty-two thousand pounds"),
        ("en", 1, "GBP", "one pound"),
        ("en", 1, "EUR", "one euro"),
        ("en", 1_500_000, "GBP", "one million five hundred thousand pounds"),
        ("fr", 16_000, "EUR", "seize mille euros"),
        ("fr", 1_000_000, "EUR", "un million d'euros"),
        ("fr", 0, "EUR", "zéro euro"),
        ("fr", 1, "EUR", "un euro"),
        ("fr", 1, "GBP", "une livre"),
        ("fr", 21, "GBP", "vingt et une livres"),
        ("fr", 81, "GBP", "quatre-vingt-une livres"),
        ("fr", 1_000_000, "GBP", "un million de livres"),
        ("fr", 2_000_000, "points", "deux millions de points"),
    ],
)
def test_amounts_are_spoken_in_words(language: str, amount: int, currency: str, spoken: str) -> None:
    assert load(language).money(amount, currency) == spoken


def amounts_to_speak() -> list[int]:
    """Every amount a ladder, a safety level, a user's example ladder or a money drop holds, 0 to 1 100 one by one,
    round amounts up to ten million, and a seeded sample of any amount up to ten million."""
    ladders = [*LADDERS.values(), *(v.ladder for v in VARIANTS.values())]
    user = load_settings([DEFAULT_CONFIG])
    ladders += [user.ladder(name) for name in user.ladders]
    drop = MoneyDropSettings()
    held = {a for ladder in ladders for a in ladder.amounts} | {
        s.payout for ladder in ladders for s in ladder.safety_levels
    }
    held |= {bundles * drop.bundle_value for bundles in range(drop.bundles + 1)}
    held |= set(range(1_101))
    held |= {digit * 10**power for digit in range(1, 10) for power in range(8)} | {10_000_000}
    rng = random.Random(18)
    held |= {rng.randrange(10_000_001) for _ in range(400)}
    return sorted(held)


AMOUNTS = amounts_to_speak()
WORDS = re.compile(r"[^\W\d_]+(?:(?:, |[ '\-])[^\W\d_]+)*")
"""Words only: letters joined by spaces, hyphens, apostrophes; no digit, no symbol an engine might spell out."""


@pytest.mark.parametrize("currency", CURRENCIES)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_amount_a_ladder_may_hold_is_said_in_words_with_its_unit(language: str, currency: str) -> None:
    lines = load(language)
    unit = lines.units[currency]
    wrong: list[str] = []
    for amount in AMOUNTS:
        spoken, number = lines.money(amount, currency), lines.number(amount)
        name = next((u for u in (unit.one, unit.after_million, unit.many) if spoken.endswith(f" {u}")), "")
        words = spoken.removesuffix(f" {name}")
        # The unit agrees with the amount, and before it only the number's last word may change ("eins" to "ein").
        head = number.rsplit(" ", 1)[0] if " " in number else ""
        agrees = unit.one == unit.many or (name == unit.one) == (amount in lines.singular)
        if not WORDS.fullmatch(spoken) or not agrees or not words.startswith(head):
            wrong.append(spoken)
        if language == "de" and (re.search(r"eins$", words) or words.startswith(("eintausend", "einhundert"))):
            wrong.append(spoken)
        if language == "fr" and unit.feminine and re.search(r"(^|[ -])un$", words):
            wrong.append(spoken)
        if language == "en" and "," in spoken:
            wrong.append(spoken)
    assert wrong == []
    assert len(AMOUNTS) > 1_500


def test_a_users_ladder_in_another_currency_is_refused_by_name(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    amounts = list(range(1, 16))
    config.write_text(f"[ladders.dollars]\ncurrency = 'USD'\namounts = {amounts}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"ladders\.dollars\.currency"):
        load_settings([DEFAULT_CONFIG, config])


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_language_has_every_line_with_the_same_placeholders(language: str) -> None:
    german, other = load("de"), load(language)
    assert other.line_keys() == german.line_keys()
    assert [key for key in german.line_keys() if other.placeholders(key) != german.placeholders(key)] == []


def test_every_form_of_a_line_can_be_said_in_every_language() -> None:
    """A form one language distinguishes (German "du"/"ihr") is said in the others too, by their own form or plain
    line: the game may ask any of them for it."""
    languages = {language: load(language) for language in LANGUAGES}
    forms = {tuple(key.split(".", 1)) for lines in languages.values() for key in lines.texts if "." in key}
    missing = []
    for key, form in sorted(forms):
        for language, lines in languages.items():
            try:
                lines.wordings(key, form)
            except ConfigError:
                missing.append(f"{language}: {key}.{form}")
    assert missing == []


def test_lists_choices_and_other_lines_fill_placeholders() -> None:
    lines = load("de")
    welcome = lines.render("welcome", {"players": ["Anna", "Ben", "Cem"]}, "many")
    assert welcome.endswith("spielen Anna, Ben und Cem.")
    assert lines.render("welcome", {"players": ["Anna"]}, "one").endswith("spielt Anna.")
    call = lines.render("who_to_call", {"player": "Dora", "names": Choice(("Anna", "Ben", "Cem"))}, "many")
    assert call == "Dora, wen rufst du an: Anna, Ben oder Cem?"
    assert (
        load("fr")
        .render("who_helps", {"player": "Léa", "names": Choice(("Anna", "Ben"))}, "many")
        .endswith("Anna ou Ben ?")
    )
    assert lines.render("joker_used_up", {"joker": Line("joker_phone")}) == "Den Telefonjoker hast du schon benutzt."


def test_a_line_said_at_every_question_changes_wording_from_one_question_to_the_next() -> None:
    lines = load("de")
    said = [lines.render("your_answer", {"player": "Anna"}, vary=moment) for moment in range(6)]
    assert all(a != b for a, b in itertools.pairwise(said))
    assert said == [lines.render("your_answer", {"player": "Anna"}, vary=moment) for moment in range(6)]


def test_a_missing_line_names_the_file_and_the_key(tmp_path: Path) -> None:
    (tmp_path / "de").mkdir()
    units = "".join(f'[units.{code}]\none = "x"\nmany = "x"\n' for code in CURRENCIES)
    text = f'joiner = "und"\nchoice_joiner = "oder"\n{units}[lines]\nhello = "Hallo {{who}}"\nbye.one = "Tschüss"\n'
    (tmp_path / "de" / "say.toml").write_text(text, encoding="utf-8")
    lines = load("de", tmp_path)
    with pytest.raises(ConfigError, match=r"say\.toml.*welcome"):
        lines.render("welcome", {})
    with pytest.raises(ConfigError, match=r"hello.*\{who\}"):
        lines.render("hello", {})
    with pytest.raises(ConfigError, match=r"bye.*no form 'many'"):
        lines.render("bye", {}, "many")
