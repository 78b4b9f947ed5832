"""Settings from TOML files: the shipped `voicemaster/data/config/default.toml`, then the user's own, validated into
frozen dataclasses.

Each file is checked on its own first, so an error names the file that has it, the key, and what was expected.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from voicemaster import paths
from voicemaster.config.files import CURRENCIES, LANGUAGES, ConfigError, read_toml
from voicemaster.config.voice import DEFAULT_VOICES, SPEECH_ENGINES, Voice
from voicemaster.rules import (
    LADDERS,
    LEVELS,
    VARIANTS,
    AudienceForm,
    DecodeError,
    GameSettings,
    Ladder,
    Mode,
    PhoneForm,
    from_data,
)
from voicemaster.rules.errors import InvalidSetup
from voicemaster.rules.moneydrop import MoneyDropSettings
from voicemaster.speakable import speech_problem
from voicemaster.speech.barge_in.settings import BargeInSettingError, BargeInSettings

CONFIG_ENVIRONMENT = "VOICEMASTER_CONFIG_DIR"


ASK = "ask"
"""A variant of "ask": the quizmaster offers the variants by voice before the game."""


@dataclass(frozen=True)
class GameConfig:
    language: str = "de"
    variant: str = "classic"
    players: tuple[str, ...] = ()
    mode: Mode = Mode.EVERYONE
    audience: str = "auto"
    phone: str = "auto"
    rounds: int = 0
    ladder: str = ""
    confirm_from_level: int = 1


@dataclass(frozen=True)
class MoneyDropConfig:
    time_limit_seconds: int = 0


@dataclass(frozen=True)
class LadderConfig:
    currency: str
    amounts: tuple[int, ...]
    safety_levels: tuple[int, ...] = (5, 10)


@dataclass(frozen=True)
class FrontEndConfig:
    """The acoustic front end between the microphone and hearing (`speech.frontend`): each part can be turned off.
    Written in the `[speech]` table beside the voices (`echo_cancel = false`)."""

    echo_cancel: bool = True
    """Cancel the quizmaster's own voice in the microphone, with what the loudspeaker plays as reference."""
    noise_suppression: bool = False
    """Suppress steady noise (a car's, a fan's) before hearing: off, as Whisper understood less with it."""
    barge_in_filter: bool = True
    """With `echo_cancel`: listen for a player talking over the quizmaster in the bins where the microphone rises over
    our echo as predicted from what the loudspeaker plays, which keeps them whole where the canceller takes them out
    with our voice; off, the canceller's residual alone judges."""


@dataclass(frozen=True)
class ServeConfig:
    """`[serve]`: the always-ready quizmaster (`voicemaster serve`), waiting until someone asks for a game."""

    languages: tuple[str, ...] = ()
    """The languages a start phrase is heard in, the first one's said first; empty: `[game] language`, then every
    other language."""
    start_phrases: tuple[str, ...] = ()
    """More ways of asking for a Millionaire game, beside the phrase files' own, in any listening language."""
    variant: str = ""
    """The rules of a game started so; empty: `[game] variant`."""
    players: tuple[str, ...] = ()
    """Who plays a game started so; empty: `[game] players`, and if that is empty too, asked by voice."""
    screen: bool = False
    """Show the page for the room (`play --screen`) from the start, while waiting too."""
    screen_host: str = "127.0.0.1"
    """Where the page listens: 0.0.0.0 lets phones and a TV on the network watch."""
    phones: bool = False
    """Players' phones as their microphones (`play --phones`): the page shows where they join while waiting, and a
    phone joined then is a new player's microphone once the game asks for names."""
    chime: bool = True
    """A short chime before "Quizmaster bereit": the room hears it is there."""

    def listening(self, first: str) -> tuple[str, ...]:
        """The languages that listen, `first` (`[game] language`) leading when none are set."""
        return self.languages or (first, *(language for language in LANGUAGES if language != first))


FRONT_END_KEYS = tuple(switch.name for switch in fields(FrontEndConfig))
"""The `[speech]` keys that set the front end; every other key of `[speech]` is a language's voice."""


