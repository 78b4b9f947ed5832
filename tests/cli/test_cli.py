"""The command line as a user runs it: the installed `voicemaster` entry point."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import voicemaster

EXE = shutil.which("voicemaster", path=str(Path(sys.executable).parent))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    command = [EXE] if EXE else [sys.executable, "-m", "voicemaster"]
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120, check=False)


def test_help_and_version() -> None:
    shown = run("--help")
    assert shown.returncode == 0
    for command in ("demo", "questions", "bench"):
        assert command in shown.stdout
    assert run("--version").stdout.strip() == f"voicemaster {voicemaster.__version__}"


@pytest.mark.parametrize("variant", ["jumbo-2002", "classic", "risiko", "qvgdm", "uk"])
def test_the_text_demo_plays_a_whole_game(variant: str) -> None:
    shown = run("demo", "--text", "--variant", variant, "--players", "3", "--seed", "5")
    assert shown.returncode == 0, shown.stderr
    assert "Question 1 for" in shown.stdout
    assert "Game over" in shown.stdout and "Winner" in shown.stdout
    assert run("demo", "--text", "--variant", variant, "--players", "3", "--seed", "5").stdout == shown.stdout


def test_the_money_drop_demo_ranks_the_teams() -> None:
    shown = run("demo", "--format", "moneydrop", "--text", "--players", "2", "--seed", "1")
    assert shown.returncode == 0, shown.stderr
    assert "starts with 1,000,000 EUR" in shown.stdout and "Ranking: 1." in shown.stdout


@pytest.mark.parametrize(
    ("game", "players", "who"),
    [("millionaire", "7", "players"), ("millionaire", "-1", "players"), ("moneydrop", "0", "teams")],
)
def test_a_demo_with_too_many_or_too_few_players_says_how_many_it_takes(game: str, players: str, who: str) -> None:
    shown = run("demo", "--text", "--format", game, "--players", players, "--seed", "1")
    assert shown.returncode == 2 and shown.stdout == ""
    assert shown.stderr == f"voicemaster: --players {players}: the demo plays with 1 to 6 {who}.\n"


@pytest.mark.parametrize(
    ("settings", "language", "said"),
    [
        (
            b'[speech.de]\nengine = "espeak"\nname = "xx-nobody"\n',
            "de",
            "mine.toml: speech.de.name: eSpeak-NG has no voice 'xx-nobody'",
        ),
        (  # German speaks Pico by default: a name alone is one of its voices, and the message says how to pick eSpeak
            b'[speech.de]\nname = "de+m3"\n',
            "de",
            "mine.toml: speech.de.name: Pico has no voice 'de+m3'; its de voices: de-DE",
        ),
        (
            b'[speech.en]\nengine = "kokoro"\nname = "zz_nobody"\n',
            "en",
            "mine.toml: speech.en.name: Kokoro has no voice 'zz_nobody'; its en voices: af_heart",
        ),
        (b'[game]\nlanguage = "de"\n# caf\xe9 in Latin-1\n', "de", "mine.toml: (file): not UTF-8 text"),
    ],
    ids=["espeak-voice", "pico-voice", "kokoro-voice", "latin-1"],
)
def test_a_config_with_an_unknown_voice_or_not_in_utf8_names_the_file_and_field(
    tmp_path: Path, settings: bytes, language: str, said: str
) -> None:
    if b"espeak" not in settings and b"xx-" in settings and shutil.which("espeak-ng") is None:
        pytest.skip("eSpeak-NG is not installed")
    mine = tmp_path / "mine.toml"
    mine.write_bytes(settings)
    shown = run("--config", str(mine), "say", "Hallo", "--lang", language, "--out", str(tmp_path / "said.wav"))
    assert shown.returncode == 2 and not (tmp_path / "said.wav").exists()
    assert shown.stderr.startswith(f"voicemaster: {mine.parent}/{said}") and shown.stderr.count("\n") == 1


def test_bench_rules_prints_figures_as_json() -> None:
    shown = run("bench", "rules", "--seconds", "0.05", "--json")
    figures = json.loads(shown.stdout)
    assert figures["benchmark"] == "rules"
    assert all(row["games"] > 0 and row["games_per_second"] > 0 for row in figures["results"])


def test_a_bad_config_file_is_reported_without_a_traceback(tmp_path: Path) -> None:
    mine = tmp_path / "bad.toml"
    mine.write_text("[game]\nplayers = 3\n", encoding="utf-8")
    shown = run("--config", str(mine), "demo")
    assert shown.returncode == 2
    assert "bad.toml: game.players" in shown.stderr and "Traceback" not in shown.stderr


def test_question_stats_as_json_follow_the_contract() -> None:
    shown = run("questions", "stats", "--json")
    assert shown.returncode == 0, shown.stderr
    figures = json.loads(shown.stdout)
    assert set(figures) == {"de", "en", "fr"}
    assert list(figures["de"]["millionaire"]) == [str(level) for level in range(1, 16)]
    assert list(figures["de"]["moneydrop"]) == ["4", "3", "2"]
    assert all(isinstance(n, int) and n > 0 for n in figures["en"]["millionaire"].values())
    review = figures["fr"]["review"]["moneydrop"]
    assert list(review) == ["entries", "checked", "agreed", "fixed", "dropped"]
    assert review["entries"] == sum(figures["fr"]["moneydrop"].values())


def test_validating_a_missing_path_says_so(tmp_path: Path) -> None:
    shown = run("questions", "validate", str(tmp_path / "nowhere"))
    assert shown.returncode == 2 and "no such file or folder" in shown.stderr


def test_the_demo_is_short_unless_asked_for_a_whole_evening() -> None:
    """By default two players and one round; `--full`, three players over two rounds."""
    short = run("demo", "--text", "--seed", "5")
    full = run("demo", "--text", "--full", "--seed", "5")
    assert short.returncode == full.returncode == 0, short.stderr + full.stderr
    assert "Anna, Ben, seed 5" in short.stdout and "Round 1:" in short.stdout and "Round 2:" not in short.stdout
    assert "Anna, Ben, Cem, seed 5" in full.stdout and "Round 2:" in full.stdout
