"""Whisper decided in int8 first, and again in float32 where the int8 decision is not sure: the cascade of issue 48,
measured as a `bench asr` engine (`whisper-int8-first`) beside the game's float32 one.

The int8 decision is CTranslate2's int8 encoder and the decoder graphs with every matrix int8, one scale per row
(`runtime_graphs.WAITING`, which set-up makes for the waiting quizmaster). It is taken alone only where `Sure` says
it is far from every margin the float32 decision weighs; else the clip is decided again from the start in float32,
as the game decides it. The rule, the probe it was set from and the figures: docs/decisions/050-int8-first.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from voicemaster.dialogue.meaning import Context, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.hearing.whisper.decision import Evidence
from voicemaster.speech.hearing.whisper.runtime import OnnxRuntime
from voicemaster.speech.hearing.whisper.runtime_graphs import WAITING
from voicemaster.speech.hearing.whisper.strategies import Tuning
from voicemaster_lab.asr.whisper_variants import WhisperVariant, as_played


@dataclass(frozen=True)
class Sure:
    """When an int8 decision stands alone: a meaning whose margins are far past the float32 decision's own (its
    meaning margin at least `meaning`, the free reading at most `free` above it), or an unknown that no margin could
    turn into a meaning (the free reading at least `unknown_free` above the best phrase, or two meanings within
    `unknown_meaning` of each other). Where the grammar did not decide (a placement, a new name), never."""

    meaning: float = 7.0
    free: float = 2.0
    unknown_free: float = 8.0
    unknown_meaning: float = -1.0
    """The defaults: the rule that took the most real recordings in int8 alone while keeping at least 99 % of every
    corpus's decisions and no new wrong meaning in the probe (decision 050); -1: no unknown is sure by its meaning
    margin (a margin is never below 0)."""

    def __call__(self, heard: Heard, evidence: Evidence | None) -> bool:
        if evidence is None:
            return False
        if heard.intent is not Intent.UNKNOWN:
            return evidence.meaning_margin >= self.meaning and evidence.free_gap <= self.free
        return evidence.free_gap >= self.unknown_free or evidence.meaning_margin <= self.unknown_meaning


class Int8First(WhisperVariant):
    """The game's grammar decision in int8 first, in float32 again where `sure` does not take the int8 one; `last`
    and `searched` are the decision's that stood. `int8_only` counts the decisions int8 made alone."""

    def __init__(self, language: str, tuning: Tuning, sure: Sure = Sure()) -> None:
        super().__init__(language, tuning, as_played)
        self.int8 = WhisperVariant(language, tuning, as_played)
        model_dir = (
            self.whisper.model.runtime.model_dir if isinstance(self.whisper.model.runtime, OnnxRuntime) else None
        )
        if model_dir is None:
            raise ValueError("int8 first needs the onnx runtime (VOICEMASTER_WHISPER_RUNTIME unset or onnx)")
        self.int8.whisper.model.runtime = OnnxRuntime(model_dir, precision=WAITING)
        self.sure = sure
        self.int8_only = 0

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        heard = self.int8.recognize(
            audio, context, over_our_voice=over_our_voice, crowded=crowded, line_stopped_at=line_stopped_at
        )
        if self.sure(heard, self.int8.last):
            self.int8_only += 1
            self.last, self.searched = self.int8.last, self.int8.searched
            return heard
        return super().recognize(
            audio, context, over_our_voice=over_our_voice, crowded=crowded, line_stopped_at=line_stopped_at
        )


def int8_first(tuning: Tuning, sure: Sure = Sure()) -> Callable[[str], Recognizer]:
    """Opens the engine for a language (`measure.EngineSetup.open`)."""

    def open_int8_first(language: str) -> Recognizer:
        return Int8First(language, tuning, sure)

    return open_int8_first
