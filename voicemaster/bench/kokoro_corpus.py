"""The corpus's utterances spoken by Kokoro's natural voices, for `voicemaster bench asr`: the players of the English
and French demo speak like this, so the ear is measured on it next to eSpeak-NG and real recordings.

Each utterance is rendered once, clean, the voices dealt in turn (the demo players' voices: American and British
English; French in Kokoro's French voice and in the English voices the French demo borrows). Renderings are kept in
the corpus folder under `kokoro/` and reused; a change of the utterance or the voice makes a new file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from voicemaster.bench.corpus import Utterance, mixes, trimmed, utterances
from voicemaster.play.demo import PLAYER_KOKORO_VOICES
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster.speech.voice import kokoro
from voicemaster.speech.voice.synthesis import Voice

PLAYER_RATE = 150
"""Words per minute of the demo's players."""


@dataclass(frozen=True)
class Rendered:
    utterance: Utterance
    voice: str
    path: Path


def generate(corpus: Path, languages: Sequence[str], limit: int | None = None) -> tuple[list[Rendered], str | None]:
    """The Kokoro clips of these languages (rendered now where missing), or none and why."""
    spoken = [language for language in languages if language in PLAYER_KOKORO_VOICES]
    if not spoken:
        return [], None
    files = kokoro.installed()
    if files is None:
        return [], "the Kokoro voice is not installed: run `voicemaster models setup`"
    engine: kokoro.Kokoro | None = None
    clips = []
    for language in spoken:
        voices = PLAYER_KOKORO_VOICES[language]
        chosen = utterances(language)
        if limit is not None:
            share = max(1, limit // len(spoken))
            chosen = chosen[:: max(1, len(chosen) // share)][:share]
        for turn, utterance in enumerate(chosen):
            voice = voices[turn % len(voices)]
            key = hashlib.sha256(f"{kokoro.ENGINE_VERSION} {voice} {utterance.text}".encode()).hexdigest()[:12]
            path = corpus / "kokoro" / language / f"{utterance.id}-{voice}-{key}.wav"
            if not path.exists():
                engine = engine or kokoro.Kokoro(files)
                audio = engine.speak(utterance.text, Voice(voice, rate=PLAYER_RATE, engine="kokoro"))
                speech = trimmed(to_float(resample(audio, RECOGNITION_RATE)).astype(np.float64))
                clean = mixes(speech, np.random.default_rng(0))[None]  # padded and levelled as the eSpeak-NG clips
                kokoro.write_whole(path, from_float(clean, RECOGNITION_RATE).write)
            clips.append(Rendered(utterance, voice, path))
    return clips, None
