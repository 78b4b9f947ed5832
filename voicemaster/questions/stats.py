"""Counts per language, format, level (Millionaire) or number of options (money drop), and category."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from voicemaster.questions.model import Entry, Format

Counts = dict[str, dict[str, dict[str, int]]]


def counts(entries: Iterable[Entry]) -> Counts:
    """`{"de": {"millionaire": {"1": 50, ...}, "moneydrop": {"4": 60, ...}}, ...}`, keys in natural order."""
    tally: Counter[tuple[str, str, int]] = Counter(
        (e.language, str(e.format), e.level if e.format is Format.MILLIONAIRE and e.level else len(e.options))
        for e in entries
    )
    result: Counts = {}
    for (language, kind, key), number in sorted(tally.items(), key=lambda item: _order(item[0])):
        result.setdefault(language, {}).setdefault(kind, {})[str(key)] = number
    return result


def _order(key: tuple[str, str, int]) -> tuple[str, str, int]:
    language, kind, number = key
    return (language, kind, -number if kind == Format.MONEYDROP else number)


def categories(entries: Iterable[Entry]) -> dict[str, dict[str, int]]:
    result: dict[str, Counter[str]] = {}
    for entry in entries:
        result.setdefault(f"{entry.language} {entry.format}", Counter())[entry.category] += 1
    return {group: dict(counter.most_common()) for group, counter in sorted(result.items())}


def report(entries: list[Entry]) -> str:
    lines = []
    for language, kinds in counts(entries).items():
        for kind, numbers in kinds.items():
            label = "level" if kind == Format.MILLIONAIRE else "options"
            total = sum(numbers.values())
            lines.append(
                f"{language} {kind}: {total}  (" + ", ".join(f"{label} {k}: {n}" for k, n in numbers.items()) + ")"
            )
    for group, per_category in categories(entries).items():
        lines.append(
            f"{group} categories ({len(per_category)}): " + ", ".join(f"{c} {n}" for c, n in per_category.items())
        )
    return "\n".join(lines)
