"""Every demo command the README shows, run as a newcomer runs it (issue 49): the installed command line in a process
of its own, its terminal narration on, in both formats (the classic Millionaire game and the money drop) and all three
languages, played to its end. The money drop's narration once ended its demo 42 s in with "this is a bug" (a KeyError
on a card told as a Millionaire question), and nothing then ran the command itself.

The README's demo commands are `make demo` (the Makefile's `voicemaster demo`) and `voicemaster demo --full`; its
table of commands adds `--text` and `--screen`. Each runs here with the README's `--fast` (as fast as it can, the
sound to a file) and a fixed seed, so that a failure plays again the same way. The quizmaster speaks SVOX Pico in
every language, set in the user's settings as the README shows (German's default already): Kokoro, the English and
French default, renders about as slowly as it speaks, and a whole evening would take as long as one
(tests/speech/voice/ hear Kokoro; English players here still speak Kokoro). How long they take: docs/benchmarks.md,
"Tests". The subprocess timeouts guard against a hang; they never measure speed.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXE = shutil.which("voicemaster", path=str(Path(sys.executable).parent))
FORMATS = ("millionaire", "moneydrop")
LANGUAGES = ("de", "en", "fr")
SEED = 31
"""The seed the money drop's narration crashed at."""
MODES = {"": "make demo", "--full": "a whole evening", "--text": "the rules engine alone", "--screen": "with its page"}
"""Each way the README runs the demo, by the switch that makes it (`make demo` runs it with none)."""
GUARD_SECONDS = {"": 1800, "--full": 3600, "--text": 300, "--screen": 1800}
"""A demo still running after this long has hung (a whole evening on a machine loaded twentyfold is the longest that
does not)."""
SETTINGS = '[speech.en]\nengine = "pico"\n\n[speech.fr]\nengine = "pico"\n'
"""The user's settings: the quizmaster in Pico."""
BROKEN = ("Traceback", "this is a bug", "Exception ignored")
"""What a demo that broke shows: a traceback, our one line naming the bug's log, one from a finalizer."""


def modes_in_readme() -> set[str]:
    """The demo commands the README writes out (`make demo` runs the Makefile's) and the switches without a value of
    its table's `voicemaster demo [...]`, but `--fast`, which every run here takes."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    written = readme + (REPO / "Makefile").read_text(encoding="utf-8") if "make demo" in readme else readme
    modes = {command.strip() for command in re.findall(r"voicemaster demo((?: --[a-z]+)*)", written)}
    for usage in re.findall(r"voicemaster demo ((?:\[[^]]*\] ?)+)", readme):
        modes |= set(re.findall(r"\[(--[a-z]+)\]", usage))
    return modes - {"--fast"}


def test_these_are_the_demo_commands_the_readme_shows() -> None:
    """A demo command added to the README is played here too (or this fails)."""
    assert modes_in_readme() == set(MODES)


def demo(mode: str, game_format: str, language: str, out: Path) -> subprocess.CompletedProcess[str]:
    """`voicemaster demo MODE --fast` as installed, in the test's user folders (set in the environment)."""
    command = [EXE] if EXE else [sys.executable, "-m", "voicemaster"]
    flags = [mode] if mode else []
    flags += ["--port", "0"] if mode == "--screen" else []  # any free port: another test may hold the default
    argv = [*command, "demo", *flags, "--fast", "--format", game_format, "--lang", language, "--seed", str(SEED)]
    return subprocess.run(
        [*argv, "--out", str(out)], capture_output=True, text=True, timeout=GUARD_SECONDS[mode], check=False
    )


def played_to_its_end(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The lines it told, once it is sure the demo ended as a newcomer expects: exit 0, nothing broken."""
    shown = f"{done.stdout}\n{done.stderr}"
    assert not [mark for mark in BROKEN if mark in shown], shown[-4000:]
    assert done.returncode == 0, shown[-4000:]
    return done.stdout.splitlines()


@pytest.fixture
def shared_cache(user_folders: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A new user each run with the quizmaster in Pico, but one cache for all (the checked bank, the rendered
    lines), as a second demo has."""
    settings = user_folders / "xdg_config_home" / "voicemaster" / "config.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(SETTINGS, encoding="utf-8")
    cache = tmp_path_factory.getbasetemp() / "readme-demos-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    return user_folders


SLOW = [pytest.mark.slow, pytest.mark.model, pytest.mark.audio]
PLAYED = [
    *(pytest.param("", f, lang, marks=SLOW, id=f"make-demo-{f}-{lang}") for f in FORMATS for lang in LANGUAGES),
    *(pytest.param("--full", f, "de", marks=SLOW, id=f"full-{f}-de") for f in FORMATS),
]
"""`make demo` in each format and language; a whole evening in each format in the default language (the short
demo already speaks every language's lines, the evening adds players and questions, not words)."""


@pytest.mark.parametrize(("mode", "game_format", "language"), PLAYED)
@pytest.mark.timeout(GUARD_SECONDS["--full"] + 60)
def test_the_demo_plays_to_its_end_told_line_by_line(
    shared_cache: Path, tmp_path: Path, mode: str, game_format: str, language: str
) -> None:
    """Heard through the real recognizer, voiced by the real voices, told in the terminal: each question (a money
    drop's card) with its header, the quizmaster's lines, what was heard, the game's end and the demo's summary."""
    del shared_cache
    told = played_to_its_end(demo(mode, game_format, language, tmp_path))
    header = "── question " if game_format == "millionaire" else "── card "
    assert any(header in line for line in told), told[-20:]
    assert sum(" Quizmaster: " in line for line in told) > 10 and any("  heard “" in line for line in told)
    assert any(" game over: " in line for line in told), told[-20:]
    assert told[-1].endswith("the rest asked again.") and (tmp_path / "session.wav").is_file()


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game_format", FORMATS)
def test_the_text_demo_plays_to_its_end(shared_cache: Path, tmp_path: Path, game_format: str, language: str) -> None:
    """No speech: the rules engine's game told as text, to its ranking."""
    del shared_cache
    told = [line for line in played_to_its_end(demo("--text", game_format, language, tmp_path)) if line]
    assert told[-1].startswith("Ranking: " if game_format == "moneydrop" else "Game over"), told[-5:]


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.audio
@pytest.mark.parametrize("game_format", FORMATS)
@pytest.mark.timeout(GUARD_SECONDS["--screen"] + 60)
def test_the_demo_with_its_page_plays_to_its_end(shared_cache: Path, tmp_path: Path, game_format: str) -> None:
    """`--screen`: the page served beside the narration, in the default language's short game."""
    del shared_cache
    told = played_to_its_end(demo("--screen", game_format, "de", tmp_path))
    assert any("http://127.0.0.1:" in line for line in told) and told[-1].endswith("the rest asked again.")
