"""The speech corpus for `voicemaster bench asr`: what players say (corpora/utterances/*.toml), spoken by eSpeak-NG.

Every utterance is rendered with a few voices, speeds and pitches: a seeded, balanced share of their cross product,
not all of it, so the corpus stays small enough to decode in minutes. A rendering is cut the way a voice-activity
detector cuts (0.2 s of silence either side) and written three times: clean, and mixed with car-like noise at 10
and 5 dB SNR. The three share the rendering and the noise, so what accuracy the noisy clips lose is the noise's
doing and nothing else.

`manifest.jsonl` lists one clip a line; `corpus.json` records what made the files, so that `generate` with the same
settings, utterances and eSpeak-NG reuses them instead of rendering again.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import random
import shutil
import struct
import subprocess
from collections import Counter
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from enum import StrEnum
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from voicemaster.dialogue.meaning import ContextName
from voicemaster.hints import system_package
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster.speech.voice.synthesis import SpeechUnavailable
from voicemaster_lab.corpora.utterance_set import INTENTS, Utterance, utterances

Floats = npt.NDArray[np.float64]
Size = Literal["full", "small"]

GENERATOR_VERSION = 1
"""Raise it whenever a change here changes the audio, so that old corpora are rendered again."""
MANIFEST = "manifest.jsonl"
STAMP = "corpus.json"
LANGUAGES = ("de", "en", "fr")

# Two female and two male eSpeak-NG variants per language, and the accents a player of that language may have.
VOICES = {
    "de": ("de", "de+f3", "de+m3", "de+f2"),
    "en": ("en-gb", "en-us", "en-gb+f3", "en-us+f2"),
    "fr": ("fr", "fr+f3", "fr+m3", "fr+f2"),
}
SPEEDS = (140, 175, 210)
"""Words per minute: a careful player, an ordinary one, one in a hurry."""
PITCHES = (30, 40, 50, 60, 70)
SIZES = ("full", "small")
FULL_RENDERINGS = 150
"""Renderings per language in the full corpus: every utterance once, and a second voice for as many as this leaves.
The small corpus renders one utterance per intent (and two non-commands), once."""
SNRS_DB = (10.0, 5.0)
PADDING_SECONDS = 0.2
"""Silence before and after the speech, as a voice-activity detector leaves it."""
SPEECH_RMS = 0.1
"""Speech level (-20 dBFS), lowered where a noisy mix would otherwise clip."""
PEAK = 0.9


class Noise(StrEnum):
    CLEAN = "clean"
    CAR = "car"


@dataclass(frozen=True)
class Clip:
    """One line of the manifest: a WAV file and what a recognizer should make of it."""

    file: str
    """Relative to the manifest's folder."""
    language: str
    context: ContextName
    options: tuple[str, ...]
    names: tuple[str, ...]
    intent: str
    value: str | None
    text: str
    voice: str
    speed: int
    pitch: int
    noise: Noise
    snr_db: float | None
    hard: bool
    utterance: str
    """The utterance's id: the clean and noisy clips of one rendering share it and `rendering`."""
    rendering: int

    def path(self, manifest: Path) -> Path:
        return manifest.parent / self.file

    def record(self) -> dict[str, Any]:
        return {**asdict(self), "options": list(self.options), "names": list(self.names)}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Clip:
        return cls(
            **{
                **record,
                "context": ContextName(record["context"]),
                "noise": Noise(record["noise"]),
                "options": tuple(record["options"]),
                "names": tuple(record["names"]),
            }
        )


# Which renderings


@dataclass(frozen=True)
class Rendering:
    utterance: Utterance
    number: int
    """1 for an utterance's first rendering, 2 for its second (another voice)."""
    voice: str
    speed: int
    pitch: int


