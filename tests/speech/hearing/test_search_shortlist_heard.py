"""People's recordings decided with the game's search (decision 021: likeliest prefixes first, only what the
decision weighs) and with a search of every phrase within the prune (the search before it): the same decision, heard
the same, on the same best phrase and rival, for less decoding. `bench asr` compares the whole real set (engine
`whisper-every-phrase`)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import pytest

from voicemaster.dialogue.meaning import Context, ContextName, Heard
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.normal_form import Reading
from voicemaster.speech.hearing.phrases import Phrase
from voicemaster.speech.hearing.whisper.decision import Evidence
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.hearing.whisper.search import Finds, Scores
from voicemaster.speech.hearing.whisper.strategies import ByGrammar, Encoded, Tuning
from voicemaster_lab.corpora import real_speech
from voicemaster_lab.corpora.real_speech import LETTERS
from voicemaster_lab.corpora.real_speech_sources import RealClip

EVERY_PHRASE = Tuning(window=math.inf, finds=Finds.EVERY_PHRASE)
PEOPLE = tuple(
    clip
    for clip in real_speech.load()
    if (clip.kind == "letter" and clip.text in LETTERS) or clip.kind in ("yes", "no", "word", "talk")
)[::12]
"""Every voice's letters A-D, yes and no, option words, and talk that names nothing: every twelfth."""


@dataclass(frozen=True)
class Kept(ByGrammar):
    """The grammar decision, keeping what its search found."""

    found: list[Scores] = field(default_factory=list)
    weighed: list[Evidence] = field(default_factory=list)

    def scores(self, listened: Encoded, context: Context, choices: Sequence[Phrase]) -> Scores:
        self.found.append(super().scores(listened, context, choices))
        return self.found[-1]

    def evidence(self, listened: Encoded, context: Context) -> tuple[Evidence, Reading]:
        evidence, reading = super().evidence(listened, context)
        self.weighed.append(evidence)
        return evidence, reading


@dataclass(frozen=True)
class Decided:
    heard: Heard
    evidence: Evidence
    rows: int
    """The decoder rows the search stepped."""


def decided(listened: Encoded, context: Context, tuning: Tuning) -> Decided:
    kept = Kept()
    heard = kept.hear(replace(listened, tuning=tuning), context)
    return Decided(heard, kept.weighed[-1], kept.found[-1].rows)


@pytest.fixture(scope="module")
def decisions(whisper: Callable[[str], WhisperRecognizer]) -> list[tuple[RealClip, Decided, Decided]]:
    """Each recording heard once by the encoder, then decided both ways."""
    compared = []
    for clip in PEOPLE:
        context = Context(ContextName(clip.context), clip.language, clip.options)
        listened = whisper(clip.language).listen(Audio.read(clip.path()), clip.language)
        compared.append((clip, decided(listened, context, Tuning()), decided(listened, context, EVERY_PHRASE)))
    return compared


def test_people_are_heard_as_a_search_of_every_phrase_hears_them(
    decisions: list[tuple[RealClip, Decided, Decided]],
) -> None:
    prune = Tuning().prune
    for clip, game, every in decisions:
        said = (clip.file, clip.text, every.heard)
        assert (game.heard.intent, game.heard.value, game.heard.text) == (
            every.heard.intent,
            every.heard.value,
            every.heard.text,
        ), said
        assert (game.evidence.meaning, game.evidence.phrase) == (every.evidence.meaning, every.evidence.phrase), said
        # The same phrases in other batches: the game's int8 decoder scores a row a little differently in each.
        assert game.evidence.score == pytest.approx(every.evidence.score, abs=BATCHES), said
        # The rival's score as far as a margin looks: beyond the prune it passes every margin, found or not.
        margin = min(game.evidence.meaning_margin, prune)
        assert margin == pytest.approx(min(every.evidence.meaning_margin, prune), abs=2 * BATCHES), said


BATCHES = 0.05
"""How far a score may move when its rows are decoded in another batch (the int8 runtime's per-batch scales)."""


def test_the_game_decodes_far_fewer_rows_than_a_search_of_every_phrase(
    decisions: list[tuple[RealClip, Decided, Decided]],
) -> None:
    game = sum(decided.rows for _, decided, _ in decisions)
    every = sum(decided.rows for _, _, decided in decisions)
    assert game < 0.75 * every, (game, every)
