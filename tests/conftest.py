"""What the whole suite shares: Hypothesis runs derandomized, so a test run is reproducible and the coverage figure
does not wander; the fixtures that cost time to build, built once a session (the question bank, one Whisper
recognizer per language, the voice activity detector); a user's own folders, fresh for each test that asks.

The tiers (`make test-fast`, `make test`, `make test-slow`): a test that loads a speech model is marked `model`, one
that renders, plays or records sound `audio`, one that lays out the page in Chromium `browser`, a long real-time one
`slow`. A test using the fixtures below (or `browser`) is marked by them; a module that builds its own model or sound
says so with `pytestmark`.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from voicemaster.paths import QUESTIONS_DIR
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.selection import Bank

if TYPE_CHECKING:  # the speech stack loads only in the tiers that use it
    from voicemaster.speech.hearing.voice_activity import SileroVad
    from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer

settings.register_profile("repeatable", derandomize=True)
settings.load_profile("repeatable")

MODEL_FIXTURES = frozenset({"whisper", "vad"})
AUDIO_FIXTURES = frozenset({"espeak", "pulse"})
BROWSER_FIXTURES = frozenset({"browser"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks each test by what it uses: the tiers follow from the fixtures, and cannot drift from them."""
    for item in items:
        used = set(getattr(item, "fixturenames", ()))
        if used & MODEL_FIXTURES:
            item.add_marker(pytest.mark.model)
        if used & AUDIO_FIXTURES:
            item.add_marker(pytest.mark.audio)
        if used & BROWSER_FIXTURES:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def bank() -> Bank:
    """The question packs the product ships, read once (a `Bank` is frozen: no test can change it for another)."""
    return Bank(tuple(load(pack_files(QUESTIONS_DIR)).entries))


@pytest.fixture(scope="session")
def whisper() -> Callable[[str], WhisperRecognizer]:
    """The installed Whisper model for a language ("de", "en", "fr"), loaded once a session per language.

    A test that needs it and finds none fails, saying what to install: the suite hears with real models."""
    from voicemaster.models.verify import require_model
    from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer

    @functools.cache
    def loaded(folder: Path) -> WhisperRecognizer:
        return WhisperRecognizer(folder)

    # By the model's folder: a multilingual model (Whisper base) is loaded once for every language it hears.
    return lambda language: loaded(require_model("whisper", language))


@pytest.fixture(scope="session")
def vad() -> SileroVad:
    """Silero's voice activity detector, as the microphone uses it."""
    from voicemaster.speech.hearing.voice_activity import SileroVad

    return SileroVad()


@pytest.fixture
def user_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with nothing yet: HOME and the XDG config, data and cache folders below `tmp_path / "user"` (named
    `home`, `xdg_config_home`, ...), and none of voicemaster's folder overrides but the models' (the tests hear with
    the installed models). Returns that user's folder."""
    user = tmp_path / "user"
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, str(user / name.lower()))
    for name in ("VOICEMASTER_CONFIG_DIR", "VOICEMASTER_QUESTIONS"):
        monkeypatch.delenv(name, raising=False)
    return user


@pytest.fixture
def children() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The processes a test starts (it appends them): any still running when the test ends is killed."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
            process.wait()
