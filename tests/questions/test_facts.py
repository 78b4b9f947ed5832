"""The validator's checks of what a question says (issue 49): the same fact asked as a Millionaire question and as a
money-drop card, and a question whose wording gives its answer away. The cases are the ones a blind reader found in
the shipped banks, as they stood, checked against the bank as it is now."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from voicemaster import paths
from voicemaster.questions.facts import giveaway
from voicemaster.questions.model import Entry, Format
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.validation import check_entry, repeats, validate


@pytest.fixture(scope="module")
def bank() -> tuple[Entry, ...]:
    return load(pack_files(paths.QUESTIONS_DIR)).entries


def entry(entry_id: str, question: str, options: tuple[str, ...], answer: str, explanation: str = "") -> Entry:
    language, kind, *_ = entry_id.split("-")
    card = kind == "d"
    return Entry(
        id=entry_id,
        language=language,
        format=Format.MONEYDROP if card else Format.MILLIONAIRE,
        category="Quiz",
        question=question,
        options=options,
        answer=answer,
        explanation=explanation,
        level=None if card else int(entry_id.split("-")[2]),
        path=Path(f"{language}/{'moneydrop' if card else 'millionaire'}/pack.toml"),
    )


MAUSOLUS = entry(
    "en-d-4-112",
    "Which of the Seven Wonders of the Ancient World was a great tomb built for King Mausolus?",
    ("The Temple of Artemis", "The Colossus of Rhodes", "The Statue of Zeus", "The Mausoleum at Halicarnassus"),
    "The Mausoleum at Halicarnassus",
)
WALTON = entry(
    "en-m-12-181",
    "Which retail chain did Sam Walton found in Arkansas in 1962?",
    ("Walmart", "Target", "Costco", "Kmart"),
    "Walmart",
)
PROXIMA = entry(
    "fr-m-09-123",
    "Quelle étoile est la plus proche du Soleil ?",
    ("Sirius", "Bételgeuse", "Proxima du Centaure", "Véga"),
    "Proxima du Centaure",
)


NAMED = [(MAUSOLUS, "'Mausolus'"), (WALTON, "'Walton'"), (PROXIMA, "'proche'")]


@pytest.mark.parametrize(("given", "word"), NAMED, ids=["mausolus", "walton", "proche"])
def test_the_questions_that_gave_their_answer_away_are_named(given: Entry, word: str) -> None:
    problems = [str(problem) for problem in check_entry(given)]
    assert any(f"question: {word} in the question gives away the answer {given.answer!r}" in p for p in problems)


def test_as_they_read_now_they_give_nothing_away(bank: tuple[Entry, ...]) -> None:
    now = {found.id: found for found in bank}
    for was in (MAUSOLUS, WALTON, PROXIMA):
        assert now[was.id].answer == was.answer and now[was.id].question != was.question
        assert giveaway(now[was.id]) is None


def test_a_word_every_option_shares_or_a_choice_the_question_names_gives_nothing_away() -> None:
    named = entry("en-d-2-108", "Does sound travel faster through air or through water?", ("Air", "Water"), "Water")
    assert giveaway(named) is None
    shared = entry("en-m-09-001", "Which river flows through Vienna?", ("River Danube", "River Rhine"), "River Danube")
    assert giveaway(shared) is None
    early = replace(WALTON, id="en-m-03-181", level=3)  # the first levels may be guessed, as in the show
    assert giveaway(early) is None and giveaway(WALTON) is not None


ASKED_TWICE = [
    # (a card as it was in the German bank, the Millionaire question that asks its fact)
    (
        entry(
            "de-d-4-026",
            "Wer schrieb den Roman „Die Blechtrommel“?",
            ("Thomas Mann", "Hermann Hesse", "Franz Kafka", "Günter Grass"),
            "Günter Grass",
            "Günter Grass veröffentlichte „Die Blechtrommel“ 1959 als seinen ersten Roman.",
        ),
        "de-m-07-022",
    ),
    (
        entry(
            "de-d-4-014",
            "Welches chemische Element hat die Ordnungszahl eins?",
            ("Helium", "Lithium", "Kohlenstoff", "Wasserstoff"),
            "Wasserstoff",
            "Wasserstoff hat nur ein einziges Proton im Kern und steht deshalb an erster Stelle im Periodensystem.",
        ),
        "de-m-10-014",
    ),
    (
        entry(
            "de-d-4-022",
            "Welche dieser Sendungen läuft seit 1970 im Ersten?",
            ("Derrick", "Tatort", "Der Alte", "Lindenstraße"),
            "Tatort",
            "Der erste Tatort wurde im November 1970 in der ARD ausgestrahlt.",
        ),
        "de-m-05-020",
    ),
    (
        entry(
            "de-d-3-030",
            "Welche dieser Maschinen verbesserte James Watt entscheidend?",
            ("Dampfmaschine", "Webstuhl", "Lokomotive"),
            "Dampfmaschine",
            "James Watt machte die Dampfmaschine mit einem getrennten Kondensator viel sparsamer.",
        ),
        "de-m-08-034",  # the other way round: "Wer verbesserte die Dampfmaschine?"
    ),
]


@pytest.mark.parametrize(("card", "question"), ASKED_TWICE, ids=[card.id for card, _ in ASKED_TWICE])
def test_a_card_that_asks_a_fact_of_the_millionaire_bank_again_is_named(
    bank: tuple[Entry, ...], card: Entry, question: str
) -> None:
    (found,) = repeats([card], bank)
    assert found.joined and found.problem.field == "question"
    assert found.problem.message.startswith(f"asks the fact of {question} (")
    assert found.problem.message.endswith("again, in the other format")


def test_a_different_fact_with_the_same_answer_is_no_repeat(bank: tuple[Entry, ...]) -> None:
    """The smallest bone and the smallest muscle (both "Steigbügel..."), the sets that win a volleyball match and
    a men's Grand Slam match: cards of the shipped bank checked as if they joined it last."""
    different = ("de-d-3-202", "fr-d-4-172", "en-d-4-110")
    cards = [found for found in bank if found.id in different]
    assert len(cards) == len(different)
    assert repeats(cards, [found for found in bank if found.id not in different]) == []


