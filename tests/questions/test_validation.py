"""A malformed pack names the file, the entry and the field, and every problem is listed at once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from voicemaster.questions.packs import load
from voicemaster.questions.readability import reading_problems
from voicemaster.questions.spoken import heard_form
from voicemaster.questions.validation import validate

GOOD = """
[[question]]
id = "{id}"
level = {level}
category = "Geografie"
question = "{question}"
options = [{options}]
answer = "{answer}"
explanation = "Wien liegt an der Donau."
"""
HEADER = '[pack]\nlanguage = "de"\nformat = "millionaire"\nsource = "voicemaster"\nlicense = "CC0-1.0"\n'


def pack(tmp_path: Path, *entries: dict[str, object], header: str = HEADER) -> Path:
    defaults = {
        "id": "de-m-01-001",
        "level": 1,
        "question": "Welcher Fluss fließt durch Wien?",
        "options": '"Donau", "Rhein", "Elbe", "Main"',
        "answer": "Donau",
    }
    text = header + "".join(GOOD.format(**{**defaults, **entry}) for entry in entries)
    path = tmp_path / "pack.toml"
    path.write_text(text, encoding="utf-8")
    return path


def problems(path: Path) -> list[str]:
    loaded = load([path])
    return [str(p) for p in (*loaded.problems, *validate(loaded.entries))]


def test_a_good_pack_has_no_problems(tmp_path: Path) -> None:
    assert problems(pack(tmp_path, {})) == []


@pytest.mark.parametrize(
    ("entry", "field", "message"),
    [
        ({"options": '"Donau", "Rhein", "Elbe"'}, "options", "expected 4 options, got 3"),
        ({"options": '"Donau", "Rhein", "donau", "Main"'}, "options", "appears 2 times"),
        ({"options": '"Donau", "Elf", "1911", "11"'}, "options", "'Elf' and '11' sound the same read aloud ('elf')"),
        ({"options": '"Donau", "Großstraße", "Großstrasse", "Main"'}, "options", "sound the same read aloud"),
        ({"answer": "Moldau"}, "answer", "is not one of the options"),
        ({"level": 16}, "level", "from 1 to 15"),
        ({"question": " "}, "question", "empty"),
        ({"question": "Wie viel sind 12 Äpfel?"}, "question", "number '12'"),
        ({"question": "Wie hoch ist z. B. der Turm?"}, "question", "abbreviation 'z. B.'"),
        ({"question": "Wie viele % sind das?"}, "question", "symbol '%'"),
        ({"question": "Wie lang sind 100 km Weg?"}, "question", "unit"),
        ({"question": "Wann war das 1.000 Jahre her?"}, "question", "number"),
    ],
)
def test_each_problem_names_file_entry_and_field(
    tmp_path: Path, entry: dict[str, object], field: str, message: str
) -> None:
    path = pack(tmp_path, entry)
    found = problems(path)
    assert any(p.startswith(f"{path}: de-m-01-001: {field}: ") and message in p for p in found), found


def test_duplicate_ids_and_near_duplicate_questions(tmp_path: Path) -> None:
    path = pack(
        tmp_path,
        {},
        {"question": "Welcher Fluss fließt durch die Stadt Wien?", "id": "de-m-01-002"},
        {
            "id": "de-m-01-002",
            "question": "Welche Farbe hat eine reife Zitrone?",
            "options": '"Gelb", "Blau", "Rot", "Lila"',
            "answer": "Gelb",
        },
    )
    found = problems(path)
    assert any("de-m-01-002: question: near-duplicate of de-m-01-001" in p for p in found)
    assert any("de-m-01-002: id: already used" in p for p in found)


LONG = (
    "Welcher Fluss, der im Schwarzwald entspringt und durch zehn Länder und vier Hauptstädte fließt, bevor er nach "
    "fast dreitausend Kilometern ins Schwarze Meer mündet, fließt durch die österreichische Hauptstadt Wien?"
)


def test_a_question_too_long_to_read_in_twelve_seconds_is_named(tmp_path: Path) -> None:
    """Some fifteen seconds for the German voice with the options' words: named, with how long it takes."""
    path = pack(tmp_path, {"question": LONG})
    assert [p for p in problems(path) if "too long to read aloud" in p] == [
        f"{path}: de-m-01-001: question: too long to read aloud: with its options about 14.8 seconds (at most 12)"
    ]
    shorter = "Welcher Fluss fließt durch Wien und mündet nach fast dreitausend Kilometern ins Schwarze Meer?"
    assert problems(pack(tmp_path, {"question": shorter})) == []


def test_digits_sound_like_their_words_but_two_words_for_one_number_are_told_apart() -> None:
    assert heard_form("11", "de") == heard_form("Elf", "de") == "elf"
    assert heard_form("70", "fr") == heard_form("Soixante-dix", "fr")
    assert heard_form("Septante", "fr") != heard_form("Soixante-dix", "fr")
    assert heard_form("Großstraße", "de") == heard_form("GROSSSTRASSE", "de")


def test_years_read_well_and_are_allowed() -> None:
    assert reading_problems("Im Jahr 1989 fiel die Mauer.", "de") == []
    assert reading_problems("Quel roi régnait en 1789 l’année de la Révolution ?", "fr") == []


def test_broken_files_are_named(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[pack\n", encoding="utf-8")
    assert "not valid TOML" in problems(broken)[0]
    latin = tmp_path / "latin.toml"
    latin.write_bytes(HEADER.replace("de", "de").encode() + 'x = "Fluß"'.encode("latin-1"))
    assert "not UTF-8" in problems(latin)[0]
    no_header = tmp_path / "bare.toml"
    no_header.write_text('[[question]]\nid = "x"\n', encoding="utf-8")
    assert "missing the [pack] table" in problems(no_header)[0]


def test_the_command_lists_all_problems_and_fails(tmp_path: Path) -> None:
    path = pack(tmp_path, {"answer": "Moldau"}, {"id": "de-m-01-009", "level": 0, "question": "Was ist eine Frage?"})
    shown = subprocess.run(
        [sys.executable, "-m", "voicemaster", "questions", "validate", str(path)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert shown.returncode == 1
    assert "de-m-01-001: answer:" in shown.stdout and "de-m-01-009: level:" in shown.stdout


def test_two_entries_that_say_one_word_two_ways_are_named(tmp_path: Path) -> None:
    """The voice says a hinted word the one way wherever it is said, so the packs must agree on it."""
    capital = {"level": 13, "question": "Wie heißt die Hauptstadt von Burkina Faso?", "answer": "Ouagadougou",
               "options": '"Bamako", "Niamey", "Ouagadougou", "Nouakchott"'}  # fmt: skip
    text = HEADER + "".join(
        GOOD.format(**{**capital, "id": f"de-m-13-00{n}"}) + f'pronounce = {{ "Ouagadougou" = "{said}" }}\n'
        for n, said in ((1, "Wagadugu"), (2, "Uagadugu"))
    )
    path = tmp_path / "pack.toml"
    path.write_text(text, encoding="utf-8")
    problems = [str(p) for p in validate(load([path]).entries) if p.field == "pronounce"]
    assert problems == [
        f"{path}: de-m-13-002: pronounce: 'Ouagadougou' is said 'Uagadugu' here but 'Wagadugu' in de-m-13-001: the "
        "voice says it one way"
    ]
