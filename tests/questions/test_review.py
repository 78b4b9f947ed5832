"""A pack's blind check, recorded in its [pack.review] table: read, checked against its entries, and counted by
`questions stats` per language and format."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from voicemaster.questions.packs import load
from voicemaster.questions.review import Review

HEADER = '[pack]\nlanguage = "{language}"\nformat = "millionaire"\nsource = "voicemaster"\nlicense = "CC0-1.0"\n'
ENTRY = """
[[question]]
id = "{language}-m-01-{number:03d}"
level = 1
category = "Geografie"
question = "Frage Nummer {word}?"
options = ["Donau", "Rhein", "Elbe", "Main"]
answer = "Donau"
explanation = "Wien liegt an der Donau."
"""
WORDS = ("eins", "zwei", "drei", "vier", "fünf", "sechs")


def pack(folder: Path, review: str, entries: int = 3, language: str = "de", name: str = "pack.toml") -> Path:
    text = HEADER.format(language=language) + review
    text += "".join(ENTRY.format(language=language, number=n, word=WORDS[n]) for n in range(entries))
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_a_consistent_review_is_read_with_the_pack(tmp_path: Path) -> None:
    path = pack(tmp_path, "\n[pack.review]\nchecked = 5\nagreed = 3\nfixed = 0\ndropped = 2\n")
    loaded = load([path])
    assert loaded.problems == ()
    assert [p.review for p in loaded.packs] == [Review(checked=5, agreed=3, fixed=0, dropped=2)]


def test_a_pack_without_a_review_has_none(tmp_path: Path) -> None:
    loaded = load([pack(tmp_path, "")])
    assert loaded.problems == () and loaded.packs[0].review is None and loaded.packs[0].entries == 3


@pytest.mark.parametrize(
    ("table", "field", "says"),
    [
        ("checked = 4\nagreed = 4\nfixed = 0\ndropped = 0", "pack.review.checked", "3 entries in the pack plus"),
        ("checked = 3\nagreed = 2\nfixed = 0\ndropped = 0", "pack.review", "1 disagreed, but only 0 fixed"),
        ("checked = 3\nagreed = 3\nfixed = 1\ndropped = 0", "pack.review.fixed", "only 0 disagreed"),
        ("checked = 3\nagreed = 4\nfixed = 0\ndropped = 0", "pack.review.agreed", "4 agreed of 3"),
        ("checked = 3\nagreed = -1\nfixed = 0\ndropped = 0", "pack.review.agreed", "whole number, 0 or more"),
        ("checked = 3\nagreed = 3.0\nfixed = 0\ndropped = 0", "pack.review.agreed", "whole number"),
        ("checked = 3\nagreed = 3\nfixed = 0", "pack.review.dropped", "missing"),
        ("checked = 3\nagreed = 3\nfixed = 0\ndropped = 0\nread = 3", "pack.review.read", "unknown field"),
    ],
)
def test_an_inconsistent_review_is_named_by_field(tmp_path: Path, table: str, field: str, says: str) -> None:
    loaded = load([pack(tmp_path, f"\n[pack.review]\n{table}\n")])
    shown = [str(problem) for problem in loaded.problems]
    assert any(f"pack.toml: {field}: " in line and says in line for line in shown), shown
    assert loaded.packs[0].review is None


def test_a_review_that_is_not_a_table_is_refused(tmp_path: Path) -> None:
    header = HEADER.format(language="de") + "review = 3\n"
    path = tmp_path / "pack.toml"
    path.write_text(header + ENTRY.format(language="de", number=1, word="eins"), encoding="utf-8")
    assert [p.field for p in load([path]).problems] == ["pack.review"]


def stats(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"VOICEMASTER_QUESTIONS": str(folder)}
    command = [sys.executable, "-m", "voicemaster", "questions", "stats", *options]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, check=False)


def test_stats_show_the_checks_per_language_and_format(tmp_path: Path) -> None:
    pack(tmp_path, "\n[pack.review]\nchecked = 4\nagreed = 2\nfixed = 1\ndropped = 1\n", name="a.toml")
    pack(tmp_path, "", entries=2, name="b.toml", language="de")
    pack(tmp_path, "\n[pack.review]\nchecked = 2\nagreed = 2\nfixed = 0\ndropped = 0\n", 2, "fr", "c.toml")
    shown = stats(tmp_path, "--json")
    assert shown.returncode == 0, shown.stderr
    figures = json.loads(shown.stdout)
    assert figures["de"]["millionaire"] == {"1": 5}  # the counts stay as they were
    assert figures["de"]["review"] == {
        "millionaire": {"entries": 5, "checked": 4, "agreed": 2, "fixed": 1, "dropped": 1}
    }
    assert figures["fr"]["review"]["millionaire"]["agreed"] == 2
    text = stats(tmp_path).stdout
    assert "de millionaire blind check: 5 entries, 4 checked, 2 agreed, 1 fixed, 1 dropped (2 not checked)" in text
