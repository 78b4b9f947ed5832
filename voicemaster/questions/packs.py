"""Reading packs from disk: every problem is collected, none stops the reading of the rest."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicemaster import paths
from voicemaster.config.files import LANGUAGES, FileRefused, parse_toml, read_bounded
from voicemaster.questions.model import Entry, Format, Pack, Problem
from voicemaster.questions.review import review, review_problems
from voicemaster.questions.spoken import unspoken
from voicemaster.rules import LEVELS
from voicemaster.speakable import visible_id

PACK_FIELDS = {"language", "format", "source", "license", "review"}
ENTRY_FIELDS = {"id", "level", "category", "question", "options", "answer", "explanation", "pin_order", "pronounce"}
ENTRY_TABLE = {Format.MILLIONAIRE: "question", Format.MONEYDROP: "card"}
OUR_SOURCE = "voicemaster"
PACK_MAX_BYTES = 20_000_000
"""A pack larger than this is refused unread (the largest we ship is some 100 kB)."""


@dataclass(frozen=True)
class Loaded:
    entries: tuple[Entry, ...]
    problems: tuple[Problem, ...]
    packs: tuple[Pack, ...] = ()
    """Each pack that could be read as one, with its blind-check record."""


def pack_files(root: Path) -> list[Path]:
    """A folder's packs (a folder named like one is looked into, not read); anything else (a file, a FIFO, a device)
    is read as one pack, and refused if it is none (`file_problem`)."""
    if not root.is_dir():
        return [root]
    return sorted(path for path in root.rglob(f"*{paths.PACK_SUFFIX}") if not path.is_dir())


def file_problem(path: Path) -> Problem | None:
    """A pack the bank would not load for its file name alone (`paths.pack_name_problem`), or None."""
    problem = paths.pack_name_problem(path)
    if problem is None:
        return None
    rename = f"rename it to {path.stem}{paths.PACK_SUFFIX}" if "UTF-8" not in problem else "rename it"
    return Problem(path, None, None, f"{problem}: {rename}")


def load(paths: Iterable[Path]) -> Loaded:
    entries: list[Entry] = []
    problems: list[Problem] = []
    packs: list[Pack] = []
    for path in paths:
        pack, found, wrong = load_pack(path)
        entries.extend(found)
        problems.extend(wrong)
        packs.extend([pack] if pack else [])
    return Loaded(tuple(entries), tuple(problems), tuple(packs))


def load_file(path: Path) -> tuple[list[Entry], list[Problem]]:
    _, entries, problems = load_pack(path)
    return entries, problems


def load_pack(path: Path) -> tuple[Pack | None, list[Entry], list[Problem]]:
    """A pack file as a whole (None if it cannot be read as one), its entries and its problems."""
    try:
        text = read_bounded(path, PACK_MAX_BYTES).decode("utf-8")
    except UnicodeDecodeError as error:
        return None, [], [Problem(path, None, None, f"not UTF-8 text ({error.reason} at byte {error.start})")]
    except FileRefused as error:
        return None, [], [Problem(path, None, None, str(error))]
    except OSError as error:
        return None, [], [Problem(path, None, None, f"cannot be read ({error.strerror or error})")]
    refused = file_problem(path)  # after reading: a device or a FIFO is named as what it is
    return (None, [], [refused]) if refused is not None else read_pack(path, text)


def load_text(path: Path, text: str) -> tuple[list[Entry], list[Problem]]:
    """A pack's entries and problems from its text; `path` only names it. Importers check what they would write."""
    _, entries, problems = read_pack(path, text)
    return entries, problems


