"""`voicemaster voices` and `voicemaster say`: the voices there are, and one sentence spoken in one of them."""

from __future__ import annotations

import argparse
import errno
import json
import shutil
import subprocess
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from voicemaster.config.files import LANGUAGES, ConfigError, read_toml
from voicemaster.config.settings import Settings
from voicemaster.config.voice import SPEECH_ENGINES, Voice
from voicemaster.speakable import check_speakable
from voicemaster.speech.voice import kokoro, pico, pyttsx3_engine
from voicemaster.speech.voice.speakers import quizmaster_voice, resolved
from voicemaster.speech.voice.synthesis import ESPEAK_VOICES, Espeak, SpeechUnavailable

MBROLA_VOICES = Path("/usr/share/mbrola")


@dataclass(frozen=True)
class Listed:
    language: str
    engine: str
    voice: str
    installed: bool
    default: bool
    """The quizmaster speaks with it, as the settings stand."""


def listed(settings: Settings) -> list[Listed]:
    """Every voice of every engine for the game's languages: Kokoro's, Pico's, eSpeak-NG's own for the language, and
    those pyttsx3 reaches (the system's; on Linux eSpeak-NG's again, through its library)."""
    kokoro_installed = kokoro.installed() is not None
    pico_installed = pico.installed()
    espeak = _espeak_voices()
    system = _pyttsx3_voices()
    entries = []
    for language in LANGUAGES:
        chosen = resolved(settings.speech.get(language, Voice()), language)
        if chosen.engine == "espeak" and not chosen.name:
            chosen = replace(chosen, name=ESPEAK_VOICES[language])
        for name in kokoro.voice_names(language):
            entries.append(
                Listed(language, "kokoro", name, kokoro_installed, (chosen.engine, chosen.name) == ("kokoro", name))
            )
        for name in pico.voice_names(language):
            is_default = (chosen.engine, chosen.name) == ("pico", name)
            entries.append(Listed(language, "pico", name, pico_installed, is_default))
        for name, speaks in espeak.get(language, [(ESPEAK_VOICES[language], False)]):
            entries.append(Listed(language, "espeak", name, speaks, (chosen.engine, chosen.name) == ("espeak", name)))
        if system is None:
            entries.append(Listed(language, "pyttsx3", "", False, chosen.engine == "pyttsx3"))
            continue
        picked = _pyttsx3_pick(system, chosen, language)
        entries.extend(
            Listed(language, "pyttsx3", voice.id, True, voice.id == picked) for voice in system.voices_for(language)
        )
    return entries


def _pyttsx3_pick(system: pyttsx3_engine.Pyttsx3Speech, chosen: Voice, language: str) -> str | None:
    """The id of the pyttsx3 voice the quizmaster speaks with; None when it speaks with another engine, or names a
    voice pyttsx3 does not have (it then falls back to eSpeak-NG)."""
    if chosen.engine != "pyttsx3":
        return None
    try:
        return system.voice_id(chosen.name, language)
    except SpeechUnavailable:
        return None


def _pyttsx3_voices() -> pyttsx3_engine.Pyttsx3Speech | None:
    try:
        return pyttsx3_engine.shared()
    except SpeechUnavailable:
        return None


def _espeak_voices() -> dict[str, list[tuple[str, bool]]]:
    """eSpeak-NG's voices for each language, its default first, each with whether it can speak: `espeak-ng
    --voices=LANG` lists MBROLA voices too, which speak only where their data is installed (Debian non-free)."""
    binary = shutil.which("espeak-ng")
    found: dict[str, list[tuple[str, bool]]] = {}
    for language in LANGUAGES if binary else ():
        done = subprocess.run([binary or "", f"--voices={language}"], capture_output=True, text=True, check=False)
        default = ESPEAK_VOICES[language]
        voices = {default: True}
        for line in done.stdout.splitlines()[1:]:
            columns = line.split()
            if len(columns) < 5 or columns[4].startswith("!v/") or not columns[1].startswith(language):
                continue
            if columns[4].startswith("mb/"):
                name = columns[4].removeprefix("mb/")
                voices.setdefault(name, (MBROLA_VOICES / name.removeprefix("mb-")).exists())
            else:
                voices.setdefault(columns[1], True)
        found[language] = list(voices.items())
    return found


def voices(args: argparse.Namespace, settings: Settings) -> int:
    for entry in listed(settings):
        if args.json:
            print(json.dumps(asdict(entry)))
        else:
            marks = ("installed" if entry.installed else "not installed") + (", default" if entry.default else "")
            print(f"{entry.language}  {entry.engine:7} {entry.voice or '-':14} {marks}")
    if not args.json and kokoro.installed() is None:
        print("Kokoro's natural English and French voices: run `voicemaster models setup` to install them.")
    if not args.json and not pico.installed():
        print(pico.missing_message())
    if not args.json and _pyttsx3_voices() is None:
        print(f"The system's voices through pyttsx3: run `{pyttsx3_engine.INSTALL}.")
    return 0


