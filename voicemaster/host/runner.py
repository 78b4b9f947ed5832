"""Carrying out the quizmaster's effects: speech to a speaker or a session file, listening, steps to a transcript.

The dialogue never sees a device or a clock; the runner keeps the game's time. Playing live it is the wall clock.
Writing a session it is the length of everything said and heard, so that the phone call's 30 seconds are 30 seconds
of session, whatever machine renders it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TextIO, TypeVar

from voicemaster.host.lines import Lines
from voicemaster.host.turns import (
    Effect,
    Elapsed,
    Listen,
    Observation,
    Play,
    ReadTimer,
    Record,
    Say,
    StartTimer,
    Voice,
    WaitUntil,
)
from voicemaster.speech import voices
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices import AudioOut, FileSink
from voicemaster.speech.synthesis import Espeak
from voicemaster.store import Store

Hear = Callable[[Listen, Say | None], Observation]
"""What came of listening, given the last line said: the microphone and the recognizer, or a simulated player."""


class Clock(Protocol):
    def now(self) -> float: ...

    def wait(self, seconds: float) -> None: ...


@dataclass
class SessionClock:
    """Time as the length of a session recording: waiting adds silence to it."""

    sink: FileSink

    def now(self) -> float:
        return self.sink.seconds

    def wait(self, seconds: float) -> None:
        self.sink.pause(seconds)


@dataclass
class WallClock:
    started: float = field(default_factory=time.monotonic)

    def now(self) -> float:
        return time.monotonic() - self.started

    def wait(self, seconds: float) -> None:
        time.sleep(seconds)


T = TypeVar("T")
EARCON_RATE = 22_050
_VOICE_STEPS = {
    ("rate", 1): voices.faster,
    ("rate", -1): voices.slower,
    ("volume", 1): voices.louder,
    ("volume", -1): voices.quieter,
}


def drive(dialogue: Generator[Effect, Observation | None, T], perform: Callable[[Effect], Observation | None]) -> T:
    """Run a dialogue to its end: each effect is performed, and what came of it is sent back. Returns what the
    dialogue returns."""
    try:
        effect = next(dialogue)
        while True:
            effect = dialogue.send(perform(effect))
    except StopIteration as ended:
        result: T = ended.value
        return result


@dataclass
class Transcript:
    """`transcript.jsonl`: one JSON object per line, each with the session time `t` in seconds."""

    out: TextIO

    def write(self, t: float, event: str, data: dict[str, Any]) -> None:
        self.out.write(json.dumps({"t": round(t, 3), "event": event, **data}, ensure_ascii=False) + "\n")
        self.out.flush()


@dataclass
class Runner:
    lines: Lines
    voice: Espeak
    out: AudioOut
    clock: Clock
    hear: Hear
    transcript: Transcript
    store: Store | None = None
    game_id: str = ""
    earcons: Callable[[str, int], Audio] | None = None
    last_said: Say | None = None
    _timer_start: float = 0.0

    @property
    def now(self) -> float:
        return self.clock.now()

    def perform(self, effect: Effect) -> Observation | None:
        match effect:
            case Say() as said:
                text = self.lines.render(said.key, said.params)
                self.last_said = said
                start = self.now
                self.out.play(self.voice.render(text, self.lines.language)).wait()
                self.transcript.write(start, "say", {"speaker": "host", "text": text, "start": start, "end": self.now})
            case Listen() as listen:
                self.transcript.write(
                    self.now, "listen", {"player": listen.player, "context": listen.context.name.value}
                )
                return self.hear(listen, self.last_said)
            case StartTimer(seconds):
                self._timer_start = self.now
                self.transcript.write(self.now, "timer", {"seconds": seconds})
            case ReadTimer():
                return Elapsed(self.now - self._timer_start)
            case WaitUntil(elapsed):
                self.clock.wait(max(0.0, self._timer_start + elapsed - self.now))
            case Play(earcon):
                self.transcript.write(self.now, "earcon", {"earcon": earcon})
                if self.earcons is not None:
                    self.out.play(self.earcons(earcon, EARCON_RATE)).wait()
            case Voice(setting, steps):
                language = self.lines.language
                changed = _VOICE_STEPS[(setting, 1 if steps > 0 else -1)](self.voice.voices[language])
                self.voice = replace(self.voice, voices={**self.voice.voices, language: changed})
            case Record(event, data, state):
                if state is not None:
                    if self.store is not None:
                        self.store.save_game(self.game_id, state, finished=bool(data.get("finished")))
                    return None
                self.transcript.write(self.now, event, dict(data))
        return None