def read_pack(path: Path, text: str) -> tuple[Pack | None, list[Entry], list[Problem]]:
    """The pack (None if its [pack] table is unusable), its entries and its problems, from its text."""
    try:
        data = parse_toml(text)
    except ValueError as error:
        return None, [], [Problem(path, None, None, str(error))]
    problems: list[Problem] = []
    pack = data.get("pack")
    if not isinstance(pack, dict):
        return None, [], [Problem(path, None, "pack", "missing the [pack] table (language, format, source, license)")]
    for key in sorted(set(pack) - PACK_FIELDS):
        problems.append(Problem(path, None, f"pack.{key}", "unknown field"))
    language, format_name = pack.get("language"), pack.get("format")
    if language not in LANGUAGES:
        problems.append(Problem(path, None, "pack.language", f"expected one of {', '.join(LANGUAGES)}"))
    if format_name not in tuple(Format):
        problems.append(Problem(path, None, "pack.format", "expected millionaire or moneydrop"))
    for key in ("source", "license"):
        if not isinstance(pack.get(key), str) or not pack[key].strip():
            problems.append(Problem(path, None, f"pack.{key}", "missing; say where the questions come from"))
    if problems:
        return None, [], problems
    kind = Format(str(format_name))
    table = ENTRY_TABLE[kind]
    for key in sorted(set(data) - {"pack", table}):
        problems.append(Problem(path, None, key, f"unknown table; a {kind} pack holds [[{table}]] entries"))
    raw_entries = data.get(table, [])
    if not isinstance(raw_entries, list):
        # `[question]` instead of `[[question]]`: one table, where the format wants an array of them.
        found = f"a single [{table}] table" if isinstance(raw_entries, dict) else shown(raw_entries)
        return None, [], [*problems, Problem(path, None, table, f"expected [[{table}]] entries, found {found}")]
    entries = []
    for index, raw in enumerate(raw_entries):
        if not isinstance(raw, dict):
            problems.append(Problem(path, f"entry #{index + 1}", None, f"expected a table, found {shown(raw)}"))
            continue
        entry, wrong = _entry(path, index, raw, str(language), kind, pack)
        problems.extend(wrong)
        if entry is not None:
            entries.append(entry)
    if not raw_entries:
        problems.append(Problem(path, None, table, "the pack has no entries"))
    recorded = pack.get("review")
    if recorded is not None:
        inconsistent = review_problems(recorded, len(raw_entries))
        problems += [Problem(path, None, field, message) for field, message in inconsistent]
    info = Pack(path, str(language), kind, len(raw_entries), review(recorded, len(raw_entries)))
    return info, entries, problems


def _entry(
    path: Path, index: int, raw: dict[str, Any], language: str, kind: Format, pack: dict[str, Any]
) -> tuple[Entry | None, list[Problem]]:
    name = str(raw["id"]) if isinstance(raw.get("id"), str) else f"entry #{index + 1}"
    if visible_id(name)[1] is not None:  # named in messages: a direction mark would turn the line around
        name = ascii(name)[1:-1]
    problems: list[Problem] = []

    def wrong(field: str, message: str) -> None:
        problems.append(Problem(path, name, field, message))

    for key in sorted(set(raw) - ENTRY_FIELDS):
        wrong(key, "unknown field")
    texts = {}
    for key in ("id", "category", "question", "answer", "explanation"):
        value = raw.get(key, "")
        if not isinstance(value, str):
            wrong(key, "expected text")
        elif key not in raw and not (key == "explanation" and pack["source"] != OUR_SOURCE):
            wrong(key, "missing")
        elif key == "id" and not value.strip():
            wrong(key, "empty")
        elif key == "id" and visible_id(value)[1] is not None:
            wrong(key, str(visible_id(value)[1]))
        elif key != "id" and unspoken(value) and not (value == "" and key == "explanation"):
            # An explanation may be left out (other people's packs); one that is there is read aloud.
            wrong(key, "empty (nothing a listener would hear)")
        elif key == "explanation" and value == "" and pack["source"] == OUR_SOURCE:
            wrong(key, "empty")
        texts[key] = value if isinstance(value, str) else ""
    # Compared as NFC: an id typed with a combining diaeresis is the id typed with "ä", and repeats it.
    texts["id"] = visible_id(texts["id"])[0]
    options = raw.get("options")
    if not isinstance(options, list) or not all(isinstance(o, str) for o in options):
        wrong("options", "expected a list of texts")
        options = []
    level = raw.get("level")
    if kind is Format.MILLIONAIRE:
        if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= LEVELS:
            wrong("level", f"expected a whole number from 1 to {LEVELS}, got {shown(level)}")
            level = None
    elif level is not None:
        wrong("level", "money-drop cards have no level")
    pin_order = raw.get("pin_order", False)
    if not isinstance(pin_order, bool):
        wrong("pin_order", "expected true or false")
    pronounce = raw.get("pronounce", {})
    if not isinstance(pronounce, dict) or not all(isinstance(v, str) for v in pronounce.values()):
        wrong("pronounce", 'expected a table of word = "how to say it"')
        pronounce = {}
    if problems:
        return None, problems
    entry = Entry(
        id=texts["id"],
        language=language,
        format=kind,
        category=texts["category"],
        question=texts["question"],
        options=tuple(options),
        answer=texts["answer"],
        explanation=texts["explanation"],
        level=level,
        pin_order=pin_order,
        pronounce=tuple(sorted(pronounce.items())),
        source=pack["source"],
        license=pack["license"],
        path=path,
    )
    return entry, problems


def shown(value: Any) -> str:
    """A value as a message may quote it: short, and never a repr that Python refuses (an int of 5000 digits)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return "a number far too large"
    if isinstance(value, dict):
        return "a table"
    shown = repr(value)
    return shown if len(shown) <= 60 else shown[:57] + "..."
