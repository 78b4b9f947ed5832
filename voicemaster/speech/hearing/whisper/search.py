"""Scoring the phrases of a context against one utterance, and the decoder's own free reading of it, together.

The trie is walked likeliest prefix first, in batched decoder steps over the prefixes still worth extending, with the
free reading's next token decoded in the same batch. A prefix's log-probability only falls as it grows, so a prefix
already further below the best whole phrase than any margin the decision looks at cannot change the decision and is
dropped (`prune`), as is one that can change neither the best meaning's best phrase nor the rival meaning's score
(`Finds`); `beam` bounds the work per depth whatever the audio. What this saves, and what was measured:
docs/decisions/021-less-work-per-decision.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from voicemaster.speech.hearing.whisper.asking import Asking, Decoder, Starts, Steps, alone
from voicemaster.speech.hearing.whisper.model import Array, AudioKeys, First, Prefixes, Tokens, Whisper
from voicemaster.speech.hearing.whisper.tokens import Special
from voicemaster.speech.hearing.whisper.trie import Node, TokenTrie


@dataclass(frozen=True)
class Scores:
    phrases: dict[int, float]
    """Each phrase reached within the pruning bounds: its log-probability with the end of text, given the audio."""
    free_tokens: tuple[int, ...]
    free: float
    """The log-probability of the free reading with its end of text; of the reading so far when it was cut off."""
    no_speech: float
    """The model's probability that nothing was said."""
    rows: int = 0
    """The decoder rows the search stepped: each phrase prefix once per reading, and the free reading's tokens."""
    steps: int = 0
    """The decoder steps it took (one batch each)."""


Spell = Callable[[Sequence[int]], str] | None
"""Tokens as text, to tell a repetition that differs only in case; without one, tokens are compared as they are."""


@dataclass(frozen=True)
class Undecidable:
    """Where, below the decoder's free reading, the phrases stop mattering to the decision
    (`serve.reading.below_the_reading`)."""

    pick: float
    """No phrase below this score can be the decision's pick: once no phrase scored and no prefix waiting reaches it,
    nothing the search could still find changes the decision, and it stops."""
    rival: float
    """No prefix below this score can lead to the pick nor to the rival that keeps one from being taken: it is dropped
    as one under the prune is."""


EVERY_PHRASE_COUNTS = Undecidable(pick=-math.inf, rival=-math.inf)

BelowTheReading = Callable[[tuple[int, ...], float], Undecidable]
"""Given the free reading's tokens and score, where the phrases stop mattering to the decision
(`EVERY_PHRASE_COUNTS` where every phrase may matter)."""


class FreeReading:
    """The decoder's own greedy reading of the audio, one token per step, in the same batches as the phrases.

    Whisper, given a short window, often says an utterance over and over ("Yes. Yes. Yes."): the reading ends where
    it first repeats itself, with the end of text in place of the repetition, so that its text and its score are
    those of what was said once.
    """

    def __init__(self, special: Special, budget: int, spell: Spell = None) -> None:
        self.special = special
        self.spell = spell
        self.budget = budget
        self.tokens: list[int] = []
        self.score = 0.0
        self._said: list[float] = [0.0]
        """The score of the first n tokens, for each n."""
        self._ending: list[float] = []
        """The log-probability of the end of text after the first n tokens, for each n."""
        self.done = False

    def advance(self, row: Array) -> int | None:
        """The next token to decode after this step's log-probabilities, or None when the reading has ended."""
        self._ending.append(float(row[self.special.end]))
        choice = _free_choice(row, self.special, first=not self.tokens)
        if choice == self.special.end:
            self.score = self._said[-1] + self._ending[-1]
            self.done = True
            return None
        self.tokens.append(choice)
        self._said.append(self._said[-1] + float(row[choice]))
        period = _repeated(self.tokens, self.spell)
        if period:
            del self.tokens[period:]
            self.score = self._said[period] + self._ending[period]
            self.done = True
            return None
        if len(self.tokens) >= self.budget:
            # Cut off: what was read so far is at least as likely as the whole reading, which only makes a phrase's
            # margin against it stricter.
            self.score = self._said[-1]
            self.done = True
            return None
        return choice


def _repeated(tokens: list[int], spell: Spell = None) -> int:
    """The length of the unit when the tokens are one unit said twice ("fix." and "Fix." alike), else 0."""
    half, odd = divmod(len(tokens), 2)
    if odd or not half:
        return 0
    if tokens[:half] == tokens[half:]:
        return half
    if spell is None:
        return 0
    first, second = (spell(part).lower().strip(" .,;!?") for part in (tokens[:half], tokens[half:]))
    return half if first and first == second else 0


