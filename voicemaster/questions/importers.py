"""Importing other people's questions: Open Trivia DB JSON and a plain CSV. Bad input writes nothing.

CSV header (UTF-8, comma-separated): level,category,question,correct,wrong1,wrong2,wrong3[,explanation]
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from voicemaster.file_reading import READ_ERRORS, Unreadable, parse_json, problem
from voicemaster.file_reading import read_text as read_bounded_text
from voicemaster.questions.model import Entry, Format, Problem
from voicemaster.questions.packs import load_text, shown
from voicemaster.questions.spoken import unspoken
from voicemaster.questions.validation import check_entry, repeats
from voicemaster.questions.writing import ImportFailed as ImportFailed
from voicemaster.questions.writing import to_toml
from voicemaster.questions.writing import write_pack as write_pack
from voicemaster.rules import LEVELS

PROGRESS_EVERY = 1000
"""A long import tells how far it is every so many questions."""
MAX_BYTES = 20_000_000
"""Larger files are refused before reading: a question file that big is almost certainly not one."""
DIFFICULTY_LEVELS = {"easy": (1, 5), "medium": (6, 10), "hard": (11, 15)}
CSV_FIELDS = ("level", "category", "question", "correct", "wrong1", "wrong2", "wrong3")
OPENTDB_LICENSE = "CC-BY-SA-4.0"
SURROGATE = re.compile("[\ud800-\udfff]")
"""JSON may escape half a UTF-16 pair ("\\ud800"); such text cannot be written as UTF-8, nor spoken."""


@dataclass
class Imported:
    entries: list[Entry] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)
    """Why questions were left out, and how many for each reason."""
    left_out: list[str] = field(default_factory=list)
    """Each question left out, where it is in the input and why: "line 4: level: 99 is not 1-15"."""
    found_at: dict[str, str] = field(default_factory=dict)
    """Where in the input each kept entry is, by id."""

    def leave_out(self, where: str, reason: str, detail: str | None = None) -> None:
        self.skipped[reason] += 1
        self.left_out.append(f"{where}: {detail or reason}")


def read_text(path: Path) -> str:
    """The input file's text (`file_reading.read_text`: a regular file of at most MAX_BYTES, UTF-8, a byte-order
    mark dropped); `ImportFailed` naming the file and what is wrong with it."""
    try:
        return read_bounded_text(path, MAX_BYTES)
    except READ_ERRORS as error:
        raise ImportFailed(f"{path}: {problem(error)}") from None


Progress = Callable[[int, int], None]
"""(questions checked, questions in all): called now and then on a long import."""


def from_opentdb(path: Path, text: str, language: str, progress: Progress | None = None) -> Imported:
    """The questions of an Open Trivia DB file (`text`, as `read_text(path)` read it), each checked alone: `finish`
    joins them to a bank. A file that is no Open Trivia DB file is refused before the bank is loaded."""
    try:
        data = parse_json(text)
    except Unreadable as error:  # not JSON, or nested or numbered beyond the bounded reader's limits
        raise ImportFailed(f"{path}: {error}") from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise ImportFailed(f"{path}: expected an Open Trivia DB object with a 'results' list")
    imported = Imported()
    per_band: Counter[str] = Counter()
    for number, item in enumerate(results):
        where = f"results[{number}]"
        if not isinstance(item, dict):
            raise ImportFailed(f"{path}: {where} is not an object")
        missing = [k for k in ("category", "type", "difficulty", "question", "correct_answer", "incorrect_answers")
                   if k not in item]  # fmt: skip
        if missing:
            raise ImportFailed(f"{path}: {where} lacks {', '.join(missing)}")
        if item["type"] == "boolean":
            imported.leave_out(where, "true/false question")
            continue
        difficulty = item["difficulty"]
        band = DIFFICULTY_LEVELS.get(difficulty) if isinstance(difficulty, str) else None
        if band is None:
            raise ImportFailed(f"{path}: {where}.difficulty: expected easy, medium or hard, got {shown(difficulty)}")
        texts = {key: item[key] for key in ("category", "question", "correct_answer")}
        wrong = item["incorrect_answers"]
        if not isinstance(wrong, list) or not all(isinstance(w, str) for w in wrong):
            reason = "incorrect_answers: expected a list of texts"
            imported.leave_out(where, reason, f"{reason}, got {_kind(wrong)}")
            continue
        untyped = [key for key, value in texts.items() if not isinstance(value, str)]
        if untyped:
            reason = f"{untyped[0]}: expected text"
            imported.leave_out(where, reason, f"{reason}, got {_kind(texts[untyped[0]])}")
            continue
        # Spread each difficulty evenly over its five levels, in file order.
        low, high = band
        level = low + per_band[difficulty] % (high - low + 1)
        per_band[difficulty] += 1
        _add(imported, where, path, language, "opentdb", OPENTDB_LICENSE, level,
             _category(texts["category"]), html.unescape(texts["question"]),
             html.unescape(texts["correct_answer"]), [html.unescape(w) for w in wrong], "")  # fmt: skip
        _tell(progress, number + 1, len(results))
    return imported


def _kind(value: Any) -> str:
    """What a JSON value is, in JSON's words."""
    if value is None or isinstance(value, bool):
        return {None: "null", True: "true", False: "false"}[value]
    kinds = {int: "a number", float: "a number", str: "text", list: "a list", dict: "an object"}
    return kinds.get(type(value), type(value).__name__)


