"""`voicemaster bench asr` on option words said by people (`corpora.option_words`): per language and source how many
were understood the first time, asked again and taken for another option, and per language the curve the decision's
doubt margin was chosen from (understood against wrong, had the margins been others).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.hearing.intents import Understanding, understand
from voicemaster.speech.hearing.phrases import load as load_phrases
from voicemaster.speech.hearing.whisper.decision import MARGINS, Evidence, Margins, decide, margins_for
from voicemaster_lab.corpora import option_words

MEANING_MARGINS = (0.5, 1.0, 1.5, 2.0, 3.0)
DOUBTED_MARGINS = (2.0, 3.0, 4.0, 5.0, 6.0, math.inf)
"""Up to the search's prune (`Tuning.prune`, 6.0): a rival further below the best is not scored, so a wider margin
would be made again on rivals the search never saw."""


class SampleLike(Protocol):
    @property
    def language(self) -> str: ...

    @property
    def condition(self) -> str: ...

    @property
    def value(self) -> str | None: ...

    @property
    def intent(self) -> str: ...


class WeighedLike(Protocol):
    @property
    def sample(self) -> SampleLike: ...

    @property
    def context(self) -> Context: ...

    @property
    def evidence(self) -> Evidence: ...

    @property
    def heard(self) -> Heard: ...


def clips(corpus: Path, languages: Sequence[str], limit: int | None) -> tuple[list[option_words.OptionClip], str]:
    """The option-word clips (made in the corpus folder where needed), and what is missing, said in one line."""
    found, missing = option_words.corpus(languages, corpus / "option-words", limit)
    return list(found), "; ".join(f"{what}: {why}" for what, why in missing.items())


def context_of(clip: option_words.OptionClip) -> Context:
    return Context(ContextName.ANSWER, clip.language, clip.options, ())


def outcome(sample: SampleLike, heard: Heard) -> str:
    if (heard.intent, heard.value) == (Intent.ANSWER, sample.value):
        return "understood"
    return "asked again" if heard.intent == Intent.UNKNOWN else "wrong"


def cells(outcomes: Sequence[tuple[SampleLike, Heard]]) -> dict[str, dict[str, dict[str, int]]]:
    """Per language and source: clips, understood the first time, asked again, taken for something else."""
    table: dict[str, dict[str, dict[str, int]]] = defaultdict(dict)
    for sample, heard in outcomes:
        cell = table[sample.language].setdefault(
            sample.condition, {"n": 0, "understood": 0, "asked again": 0, "wrong": 0}
        )
        cell["n"] += 1
        cell[outcome(sample, heard)] += 1
    return {language: dict(sorted(row.items())) for language, row in sorted(table.items())}


def free_readings(weighed: Sequence[WeighedLike]) -> list[Understanding]:
    """What the words of each decision's free reading mean, as the decision weighed them: a curve makes every
    decision again from these."""
    phrases = {item.sample.language: load_phrases(item.sample.language) for item in weighed}
    return [understand(item.heard.text, item.context, phrases[item.sample.language]) for item in weighed]


def decided_again(weighed: Sequence[WeighedLike], free: Sequence[Understanding], margins: Margins) -> list[Heard]:
    """Each decision made again at `margins`, telephone-band audio at its language's own margins as in a game."""
    return [
        decide(
            item.evidence,
            reading,
            item.heard.text,
            margins_for(item.sample.language, item.evidence.narrowband, margins),
        )
        for item, reading in zip(weighed, free, strict=True)
    ]


def curve(weighed: Sequence[WeighedLike]) -> dict[str, list[dict[str, Any]]]:
    """Per language, understood and wrong at every pair of meaning and doubt margins (the others as in use)."""
    by_language: dict[str, list[WeighedLike]] = defaultdict(list)
    for item in weighed:
        by_language[item.sample.language].append(item)
    found: dict[str, list[dict[str, Any]]] = {}
    for language, items in sorted(by_language.items()):
        free = free_readings(items)
        points = []
        for meaning in MEANING_MARGINS:
            for doubted in DOUBTED_MARGINS:
                margins = replace(MARGINS, meaning=meaning, doubted=doubted)
                marks = [
                    outcome(item.sample, heard)
                    for item, heard in zip(items, decided_again(items, free, margins), strict=True)
                ]
                points.append(
                    {
                        "meaning": meaning,
                        "doubted": doubted,
                        "understood": marks.count("understood"),
                        "wrong": marks.count("wrong"),
                        "n": len(marks),
                    }
                )
        found[language] = points
    return found


def undecided_report(points: Sequence[dict[str, Any]]) -> list[str]:
    cells = ", ".join(f"{p['undecided']:g}: {p['understood']} / {p['wrong']} / {p['false_accepts']}" for p in points)
    return [f"    undecided margin (in use {MARGINS.undecided:g}): understood / wrong / false accepts: {cells}"]


def chosen(points: dict[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
    """The margins with no wrong pick in any language and the most understood, the margins in use winning ties."""
    pairs = {(point["meaning"], point["doubted"]) for row in points.values() for point in row}
    best: tuple[int, bool, float, float] | None = None
    for meaning, doubted in pairs:
        row = [
            p for points_of in points.values() for p in points_of if (p["meaning"], p["doubted"]) == (meaning, doubted)
        ]
        if any(point["wrong"] for point in row):
            continue
        in_use = (meaning, doubted) == (MARGINS.meaning, MARGINS.doubted)
        key = (sum(point["understood"] for point in row), in_use, -meaning, -doubted)
        best = max(best, key) if best else key
    if best is None:
        return None
    return {"understood": best[0], "meaning": -best[2], "doubted": -best[3]}


def in_use(margins: Margins = MARGINS) -> str:
    return f"meaning {margins.meaning:g}, doubted {margins.doubted:g}"


def report(result: dict[str, Any]) -> list[str]:
    """The options corpus's table and curves, as lines of text."""
    lines = ["    per language and source: understood the first time / asked again / taken for another option"]
    for language, row in result.get("option_cells", {}).items():
        for source, cell in row.items():
            lines.append(
                f"      {language} {source:<18} {cell['understood']:>3} / {cell['asked again']:>3} / {cell['wrong']:>2}"
                f"  of {cell['n']:>3}  ({cell['understood'] / cell['n']:.0%} understood)"
            )
    points = result.get("option_curve", {})
    if points:
        lines.append(f"    margins (in use: {in_use()}): understood / wrong, per language")
        doubts = DOUBTED_MARGINS
        lines.append("      language meaning \\ doubted " + "".join(f"{doubt:>10g}" for doubt in doubts))
        for language, row in points.items():
            for meaning in MEANING_MARGINS:
                cells_of = [p for p in row if p["meaning"] == meaning]
                text = "".join(f"{p['understood']:>6} /{p['wrong']:>2}" for p in cells_of)
                lines.append(f"      {language:<8} {meaning:>7g}          {text}")
        best = result.get("option_chosen")
        lines.append(
            f"    chosen: meaning {best['meaning']:g}, doubted {best['doubted']:g} ({best['understood']} understood, "
            "0 wrong)"
            if best
            else "    chosen: no point without a wrong pick"
        )
    return lines
