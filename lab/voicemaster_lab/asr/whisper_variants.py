"""The Whisper engines `bench asr` and `bench latency` compare, composed from the recognizer's public parts: the
game's own strategies, the same without the prompt's second score, or the words-only baseline; each keeps the
evidence behind its last grammar decision, for the margin curve."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.normal_form import Reading
from voicemaster.speech.hearing.phrases import Phrase
from voicemaster.speech.hearing.recognition import Recognizer, RecognizerUnavailable
from voicemaster.speech.hearing.whisper.decision import Evidence
from voicemaster.speech.hearing.whisper.search import Scores
from voicemaster.speech.hearing.whisper.strategies import (
    ByGrammar,
    Encoded,
    NewName,
    Strategy,
    Tuning,
    meaning_of,
    strategy_for,
)


@dataclass(frozen=True)
class Calibrated(ByGrammar):
    """The grammar decision, keeping the evidence of each."""

    seen: list[Evidence] = field(default_factory=list)
    searched: list[Scores] = field(default_factory=list)
    """What each search found, with the decoder rows and steps it took."""

    def scores(self, listened: Encoded, context: Context, choices: Sequence[Phrase]) -> Scores:
        self.searched.append(super().scores(listened, context, choices))
        return self.searched[-1]

    def evidence(self, listened: Encoded, context: Context) -> tuple[Evidence, Reading]:
        found = super().evidence(listened, context)
        self.seen.append(found[0])
        return found


class WordsOnly:
    """The baseline: the decoder's greedy free reading, understood by its words alone."""

    def hear(self, listened: Encoded, context: Context) -> Heard:
        reading = listened.reading(beam=1)
        meant = meaning_of(reading, context, listened.phrases)
        return Heard(meant.intent, meant.value, reading.text, meant.score)


Variant = Callable[[Context, Calibrated], Strategy]
"""How an engine hears in a context, given the grammar decision it calibrates."""


def as_played(context: Context, grammar: Calibrated) -> Strategy:
    return strategy_for(context, grammar)


def words_only(context: Context, grammar: Calibrated) -> Strategy:
    del grammar
    return NewName() if context.name is ContextName.NAME and not context.names else WordsOnly()


def _no_prompt(context: Context, phrases: object) -> None:
    del context, phrases


class WhisperVariant:
    """Whisper base heard through `variant`; `last` is the evidence behind the last grammar decision (None when the
    grammar did not decide)."""

    def __init__(self, language: str, tuning: Tuning, variant: Variant, *, prompted: bool = True) -> None:
        from voicemaster.models.manifest import ModelMissing
        from voicemaster.models.verify import require_model
        from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer

        try:
            self.whisper = WhisperRecognizer(require_model("whisper", language), tuning)
        except ModelMissing as error:
            raise RecognizerUnavailable(str(error)) from None
        self.grammar = Calibrated() if prompted else Calibrated(prompt=_no_prompt)
        self.variant = variant
        self.last: Evidence | None = None
        self.searched: tuple[Scores, ...] = ()
        """The grammar searches of the last utterance (none where it was read by its words alone)."""

    def prepare(self, context: Context) -> None:
        self.whisper.prepare(context)

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        self.grammar.seen.clear()
        self.grammar.searched.clear()
        variant = self.variant(context, self.grammar)
        heard = self.whisper.recognize_with(
            variant, audio, context, over_our_voice=over_our_voice, crowded=crowded, line_stopped_at=line_stopped_at
        )
        # A placement is taken from the reading's words before the grammar decides (the evidence was weighed all the
        # same): made again with other margins, it would count as the grammar's yes or "repeat".
        decided = self.grammar.seen and heard.intent is not Intent.PLACEMENT
        self.last = self.grammar.seen[-1] if decided else None
        self.searched = tuple(self.grammar.searched)
        return heard


def whisper(tuning: Tuning, variant: Variant = as_played, *, prompted: bool = True) -> Callable[[str], Recognizer]:
    """Opens the engine for a language; raises RecognizerUnavailable when the model is missing."""

    def open_whisper(language: str) -> Recognizer:
        return WhisperVariant(language, tuning, variant, prompted=prompted)

    return open_whisper
