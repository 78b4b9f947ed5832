"""The `voicemaster` command line."""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from voicemaster import __version__
from voicemaster.config import LANGUAGES, REPO_ROOT, ConfigError, Settings, default_paths, load_settings
from voicemaster.rules import VARIANTS
from voicemaster.rules.errors import IllegalAction


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        result: int = args.run(args)
    except (ConfigError, IllegalAction) as error:
        print(f"voicemaster: {error}", file=sys.stderr)
        return 2
    return result


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="voicemaster",
        description="An offline, hands-free quizmaster: 'Wer wird Millionär?' and 'Rette die Million' by voice.",
    )
    parser.add_argument("--version", action="version", version=f"voicemaster {__version__}")
    parser.add_argument("--config", type=Path, help="a TOML file with your own settings (see config/default.toml)")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    demo = commands.add_parser("demo", help="watch a complete game played by simulated players")
    demo.add_argument("--format", choices=("millionaire", "moneydrop"), default="millionaire")
    demo.add_argument("--variant", choices=tuple(VARIANTS), help="the rules to play by (default: from config)")
    demo.add_argument("--players", type=int, default=3, help="how many simulated players or teams (1-6)")
    demo.add_argument("--rounds", type=int, default=2, help="how many rounds to play")
    demo.add_argument("--seed", type=int, default=None, help="the same seed plays the same game")
    demo.set_defaults(run=_demo)

    questions = commands.add_parser("questions", help="check, count and import question packs")
    question_commands = questions.add_subparsers(title="questions commands", metavar="ACTION", required=True)
    validate = question_commands.add_parser("validate", help="check packs; lists every problem, exit 1 if any")
    validate.add_argument("path", nargs="?", type=Path, help="a pack file or folder (default: the bank)")
    validate.set_defaults(run=_questions_validate)
    stats = question_commands.add_parser("stats", help="count questions per language, format, level, category")
    stats.add_argument("path", nargs="?", type=Path, help="a pack file or folder (default: the bank)")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(run=_questions_stats)
    importer = question_commands.add_parser("import", help="turn Open Trivia DB JSON or a CSV into a pack")
    importer.add_argument("file", type=Path)
    importer.add_argument("--format", required=True, choices=("opentdb", "csv"), dest="input_format")
    importer.add_argument("--lang", default="en", choices=LANGUAGES, help="the questions' language")
    importer.add_argument("--license", default="unknown", help="SPDX license id of a CSV's questions")
    importer.add_argument("--out", type=Path, help="the pack to write (default: questions/LANG/imported/NAME.toml)")
    importer.set_defaults(run=_questions_import)

    say = commands.add_parser("say", help="speak a sentence with the quizmaster's voice")
    say.add_argument("text")
    say.add_argument("--lang", default=None, choices=LANGUAGES, help="default: from config")
    say.add_argument("--out", type=Path, required=True, help="the WAV file to write")
    say.set_defaults(run=_say)

    bench = commands.add_parser("bench", help="measure speed (prints figures, never fails on time)")
    bench.add_argument("what", choices=("rules",), help="rules: complete simulated games per second")
    bench.add_argument("--seconds", type=float, default=1.0, help="time per scenario")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(run=_bench)
    return parser


def _settings(args: argparse.Namespace) -> Settings:
    """The shipped defaults and the user's file, or with --config the defaults and that file."""
    return load_settings(None if args.config is None else [default_paths()[0], args.config])


def _demo(args: argparse.Namespace) -> int:
    from voicemaster import tabletop
    from voicemaster.rules.moneydrop import MoneyDropSettings

    settings = _settings(args)
    seed = random.randrange(10_000) if args.seed is None else args.seed
    names = ("Anna", "Ben", "Cem", "Dana", "Emil", "Fatma")[: args.players]
    if args.format == "moneydrop":
        time_limit = settings.moneydrop.time_limit_seconds or None
        lines = tabletop.play_money_drop(MoneyDropSettings(teams=names, time_limit_seconds=time_limit), seed)
    else:
        if args.variant:
            settings = replace(settings, game=replace(settings.game, variant=args.variant))
        settings = replace(settings, game=replace(settings.game, rounds=args.rounds))
        lines = tabletop.play_millionaire(settings.game_settings(names, seed), seed)
    for line in lines:
        print(line)
    return 0


def _bank_path(path: Path | None) -> Path:
    return path or Path(os.environ.get("VOICEMASTER_QUESTIONS", REPO_ROOT / "questions"))


def _load_bank(path: Path | None, *, check: bool = True) -> tuple[list[Any], list[Any]]:
    from voicemaster.questions.packs import load, pack_files
    from voicemaster.questions.validation import validate

    root = _bank_path(path)
    if not root.exists():
        raise ConfigError(root, "(path)", "no such file or folder")
    loaded = load(pack_files(root))
    return list(loaded.entries), [*loaded.problems, *(validate(loaded.entries) if check else ())]


def _questions_validate(args: argparse.Namespace) -> int:
    entries, problems = _load_bank(args.path)
    for problem in problems:
        print(problem)
    print(f"{len(entries)} entries checked, {len(problems)} problem(s).", file=sys.stderr)
    return 1 if problems else 0


def _questions_stats(args: argparse.Namespace) -> int:
    from voicemaster.questions import stats

    entries, _ = _load_bank(args.path, check=False)
    print(json.dumps(stats.counts(entries)) if args.json else stats.report(entries))
    return 0


def _questions_import(args: argparse.Namespace) -> int:
    from voicemaster.questions import importers

    try:
        if args.input_format == "opentdb":
            imported = importers.from_opentdb(args.file, args.lang)
        else:
            imported = importers.from_csv(args.file, args.lang, args.license)
        out = args.out or REPO_ROOT / "questions" / args.lang / "imported" / f"{args.file.stem}.toml"
        importers.write_pack(imported.entries, out)
    except importers.ImportFailed as error:
        print(f"voicemaster: {error}", file=sys.stderr)
        return 2
    print(f"{len(imported.entries)} questions written to {out}")
    for reason, count in imported.skipped.most_common():
        print(f"  skipped {count}: {reason}")
    return 0


def _say(args: argparse.Namespace) -> int:
    from voicemaster.speech.synthesis import Espeak, SpeechUnavailable

    settings = _settings(args)
    language = args.lang or settings.game.language
    try:
        audio = Espeak(settings.speech).render(args.text, language)
    except SpeechUnavailable as error:
        print(f"voicemaster: {error}", file=sys.stderr)
        return 2
    audio.write(args.out)
    print(f"{audio.seconds:.2f} s of speech at {audio.rate} Hz written to {args.out}")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from voicemaster.bench import rules

    figures = rules.run(args.seconds)
    print(json.dumps(figures) if args.json else rules.report(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