class Finds(StrEnum):
    """What the search must score exactly within the prune; a prefix that can change none of it is not decoded."""

    EVERY_PHRASE = "every-phrase"
    """Every phrase (the search before docs/decisions/021-less-work-per-decision.md)."""
    EVERY_MEANING = "every-meaning"
    """Each meaning's best phrase."""
    TWO_MEANINGS = "two-meanings"
    """The best meaning's best phrase, and the best score of any other meaning: all the decision weighs (its
    margins, the free reading's gap, and `bench asr`'s curves look at the best phrase and that rival only)."""


def search(
    model: Decoder,
    audio: AudioKeys,
    trie: TokenTrie,
    special: Special,
    *,
    free_budget: int,
    prune: float,
    beam: int,
    window: float = math.inf,
    finds: Finds = Finds.TWO_MEANINGS,
    prompt: tuple[int, ...] = (),
    spell: Spell = None,
) -> Scores:
    """`searching` alone: its starts and steps asked of `model` one by one, as it asks them."""
    return alone(
        model,
        audio,
        searching(
            trie,
            special,
            free_budget=free_budget,
            prune=prune,
            beam=beam,
            window=window,
            finds=finds,
            prompt=prompt,
            spell=spell,
        ),
    )


def searching(
    trie: TokenTrie,
    special: Special,
    *,
    free_budget: int,
    prune: float,
    beam: int,
    window: float = math.inf,
    finds: Finds = Finds.TWO_MEANINGS,
    prompt: tuple[int, ...] = (),
    spell: Spell = None,
    below_the_reading: BelowTheReading | None = None,
) -> Asking[Scores]:
    """The phrase scores the decision weighs (`finds`), and the free reading (after no prompt: a prompt would put
    its own words into the free reading, which must say what the audio holds whatever the grammar expects).

    With a `prompt` (the context's examples), each phrase is scored twice in the same batches, after no text and
    after the prompt, and its score is the mean of the two log-probabilities. The prompt makes real people's short
    words legible ("Bus" read "boss" alone); alone it also makes its own phrases attractors for any garbled audio;
    the mean keeps the first and loses most of the second (measured in `bench asr`, engine `whisper-unprompted`).

    The likeliest prefixes are decoded first: while the free reading is read (a step the decoder takes anyway), a
    step decodes only the prefixes within `window` of the likeliest one waiting, so that whole phrases scored early
    drop the others undecoded: below the floor (the best less `prune`), or unable to change what `finds` names.
    `beam` bounds the prefixes decoded per token whatever the audio (docs/decisions/021-less-work-per-decision.md).

    The decoder is asked, not called: each `Starts` or `Steps` yielded is answered by what `Whisper.start` or
    `Whisper.step_groups` makes of it, so that one driver runs a search alone (`search`) and another several at
    once, their steps in one batch (`together`).

    `below_the_reading`: once the free reading is read, where the phrases stop mattering to the decision
    (`Undecidable`): a prefix under its `rival` is dropped as one under the prune is, and the search ends once no
    phrase scored and no prefix waiting reaches its `pick`."""
    # The free reading's start also tells how likely it is that nothing was said: the no-speech token's
    # probability right after the start of transcript, as Whisper itself reads it.
    firsts: list[First] = [(special.start, (0, -1))]
    if prompt:
        firsts.append(((*prompt, *special.start), (-1,)))
    started = yield Starts(tuple(firsts))
    free_prefix, first = started[0]
    no_speech, free_logprobs = math.exp(float(first[0, special.no_speech])), first[1:]
    readings = [(free_prefix, free_logprobs), *started[1:]]
    decoded = [
        (_Batch(tuple(p for p, _ in readings), tuple(r for _, r in readings), 0), [(trie.root, (0.0,) * len(readings))])
    ]
    free = FreeReading(special, free_budget, spell)
    found = _Found(trie.meaning_of)
    waiting: list[_Waiting] = []
    taken = [0] * (MAX_DEPTH + 1)
    rows = steps = 0
    cut = EVERY_PHRASE_COUNTS  # what `below_the_reading` said once the free reading was read; nothing before
    while True:
        # Whole phrases first: they set the bounds below which a prefix no longer matters.
        for batch, members in decoded:
            for index, (node, scores) in enumerate(members):
                rows_here = [logprobs[index] for logprobs in batch.rows]
                if node.ends:
                    found.ended(
                        node.ends, _mean(s + float(r[special.end]) for s, r in zip(scores, rows_here, strict=True))
                    )
                for token, child in node.children.items():
                    extended = tuple(s + float(r[token]) for s, r in zip(scores, rows_here, strict=True))
                    waiting.append(_Waiting(_mean(extended), extended, batch, index, token, child))
        floor = found.best() - prune
        waiting.sort(key=_likelihood)
        read_before = free.done
        next_free = None if free.done else free.advance(free_logprobs[0])
        if free.done and not read_before and below_the_reading is not None:
            cut = below_the_reading(tuple(free.tokens), free.score)
        if max(found.best(), waiting[0].score if waiting else -math.inf) < cut.pick:
            break  # no pick can be found any more: the decision is made, whatever the rivals' scores
        floor = max(floor, cut.rival)
        # While the free reading is read, a step costs the decoder's weights whatever its rows: the likeliest prefixes
        # are decoded at its pace; once it is read, every prefix that still matters.
        reach = floor if next_free is None or not waiting else max(floor, waiting[0].score - window)
        if found.best() < cut.pick:
            # No pick yet: the prefixes that may still lead to one first. A rival counts only against a pick, so the
            # rest wait for one, and are never decoded when none comes.
            reach = max(reach, cut.pick)
        chosen: list[_Waiting] = []
        kept: list[_Waiting] = []
        bounds = Bounds.standing(finds, found.phrases, found.meanings)
        shallowest = MAX_DEPTH  # the shortest prefix seen at this step that is still to be decoded
        for candidate in waiting:
            if candidate.score < floor:
                break  # sorted: every later one is below it too, now and after
            depth = min(candidate.batch.depth + 1, MAX_DEPTH)
            if taken[depth] >= beam or not bounds.may_change(candidate.node, candidate.score):
                continue  # dropped for good: the bounds only rise
            # Not before a likelier shorter prefix: its longer ones, not yet scored, may be likelier than this one,
            # and `beam` keeps the likeliest of each length.
            if candidate.score >= reach and depth <= shallowest:
                chosen.append(candidate)
                taken[depth] += 1
            else:
                kept.append(candidate)
            shallowest = min(shallowest, depth)
        waiting = kept
        groups: list[tuple[Prefixes, Tokens]] = []
        parents: dict[int, tuple[_Batch, list[_Waiting]]] = {}
        for candidate in chosen:
            parents.setdefault(id(candidate.batch), (candidate.batch, []))[1].append(candidate)
        for batch, children in parents.values():
            selected = np.array([child.row for child in children], dtype=np.intp)
            tokens = np.array([child.token for child in children])
            groups.extend((prefixes.select(selected), tokens) for prefixes in batch.prefixes)
        if next_free is not None:
            groups.append((free_prefix, np.array([next_free])))
        if not groups:
            break
        stepped = yield Steps(tuple(groups))
        rows += sum(len(tokens) for _, tokens in groups)
        steps += 1
        if next_free is not None:
            free_prefix, free_logprobs = stepped[-1]
        decoded = []
        for number, (batch, children) in enumerate(parents.values()):
            own = stepped[number * len(readings) : (number + 1) * len(readings)]
            after = _Batch(tuple(p for p, _ in own), tuple(r for _, r in own), batch.depth + 1)
            decoded.append((after, [(child.node, child.scores) for child in children]))
    phrases = found.phrases if trie.index_of is None else {trie.index_of[i]: s for i, s in found.phrases.items()}
    return Scores(phrases, tuple(free.tokens), free.score, no_speech, rows, steps)


