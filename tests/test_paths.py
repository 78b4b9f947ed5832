"""Where things are: what ships is in the package; the user's things are in the platform's folders, or where the
environment variables say; a checkout keeps its models in `models/`."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from voicemaster import hints, paths
from voicemaster.config.settings import default_paths, load_settings
from voicemaster.models import manifest
from voicemaster.speech.voice import kokoro
from voicemaster.store import Store


@pytest.fixture
def home(user_folders: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user with nothing yet (`user_folders`), and no override of where the models are either."""
    for name in ("VOICEMASTER_MODELS_DIR", "VOICEMASTER_MANIFEST"):
        monkeypatch.delenv(name, raising=False)
    return user_folders


def test_what_ships_is_inside_the_package() -> None:
    package = Path(paths.__file__).parent
    for shipped in (paths.DEFAULT_CONFIG, paths.MODELS_MANIFEST, paths.QUESTIONS_DIR / "de" / "millionaire"):
        assert shipped.exists() and shipped.is_relative_to(package)
    assert {folder.name for folder in paths.PHRASES_DIR.iterdir()} == {"de", "en", "fr"}
    assert manifest.manifest_path() == paths.MODELS_MANIFEST and "whisper-base" in manifest.load_manifest()


def test_the_users_settings_file_is_read_from_the_config_folder(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_paths() == [paths.DEFAULT_CONFIG]
    mine = home / "xdg_config_home" / "voicemaster" / "config.toml"
    mine.parent.mkdir(parents=True)
    mine.write_text('[game]\nlanguage = "fr"\n', encoding="utf-8")
    assert load_settings().game.language == "fr"
    elsewhere = home / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "config.toml").write_text('[game]\nlanguage = "en"\n', encoding="utf-8")
    monkeypatch.setenv("VOICEMASTER_CONFIG_DIR", str(elsewhere))
    assert load_settings().game.language == "en"


def test_games_and_rendered_speech_go_to_the_users_data_and_cache_folders(home: Path) -> None:
    with Store() as store:
        assert store.path == home / "xdg_data_home" / "voicemaster" / "voicemaster.db"
    assert kokoro.cache_dir() == paths.cache_dir() == home / "xdg_cache_home" / "voicemaster"


def test_a_checkout_keeps_its_models_in_models_and_an_installed_program_in_the_data_folder(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = paths.checkout()
    assert checkout is not None and (checkout / "pyproject.toml").is_file()
    assert manifest.models_dir() == checkout / "models"
    assert manifest.shared_dir() is None  # nothing outside the checkout unless named
    monkeypatch.setenv("VOICEMASTER_MODEL_MIRROR", str(home / "mirror"))
    assert manifest.shared_dir() == home / "mirror"
    monkeypatch.setenv("VOICEMASTER_MODELS_DIR", str(home / "mine"))
    assert manifest.models_dir() == home / "mine"
    monkeypatch.delenv("VOICEMASTER_MODELS_DIR")
    monkeypatch.setattr(paths, "checkout", lambda: None)  # as from a wheel: the folder above is site-packages
    assert manifest.models_dir() == home / "xdg_data_home" / "voicemaster" / "models"


def test_missing_pieces_name_the_command_for_this_installation(monkeypatch: pytest.MonkeyPatch) -> None:
    assert "make demo" in hints.python_extra("whisper")
    monkeypatch.setattr(paths, "checkout", lambda: None)
    installed = hints.python_extra("whisper")
    assert "pipx inject voicemaster" in installed and "faster-whisper" in installed
    if sys.platform == "linux":
        monkeypatch.setattr(shutil, "which", lambda tool: "/usr/bin/dnf" if tool == "dnf" else None)
        assert hints.system_package("portaudio") == "run `sudo dnf install portaudio`"
        monkeypatch.setattr(shutil, "which", lambda _tool: None)
        assert "libportaudio2" in hints.system_package("portaudio")
