"""Changing the quizmaster's voice during a game: "langsamer", "schneller", "lauter", "leiser".

Pure functions on `Voice`: the dialogue keeps the voice of the moment and replaces it when a player asks. Each step
changes the rate or volume by a fixed factor, so three steps make a clear difference and none is startling, and stops
at bounds that stay intelligible: eSpeak-NG below ~100 words a minute drags syllables apart, above ~280 words run
together for a listener who cannot read along.
"""

from __future__ import annotations

from dataclasses import replace

from voicemaster.config.voice import Voice

SLOWEST = 100
FASTEST = 280
RATE_STEP = 1.15
"""About 15 % per request: 160 words a minute reaches the slowest in three steps, the fastest in four."""

QUIETEST = 40
LOUDEST = 200
VOLUME_STEP = 1.25


def slower(voice: Voice) -> Voice:
    return _with_rate(voice, round(voice.rate / RATE_STEP))


def faster(voice: Voice) -> Voice:
    return _with_rate(voice, round(voice.rate * RATE_STEP))


def quieter(voice: Voice) -> Voice:
    return _with_volume(voice, round(voice.volume / VOLUME_STEP))


def louder(voice: Voice) -> Voice:
    # From near silence a factor would take many steps: the first one goes straight to the quietest usable level.
    return _with_volume(voice, max(round(voice.volume * VOLUME_STEP), QUIETEST))


def _with_rate(voice: Voice, wanted: int) -> Voice:
    # A configured rate outside the bounds is the user's choice: a step never moves it the other way.
    return replace(voice, rate=_towards(voice.rate, wanted, SLOWEST, FASTEST))


def _with_volume(voice: Voice, wanted: int) -> Voice:
    return replace(voice, volume=_towards(voice.volume, wanted, QUIETEST, LOUDEST))


def _towards(current: int, wanted: int, lowest: int, highest: int) -> int:
    if wanted < current:
        return max(wanted, min(lowest, current))
    return min(wanted, max(highest, current))
