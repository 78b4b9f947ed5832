"""Packs and imports that a fuzzer or a careless hand made: a one-line message naming the file, the entry and the
field, never a traceback, and never a pack written that `questions validate` would then refuse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from voicemaster.cli.app import main

PACK_HEAD = '[pack]\nlanguage = "en"\nformat = "millionaire"\nsource = "mine"\nlicense = "CC0-1.0"\n'
GOOD_QUESTION = {
    "category": "Geography",
    "type": "multiple",
    "difficulty": "easy",
    "question": "Which river flows through Vienna?",
    "correct_answer": "Danube",
    "incorrect_answers": ["Rhine", "Elbe", "Main"],
}
CSV_HEAD = "level,category,question,correct,wrong1,wrong2,wrong3\n"


pytestmark = pytest.mark.usefixtures("user_folders")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    shown = capsys.readouterr()
    return code, shown.out, shown.err


def written(root: Path) -> list[Path]:
    """What a command wrote in the user's folders; the cache (checks of the shipped packs, made again at will) aside."""
    cache = root / "user" / "xdg_cache_home"
    return sorted(path for path in (root / "user").rglob("*") if path.is_file() and cache not in path.parents)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (PACK_HEAD + '[question]\nid = "en-m-01-001"\n', "question: expected [[question]] entries, found a single"),
        ("a = " + "[" * 1000 + "]" * 1000 + "\n", "not valid TOML: tables or lists nested too deeply"),
        (PACK_HEAD + "[[question]]\nlevel = " + "9" * 5000 + "\n", "not valid TOML: a number with thousands of digits"),
        (PACK_HEAD + "[[question]]\nlevel = " + "9" * 30 + "\n", "entry #1: level: expected a whole number"),
        ("question = [1, 2]\n" + PACK_HEAD, "entry #2: expected a table, found 2"),
        (PACK_HEAD + '[[question]]\nid = "\\uD800"\n', "not valid TOML"),
    ],
    ids=["single-table", "deep", "5000-digits", "huge-level", "not-tables", "surrogate"],
)
def test_a_broken_pack_is_named_never_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    pack = tmp_path / "broken.toml"
    pack.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "questions", "validate", str(pack))
    assert code == 1
    assert f"{pack}: " in out and message in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"results": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested 100001 deep"),
        ('{"results": [' + "9" * 5000 + "]}", "a number of 5000 digits"),
        ({"results": [GOOD_QUESTION | {"incorrect_answers": None}]}, "results[0]: incorrect_answers: expected a list"),
        ({"results": [GOOD_QUESTION | {"incorrect_answers": 3}]}, "incorrect_answers: expected a list of texts, got a"),
        ({"results": [GOOD_QUESTION | {"question": "Who\ud800"}]}, "results[0]: question: not valid Unicode text"),
        ({"results": [GOOD_QUESTION | {"question": ""}]}, "results[0]: question: empty"),
        ({"results": [GOOD_QUESTION | {"category": "  "}]}, "results[0]: category: empty"),
        ({"results": [GOOD_QUESTION | {"difficulty": 7}]}, "results[0].difficulty: expected easy, medium or hard"),
    ],
    ids=["deep", "5000-digits", "null-answers", "number-answers", "surrogate", "empty-question", "empty-category",
         "difficulty"],
)  # fmt: skip
def test_bad_open_trivia_db_input_is_refused_with_its_place_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | dict[str, object], message: str
) -> None:
    source = tmp_path / "trivia.json"
    source.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    code, _, err = run(capsys, "questions", "import", str(source), "--format", "opentdb")
    assert code == 2
    assert err.startswith(f"voicemaster: {source}: ") and message in err
    assert written(tmp_path) == []


def test_a_csv_field_over_128_kb_is_refused_with_its_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "big.csv"
    source.write_text(CSV_HEAD + '1,Animals,"' + "x" * 200_000 + ",Dog,Cat,Cow,Horse\n", encoding="utf-8")
    code, _, err = run(capsys, "questions", "import", str(source), "--format", "csv")
    assert code == 2 and "the record from line 2: not readable CSV" in err and "quote left open" in err
    assert written(tmp_path) == []


def test_a_csv_with_old_mac_line_endings_imports(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "mac.csv"
    source.write_text(
        CSV_HEAD.replace("\n", "\r") + "2,Animals,Which animal barks?,Dog,Cat,Cow,Horse\r", encoding="utf-8"
    )
    code, out, _ = run(capsys, "questions", "import", str(source), "--format", "csv")
    assert code == 0 and "1 questions written" in out


def test_questions_that_would_fail_validation_are_left_out_and_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "levels.csv"
    source.write_text(
        CSV_HEAD + "99,Geography,Which river flows through Vienna?,Danube,Rhine,Elbe,Main\n"
        "-1,Geography,Which river flows through Prague?,Vltava,Rhine,Elbe,Main\n"
        "2,Animals,Which animal barks?,Dog,Cat,Cow,Horse\n"
        "3,,Which animal purrs?,Cat,Dog,Cow,Horse\n"
        "4,Animals,Which animal moos?\n",
        encoding="utf-8",
    )
    code, out, _ = run(capsys, "questions", "import", str(source), "--format", "csv")
    assert code == 0 and "1 questions written" in out
    assert (
        "left out 4 question(s): line 2: level: 99 is not 1-15; line 3: level: -1 is not 1-15; "
        "line 5: category: empty (nothing a listener would hear); line 6: expected 7 or more columns, got 3"
    ) in out
    code, out, _ = run(capsys, "questions", "validate")
    assert code == 0, out


def test_the_pack_name_from_the_file_name_stays_in_the_packs_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "..\n[[question]] ~ evil.csv"
    source.write_text(CSV_HEAD + "2,Animals,Which animal barks?,Dog,Cat,Cow,Horse\n", encoding="utf-8")
    code, out, _ = run(capsys, "questions", "import", str(source), "--format", "csv")
    packs = tmp_path / "user" / "xdg_data_home" / "voicemaster" / "questions" / "en"
    assert code == 0 and f"written to {packs / 'question-evil.toml'}" in out
    assert written(tmp_path) == [packs / "question-evil.toml"]
