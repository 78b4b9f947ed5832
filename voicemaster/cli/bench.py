"""`voicemaster bench ...`: each measurement run and its figures printed, as a report or as JSON (`bench/`)."""

from __future__ import annotations

import argparse
import json
import sys

from voicemaster.cli.questions import bank_roots
from voicemaster.cli.settings import settings_for


def run(args: argparse.Namespace) -> int:
    if args.what == "rules":
        from voicemaster.bench import rules

        figures = rules.run(args.seconds)
        print(json.dumps(figures) if args.json else rules.report(figures))
        return 0
    if args.what == "voice":
        from voicemaster.bench import voice

        languages = [language.strip() for language in args.languages.split(",") if language.strip()]
        figures = voice.run(bank_roots(None), languages, max(1, min(args.questions, 15)))
        print(json.dumps(figures) if args.json else voice.report(figures))
        return 0
    if args.what == "faults":
        from voicemaster.bench import faults

        figures = faults.run(max(0, 100 if args.games is None else args.games), max(0, args.inputs))
        print(json.dumps(figures, ensure_ascii=False) if args.json else faults.report(figures))
        return 0
    if args.what == "fuzz":
        from voicemaster.bench import faults, faults_fuzz
        from voicemaster.cli.app import main  # the commands the fuzzer feeds its files to

        figures = faults_fuzz.fuzz(max(0, args.inputs), args.seed, command=main)
        print(json.dumps(figures, ensure_ascii=False) if args.json else "\n".join(faults.fuzz_report(figures)))
        return 0
    if args.what == "screen":
        from voicemaster.bench import screen

        language = args.languages.split(",")[0].strip()
        games = 3 if args.games is None else max(1, args.games)
        figures = screen.run(bank_roots(None), language, max(1, min(args.questions, 15)), games)
        print(json.dumps(figures) if args.json else screen.report(figures))
        return 0
    if args.what == "live":
        from voicemaster.bench import live

        languages = [language.strip() for language in args.languages.split(",") if language.strip()]
        try:
            figures = live.run(languages, max(1, args.utterances), config=args.config)
        except live.LiveUnavailable as error:
            print(f"voicemaster: {error}", file=sys.stderr)
            return 2
        print(json.dumps(figures, ensure_ascii=False) if args.json else live.report(figures))
        return 0
    if args.what == "yes-wait":
        from voicemaster.bench import yes_wait

        languages = [language.strip() for language in args.languages.split(",") if language.strip()]
        figures = yes_wait.run(languages)
        print(json.dumps(figures, ensure_ascii=False) if args.json else yes_wait.report(figures))
        return 0
    if args.what == "memory":
        from voicemaster.bench import memory

        figures = memory.run()
        print(json.dumps(figures) if args.json else memory.report(figures))
        return 0
    from voicemaster.bench import asr, asr_report, asr_samples, korean_vosk

    engines = [name.strip() for name in args.engines.split(",") if name.strip()]
    known = [*asr.ENGINE_SETUPS, *([korean_vosk.ENGINE] if args.what == "latency" else [])]
    unknown = sorted(set(engines) - set(known))
    if unknown:
        print(f"voicemaster: no engine {', '.join(unknown)}; choose from {', '.join(known)}", file=sys.stderr)
        return 2
    languages = [language.strip() for language in args.languages.split(",") if language.strip()]
    if args.what == "latency":
        from voicemaster.bench import latency

        voices = settings_for(args).speech
        figures = latency.run(args.corpus, engines, voices=voices, languages=languages, limit=args.limit)
        print(json.dumps(figures, ensure_ascii=False) if args.json else latency.report(figures))
        return 0
    corpora = [name.strip() for name in args.corpora.split(",") if name.strip()]
    if unknown := sorted(set(corpora) - set(asr_samples.CORPORA)):
        print(
            f"voicemaster: no corpus {', '.join(unknown)}; choose from {', '.join(asr_samples.CORPORA)}",
            file=sys.stderr,
        )
        return 2
    figures = asr.run(args.corpus, engines, languages=languages, limit=args.limit, corpora=corpora)
    print(json.dumps(figures, ensure_ascii=False) if args.json else asr_report.report(figures))
    return 0
