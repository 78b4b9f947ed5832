"""A laptop on the table as an `AudioIn`: its microphone hears the echo of what its own speaker plays (through the
room of `corpora.echo`, falling silent when the player barges in) and a real person across the table, and hands each
32 ms frame through a front end with the reference played in step, as the game's microphone does. For tests and
`bench frontend`, which play whole listenings through the game's pipeline on it."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from voicemaster.play.stage import StagePlayback
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Playback, Words
from voicemaster.speech.frame import FRAME_BYTES, Frame
from voicemaster.speech.frontend import FrontEnd
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster_lab.corpora import echo
from voicemaster_lab.corpora.rooms import Signal, speech_power

HUSH_DB = -60.0
"""The room's own noise under the line as played."""


@dataclass
class Laptop:
    """`AudioIn` of a laptop's microphone: the echo of what it plays (stopped when the player barges in) and the
    player, recorded in step with the reference the front end is given."""

    line: Audio
    player: Audio | None
    player_at: float
    front_end: FrontEnd
    words: tuple[Words, ...] = ()
    """What the line says, carried with its playback as the game's loudspeaker carries it."""
    echo_over_player_db: float = echo.ECHO_OVER_PLAYER_DB
    """Our voice's echo at the microphone over the player's speech."""
    playing: StagePlayback = field(init=False)

    def __post_init__(self) -> None:
        self.playing = StagePlayback(self.line, self.words)

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        del during, before
        line, played_whole, gain, echo_whole = _played_and_echo(self.line)
        length = len(played_whole)
        played = played_whole.copy()  # silenced from a barge-in on, in this listening only
        heard_echo = echo_whole
        voice = np.zeros(length)
        if self.player is not None:  # the player across the table, below our voice at the microphone
            spoken = to_float(resample(self.player, RECOGNITION_RATE)).astype(np.float64)
            across = echo.convolved(spoken, echo.room_response(1, 0))
            start = round(self.player_at * RECOGNITION_RATE)
            voice[start : start + len(across)] = across * np.sqrt(
                speech_power(heard_echo) / 10 ** (self.echo_over_player_db / 10) / speech_power(across)
            )
        hush = np.random.default_rng(7).standard_normal(length) * np.sqrt(speech_power(line)) * 10 ** (HUSH_DB / 20)
        step = FRAME_BYTES // 2
        for at in range(0, length - step + 1, step):
            if self.playing.stopped_at is not None and played[at:].any():  # barged in: the speaker falls silent
                played[at:] = 0.0
                heard_echo = echo.echo_path(played) * gain
            self.playing.elapsed = min(self.line.seconds, at / RECOGNITION_RATE)
            microphone = from_float(
                heard_echo[at : at + step] + voice[at : at + step] + hush[at : at + step], RECOGNITION_RATE
            )
            reference = from_float(played[at : at + step], RECOGNITION_RATE)
            yield self.front_end.process(microphone.samples, reference.samples)


@functools.lru_cache(maxsize=4)
def _played_and_echo(line: Audio) -> tuple[Signal, Signal, float, Signal]:
    """The line at 16 kHz, as played with four seconds of silence after it, its echo's gain, and its whole echo at the
    microphone: the same for every player heard over the same line, and two long convolutions to make, so made once.
    Read-only: a listening that is barged in on silences its own copy."""
    samples = to_float(resample(line, RECOGNITION_RATE)).astype(np.float64)
    played = np.zeros(len(samples) + 4 * RECOGNITION_RATE)
    played[: len(samples)] = samples
    gain = echo.coupling(samples)
    heard_echo = echo.echo_path(played) * gain
    for made in (samples, played, heard_echo):
        made.setflags(write=False)
    return samples, played, gain, heard_echo
