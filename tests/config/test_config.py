"""Configuration: the shipped defaults load; a user's mistakes are named by file, key and expectation."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from voicemaster.config.files import ConfigError
from voicemaster.config.settings import default_paths, load_settings
from voicemaster.rules import AudienceForm, PhoneForm

DEFAULTS = default_paths()[0]


def user_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_defaults_load_and_make_game_settings() -> None:
    settings = load_settings([DEFAULTS])
    solo = settings.game_settings(("Anna",), seed=1)
    assert solo.audience_form is AudienceForm.SIMULATED and solo.phone_form is PhoneForm.CALL
    group = settings.game_settings(("Anna", "Ben"), seed=1)
    assert group.audience_form is AudienceForm.PLAYERS and group.phone_form is PhoneForm.PARTNER
    assert group.variant.name == "classic" and group.rounds is None


def test_a_users_file_overrides_the_defaults(tmp_path: Path) -> None:
    mine = user_file(tmp_path, '[game]\nvariant = "risiko"\nrounds = 3\nladder = "punkte"\n')
    settings = load_settings([DEFAULTS, mine])
    game = settings.game_settings(("Anna",), seed=0)
    assert game.variant.name == "risiko" and game.rounds == 3
    assert game.variant.ladder.currency == "points" and game.variant.ladder.top_prize == 10_000


@pytest.mark.parametrize(
    ("text", "key", "expected"),
    [
        ("[game]\ncolour = 'red'\n", "game.colour", "unknown key"),
        ("[game]\nrounds = 'three'\n", "game.rounds", "whole number"),
        ("[game]\nrounds = true\n", "game.rounds", "whole number"),
        ("[game]\nplayers = 'Anna'\n", "game.players", "list"),
        ("[game]\nvariant = 'wwm'\n", "game.variant", "classic"),
        ("[game]\nlanguage = 'es'\n", "game.language", "de, en, fr"),
        ("[game]\nmode = 'party'\n", "game.mode", "'show'"),
        ("[game]\nladder = 'nowhere'\n", "game.ladder", "eur-de"),
        ("[ladders.short]\ncurrency = 'EUR'\namounts = [1, 2, 3]\n", "ladders.short", "15 amounts"),
        ("[moneydrop]\ntime_limit_seconds = -5\n", "moneydrop.time_limit_seconds", "expected 0 to 3600 seconds"),
        # Issue 25: every number has a sensible range, and the message gives it.
        ("[game]\nconfirm_from_level = 99\n", "game.confirm_from_level", "expected 1 to 15, got 99"),
        ("[game]\nrounds = 1000000000000000000000\n", "game.rounds", "expected 0 to 100 rounds"),
        ("[moneydrop]\ntime_limit_seconds = 100000000000000000000\n", "moneydrop.time_limit_seconds", "to 3600"),
        ("[speech.fr]\nvolume = 201\n", "speech.fr.volume", "expected 0 to 200, got 201"),
        (
            "[ladders.big]\ncurrency = 'EUR'\namounts = [" + ", ".join(str(10**n) for n in range(15)) + "]\n",
            "ladders.big.amounts[10]",
            "expected 1 to 1000000000",
        ),
        # Issue 25, item 19: a safety level past the last level was "this is a bug (IndexError)".
        (
            "[ladders.mine]\ncurrency = 'points'\namounts = [" + ", ".join(str(n) for n in range(1, 16)) + "]\n"
            "safety_levels = [5, 16]\n",
            "ladders.mine.safety_levels[1]",
            "expected 1 to 14 (a level below the top one), got 16",
        ),
        # ... and a voice name with a NUL byte ended `say` so.
        ('[speech.de]\nname = "de\\u0000x"\n', "speech.de.name", "no control character"),
        ("[game]\nplayers = ['" + "A" * 5000 + "']\n", "game.players[0]", "at most 100 characters"),
        ("[game\n", "(file)", "not valid TOML"),
        # Barge-in's numbers, changed for a room or by a bench: each in its range, a number, no table left over.
        ("[barge_in]\nplayer_share = 1.5\n", "barge_in.player_share", "between 0 and 1, not 1.5"),
        ("[barge_in]\nresidual_seconds = -1\n", "barge_in.residual_seconds", "between 0 and 5"),
        ("[barge_in]\nresidual_seconds = 'soon'\n", "barge_in.residual_seconds", "expected a number"),
        ("[barge_in]\nfloor_margin_db = nan\n", "barge_in.floor_margin_db", "expected a number"),
        ("[barge_in]\nfloor_margin_db = inf\n", "barge_in.floor_margin_db", "expected a number"),
        ("[barge_in]\nloudness = 3\n", "barge_in.loudness", "unknown key"),
    ],
)
def test_mistakes_name_the_file_the_key_and_what_was_expected(
    tmp_path: Path, text: str, key: str, expected: str
) -> None:
    mine = user_file(tmp_path, text)
    with pytest.raises(ConfigError) as raised:
        load_settings([DEFAULTS, mine])
    message = str(raised.value)
    assert str(mine) in message and key in message and expected in message


def test_barge_in_can_be_changed_for_a_room_and_the_rest_stays_as_shipped(tmp_path: Path) -> None:
    mine = user_file(tmp_path, "[barge_in]\nresidual_seconds = 0.25\nfloor_margin_db = 10\n")
    barge_in = load_settings([DEFAULTS, mine]).barge_in
    shipped = load_settings([DEFAULTS]).barge_in
    assert (barge_in.residual_seconds, barge_in.floor_margin_db) == (0.25, 10.0)
    assert barge_in.player_share == shipped.player_share and barge_in.filter == shipped.filter


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_settings([tmp_path / "absent.toml"])


def test_voices_come_from_config_and_bad_values_are_named(tmp_path: Path) -> None:
    english = load_settings([DEFAULTS]).speech["en"]
    assert (english.engine, english.name) == ("auto", "")  # the most natural voice installed for the language
    mine = user_file(tmp_path, "[speech.de]\nname = 'de'\nrate = 1000\n")
    with pytest.raises(ConfigError, match=r"mine.toml: speech.de.rate: expected 80 to 450 words a minute, got 1000"):
        load_settings([DEFAULTS, mine])


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda path: path.symlink_to(path.name), "a symbolic link that leads round to itself"),
        (lambda path: path.symlink_to("gone.toml"), "a symbolic link to gone.toml, which does not exist"),
    ],
    ids=["loop", "dangling"],
)
def test_a_users_settings_file_that_is_a_broken_link_is_an_error_not_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], None], said: str
) -> None:
    """Skipped, the game would run on the defaults without a word: the user's settings would silently not hold."""
    monkeypatch.setenv("VOICEMASTER_CONFIG_DIR", str(tmp_path))
    make(tmp_path / "config.toml")
    with pytest.raises(ConfigError, match=rf"config.toml: \(file\): {said}.*: remove"):
        load_settings()


@pytest.mark.parametrize("name", ["\u200b", "\u0301", "A" * 60])
def test_a_player_name_that_cannot_be_said_is_named(tmp_path: Path, name: str) -> None:
    path = user_file(tmp_path, f'[game]\nplayers = ["Anna", "{name}"]\n')
    with pytest.raises(ConfigError, match=r"mine.toml: game.players\[1\]: .* cannot be said: "):
        load_settings([DEFAULTS, path])
