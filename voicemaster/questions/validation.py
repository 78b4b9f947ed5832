"""Checks on loaded entries, each problem named by file, entry and field."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable

from rapidfuzz import fuzz, process, utils

from voicemaster.questions.model import Entry, Format, Problem
from voicemaster.questions.readability import reading_problems

OPTION_COUNTS = {Format.MILLIONAIRE: (4,), Format.MONEYDROP: (2, 3, 4)}
NEAR_DUPLICATE = 92
"""rapidfuzz token-set ratio from which two questions with the same answer count as the same question: it sees
through added words ("durch die Stadt Wien") but not through a changed subject ("Zitrone" and "Banane")."""


def validate(entries: Iterable[Entry]) -> list[Problem]:
    entries = list(entries)
    problems = [p for entry in entries for p in check_entry(entry)]
    problems += _duplicate_ids(entries)
    problems += _near_duplicates(entries)
    return problems


def check_entry(entry: Entry) -> list[Problem]:
    problems = []

    def wrong(field: str, message: str) -> None:
        assert entry.path is not None
        problems.append(Problem(entry.path, entry.id, field, message))

    allowed = OPTION_COUNTS[entry.format]
    if len(entry.options) not in allowed:
        wrong("options", f"expected {' or '.join(map(str, allowed))} options, got {len(entry.options)}")
    folded = Counter(utils.default_process(o) for o in entry.options)
    for option, count in folded.items():
        if count > 1:
            wrong("options", f"the option {option!r} appears {count} times")
    if any(not o.strip() for o in entry.options):
        wrong("options", "an option is empty")
    if entry.answer not in entry.options:
        wrong("answer", f"{entry.answer!r} is not one of the options")
    spoken = {"question": entry.question, "explanation": entry.explanation, "category": entry.category}
    spoken |= {f"options[{i}]": option for i, option in enumerate(entry.options)}
    hinted = {word for word, _ in entry.pronounce}
    for field, text in spoken.items():
        for word in hinted:
            text = text.replace(word, "")
        for message in reading_problems(text, entry.language):
            wrong(field, message)
    return problems


def _duplicate_ids(entries: list[Entry]) -> list[Problem]:
    seen: dict[str, Entry] = {}
    problems = []
    for entry in entries:
        first = seen.setdefault(entry.id, entry)
        if first is not entry:
            assert entry.path is not None
            problems.append(Problem(entry.path, entry.id, "id", f"already used in {first.path}"))
    return problems


def _near_duplicates(entries: list[Entry]) -> list[Problem]:
    """Questions of one language and format that ask the same thing: similar text with the same right answer."""
    by_language: dict[tuple[str, Format], list[Entry]] = defaultdict(list)
    for entry in entries:
        by_language[entry.language, entry.format].append(entry)
    problems = []
    for group in by_language.values():
        texts = [utils.default_process(e.question) for e in group]
        for i, text in enumerate(texts):
            matches = process.extract(
                text, texts[i + 1 :], scorer=fuzz.token_set_ratio, score_cutoff=NEAR_DUPLICATE, limit=None
            )
            for _, _, offset in matches:
                later = group[i + 1 + offset]
                if utils.default_process(later.answer) != utils.default_process(group[i].answer):
                    continue
                assert later.path is not None
                problems.append(
                    Problem(later.path, later.id, "question", f"near-duplicate of {group[i].id} ({group[i].path})")
                )
    return problems
