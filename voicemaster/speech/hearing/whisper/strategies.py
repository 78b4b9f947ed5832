"""One way of hearing per kind of listening context, each working on an utterance the encoder has already heard.

- `ByGrammar` (an answer, "final answer?", a name among the players'): every phrase of the context scored against the
  audio, with the decoder's own free reading beside them; the decision weighs the scores (`decision.py`). In the
  confirm context a placement read back may be corrected: the free reading's words say so.
- `ByPlacement` (the money drop's placements): open-ended, so the words decide: the free reading first, as it owes
  nothing to a prompt, then a reading prompted with examples of placements (where it would not only echo them); the
  quizmaster says it back before it counts. The context also holds yes, no and commands: when the words are no
  placement, the grammar decides those.
- `NewName` (a new player introduces themselves): the decoder reads freely, prompted with the context's examples,
  and the text matcher finds the name; it is said back first.

A bench composes its variants from these parts (`Encoded`, `ByGrammar.evidence`, `decide`), the game uses
`strategy_for`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.speech.hearing.grammar import Grammar, grammar
from voicemaster.speech.hearing.intents import UNKNOWN, Understanding, parse_placement, understand_reading
from voicemaster.speech.hearing.normal_form import Reading
from voicemaster.speech.hearing.phrases import HearPhrases, Phrase
from voicemaster.speech.hearing.whisper.asking import Asking, alone
from voicemaster.speech.hearing.whisper.decision import (
    MARGINS,
    NARROWBAND,
    Evidence,
    Margins,
    decide,
    margins_for,
    weigh,
)
from voicemaster.speech.hearing.whisper.model import AudioKeys, Whisper
from voicemaster.speech.hearing.whisper.search import BelowTheReading, Finds, Scores, searching, transcribe
from voicemaster.speech.hearing.whisper.tokens import Tokens
from voicemaster.speech.hearing.whisper.trie import TokenTrie, build, extend


@dataclass(frozen=True)
class Tuning:
    """How the recognizer listens; `bench asr` compares settings, a game uses the defaults."""

    margins: Margins = MARGINS
    window_seconds: float = 5.0
    """The shortest window the encoder sees. Whisper learned 30 s windows; a shorter one understands less of the
    real recordings (`bench asr`)."""
    prune: float = 6.0
    """A prefix this far (natural log) below the best whole phrase is dropped. A phrase's score only falls as it
    grows, so what is dropped ends more than this below the best: wider than every meaning margin the decision uses
    (at most 5.0: `Margins.doubted`, and `undecided` on telephone audio) and every point of `bench asr`'s curves, so
    that the decision is the one a search of every phrase would make (A/B:
    docs/decisions/008-search-prune-and-beam.md)."""
    beam: int = 24
    """At most this many prefixes are extended per token, whatever the audio. Narrower changes decisions on the
    real recordings (A/B in docs/decisions/008-search-prune-and-beam.md)."""
    window: float = 6.0
    """While the free reading is read, a step decodes only the phrase prefixes within this much (natural log) of the
    likeliest one waiting: the likeliest phrases are scored first, and most others then fall below the prune or the
    rival undecoded. As wide as the prune: narrower took more steps for no fewer rows; math.inf decodes every prefix
    at once, depth by depth (docs/decisions/021-less-work-per-decision.md)."""
    finds: Finds = Finds.TWO_MEANINGS
    """What the search scores exactly within the prune: by default what the decision weighs, the best meaning's best
    phrase and the rival meaning's score (docs/decisions/021-less-work-per-decision.md)."""


