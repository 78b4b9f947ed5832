"""A phone's page sending what the phone hears in one of `bench room`'s rooms, frame by frame as the game reads it: the
room and the player, and the echo of what the loudspeaker played meanwhile through its response to the phone."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace

import numpy as np
import pytest

from voicemaster.config.settings import FrontEndConfig
from voicemaster.config.voice import Voice
from voicemaster.phones.server import BEHIND_SECONDS
from voicemaster.play.live import through_phone
from voicemaster.play.stage import StagePlayback
from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.devices.phone import PhoneMicrophone
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS, Frame
from voicemaster.speech.frontend import FrontEndUnavailable, PlayedSound, usable_front_end
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, ListeningPipeline, PipelineStage
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster.speech.voice.speakers import Speakers

Signal = np.ndarray
WAITED_SECONDS = 30.0
"""How long the phone's front end may take to clean a message on a loaded machine: a guard, not a measure."""
ECHO_DELAY_SECONDS = 0.1
"""From the phone's reference to the echo in its sound: the devices' buffers and the Wi-Fi."""
GAP_SECONDS = 0.4
"""The player answers this long after the line ends, as `bench room`'s player does (within the echo's tail)."""


def pcm(signal: Signal) -> bytes:
    """`signal` as whole frames of 16-bit audio at 16 kHz."""
    made = from_float(np.clip(signal, -1.0, 1.0), RECOGNITION_RATE).samples
    return made[: len(made) - len(made) % FRAME_BYTES]


@dataclass
class PhoneSending:
    """`AudioIn` over the phone: its page sends one message for each frame the game reads, of `heard` (the room and
    the player) and the echo of what the loudspeaker played meanwhile, as the line moves on one frame each."""

    phone: PhoneMicrophone
    played: PlayedSound
    echo: Signal
    heard: bytes = b""
    line: StagePlayback | None = None

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        inner = self.phone.frames(during, before=before)
        for _ in range(round(before / FRAME_SECONDS)):  # the room's pre-roll: the scene begins where listening does
            next(inner)
        history = np.zeros(len(self.echo) - 1)
        for sent in range(len(self.heard) // FRAME_BYTES):
            line, played = self.line, bytes(FRAME_BYTES)
            if line is not None and not line.done():
                line.elapsed = sent * FRAME_SECONDS
                played = line.played(FRAME_BYTES)
            self.played.add(played)
            history = np.concatenate([history, np.frombuffer(played, dtype="<i2").astype(np.float64)])
            echoed = np.convolve(history[-(len(self.echo) + FRAME_BYTES // 2 - 1) :], self.echo, mode="valid")
            block = np.frombuffer(self.heard[sent * FRAME_BYTES : (sent + 1) * FRAME_BYTES], dtype="<i2")
            self.phone.receive(np.clip(np.round(block + echoed), -32768, 32767).astype("<i2").tobytes())
            assert self.phone.settle(WAITED_SECONDS)
            yield next(inner)

    def room_alone(self, room: bytes) -> None:
        """What the phone sends while the game decides: the room, nothing played."""
        for at in range(0, len(room), FRAME_BYTES):
            self.phone.receive(room[at : at + FRAME_BYTES])
        assert self.phone.settle(WAITED_SECONDS)


def in_the_game_voice(texts: list[str]) -> list[Signal]:
    """The quizmaster's German `texts` in the game's own voice, at the recognizer's rate."""
    speakers = Speakers({"de": Voice()})
    return [to_float(resample(speakers.render(text, "de"), RECOGNITION_RATE)).astype(np.float64) for text in texts]


def phone_listening(response: Signal, player: str = "") -> tuple[PhoneSending, ListeningPipeline]:
    """A phone at `player`'s mouth (a new player's: "") sending what it hears, our echo through `response`
    `ECHO_DELAY_SECONDS` behind its reference, and the game's phone pipeline over it (`play.live.through_phone`, AEC3
    and the barge-in filter, the shipped settings), each listening heard up to its endpointer."""
    try:
        front_end = usable_front_end(**asdict(FrontEndConfig()), settings=BargeInSettings())[0]
    except FrontEndUnavailable as missing:
        pytest.skip(str(missing))
    played = PlayedSound()
    phone = PhoneMicrophone(player, front_end, played.branch(BEHIND_SECONDS))
    echo = np.concatenate([np.zeros(round(ECHO_DELAY_SECONDS * RECOGNITION_RATE)), response])
    source = PhoneSending(phone, played, echo)
    game = ListeningPipeline(phone, None, SileroVad(), DEFAULT_SETTINGS, end_stage=PipelineStage.ENDPOINTER)
    return source, replace(through_phone(game, phone), source=source)