def test_the_shipped_banks_ask_no_fact_twice_and_give_nothing_away(bank: tuple[Entry, ...]) -> None:
    assert validate(bank) == []


def test_validate_names_a_card_of_the_users_that_asks_a_shipped_fact(tmp_path: Path) -> None:
    """Through the command, as a user who adds a pack would meet it; and an import leaves such a question out."""
    pack = tmp_path / "data" / "voicemaster" / "questions" / "de" / "mine.toml"
    pack.parent.mkdir(parents=True)
    card, question = ASKED_TWICE[0]
    pack.write_text(
        '[pack]\nlanguage = "de"\nformat = "moneydrop"\nsource = "me"\nlicense = "CC0-1.0"\n\n[[card]]\n'
        'id = "de-mine-1"\ncategory = "Literatur"\n'
        f'question = "{card.question}"\noptions = {list(card.options)!r}\nanswer = "{card.answer}"\n'
        f'explanation = "{card.explanation}"\n'.replace("'", '"'),
        encoding="utf-8",
    )
    env = {name: value for name, value in os.environ.items() if name != "VOICEMASTER_QUESTIONS"}
    env |= {"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    shown = subprocess.run(
        [sys.executable, "-m", "voicemaster", "questions", "validate"],
        capture_output=True, text=True, check=False, timeout=120, env=env,
    )  # fmt: skip
    assert shown.returncode == 1
    assert f"de-mine-1: question: asks the fact of {question}" in shown.stdout, shown.stdout
    source = tmp_path / "again.csv"
    source.write_text(
        "level,category,question,correct,wrong1,wrong2,wrong3,explanation\n"
        "9,Geografie,An welchem Fluss liegt Rom?,Tiber,Arno,Po,Etsch,Der Tiber fließt durch Rom.\n"
        "2,Familie,Wie heißt Omas Hund?,Bello,Rex,Struppi,Hasso,Er heißt Bello.\n",
        encoding="utf-8",
    )
    pack.unlink()
    imported = subprocess.run(
        [sys.executable, "-m", "voicemaster", "questions", "import", str(source), "--format", "csv", "--lang", "de"],
        capture_output=True, text=True, check=False, timeout=120, env=env,
    )  # fmt: skip
    assert imported.returncode == 0, imported.stderr
    assert "1 questions written" in imported.stdout and "asks the fact of de-d-4-264" in imported.stdout
