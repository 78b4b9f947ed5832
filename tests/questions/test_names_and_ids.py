"""One rule for the pack files the tools write and read (UTF-8 names ending in .toml), ids as the bank compares them
(NFC, visible characters only), and spoken text within what every voice says (`voicemaster/speakable.py`): each
fault made as a user or a disk makes it, with real files."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from voicemaster import paths
from voicemaster.cli import questions as question_cli
from voicemaster.cli.app import main
from voicemaster.speakable import LONGEST_WORD

pytestmark = pytest.mark.usefixtures("user_folders")

CSV = (
    "level,category,question,correct,wrong1,wrong2,wrong3,explanation\n"
    "3,Science,Which gas do plants take in to make their food?,{answer},Oxygen,Nitrogen,Helium,They need it.\n"
)
PACK_HEAD = '[pack]\nlanguage = "en"\nformat = "millionaire"\nsource = "mine"\nlicense = "CC0-1.0"\n'
QUESTION = """
[[question]]
id = "{id}"
level = {level}
category = "Science"
question = "{question}"
options = ["{option}", "Nitrogen", "Helium", "Argon"]
answer = "{option}"
explanation = ""
"""
QUESTIONS = (
    "Which gas do we breathe in to live?",
    "What is the capital city of Peru?",
    "Which planet is called the red one?",
    "How many legs does a spider have?",
)


def pack(ids: list[str], option: str = "Oxygen") -> str:
    return PACK_HEAD + "".join(
        QUESTION.format(id=i, level=n + 1, question=QUESTIONS[n], option=option) for n, i in enumerate(ids)
    )


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    shown = capsys.readouterr()
    return code, shown.out, shown.err


def command(*args: str) -> subprocess.CompletedProcess[str]:
    """The real command, with a real standard output: one that cannot print a name ends in UnicodeEncodeError."""
    return subprocess.run(
        [sys.executable, "-m", "voicemaster", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_import_out_of_a_name_the_bank_never_loads_is_refused_and_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "q.csv"
    source.write_text(CSV.format(answer="Carbon dioxide"), encoding="utf-8")
    code, out, err = run(capsys, "questions", "import", str(source), "--format", "csv", "--lang", "en",
                         "--out", str(tmp_path / "x.txt"))  # fmt: skip
    assert code == 2 and "questions written" not in out
    assert f"--out {tmp_path / 'x.txt'}: the question bank loads only packs whose file name ends in .toml" in err
    assert "(say x.toml)" in err and not (tmp_path / "x.txt").exists()


def test_import_out_of_a_name_that_is_not_utf8_is_refused_and_nothing_written(tmp_path: Path) -> None:
    source = tmp_path / "q.csv"
    source.write_text(CSV.format(answer="Carbon dioxide"), encoding="utf-8")
    out = os.fsdecode(os.fsencode(tmp_path) + b"/bad\xff.toml")
    done = command("questions", "import", str(source), "--format", "csv", "--lang", "en", "--out", out)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "bad\\xff.toml: its name is not valid UTF-8 text" in done.stderr
    assert sorted(os.listdir(tmp_path)) == ["q.csv"]


def test_a_pack_named_in_bytes_that_are_not_utf8_is_a_problem_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "bank"
    folder.mkdir()
    (folder / "good.toml").write_text(pack(["en-x-1"]), encoding="utf-8")
    name = os.fsdecode(os.fsencode(folder) + b"/b\xfe.toml")
    Path(name).write_text(pack(["en-x-2"]), encoding="utf-8")
    done = command("questions", "validate", str(folder))
    assert done.returncode == 1 and "Traceback" not in done.stderr + done.stdout
    assert done.stdout.strip() == f"{folder}/b\\xfe.toml: its name is not valid UTF-8 text: rename it"
    # And in the user's packs folder, as `play` loads the bank: left out, named, the game goes on.
    users = paths.user_questions_dir() / "en"
    users.mkdir(parents=True)
    Path(os.fsdecode(os.fsencode(users) + b"/b\xfe.toml")).write_text(pack(["en-x-3"]), encoding="utf-8")
    assert question_cli.playable_questions("en")
    assert "its name is not valid UTF-8 text" in capsys.readouterr().err


def test_an_empty_folder_named_like_a_pack_is_a_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pack.toml").mkdir()
    code, out, err = run(capsys, "questions", "validate", str(tmp_path / "pack.toml"))
    assert code == 1 and f"{tmp_path / 'pack.toml'}: a folder with no question pack in it" in out
    assert "1 problem(s)" in err


def test_a_file_not_named_as_a_pack_is_a_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pack.txt").write_text(pack(["en-x-1"]), encoding="utf-8")
    code, out, _ = run(capsys, "questions", "validate", str(tmp_path / "pack.txt"))
    assert code == 1 and "only packs whose file name ends in .toml: rename it to pack.toml" in out


def test_ids_differing_only_by_normalisation_are_one_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ids.toml").write_text(pack(["de-x-\u00e4", "de-x-a\u0308"]), encoding="utf-8")
    code, out, _ = run(capsys, "questions", "validate", str(tmp_path / "ids.toml"))
    assert code == 1 and out.strip() == f"{tmp_path / 'ids.toml'}: de-x-\u00e4: id: already used in {tmp_path}/ids.toml"


@pytest.mark.parametrize(("hidden", "named"), [("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"), ("\u200b", "U+200B")])
def test_ids_with_invisible_characters_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], hidden: str, named: str
) -> None:
    (tmp_path / "ids.toml").write_text(pack([f"de-x-{hidden}b"]), encoding="utf-8")
    code, out, _ = run(capsys, "questions", "validate", str(tmp_path / "ids.toml"))
    assert code == 1 and f"id: holds an invisible character ({named}" in out
    assert hidden not in out  # the id is shown escaped: a direction mark would turn the line around


def test_an_option_of_one_overlong_word_is_left_out_of_imports_and_refused_by_validate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "q.csv"
    source.write_text(CSV.format(answer="x" * 10_000), encoding="utf-8")
    code, _, err = run(capsys, "questions", "import", str(source), "--format", "csv", "--lang", "en",
                       "--out", str(tmp_path / "long.toml"))  # fmt: skip
    assert code == 2 and "a word of 10000 characters" in err and not (tmp_path / "long.toml").exists()
    (tmp_path / "long.toml").write_text(pack(["en-x-1"], option="x" * (LONGEST_WORD + 1)), encoding="utf-8")
    code, out, _ = run(capsys, "questions", "validate", str(tmp_path / "long.toml"))
    assert code == 1 and f"cannot be read aloud: a word of {LONGEST_WORD + 1} characters" in out
