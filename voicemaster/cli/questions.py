"""`voicemaster questions ...`: validate, count and import question packs; and the question bank a game or a bench
plays with (`questions/packs.py`)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from voicemaster import paths
from voicemaster.config.files import ConfigError
from voicemaster.questions.model import Entry


def playable_questions() -> tuple[Entry, ...] | None:
    """The question bank for a game, or None (and why, printed) if it has problems."""
    entries, problems = _load_bank(None)
    if problems:
        print(f"voicemaster: the question bank has {len(problems)} problem(s); run `voicemaster questions validate`.")
        return None
    return tuple(entry for entry in entries if isinstance(entry, Entry))


def bank_roots(path: Path | None) -> list[Path]:
    """A pack or folder named on the command line; else $VOICEMASTER_QUESTIONS alone; else our packs and the user's."""
    if path is not None:
        return [path]
    configured = os.environ.get(paths.QUESTIONS_ENVIRONMENT)
    if configured:
        return [Path(configured).expanduser()]
    users = paths.user_questions_dir()
    return [paths.QUESTIONS_DIR, *([users] if users.is_dir() else [])]


def _load_bank(path: Path | None, *, check: bool = True) -> tuple[list[Any], list[Any]]:
    from voicemaster.questions.packs import load, pack_files
    from voicemaster.questions.validation import validate

    roots = bank_roots(path)
    for root in roots:
        if not root.exists():
            raise ConfigError(root, "(path)", "no such file or folder")
    loaded = load(file for root in roots for file in pack_files(root))
    return list(loaded.entries), [*loaded.problems, *(validate(loaded.entries) if check else ())]


def validate_packs(args: argparse.Namespace) -> int:
    entries, problems = _load_bank(args.path)
    for problem in problems:
        print(problem)
    print(f"{len(entries)} entries checked, {len(problems)} problem(s).", file=sys.stderr)
    return 1 if problems else 0


def show_stats(args: argparse.Namespace) -> int:
    from voicemaster.questions import stats

    entries, _ = _load_bank(args.path, check=False)
    print(json.dumps(stats.counts(entries)) if args.json else stats.report(entries))
    return 0


def _left_out(left_out: list[str]) -> str:
    """ "left out 3 question(s): line 4: level: 99 is not 1-15; ..." naming the first few."""
    shown = left_out[:LEFT_OUT_SHOWN]
    more = len(left_out) - len(shown)
    return f"left out {len(left_out)} question(s): " + "; ".join(shown) + (f"; and {more} more" if more else "")


LEFT_OUT_SHOWN = 10
"""Questions left out by an import that are named one by one; the counts by reason cover the rest."""


def import_pack(args: argparse.Namespace) -> int:
    from voicemaster.questions import importers

    if args.input_format == "opentdb":
        imported = importers.from_opentdb(args.file, args.lang)
    else:
        imported = importers.from_csv(args.file, args.lang, args.license)
    # The pack's name comes from the input's file name: cleaned, so it is a name in the packs folder, not a path.
    out = args.out or paths.user_questions_dir() / args.lang / f"{importers.pack_name(args.file.stem)}.toml"
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
