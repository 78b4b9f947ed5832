"""What a runner listens through: an `Ear` hears one utterance and says what came of it, as a `Listened` value.

The runner owns the game's time, its lines and its transcript; an ear owns the microphone (or the simulated player)
and the pipeline. What happened while listening (the player spoke over the line, the reading ended the utterance
early, the devices stood still) comes back on the value, decided once where it happened, so the runner writes it
down and acts on it without working it out again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from voicemaster.dialogue.turns import Listen, Observation, Say, Silence
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.hearing.ahead import Speculation
from voicemaster.speech.hearing.pipeline import Hearing, StageEvent
from voicemaster.speech.voice.earcons import HEARD, earcon

CUE_RATE = 22_050


def heard_cue(on: bool) -> Audio | None:
    """The sound an ear plays as soon as the end of a player's speech is heard (`[speech] heard_cue`), or None."""
    return earcon(HEARD, CUE_RATE) if on else None


@dataclass(frozen=True)
class Listened:
    """What came of one listening."""

    observation: Observation
    """What the quizmaster is told: `Heard` or `Silence`."""
    barged_in_at: float | None = None
    """Seconds into the quizmaster's line where the player's voice stopped it; None when it played out."""
    early: bool = False
    """Whether a clear reading at a short pause ended the utterance before the whole pause."""
    stalled: bool = False
    """The devices stood still while listening (Ctrl-Z, a suspend): the silence was the program's, not the players';
    the runner says where the game was and listens again."""
    speculation: Speculation | None = None
    """What reading ahead did, where the ear reads ahead (a live microphone)."""
    cued_at: float | None = None
    """Seconds of audio since listening began where the heard cue was last played; None when none was."""
    phone_lost: bool = False
    """The player's phone hung up or went quiet while it was listened to: nothing was decided; the runner says so and
    listens again (through the room's microphone)."""
    phone_behind: bool = False
    """With `phone_lost`: the phone is still joined but this machine fell behind and dropped some of its sound; the
    runner asks the player to say it again, into the same phone."""
    stages: tuple[StageEvent, ...] = ()
    """How the listening pipeline went, stage by stage (`speech.hearing.pipeline`): written to the game's log."""

    @classmethod
    def from_hearing(cls, hearing: Hearing, *, stalled: bool = False) -> Listened:
        heard = hearing.heard
        observation = Silence() if heard is None else heard
        return cls(
            observation,
            hearing.barged_in_at,
            hearing.early,
            stalled,
            hearing.speculation,
            hearing.cued_at,
            stages=hearing.events,
        )


class Ear(Protocol):
    def listen(self, listen: Listen, said: Say | None, speaking: Playback | None) -> Listened:
        """One utterance for `listen`, given the last line said and its playback if it is still playing (the player
        may speak over it)."""
        ...


@dataclass(frozen=True)
class Answers:
    """An ear that answers from a function, with no audio: scripted players and tests."""

    answer: Callable[[Listen, Say | None, Playback | None], Observation]

    def listen(self, listen: Listen, said: Say | None, speaking: Playback | None) -> Listened:
        return Listened(self.answer(listen, said, speaking))
