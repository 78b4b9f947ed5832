"""A Whisper decision's multiply-adds over people's recordings, against its CPU: the floor no float32 runtime can go
under on this machine, whatever the load.

    python -m voicemaster_lab.asr.arithmetic [--every 4] [--json]

Each real recording (every `--every`th) is decided as `bench asr` decides it, its context's trie made first as a game
makes it while the question is read; the runtime's calls are counted in multiply-adds from their shapes (Whisper
base: 512 wide, 6 layers each side, 51 865 words, 2 048 in the feed-forward layers) and the machine's own float32
matrix product is timed beside each decision on one core. Figures: docs/decisions/040-a-float32-decisions-floor.md.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from voicemaster.config.files import LANGUAGES
from voicemaster.dialogue.meaning import Context
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.runtime_protocol import Array, AudioKeys, First, Prefixes, Runtime, Tokens
from voicemaster_lab.asr import whisper_variants
from voicemaster_lab.asr.measure import ENGINE_SETUPS, per_language
from voicemaster_lab.asr.samples import real_samples

WIDTH, LAYERS, WORDS, FEED_FORWARD, MELS = 512, 6, 51_865, 2_048, 80
PER_TOKEN = LAYERS * (4 * WIDTH * WIDTH + 2 * WIDTH * WIDTH + 2 * WIDTH * FEED_FORWARD)
"""One token through the decoder's layers: self-attention's four projections, cross-attention's query and output,
the feed-forward pair (attention over the prefix and the audio is added by length)."""
PARTS = ("encoder", "listen", "starts", "rows")


class Counting:
    """A `Runtime` that counts the multiply-adds of every call it passes on to `inner`, by part of the decision."""

    def __init__(self, inner: Runtime) -> None:
        self.inner = inner
        self.counted: Counter[str] = Counter()
        self.frames = 0
        """The last utterance's encoder frames, which every decoder row attends to."""

    def encode(self, features: Array) -> Array:
        mel_frames = int(features.shape[1])
        self.frames = mel_frames // 2
        convolutions = mel_frames * MELS * 3 * WIDTH + self.frames * WIDTH * 3 * WIDTH
        per_frame = 4 * WIDTH * WIDTH + 2 * WIDTH * FEED_FORWARD
        attention = 2 * self.frames * self.frames * WIDTH
        self.counted["encoder"] += convolutions + LAYERS * (self.frames * per_frame + attention)
        return self.inner.encode(features)

    def listen(self, encoded: Array) -> AudioKeys:
        self.counted["listen"] += LAYERS * 2 * int(encoded.shape[0]) * WIDTH * WIDTH
        return self.inner.listen(encoded)

    def first(self, audio: AudioKeys, tokens: list[int], at: Sequence[int]) -> tuple[Prefixes, Array]:
        self._count_first(tokens, at)
        return self.inner.first(audio, tokens, at)

    def firsts(self, audio: AudioKeys, firsts: Sequence[First]) -> list[tuple[Prefixes, Array]]:
        for tokens, at in firsts:
            self._count_first(tokens, at)
        return self.inner.firsts(audio, firsts)

    def step_groups(self, audio: AudioKeys, groups: Sequence[tuple[Prefixes, Tokens]]) -> list[tuple[Prefixes, Array]]:
        for prefixes, tokens in groups:
            attention = LAYERS * 2 * (self.frames + prefixes.length) * WIDTH
            self.counted["rows"] += len(tokens) * (PER_TOKEN + attention + WIDTH * WORDS)
        return self.inner.step_groups(audio, groups)

    def _count_first(self, tokens: Sequence[int], at: Sequence[int]) -> None:
        length = len(tokens)
        attention = LAYERS * (2 * self.frames * WIDTH * length + length * length * WIDTH)
        self.counted["starts"] += length * PER_TOKEN + attention + len(at) * WIDTH * WORDS


@dataclass(frozen=True)
class Measured:
    """One decision: its multiply-adds by part, its CPU, and the machine's float32 rate timed beside it."""

    file: str
    counted: dict[str, int]
    cpu_ms: float
    multiply_adds_per_second: float

    @property
    def floor_ms(self) -> float:
        """The decision's CPU were every multiply-add done at the rate of a large float32 matrix product."""
        return sum(self.counted.values()) / self.multiply_adds_per_second * 1000


def float32_rate(repeats: int = 50) -> float:
    """Multiply-adds a second of a float32 product the size of the encoder's feed-forward layer, on this thread."""
    left = np.ones((256, WIDTH), np.float32)
    right = np.ones((WIDTH, FEED_FORWARD), np.float32)
    began = time.process_time()
    for _ in range(repeats):
        left @ right
    return repeats * 256 * WIDTH * FEED_FORWARD / max(time.process_time() - began, 1e-9)


def measure(every: int, languages: Sequence[str] = LANGUAGES) -> list[Measured]:
    samples, missing = real_samples(languages)
    if missing:
        raise SystemExit(missing)
    not_installed: dict[str, str] = {}
    measured = []
    for _, recognizer, own in per_language(ENGINE_SETUPS["whisper"], samples[1::every], not_installed):
        assert isinstance(recognizer, whisper_variants.WhisperVariant)
        counting = Counting(recognizer.whisper.model.runtime)
        recognizer.whisper.model.runtime = counting
        for sample in own:
            context = Context(sample.context, sample.language, sample.options, sample.names)
            recognizer.prepare(context)
            audio = Audio.read(sample.path)
            counting.counted.clear()
            began = time.process_time()
            recognizer.recognize(audio, context)
            cpu_ms = (time.process_time() - began) * 1000
            measured.append(Measured(str(sample.path), dict(counting.counted), cpu_ms, float32_rate()))
    if not_installed:
        raise SystemExit("; ".join(not_installed.values()))
    return measured


def summary(measured: Sequence[Measured]) -> dict[str, float]:
    def p50(values: Sequence[float]) -> float:
        return round(statistics.median(values), 1)

    return {
        "decisions": len(measured),
        **{f"{part}_gmacs_p50": p50([m.counted.get(part, 0) / 1e9 for m in measured]) for part in PARTS},
        "gmacs_p50": p50([sum(m.counted.values()) / 1e9 for m in measured]),
        "float32_gmacs_per_second_p50": p50([m.multiply_adds_per_second / 1e9 for m in measured]),
        "floor_ms_p50": p50([m.floor_ms for m in measured]),
        "floor_ms_p95": round(float(np.percentile([m.floor_ms for m in measured], 95)), 1),
        "cpu_ms_p50": p50([m.cpu_ms for m in measured]),
        "floor_under_250_ms": round(sum(m.floor_ms <= 250 for m in measured) / len(measured), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=4, help="every Nth real recording (default 4)")
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    figures = summary(measure(max(1, arguments.every)))
    print(json.dumps(figures) if arguments.json else "\n".join(f"{key}: {value}" for key, value in figures.items()))


if __name__ == "__main__":
    main()
