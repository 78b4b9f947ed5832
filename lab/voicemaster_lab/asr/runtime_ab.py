"""Whisper's game runtime against the numpy reference, clip by clip: the same corpora `bench asr` hears, each clip
decided by both in the same process, in alternating order, so that the machine's load falls on both alike.

    python -m voicemaster_lab.asr.runtime_ab --corpora real,car,living-room --limit 100 --shard 0/2 --out a.jsonl
    python -m voicemaster_lab.asr.runtime_ab --summary a.jsonl b.jsonl

Each line of `--out` is one clip: what was said, and each runtime's meaning, text, confidence and CPU milliseconds.
The summary counts, per corpus, the decisions that are the same, what each runtime understood, asked again or took
for something else, the wrong meanings only the game's runtime makes, and each runtime's decision CPU.
Figures: docs/decisions/020-whisper-on-maintained-runtimes.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from voicemaster import paths
from voicemaster.config.files import LANGUAGES
from voicemaster.dialogue.meaning import Context
from voicemaster.models.verify import require_model
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.model import RUNTIME_ENVIRONMENT, RUNTIMES
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster_lab.asr.measure import room_options
from voicemaster_lab.asr.samples import ROOMS, Sample, option_samples, real_samples, room_samples


def samples(corpus: Path, corpora: Sequence[str], limit: int | None) -> list[tuple[str, Sample]]:
    """The clips of each corpus as `bench asr` makes them (`measure.run`): the real recordings whole, rooms sampled."""
    real, _ = real_samples(LANGUAGES)
    chosen = [("real", sample) for sample in real] if "real" in corpora else []
    rooms = [which for which in corpora if which in ROOMS]
    if rooms:
        worded, _ = option_samples(corpus, LANGUAGES, limit)
        spoken = [*real, *room_options(worded)]
        for room in rooms:
            chosen += [(room, sample) for sample in room_samples(room, spoken, real, corpus, limit)]
    return chosen


def recognizers() -> dict[str, WhisperRecognizer]:
    """One recognizer per runtime, the model loaded once each."""
    folder = require_model("whisper", "de")
    made = {}
    for runtime in RUNTIMES:
        os.environ[RUNTIME_ENVIRONMENT] = runtime
        made[runtime] = WhisperRecognizer(folder)
    del os.environ[RUNTIME_ENVIRONMENT]
    return made


def measure(chosen: Sequence[tuple[str, Sample]], out: Path) -> None:
    heard_by = recognizers()
    with out.open("a", encoding="utf-8") as lines:
        for index, (which, sample) in enumerate(chosen):
            context = Context(sample.context, sample.language, sample.options, sample.names)
            audio = Audio.read(sample.path)
            found: dict[str, Any] = {}
            order = RUNTIMES if index % 2 == 0 else RUNTIMES[::-1]
            for runtime in order:
                started = time.process_time()
                heard = heard_by[runtime].recognize(audio, context)
                cpu_ms = (time.process_time() - started) * 1000
                found[runtime] = {
                    "intent": str(heard.intent),
                    "value": heard.value,
                    "text": heard.text,
                    "confidence": round(heard.confidence, 4),
                    "cpu_ms": round(cpu_ms, 1),
                }
            said = {"intent": sample.intent, "value": sample.value}
            record = {"corpus": which, "file": str(sample.path), "language": sample.language, "said": said}
            lines.write(json.dumps(record | found) + "\n")
            lines.flush()


def summary(files: Sequence[Path]) -> dict[str, Any]:
    by_corpus: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for file in files:
        for line in file.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            by_corpus[record["corpus"]].append(record)
    return {which: _summed(records) for which, records in sorted(by_corpus.items())}


def _meaning(found: dict[str, Any]) -> tuple[str, str | None]:
    return found["intent"], found["value"]


def _summed(records: list[dict[str, Any]]) -> dict[str, Any]:
    said = [(record["said"]["intent"], record["said"]["value"]) for record in records]
    result: dict[str, Any] = {"clips": len(records)}
    for runtime in RUNTIMES:
        meant = [_meaning(record[runtime]) for record in records]
        commands = [(s, m) for s, m in zip(said, meant, strict=True) if s[0] != "unknown"]
        talk = [m for s, m in zip(said, meant, strict=True) if s[0] == "unknown"]
        cpu = [record[runtime]["cpu_ms"] for record in records]
        result[runtime] = {
            "understood": sum(s == m for s, m in commands),
            "asked_again": sum(m[0] == "unknown" for _, m in commands),
            "wrong": sum(m[0] != "unknown" and s != m for s, m in commands),
            "talk_taken": sum(m[0] != "unknown" for m in talk),
            "commands": len(commands),
            "cpu_p50_ms": round(statistics.median(cpu), 1),
            "cpu_p95_ms": round(statistics.quantiles(cpu, n=20)[-1], 1) if len(cpu) > 1 else None,
        }
    game, reference = RUNTIMES
    differ = [record for record in records if _meaning(record[game]) != _meaning(record[reference])]
    result["same"] = len(records) - len(differ)
    result["new_wrong"] = [
        {"file": record["file"], reference: record[reference]["text"], game: record[game]["text"]}
        for record in differ
        if _meaning(record[game])[0] != "unknown" and _meaning(record[game]) != _said(record)
    ]
    result["changed"] = [
        {
            "file": record["file"],
            "said": _said(record),
            reference: [*_meaning(record[reference]), record[reference]["text"]],
            game: [*_meaning(record[game]), record[game]["text"]],
        }
        for record in differ
    ]
    cpu_ratio = [
        record[game]["cpu_ms"] / record[reference]["cpu_ms"] for record in records if record[reference]["cpu_ms"]
    ]
    result["cpu_ratio_p50"] = round(statistics.median(cpu_ratio), 3)
    return result


def _said(record: dict[str, Any]) -> tuple[str, str | None]:
    return record["said"]["intent"], record["said"]["value"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", default="real")
    parser.add_argument("--limit", type=int, default=None, help="clips per room (the real recordings stay whole)")
    parser.add_argument("--shard", default="0/1", help="k/n: every n-th clip from the k-th")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--corpus", type=Path, default=paths.cache_dir() / "corpus")
    parser.add_argument("--summary", type=Path, nargs="*")
    args = parser.parse_args(argv)
    if args.summary:
        json.dump(summary(args.summary), sys.stdout, indent=1)
        print()
        return 0
    if args.out is None:
        parser.error("--out is needed to measure")
    k, n = (int(part) for part in args.shard.split("/"))
    chosen = samples(args.corpus, args.corpora.split(","), args.limit)[k::n]
    measure(chosen, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
