"""How long a question takes to read aloud: a sample of the bank rendered with the default voices, and the seconds
per character fitted per language (the figure behind `questions/validation.py`'s reading-time check).

    .venv/bin/python scripts/reading_time.py [--per-language 40] [--seed 1]

Each sampled entry is read as a game reads it: the question, then each option as its phrase-file line ("B: Rom."),
one sound after the other. Prints, per language and voice, the least-squares fit seconds = a x characters + b x lines
(the characters of the question and options with years as words, `validation.read_characters`; one line for the
question and one per option, each with its pauses and letter), its largest misses, and the characters that fit in
12 seconds with four options, and in 12 seconds of words alone (the validator's limit).
"""

from __future__ import annotations

import argparse
import random

import numpy as np

from voicemaster.config.voice import DEFAULT_VOICES
from voicemaster.host.lines import load as load_lines
from voicemaster.paths import QUESTIONS_DIR
from voicemaster.questions.packs import load, pack_files
from voicemaster.questions.validation import read_characters
from voicemaster.rules.letters import Letter
from voicemaster.speech.voice.speakers import Speakers

LIMIT_SECONDS = 12.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-language", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    entries = load(pack_files(QUESTIONS_DIR)).entries
    speakers = Speakers(DEFAULT_VOICES)
    for language in ("de", "en", "fr"):
        mine = sorted((e for e in entries if e.language == language), key=lambda e: e.id)
        sample = random.Random(f"{args.seed}/{language}").sample(mine, args.per_language)
        lines = load_lines(language)
        voice = speakers.engines.resolve(DEFAULT_VOICES[language], language)
        points = []
        for entry in sample:
            texts = [entry.question] + [
                lines.render("option", {"letter": letter.value, "text": option})
                for letter, option in zip(Letter.first(len(entry.options)), entry.options, strict=True)
            ]
            seconds = sum(speakers.render(text, language).seconds for text in texts)
            points.append((read_characters(entry), len(texts), seconds, entry.id))
        x = np.array([[p[0], p[1]] for p in points], dtype=float)
        y = np.array([p[2] for p in points])
        (per_character, per_line), *_ = np.linalg.lstsq(x, y, rcond=None)
        predicted = x @ np.array([per_character, per_line])
        r2 = 1 - float(np.sum((y - predicted) ** 2)) / float(np.sum((y - y.mean()) ** 2))
        worst = np.argsort(-np.abs(y - predicted))[:3]
        print(
            f"{language} ({voice.engine}:{voice.name}): {len(points)} entries, {y.min():.1f}-{y.max():.1f} s; "
            f"seconds = {per_character:.4f} x characters + {per_line:.3f} x lines (R2 {r2:.3f}, "
            f"median miss {float(np.median(np.abs(y - predicted))):.2f} s); {LIMIT_SECONDS:.0f} s with four options "
            f"at {(LIMIT_SECONDS - 5 * per_line) / per_character:.0f} characters, of words alone at "
            f"{LIMIT_SECONDS / per_character:.0f}; largest misses: "
            + ", ".join(
                f"{points[i][3]} {points[i][0]} chars {points[i][2]:.1f} s (fit {predicted[i]:.1f})" for i in worst
            )
        )


if __name__ == "__main__":
    main()
