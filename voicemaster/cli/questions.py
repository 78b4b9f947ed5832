"""`voicemaster questions ...`: validate, count and import question packs; and the question bank a game or a bench
plays with (`questions/packs.py`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import replace
from pathlib import Path

from voicemaster import paths
from voicemaster.config.files import ConfigError
from voicemaster.questions.checked import CACHE_NAME, Checked, check_files
from voicemaster.questions.model import Entry, Format, Problem
from voicemaster.questions.writing import one_import_at_a_time
from voicemaster.rules import LEVELS
from voicemaster.rules.moneydrop import MoneyDropSettings

PROBLEMS_SHOWN = 3
"""Problems a game's start names one by one; `questions validate` names them all."""
PER_LEVEL = 2
"""Questions a level needs for one game: the question, and another for the switch joker."""


def playable_questions(language: str | None = None) -> tuple[Entry, ...] | None:
    """The question bank for a game. An entry with a problem is left out (named, with its file), never a reason not
    to play; a level of `language` the bank cannot fill is filled from the shipped packs, and said so. None (and
    why, printed) if a game in `language` cannot be played."""
    checked = _checked(None)
    if checked.problems:
        shown = "; ".join(str(problem) for problem in checked.problems[:PROBLEMS_SHOWN])
        more = len(checked.problems) - PROBLEMS_SHOWN
        print(
            f"voicemaster: {len(checked.problems)} problem(s) in the question bank, the questions concerned left out "
            f"({shown}{f'; and {more} more' if more > 0 else ''}); `voicemaster questions validate` lists them all.",
            file=sys.stderr,
        )
    entries = checked.usable()
    if language is None:
        return entries
    added, missing = _filled(entries, language)
    if added:
        print(f"voicemaster: {_named(added)}: too few {language} questions in the bank; the shipped ones are used.")
    if missing:
        print(
            f"voicemaster: no {language} questions for {_named(missing)}, not even in the shipped packs: add a pack "
            "with them (`voicemaster questions import`).",
            file=sys.stderr,
        )
        return None
    return entries + tuple(entry for entry in _shipped(language) if _slot(entry) in added)


def _slot(entry: Entry) -> tuple[Format, int]:
    number = (entry.level or 0) if entry.format is Format.MILLIONAIRE else len(entry.options)
    return (entry.format, number)


def _needed() -> dict[tuple[Format, int], int]:
    """How many questions of each level (Millionaire) and number of options (money drop) one game can ask."""
    drop = MoneyDropSettings(teams=("a",)).option_counts
    needed = {(Format.MILLIONAIRE, level): PER_LEVEL for level in range(1, LEVELS + 1)}
    return needed | {(Format.MONEYDROP, count): 2 * drop.count(count) for count in set(drop)}


def _short(entries: tuple[Entry, ...], language: str) -> set[tuple[Format, int]]:
    have: dict[tuple[Format, int], int] = {}
    for entry in entries:
        if entry.language == language:
            have[_slot(entry)] = have.get(_slot(entry), 0) + 1
    return {slot for slot, needed in _needed().items() if have.get(slot, 0) < needed}


def _filled(entries: tuple[Entry, ...], language: str) -> tuple[set[tuple[Format, int]], set[tuple[Format, int]]]:
    """The slots the shipped packs fill (if the bank is not them) and those nothing fills."""
    short = _short(entries, language)
    if not short:
        return set(), set()
    shipped = _shipped(language)
    missing = _short(shipped, language) & short if paths.QUESTIONS_DIR not in bank_roots(None) else short
    return (short - missing, missing)


def _shipped(language: str) -> tuple[Entry, ...]:
    if paths.QUESTIONS_DIR in bank_roots(None):
        return ()
    return tuple(entry for entry in _checked(paths.QUESTIONS_DIR).usable() if entry.language == language)


def _named(slots: set[tuple[Format, int]]) -> str:
    levels = sorted(number for kind, number in slots if kind is Format.MILLIONAIRE)
    cards = sorted(number for kind, number in slots if kind is Format.MONEYDROP)
    named = [f"level {', '.join(map(str, levels))}"] if levels else []
    named += [f"money-drop cards with {' and '.join(map(str, cards))} options"] if cards else []
    return " and ".join(named)


def bank_roots(path: Path | None) -> list[Path]:
    """A pack or folder named on the command line; else $VOICEMASTER_QUESTIONS alone; else our packs and the user's."""
    if path is not None:
        return [path]
    configured = os.environ.get(paths.QUESTIONS_ENVIRONMENT)
    if configured:
        return [Path(configured).expanduser()]
    users = paths.user_questions_dir()
    return [paths.QUESTIONS_DIR, *([users] if users.is_dir() else [])]


