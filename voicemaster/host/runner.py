"""Carrying out the quizmaster's effects: speech to an audio sink, listening to a recognizer, steps to a transcript.

The dialogue never sees a device or a clock. The runner keeps the game's time: the length of everything said and
heard, so that the phone call's 30 seconds are 30 seconds of session, whatever machine plays it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TextIO

from voicemaster.host.lines import Lines
from voicemaster.host.turns import (
    Dialogue,
    Effect,
    Listen,
    Observation,
    Play,
    Record,
    Say,
    StartTimer,
    Voice,
    WaitUntil,
)
from voicemaster.speech import voices
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices import FileSink
from voicemaster.speech.synthesis import Espeak
from voicemaster.store import Store

Hear = Callable[[Listen, Say | None], tuple[Observation, Audio | None]]
"""What a player says when the quizmaster listens, given the last line said: what was understood, and the audio
heard (None for silence), which goes into the session recording."""

_VOICE_STEPS = {
    ("rate", 1): voices.faster,
    ("rate", -1): voices.slower,
    ("volume", 1): voices.louder,
    ("volume", -1): voices.quieter,
}


def drive(dialogue: Dialogue, perform: Callable[[Effect], Observation | None]) -> None:
    """Run a dialogue to its end: each effect is performed, and what came of it is sent back."""
    try:
        effect = next(dialogue)
        while True:
            effect = dialogue.send(perform(effect))
    except StopIteration:
        return


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
    speaker: Espeak
    sink: FileSink
    hear: Hear
    transcript: Transcript
    store: Store | None = None
    game_id: str = ""
    earcons: Callable[[str, int], Audio] | None = None
    last_said: Say | None = None
    _timer_start: float = 0.0
    _log: list[dict[str, Any]] = field(default_factory=list)

    @property
    def now(self) -> float:
        return self.sink.seconds

    def perform(self, effect: Effect) -> Observation | None:
        match effect:
            case Say() as said:
                text = self.lines.render(said.key, said.params)
                self.last_said = said
                start = self.now
                self.sink.play(self.speaker.render(text, self.lines.language))
                self.transcript.write(start, "say", {"speaker": "host", "text": text, "start": start, "end": self.now})
            case Listen() as listen:
                start = self.now
                observation, reply = self.hear(listen, self.last_said)
                if reply is None:
                    self.sink.pause(listen.timeout_seconds)
                else:
                    self.sink.play(reply)
                self.transcript.write(start, "listen", {"player": listen.player, "context": listen.context.name.value})
                return observation
            case StartTimer(seconds):
                self._timer_start = self.now
                self.transcript.write(self.now, "timer", {"seconds": seconds})
            case WaitUntil(elapsed):
                self.sink.pause(max(0.0, self._timer_start + elapsed - self.now))
            case Play(earcon):
                self.transcript.write(self.now, "earcon", {"earcon": earcon})
                if self.earcons is not None:
                    self.sink.play(self.earcons(earcon, self.sink.rate))
            case Voice(setting, steps):
                language = self.lines.language
                changed = _VOICE_STEPS[(setting, 1 if steps > 0 else -1)](self.speaker.voices[language])
                self.speaker = replace(self.speaker, voices={**self.speaker.voices, language: changed})
            case Record(event, data, state):
                if state is not None:
                    if self.store is not None:
                        self.store.save_game(self.game_id, state)
                    return None
                self.transcript.write(self.now, event, dict(data))
        return None
