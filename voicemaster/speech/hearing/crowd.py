"""Whether an utterance was said among other people talking: at a party, Whisper base reads the room's talk into the
player's words, and its phrase scores pick an answer or a command from it.

The sign is the utterance's range of loudness in the speech band (`frontend.room_level.band_power`, smoothed over six
32 ms frames as the room's level is): between the loudest and the quietest tenth of its frames, a voice in a quiet or
reverberant room spans far more than over other people talking a few dB below it (`bench asr --corpora rooms`
counts the crowded decisions of each room; docs/decisions/014-crowd-rule.md). A crowded utterance's meaning is taken
only where the decoder's own words name it (`decision.decide`): the scores alone decide nothing there.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from voicemaster.speech.frame import FRAME_BYTES
from voicemaster.speech.frontend.room_level import Smoothed

CROWDED_RANGE_DB = 13.0
"""Below this range an utterance is crowded: most of those over talk 5 dB below the player, none in a quiet room, a
living room or the far corner, a few in road noise (the shares at 11, 13 and 15 dB:
docs/decisions/014-crowd-rule.md)."""
FEWEST_FRAMES = 6
"""Shorter than this (0.19 s), an utterance has no range to speak of."""


def crowded(samples: npt.NDArray[np.float32]) -> bool:
    """Whether the utterance (mono, 16 kHz, -1..1) was said over other people's talk."""
    pcm = np.clip(np.round(samples * 32768.0), -32768, 32767).astype("<i2").tobytes()
    smoothed = Smoothed()
    levels = [smoothed.level(pcm[at : at + FRAME_BYTES]) for at in range(0, len(pcm) - FRAME_BYTES + 1, FRAME_BYTES)]
    if len(levels) < FEWEST_FRAMES:
        return False
    loudness = 10 * np.log10(np.asarray(levels) + 1e-3)
    return bool(np.percentile(loudness, 90) - np.percentile(loudness, 10) < CROWDED_RANGE_DB)
