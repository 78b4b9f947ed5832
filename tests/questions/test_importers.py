"""Importing Open Trivia DB and CSV files: the result validates like our packs; bad input writes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from voicemaster.questions.packs import load

OPENTDB = {
    "response_code": 0,
    "results": [
        {"category": "Science &amp; Nature", "type": "multiple", "difficulty": "easy",
         "question": "Which gas puts the bubbles in fizzy drinks?", "correct_answer": "Carbon dioxide",
         "incorrect_answers": ["Helium", "Neon", "Argon"]},
        {"category": "Geography", "type": "boolean", "difficulty": "easy",
         "question": "Paris is in France.", "correct_answer": "True", "incorrect_answers": ["False"]},
        {"category": "Entertainment: Books", "type": "multiple", "difficulty": "hard",
         "question": "Who wrote &quot;The Pickwick Papers&quot;?", "correct_answer": "Charles Dickens",
         "incorrect_answers": ["John Steinbeck", "William Faulkner", "Jack London"]},
        {"category": "General Knowledge", "type": "multiple", "difficulty": "medium",
         "question": "How many sides does a hexagon have? 6%", "correct_answer": "Six",
         "incorrect_answers": ["Five", "Seven", "Eight"]},
    ],
}  # fmt: skip


def voicemaster(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "voicemaster", *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, timeout=60, env=env)


def test_open_trivia_db_round_trips_through_validation(tmp_path: Path) -> None:
    source = tmp_path / "opentdb.json"
    source.write_text(json.dumps(OPENTDB), encoding="utf-8")
    out = tmp_path / "pack.toml"
    shown = voicemaster("questions", "import", str(source), "--format", "opentdb", "--lang", "en", "--out", str(out))
    assert shown.returncode == 0, shown.stderr
    assert "2 questions written" in shown.stdout
    assert "skipped 1: true/false question" in shown.stdout
    assert "skipped 1: question: symbol" in shown.stdout
    loaded = load([out])
    assert loaded.problems == ()
    by_level = {e.level: e for e in loaded.entries}
    assert set(by_level) == {1, 11}
    assert by_level[11].question == 'Who wrote "The Pickwick Papers"?'
    assert by_level[1].category == "Science, Nature"
    assert by_level[11].category == "Books"
    assert {e.license for e in loaded.entries} == {"CC-BY-SA-4.0"}
    assert voicemaster("questions", "validate", str(out)).returncode == 0


def test_csv_round_trips_through_validation(tmp_path: Path) -> None:
    source = tmp_path / "mine.csv"
    source.write_text(
        "level,category,question,correct,wrong1,wrong2,wrong3,explanation\n"
        "2,Tiere,Welches Tier bellt?,Hund,Katze,Kuh,Pferd,Hunde bellen.\n"
        "9,Geografie,Welcher Fluss fließt durch Prag?,Moldau,Donau,Elbe,Oder,Prag liegt an der Moldau.\n",
        encoding="utf-8",
    )
    out = tmp_path / "csv-pack.toml"
    shown = voicemaster("questions", "import", str(source), "--format", "csv", "--lang", "de", "--out", str(out))
    assert shown.returncode == 0, shown.stderr
    loaded = load([out])
    assert loaded.problems == () and len(loaded.entries) == 2
    assert voicemaster("questions", "validate", str(out)).returncode == 0


def test_an_import_goes_into_the_users_packs_and_the_bank_asks_it_with_ours(tmp_path: Path) -> None:
    source = tmp_path / "family.csv"
    source.write_text(
        "level,category,question,correct,wrong1,wrong2,wrong3,explanation\n"
        "2,Familie,Wie heißt Omas Hund?,Bello,Rex,Struppi,Hasso,Er heißt Bello.\n",
        encoding="utf-8",
    )
    env = {name: value for name, value in os.environ.items() if name != "VOICEMASTER_QUESTIONS"}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    ours = json.loads(voicemaster("questions", "stats", "--json", env=env).stdout)["de"]["millionaire"]["2"]
    shown = voicemaster("questions", "import", str(source), "--format", "csv", "--lang", "de", env=env)
    assert shown.returncode == 0, shown.stderr
    written = tmp_path / "data" / "voicemaster" / "questions" / "de" / "family.toml"
    assert f"1 questions written to {written}" in shown.stdout
    both = json.loads(voicemaster("questions", "stats", "--json", env=env).stdout)["de"]["millionaire"]["2"]
    assert both == ours + 1
    assert voicemaster("questions", "validate", env=env).returncode == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "not JSON"),
        (b'{"results": [{"type": "multiple"}]}', "lacks category"),
        (b'{"answers": []}', "'results' list"),
        ('{"results": []} café'.encode("latin-1"), "not UTF-8"),
    ],
)
def test_bad_input_gets_a_clear_error_and_writes_nothing(tmp_path: Path, content: bytes, message: str) -> None:
    source = tmp_path / "bad.json"
    source.write_bytes(content)
    out = tmp_path / "out.toml"
    shown = voicemaster("questions", "import", str(source), "--format", "opentdb", "--out", str(out))
    assert shown.returncode == 2
    assert message in shown.stderr and "Traceback" not in shown.stderr
    assert not out.exists()


def test_a_huge_file_is_refused_before_reading(tmp_path: Path) -> None:
    source = tmp_path / "huge.json"
    with source.open("wb") as file:
        file.truncate(200_000_000)  # sparse: 200 MB on paper, nothing on disk
    shown = voicemaster("questions", "import", str(source), "--format", "opentdb", "--out", str(tmp_path / "o.toml"))
    assert shown.returncode == 2 and "200 MB is too large" in shown.stderr
    assert not (tmp_path / "o.toml").exists()


def test_a_csv_with_the_wrong_header_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "wrong.csv"
    source.write_text("frage,antwort\nWer?,Ich\n", encoding="utf-8")
    shown = voicemaster("questions", "import", str(source), "--format", "csv", "--out", str(tmp_path / "o.toml"))
    assert shown.returncode == 2 and "header must start with level,category" in shown.stderr
