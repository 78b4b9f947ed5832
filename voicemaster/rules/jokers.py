"""The chance parts of the jokers (docs/rules.md, "Jokers"). Every function takes the random generator it may use."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable

from voicemaster.rules.ladders import LEVELS
from voicemaster.rules.letters import Letter


def fifty_fifty(available: tuple[Letter, ...], correct: Letter, rng: random.Random) -> tuple[Letter, ...]:
    """The wrong options to remove: two of them, or fewer if fewer than two would then be left to choose from."""
    wrong = [letter for letter in available if letter != correct]
    removable = min(2, len(available) - 2)
    return tuple(sorted(rng.sample(wrong, max(0, removable))))


def simulated_audience(
    available: tuple[Letter, ...], correct: Letter, level: int, rng: random.Random
) -> tuple[tuple[Letter, int], ...]:
    """Whole percentages per available option, summing to 100.

    The audience "knows" the answer with a probability that falls from 75 % on level 1 to 12 % on level 15; the
    rest of the room guesses. So the right option usually leads early on, and often does not at the top.
    """
    knowledge = 0.75 - 0.63 * (level - 1) / (LEVELS - 1)
    knowledge = min(0.95, max(0.0, knowledge + rng.uniform(-0.1, 0.1)))
    guess_weights = [rng.uniform(0.5, 1.5) for _ in available]
    total_guess = sum(guess_weights)
    shares = [
        (1 - knowledge) * weight / total_guess + (knowledge if letter == correct else 0.0)
        for letter, weight in zip(available, guess_weights, strict=True)
    ]
    return tuple(zip(available, _whole_percentages(shares), strict=True))


def _whole_percentages(shares: list[float]) -> list[int]:
    """Largest-remainder rounding, so the announced figures add up to exactly 100."""
    raw = [share * 100 / sum(shares) for share in shares]
    whole = [int(value) for value in raw]
    by_remainder = sorted(range(len(raw)), key=lambda i: raw[i] - whole[i], reverse=True)
    for i in by_remainder[: 100 - sum(whole)]:
        whole[i] += 1
    return whole


def tally_in_random_order(votes: Iterable[Letter], rng: random.Random) -> tuple[tuple[Letter, int], ...]:
    """Votes per letter, announced in an order that gives nothing away."""
    counts = list(Counter(votes).items())
    rng.shuffle(counts)
    return tuple(counts)