@dataclass(frozen=True)
class Settings:
    game: GameConfig = GameConfig()
    moneydrop: MoneyDropConfig = MoneyDropConfig()
    ladders: dict[str, LadderConfig] = field(default_factory=dict)
    speech: dict[str, Voice] = field(default_factory=lambda: dict(DEFAULT_VOICES))
    heard_cue: bool = True
    """`[speech] heard_cue`: a soft tick as soon as the end of a player's speech is heard, before it is understood,
    so that a player who cannot see the screen knows the microphone caught them."""
    front_end: FrontEndConfig = FrontEndConfig()
    """Read from `[speech]`'s own keys (`FRONT_END_KEYS`), not from a table of its own."""
    serve: ServeConfig = ServeConfig()
    barge_in: BargeInSettings = field(default_factory=BargeInSettings)
    """`[barge_in]`: when a player talking over the quizmaster stops it; the shipped numbers are the benches'
    (`speech.barge_in.settings`), a table here changes them for a room, or for a bench measuring others."""

    def ladder(self, name: str) -> Ladder:
        if name in LADDERS:
            return LADDERS[name]
        spec = self.ladders[name]
        return Ladder(name, spec.currency, spec.amounts, ()).with_safety_levels(*spec.safety_levels)

    def money_drop_settings(self, teams: tuple[str, ...]) -> MoneyDropSettings:
        return MoneyDropSettings(teams=teams, time_limit_seconds=self.moneydrop.time_limit_seconds or None)

    def game_settings(self, players: tuple[str, ...], seed: int) -> GameSettings:
        """The rules' settings for a game with these players; "auto" joker forms fit the number of players."""
        game = self.game
        variant = VARIANTS[game.variant]
        if game.ladder:
            variant = variant.with_ladder(self.ladder(game.ladder))
        together = len(players) > 1
        audience = game.audience if game.audience != "auto" else ("players" if together else "simulated")
        phone = game.phone if game.phone != "auto" else ("partner" if together else "call")
        return GameSettings(
            variant=variant,
            players=players,
            mode=game.mode,
            audience_form=AudienceForm(audience),
            phone_form=PhoneForm(phone),
            rounds=game.rounds or None,
            seed=seed,
        )


def user_config_file() -> Path:
    """The user's own settings: `config.toml` in $VOICEMASTER_CONFIG_DIR, else in the platform's config folder."""
    configured = os.environ.get(CONFIG_ENVIRONMENT)
    return (Path(configured).expanduser() if configured else paths.config_dir()) / "config.toml"


def default_paths() -> list[Path]:
    """The shipped defaults, then the user's own file if there is one. Anything at its name counts (a symbolic link
    that leads nowhere or round to itself too): read, it is an error that says so, where skipping it would play on
    the defaults without a word."""
    user_file = user_config_file()
    return [paths.DEFAULT_CONFIG] + ([user_file] if os.path.lexists(user_file) else [])


def load_settings(paths: list[Path] | None = None) -> Settings:
    merged: dict[str, Any] = {}
    for path in default_paths() if paths is None else paths:
        data = _speech_lifted(path, read_toml(path))
        merged = _merge(merged, data)
        _check(path, data, known_ladders=set(merged.get("ladders", {})))
    return from_data(Settings, merged)


SPEECH_SWITCHES = ("heard_cue",)
"""Keys of `[speech]` that are switches of the whole program, not a language's voice: they become `Settings` fields."""


