"""Importing other people's questions: Open Trivia DB JSON and a plain CSV. Bad input writes nothing.

CSV header (UTF-8, comma-separated): level,category,question,correct,wrong1,wrong2,wrong3[,explanation]
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicemaster.questions.model import Entry, Format, Problem
from voicemaster.questions.validation import check_entry, validate

MAX_BYTES = 20_000_000
"""Larger files are refused before reading: a question file that big is almost certainly not one."""
DIFFICULTY_LEVELS = {"easy": (1, 5), "medium": (6, 10), "hard": (11, 15)}
CSV_FIELDS = ("level", "category", "question", "correct", "wrong1", "wrong2", "wrong3")
OPENTDB_LICENSE = "CC-BY-SA-4.0"


class ImportFailed(ValueError):
    """The input cannot be imported; nothing was written."""


@dataclass
class Imported:
    entries: list[Entry] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    """Why questions were left out, and how many for each reason."""


def read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ImportFailed(f"{path}: no such file") from None
    if size > MAX_BYTES:
        raise ImportFailed(f"{path}: {size // 1_000_000} MB is too large (at most {MAX_BYTES // 1_000_000} MB)")
    try:
        return path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ImportFailed(f"{path}: not UTF-8 text (byte {error.start}); save it as UTF-8 and try again") from None


def from_opentdb(path: Path, language: str) -> Imported:
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise ImportFailed(f"{path}: not JSON ({error.msg}, line {error.lineno})") from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise ImportFailed(f"{path}: expected an Open Trivia DB object with a 'results' list")
    imported = Imported()
    per_band: Counter[str] = Counter()
    for number, item in enumerate(results):
        if not isinstance(item, dict):
            raise ImportFailed(f"{path}: results[{number}] is not an object")
        missing = [k for k in ("category", "type", "difficulty", "question", "correct_answer", "incorrect_answers")
                   if k not in item]  # fmt: skip
        if missing:
            raise ImportFailed(f"{path}: results[{number}] lacks {', '.join(missing)}")
        if item["type"] == "boolean":
            imported.skipped["true/false question"] += 1
            continue
        band = DIFFICULTY_LEVELS.get(str(item["difficulty"]))
        if band is None:
            raise ImportFailed(f"{path}: results[{number}].difficulty: expected easy, medium or hard")
        # Spread each difficulty evenly over its five levels, in file order.
        low, high = band
        level = low + per_band[item["difficulty"]] % (high - low + 1)
        per_band[item["difficulty"]] += 1
        wrong = [html.unescape(str(w)) for w in item["incorrect_answers"]]
        _add(imported, path, language, "opentdb", OPENTDB_LICENSE, level, _category(str(item["category"])),
             html.unescape(str(item["question"])), html.unescape(str(item["correct_answer"])), wrong, "")  # fmt: skip
    return finish(imported)


def _category(raw: str) -> str:
    """'Entertainment: Books' is spoken as 'Books'; 'Science &amp; Nature' as 'Science, Nature'."""
    return html.unescape(raw).split(": ")[-1].replace(" & ", ", ")


def from_csv(path: Path, language: str, license_id: str = "unknown") -> Imported:
    reader = csv.DictReader(io.StringIO(read_text(path)))
    header = tuple(reader.fieldnames or ())
    if header[: len(CSV_FIELDS)] != CSV_FIELDS:
        raise ImportFailed(f"{path}: the header must start with {','.join(CSV_FIELDS)}[,explanation]")
    imported = Imported()
    for row in reader:
        line = reader.line_num
        try:
            level = int(row["level"])
        except (TypeError, ValueError):
            raise ImportFailed(f"{path}: line {line}: level must be a whole number from 1 to 15") from None
        if any(row.get(k) is None for k in CSV_FIELDS):
            raise ImportFailed(f"{path}: line {line}: expected {len(CSV_FIELDS)} or more columns")
        wrong = [row["wrong1"], row["wrong2"], row["wrong3"]]
        _add(imported, path, language, path.stem, license_id, level, row["category"], row["question"],
             row["correct"], wrong, row.get("explanation") or "")  # fmt: skip
    return finish(imported)


def _add(
    imported: Imported,
    path: Path,
    language: str,
    source: str,
    license_id: str,
    level: int,
    category: str,
    question: str,
    correct: str,
    wrong: list[str],
    explanation: str,
) -> None:
    digest = hashlib.sha256(question.encode()).hexdigest()[:10]
    entry = Entry(
        id=f"{language}-{source}-{digest}",
        language=language,
        format=Format.MILLIONAIRE,
        category=category.strip(),
        question=question.strip(),
        options=(correct.strip(), *(w.strip() for w in wrong)),
        answer=correct.strip(),
        explanation=explanation.strip(),
        level=level,
        source=source,
        license=license_id,
        path=path,
    )
    problems = check_entry(entry)
    if problems:
        imported.skipped[_reason(problems[0])] += 1
    else:
        imported.entries.append(entry)


def finish(imported: Imported) -> Imported:
    """Leave out repeats within the file (same id or near-duplicate question), keeping the first."""
    repeated = {p.entry for p in validate(imported.entries)}
    kept = [e for e in imported.entries if e.id not in repeated]
    skipped = imported.skipped + Counter({"question: repeats an earlier one": len(imported.entries) - len(kept)})
    return Imported(kept, skipped)


def _reason(problem: Problem) -> str:
    """The kind of problem, without the quoted specifics, so that like problems are counted together."""
    return f"{problem.field}: {problem.message.split(chr(39))[0].strip()}"


def to_toml(entries: list[Entry]) -> str:
    """A pack file in our format (questions/FORMAT.md)."""
    first = entries[0]
    lines = [
        "[pack]",
        f"language = {_string(first.language)}",
        'format = "millionaire"',
        f"source = {_string(first.source)}",
        f"license = {_string(first.license)}",
    ]
    for entry in entries:
        lines += [
            "",
            "[[question]]",
            f"id = {_string(entry.id)}",
            f"level = {entry.level}",
            f"category = {_string(entry.category)}",
            f"question = {_string(entry.question)}",
            "options = [" + ", ".join(_string(o) for o in entry.options) + "]",
            f"answer = {_string(entry.answer)}",
            f"explanation = {_string(entry.explanation)}",
        ]
    return "\n".join(lines) + "\n"


def _string(text: Any) -> str:
    """A TOML basic string; JSON's escapes are a subset TOML accepts."""
    return json.dumps(str(text), ensure_ascii=False)


def write_pack(entries: list[Entry], out: Path) -> None:
    """Write atomically: a half-written pack would break validation of the whole bank."""
    if not entries:
        raise ImportFailed("no question could be imported; nothing written")
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_suffix(".toml.partial")
    partial.write_text(to_toml(entries), encoding="utf-8")
    partial.replace(out)
