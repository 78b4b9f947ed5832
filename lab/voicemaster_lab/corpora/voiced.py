"""The corpus's utterances spoken by natural voices, for `voicemaster bench asr`: the demo's players speak like this,
so the ear is measured on it next to eSpeak-NG and the recordings of people.

- `kokoro` (English, French): Kokoro's voices of the demo's players, American and British English; French in
  Kokoro's French voice and in the English voices the French demo borrows.
- `pico` (German, English, French): SVOX Pico, one voice a language made several players by pitch and rate as in the
  demo (German players speak Pico: Kokoro has no German).

Each utterance is rendered once, clean, the voices dealt in turn. Renderings are kept in the corpus folder under the
voice's name and reused; a change of the utterance or the voice makes a new file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicemaster.config.voice import Voice
from voicemaster.play.demo import PICO, PLAYER_KOKORO_VOICES
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster.speech.voice import kokoro, pico
from voicemaster_lab.corpora.corpus import mixes, trimmed
from voicemaster_lab.corpora.utterance_set import Utterance, utterances

PLAYER_RATE = 150
"""Words per minute of the demo's Kokoro players."""

Speak = Callable[[str, Voice], Audio]


@dataclass(frozen=True)
class Speakers:
    """The players' voices of one engine, and how to open it."""

    name: str
    version: str
    voices: Callable[[str], list[Voice]]
    """A language's player voices; none where the engine does not speak it."""
    opened: Callable[[], Speak | str]
    """The engine's render, or why it cannot be had."""


def _kokoro_voices(language: str) -> list[Voice]:
    return [Voice(name, rate=PLAYER_RATE, engine="kokoro") for name in PLAYER_KOKORO_VOICES.get(language, ())]


def _open_kokoro() -> Speak | str:
    files = kokoro.installed()
    if files is None:
        return "the Kokoro voice is not installed: run `voicemaster models setup`"
    return kokoro.Kokoro(files).speak


def _pico_voices(language: str) -> list[Voice]:
    names = pico.voice_names(language)
    if not names:
        return []
    return [Voice(names[n % len(names)], rate, pitch=pitch, engine="pico") for n, (pitch, rate) in enumerate(PICO)]


def _open_pico() -> Speak | str:
    return pico.Pico().speak if pico.installed() else pico.missing_message()


SPEAKERS = {
    "kokoro": Speakers("kokoro", kokoro.ENGINE_VERSION, _kokoro_voices, _open_kokoro),
    "pico": Speakers("pico", pico.ENGINE_VERSION, _pico_voices, _open_pico),
}


@dataclass(frozen=True)
class Rendered:
    utterance: Utterance
    voice: str
    """The voice's name, with its pitch and rate where they make another player of it ("de-DE 80% 136")."""
    path: Path


def generate(
    corpus: Path, languages: Sequence[str], limit: int | None = None, speakers: Speakers = SPEAKERS["kokoro"]
) -> tuple[list[Rendered], str | None]:
    """The clips of these languages in these speakers' voices (rendered now where missing), or none and why."""
    spoken = [language for language in languages if speakers.voices(language)]
    if not spoken:
        return [], None
    speak: Speak | None = None
    clips = []
    for language in spoken:
        voices = speakers.voices(language)
        chosen = utterances(language)
        if limit is not None:
            share = max(1, limit // len(spoken))
            chosen = chosen[:: max(1, len(chosen) // share)][:share]
        for turn, utterance in enumerate(chosen):
            voice = voices[turn % len(voices)]
            path = corpus / speakers.name / language / f"{utterance.id}-{_file_key(speakers, voice, utterance.text)}"
            if not path.exists():
                if speak is None:
                    opened = speakers.opened()
                    if isinstance(opened, str):
                        return [], opened
                    speak = opened
                speech = trimmed(to_float(resample(speak(utterance.text, voice), RECOGNITION_RATE)).astype(np.float64))
                clean = mixes(speech, np.random.default_rng(0))[None]  # padded and levelled as the eSpeak-NG clips
                kokoro.write_whole(path, from_float(clean, RECOGNITION_RATE).write)
            clips.append(Rendered(utterance, _described(voice, voices), path))
    return clips, None


def _file_key(speakers: Speakers, voice: Voice, text: str) -> str:
    # Kokoro's names stay as they were before Pico joined, so its renderings are reused.
    varied = "" if speakers.name == "kokoro" else f" {voice.pitch} {voice.rate}"
    key = hashlib.sha256(f"{speakers.version} {voice.name}{varied} {text}".encode()).hexdigest()[:12]
    return f"{voice.name}-{key}.wav"


def _described(voice: Voice, voices: Sequence[Voice]) -> str:
    if sum(other.name == voice.name for other in voices) == 1:
        return voice.name
    return f"{voice.name} {voice.pitch}% {voice.rate:g}"