def chosen_voice(spec: str | None, language: str, settings: Settings) -> Voice:
    """The voice `--voice ENGINE:NAME` names (with the configured rate and volume), else the configured one."""
    configured = settings.speech.get(language, Voice())
    if spec is None:
        return configured
    engine, _, name = spec.partition(":")
    if engine not in SPEECH_ENGINES or engine == "auto":
        known = ", ".join(engine for engine in SPEECH_ENGINES if engine != "auto")
        raise SpeechUnavailable(f"--voice {spec!r}: expected ENGINE:NAME with an engine of {known}")
    if engine == "kokoro" and name and name not in kokoro.KOKORO_VOICES:
        raise SpeechUnavailable(f"Kokoro has no voice {name!r}; `voicemaster voices` lists those there are.")
    if engine == "pico" and name and name not in pico.PICO_VOICES:
        raise SpeechUnavailable(f"Pico has no voice {name!r}; `voicemaster voices` lists those there are.")
    if engine == "pyttsx3":  # asked for by name: a missing library or voice is said, not spoken over in eSpeak-NG
        pyttsx3_engine.shared().voice_id(name, language)
    return replace(configured, engine=engine, name=name)


def check_voice(settings: Settings, language: str, files: list[Path]) -> None:
    """The configured voice for `language` exists, or a ConfigError names the file and the field that chose it: found
    at start, not when the quizmaster first speaks (in a game, after the model has loaded)."""
    voice = resolved(settings.speech.get(language, Voice()), language)
    if voice.engine == "kokoro" and voice.name and voice.name not in kokoro.KOKORO_VOICES:
        known = ", ".join(kokoro.voice_names(language)) or "none"
        problem = f"Kokoro has no voice {voice.name!r}; its {language} voices: {known} (see `voicemaster voices`)"
        raise ConfigError(_setting_file(files, language), f"speech.{language}.name", problem)
    if voice.engine == "pico" and voice.name and voice.name not in pico.PICO_VOICES:
        known = ", ".join(pico.voice_names(language)) or "none"
        problem = (
            f"Pico has no voice {voice.name!r}; its {language} voices: {known} (see `voicemaster voices`; for an "
            'eSpeak-NG voice, set engine = "espeak")'
        )
        raise ConfigError(_setting_file(files, language), f"speech.{language}.name", problem)
    if voice.engine == "espeak" and voice.name and shutil.which("espeak-ng"):
        try:
            Espeak({language: voice}).render("a", language)
        except SpeechUnavailable:
            problem = f"eSpeak-NG has no voice {voice.name!r}; `voicemaster voices` lists the voices there are"
            raise ConfigError(_setting_file(files, language), f"speech.{language}.name", problem) from None


def _setting_file(files: list[Path], language: str) -> Path:
    """The last of the settings files that names a voice for `language`: the one whose choice holds."""
    for path in reversed(files):
        if "name" in read_toml(path).get("speech", {}).get(language, {}):
            return path
    return files[0]


def say(args: argparse.Namespace, settings: Settings) -> int:
    check_speakable(args.text, "the text")  # before a voice loads: said at once, whatever the engine
    refused = _out_problem(args.out) if args.out is not None else None
    if refused is not None:  # before a voice loads, too
        print(f"voicemaster: --out {args.out}: {refused}", file=sys.stderr)
        return 2
    language = args.lang or settings.game.language
    voice = chosen_voice(args.voice, language, settings)
    # Read as the quizmaster reads: years, numerals after names and abbreviations as in a game.
    audio = quizmaster_voice({language: voice}, {}).render(args.text, language)
    if args.out is not None:
        try:
            audio.write(args.out)  # whole or not at all: a full disk leaves nothing behind
        except OSError as error:
            print(f"voicemaster: cannot write {args.out} ({error.strerror or error}); nothing was written: "
                  f"{_mend(error)}", file=sys.stderr)  # fmt: skip
            return 2
        print(f"{audio.seconds:.2f} s of speech at {audio.rate} Hz written to {args.out}")
        return 0
    from voicemaster.speech.devices.loudspeaker import Speaker
    from voicemaster.speech.devices.portaudio import divert_native_stderr

    divert_native_stderr()
    playback = Speaker().play(audio)
    try:
        playback.wait()
    except KeyboardInterrupt:
        playback.stop()
        return 130
    return 0


def _out_problem(out: Path) -> str | None:
    """Why `say` cannot write its WAV to `out` (a folder there, its folder missing), or None."""
    if out.is_dir():
        return f"is a folder: give a file name in it, such as {out / 'said.wav'}"
    folder = out.parent
    if not folder.is_dir():
        missing = "is a file, not a folder" if folder.exists() else "does not exist"
        return f"the folder {folder} {missing}: create it first (mkdir -p {folder}), or give another path"
    return None


def _mend(error: OSError) -> str:
    """What to do when a file could not be written, by the system's reason."""
    if error.errno in (errno.ENOSPC, errno.EFBIG, errno.EDQUOT):
        return "free some space, or give --out another place"
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return "make its folder writable, or give --out another place"
    return "give --out another place"
