"""scripts/blind_check.py as a pack's author uses it: a sheet without keys, a reader's answers scored, and the
counts recorded in the pack without touching anything else in it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from voicemaster.questions.packs import load

SCRIPT = Path(__file__).parents[1] / "scripts" / "blind_check.py"
PACK = """\
[pack]
language = "de"
format = "millionaire"   # a comment the tool must keep
source = "voicemaster"
license = "CC0-1.0"

[[question]]
id = "de-m-01-001"
level = 1
category = "Geografie"
question = "Welcher Fluss fließt durch Wien?"
options = ["Donau", "Rhein", "Elbe", "Main"]
answer = "Donau"
explanation = "Wien liegt an der Donau."

[[question]]
id = "de-m-01-002"
level = 1
category = "Tiere"
question = "Welches Tier bellt?"
options = ["Katze", "Hund", "Kuh", "Huhn"]
answer = "Hund"
explanation = "Hunde bellen."

[[question]]
id = "de-m-01-003"
level = 1
category = "Essen"
question = "Woraus wird Brot gebacken?"
options = ["Mehl", "Zucker", "Salz", "Reis"]
answer = "Mehl"
explanation = "Brot ist aus Mehl."
"""


def blind_check(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120, check=False
    )


def folder_with_pack(tmp_path: Path, text: str = PACK) -> Path:
    folder = tmp_path / "packs"
    (folder / "de").mkdir(parents=True)
    (folder / "de" / "level-01.toml").write_text(text, encoding="utf-8")
    return folder


def sheet(folder: Path, tmp_path: Path) -> list[dict[str, object]]:
    out = tmp_path / "sheet.jsonl"
    shown = blind_check("export", str(folder), "--out", str(out))
    assert shown.returncode == 0, shown.stderr
    return [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def answered(lines: list[dict[str, object]], tmp_path: Path, picks: dict[str, str]) -> Path:
    """The sheet with the reader's answers: `picks` maps an id to the option text the reader chose."""
    out = tmp_path / "answers.jsonl"
    filled = []
    for line in lines:
        options = line["options"]
        assert isinstance(options, dict)
        letter = next(letter for letter, text in options.items() if text == picks[str(line["id"])])
        filled.append(json.dumps(line | {"answer": letter}, ensure_ascii=False))
    out.write_text("\n".join(filled) + "\n", encoding="utf-8")
    return out


KEYS = {"de-m-01-001": "Donau", "de-m-01-002": "Hund", "de-m-01-003": "Mehl"}


def test_the_sheet_has_questions_and_options_but_no_keys(tmp_path: Path) -> None:
    folder = folder_with_pack(tmp_path)
    lines = sheet(folder, tmp_path)
    assert [line["id"] for line in lines] == list(KEYS)
    first = lines[0]
    assert first["pack"] == "de/level-01.toml" and first["question"] == "Welcher Fluss fließt durch Wien?"
    options = first["options"]
    assert isinstance(options, dict)
    assert list(options) == ["A", "B", "C", "D"] and sorted(options.values()) == ["Donau", "Elbe", "Main", "Rhein"]
    text = (tmp_path / "sheet.jsonl").read_text(encoding="utf-8")
    assert "explanation" not in text and "Wien liegt an der Donau" not in text
    assert all(line["answer"] == "" for line in lines)
    assert sheet(folder, tmp_path) == lines  # the same order every time


def test_the_keys_do_not_sit_in_one_place(tmp_path: Path) -> None:
    text = PACK + "".join(
        f'\n[[question]]\nid = "de-m-02-{n:03d}"\nlevel = 2\ncategory = "Zahlen"\nquestion = "Frage {n}?"\n'
        f'options = ["Eins", "Zwei", "Drei", "Vier"]\nanswer = "Eins"\nexplanation = "So ist es."\n'
        for n in range(40)
    )
    lines = sheet(folder_with_pack(tmp_path, text), tmp_path)
    offered = [line["options"] for line in lines[3:]]
    places = {next(k for k, v in options.items() if v == "Eins") for options in offered if isinstance(options, dict)}
    assert places == {"A", "B", "C", "D"}


