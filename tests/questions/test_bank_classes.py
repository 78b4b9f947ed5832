"""Issue 25, the question bank: each defect class a hostile tester found, seen as a user sees it (the command's
exit code, what it prints, what it writes), and fixed as a class, not one file."""

from __future__ import annotations

import json
import os
import random
import shutil
import string
import subprocess
import sys
from pathlib import Path

import pytest

from voicemaster import paths
from voicemaster.cli import questions as question_cli
from voicemaster.cli.app import main
from voicemaster.paths import QUESTIONS_DIR
from voicemaster.questions import validation
from voicemaster.questions.model import Entry, Format
from voicemaster.questions.selection import Bank
from voicemaster.questions.validation import repeats

CSV_HEAD = "level,category,question,correct,wrong1,wrong2,wrong3,explanation\n"
GOOD_ROW = "2,Animals,Which animal barks?,Dog,Cat,Cow,Horse,Dogs bark.\n"
SHIPPED_ROW = "7,Geography,What is the smallest country in the world by area?,Vatican City,Monaco,San Marino,Malta,\n"
"""A question of the shipped en/millionaire/level-07.toml, said with other wrong options."""


@pytest.fixture(autouse=True)
def _own_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "user" / name.lower()))
    monkeypatch.delenv("VOICEMASTER_QUESTIONS", raising=False)


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    shown = capsys.readouterr()
    return code, shown.out, shown.err


def imported(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, *extra: str) -> tuple[int, str, str]:
    source = tmp_path / "mine.csv"
    source.write_text(CSV_HEAD + text, encoding="utf-8")
    return run(capsys, "questions", "import", str(source), "--format", "csv", "--lang", "en", *extra)


# 1. An import checks against the bank it joins; a game is never stopped by one bad question of the user's.


