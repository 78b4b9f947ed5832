"""`voicemaster bench ...`: each measurement run and its figures printed, as a report or as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from voicemaster import paths
from voicemaster.cli.questions import bank_roots
from voicemaster.cli.settings import settings_for
from voicemaster.config.files import LANGUAGES


def add_bench(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """`voicemaster bench ...`, added to the product's command line by the `voicemaster.commands` entry point."""
    bench = commands.add_parser("bench", help="measure speed (prints figures, never fails on time)")
    bench.add_argument(
        "what",
        choices=(
            "rules",
            "asr",
            "frontend",
            "latency",
            "live",
            "room",
            "endpoint",
            "yes-wait",
            "memory",
            "voice",
            "faults",
            "fuzz",
            "screen",
            "read-aloud",
            "phones",
            "serve",
        ),
        help="rules: simulated games per second; asr: recognition accuracy and speed; latency: from the end of an "
        "utterance to the reply; live: felt latency in a real game on virtual sound devices; room: whole games "
        "on virtual sound devices in a car, a living room, at a party, far away, with the quizmaster's echo; "
        "endpoint: where people's utterances end while a car's or a party's noise goes on, per margin over the room's "
        "floor; "
        "yes-wait: how long a yes must be waited out, against yeses taken back; "
        "memory: peak memory of a game; voice: speech engines' real-time factor and the "
        "time to the first sample of a reply, with and without render-ahead; faults: games killed and resumed, "
        "fuzzed files through the commands, a damaged store and missing devices; fuzz: the fuzzed files alone; "
        "screen: a real-time game with and without the screen open; frontend: the echo cancellers and noise "
        "suppressors on the quizmaster's own voice in a laptop's microphone (ERLE, echo taken for a player, players "
        "heard over it, CPU, latency); read-aloud: the questions read by the quizmaster's voice and heard back by "
        "Whisper, what came back wrong; phones: what a phone's sound over the phones' server adds to felt latency on "
        "loopback (send to delivery, frames lost), without and with the echo canceller; serve: the always-ready "
        "quizmaster waiting through quiet and through a TV and people talking (false starts, CPU) and hearing every "
        "start phrase",
    )
    bench.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="rules: time per scenario (default 1); phones: sound sent each way (default 30)",
    )
    bench.add_argument(
        "--corpus",
        type=Path,
        default=paths.cache_dir() / "corpus",
        help="asr, latency: speech corpus, made if missing (default: in the cache folder)",
    )
    bench.add_argument(
        "--engines",
        default="whisper,vosk",
        help="asr, latency: engines, comma-separated; latency also vosk-ko: the Vosk engine timed on Korean; "
        "frontend: whisper also plays each player's scene through the whole listening, Whisper deciding",
    )
    bench.add_argument(
        "--languages", default=",".join(LANGUAGES), help="asr, latency, live, room, endpoint, voice, serve: languages"
    )
    bench.add_argument(
        "--rooms",
        default="all",
        help="room: the rooms, comma-separated, or all (quiet, car, living-room, party, party-loud, far)",
    )
    bench.add_argument(
        "--echo-db",
        default="0",
        help="room: the quizmaster's echo at the microphone in dB above the player there, comma-separated "
        "(each is measured; off: no echo)",
    )
    bench.add_argument(
        "--echo-delay-ms", type=float, default=80.0, help="room: from the loudspeaker to its echo at the microphone"
    )
    bench.add_argument(
        "--barge-in-seconds",
        default=None,
        help="room: the endpointer's barge_in_seconds, comma-separated (each is measured; default: the shipped one)",
    )
    bench.add_argument(
        "--microphone",
        default="room",
        help="room: what the game hears the player through, comma-separated (each is measured): room (the room's "
        "microphone where it is today), phone (a phone about 20 cm from the player's mouth, joined as the player), "
        "phone-held (that phone held to talk: silent but while the player holds its button)",
    )
    bench.add_argument("--utterances", type=int, default=12, help="live: the player's turns timed in each language")
    bench.add_argument(
        "--limit",
        type=int,
        default=None,
        help="asr, latency, endpoint: an even sample of this many clips (endpoint: 90); frontend: recordings said "
        "over a line (default 30)",
    )
    bench.add_argument(
        "--corpora",
        default="espeak,kokoro,pico,real,options",
        help="asr: corpora, comma-separated: espeak, kokoro, pico (the demo's players' voices), real (recordings of "
        "people; --limit leaves it whole), options (option words said by people among options of their kind; --limit "
        "samples them); rooms, or quiet, cut, car, living-room, far, party, phone (the real recordings and people's "
        "option words passed through each room, quiet as recorded, cut: cut to the word, phone: those rooms heard "
        "by a phone at the player's mouth; --limit samples them); echo (the same said over the "
        "quizmaster's own voice from a laptop's speaker, 10 dB louder); manifest:PATH (your recordings, a `hear "
        "--manifest` file whose lines also say the meant intent and value)",
    )
    bench.add_argument(
        "--phone-path",
        action="store_true",
        help="asr: instead of the corpora, the phone's clips of the living room and the party (--limit samples them) "
        "decided straight and through the game's phone path: the pipeline without a front end, with it and a silent "
        "reference, with a line of the quizmaster's playing; each loss with the stage that lost it",
    )
    bench.add_argument(
        "--frontend",
        default=None,
        help="asr: acoustic front ends each corpus is heard through, comma-separated: none (the default), webrtc "
        "(WebRTC echo cancellation and noise suppression), webrtc-aec (the game's default), webrtc-aec-residual (the "
        "same without the barge-in filter), webrtc-ns, livekit, speex, rnnoise; frontend: those compared (default: "
        "all); room: the game's own, each measured: none, webrtc-aec (the default), webrtc-aec-residual, webrtc-ns, "
        "webrtc",
    )
    bench.add_argument(
        "--questions",
        type=int,
        default=3,
        help="voice: questions in each timed game (played in real time); room: questions the player answers before "
        "it stops and takes the money",
    )
    bench.add_argument(
        "--games",
        type=int,
        default=None,
        help="faults: games of each format killed and resumed (default 100); screen: games each way (default 3); "
        "room: games in each room, language and echo (default 1)",
    )
    bench.add_argument("--inputs", type=int, default=5000, help="faults, fuzz: fuzzed input files")
    bench.add_argument(
        "--seed",
        type=int,
        default=None,
        help="fuzz: the seed of the mutations (default 17, which faults uses); read-aloud: of the questions drawn "
        "(default 17); serve: of the talk, the TV and the starts said (default 0)",
    )
    bench.add_argument(
        "--demos",
        type=Path,
        nargs="*",
        default=[],
        help="read-aloud: demo folders (`voicemaster demo --out DIR`, named after their language: de-11) whose "
        "questions are read first",
    )
    bench.add_argument(
        "--demo-seeds",
        default="",
        help="read-aloud: the questions the demo games of these seeds (comma-separated) ask, replayed without sound",
    )
    bench.add_argument(
        "--ids", default="", help="read-aloud: read these entries (comma-separated ids) instead of a sample"
    )
    bench.add_argument(
        "--from",
        dest="reads",
        type=Path,
        nargs="*",
        default=[],
        help="read-aloud: sum up the reads an earlier run wrote (--out files) instead of reading anew",
    )
    bench.add_argument(
        "--changed",
        action="store_true",
        help="read-aloud with --from: read anew the entries whose sound the quizmaster's reading changes",
    )
    bench.add_argument("--plain", action="store_true", help="read-aloud: the text as written, without the reading")
    bench.add_argument(
        "--out", type=Path, default=None, help="read-aloud: every read, heard and weighed, as JSON lines"
    )
    bench.add_argument(
        "--minutes", type=float, default=10.0, help="serve: minutes of quiet and of talk heard (default 10)"
    )
    bench.add_argument("--json", action="store_true", help="print one JSON object")
    bench.set_defaults(run=run)