def plan(language: str, size: Size, seed: int) -> tuple[Rendering, ...]:
    """Which utterances to render, and how: a seeded choice, balanced in voices, speeds and pitches."""
    rng = random.Random(f"voicemaster corpus {seed} {language}")
    pool = list(utterances(language))
    rng.shuffle(pool)
    by_intent = {intent: [u for u in pool if u.intent == intent] for intent in INTENTS}
    if size == "small":
        # One utterance per intent, and for non-command speech one hard case and one plain one.
        unknown = by_intent["unknown"]
        firsts = [found[0] for intent, found in by_intent.items() if found and intent != "unknown"]
        firsts += [next(u for u in unknown if u.hard), next(u for u in unknown if not u.hard)]
        seconds: list[Utterance] = []
    else:
        firsts = pool
        # Second voices go round the intents in turn, so that no intent gets them all.
        rounds = itertools.zip_longest(*by_intent.values())
        seconds = [u for turn in rounds for u in turn if u is not None][: max(0, FULL_RENDERINGS - len(pool))]
    voices, speeds, pitches = list(VOICES[language]), list(SPEEDS), list(PITCHES)
    for values in (voices, speeds, pitches):
        rng.shuffle(values)
    # Each factor is dealt in its own cycle; the cycle lengths (4, 3, 5) have no common factor, so every 60 turns
    # deal the whole cross product, and any run of turns is balanced in each factor on its own.
    first_voice: dict[str, int] = {}
    chosen = []
    for turn, utterance in enumerate(firsts):
        first_voice[utterance.id] = turn % len(voices)
        chosen.append(Rendering(utterance, 1, voices[turn % len(voices)], *_dealt(turn, speeds, pitches)))
    used = Counter(r.voice for r in chosen)
    for turn, utterance in enumerate(seconds, start=len(firsts)):
        # Another voice than the first: the least used of the others, which keeps the voices balanced.
        others = [v for i, v in enumerate(voices) if i != first_voice[utterance.id]]
        voice = min(others, key=lambda v: used[v])
        used[voice] += 1
        chosen.append(Rendering(utterance, 2, voice, *_dealt(turn, speeds, pitches)))
    return tuple(sorted(chosen, key=lambda r: (r.utterance.id, r.number)))


def _dealt(turn: int, speeds: list[int], pitches: list[int]) -> tuple[int, int]:
    return speeds[turn % len(speeds)], pitches[turn % len(pitches)]


# Sound


def car_noise(count: int, rate: int, rng: np.random.Generator) -> Floats:
    """Noise as heard inside a moving car, unit RMS: low-frequency dominated, like the real thing.

    Road rumble (pink noise low-passed somewhere between 200 and 400 Hz, swelling slowly as the surface changes), the
    engine's hum (a firing frequency of 30-42 Hz and two harmonics, wandering as the engine speed does) and a little
    broadband road and wind hiss.
    """
    t = np.arange(count) / rate
    freqs = np.fft.rfftfreq(count, 1 / rate).astype(np.float64)
    pink = 1 / np.sqrt(np.maximum(freqs, 1.0))
    rumble = _shaped(rng, count, pink * _band(freqs, 20.0, rng.uniform(200.0, 400.0), order=4))
    rumble *= 1 + 0.2 * np.sin(2 * np.pi * rng.uniform(0.1, 0.4) * t + rng.uniform(0, 2 * np.pi))
    wander = 0.08 * np.sin(2 * np.pi * rng.uniform(0.05, 0.2) * t + rng.uniform(0, 2 * np.pi))
    wander += 0.03 * np.sin(2 * np.pi * rng.uniform(0.3, 0.7) * t + rng.uniform(0, 2 * np.pi))
    phase = 2 * np.pi * np.cumsum(rng.uniform(30.0, 42.0) * (1 + wander)) / rate
    hum = sum(level * np.sin(k * phase + rng.uniform(0, 2 * np.pi)) for k, level in ((1, 1.0), (2, 0.6), (3, 0.35)))
    hiss = _shaped(rng, count, pink * _band(freqs, 100.0, 6000.0, order=2))
    noise = _unit(rumble) + 0.5 * _unit(np.asarray(hum, dtype=np.float64)) + 0.12 * _unit(hiss)
    return _unit(noise)


