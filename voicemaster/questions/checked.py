"""The bank as a game and `questions validate` see it: every pack loaded and checked, each check done once.

Checking an entry (options, reading problems) depends on that entry alone, so its result is remembered by the
content hash of its pack; repeats depend on the whole bank, so theirs are remembered by the hashes of all its packs.
Both live in one small JSON file in the user's cache folder, keyed also by the checking code's own hash, so that a
changed check never answers from an old result. A cache that cannot be read or written is only slower.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from voicemaster.file_reading import READ_ERRORS, FileRefused, read_bounded, read_json
from voicemaster.questions.model import Entry, Problem
from voicemaster.questions.packs import PACK_MAX_BYTES, file_problem, load_text
from voicemaster.questions.validation import check_entry, repeats

CACHE_NAME = "questions-checked.json"
KEPT_PACKS, KEPT_BANKS = 400, 8
"""The cache holds the checks of this many packs and banks at most (the newest), some hundred kilobytes."""
_CHECKING_CODE = (
    "checked.py",
    "validation.py",
    "facts.py",
    "readability.py",
    "spoken.py",
    "packs.py",
    "model.py",
    "review.py",
)


@dataclass(frozen=True)
class Checked:
    entries: tuple[Entry, ...]
    """Every entry that loaded, in file order, the unusable ones too."""
    problems: tuple[Problem, ...]
    unusable: frozenset[int]
    """Entries (by index) with a problem of their own or repeating one before them: a game leaves them out."""

    def usable(self) -> tuple[Entry, ...]:
        return tuple(entry for index, entry in enumerate(self.entries) if index not in self.unusable)


def check_files(files: Sequence[Path], cache: Path | None = None, *, remember: bool = True) -> Checked:
    """The files' entries, checked; with results from `cache` where it has them, and (if `remember`) new ones kept
    there: an import that may yet fail writes nothing, not even to the cache."""
    cached = _Cache(cache)
    entries: list[Entry] = []
    problems: list[Problem] = []
    unusable: set[int] = set()
    digests = []
    for path in files:
        digest, found, wrong = _load(path)
        digests.append(digest)
        problems += wrong
        remembered = _remembered(digest, cached.packs, len(found)) if digest else None
        if remembered is None:
            remembered = [[i, p.field, p.message] for i, e in enumerate(found) for p in check_entry(e)]
        if digest:
            cached.packs[digest] = _CHECKED_HERE[digest] = remembered
        for index, field, message in remembered:
            problems.append(Problem(path, found[index].id, field, message))
            unusable.add(len(entries) + index)
        entries += found
    named = b"\n".join(d.encode() + b":" + os.fsencode(p) for d, p in zip(digests, files, strict=True))
    bank_key = hashlib.sha256(named).hexdigest()
    repeated = _remembered(bank_key, cached.banks, len(entries)) if all(digests) else None
    if repeated is None:
        repeated = [[r.index, r.problem.field, r.problem.message] for r in repeats(entries)]
    cached.banks[bank_key] = _CHECKED_HERE[bank_key] = repeated
    for index, field, message in repeated:
        entry = entries[index]
        assert entry.path is not None
        problems.append(Problem(entry.path, entry.id, field, message))
        unusable.add(index)
    if remember:
        cached.save()
    return Checked(tuple(entries), tuple(problems), frozenset(unusable))


def _remembered(key: str, cached: dict[str, Remembered], count: int) -> Remembered | None:
    """The checks made under `key` of `count` entries, from the cache file or from this process; None when neither
    has them (an empty list is a pack or bank without a problem), or the cache's name an entry there is not."""
    found = cached.get(key)
    if found is not None and all(index < count for index, _, _ in found):
        return found
    return _CHECKED_HERE.get(key)


def _load(path: Path) -> tuple[str, list[Entry], list[Problem]]:
    """A pack's content hash ("" if unread), entries and problems."""
    try:
        data = read_bounded(path, PACK_MAX_BYTES)
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return "", [], [Problem(path, None, None, f"not UTF-8 text ({error.reason} at byte {error.start})")]
    except FileRefused as error:
        return "", [], [Problem(path, None, None, str(error))]
    except OSError as error:
        return "", [], [Problem(path, None, None, f"cannot be read ({error.strerror or error})")]
    refused = file_problem(path)  # after reading: a device or a FIFO is named as what it is
    if refused is not None:
        return "", [], [refused]
    found, wrong = _parsed(path, text)
    return hashlib.sha256(_CODE_HASH + data).hexdigest(), list(found), list(wrong)


PARSED_KEPT = 512
"""Packs kept parsed in a process (the shipped bank is 108): `bench fuzz` checks each fuzzed import against the whole
bank, and parsing its TOML again each time was most of the run."""


@lru_cache(maxsize=PARSED_KEPT)
def _parsed(path: Path, text: str) -> tuple[tuple[Entry, ...], tuple[Problem, ...]]:
    found, wrong = load_text(path, text)
    return tuple(found), tuple(wrong)


def _code_hash() -> bytes:
    here = Path(__file__).parent
    digest = hashlib.sha256()
    for name in _CHECKING_CODE:
        with contextlib.suppress(OSError):
            digest.update((here / name).read_bytes())
    return digest.digest()


_CODE_HASH = _code_hash()
Remembered = list[list[Any]]
_CHECKED_HERE: dict[str, Remembered] = {}
"""The checks this process made or read, by the same keys as the cache file: a process that checks the bank again
(an import after a validation, a bench's every fuzzed input) does not check the same packs twice, cache or none."""


CACHE_MOST_BYTES = 20_000_000
"""A cache file larger than this is not read (ours is some hundred kilobytes), and is written afresh."""


def _well_formed(data: Any, key: str) -> dict[str, Remembered]:
    """The remembered checks under `key` that have the shape this module writes (lists of [index, field, message]);
    whatever else a damaged cache holds is left out, to be checked again."""
    table = data.get(key) if isinstance(data, dict) else None
    if not isinstance(table, dict):
        return {}
    return {
        digest: remembered
        for digest, remembered in table.items()
        if isinstance(remembered, list) and all(_a_check(item) for item in remembered)
    }


def _a_check(item: Any) -> bool:
    return (
        isinstance(item, list)
        and len(item) == 3
        and type(item[0]) is int
        and item[0] >= 0
        and isinstance(item[1], (str, type(None)))
        and isinstance(item[2], str)
    )


class _Cache:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.packs: dict[str, Remembered] = {}
        self.banks: dict[str, Remembered] = {}
        self._before: tuple[int, int] = (0, 0)
        if path is None:
            return
        try:  # a cache damaged, nested thousands deep or made a FIFO by another hand is only checked afresh
            data = read_json(path, CACHE_MOST_BYTES)
            self.packs, self.banks = _well_formed(data, "packs"), _well_formed(data, "banks")
        except READ_ERRORS:
            self.packs, self.banks = {}, {}
        self._before = (len(self.packs), len(self.banks))

    def save(self) -> None:
        if self.path is None or self._before == (len(self.packs), len(self.banks)):
            return
        packs = dict(list(self.packs.items())[-KEPT_PACKS:])
        banks = dict(list(self.banks.items())[-KEPT_BANKS:])
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(prefix=".checked.", suffix=".partial", dir=self.path.parent)
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as file:
                    json.dump({"packs": packs, "banks": banks}, file, ensure_ascii=False)
                os.replace(name, self.path)
            finally:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(name)