def corpora_named(text: str) -> list[str]:
    """The corpora `--corpora` names, in order, `rooms` standing for every room; a manifest's path kept whole."""
    from voicemaster_lab.asr.samples import ROOMS

    named = [name.strip() for name in text.split(",") if name.strip()]
    expanded = [room for name in named for room in (ROOMS if name == "rooms" else (name,))]
    return list(dict.fromkeys(expanded))


def _seed(args: argparse.Namespace, default: int) -> int:
    """`--seed` as given, else the bench's own default (each bench's figures in the docs were drawn with it)."""
    return default if args.seed is None else int(args.seed)


def _languages(args: argparse.Namespace) -> list[str]:
    """The languages of `--languages`, comma-separated."""
    return [language.strip() for language in args.languages.split(",") if language.strip()]


def run(args: argparse.Namespace) -> int:
    if args.what == "rules":
        from voicemaster_lab.timing import rules

        figures = rules.run(1.0 if args.seconds is None else args.seconds)
        print(json.dumps(figures) if args.json else rules.report(figures))
        return 0
    if args.what == "voice":
        from voicemaster_lab.timing import voice

        languages = _languages(args)
        figures = voice.run(bank_roots(None), languages, max(1, min(args.questions, 15)))
        print(json.dumps(figures) if args.json else voice.report(figures))
        return 0
    if args.what == "faults":
        from voicemaster_lab.faults import drill

        figures = drill.run(max(0, 100 if args.games is None else args.games), max(0, args.inputs))
        print(json.dumps(figures, ensure_ascii=False) if args.json else drill.report(figures))
        return 0
    if args.what == "fuzz":
        from voicemaster.cli.app import main  # the commands the fuzzer feeds its files to
        from voicemaster_lab.faults import drill, fuzz

        figures = fuzz.fuzz(max(0, args.inputs), _seed(args, drill.SEED), command=main)
        print(json.dumps(figures, ensure_ascii=False) if args.json else "\n".join(drill.fuzz_report(figures)))
        return 0
    if args.what == "screen":
        from voicemaster_lab.timing import screen

        language = args.languages.split(",")[0].strip()
        games = 3 if args.games is None else max(1, args.games)
        figures = screen.run(bank_roots(None), language, max(1, min(args.questions, 15)), games)
        print(json.dumps(figures) if args.json else screen.report(figures))
        return 0
    if args.what == "live":
        from voicemaster_lab.timing import live

        languages = _languages(args)
        try:
            figures = live.run(languages, max(1, args.utterances), config=args.config)
        except live.LiveUnavailable as error:
            print(f"voicemaster: {error}", file=sys.stderr)
            return 2
        print(json.dumps(figures, ensure_ascii=False) if args.json else live.report(figures))
        return 0
    if args.what == "room":
        return _room(args)
    if args.what == "endpoint":
        from voicemaster_lab.timing import endpoint_rooms

        languages = _languages(args)
        figures = endpoint_rooms.run(languages, 90 if args.limit is None else max(1, args.limit))
        print(json.dumps(figures) if args.json else endpoint_rooms.report(figures))
        return 0
    if args.what == "yes-wait":
        from voicemaster_lab.timing import yes_wait

        languages = _languages(args)
        figures = yes_wait.run(languages)
        print(json.dumps(figures, ensure_ascii=False) if args.json else yes_wait.report(figures))
        return 0
    if args.what == "frontend":
        from voicemaster_lab.asr import frontend_figures
        from voicemaster_lab.asr.frontends import FRONT_ENDS

        compared = [name.strip() for name in (args.frontend or "none").split(",") if name.strip()]
        compared = list(FRONT_ENDS) if compared == ["none"] else compared
        if unknown := sorted(set(compared) - set(FRONT_ENDS)):
            print(
                f"voicemaster: no front end {', '.join(unknown)}; choose from {', '.join(FRONT_ENDS)}", file=sys.stderr
            )
            return 2
        languages = _languages(args)
        listen = args.engines != "whisper,vosk" and "whisper" in args.engines  # asked for by name: Whisper hears
        figures = frontend_figures.run(
            args.corpus, compared, languages=languages, players=args.limit or 30, listen=listen
        )
        print(json.dumps(figures, ensure_ascii=False) if args.json else frontend_figures.report(figures))
        return 0
    if args.what == "read-aloud":
        from voicemaster.questions.packs import load, pack_files
        from voicemaster_lab.reading import read_aloud

        languages = _languages(args)
        entries = load([path for root in bank_roots(None) for path in pack_files(root)]).entries
        ids = [i.strip() for i in args.ids.split(",") if i.strip()]
        if args.reads:
            records = [
                json.loads(line) for path in args.reads for line in path.read_text(encoding="utf-8").splitlines()
            ]
            figures = read_aloud.summed_up(
                settings_for(args), entries, records, plain=args.plain, changed=args.changed, out=args.out
            )
            print(json.dumps(figures, ensure_ascii=False) if args.json else read_aloud.report(figures))
            return 0
        figures = read_aloud.run(
            settings_for(args), entries, languages, limit=args.limit, demos=args.demos, ids=ids, seed=_seed(args, 17),
            out=args.out, plain=args.plain, demo_seeds=[int(s) for s in args.demo_seeds.split(",") if s.strip()],
        )  # fmt: skip
        print(json.dumps(figures, ensure_ascii=False) if args.json else read_aloud.report(figures))
        return 0
    if args.what == "phones":
        from voicemaster_lab.timing import phones

        figures = phones.run(30.0 if args.seconds is None else max(0.1, args.seconds))
        print(json.dumps(figures) if args.json else phones.report(figures))
        return 0
    if args.what == "serve":
        from voicemaster.speech.hearing.engines import open_recognizer
        from voicemaster_lab.timing import serve

        serve_languages = tuple(_languages(args)) or tuple(LANGUAGES)
        ear = open_recognizer("whisper", serve_languages[0])
        figures = serve.run(max(0.5, args.minutes), serve_languages, ear, _seed(args, 0))
        print(json.dumps(figures) if args.json else serve.report(figures))
        return 0
    if args.what == "memory":
        from voicemaster_lab.timing import memory

        figures = memory.run()
        print(json.dumps(figures) if args.json else memory.report(figures))
        return 0
    from voicemaster_lab.asr import korean_vosk, measure, report, samples

    engines = [name.strip() for name in args.engines.split(",") if name.strip()]
    known = [*measure.ENGINE_SETUPS, *([korean_vosk.ENGINE] if args.what == "latency" else [])]
    unknown = sorted(set(engines) - set(known))
    if unknown:
        print(f"voicemaster: no engine {', '.join(unknown)}; choose from {', '.join(known)}", file=sys.stderr)
        return 2
    languages = _languages(args)
    if args.what == "latency":
        from voicemaster_lab.timing import latency

        voices = settings_for(args).speech
        figures = latency.run(args.corpus, engines, voices=voices, languages=languages, limit=args.limit)
        print(json.dumps(figures, ensure_ascii=False) if args.json else latency.report(figures))
        return 0
    if args.phone_path:
        from voicemaster.speech.hearing.engines import recognizers
        from voicemaster_lab.asr import phone_path

        opened = recognizers("whisper")
        figures = phone_path.run(
            args.corpus, {language: opened(language) for language in languages}, languages=languages, limit=args.limit
        )
        print(json.dumps(figures, ensure_ascii=False) if args.json else phone_path.report(figures))
        return 0
    corpora = corpora_named(args.corpora)
    names = (*samples.CORPORA, *samples.ROOMS, samples.ECHO)
    if unknown := sorted(which for which in set(corpora) - set(names) if not which.startswith(samples.MANIFEST)):
        print(
            f"voicemaster: no corpus {', '.join(unknown)}; choose from {', '.join(names)}, rooms "
            f"(all of {', '.join(samples.ROOMS)}) or {samples.MANIFEST}PATH",
            file=sys.stderr,
        )
        return 2
    from voicemaster.cli.manifest import ManifestError
    from voicemaster_lab.asr.frontends import FRONT_ENDS

    frontends = [name.strip() for name in (args.frontend or "none").split(",") if name.strip()] or ["none"]
    if unknown := sorted(set(frontends) - set(FRONT_ENDS)):
        print(f"voicemaster: no front end {', '.join(unknown)}; choose from {', '.join(FRONT_ENDS)}", file=sys.stderr)
        return 2
    try:
        figures = measure.run(
            args.corpus, engines, languages=languages, limit=args.limit, corpora=corpora, frontends=frontends
        )
    except ManifestError as error:
        print(f"voicemaster: {error}", file=sys.stderr)
        return 2
    print(json.dumps(figures, ensure_ascii=False) if args.json else report.report(figures))
    return 0


