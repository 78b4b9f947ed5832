"""`voicemaster bench asr` on telephone-band audio (`speech.hearing.band`): per language, the curve its own margins
(`decision.NARROWBAND`) were chosen from, and every curve's decisions made again the way the game makes them."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from voicemaster.dialogue.meaning import Heard, Intent
from voicemaster.speech.hearing.whisper.decision import MARGINS, NARROWBAND, decide
from voicemaster_lab.asr.options import SampleLike, WeighedLike, free_readings
from voicemaster_lab.asr.tally import right

MEANING_MARGINS = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0)
FREE_MARGINS = (6.0, 4.0, 3.0, 2.0)


def curve(weighed: Sequence[WeighedLike]) -> dict[str, dict[str, Any]]:
    """Per language, its telephone-band decisions made again at each pair of meaning and free margins (the doubt and
    undecided margins as the language's telephone margins have them, and at least the meaning margin): understood,
    wrong meanings and false accepts."""
    by_language: dict[str, list[WeighedLike]] = defaultdict(list)
    for item in weighed:
        if item.evidence.narrowband:
            by_language[item.sample.language].append(item)
    found: dict[str, dict[str, Any]] = {}
    for language, items in sorted(by_language.items()):
        free = free_readings(items)
        own = NARROWBAND.get(language, MARGINS)
        points = []
        for meaning in MEANING_MARGINS:
            for free_margin in FREE_MARGINS:
                margins = replace(
                    MARGINS,
                    meaning=meaning,
                    free=free_margin,
                    doubted=max(meaning, own.doubted),
                    undecided=max(meaning, own.undecided),
                )
                again = [
                    (item.sample, decide(item.evidence, reading, item.heard.text, margins))
                    for item, reading in zip(items, free, strict=True)
                ]
                marks = [_mark(sample, heard) for sample, heard in again]
                points.append(
                    {
                        "meaning": meaning,
                        "free": free_margin,
                        "understood": marks.count("understood"),
                        "wrong": marks.count("wrong"),
                        "false_accepts": marks.count("false accept"),
                    }
                )
        found[language] = {"n": len(items), "in_use": {"meaning": own.meaning, "free": own.free}, "points": points}
    return found


def _mark(sample: SampleLike, heard: Heard) -> str:
    if sample.intent == "unknown":
        return "refused" if heard.intent is Intent.UNKNOWN else "false accept"
    if right(sample, heard):
        return "understood"
    return "asked again" if heard.intent is Intent.UNKNOWN else "wrong"


def report(found: dict[str, dict[str, Any]]) -> list[str]:
    lines = []
    for language, row in found.items():
        in_use = row["in_use"]
        lines.append(
            f"    narrowband curve, {language} ({row['n']} telephone-band decisions; in use meaning "
            f"{in_use['meaning']:g}, free {in_use['free']:g}): understood / wrong / false accepts"
        )
        lines.append("      meaning \\ free " + "".join(f"{free:>14g}" for free in FREE_MARGINS))
        for meaning in MEANING_MARGINS:
            cells = [p for p in row["points"] if p["meaning"] == meaning]
            text = "".join(f"{p['understood']:>6} /{p['wrong']:>2} /{p['false_accepts']:>3}" for p in cells)
            lines.append(f"      {meaning:>7g}     {text}")
    return lines