def _band(freqs: Floats, low: float, high: float, *, order: int) -> Floats:
    """Butterworth band-pass magnitude."""
    rising = (freqs / low) ** (2 * order)
    return np.sqrt(rising / (1 + rising)) / np.sqrt(1 + (freqs / high) ** (2 * order))


def _shaped(rng: np.random.Generator, count: int, magnitude: Floats) -> Floats:
    spectrum = np.fft.rfft(rng.standard_normal(count)) * magnitude
    return np.fft.irfft(spectrum, count)


def _unit(samples: Floats) -> Floats:
    scaled: Floats = samples / np.sqrt(np.mean(samples**2))
    return scaled


def trimmed(samples: Floats) -> Floats:
    """The speech without eSpeak-NG's own silences, keeping 10 ms so that no soft onset or ending is lost."""
    loud = np.flatnonzero(np.abs(samples) > 0.01 * np.max(np.abs(samples)))
    margin = RECOGNITION_RATE // 100
    return samples[max(0, loud[0] - margin) : loud[-1] + margin + 1]


def mixes(speech: Floats, rng: np.random.Generator) -> dict[float | None, Floats]:
    """The padded clip clean (key None) and at each SNR, all at one gain: what differs between them is the noise.

    SNR is measured over the speech, not the padding, where the noise plays on alone.
    """
    pad = round(PADDING_SECONDS * RECOGNITION_RATE)
    clean = np.concatenate([np.zeros(pad), speech, np.zeros(pad)])
    speech_power = np.mean(speech**2)
    noise = car_noise(len(clean), RECOGNITION_RATE, rng)
    noise_power = np.mean(noise[pad : pad + len(speech)] ** 2)
    found: dict[float | None, Floats] = {None: clean}
    for snr in SNRS_DB:
        found[snr] = clean + noise * np.sqrt(speech_power / (noise_power * 10 ** (snr / 10)))
    gain = min([SPEECH_RMS / np.sqrt(speech_power), *(PEAK / np.max(np.abs(m)) for m in found.values())])
    return {snr: samples * gain for snr, samples in found.items()}


def _speak(binary: str, rendering: Rendering) -> Audio:
    command = [binary, "-v", rendering.voice, "-s", str(rendering.speed), "-p", str(rendering.pitch), "--stdout"]
    # The text goes on stdin so that a sentence starting with "-" is never taken for an option.
    text = rendering.utterance.text.encode()
    done = subprocess.run([*command, "--stdin"], input=text, check=True, capture_output=True)
    return _from_wav_stream(done.stdout)