def _category(raw: str) -> str:
    """'Entertainment: Books' is spoken as 'Books'; 'Science &amp; Nature' as 'Science, Nature'."""
    return html.unescape(raw).split(": ")[-1].replace(" & ", ", ")


def from_csv(
    path: Path,
    text: str,
    language: str,
    license_id: str = "unknown",
    progress: Progress | None = None,
) -> Imported:
    """The questions of a CSV file (`text`, as `read_text(path)` read it), each checked alone: `finish` joins them
    to a bank. A row with other than four options is named, not guessed."""
    # newline=None reads old Mac (CR-only) and Windows line endings as well as Unix ones.
    reader = csv.reader(io.StringIO(text, newline=None))
    # csv's own bound on a field (128 KiB) would refuse a whole file for one long field: the file's bound is ours,
    # and a question too long to read aloud is left out with its line named, the others kept.
    csv.field_size_limit(max(csv.field_size_limit(), MAX_BYTES))
    imported = Imported()
    source = pack_name(path.stem)
    try:
        last = 0
        header = tuple(next(reader, ()))
        if header[: len(CSV_FIELDS)] != CSV_FIELDS:
            raise ImportFailed(f"{path}: the header must start with {','.join(CSV_FIELDS)}[,explanation]")
        rows: list[tuple[int, list[str]]] = []
        last = reader.line_num
        started = last + 1
        for row in reader:
            if row:
                rows.append((reader.line_num, row))
                started = last + 1
            last = reader.line_num
    except csv.Error as error:
        # The commonest cause by far: a quote opened and never closed, which swallows the rest of the file.
        where = f"{path}: the record from line {last + 1}"
        raise ImportFailed(f"{where}: not readable CSV ({error}); is a quote left open?") from None
    if rows and _quote_left_open(text, started):  # it took in every line after it: no row after it can be trusted
        raise ImportFailed(f"{path}: the record from line {started}: not readable CSV (a quote opened there is never "
                           "closed, and takes in the rest of the file); is a quote left open?")  # fmt: skip
    explained = len(header) > len(CSV_FIELDS)
    for number, (line, row) in enumerate(rows):
        where = f"line {line}"
        _tell(progress, number + 1, len(rows))
        # The right answer and three wrong ones: a fifth would be taken for the explanation, a missing one for a
        # shifted column, so the count is checked before any column is read by its name.
        options = len(row) - 3 - (1 if explained and len(row) > len(CSV_FIELDS) else 0)
        if len(row) < 4 or options != 4:
            if len(row) < 4:
                imported.leave_out(where, "too few columns", f"expected 7 or more columns, got {len(row)}")
            else:
                detail = f"expected 4 options (correct, wrong1, wrong2, wrong3), got {options}"
                imported.leave_out(where, "options: not four", detail)
            continue
        level_text = row[0].strip()
        # ASCII digits only: int() takes other scripts' digits and str.isdigit() superscripts, which int() refuses.
        level = int(level_text) if re.fullmatch(r"[+-]?[0-9]{1,4}", level_text) else None
        if level is None:
            detail = f"level: {shown(level_text)} is not a whole number from 1 to {LEVELS} (digits 0-9)"
            imported.leave_out(where, "level: not a whole number", detail)
            continue
        explanation = row[7] if len(row) > len(CSV_FIELDS) else ""
        _add(imported, where, path, language, source, license_id, level, row[1], row[2], row[3], row[4:7],
             explanation)  # fmt: skip
    return imported


