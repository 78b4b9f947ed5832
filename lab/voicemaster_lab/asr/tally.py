"""What was said against what was understood: the figures `bench asr` prints for a set of outcomes (commands
understood, taken for something else or asked again; talk taken for a command; decode times; per source and kind;
what the grammar refused though the decoder read it right)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Protocol

from voicemaster.dialogue.meaning import Heard, Intent
from voicemaster_lab.asr.samples import Sample


class _Meaning(Protocol):
    @property
    def intent(self) -> str: ...

    @property
    def value(self) -> str | None: ...


def right(said: _Meaning, meant: _Meaning) -> bool:
    return (meant.intent, meant.value) == (said.intent, said.value)


def tally(outcomes: Sequence[tuple[_Meaning, _Meaning]]) -> dict[str, Any]:
    """What was said against what was understood: commands understood, taken for something else, and non-command
    talk taken for a command."""
    commands = [(said, meant) for said, meant in outcomes if said.intent != "unknown"]
    talk = [meant for said, meant in outcomes if said.intent == "unknown"]
    return {
        "utterances": len(outcomes),
        "accuracy": share([right(said, meant) for said, meant in commands]),
        "wrong": sum(1 for said, meant in commands if meant.intent != "unknown" and not right(said, meant)),
        "non_command_utterances": len(talk),
        "false_accepts": sum(1 for meant in talk if meant.intent != "unknown"),
    }


def summarize(outcomes: Sequence[tuple[Sample, Heard]]) -> dict[str, Any]:
    commands = [(clip, heard) for clip, heard in outcomes if clip.intent != "unknown"]
    cells: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for clip, heard in commands:
        cells[clip.language][clip.condition].append(right(clip, heard))
    times = [heard.decode_ms for _, heard in outcomes]
    talk = [(clip, heard) for clip, heard in outcomes if clip.intent == "unknown"]
    return {
        **tally(outcomes),
        "accuracy_by_language": {
            language: {condition: share(marks) for condition, marks in sorted(row.items())}
            for language, row in sorted(cells.items())
        },
        "asked_again": share([heard.intent == Intent.UNKNOWN for _, heard in commands]),
        "false_accepts_by_context": {
            context: sum(1 for clip, heard in talk if clip.context == context and heard.intent != Intent.UNKNOWN)
            for context in sorted({clip.context.value for clip, _ in talk})
        },
        "decode_ms": percentiles(times),
        "by_source": by_source(outcomes),
        "refused_though_read": refused_though_read(outcomes),
        "mistakes": [
            {
                "file": str(clip.path),
                "said": clip.text,
                "kind": clip.kind,
                "expected": _meaning(clip.intent, clip.value),
                "heard": heard.text,
                "understood": _meaning(heard.intent, heard.value),
            }
            for clip, heard in outcomes
            if not right(clip, heard)
        ],
    }


def by_source(outcomes: Sequence[tuple[Sample, Heard]]) -> dict[str, Any]:
    """Per condition (a real recording's source) and language, and per kind: commands understood, taken for
    something else, asked again; non-commands taken for a command."""
    groups: dict[str, dict[str, list[tuple[Sample, Heard]]]] = defaultdict(lambda: defaultdict(list))
    for sample, heard in outcomes:
        groups[f"{sample.condition} {sample.language}"]["all"].append((sample, heard))
        if sample.kind:
            groups[f"{sample.condition} {sample.language}"][sample.kind].append((sample, heard))
    found: dict[str, Any] = {}
    for group, kinds in sorted(groups.items()):
        found[group] = {}
        for kind, members in sorted(kinds.items(), key=lambda item: (item[0] != "all", item[0])):
            commands = [heard for sample, heard in members if sample.intent != "unknown"]
            found[group][kind] = {
                **tally(members),
                "asked_again": sum(1 for heard in commands if heard.intent == Intent.UNKNOWN),
            }
    return found


READ_NEARLY = 0.85
"""A free reading this close (in share of letters, after normalizing) to what was said counts as read right."""


def refused_though_read(outcomes: Sequence[tuple[Sample, Heard]]) -> dict[str, Any]:
    """Commands asked again although the decoder's own free reading was what was said, exactly or nearly: the
    grammar, not the ear, refused them. The goal is none."""
    from rapidfuzz.distance import Levenshtein

    from voicemaster.speech.hearing.normal_form import normalize

    refused = []
    for sample, heard in outcomes:
        if sample.intent == "unknown" or heard.intent != Intent.UNKNOWN:
            continue
        said, read = normalize(sample.text, sample.language), normalize(heard.text, sample.language)
        if said and read and Levenshtein.normalized_similarity(said, read) >= READ_NEARLY:
            refused.append({"file": str(sample.path), "said": sample.text, "heard": heard.text, "exact": said == read})
    return {
        "exact": sum(1 for item in refused if item["exact"]),
        "near": sum(1 for item in refused if not item["exact"]),
        "utterances": refused,
    }


def percentiles(values: Sequence[float]) -> dict[str, float | None]:
    return {
        "p50": round(statistics.median(values), 1) if values else None,
        "p95": round(statistics.quantiles(values, n=20)[-1], 1) if len(values) > 1 else None,
    }


def _meaning(intent: str, value: str | None) -> str:
    return intent + (f" {value}" if value else "")


def share(marks: Sequence[bool]) -> dict[str, float | int] | None:
    return {"share": round(sum(marks) / len(marks), 4), "n": len(marks)} if marks else None