def test_scoring_names_the_disagreements_and_counts_them(tmp_path: Path) -> None:
    folder = folder_with_pack(tmp_path)
    lines = sheet(folder, tmp_path)
    answers = answered(lines, tmp_path, KEYS | {"de-m-01-002": "Katze"})
    shown = blind_check("score", str(folder), "--answers", str(answers))
    assert shown.returncode == 1
    assert "disagreement: de/level-01.toml: de-m-01-002: key 'Hund'" in shown.stdout and "Katze" in shown.stdout
    assert "de/level-01.toml: 3 entries; checked 3, agreed 2, fixed 0, dropped 0; 1 open" in shown.stdout


def test_a_complete_check_is_recorded_and_the_rest_of_the_file_kept(tmp_path: Path) -> None:
    folder = folder_with_pack(tmp_path)
    lines = sheet(folder, tmp_path)
    answers = answered(lines, tmp_path, KEYS | {"de-m-01-002": "Katze"})
    # The author drops the third question and fixes the second; the reader answers the second again.
    pack = folder / "de" / "level-01.toml"
    fixed = PACK.split('\n[[question]]\nid = "de-m-01-003"')[0].replace('"Katze", "Hund"', '"Fisch", "Hund"')
    pack.write_text(fixed, encoding="utf-8")
    again = dict(lines[1]) | {"options": {"A": "Hund", "B": "Fisch", "C": "Kuh", "D": "Huhn"}, "answer": "A"}
    with answers.open("a", encoding="utf-8") as file:
        file.write(json.dumps(again, ensure_ascii=False) + "\n")
    shown = blind_check("score", str(folder), "--answers", str(answers), "--record")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "checked 3, agreed 1, fixed 1, dropped 1; 0 open, 0 not answered" in shown.stdout
    after = pack.read_text(encoding="utf-8")
    table = "[pack.review]\nchecked = 3\nagreed = 1\nfixed = 1\ndropped = 1\n\n"
    assert after == fixed.replace("\n[[question]]", "\n" + table + "[[question]]", 1)
    loaded = load([pack])
    assert loaded.problems == () and loaded.packs[0].review is not None
    # Scored again with one more line: only the table changes, in its place.
    shown = blind_check("score", str(folder), "--answers", str(answers), "--record")
    assert pack.read_text(encoding="utf-8") == after


def test_an_incomplete_check_is_not_recorded(tmp_path: Path) -> None:
    folder = folder_with_pack(tmp_path)
    lines = sheet(folder, tmp_path)
    answers = answered(lines[:2], tmp_path, KEYS)
    shown = blind_check("score", str(folder), "--answers", str(answers), "--record")
    assert "1 not answered" in shown.stdout and "not recorded: the check is not complete" in shown.stdout
    assert (folder / "de" / "level-01.toml").read_text(encoding="utf-8") == PACK


def test_a_recorded_table_is_rewritten_in_place(tmp_path: Path) -> None:
    old = "\n[pack.review]\nchecked = 9\nagreed = 9\nfixed = 0\ndropped = 6\n"
    text = PACK.replace('license = "CC0-1.0"\n', 'license = "CC0-1.0"\n' + old, 1)
    folder = folder_with_pack(tmp_path, text.replace("\n", "\r\n"))
    answers = answered(sheet(folder, tmp_path), tmp_path, KEYS)
    shown = blind_check("score", str(folder), "--answers", str(answers), "--record")
    assert shown.returncode == 0, shown.stdout + shown.stderr
    new = "\n[pack.review]\nchecked = 3\nagreed = 3\nfixed = 0\ndropped = 0\n"
    expected = text.replace(old, new).replace("\n", "\r\n").encode()
    assert (folder / "de" / "level-01.toml").read_bytes() == expected