@dataclass(frozen=True)
class Encoded:
    """One utterance as the decoder sees it (the encoder has run), with the language's words and tokens."""

    model: Whisper
    keys: AudioKeys
    tokens: Tokens
    phrases: HearPhrases
    budget: int
    """The longest free reading worth decoding for an utterance this long."""
    tuning: Tuning
    narrowband: bool = False
    """Whether the utterance came through a telephone's band (`speech.hearing.band`)."""
    crowded: bool = False
    """Whether it was said over other people's talk (`speech.hearing.crowd`)."""
    over_our_voice: bool = False
    """Whether it began over the quizmaster's voice (`Recognizer.recognize`)."""

    def reading(self, prompt: str | None = None, *, beam: int = 2) -> Reading:
        """The decoder's own reading, after `prompt` as its previous text if given; normalized here, where it comes
        in."""
        tokens = self.tokens
        start = [*self.prompt_tokens(prompt), *tokens.special.start]
        read = transcribe(
            self.model, self.keys, start, tokens.special, budget=self.budget, beam=beam, spell=tokens.decode
        )
        return Reading.of(tokens.decode(read), self.phrases.language)

    def score(self, choices: Sequence[Phrase], prompt: str | None) -> Scores:
        """Every phrase's score (the mean of after no text and after `prompt`, if given), and the free reading."""
        return alone(self.model, self.keys, self.scoring(choices, prompt))

    def scoring(
        self, choices: Sequence[Phrase], prompt: str | None, below_the_reading: BelowTheReading | None = None
    ) -> Asking[Scores]:
        """`score`, asking the decoder in turns (`search.searching`, which says what `below_the_reading` is)."""
        tokens, tuning = self.tokens, self.tuning
        return searching(
            trie(tokens, choices),
            tokens.special,
            free_budget=self.budget,
            prune=tuning.prune,
            beam=tuning.beam,
            window=tuning.window,
            finds=tuning.finds,
            prompt=self.prompt_tokens(prompt),
            spell=tokens.decode,
            below_the_reading=below_the_reading,
        )

    def prompt_tokens(self, prompt: str | None) -> tuple[int, ...]:
        if prompt is None:
            return ()
        return (self.tokens.special.previous, *self.tokens.encode(" " + prompt))[:MAX_PROMPT_TOKENS]


class Strategy(Protocol):
    def hear(self, listened: Encoded, context: Context) -> Heard: ...


@dataclass(frozen=True)
class ByGrammar:
    """Every phrase that counts scored against the audio; two margins decide (`decision.py`).

    Each phrase's score is the mean of its log-probability after no text and after the context's examples as the
    decoder's previous text. Measured on the real recordings (`bench asr`, engine `whisper-unprompted`) at the
    margins in use: the mean understood 97 % where the plain score understood 84 %, neither with a wrong meaning; the
    prompted score alone makes the listed phrases attractors for garbled audio."""

    prompt: Callable[[Context, HearPhrases], str | None] = lambda context, phrases: examples_of(context, phrases)
    """The decoder's previous text for the second score of each phrase; None: one score, after no text."""

    def evidence(self, listened: Encoded, context: Context) -> tuple[Evidence, Reading]:
        """What the scores say, and the free reading (normalized here, where it comes in)."""
        choices = grammar(context, listened.phrases)
        return self.evidence_of(listened, choices, self.scores(listened, context, choices))

    def evidence_of(self, listened: Encoded, choices: Sequence[Phrase], scores: Scores) -> tuple[Evidence, Reading]:
        """What `scores` of `choices` say, and their free reading."""
        reading = Reading.of(listened.tokens.decode(scores.free_tokens), listened.phrases.language)
        found = weigh(
            scores.phrases,
            choices,
            scores.free,
            scores.no_speech,
            reading=reading,
            hear=listened.phrases,
            narrowband=listened.narrowband,
            crowded=listened.crowded,
            over_our_voice=listened.over_our_voice,
        )
        return found, reading

    def scores(self, listened: Encoded, context: Context, choices: Sequence[Phrase]) -> Scores:
        """The search's scores of the context's phrases; a bench keeps them (the decoder rows they took)."""
        return listened.score(choices, self.prompt(context, listened.phrases))

    def hear(self, listened: Encoded, context: Context) -> Heard:
        evidence, reading = self.evidence(listened, context)
        return self.concluded(evidence, reading, listened, context)

    def hearing(self, listened: Encoded, context: Context) -> Asking[Heard]:
        """`hear`, asking the decoder in turns (`search.searching`): a driver hears several languages' readings of
        one utterance together (`search.together`). The plain scores of the context, as `ByGrammar.scores` makes
        them."""
        choices = grammar(context, listened.phrases)
        scores = yield from listened.scoring(choices, self.prompt(context, listened.phrases))
        evidence, reading = self.evidence_of(listened, choices, scores)
        return self.concluded(evidence, reading, listened, context)

    def concluded(self, evidence: Evidence, reading: Reading, listened: Encoded, context: Context) -> Heard:
        """What the evidence and the free reading decide."""
        # In the confirm context, a placement read back may be corrected.
        placed = placed_by(reading, listened.phrases) if context.name is ContextName.CONFIRM else None
        return placed or decided(evidence, reading, listened, context)


