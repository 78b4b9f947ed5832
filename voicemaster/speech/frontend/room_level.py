"""How loud the room is in the speech band when nobody is talking to the quizmaster: the level a player must rise
above at a party.

The voice-activity model hears other people's talk as speech: at a party it never stops, so an utterance would never
end. What tells the player from them is level: the player speaks close to the microphone, louder than the room's
talk. `RoomLevel` follows the room on what the endpointer hears while it waits for a player, and on what the
microphone heard between two listenings (`Microphone`: while the game decides, before its next line); never a
player's utterance, never while our own voice may be in the microphone. `floor()` is its typical level in the speech
band (300-4000 Hz, where road noise has little and talk has most); a frame counts as the player's only when it rises
`EndpointSettings.floor_margin_db` above it (`speech.hearing.endpoint`), and so does what the barge-in filter leaves
of a frame while our voice plays: at a party, the others' talk stopped the quizmaster at every line. Until the room
has been heard alone (a game's first listenings), what the filter left of our voice's frames stands in for it there
(`floor_under_our_voice`). In a quiet room or a car the floor lies far below any player's voice and changes nothing
(`voicemaster bench endpoint`, docs/benchmarks.md).
"""

from __future__ import annotations

import collections
import functools

import numpy as np
import numpy.typing as npt

from voicemaster.speech.signal import RECOGNITION_RATE

BAND_HZ = (300.0, 4000.0)
SMOOTH_FRAMES = 6
"""A frame's level is the mean over it and the five before (0.19 s): a syllable, not a single pitch period."""
FLOOR_SECONDS = 3.0
"""How far back the floor looks: long enough that a player's short answer barely moves its median."""
LEAST_SECONDS = 1.0
"""Heard alone for less than this (the first listening of a game), the room is not known yet."""
UNDER_OUR_VOICE_PERCENTILE = 90.0
"""Before the room has been heard alone, its floor over our voice is this percentile of what the barge-in filter left
of the frames while our voice played and nobody had begun: near the loudest the room itself gets through the filter
(at a party, the others' talk in our voice's pauses), so that only a player rising over that stops the line; a high
percentile, as the player's first frames are heard before their utterance begins and must not become the floor
(docs/decisions/031-the-room-under-our-voice.md)."""


def band_power(frame: bytes) -> float:
    """The power of a frame of 16-bit audio at 16 kHz in the speech band (a Hann-windowed spectrum's sum)."""
    samples = np.frombuffer(frame, dtype="<i2").astype(np.float64)
    window, in_band = _analysis(len(samples))
    return float(np.sum(np.abs(np.fft.rfft(samples * window))[in_band] ** 2))