def _quote_left_open(text: str, line: int) -> bool:
    """Whether the record from `line` to the end of `text` ends inside a quoted field: csv, lenient, takes such a
    quote to run to the end of the file, and reads every line after it as one field."""
    tail = "".join(io.StringIO(text, newline=None).readlines()[line - 1 :])
    try:
        for _ in csv.reader(io.StringIO(tail), strict=True):
            pass
    except csv.Error as error:
        return "unexpected end of data" in str(error)
    return False


def _tell(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None and (done % PROGRESS_EVERY == 0 or done == total):
        progress(done, total)


def pack_name(stem: str) -> str:
    """A file name for the pack made from the input's: letters, digits, - and _ only, so it stays in its folder."""
    name = re.sub(r"[^\w-]+", "-", stem, flags=re.ASCII).strip("-_.")[:60]
    return name or "imported"


def _add(
    imported: Imported,
    where: str,
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
    category, question, correct, explanation = (
        _undirected(text) for text in (category, question, correct, explanation)
    )
    wrong = [_undirected(text) for text in wrong]
    texts = {"category": category, "question": question, "answer": correct, "explanation": explanation}
    texts |= {f"options[{i + 1}]": w for i, w in enumerate(wrong)}
    for name, text in texts.items():
        if SURROGATE.search(text):
            imported.leave_out(where, f"{name}: not valid Unicode text (a lone surrogate)")
            return
    for name in ("category", "question", "answer"):
        if unspoken(texts[name]):
            imported.leave_out(where, f"{name}: empty (nothing a listener would hear)")
            return
    if unspoken(explanation):  # an explanation of spaces or zero-width characters is none
        explanation = ""
    if not 1 <= level <= LEVELS:
        imported.leave_out(where, f"level: not 1-{LEVELS}", f"level: {level} is not 1-{LEVELS}")
        return
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
        imported.leave_out(where, _reason(problems[0]), f"{problems[0].field}: {problems[0].message}")
    else:
        imported.found_at[f"#{len(imported.entries)}"] = where  # by position: a repeated question has a twin id
        imported.entries.append(entry)


BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Marks that turn text around on a screen (U+202E RIGHT-TO-LEFT OVERRIDE shows "Paris" as "siraP") and are never
heard: an import drops them, as a question of ours has none."""


def _undirected(text: str) -> str:
    return BIDI_CONTROLS.sub("", text)


def finish(imported: Imported, bank: Sequence[Entry] = (), progress: Progress | None = None) -> Imported:
    """Leave out repeats (same id or near-duplicate question) of a question in `bank`, the bank the import joins,
    or earlier in the file, keeping the first; and whatever the pack loader itself would refuse in the file as it
    will be written: an import never writes a pack that fails `questions validate`, alone or in its bank."""
    repeated = {repeat.index: repeat for repeat in repeats(imported.entries, bank)}
    result = Imported([], imported.skipped.copy(), list(imported.left_out), dict(imported.found_at))
    for index, entry in enumerate(imported.entries):
        repeat = repeated.get(index)
        if repeat is None:
            result.entries.append(entry)
            continue
        where = imported.found_at.pop(f"#{index}")
        if repeat.joined:
            result.leave_out(where, "question: already in the bank", f"question: {repeat.problem.message}")
        else:
            result.leave_out(where, "question: repeats an earlier one", f"question: {repeat.problem.message}")
    result.found_at = {entry.id: imported.found_at[f"#{i}"] for i, entry in enumerate(imported.entries)
                       if f"#{i}" in imported.found_at}  # fmt: skip
    if progress is not None:
        progress(len(imported.entries), len(imported.entries))
    if result.entries:
        path = result.entries[0].path or Path("import")
        _, problems = load_text(path, to_toml(result.entries))
        refused = {problem.entry: problem for problem in problems if problem.entry}
        if len(refused) < len(problems):  # a problem with the pack as a whole: nothing can be written
            raise ImportFailed(f"the pack would not load ({problems[0]}); nothing written")
        for entry in [e for e in result.entries if e.id in refused]:
            problem = refused[entry.id]
            result.leave_out(result.found_at[entry.id], _reason(problem), f"{problem.field}: {problem.message}")
            result.entries.remove(entry)
    return result


def _reason(problem: Problem) -> str:
    """The kind of problem, without the quoted specifics, so that like problems are counted together."""
    return f"{problem.field}: {problem.message.split(chr(39))[0].strip()}"