@dataclass(frozen=True)
class ByPlacement:
    """A money placement by its words, read freely and then prompted (not where the prompt is only echoed:
    `guessing_echoes`); yes, no and commands by the grammar."""

    grammar: ByGrammar = ByGrammar()

    def hear(self, listened: Encoded, context: Context) -> Heard:
        evidence, reading = self.grammar.evidence(listened, context)
        placed = placed_by(reading, listened.phrases)
        if placed is None and not guessing_echoes(listened):
            placed = placed_by(listened.reading(listened.phrases.expect[context.name]), listened.phrases)
        return placed or decided(evidence, reading, listened, context)


def hearing_of(strategy: Strategy, listened: Encoded, context: Context) -> Asking[Heard]:
    """How `strategy` hears, asking the decoder in turns where it can (a plain `ByGrammar`); another way of hearing,
    or a `ByGrammar` whose scores a bench makes its own way, hears at once, asking nothing of the driver."""
    if type(strategy) is ByGrammar:
        return (yield from strategy.hearing(listened, context))
    return strategy.hear(listened, context)


def guessing_echoes(listened: Encoded) -> bool:
    """Whether a reading prompted with examples would only echo them: on telephone-band audio in a language Whisper
    base hears badly there (`decision.NARROWBAND`), where the prompt's own placements came back with a letter
    changed and the free reading placed none of those wrongly."""
    return listened.narrowband and listened.phrases.language in NARROWBAND


@dataclass(frozen=True)
class NewName:
    """A name nobody has said yet: read freely after the context's examples, found by the text matcher. A name that is
    one of the examples' own is read again after other examples (`HearPhrases.name_again`) and stands only if that
    reading finds it too: faint sound or other people's talk is read as the prompt's words ("Je m'appelle Anna."),
    while a player called Anna is Anna after either prompt."""

    def hear(self, listened: Encoded, context: Context) -> Heard:
        phrases = listened.phrases
        prompt = phrases.expect[context.name]
        reading = listened.reading(prompt)
        meant = understand_reading(reading, context, phrases)
        if meant.intent is Intent.NAME and echoes(meant.value, prompt):
            again = understand_reading(listened.reading(phrases.name_again), context, phrases)
            if (again.intent, again.value) != (meant.intent, meant.value):
                return Heard(Intent.UNKNOWN, None, reading.text, 0.0)
        return Heard(meant.intent, meant.value, reading.text, meant.score)


def echoes(name: str | None, prompt: str) -> bool:
    """Whether `name` is one of the prompt's own words (its example names)."""
    words = {word.strip(".,!?;:").casefold() for word in prompt.split()}
    return name is not None and name.casefold() in words


def strategy_for(context: Context, by_grammar: ByGrammar = ByGrammar()) -> Strategy:
    """How to hear in this context, with `by_grammar` wherever the grammar decides."""
    if context.name is ContextName.NUMBER:
        return ByPlacement(by_grammar)
    if context.name is ContextName.NAME and not context.names:
        return NewName()
    return by_grammar