@functools.cache
def _analysis(length: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    frequencies = np.fft.rfftfreq(length, 1 / RECOGNITION_RATE)
    low, high = BAND_HZ
    return np.hanning(length), (frequencies >= low) & (frequencies <= high)


class Smoothed:
    """A frame's speech-band level over it and the `SMOOTH_FRAMES` - 1 before it."""

    def __init__(self) -> None:
        self._recent: collections.deque[float] = collections.deque(maxlen=SMOOTH_FRAMES)

    def level(self, frame: bytes) -> float:
        self._recent.append(band_power(frame))
        return float(np.mean(self._recent))

    def copy(self) -> Smoothed:
        twin = Smoothed()
        twin._recent.extend(self._recent)
        return twin


class EchoTail:
    """Whether a microphone hears the room alone: `tail_seconds` after the loudspeaker last played, as the reference
    it is handed with each block tells (our voice and its echo's tail are never the room's level)."""

    def __init__(self, tail_seconds: float) -> None:
        self._tail_seconds = tail_seconds
        self._quiet_seconds = 0.0
        """How long the reference has held nothing."""

    def alone(self, played: bytes) -> bool:
        """Whether the block heard with `played` (the reference in step with it) is the room's alone."""
        self._quiet_seconds = 0.0 if any(played) else self._quiet_seconds + len(played) / 2 / RECOGNITION_RATE
        return self._quiet_seconds >= self._tail_seconds


class RoomLevel:
    """The room's speech-band floor, kept from one listening to the next. The endpointer feeds it what it hears
    while it waits for a player and our own voice cannot be in the microphone (`Endpointer`), and the microphone what
    no listening read, out of our voice's reach (`Microphone`): never a player's utterance, never our voice, so the
    floor is the room's own. Both feed it on the listener's thread."""

    def __init__(self) -> None:
        self._alone = _Levels()
        """The room heard alone."""
        self._under = _Levels()
        """What the barge-in filter left of the frames while our voice played and nobody had begun."""

    def hear(self, frame: bytes) -> None:
        """One frame of the room alone."""
        self._alone.hear(frame)

    def floor(self, *, or_what_our_voice_leaves: bool = False) -> float | None:
        """The median speech-band level of the last `FLOOR_SECONDS` of the room heard alone; None until it has been
        heard for `LEAST_SECONDS`. With `or_what_our_voice_leaves` (a microphone at the player's mouth,
        `EndpointSettings.at_the_mouth`), until then what the filter left under our voice stands in for it
        (`floor_under_our_voice`): the room and what the filter leaves of our voice, never under the room's own,
        and far under a player at the mouth. At a party, where the quizmaster talks through the greeting and the
        player answers each line as it ends, the room is never heard alone before the first listenings, and the
        others' talk held them open until they were cut
        (docs/decisions/052-at-the-mouth-the-room-is-known-from-our-voice.md)."""
        alone = self._alone.percentile(50.0)
        if alone is None and or_what_our_voice_leaves:
            return self._under.percentile(UNDER_OUR_VOICE_PERCENTILE)
        return alone

    def hear_under_our_voice(self, left: bytes) -> None:
        """What the barge-in filter left of one frame while our voice played and nobody had begun."""
        self._under.hear(left)

    def floor_under_our_voice(self, *, what_our_voice_leaves: bool = False) -> float | None:
        """Over our voice, the level a player must rise over to stop our line: the room heard alone (`floor`) once
        it is known; before, in the first listenings of a game, where a player answering as each line ends leaves the
        room no quiet of its own, `UNDER_OUR_VOICE_PERCENTILE` of what the filter left under our voice; None until
        one of them has been heard for `LEAST_SECONDS`. With `what_our_voice_leaves` (a microphone at the player's
        mouth, `EndpointSettings.at_the_mouth`), the louder of the two once both are known: there our voice arrives
        from across the room, mostly as its reverberation, which the filter's few frames around the echo's delay do
        not explain, so in a quiet room it rose far over the room's own floor in each pause of a line and stopped it
        (docs/decisions/038-the-phone-hears-over-what-our-voice-leaves.md)."""
        alone = self.floor()
        if alone is not None and not what_our_voice_leaves:
            return alone  # the room's microphone, every frame while waiting: no percentile to work out
        left = self._under.percentile(UNDER_OUR_VOICE_PERCENTILE)
        if alone is None or left is None:
            return alone if alone is not None else left
        return max(alone, left)

    def copy(self) -> RoomLevel:
        """The room as it stands, to go back to (`go_back`); cheap enough for every frame."""
        twin = RoomLevel()
        twin._alone, twin._under = self._alone.copy(), self._under.copy()
        return twin

    def go_back(self, earlier: RoomLevel) -> None:
        """Forgets what was heard since `earlier` was copied from this room (`copy`): frames taken for the room's
        that turned out to be a player's first syllables."""
        self._alone, self._under = earlier._alone.copy(), earlier._under.copy()


class _Levels:
    """Smoothed speech-band levels over the last `FLOOR_SECONDS`, each with its frame's length."""

    def __init__(self) -> None:
        self._smoothed = Smoothed()
        self._levels: collections.deque[tuple[float, float]] = collections.deque()
        self._seconds = 0.0

    def hear(self, frame: bytes) -> None:
        self._levels.append((self._smoothed.level(frame), len(frame) / 2 / RECOGNITION_RATE))
        self._seconds += self._levels[-1][1]
        while self._seconds - self._levels[0][1] >= FLOOR_SECONDS:
            self._seconds -= self._levels.popleft()[1]

    def copy(self) -> _Levels:
        twin = _Levels()
        twin._smoothed = self._smoothed.copy()
        twin._levels, twin._seconds = collections.deque(self._levels), self._seconds
        return twin

    def percentile(self, share: float) -> float | None:
        """That percentile of the levels kept; None until `LEAST_SECONDS` have been heard."""
        if self._seconds < LEAST_SECONDS:
            return None
        return float(np.percentile([level for level, _ in self._levels], share))
