"""The blind check of question packs, for the people who write them (not part of the program).

    .venv/bin/python scripts/blind_check.py export PACK_OR_FOLDER --out SHEET.jsonl
    .venv/bin/python scripts/blind_check.py score PACK_OR_FOLDER --answers ANSWERS.jsonl [--record]

`export` writes one JSON line per entry: its id, its pack (relative to PACK_OR_FOLDER), the question and the options
labelled A-D in a shuffled order that depends on the entry alone (the key's place gives nothing away, and the same
pack gives the same sheet), and an empty "answer" and "note" for the second reader to fill in. Neither the key nor
the explanation is on the sheet.

`score` reads the reader's lines, {"id": ..., "answer": "B", "note": "two fit"} (the sheet's own lines with the
answer filled in are best: their "pack" and "options" say which pack and which option was meant even after the
entry was changed or dropped). A later line for the same id is a check again after a fix. Per entry: the first
answer equal to the key is agreed; a first answer that differs and a last one equal to the key is fixed; a last
answer that differs is a disagreement still open; an id answered that is no longer in its pack was dropped. It
prints the disagreements, the notes and the counts per pack, and exits with 1 while any disagreement is open.
`--record` writes the counts into the `[pack.review]` table of each pack whose check is complete (every entry
answered, no disagreement open), changing nothing else in the file (voicemaster/data/questions/FORMAT.md).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from voicemaster.config.files import parse_toml
from voicemaster.questions.model import Entry
from voicemaster.questions.packs import load_pack, pack_files
from voicemaster.questions.review import REVIEW_FIELDS

LETTERS = "ABCD"


@dataclass
class Pack:
    path: Path
    name: str
    """The path relative to what was named on the command line, as the sheet says it."""
    entries: dict[str, Entry]


def packs(root: Path) -> list[Pack]:
    found = []
    for path in pack_files(root):
        _, entries, problems = load_pack(path)
        if problems:
            print(f"{path}: {len(problems)} problem(s) (`voicemaster questions validate`)", file=sys.stderr)
        name = path.relative_to(root).as_posix() if root.is_dir() else path.name
        found.append(Pack(path, name, {entry.id: entry for entry in entries}))
    return found


def shuffled(entry: Entry) -> list[str]:
    """The options in the sheet's order: shuffled by the entry's id and options, so the same entry always gets the
    same order, and a pinned order ("Alle genannten") stays."""
    options = list(entry.options)
    if not entry.pin_order:
        seed = hashlib.sha256("\n".join([entry.id, *entry.options]).encode()).hexdigest()
        random.Random(seed).shuffle(options)
    return options


def export(root: Path, out: Path) -> int:
    lines = []
    for pack in packs(root):
        for entry in pack.entries.values():
            options = dict(zip(LETTERS, shuffled(entry), strict=False))
            line = {"id": entry.id, "pack": pack.name, "question": entry.question, "options": options}
            lines.append(json.dumps(line | {"answer": "", "note": ""}, ensure_ascii=False))
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"{len(lines)} entries written to {out}, without their keys")
    return 0


@dataclass(frozen=True)
class Answer:
    id: str
    letter: str
    text: str | None
    """The option the letter named, or None if it named none."""
    note: str
    pack: str | None


def answers(path: Path, by_id: dict[str, Entry]) -> Iterator[Answer]:
    """The reader's answers in file order; a line that is not one is named on stderr and skipped."""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            if not isinstance(line, dict) or not isinstance(line.get("id"), str):
                raise ValueError("expected an object with an id")
            letter = str(line.get("answer") or "").strip().upper()
        except ValueError as error:
            print(f"{path}:{number}: skipped, not an answer ({error})", file=sys.stderr)
            continue
        options = line.get("options")
        if isinstance(options, dict):
            text = options.get(letter)
        elif line["id"] in by_id:
            text = dict(zip(LETTERS, shuffled(by_id[line["id"]]), strict=False)).get(letter)
        else:
            text = None
        pack = line.get("pack") if isinstance(line.get("pack"), str) else None
        yield Answer(line["id"], letter, text if isinstance(text, str) else None, str(line.get("note") or ""), pack)


@dataclass
class Tally:
    checked: int = 0
    agreed: int = 0
    fixed: int = 0
    dropped: int = 0
    open: list[str] = field(default_factory=list)
    unanswered: int = 0

    def counts(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in REVIEW_FIELDS}


