"""SVOX Pico, a natural German voice (and English and French ones), run in-process through PyPI's `ttspico`.

Pico speaks de-DE, en-US, en-GB and fr-FR with one female voice each, 16 kHz mono, Apache-2.0; `ttspico` 0.3.2 is an
sdist holding Pico's C sources and its language files (the `voice` extra builds it with gcc). Whisper base heard the
demo's German player phrases in Pico's voice 17 of 17, in eSpeak-NG's 11 of 17 (docs/speech.md), so Pico is the
German quizmaster's voice and the German players'. It renders about 30 times faster than real time, so no
render-ahead is needed, but `Speakers` keeps its lines on disk as it does Kokoro's.

What ttspico gives is shaped before use (measured here, see `render`):
- volume 50, not ttspico's 100: at 100 the loudest vowels clip; 50 is what Debian's pico2wave uses;
- `<` is escaped: Pico reads `<tag ...>` as its own markup (`<volume level="0">` would silence the rest);
- the 0.5-0.76 s of silence Pico puts after a sentence is cut to what Kokoro leaves (about 0.1 s), so a reply follows
  a player's words as promptly in German as in English and French;
- a gentle high-shelf brightens a voice with little energy above 4 kHz.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from voicemaster.config.voice import Voice
from voicemaster.hints import python_extra
from voicemaster.speakable import Unspeakable
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import from_float
from voicemaster.speech.voice.synthesis import SpeechUnavailable

SAMPLE_RATE = 16_000
ENGINE_VOLUME = 50
"""Pico's own volume (0-500, ttspico's default 100): at 100 "Ist das Ihre endgültige Antwort?" reaches full scale and
clips; at 50 its peak is 18 391 of 32 767. The voice's `volume` scales from there."""
NORMAL_RATE = 160
"""The words a minute that Pico's rate 100 % stands for, as for the other engines: a voice's `rate` means the same
with any engine."""
SLOWEST, FASTEST = 20, 500
"""Pico's rate in percent, as the engine accepts it."""
LOWEST_PITCH, HIGHEST_PITCH = 50, 200
"""Pico's pitch in percent, as the engine accepts it."""
SHELF = 0.5
"""The high-shelf: y = x + SHELF * (x - (x[n-1] + x[n+1]) / 2), a symmetric three-tap filter (no phase shift) whose gain
is 1 + SHELF * (1 - cos w): +0.3 dB at 1 kHz, +1.2 dB at 2 kHz, +3.5 dB at 4 kHz, +6 dB at 8 kHz. Measured on three
host sentences: the share of energy at 4-8 kHz rises from -27.6 dB to -21.9 dB (klettres' German speakers: -25.9 dB,
eSpeak-NG: -20.3 dB); the peak moves from 21 101 to 21 163; Whisper hears the demo phrases as well as without it
(tests/speech/test_pico.py, `bench voice`)."""
TRIM_LEVEL = 100
"""A sample above this (-50 dBFS) is sound; Pico's sentence-end pause stays below 32."""
TAIL_SECONDS = 0.1
"""Silence kept after the last sound: what Kokoro leaves, so the sentences of a line join the same way."""
ENGINE_VERSION = f"ttspico 0.3.2, volume {ENGINE_VOLUME}, shelf {SHELF}, tail {TAIL_SECONDS}"
"""Part of the key of every rendered line in the cache: a change to the shaping renders anew."""
WORD_JOINER = "\u2060"
"""Put after `<`, it keeps Pico from starting a markup tag there, and is not spoken: "3 <\u2060 4" sounds as "3 < 4"
("drei kleiner vier"), and "<\u2060volume level='0'>" is read out rather than obeyed."""


@dataclass(frozen=True)
class PicoVoice:
    name: str
    language: str
    """The language voicemaster offers it for."""


VOICE_LIST = (
    PicoVoice("de-DE", "de"),
    PicoVoice("en-GB", "en"),
    PicoVoice("en-US", "en"),
    PicoVoice("fr-FR", "fr"),
)
"""Pico also speaks es-ES and it-IT, languages voicemaster has no game in."""
PICO_VOICES = {voice.name: voice for voice in VOICE_LIST}
DEFAULT_VOICE = {"de": "de-DE", "en": "en-GB", "fr": "fr-FR"}


