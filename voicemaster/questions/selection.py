"""Choosing the next question: seeded, never twice in a game, unheard first, categories spread, options shuffled.

The selector is a value: the game stores the ids it asked, and the same seed and history choose the same
questions again, so a resumed game continues with the question it was on. Once the players have heard every
question of a level, the one they heard longest ago comes back first (`Presented.heard_before` says so, and the
quizmaster tells them once a game): a household hears the whole bank before any question again. Money-drop cards
are offered two at a time by the same rule (`Bank.next_cards`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

from voicemaster.questions.model import Entry, Format
from voicemaster.rules.letters import Letter


@dataclass(frozen=True)
class Presented:
    """A question as this game reads it: options in their order for this game, the right letter to match."""

    entry: Entry
    options: tuple[str, ...]
    correct: Letter
    heard_before: bool = False
    """The players heard it in an earlier game: the level has no question left they have not heard."""


class NoQuestionLeft(LookupError):
    def __init__(self, language: str, what: str) -> None:
        super().__init__(f"No {language} question left for {what}: add a pack with more questions.")


def present(entry: Entry, rng: random.Random, *, heard_before: bool = False) -> Presented:
    order = list(range(len(entry.options)))
    if not entry.pin_order:
        rng.shuffle(order)
    options = tuple(entry.options[i] for i in order)
    return Presented(entry, options, Letter.first(len(options))[options.index(entry.answer)], heard_before)


def choose(
    pool: Iterable[Entry],
    *,
    rng: random.Random,
    asked: Iterable[str],
    heard: Mapping[str, int],
    previous_category: str | None,
) -> Entry | None:
    """One entry from `pool`: not asked in this game; never heard by the players first, else the one they heard
    longest ago (`heard` orders each question's latest hearing: the larger, the more recent); among equals, if
    possible, not from the previous question's category. None if the pool is used up."""
    asked_ids = set(asked)
    candidates = [e for e in pool if e.id not in asked_ids]
    if not candidates:
        return None
    # A question heard before spoils more than two questions of one category in a row, so freshness comes first.
    unheard = [e for e in candidates if e.id not in heard]
    if unheard:
        candidates = unheard
    else:
        oldest = min(heard[e.id] for e in candidates)
        candidates = [e for e in candidates if heard[e.id] == oldest]
    other_category = [e for e in candidates if e.category != previous_category]
    return rng.choice(sorted(other_category or candidates, key=lambda e: e.id))


@dataclass(frozen=True)
class Bank:
    entries: tuple[Entry, ...]

    def millionaire(self, language: str, level: int) -> list[Entry]:
        return list(self._millionaire.get((language, level), ()))

    def cards(self, language: str, options: int) -> list[Entry]:
        return list(self._cards.get((language, options), ()))

    def next_question(
        self, language: str, level: int, *, seed: int, asked: tuple[str, ...], heard: Mapping[str, int]
    ) -> Presented:
        """The question for `level` in a game that has asked `asked` (in order) so far, for players who heard the
        questions in `heard` in earlier games (the order of each one's latest hearing, `Store.last_heard_by`)."""
        rng = random.Random(f"{seed}/{len(asked)}/{level}")
        last = self.entry(asked[-1]) if asked else None
        previous = last.category if last else None
        entry = choose(self.millionaire(language, level), rng=rng, asked=asked, heard=heard, previous_category=previous)
        if entry is None:
            raise NoQuestionLeft(language, f"level {level}")
        return present(entry, rng, heard_before=entry.id in heard)

    def next_cards(
        self, language: str, options: int, *, seed: int, asked: tuple[str, ...], heard: Mapping[str, int]
    ) -> tuple[Presented, Presented]:
        """The two cards of different categories offered for a money-drop question with `options` options, in a
        game that has offered `asked` so far: cards the team has not heard first, then those heard longest ago
        (`heard` as for `next_question`). Only the card chosen is read, so the other stays fresh for later."""
        rng = random.Random(f"{seed}-{len(asked)}")
        pool = self.cards(language, options)
        first = choose(pool, rng=rng, asked=asked, heard=heard, previous_category=None)
        others = [e for e in pool if first is not None and e.category != first.category]
        second = choose(others, rng=rng, asked=asked, heard=heard, previous_category=None)
        if first is None or second is None:
            raise NoQuestionLeft(language, f"a money drop with {options} options in two categories")
        shuffled = random.Random(f"{seed}-{first.id}-{second.id}")
        return (
            present(first, shuffled, heard_before=first.id in heard),
            present(second, shuffled, heard_before=second.id in heard),
        )

    def entry(self, entry_id: str) -> Entry | None:
        return self._by_id.get(entry_id)

    @cached_property
    def _by_id(self) -> dict[str, Entry]:
        return {entry.id: entry for entry in self.entries}

    @cached_property
    def _millionaire(self) -> dict[tuple[str, int], list[Entry]]:
        """The questions by language and level, in bank order: a game picks from one such pool at every step."""
        found: dict[tuple[str, int], list[Entry]] = {}
        for e in self.entries:
            if e.format is Format.MILLIONAIRE and e.level is not None:
                found.setdefault((e.language, e.level), []).append(e)
        return found

    @cached_property
    def _cards(self) -> dict[tuple[str, int], list[Entry]]:
        """The money-drop cards by language and number of options, in bank order."""
        found: dict[tuple[str, int], list[Entry]] = {}
        for e in self.entries:
            if e.format is Format.MONEYDROP:
                found.setdefault((e.language, len(e.options)), []).append(e)
        return found