def score(root: Path, answers_path: Path, *, record: bool) -> int:
    found = packs(root)
    by_id = {entry_id: entry for pack in found for entry_id, entry in pack.entries.items()}
    pack_of = {entry_id: pack.name for pack in found for entry_id in pack.entries}
    given: dict[str, list[Answer]] = {}
    for answer in answers(answers_path, by_id):
        given.setdefault(answer.id, []).append(answer)
    tallies = {pack.name: Tally() for pack in found}
    notes = []
    for entry_id, lines in given.items():
        name = pack_of.get(entry_id) or lines[0].pack
        if name not in tallies:
            print(f"{entry_id}: answered, but in no pack here (and its line names none)", file=sys.stderr)
            continue
        tally = tallies[name]
        tally.checked += 1
        entry = by_id.get(entry_id)
        if entry is None:
            tally.dropped += 1
            continue
        first, last = lines[0], lines[-1]
        notes += [f"{name}: {entry_id}: {line.letter or '-'}: {line.note}" for line in lines if line.note]
        if last.text != entry.answer:
            said = f"{last.letter}: {last.text}" if last.text else (last.letter or "no answer")
            tally.open.append(f"{name}: {entry_id}: key {entry.answer!r}, blind {said!r}  {last.note}".rstrip())
        elif first.text == entry.answer:
            tally.agreed += 1
        else:
            tally.fixed += 1
    for pack in found:
        tallies[pack.name].unanswered = sum(1 for entry_id in pack.entries if entry_id not in given)
    for line in (line for tally in tallies.values() for line in tally.open):
        print(f"disagreement: {line}")
    for line in notes:
        print(f"note: {line}")
    untouched = 0
    for pack in found:
        tally = tallies[pack.name]
        if not tally.checked:
            untouched += 1
            continue
        counts = ", ".join(f"{name} {value}" for name, value in tally.counts().items())
        print(
            f"{pack.name}: {len(pack.entries)} entries; {counts}; "
            f"{len(tally.open)} open, {tally.unanswered} not answered"
        )
        if record:
            print(f"  {recorded(pack.path, tally)}")
    if untouched:
        print(f"{untouched} pack(s) without any answer")
    return 1 if any(tally.open for tally in tallies.values()) else 0


def recorded(path: Path, tally: Tally) -> str:
    if tally.open or tally.unanswered:
        return "not recorded: the check is not complete"
    text = path.read_bytes().decode("utf-8")
    try:
        changed = with_review(text, tally.counts())
    except ValueError as error:
        return f"not recorded: {error}"
    if changed != text:
        path.write_bytes(changed.encode("utf-8"))
    return "recorded in [pack.review]"


HEADER = re.compile(r"^[ \t]*\[")
REVIEW_HEADER = re.compile(r"^[ \t]*\[[ \t]*pack[ \t]*\.[ \t]*review[ \t]*\][ \t]*(#.*)?$")
PACK_HEADER = re.compile(r"^[ \t]*\[[ \t]*pack[ \t]*\][ \t]*(#.*)?$")


def with_review(text: str, counts: dict[str, int]) -> str:
    """`text` with its `[pack.review]` table holding `counts`; every other byte as it was. Raises ValueError when it
    cannot be done so (the result is parsed and compared with the original before it is given back)."""
    lines = text.splitlines(keepends=True)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    table = ["[pack.review]" + newline, *(f"{name} = {value}{newline}" for name, value in counts.items())]
    start = next((i for i, line in enumerate(lines) if REVIEW_HEADER.match(line.rstrip("\r\n"))), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if HEADER.match(lines[i])), len(lines))
        tail = end
        while tail > start + 1 and not lines[tail - 1].strip():
            tail -= 1
        lines[start:end] = table + lines[tail:end]  # the blank lines that part it from the next table stay
    else:
        after = next((i for i, line in enumerate(lines) if PACK_HEADER.match(line.rstrip("\r\n"))), None)
        if after is None:
            raise ValueError("no [pack] table")
        at = next((i for i in range(after + 1, len(lines)) if HEADER.match(lines[i])), len(lines))
        if at == len(lines) and lines and not lines[-1].endswith("\n"):
            lines[-1] += newline
        lines[at:at] = [*table, newline]
    changed = "".join(lines)
    _same_but_review(text, changed, counts)
    return changed


def _same_but_review(before: str, after: str, counts: dict[str, int]) -> None:
    old, new = parse_toml(before), parse_toml(after)
    review = new.get("pack", {}).pop("review", None)
    if isinstance(old.get("pack"), dict) and not isinstance(old["pack"].get("review", {}), dict):
        raise ValueError("pack.review is not a table")
    old.get("pack", {}).pop("review", None)
    if review != counts or old != new:
        raise ValueError("the [pack.review] table could not be rewritten alone (write it as its own table)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    exporting = commands.add_parser("export", help="a sheet of questions and shuffled options, without the keys")
    exporting.add_argument("packs", type=Path, help="a pack file or a folder of packs")
    exporting.add_argument("--out", type=Path, required=True, help="the sheet to write (JSON lines)")
    scoring = commands.add_parser("score", help="compare a reader's answers with the keys")
    scoring.add_argument("packs", type=Path, help="the pack file or folder the sheet was exported from")
    scoring.add_argument("--answers", type=Path, required=True, help="the reader's answers (JSON lines)")
    scoring.add_argument("--record", action="store_true", help="write the counts into each complete pack")
    args = parser.parse_args(argv)
    if not args.packs.exists():
        parser.error(f"{args.packs}: no such file or folder")
    if args.command == "export":
        return export(args.packs, args.out)
    return score(args.packs, args.answers, record=args.record)


if __name__ == "__main__":
    sys.exit(main())
