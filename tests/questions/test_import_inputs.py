"""`questions import` as people run it (issue 49): twice at once on the same questions, on a CSV with one long
quoted field among good rows, on a CSV that is only its header, on text turned round by U+202E. Only one of two
imports at once writes the questions; good rows are never lost for one long field; every message is true."""

from __future__ import annotations

import fcntl
import select
import subprocess
import sys
from pathlib import Path

import pytest

from voicemaster import paths
from voicemaster.cli.app import main
from voicemaster.cli.questions import IMPORT_LOCK
from voicemaster.questions.packs import load

pytestmark = pytest.mark.usefixtures("user_folders")
GUARD_SECONDS = 120
"""A command still running after this long has hung: the guard, never a measure of speed."""
HEAD = "level,category,question,correct,wrong1,wrong2,wrong3,explanation\n"
FAMILY = (
    "3,Music,Which instrument did the jazz musician Dizzy Gillespie play?,Trumpet,Piano,Drums,Guitar,He played a "
    "bent trumpet.\n"
    "5,Family,What is the name of grandmother's old grey cat?,Minka,Felix,Tiger,Mohrle,She is called Minka.\n"
    "7,Family,In which village did uncle Bertram grow up?,Oberwiesen,Unterbach,Lindenau,Kleinfeld,He grew up in "
    "Oberwiesen.\n"
)
"""Three questions the shipped bank does not ask."""


def packs_written() -> list[Path]:
    return sorted((paths.user_questions_dir() / "en").glob("*.toml"))


def test_two_imports_of_the_same_questions_at_once_write_them_once(tmp_path: Path) -> None:
    """The second import waits for the first and then finds its questions in the bank: one pack, no repeats."""
    for name in ("first.csv", "second.csv"):
        (tmp_path / name).write_text(HEAD + FAMILY, encoding="utf-8")
    lock_path = paths.cache_dir() / IMPORT_LOCK
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("a") as held:  # an import under way: both below start while it holds the lock
        fcntl.flock(held, fcntl.LOCK_EX)
        imports = [
            subprocess.Popen(
                [sys.executable, "-m", "voicemaster", "questions", "import", str(tmp_path / name), "--format", "csv"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for name in ("first.csv", "second.csv")
        ]
        for running in imports:  # each says it waits, before it looks at the bank
            assert running.stderr is not None
            assert select.select([running.stderr], [], [], GUARD_SECONDS)[0], "the import neither waited nor ended"
            assert "another import is under way" in running.stderr.readline()
    said = [running.communicate(timeout=GUARD_SECONDS) for running in imports]
    codes = sorted(running.returncode for running in imports)
    assert codes == [0, 2], said
    (refused,) = [err for (_, err), running in zip(said, imports, strict=True) if running.returncode == 2]
    (pack,) = packs_written()
    assert "no question could be imported" in refused and f"near-duplicate of en-{pack.stem}-" in refused, refused
    assert len(load([pack]).entries) == 3
    assert main(["questions", "validate"]) == 0


def test_a_long_quoted_field_leaves_its_row_out_and_keeps_the_good_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "long.csv"
    long_question = "A question that goes on, and on, " * 6_000  # 200 KB, quoted: valid CSV
    source.write_text(HEAD + f'4,Family,"{long_question}",Yes,No,Maybe,Never,\n' + FAMILY, encoding="utf-8")
    assert main(["questions", "import", str(source), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "3 questions written" in out and "line 2: question: too long to read aloud" in out, out
    (pack,) = packs_written()
    assert len(load([pack]).entries) == 3


def test_a_quote_left_open_is_still_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "open.csv"
    opened = '4,Family,"Who opened this quote,Yes,No,Maybe,Never,\n'
    source.write_text(HEAD + FAMILY + opened + FAMILY, encoding="utf-8")
    assert main(["questions", "import", str(source), "--format", "csv"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the record from line 5: not readable CSV" in err and "quote left open" in err
    assert packs_written() == []


@pytest.mark.parametrize(
    ("name", "content", "says"),
    [("header.csv", HEAD, "holds no question, only its header"),
     ("empty.json", '{"response_code": 0, "results": []}', "holds no question, only an empty 'results' list")],
)  # fmt: skip
def test_an_input_without_questions_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: str, says: str
) -> None:
    source = tmp_path / name
    source.write_text(content, encoding="utf-8")
    kind = "csv" if name.endswith(".csv") else "opentdb"
    assert main(["questions", "import", str(source), "--format", kind]) == 2
    err = capsys.readouterr().err
    assert err == f"voicemaster: {source}: {says}; nothing written\n"
    assert packs_written() == []


def test_direction_controls_are_dropped_from_imported_text(tmp_path: Path) -> None:
    source = tmp_path / "turned.csv"
    source.write_text(HEAD + FAMILY.replace("old grey cat", "old grey \u202ecat\u202c"), encoding="utf-8")
    assert main(["questions", "import", str(source), "--format", "csv"]) == 0
    (pack,) = packs_written()
    text = pack.read_text(encoding="utf-8")
    assert "\u202e" not in text and "\u202c" not in text and "old grey cat" in text