def voice_names(language: str) -> list[str]:
    return [voice.name for voice in VOICE_LIST if voice.language == language]


def installed() -> bool:
    """Whether ttspico can be imported (without loading it: it is a C extension)."""
    if "ttspico" in sys.modules:  # loaded already, or blocked (None)
        return sys.modules["ttspico"] is not None
    return importlib.util.find_spec("ttspico") is not None


def speaks(language: str) -> bool:
    return bool(voice_names(language)) and installed()


def missing_message() -> str:
    return (
        f"SVOX Pico (the natural German voice) is not installed: {python_extra('voice')}; ttspico compiles with "
        "a C compiler and Python's headers (Debian: build-essential, python3-dev)."
    )


def escaped(text: str) -> str:
    """The text as Pico should read it: no `<` starts one of its markup tags."""
    return text.replace("<", "<" + WORD_JOINER)


class Pico:
    """Renders sentences in Pico's voices; one engine per voice, loaded when first used (about 0.05 s each)."""

    def __init__(self) -> None:
        try:
            import ttspico
        except ImportError:
            raise SpeechUnavailable(missing_message()) from None
        self._module: Any = ttspico
        self._engines: dict[str, Any] = {}
        # The C engine keeps its state between calls: one render at a time (the render-ahead thread and a line needed
        # as the program ends may meet).
        self._lock = threading.Lock()

    def speak(self, text: str, voice: Voice) -> Audio:
        if voice.name not in PICO_VOICES:
            raise SpeechUnavailable(f"Pico has no voice {voice.name!r}; `voicemaster voices` lists those it has.")
        with self._lock:
            engine = self._engine(voice.name)
            engine.set_property("rate", _within(round(100 * voice.rate / NORMAL_RATE), SLOWEST, FASTEST))
            engine.set_property("pitch", _within(voice.pitch, LOWEST_PITCH, HIGHEST_PITCH))
            try:
                samples = engine.speak(escaped(text)) or b""  # None for a text with nothing to say
            except RuntimeError:  # "Text to speech failed": a word it cannot take (`speakable.LONGEST_WORD`)
                raise Unspeakable(f"Pico cannot say {text[:40]!r}: shorten its words.") from None
        return shaped(np.frombuffer(samples, dtype="<i2"), voice.volume)

    def _engine(self, name: str) -> Any:
        if name not in self._engines:
            try:
                engine = self._module.TtsEngine(name, lang_dir=_language_dir(name))
            except RuntimeError:  # its language files are missing: a broken installation
                raise SpeechUnavailable(f"Pico's {name} language files are missing: {python_extra('voice')}.") from None
            engine.set_property("volume", ENGINE_VOLUME)
            self._engines[name] = engine
        return self._engines[name]


def shaped(samples: npt.NDArray[np.int16], volume: int) -> Audio:
    """Pico's samples brightened, trimmed of the long silence at the end, and scaled to the voice's volume (100: as
    rendered)."""
    signal = samples.astype(np.float64) / 32768.0
    if len(signal) >= 3:
        signal = np.convolve(signal, [-SHELF / 2, 1 + SHELF, -SHELF / 2], mode="same")
    return from_float(signal[: sound_end(signal)] * (volume / 100), SAMPLE_RATE)


def sound_end(signal: npt.NDArray[np.float64]) -> int:
    """Where the clip ends: TAIL_SECONDS after its last sound."""
    loud = np.nonzero(np.abs(signal) > TRIM_LEVEL / 32768.0)[0]
    if len(loud) == 0:
        return 0
    return min(len(signal), int(loud[-1]) + 1 + round(TAIL_SECONDS * SAMPLE_RATE))


def _language_dir(name: str) -> str | None:
    """Where pip put Pico's language files: ttspico looks only in `sys.prefix`, which a `pip install --user` is not."""
    try:
        files = metadata.files("ttspico") or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:
        if file.name == f"{name}_ta.bin":
            return str(Path(str(file.locate())).resolve().parent) + "/"
    return None


def _within(value: int, lowest: int, highest: int) -> int:
    return min(max(value, lowest), highest)
