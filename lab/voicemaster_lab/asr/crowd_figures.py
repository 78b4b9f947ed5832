"""`voicemaster bench asr` and the crowd (`speech.hearing.crowd`): each clip judged as the listening pipeline judges
it, against the room heard alone before it (`corpora.room_alone`), and, per room (a sample's condition), the curve
the rise over the room was chosen from: every grammar decision made again at each rise, with how many clips it takes
for a crowd; beside it the rule before (decision 014: the utterance's own loudness range under 13 dB), made again
the same way, for the A/B (docs/decisions/022-crowd-by-the-room.md).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from voicemaster.dialogue.meaning import Context, Heard
from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_BYTES
from voicemaster.speech.frontend.room_level import Smoothed
from voicemaster.speech.hearing.crowd import CROWDED_RISE_DB, rise_over_room
from voicemaster.speech.hearing.intents import Understanding
from voicemaster.speech.hearing.whisper.decision import MARGINS, Evidence
from voicemaster.speech.signal import RECOGNITION_RATE, resample
from voicemaster_lab.asr.options import SampleLike, WeighedLike, decided_again, free_readings
from voicemaster_lab.asr.tally import right, tally
from voicemaster_lab.corpora import room_alone

RISES = (4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 20.0, 25.0)
"""The rises over the room's floor the curve tries, in dB."""


class _Sample(SampleLike, Protocol):
    @property
    def path(self) -> Path: ...

    @property
    def room(self) -> Path | None: ...


class _Weighed(WeighedLike, Protocol):
    @property
    def sample(self) -> _Sample: ...


@dataclass(frozen=True)
class _Judged:
    """A decision with the crowd judged anew."""

    sample: _Sample
    context: Context
    evidence: Evidence
    heard: Heard


def rise(sample: _Sample) -> float | None:
    """How far the clip rises over the room heard before it (`crowd.rise_over_room`); None where no room was."""
    return _rise(sample.path, sample.room)


@functools.lru_cache(maxsize=4096)
def _rise(path: Path, room: Path | None) -> float | None:
    floor = room_alone.floor(Audio.read(room)) if room is not None else None
    return rise_over_room(Audio.read(path), floor)


def crowded(sample: _Sample) -> bool:
    """Whether the game would have taken the clip for one said over other people's talk."""
    found = rise(sample)
    return found is not None and found < CROWDED_RISE_DB


BEFORE_RANGE_DB = 13.0
"""The rule before: an utterance whose speech-band loudness spans less than this was crowded (decision 014)."""
BEFORE_FEWEST_FRAMES = 6


def crowded_before(sample: _Sample) -> bool:
    """Whether the rule before (decision 014) took the clip for a crowd, by its own loudness range."""
    return _spans_little(sample.path)


@functools.lru_cache(maxsize=4096)
def _spans_little(path: Path) -> bool:
    pcm = resample(Audio.read(path), RECOGNITION_RATE).samples
    smoothed = Smoothed()
    levels = [smoothed.level(pcm[at : at + FRAME_BYTES]) for at in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES)]
    if len(levels) < BEFORE_FEWEST_FRAMES:
        return False
    loudness = 10 * np.log10(np.asarray(levels) + 1e-3)
    return bool(np.percentile(loudness, 90) - np.percentile(loudness, 10) < BEFORE_RANGE_DB)


def curve(weighed: Sequence[_Weighed]) -> dict[str, dict[str, Any]]:
    """Per room (condition): its grammar decisions made again had the crowd been judged by the rule before
    ("before") and by the room at each rise of `RISES` ("by_rise"), each with the clips taken for a crowd, commands
    understood, wrong meanings and false accepts (the other margins as in use)."""
    by_condition: dict[str, list[_Weighed]] = defaultdict(list)
    for item in weighed:
        by_condition[item.sample.condition].append(item)
    found: dict[str, dict[str, Any]] = {}
    for condition, items in sorted(by_condition.items()):
        free = free_readings(items)
        rises = [rise(item.sample) for item in items]
        found[condition] = {
            "n": len(items),
            "before": _made_again(items, free, [crowded_before(item.sample) for item in items]),
            "by_rise": [
                {"rise_db": at, **_made_again(items, free, [each is not None and each < at for each in rises])}
                for at in RISES
            ],
        }
    return found


def _made_again(items: Sequence[_Weighed], free: Sequence[Understanding], judged: Sequence[bool]) -> dict[str, int]:
    again = [
        _Judged(item.sample, item.context, replace(item.evidence, crowded=crowd), item.heard)
        for item, crowd in zip(items, judged, strict=True)
    ]
    heard = list(zip([item.sample for item in items], decided_again(again, free, MARGINS), strict=True))
    counted = tally(heard)
    return {
        "crowded": sum(judged),
        "understood": sum(right(sample, meant) for sample, meant in heard if sample.intent != "unknown"),
        "wrong": counted["wrong"],
        "false_accepts": counted["false_accepts"],
    }
