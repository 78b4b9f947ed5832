"""`[serve]`: the always-ready quizmaster's settings load as shipped, and a mistake names the file and the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicemaster.config.files import ConfigError
from voicemaster.config.settings import default_paths, load_settings

DEFAULTS = default_paths()[0]


def _mine(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_by_default_the_games_language_listens_first_then_the_others() -> None:
    settings = load_settings([DEFAULTS])
    assert settings.serve.listening(settings.game.language) == ("de", "en", "fr")
    assert settings.serve.listening("fr") == ("fr", "de", "en")
    assert not settings.serve.screen and settings.serve.chime


def test_a_users_serve_table_is_taken(tmp_path: Path) -> None:
    mine = _mine(
        tmp_path,
        '[serve]\nlanguages = ["en"]\nplayers = ["Anna"]\nvariant = "risiko"\nstart_phrases = ["Quizmaster, los"]\n'
        "screen = true\n",
    )
    serve = load_settings([DEFAULTS, mine]).serve
    assert serve.listening("de") == ("en",)
    assert (serve.players, serve.variant, serve.start_phrases, serve.screen) == (
        ("Anna",),
        "risiko",
        ("Quizmaster, los",),
        True,
    )


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ('[serve]\nlanguages = ["de", "es"]\n', "serve.languages[1]", "expected each of de, en, fr"),
        ('[serve]\nlanguages = ["de", "de"]\n', "serve.languages[1]", "at most once"),
        ('[serve]\nvariant = "poker"\n', "serve.variant", "expected one of"),
        ('[serve]\nstart_phrases = ["  "]\n', "serve.start_phrases[0]", "empty"),
        ('[serve]\nplayers = ["A\\u0007B"]\n', "serve.players[0]", "no control character"),
        ("[serve]\nscreen = 1\n", "serve.screen", "expected true or false"),
        ("[serve]\nwake_word = 'hey'\n", "serve.wake_word", "unknown key"),
    ],
)
def test_serve_mistakes_name_the_file_and_the_key(tmp_path: Path, text: str, key: str, expected: str) -> None:
    mine = _mine(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_settings([DEFAULTS, mine])
    message = str(raised.value)
    assert str(mine) in message and key in message and expected in message, message
