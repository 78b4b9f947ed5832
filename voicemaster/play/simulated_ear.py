"""The demo's ear: a simulated player's words, spoken in their own voice onto the `Stage`, heard through the pipeline
`play` listens through (endpointer, early decision, barge-in), and scored against what the player meant."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Say
from voicemaster.play.ear import Listened
from voicemaster.play.runner import Transcript
from voicemaster.play.stage import Stage
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, ListeningPipeline
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.hearing.voice_activity import SileroVad, VoiceActivity
from voicemaster.speech.voice.speakers import Engines, Speakers

MOST_UTTERANCES = 600
"""Twice what the longest demo game has needed: a quizmaster and players that keep missing each other stop here."""
SPEAKS_OVER = 0.25
"""How often a player who is asked for an answer does not wait for the quizmaster to finish."""
STAGE_SETTINGS = replace(DEFAULT_SETTINGS, barge_in=replace(DEFAULT_SETTINGS.barge_in, echo_coupling=0.0))
"""The endpointer's settings for the stage's room: its microphone hears the players and none of the quizmaster's
voice, so no echo need be gated out and a player who speaks over a line stops it at their first syllable."""


class DemoStuck(RuntimeError):
    pass


class Simulated(Protocol):
    def respond(self, listen: Listen, said: Say | None) -> str | None: ...

    def understood(self, clearly: bool) -> None: ...


@dataclass
class SimulatedEar:
    """Listens to simulated players as `play` listens to people; counts what was understood as meant."""

    players: Simulated
    stage: Stage
    recognizer: Recognizer
    transcript: Transcript
    language: str
    cast: Sequence[Voice]
    engines: Engines
    rng: random.Random
    vad: VoiceActivity = field(default_factory=SileroVad)
    cue: Audio | None = None
    """Played on the stage as soon as the end of a player's speech is heard (`ear.heard_cue`)."""
    utterances: int = 0
    understood: int = 0
    """Utterances heard as what the player meant."""
    mistaken: int = 0
    """Utterances heard as something the player did not mean (the rest were asked again)."""
    _voices: dict[str | None, Speakers] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._meanings = phrases.load(self.language)

    def listen(self, listen: Listen, said: Say | None, speaking: Playback | None) -> Listened:
        if self.utterances >= MOST_UTTERANCES:
            raise DemoStuck(f"the simulated players were not understood after {MOST_UTTERANCES} utterances")
        text = self.players.respond(listen, said)
        if not text:
            self.stage.speak(None, None, listen.timeout_seconds + 1.0)
            return self._hear(listen, speaking)
        voice = self._voice(listen.player).render(text, self.language)
        at = self.stage.speak(voice, self.speaks_at(listen, speaking), 0.0)
        self.transcript.write(at, "player", {"player": listen.player, "speaker": "player", "text": text})
        listened = self._hear(listen, speaking)
        heard = listened.observation
        # What the player meant is what their words mean as written; a player who is answered as if they had said
        # something else notices it, and says it another way next time.
        meant = understand(text, listen.context, self._meanings)
        intent, value = (heard.intent, heard.value) if isinstance(heard, Heard) else (Intent.UNKNOWN, None)
        right = (intent, value) == (meant.intent, meant.value)
        self.utterances += 1
        self.understood += right
        self.mistaken += not right and intent != Intent.UNKNOWN
        self.players.understood(right)
        return listened

    def _hear(self, listen: Listen, speaking: Playback | None) -> Listened:
        context, timeout = listen.context, listen.timeout_seconds
        # The session's clock, which reading does not move (as rendering does not): the early decision is taken as on
        # a machine that reads at once, the same on every machine.
        stage, sound = self.stage, self.cue
        cue = None if sound is None else (lambda: stage.cue(sound))
        # No room's level (`RoomLevel`): the stage's microphone is a studio, and what a player says on after an early
        # end is queued to the next listening, where it would pass for the room.
        hearing = ListeningPipeline(
            stage, self.recognizer, vad=self.vad, settings=STAGE_SETTINGS, clock=stage.now, cue=cue
        ).listen(context, timeout, speaking)
        self.stage.settle()
        return Listened.from_hearing(hearing)

    def _voice(self, player: str | None) -> Speakers:
        if player not in self._voices:
            cast = self.cast[len(self._voices) % len(self.cast)]
            self._voices[player] = Speakers({self.language: cast}, self.engines)
        return self._voices[player]

    def speaks_at(self, listen: Listen, speaking: Playback | None) -> float | None:
        """Seconds into the line that plays (`speaking`) where the player begins to speak, or None: after it ends.

        The hook an ear that stages its players overrides (the demo's `CuedEar` follows its script); here a player
        asked for an answer cuts in at random (`SPEAKS_OVER`), 60-90 % into the line, and waits otherwise."""
        if speaking is None or speaking.done() or listen.context.name is not ContextName.ANSWER:
            return None
        if self.rng.random() >= SPEAKS_OVER:
            return None
        return self.rng.uniform(0.6, 0.9) * speaking.audio.seconds
