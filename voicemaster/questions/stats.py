"""Counts per language, format, level (Millionaire) or number of options (money drop), and category; and the
blind checks the packs record (`questions/review.py`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from voicemaster.questions.model import Entry, Format, Pack
from voicemaster.questions.review import REVIEW_FIELDS

Counts = dict[str, dict[str, dict[str, int]]]
Reviewed = dict[str, dict[str, dict[str, int]]]


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


def reviewed(packs: Iterable[Pack]) -> Reviewed:
    """`{"de": {"millionaire": {"entries": 780, "checked": 85, "agreed": 83, "fixed": 1, "dropped": 3}, ...}}`: the
    entries of each language and format and the blind checks their packs record (a pack without one adds 0)."""
    result: Reviewed = {}
    for pack in sorted(packs, key=lambda p: (p.language, p.format != Format.MILLIONAIRE)):
        tally = result.setdefault(pack.language, {}).setdefault(
            str(pack.format), dict.fromkeys(("entries", *REVIEW_FIELDS), 0)
        )
        tally["entries"] += pack.entries
        if pack.review is not None:
            for field in REVIEW_FIELDS:
                tally[field] += getattr(pack.review, field)
    return result


def as_json(entries: list[Entry], packs: Iterable[Pack]) -> dict[str, Any]:
    """The counts (`counts`), and under each language a "review" key with that language's `reviewed` figures."""
    figures: dict[str, Any] = dict(counts(entries))
    for language, kinds in reviewed(packs).items():
        figures.setdefault(language, {})["review"] = kinds
    return figures


def categories(entries: Iterable[Entry]) -> dict[str, dict[str, int]]:
    result: dict[str, Counter[str]] = {}
    for entry in entries:
        result.setdefault(f"{entry.language} {entry.format}", Counter())[entry.category] += 1
    return {group: dict(counter.most_common()) for group, counter in sorted(result.items())}


def report(entries: list[Entry], packs: Iterable[Pack] = ()) -> str:
    lines = []
    for language, kinds in counts(entries).items():
        for kind, numbers in kinds.items():
            label = "level" if kind == Format.MILLIONAIRE else "options"
            total = sum(numbers.values())
            lines.append(
                f"{language} {kind}: {total}  (" + ", ".join(f"{label} {k}: {n}" for k, n in numbers.items()) + ")"
            )
    for language, kinds in reviewed(packs).items():
        for kind, tally in kinds.items():
            unchecked = tally["entries"] - (tally["checked"] - tally["dropped"])
            lines.append(
                f"{language} {kind} blind check: {tally['entries']} entries, "
                + ", ".join(f"{tally[field]} {field}" for field in REVIEW_FIELDS)
                + f" ({unchecked} not checked)"
            )
    for group, per_category in categories(entries).items():
        lines.append(
            f"{group} categories ({len(per_category)}): " + ", ".join(f"{c} {n}" for c, n in per_category.items())
        )
    return "\n".join(lines)
