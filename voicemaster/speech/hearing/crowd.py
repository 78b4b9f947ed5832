"""Whether an utterance was said among other people talking, judged by the room: at a party, Whisper base reads the
room's talk into the player's words, and its phrase scores pick an answer or a command from it.

The sign is how far the utterance's loudest moment rises over the room heard before the player spoke: the room's
floor (`frontend.room_level.RoomLevel`, which the endpointer keeps from what it hears while it waits for a player),
both in the speech band and smoothed over six 32 ms frames. A player alone rises far over a quiet room, a living
room, a far corner or a car's road (which has little in the speech band), whatever the word's length; over other
people talking, a few dB. The utterance's own loudness range, the rule before, judged one short word said alone
crowded (docs/decisions/022-crowd-by-the-room.md). Where the room has not been heard (the first moments of a game, a
recording read alone), nothing is judged crowded; at a phone at the player's mouth, what the barge-in filter left
under our voice stands in for it until then (`RoomLevel.floor`). A crowded utterance's meaning is taken only where
the decoder's own words name it (`decision.decide`): the scores alone decide nothing there.
"""

from __future__ import annotations

import math

from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_BYTES
from voicemaster.speech.frontend.room_level import Smoothed
from voicemaster.speech.signal import RECOGNITION_RATE, resample

CROWDED_RISE_DB = 14.0
"""Rising less than this over the room's floor, an utterance is crowded (the curve over every room:
docs/decisions/022-crowd-by-the-room.md)."""


def rise_over_room(utterance: Audio, floor: float | None) -> float | None:
    """How many dB the utterance's loudest 0.19 s rises over the room's `floor` (`RoomLevel.floor`), in the speech
    band; None where the room is not known or the utterance is shorter than a frame."""
    if floor is None:
        return None
    pcm = resample(utterance, RECOGNITION_RATE).samples
    smoothed = Smoothed()
    levels = [smoothed.level(pcm[at : at + FRAME_BYTES]) for at in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES)]
    if not levels:
        return None
    return 10 * math.log10((max(levels) + 1e-3) / (floor + 1e-3))


def crowded(utterance: Audio, floor: float | None) -> bool:
    """Whether the utterance was said over other people's talk, the room's floor being `floor` when the player
    began (None: not heard yet)."""
    rise = rise_over_room(utterance, floor)
    return rise is not None and rise < CROWDED_RISE_DB
