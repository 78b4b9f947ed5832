"""Two `voicemaster bench asr --json` runs compared decision by decision, corpus by corpus: the runs before and after
a change to hearing, made from frozen worktrees side by side.

    python -m voicemaster_lab.asr.bench_ab before.json after.json

A decision is the same when the clip is right in both runs, or taken for the same meaning in both (the runs' lists
of mistakes say what each understood wherever it was not right). Prints, per corpus, the same decisions, understood,
wrong and talk taken in each run, the wrong meanings only the second run makes, the decision CPU p50 / p95 of each,
and every clip that moved. Figures: docs/decisions/034-an-int8-output-projection.md.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ENGINE = "whisper"
ROOTS = ("/.cache/", "models/")
"""Where a clip's path leaves its checkout or models folder (`VOICEMASTER_MODELS_DIR` may name another, as
"/tmp/b-models"): the same clip from two worktrees is the same after these."""


@dataclass(frozen=True)
class Moved:
    """A clip decided differently: what was said, and each run's meaning and reading ("" when right)."""

    file: str
    expected: str
    before: str
    after: str
    heard_after: str


@dataclass(frozen=True)
class Comparison:
    corpus: str
    clips: int
    same: int
    moved: tuple[Moved, ...]
    new_wrong: int
    """Clips the second run takes for a meaning not said (a command for another, talk for a command) where the first
    did not take them for that one."""
    figures: tuple[dict[str, Any], dict[str, Any]]


def clip_key(file: str) -> str:
    """A clip's path from its checkout's cache or models folder on."""
    for root in ROOTS:
        if root in file:
            return root + file.split(root, 1)[1]
    return file


def _mistakes(result: Mapping[str, Any]) -> Counter[tuple[str, str, str]]:
    """(clip, expected, understood) of each clip not understood as meant; a clip heard twice counts twice."""
    return Counter((clip_key(m["file"]), m["expected"], m["understood"]) for m in result["mistakes"])


def compare(
    before: Mapping[str, Any], after: Mapping[str, Any], engines: tuple[str, str] = (ENGINE, ENGINE)
) -> list[Comparison]:
    """Each corpus both runs measured, in the first run's order: the first run's `engines[0]` against the second's
    `engines[1]` (one run may hold both: `bench asr --engines whisper,whisper-int8-first`)."""
    first, second = before["engines"][engines[0]], after["engines"][engines[1]]
    found = []
    for corpus, result in first.items():
        if not isinstance(result, dict) or "mistakes" not in result or corpus not in second:
            continue
        other = second[corpus]
        wrong_before, wrong_after = _mistakes(result), _mistakes(other)
        only_before, only_after = wrong_before - wrong_after, wrong_after - wrong_before
        by_clip_after = {(file, expected): understood for file, expected, understood in only_after.elements()}
        heard = {clip_key(m["file"]): m["heard"] for m in other["mistakes"]}
        moved = [
            Moved(file, expected, understood, by_clip_after.pop((file, expected), expected), "")
            for file, expected, understood in only_before.elements()
        ]
        moved += [
            Moved(file, expected, expected, understood, heard.get(file, ""))
            for (file, expected), understood in by_clip_after.items()
        ]
        new_wrong = sum(1 for item in moved if item.after not in (item.expected, "unknown"))
        clips = int(result["utterances"])
        found.append(
            Comparison(corpus, clips, clips - len(moved), tuple(moved), new_wrong, (_figures(result), _figures(other)))
        )
    return found


def _figures(result: Mapping[str, Any]) -> dict[str, Any]:
    commands = result["utterances"] - result["non_command_utterances"]
    accuracy = result["accuracy"]
    return {
        "understood": round(accuracy["share"] * accuracy["n"]) if accuracy else 0,
        "commands": commands,
        "wrong": result["wrong"],
        "talk_taken": result["false_accepts"],
        "talk": result["non_command_utterances"],
        "cpu": result.get("decision_cpu_ms", result.get("decode_ms")),  # older runs give only decode_ms
    }


def table(comparisons: Sequence[Comparison]) -> list[str]:
    lines = [
        "| corpus (clips) | same decisions | understood | wrong | talk taken | new wrong meanings "
        "| decision CPU p50 before → after | p95 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in comparisons:
        a, b = c.figures
        lines.append(
            f"| {c.corpus} ({c.clips}) | {c.same} ({100 * c.same / max(1, c.clips):.1f} %) "
            f"| {a['understood']} → {b['understood']} of {a['commands']} | {a['wrong']} → {b['wrong']} "
            f"| {a['talk_taken']} → {b['talk_taken']} of {a['talk']} | {c.new_wrong} "
            f"| {a['cpu']['p50']:.0f} → {b['cpu']['p50']:.0f} ms | {a['cpu']['p95']:.0f} → {b['cpu']['p95']:.0f} ms |"
        )
    for c in comparisons:
        for m in c.moved:
            lines.append(f"{c.corpus}: {m.file}: said {m.expected}; {m.before} → {m.after} {m.heard_after!r}")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--engines", default=f"{ENGINE},{ENGINE}", help="the engine of each run compared: BEFORE,AFTER")
    args = parser.parse_args(argv)
    runs = [json.loads(path.read_text(encoding="utf-8")) for path in (args.before, args.after)]
    before_engine, after_engine = args.engines.split(",")
    print("\n".join(table(compare(runs[0], runs[1], engines=(before_engine, after_engine)))))


if __name__ == "__main__":
    main()
