"""How long a word every voice says whole: one word of each shape and length rendered by each engine and voice (the
figure behind `speakable.LONGEST_WORD`).

    .venv/bin/python scripts/longest_word.py [--lengths 10,20,30,40,50,60,70,80,90,100,120,140]

Prints, per engine, voice and shape of word (digits, one letter repeated, "x" repeated, letters at random, a long
compound), the seconds of speech rendered for each length, or ERR where the engine failed. A word said whole grows
with its length; one cut short stops growing or shrinks, and ERR is a failure a game would stop at.
"""

from __future__ import annotations

import argparse
import random

from voicemaster.config.voice import Voice
from voicemaster.speech.audio import Audio
from voicemaster.speech.voice import kokoro, pico
from voicemaster.speech.voice.synthesis import Espeak

_LETTERS = random.Random(1)
SHAPES = {
    "digits": "1234567890" * 100,
    "one letter": "a" * 1000,
    "x": "x" * 1000,
    "random": "".join(_LETTERS.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(1000)),
    "compound": "donaudampfschifffahrtsgesellschaftskapitaenswitwenrentenversicherungsanstalt" * 15,
}
VOICES = (
    ("pico", "de", "de-DE"),
    ("pico", "en", "en-GB"),
    ("pico", "fr", "fr-FR"),
    ("kokoro", "en", "bf_emma"),
    ("kokoro", "fr", "ff_siwis"),
    ("espeak", "de", ""),
    ("espeak", "en", ""),
    ("espeak", "fr", ""),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lengths", default="10,20,30,40,50,60,70,80,90,100,120,140")
    args = parser.parse_args()
    lengths = [int(length) for length in args.lengths.split(",")]
    engines: dict[str, object] = {}
    for engine, language, name in VOICES:
        for shape, text in SHAPES.items():
            row = []
            for length in lengths:
                try:
                    seconds = f"{_render(engines, engine, language, name, text[:length]).seconds:.2f}"
                except Exception:  # a failure is the figure: the engine cannot say this word
                    seconds = "ERR"
                row.append(f"{length}:{seconds}")
            print(f"{engine:6} {name or language:8} {shape:10} " + " ".join(row), flush=True)


def _render(engines: dict[str, object], engine: str, language: str, name: str, word: str) -> Audio:
    if engine == "espeak":
        return Espeak({language: Voice(engine="espeak")}).render(word, language)
    if engine not in engines:
        engines[engine] = pico.Pico() if engine == "pico" else kokoro.Kokoro()
    loaded = engines[engine]
    assert isinstance(loaded, pico.Pico | kokoro.Kokoro)
    return loaded.speak(word, Voice(name, engine=engine))


if __name__ == "__main__":
    main()