def _checked(path: Path | None, *, leaving: Path | None = None) -> Checked:
    """The bank's entries and problems, checked (each pack once: `questions/checked.py`); `leaving` is a pack an
    import is about to replace, not part of the bank it joins."""
    from voicemaster.questions.packs import pack_files

    roots = bank_roots(path)
    for root in roots:
        if not root.exists():
            raise ConfigError(root, "(path)", "no such file or folder")
    found = {root: pack_files(root) for root in roots}
    files = [file for root in roots for file in found[root]]
    if leaving is not None:
        files = [file for file in files if not _same(file, leaving)]
    # An import remembers the checks of the bank it joins too: the cache is what can be made again, not user data.
    checked = check_files(files, paths.cache_dir() / CACHE_NAME)
    # A folder named to be checked (on the command line, or as the whole bank) that holds no pack is no bank: an
    # empty folder called "pack.toml" checked with "0 problem(s)" would say a pack is fine that is not there.
    named = roots if path is not None or os.environ.get(paths.QUESTIONS_ENVIRONMENT) else []
    empty = [Problem(root, None, None, _NO_PACKS) for root in named if root.is_dir() and not found[root]]
    return replace(checked, problems=(*empty, *checked.problems)) if empty else checked


_NO_PACKS = (
    f"a folder with no question pack in it (no file whose name ends in {paths.PACK_SUFFIX}): give a pack, or a "
    "folder of packs"
)


def _same(file: Path, other: Path) -> bool:
    try:
        return file.resolve() == other.resolve()
    except (OSError, RuntimeError):  # Python 3.11 says a symbolic link that loops with RuntimeError
        return False


def validate_packs(args: argparse.Namespace) -> int:
    checked = _checked(args.path)
    for problem in checked.problems:
        print(problem)
    print(f"{len(checked.entries)} entries checked, {len(checked.problems)} problem(s).", file=sys.stderr)
    return 1 if checked.problems else 0


def show_stats(args: argparse.Namespace) -> int:
    from voicemaster.questions import stats
    from voicemaster.questions.packs import load, pack_files

    roots = bank_roots(args.path)
    for root in roots:
        if not root.exists():
            raise ConfigError(root, "(path)", "no such file or folder")
    loaded = load(file for root in roots for file in pack_files(root))
    entries = list(loaded.entries)
    print(json.dumps(stats.as_json(entries, loaded.packs)) if args.json else stats.report(entries, loaded.packs))
    return 0


def _left_out(left_out: list[str]) -> str:
    """ "left out 3 question(s): line 4: level: 99 is not 1-15; ..." naming the first few."""
    shown = left_out[:LEFT_OUT_SHOWN]
    more = len(left_out) - len(shown)
    return f"left out {len(left_out)} question(s): " + "; ".join(shown) + (f"; and {more} more" if more else "")


LEFT_OUT_SHOWN = 10
"""Questions left out by an import that are named one by one; the counts by reason cover the rest."""
PROGRESS_FROM = 2000
"""An import of this many questions or more shows how far it is."""


def _progress(done: int, total: int) -> None:
    if total < PROGRESS_FROM:
        return
    width = 30
    bar = "#" * (width * done // total)
    end = "\n" if done >= total else ""
    if sys.stderr.isatty():
        print(f"\rchecking questions [{bar:<{width}}] {done}/{total}", end=end, file=sys.stderr, flush=True)
    elif done >= total or done % 5000 == 0:
        print(f"checking questions: {done}/{total}", file=sys.stderr, flush=True)


IMPORT_LOCK = "questions-import.lock"
"""In the cache folder: held by the import that is checking against the bank and writing its pack."""


def _waiting() -> None:
    print("voicemaster: another import is under way; this one waits for it to finish.", file=sys.stderr, flush=True)


def _nothing_in(input_format: str) -> str:
    return "an empty 'results' list" if input_format == "opentdb" else "its header"


def import_pack(args: argparse.Namespace) -> int:
    from voicemaster.questions import importers

    # The pack's name comes from the input's file name: cleaned, so it is a name in the packs folder, not a path.
    out = args.out or paths.user_questions_dir() / args.lang / f"{importers.pack_name(args.file.stem)}.toml"
    refused = paths.pack_name_problem(out)
    if refused is not None:  # said before the import's work, not after it
        wanted = f" (say {out.stem}{paths.PACK_SUFFIX})" if "UTF-8" not in refused else " in UTF-8 text"
        raise importers.ImportFailed(
            f"--out {paths.shown(out)}: {refused}: give --out a pack file name{wanted}; nothing written"
        )
    # The input is read and parsed before the bank it joins is loaded: a wrong file is said at once.
    text = importers.read_text(args.file)
    if args.input_format == "opentdb":
        found = importers.from_opentdb(args.file, text, args.lang, _progress)
    else:
        found = importers.from_csv(args.file, text, args.lang, args.license, _progress)
    if not found.entries and not found.left_out:
        raise importers.ImportFailed(f"{args.file}: holds no question, only {_nothing_in(args.input_format)}; "
                                     "nothing written")  # fmt: skip
    # One import at a time, from the bank it joins to the pack it writes: two at once would each miss the other's.
    with one_import_at_a_time(paths.cache_dir() / IMPORT_LOCK, _waiting):
        # The bank as `play` will load it, but for the pack this one replaces: a question repeating one of the
        # bank's would make the bank fail validation.
        imported = importers.finish(found, _checked(None, leaving=out).usable(), _progress)
        if not imported.entries:
            raise importers.ImportFailed(
                f"{args.file}: no question could be imported ({_left_out(imported.left_out)}); nothing written"
            )
        importers.write_pack(imported.entries, out)
    print(f"{len(imported.entries)} questions written to {out}")
    for reason, count in imported.skipped.most_common():
        print(f"  skipped {count}: {reason}")
    if imported.left_out:
        print(_left_out(imported.left_out))
    return 0
