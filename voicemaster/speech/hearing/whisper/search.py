"""Scoring every phrase of a context against one utterance, and the decoder's own free reading of it, together.

The trie is walked one depth at a time; each depth is one batched decoder step over the prefixes still worth
extending, with the free reading's next token decoded in the same batch. A prefix's log-probability only falls as it
grows, so a prefix already further below the best whole phrase than any margin the decision looks at cannot change
the decision and is dropped (`prune`); `beam` bounds the work per depth whatever the audio.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from voicemaster.speech.hearing.whisper.model import Array, AudioKeys, Prefixes, Tokens, Whisper
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


Spell = Callable[[Sequence[int]], str] | None
"""Tokens as text, to tell a repetition that differs only in case; without one, tokens are compared as they are."""


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


def search(
    model: Whisper,
    audio: AudioKeys,
    trie: TokenTrie,
    special: Special,
    *,
    free_budget: int,
    prune: float,
    beam: int,
    prompt: tuple[int, ...] = (),
    spell: Spell = None,
) -> Scores:
    """Every phrase's score, and the free reading (after no prompt: a prompt would put its own words into the free
    reading, which must say what the audio holds whatever the grammar expects).

    With a `prompt` (the context's examples), each phrase is scored twice in the same batches, after no text and
    after the prompt, and its score is the mean of the two log-probabilities. The prompt makes real people's short
    words legible ("Bus" read "boss" alone); alone it also makes its own phrases attractors for any garbled audio;
    the mean keeps the first and loses most of the second (measured in `bench asr`, engine `whisper-unprompted`)."""
    # The free reading's start also tells how likely it is that nothing was said: the no-speech token's
    # probability right after the start of transcript, as Whisper itself reads it.
    free_prefix, first = model.start(audio, list(special.start), at=(0, -1))
    no_speech, free_logprobs = math.exp(float(first[0, special.no_speech])), first[1:]
    readings = [(free_prefix, free_logprobs)]
    if prompt:
        readings.append(model.start(audio, [*prompt, *special.start]))
    frontier: list[tuple[Node, tuple[float, ...]]] = [(trie.root, (0.0,) * len(readings))]
    free = FreeReading(special, free_budget, spell)
    best: dict[int, float] = {}
    while True:
        # Whole phrases first: they set the bound below which a prefix no longer matters.
        for index, (node, scores) in enumerate(frontier):
            if node.ends:
                ended = _mean(
                    score + float(rows[index, special.end]) for score, (_, rows) in zip(scores, readings, strict=True)
                )
                for phrase in node.ends:
                    if ended > best.get(phrase, -math.inf):
                        best[phrase] = ended
        floor = max(best.values(), default=-math.inf) - prune
        candidates = [
            (_mean(extended), extended, parent, token, child)
            for parent, (node, scores) in enumerate(frontier)
            for token, child in node.children.items()
            for extended in [
                tuple(s + float(rows[parent, token]) for s, (_, rows) in zip(scores, readings, strict=True))
            ]
        ]
        candidates = sorted(
            (c for c in candidates if c[0] >= floor and _may_improve(c[4], c[0], best)), key=lambda c: -c[0]
        )[:beam]
        next_free = None if free.done else free.advance(free_logprobs[0])
        groups: list[tuple[Prefixes, Tokens]] = []
        if candidates:
            parents = np.array([c[2] for c in candidates], dtype=np.intp)
            tokens = np.array([c[3] for c in candidates])
            groups.extend((prefixes.select(parents), tokens) for prefixes, _ in readings)
        if next_free is not None:
            groups.append((free_prefix, np.array([next_free])))
        if not groups:
            break
        stepped = model.step_groups(audio, groups)
        if next_free is not None:
            free_prefix, free_logprobs = stepped[-1]
        if candidates:  # else the phrases are all scored, and the free reading reads on alone
            readings = stepped[: len(readings)]
        frontier = [(child, extended) for _, extended, _, _, child in candidates]
    return Scores(best, tuple(free.tokens), free.score, no_speech)


def _may_improve(node: Node, score: float, best: dict[int, float]) -> bool:
    """Whether a prefix reaching `node` with `score` may still raise a phrase's score: a node with further tokens may
    lead to any phrase; one where phrases only end ("B" read on as "B?") gives them at most its own score, which may
    already be theirs by another spelling ("B" with the end of text): then it changes nothing, and is not decoded."""
    return bool(node.children) or any(best.get(phrase, -math.inf) < score for phrase in node.ends)


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