def _speech_lifted(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    """The file's data with `[speech]`'s own keys moved to the fields they fill: its switches to the top
    (`SPEECH_SWITCHES`), the front end's to `front_end` (`FRONT_END_KEYS`); written anywhere else, each is an
    unknown key, as in the file's own words."""
    for key, example in (("front_end", "echo_cancel"), *((switch, switch) for switch in SPEECH_SWITCHES)):
        if key in data:
            raise ConfigError(path, key, f"unknown key; it is set in [speech] ({example} = false)")
    speech = data.get("speech")
    if not isinstance(speech, dict) or not any(key in speech for key in (*SPEECH_SWITCHES, *FRONT_END_KEYS)):
        return data
    lifted = {
        **data,
        "speech": {key: value for key, value in speech.items() if key not in (*SPEECH_SWITCHES, *FRONT_END_KEYS)},
    }
    lifted |= {key: speech[key] for key in SPEECH_SWITCHES if key in speech}
    front_end = {key: speech[key] for key in FRONT_END_KEYS if key in speech}
    return lifted | {"front_end": front_end} if front_end else lifted


def _check(path: Path, data: dict[str, Any], known_ladders: set[str]) -> None:
    try:
        settings = from_data(Settings, data)
    except DecodeError as error:
        lifted = error.path in SPEECH_SWITCHES or error.path.startswith("front_end.")
        where = "speech." + error.path.removeprefix("front_end.") if lifted else error.path
        raise ConfigError(path, where, error.problem) from None
    except InvalidSetup as error:
        raise ConfigError(path, "(settings)", str(error)) from None
    except BargeInSettingError as error:
        raise ConfigError(path, f"barge_in.{error.name}", error.problem) from None
    game, keys = settings.game, data.get("game", {})
    choices = {
        "language": (game.language, LANGUAGES),
        "variant": (game.variant, (*VARIANTS, ASK)),
        "audience": (game.audience, ("auto", *AudienceForm)),
        "phone": (game.phone, ("auto", *PhoneForm)),
    }
    for key, (value, allowed) in choices.items():
        if key in keys and value not in allowed:
            raise ConfigError(path, f"game.{key}", f"expected one of {', '.join(allowed)}, got {value!r}")
    for key, number, (low, high, unit) in _numbers(settings):
        if not low <= number <= high:
            raise ConfigError(path, key, f"expected {low} to {high}{unit}, got {_shown(number)}")
    for key, text in _texts(settings):
        if _CONTROL.search(text) or len(text) > MAX_TEXT:
            got = "a control character" if _CONTROL.search(text) else f"{len(text)} characters"
            raise ConfigError(
                path, key, f"expected a name of at most {MAX_TEXT} characters, no control character; got {got}"
            )
    for key, names in (("game.players", game.players), ("serve.players", settings.serve.players)):
        for index, name in enumerate(names):  # said aloud: the rule of what may be spoken
            problem = speech_problem(name)
            if problem is not None:
                raise ConfigError(path, f"{key}[{index}]", f"{name!a} cannot be said: {problem}")
    _check_serve(path, settings.serve, data.get("serve", {}))
    if game.ladder and game.ladder not in LADDERS and game.ladder not in known_ladders:
        known = ", ".join([*LADDERS, *sorted(known_ladders)])
        raise ConfigError(path, "game.ladder", f"no ladder {game.ladder!r}; known: {known}")
    for language, voice in settings.speech.items():
        if language not in LANGUAGES:
            raise ConfigError(path, f"speech.{language}", f"expected a language of {', '.join(LANGUAGES)}")
        if voice.engine not in SPEECH_ENGINES:
            raise ConfigError(path, f"speech.{language}.engine", f"expected one of {', '.join(SPEECH_ENGINES)}")
    for name, spec in settings.ladders.items():
        if spec.currency not in CURRENCIES:
            raise ConfigError(path, f"ladders.{name}.currency", f"expected one of {', '.join(CURRENCIES)}")
        try:
            settings.ladder(name)
        except InvalidSetup as error:
            raise ConfigError(path, f"ladders.{name}", str(error)) from None


def _check_serve(path: Path, serve: ServeConfig, keys: dict[str, Any]) -> None:
    """`[serve]`: languages that exist, each once; a variant there is; start phrases that can be heard."""
    for index, language in enumerate(serve.languages):
        if language not in LANGUAGES or language in serve.languages[:index]:
            raise ConfigError(
                path, f"serve.languages[{index}]", f"expected each of {', '.join(LANGUAGES)} at most once"
            )
    if "variant" in keys and serve.variant not in ("", *VARIANTS, ASK):
        raise ConfigError(path, "serve.variant", f"expected one of {', '.join((*VARIANTS, ASK))} or empty")
    for index, phrase in enumerate(serve.start_phrases):
        problem = speech_problem(phrase) if phrase.strip() else "it is empty"
        if problem is not None or _CONTROL.search(phrase) or len(phrase) > MAX_TEXT:
            why = problem or f"at most {MAX_TEXT} characters, no control character"
            raise ConfigError(path, f"serve.start_phrases[{index}]", f"{phrase!a} cannot be a start phrase: {why}")


RANGES: dict[str, tuple[int, int, str]] = {
    "game.rounds": (0, 100, " rounds (0: until someone wins or you stop)"),
    "game.confirm_from_level": (1, LEVELS, ""),
    "moneydrop.time_limit_seconds": (0, 3600, " seconds (0: no time limit)"),
    "rate": (80, 450, " words a minute"),
    "volume": (0, 200, ""),
    "pitch": (50, 200, " percent of the voice's own pitch"),
    "amount": (1, 1_000_000_000, ""),
    "safety_level": (1, LEVELS - 1, " (a level below the top one)"),
}
"""Every number in the settings, from its smallest to its largest sensible value."""
MAX_TEXT = 100
"""The longest name (a player's, a voice's) the settings take: a name is said aloud and heard."""
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _numbers(settings: Settings) -> Iterator[tuple[str, int, tuple[int, int, str]]]:
    """Each number of the settings: its key, its value and its range."""
    yield "game.rounds", settings.game.rounds, RANGES["game.rounds"]
    yield "game.confirm_from_level", settings.game.confirm_from_level, RANGES["game.confirm_from_level"]
    yield "moneydrop.time_limit_seconds", settings.moneydrop.time_limit_seconds, RANGES["moneydrop.time_limit_seconds"]
    for language, voice in settings.speech.items():
        yield f"speech.{language}.rate", voice.rate, RANGES["rate"]
        yield f"speech.{language}.volume", voice.volume, RANGES["volume"]
        yield f"speech.{language}.pitch", voice.pitch, RANGES["pitch"]
    for name, spec in settings.ladders.items():
        for index, amount in enumerate(spec.amounts):
            yield f"ladders.{name}.amounts[{index}]", amount, RANGES["amount"]
        for index, level in enumerate(spec.safety_levels):
            yield f"ladders.{name}.safety_levels[{index}]", level, RANGES["safety_level"]


def _texts(settings: Settings) -> Iterator[tuple[str, str]]:
    yield from ((f"game.players[{index}]", name) for index, name in enumerate(settings.game.players))
    yield from ((f"serve.players[{index}]", name) for index, name in enumerate(settings.serve.players))
    yield from ((f"speech.{language}.name", voice.name) for language, voice in settings.speech.items())


def _shown(value: int) -> str:
    """A number as a message may quote it: 10^21 as such, never a repr of thousands of digits."""
    return str(value) if abs(value) < 10**12 else f"about 10^{len(str(abs(value))) - 1}"


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged
