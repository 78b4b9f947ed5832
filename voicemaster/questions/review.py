"""The blind check a pack records in its `[pack.review]` table: how many of its entries a second reader answered
without the key, and what became of them.

Every entry of a checked pack was checked, and an entry dropped after the check was checked too, so
`checked == entries + dropped`. A blind answer either agreed with the key or not; an entry whose answer did not
agree was fixed (and checked again) or dropped, so `checked - agreed <= fixed + dropped`, and only those fixed:
`fixed <= checked - agreed`. An agreed entry may still be dropped (the reader's note said two options fit).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REVIEW_FIELDS = ("checked", "agreed", "fixed", "dropped")


@dataclass(frozen=True)
class Review:
    """A pack's blind-check counts, consistent with its entries (`problems` says why a table is not)."""

    checked: int
    agreed: int
    fixed: int
    dropped: int


def review_problems(raw: Any, entries: int) -> list[tuple[str, str]]:
    """(field, message) for each way `raw` (the `[pack.review]` table) is not a consistent record of a pack of
    `entries` entries; empty if it is one."""
    if not isinstance(raw, dict):
        return [("pack.review", "expected a table: checked, agreed, fixed, dropped")]
    problems = [(f"pack.review.{key}", "unknown field") for key in sorted(set(raw) - set(REVIEW_FIELDS))]
    for key in REVIEW_FIELDS:
        value = raw.get(key)
        if key not in raw:
            problems.append((f"pack.review.{key}", "missing"))
        elif not isinstance(value, int) or isinstance(value, bool) or value < 0:
            problems.append((f"pack.review.{key}", "expected a whole number, 0 or more"))
    if problems:
        return problems
    checked, agreed, fixed, dropped = (raw[key] for key in REVIEW_FIELDS)
    if checked != entries + dropped:
        problems.append(
            ("pack.review.checked", f"{checked} is not the {entries} entries in the pack plus the {dropped} dropped")
        )
    if agreed > checked:
        problems.append(("pack.review.agreed", f"{agreed} agreed of {checked} checked"))
    elif fixed > checked - agreed:
        problems.append(("pack.review.fixed", f"{fixed} fixed, but only {checked - agreed} disagreed"))
    elif checked - agreed > fixed + dropped:
        problems.append(("pack.review", f"{checked - agreed} disagreed, but only {fixed} fixed and {dropped} dropped"))
    return problems


def review(raw: Any, entries: int) -> Review | None:
    """The record in `raw`, or None if there is none or it is inconsistent (see `review_problems`)."""
    if raw is None or review_problems(raw, entries):
        return None
    return Review(*(int(raw[key]) for key in REVIEW_FIELDS))