MAX_DEPTH = 448
"""The decoder's positions: no prefix is deeper; the depths whose prefixes `beam` counts."""


@dataclass(frozen=True)
class _Batch:
    """Prefixes of one length decoded together, one set per reading (after no text, after the prompt): their keys
    and values, and each one's log-probabilities of the next token."""

    prefixes: tuple[Prefixes, ...]
    rows: tuple[Array, ...]
    depth: int
    """The phrase tokens each prefix holds."""


@dataclass(frozen=True, slots=True)
class _Waiting:
    """A prefix one token longer than one already decoded: scored, not yet decoded itself."""

    score: float
    """The mean of `scores`, which only falls as the prefix grows: a bound on every phrase it leads to."""
    scores: tuple[float, ...]
    """Its log-probability in each reading."""
    batch: _Batch
    row: int
    """Where the shorter prefix is in `batch`."""
    token: int
    node: Node


def _likelihood(waiting: _Waiting) -> float:
    return -waiting.score


class _Found:
    """The phrases scored so far: each phrase's best score, and each meaning's."""

    def __init__(self, meaning_of: tuple[int, ...]) -> None:
        self.meaning_of = meaning_of
        self.phrases: dict[int, float] = {}
        self.meanings: dict[int, float] = {}

    def ended(self, phrases: list[int], score: float) -> None:
        for phrase in phrases:
            if score > self.phrases.get(phrase, -math.inf):
                self.phrases[phrase] = score
                meaning = self.meaning_of[phrase]
                self.meanings[meaning] = max(score, self.meanings.get(meaning, -math.inf))

    def best(self) -> float:
        return max(self.meanings.values(), default=-math.inf)