def test_an_import_leaves_out_a_question_already_in_the_bank_and_the_bank_stays_valid(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = imported(tmp_path, capsys, GOOD_ROW + SHIPPED_ROW)
    assert code == 0 and "1 questions written" in out
    assert "line 3: question: near-duplicate of en-m-07-001" in out and "already in the bank" in out
    code, _, err = run(capsys, "questions", "validate")
    assert code == 0, err


def test_a_game_leaves_out_a_bad_user_question_names_it_and_plays(tmp_path: Path) -> None:
    user_pack = tmp_path / "user" / "xdg_data_home" / "voicemaster" / "questions" / "en" / "mine.toml"
    user_pack.parent.mkdir(parents=True)
    shipped = (QUESTIONS_DIR / "en" / "millionaire" / "level-07.toml").read_text(encoding="utf-8")
    start = shipped.index("[[question]]")
    first = shipped[start : shipped.index("[[question]]", start + 1)]
    user_pack.write_text(shipped[: shipped.index("[[question]]")] + first.replace("en-m-07-001", "mine-1"), "utf-8")
    err = _stderr_of(lambda: question_cli.playable_questions("en"))
    entries = question_cli.playable_questions("en")
    assert entries is not None and "mine-1" not in {entry.id for entry in entries}
    assert str(user_pack) in err and "mine-1" in err and "near-duplicate of en-m-07-001" in err


def _stderr_of(call: object) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stderr(buffer), contextlib.redirect_stdout(io.StringIO()):
        assert callable(call)
        call()
    return buffer.getvalue()


# 2. A question repeated within one file keeps its first copy.


def test_a_question_repeated_in_a_csv_keeps_the_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = imported(tmp_path, capsys, GOOD_ROW + GOOD_ROW.replace("Horse", "Goat"))
    assert code == 0 and "1 questions written" in out and "line 3: question:" in out


def test_a_question_repeated_in_open_trivia_db_keeps_the_first(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    item = {"category": "Animals", "type": "multiple", "difficulty": "easy", "question": "Which animal barks?",
            "correct_answer": "Dog", "incorrect_answers": ["Cat", "Cow", "Horse"]}  # fmt: skip
    source = tmp_path / "trivia.json"
    source.write_text(json.dumps({"response_code": 0, "results": [item, item]}), encoding="utf-8")
    code, out, _ = run(capsys, "questions", "import", str(source), "--format", "opentdb", "--lang", "en")
    assert code == 0 and "1 questions written" in out and "results[1]: question:" in out


# 3. Other Unicode digits in a CSV level.


@pytest.mark.parametrize(
    "level", ["²", "③", "٣", "３", "𝟛"], ids=["superscript", "circled", "arabic", "fullwidth", "math"]
)
def test_a_csv_level_in_other_digits_is_named_not_a_bug(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str
) -> None:
    code, out, err = imported(
        tmp_path, capsys, GOOD_ROW + GOOD_ROW.replace("2,", f"{level},", 1).replace("barks", "meows")
    )
    assert code == 0 and "1 questions written" in out, err
    assert f"line 3: level: {level!r} is not a whole number from 1 to 15" in out


# 4. "Empty" means empty to a listener.

INVISIBLE = ["\u200b", "\u2060\ufeff", "\u200d \u00ad", "\u0301", " . "]


def test_an_invisible_question_or_option_is_not_imported(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each invisible text as the question, the right option and a wrong one: one import, a row each (an import
    checks against the whole bank, so one is much faster than fifteen)."""
    rows = []
    for blank in INVISIBLE:
        for column in (2, 3, 5):
            cells = GOOD_ROW.rstrip("\n").split(",")
            cells[column] = blank
            rows.append(",".join(cells) + "\n")
    code, out, err = imported(tmp_path, capsys, GOOD_ROW.replace("barks", "purrs") + "".join(rows))
    assert code == 0 and "1 questions written" in out, err
    assert f"left out {len(rows)} question(s): line 3: question: empty" in out
    for field in ("question: empty", "answer: empty", "options: an option is empty"):
        assert f"skipped {len(INVISIBLE)}: {field}" in out


@pytest.mark.parametrize("blank", INVISIBLE, ids=["zwsp", "wj-bom", "zwj-shy", "mark", "dot"])
def test_an_invisible_question_or_option_in_a_pack_fails_validation(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], blank: str
) -> None:
    pack = tmp_path / "pack.toml"
    shipped = (QUESTIONS_DIR / "en" / "millionaire" / "level-07.toml").read_text(encoding="utf-8")
    pack.write_text(shipped.replace('"Monaco"', json.dumps(blank), 1), encoding="utf-8")
    code, out, _ = run(capsys, "questions", "validate", str(pack))
    assert code == 1 and "en-m-07-001: options: an option is empty" in out
    pack.write_text(shipped.replace('"What is the smallest country in the world by area?"', json.dumps(blank)), "utf-8")
    code, out, _ = run(capsys, "questions", "validate", str(pack))
    assert code == 1 and "en-m-07-001: question: empty" in out


# 5. A question folder lacking a level.


def test_a_question_folder_lacking_a_level_is_filled_from_the_shipped_packs_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "mine"
    shutil.copytree(QUESTIONS_DIR / "en" / "millionaire", folder)
    for pack in folder.glob("level-15*.toml"):
        pack.unlink()
    monkeypatch.setenv("VOICEMASTER_QUESTIONS", str(folder))
    code, _, _ = run(capsys, "questions", "validate")
    assert code == 0
    entries = question_cli.playable_questions("en")
    out = capsys.readouterr().out
    assert entries is not None and "level 15" in out and "shipped" in out
    presented = Bank(entries).next_question("en", 15, seed=1, asked=(), heard={})
    assert presented.entry.level == 15


def test_a_language_the_bank_lacks_is_named_before_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(paths, "QUESTIONS_DIR", tmp_path / "nothing-shipped")
    (tmp_path / "nothing-shipped").mkdir()
    folder = tmp_path / "mine"
    shutil.copytree(QUESTIONS_DIR / "en" / "millionaire", folder)
    monkeypatch.setenv("VOICEMASTER_QUESTIONS", str(folder))
    assert question_cli.playable_questions("de") is None
    err = capsys.readouterr().err
    assert "no de questions for level 1, 2, 3" in err and "money-drop cards" in err


# 6 and 8. Special files: refused, never read without bound, never replaced.


def _specials(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    link = tmp_path / "link.toml"
    link.symlink_to(fifo)
    return {"zero": Path("/dev/zero"), "urandom": Path("/dev/urandom"), "fifo": fifo, "link-to-fifo": link}


SPECIAL_COMMANDS = {
    "pack": ["questions", "validate", "{}"],
    "import": ["questions", "import", "{}", "--format", "csv", "--lang", "en"],
    "settings": ["--config", "{}", "demo", "--text", "--players", "1", "--rounds", "1"],
}


@pytest.mark.parametrize("command", SPECIAL_COMMANDS)
@pytest.mark.parametrize("special", ["zero", "urandom", "fifo", "link-to-fifo"])
def test_a_special_file_is_refused_not_read_for_ever(tmp_path: Path, command: str, special: str) -> None:
    path = _specials(tmp_path)[special]
    argv = [part.replace("{}", str(path)) for part in SPECIAL_COMMANDS[command]]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    # A bound on a hang, not a timing: the refusal takes well under a second, a hang never ends.
    done = subprocess.run(
        [sys.executable, "-m", "voicemaster", *argv], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode in (1, 2), done
    said = done.stdout + done.stderr
    assert "not a regular file" in said and str(path) in said and "Traceback" not in said


@pytest.mark.parametrize("special", ["fifo", "link-to-fifo", "folder"])
def test_an_import_never_replaces_a_special_file_given_as_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], special: str
) -> None:
    target = _specials(tmp_path)[special] if special != "folder" else tmp_path / "folder"
    if special == "folder":
        target.mkdir()
    kind = os.lstat(target).st_mode
    code, _, err = imported(tmp_path, capsys, GOOD_ROW, "--out", str(target))
    assert code == 2 and str(target) in err and "nothing written" in err
    assert os.lstat(target).st_mode == kind
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


# 7. Sub-quadratic checks, and each pack checked once.


def _entry(number: int, question: str, answer: str = "Yes") -> Entry:
    return Entry(f"q-{number}", "en", Format.MILLIONAIRE, "Things", question, (answer, "B", "C", "D"), answer, "",
                 level=1, path=Path("bank.toml"))  # fmt: skip


def test_near_duplicates_are_found_across_the_comparison_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    # Blocks of 100 instead of 2000: the same three blocks to cross, at a twentieth of the comparisons.
    monkeypatch.setattr(validation, "BLOCK", 100)
    rng = random.Random(5)
    words = ["".join(rng.choices(string.ascii_lowercase, k=7)) for _ in range(1000)]
    entries = [_entry(n, " ".join(words[4 * n : 4 * n + 4])) for n in range(225)]  # one answer: one block
    entries.append(_entry(225, entries[150].question + " indeed"))
    entries.append(_entry(226, entries[150].question, answer="No"))  # another answer: not a repeat
    found = repeats(entries[:2], entries[2:])
    assert found == []
    found = repeats(entries[225:], entries[:225])
    assert [(r.index, r.joined, r.problem.message.split(" (")[0]) for r in found] == [
        (0, True, "near-duplicate of q-150")
    ]


def test_a_pack_is_checked_once_and_again_when_it_changes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pack = tmp_path / "pack.toml"
    shipped = (QUESTIONS_DIR / "en" / "millionaire" / "level-07.toml").read_text(encoding="utf-8")
    pack.write_text(shipped, encoding="utf-8")
    assert run(capsys, "questions", "validate", str(pack))[0] == 0
    cache = tmp_path / "user" / "xdg_cache_home" / "voicemaster" / "questions-checked.json"
    assert len(json.loads(cache.read_text(encoding="utf-8"))["packs"]) == 1
    longer = '"Monaco and all the other small states along the whole of the Riviera coast at once"'
    pack.write_text(shipped.replace('"Monaco"', longer), encoding="utf-8")
    code, out, _ = run(capsys, "questions", "validate", str(pack))
    assert code == 1 and "too long to read aloud" in out
    assert len(json.loads(cache.read_text(encoding="utf-8"))["packs"]) == 2


def test_a_long_import_shows_its_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rows = "".join(
        f"1,Things,Which thing is number {n} of the list?,Thing {n},Other,Another,None,\n" for n in range(2500)
    )
    code, out, err = imported(tmp_path, capsys, rows)
    assert code == 0 and "questions written" in out
    assert "checking questions" in err and "2500/2500" in err


# 9. A CSV row with other than four options.


@pytest.mark.parametrize(
    ("row", "count"),
    [
        ("2,Animals,Which animal barks?,Dog,Cat,Cow,Horse,Goat,Dogs bark.\n", 5),
        ("2,Animals,Which animal barks?,Dog,Cat,Cow\n", 3),
    ],
    ids=["five", "three"],
)
def test_a_csv_row_with_other_than_four_options_is_named_with_its_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], row: str, count: int
) -> None:
    code, out, _ = imported(tmp_path, capsys, GOOD_ROW.replace("barks", "purrs") + row)
    assert code == 0 and "1 questions written" in out
    assert f"line 3: expected 4 options (correct, wrong1, wrong2, wrong3), got {count}" in out


# 10. What cannot be read aloud in a game.


def test_an_option_of_sixty_words_is_refused_at_validation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    long_option = " ".join(["word"] * 60)
    code, out, _ = imported(tmp_path, capsys, GOOD_ROW + GOOD_ROW.replace("Cat", long_option).replace("barks", "purrs"))
    assert code == 0 and "1 questions written" in out
    assert "line 3: options[1]: too long to read aloud in a game: 60 words (at most 12)" in out