def _room(args: argparse.Namespace) -> int:
    from voicemaster_lab.harness.room import ROOMS
    from voicemaster_lab.timing import room

    languages = _languages(args)
    names = [name.strip() for name in args.rooms.split(",") if name.strip()]
    names = list(ROOMS) if names == ["all"] else names
    if unknown := sorted(set(names) - set(ROOMS)):
        print(f"voicemaster: no room {', '.join(unknown)}; choose from {', '.join(ROOMS)}", file=sys.stderr)
        return 2
    try:
        levels = [level.strip() for level in args.echo_db.split(",") if level.strip()]
        echoes = [None if level == "off" else float(level) for level in levels]
    except ValueError:
        print(f"voicemaster: --echo-db takes levels in dB or off, not {args.echo_db!r}", file=sys.stderr)
        return 2
    frontends = [name.strip() for name in (args.frontend or room.SHIPPED).split(",") if name.strip()]
    if unknown := sorted(set(frontends) - set(room.FRONT_ENDS)):
        print(f"voicemaster: the game has no front end {', '.join(unknown)}; choose from {', '.join(room.FRONT_ENDS)}",
              file=sys.stderr)  # fmt: skip
        return 2
    try:
        barge_ins = [float(value) for value in (args.barge_in_seconds or "").split(",") if value.strip()]
    except ValueError:
        print(f"voicemaster: --barge-in-seconds takes seconds, not {args.barge_in_seconds!r}", file=sys.stderr)
        return 2
    microphones = [name.strip() for name in args.microphone.split(",") if name.strip()]
    if unknown := sorted(set(microphones) - set(room.MICROPHONES)):
        print(f"voicemaster: no microphone {', '.join(unknown)}; choose from {', '.join(room.MICROPHONES)}",
              file=sys.stderr)  # fmt: skip
        return 2
    games = 1 if args.games is None else max(1, args.games)
    try:
        figures = room.run(names, languages, games, echoes or [0.0], delay_seconds=args.echo_delay_ms / 1000,
                           questions=max(1, args.questions), config=args.config, frontends=frontends,
                           barge_ins=barge_ins or [None], microphones=microphones or ["room"])  # fmt: skip
    except room.RoomUnavailable as error:
        print(f"voicemaster: {error}", file=sys.stderr)
        return 2
    print(json.dumps(figures, ensure_ascii=False) if args.json else room.report(figures))
    return 0