@dataclass(frozen=True)
class Bounds:
    """What a prefix must beat to change what the search finds, as the phrases scored so far stand."""

    finds: Finds
    phrases: Mapping[int, float]
    """Each phrase's best score so far."""
    meanings: Mapping[int, float]
    """Each meaning's best score so far."""
    top: int
    """The best meaning so far (-1: none)."""
    best: float
    rival: float
    """The best score of any other meaning so far."""

    @classmethod
    def standing(cls, finds: Finds, phrases: Mapping[int, float], meanings: Mapping[int, float]) -> Bounds:
        ranked = sorted(meanings.items(), key=lambda item: -item[1])
        top, best = ranked[0] if ranked else (-1, -math.inf)
        return cls(finds, phrases, meanings, top, best, ranked[1][1] if len(ranked) > 1 else -math.inf)

    def may_change(self, node: Node, score: float) -> bool:
        """Whether a prefix reaching `node` with `score` (a bound on every phrase it leads to) may change what the
        search finds. A phrase ending here ("B" read on as "B?") gets at most the prefix's score, which may already
        be its own by another spelling ("B" with the end of text); a meaning already scored as high by another phrase
        ("Antwort B" once " B" has its end of text) gains nothing; with `Finds.TWO_MEANINGS`, a third meaning below
        the rival changes nothing the decision weighs."""
        if self.finds is Finds.EVERY_PHRASE:
            return bool(node.children) or any(self.phrases.get(phrase, -math.inf) < score for phrase in node.ends)
        if self.finds is Finds.EVERY_MEANING:
            return any(self.meanings.get(meaning, -math.inf) < score for meaning in node.meanings)
        others = len(node.meanings) > 1 or self.top not in node.meanings
        return (score > self.best and self.top in node.meanings) or (score > self.rival and others)


def _mean(scores: Iterable[float]) -> float:
    values = list(scores)
    return sum(values) / len(values)


def _free_choice(row: Array, special: Special, *, first: bool) -> int:
    return int(_allowed(row, special, first=first).argmax())


def transcribe(
    model: Whisper,
    audio: AudioKeys,
    prefix: list[int],
    special: Special,
    *,
    budget: int,
    beam: int = 2,
    spell: Spell = None,
) -> tuple[int, ...]:
    """The decoder's reading after `prefix` (which may carry a prompt): a beam search of `beam` readings, the best
    by its mean log-probability per token, said once. A wider search than the greedy free reading: a prompted reading
    greedily echoes the prompt ("500.000 auf A und 500.000 auf D" for "500.000 auf A und den Rest auf D")."""
    prefixes, logprobs = model.start(audio, prefix)
    readings: list[tuple[list[int], float]] = [([], 0.0)]
    ended: list[tuple[list[int], float]] = []
    while readings and len(ended) < beam:
        candidates = []
        for row, (tokens, score) in zip(logprobs, readings, strict=True):
            allowed = _allowed(row, special, first=not tokens)
            for token in np.argpartition(-allowed, beam)[: beam + 1]:
                candidates.append((score + float(allowed[token]), tokens, int(token)))
        candidates.sort(key=lambda candidate: -candidate[0])
        kept: list[tuple[list[int], float]] = []
        parents: list[int] = []
        for score, tokens, token in candidates:
            if len(kept) == beam:
                break
            if token == special.end or len(tokens) + 1 >= budget:
                ended.append((tokens if token == special.end else [*tokens, token], score))
            else:
                kept.append(([*tokens, token], score))
                parents.append(next(i for i, (mine, _) in enumerate(readings) if mine is tokens))
        if not kept:
            break
        prefixes, logprobs = model.step(
            audio, prefixes.select(np.array(parents, dtype=np.intp)), np.array([t[-1] for t, _ in kept])
        )
        readings = kept
    tokens, _ = max(ended or readings, key=lambda reading: reading[1] / (len(reading[0]) + 1))
    return tuple(tokens[: _repeated(tokens, spell) or len(tokens)])


def _allowed(row: Array, special: Special, *, first: bool) -> Array:
    """The log-probabilities of what may come next in a transcript: text or its end, never a special token; the end
    and a lone space never first."""
    allowed = row[: special.end + 1].copy()
    if first:
        allowed[[special.end, special.blank]] = -np.inf
    return allowed