def examples_of(context: Context, phrases: HearPhrases) -> str:
    """The context's examples, then the options or names of the moment. Not every command: a phrase in the prompt
    draws garbled audio to itself ("Ich würde D sagen", read "Ich will die Margen.", scored as "Schneller" when the
    prompt listed it)."""
    extra = context.options if context.name is ContextName.ANSWER else ()
    if context.name is ContextName.NAME:
        extra = context.names
    return " ".join([phrases.expect[context.name], *(f"{text}." for text in extra)])


def placed_by(reading: Reading, phrases: HearPhrases) -> Heard | None:
    """The reading as a money placement, if every clause of it is one."""
    placement = parse_placement(reading, phrases)
    return None if placement is None else Heard(Intent.PLACEMENT, placement, reading.text, 1.0)


def decided(evidence: Evidence, reading: Reading, listened: Encoded, context: Context) -> Heard:
    """What the grammar's scores decide, with what the free reading's words mean beside them."""
    margins = margins_for(context.language, evidence.narrowband, listened.tuning.margins)
    return decide(evidence, meaning_of(reading, context, listened.phrases), reading.text, margins)


def meaning_of(reading: Reading, context: Context, phrases: HearPhrases) -> Understanding:
    """What the words of a free reading mean; nothing when there are none."""
    return understand_reading(reading, context, phrases) if reading.text else UNKNOWN


def budget_for(seconds: float) -> int:
    """The longest free reading worth decoding for an utterance of so many seconds: a command is a few words, and a
    longer reading is the decoder repeating itself ("Ppppp...")."""
    return math.ceil(TOKENS_FIXED + TOKENS_PER_SECOND * seconds)


TOKENS_FIXED, TOKENS_PER_SECOND = 4, 6
MAX_PROMPT_TOKENS = 223
"""Whisper's decoder sees 448 positions; like Whisper itself, a prompt keeps at most half of them (less one)."""
MAX_PHRASE_TOKENS = 200
"""A phrase is scored on its first so many tokens: with the prompt and the start they stay inside the 448 positions
(a 60-word option, a 5 000-character name would pass them and crash the decoder)."""


FIXED_TRIES_KEPT = 16
"""Fixed phrases' tries kept: one per language and kind of context (and number of options) a game or bench hears;
the answers' is the large one (some 35 000 nodes)."""
TRIES_KEPT = 8
"""Tries kept: a turn needs the current context's and the next one's (prepared while the question is read); with the
carriers of every answer a trie holds some 40 000 nodes (about 10 MB), so a long game must not keep dozens."""


@lru_cache(maxsize=TRIES_KEPT)
def trie(tokens: Tokens, choices: Sequence[Phrase]) -> TokenTrie:
    """The trie of a context's phrases: for a context's grammar (`grammar.grammar`), the trie of its kind's fixed
    phrases (made once, `fixed_trie`) extended by the question's own; the same trie as one made whole
    (`tests/speech/hearing/test_trie_cache.py`), in a fraction of the time."""
    if isinstance(choices, Grammar) and choices.fixed is not None:
        return extend(
            fixed_trie(tokens, choices.fixed),
            [phrase.written for phrase in choices.own],
            tokens.encode,
            longest=MAX_PHRASE_TOKENS,
            meanings=[(phrase.intent, phrase.value) for phrase in choices.own],
            index_of=choices.order,
        )
    return whole_trie(tokens, choices)


@lru_cache(maxsize=FIXED_TRIES_KEPT)
def fixed_trie(tokens: Tokens, fixed: Grammar) -> TokenTrie:
    """The trie of the phrases every context of a kind holds, in one language."""
    return whole_trie(tokens, fixed)


def whole_trie(tokens: Tokens, choices: Sequence[Phrase]) -> TokenTrie:
    """The trie of `choices` made whole, each phrase numbered by its place among them."""
    return build(
        [phrase.written for phrase in choices],
        tokens.encode,
        longest=MAX_PHRASE_TOKENS,
        meanings=[(phrase.intent, phrase.value) for phrase in choices],
    )