def _from_wav_stream(data: bytes) -> Audio:
    """A WAV written to a pipe: eSpeak-NG cannot seek back to fill in the sizes, so the data runs to the end."""
    if data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise ValueError("eSpeak-NG did not write a WAV stream")
    at, rate = 12, 0
    while at + 8 <= len(data):
        chunk, size = data[at : at + 4], int.from_bytes(data[at + 4 : at + 8], "little")
        if chunk == b"fmt ":
            _, channels, rate = struct.unpack_from("<HHI", data, at + 8)
            if channels != 1 or struct.unpack_from("<H", data, at + 22)[0] != 16:
                raise ValueError("eSpeak-NG did not write 16-bit mono")
        elif chunk == b"data":
            samples = data[at + 8 :]
            return Audio(samples[: len(samples) // 2 * 2], rate)
        at += 8 + size + size % 2
    raise ValueError("eSpeak-NG wrote no audio")


def _render(rendering: Rendering, binary: str, out_dir: Path, seed: int) -> list[Clip]:
    u = rendering.utterance
    speech = trimmed(to_float(resample(_speak(binary, rendering), RECOGNITION_RATE)).astype(np.float64))
    # Seeded by the rendering itself, so the noise does not depend on what else is generated, or in which order.
    key = hashlib.sha256(f"{seed} {u.id} {rendering.number}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(key[:8], "little"))
    clips = []
    for snr, samples in mixes(speech, rng).items():
        condition = "clean" if snr is None else f"car{snr:02.0f}"
        file = f"{u.language}/{u.id.split('-')[1]}-{u.intent}-{rendering.number}-{condition}.wav"
        from_float(samples, RECOGNITION_RATE).write(out_dir / file)
        clips.append(
            Clip(
                file=file,
                language=u.language,
                context=u.context,
                options=u.options,
                names=u.names,
                intent=u.intent,
                value=u.value,
                text=u.text,
                voice=rendering.voice,
                speed=rendering.speed,
                pitch=rendering.pitch,
                noise=Noise.CLEAN if snr is None else Noise.CAR,
                snr_db=snr,
                hard=u.hard,
                utterance=u.id,
                rendering=rendering.number,
            )
        )
    return clips


# The corpus


def generate(out_dir: Path, languages: Sequence[str] = LANGUAGES, *, size: Size = "full", seed: int = 0) -> Path:
    """Render the corpus into `out_dir` (or reuse what is there, if it was made the same way); the manifest's path."""
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}, not {size!r}")
    if unknown := [language for language in languages if language not in VOICES]:
        raise ValueError(f"no voices for {', '.join(unknown)}; languages: {', '.join(VOICES)}")
    binary = shutil.which("espeak-ng")
    if binary is None:
        raise SpeechUnavailable(f"eSpeak-NG is not installed: {system_package('espeak-ng')}.")
    manifest, stamp_path = out_dir / MANIFEST, out_dir / STAMP
    stamp = _stamp(binary, languages, size, seed)
    if _reusable(manifest, stamp_path, stamp):
        return manifest
    # Forget the old corpus first: a run interrupted from here on must not look finished.
    stamp_path.unlink(missing_ok=True)
    if manifest.exists():
        for clip in load(manifest):
            clip.path(manifest).unlink(missing_ok=True)
        manifest.unlink()
    for language in languages:
        (out_dir / language).mkdir(parents=True, exist_ok=True)
    renderings = [r for language in languages for r in plan(language, size, seed)]
    # eSpeak-NG runs as a process and numpy's FFTs release the GIL, so threads are enough to use every core.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        batches = pool.map(lambda r: _render(r, binary, out_dir, seed), renderings)
        clips = [clip for batch in batches for clip in batch]
    partial = manifest.with_suffix(".partial")
    partial.write_text("".join(json.dumps(c.record(), ensure_ascii=False) + "\n" for c in clips), "utf-8")
    partial.replace(manifest)
    stamp_path.write_text(json.dumps({**stamp, "clips": len(clips)}, indent=1) + "\n", "utf-8")
    return manifest


def load(manifest: Path) -> tuple[Clip, ...]:
    with manifest.open(encoding="utf-8") as lines:
        return tuple(Clip.from_record(json.loads(line)) for line in lines if line.strip())


def _stamp(binary: str, languages: Iterable[str], size: Size, seed: int) -> dict[str, Any]:
    """What the audio depends on: change any of it and the corpus is rendered again."""
    data = hashlib.sha256()
    for language in languages:
        data.update((resources.files("voicemaster_lab.corpora") / "utterances" / f"{language}.toml").read_bytes())
    version = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True).stdout.strip()
    return {
        "generator": GENERATOR_VERSION,
        "languages": list(languages),
        "size": size,
        "seed": seed,
        "utterances_sha256": data.hexdigest(),
        "espeak": version,
        "numpy": np.__version__,
    }


def _reusable(manifest: Path, stamp_path: Path, stamp: dict[str, Any]) -> bool:
    try:
        written = json.loads(stamp_path.read_text("utf-8"))
        clips = load(manifest)
    except (OSError, ValueError, TypeError, KeyError):
        return False
    same = {k: v for k, v in written.items() if k != "clips"} == stamp and written.get("clips") == len(clips)
    return same and all(clip.path(manifest).exists() for clip in clips)
