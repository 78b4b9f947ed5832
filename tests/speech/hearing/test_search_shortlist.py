"""The search decodes less than every phrase (docs/decisions/021-less-work-per-decision.md) and still finds what the
decision weighs: the best meaning, its best phrase and score, and the rival meaning's score wherever it is within the
prune. Checked on a decoder whose next-token probabilities are drawn at random, for any grammar; the rule's edges one
by one; and on people's recordings through Whisper in `test_search_shortlist_heard.py`."""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from voicemaster.speech.hearing.whisper.model import Array, AudioKeys, First, Prefixes, Tokens
from voicemaster.speech.hearing.whisper.search import Bounds, Finds, Scores, search
from voicemaster.speech.hearing.whisper.tokens import Special
from voicemaster.speech.hearing.whisper.trie import Node, build

LETTERS = "abcdef"
"""A phrase's letters; each is one token, and the trie's endings (".", "?", "!") one more."""
END, START, PREVIOUS, NO_SPEECH = 8, 9, 10, 11
SPECIAL = Special(start=(START,), previous=PREVIOUS, end=END, blank=7, no_speech=NO_SPEECH)
VOCABULARY = 12
PRUNE = 6.0


def encode(text: str) -> list[int]:
    return [LETTERS.index(letter) if letter in LETTERS else 6 for letter in text.lower() if letter != " "]


class DrawnDecoder:
    """A decoder whose next-token log-probabilities are a fixed random draw for each run of tokens so far; a prefix
    carries its tokens where Whisper's keeps keys and values."""

    def __init__(self, seed: int, sharpness: float) -> None:
        self.seed = seed
        self.sharpness = sharpness

    def start(self, audio: AudioKeys, tokens: list[int], at: Sequence[int] = (-1,)) -> tuple[Prefixes, Array]:
        del audio  # the draws depend on the tokens alone
        held = (np.array(tokens, dtype=np.float32)[:, None],)
        nothing = (np.zeros((1, 0, 1), dtype=np.float32),)
        rows = np.stack([self._next(tokens[: position % len(tokens) + 1]) for position in at])
        return Prefixes(held, held, nothing, nothing), rows

    def starts(self, audio: AudioKeys, firsts: Sequence[First]) -> list[tuple[Prefixes, Array]]:
        return [self.start(audio, list(tokens), at) for tokens, at in firsts]

    def step_groups(self, audio: AudioKeys, groups: Sequence[tuple[Prefixes, Tokens]]) -> list[tuple[Prefixes, Array]]:
        del audio
        stepped = []
        for prefixes, tokens in groups:
            own = np.concatenate([prefixes.keys[0], np.asarray(tokens, dtype=np.float32)[:, None, None]], axis=1)
            start = [int(token) for token in prefixes.start_keys[0][:, 0]]
            rows = np.stack([self._next([*start, *(int(token) for token in row[:, 0])]) for row in own])
            stepped.append((Prefixes(prefixes.start_keys, prefixes.start_values, (own,), (own,)), rows))
        return stepped

    def _next(self, tokens: list[int]) -> Array:
        drawn = np.random.default_rng([self.seed, zlib.crc32(bytes(tokens))]).normal(size=VOCABULARY) * self.sharpness
        logprobs: Array = (drawn - np.log(np.exp(drawn).sum())).astype(np.float32)
        return logprobs


def scored(
    words: Sequence[str], meanings: Sequence[int], decoder: DrawnDecoder, *, finds: Finds, window: float, prune: float
) -> Scores:
    trie = build(words, encode, meanings=meanings)
    return search(
        decoder,
        AudioKeys((), ()),
        trie,
        SPECIAL,
        free_budget=4,
        prune=prune,
        beam=10_000,
        window=window,
        finds=finds,
        prompt=(PREVIOUS, 3),
    )


def weighed(scores: Scores, meanings: Sequence[int]) -> tuple[int, int, float, float]:
    """What the decision takes from the scores: the best meaning, its best phrase and score, and the rival's score."""
    best: dict[int, tuple[float, int]] = {}
    for phrase, score in scores.phrases.items():
        best[meanings[phrase]] = max(best.get(meanings[phrase], (-math.inf, -1)), (score, phrase))
    ranked = sorted(best.items(), key=lambda item: -item[1][0])
    (meaning, (score, phrase)), rival = ranked[0], (ranked[1][1][0] if len(ranked) > 1 else -math.inf)
    return meaning, phrase, score, rival


grammars = st.lists(
    st.tuples(st.text(LETTERS, min_size=1, max_size=4), st.integers(0, 4)),
    min_size=2,
    max_size=30,
    unique_by=lambda phrase: phrase[0],
)


@given(grammars, st.integers(0, 2**32 - 1), st.sampled_from([1.0, 3.0]), st.sampled_from([0.0, 3.0, math.inf]))
def test_the_decision_weighs_what_a_search_of_every_phrase_finds(
    grammar: list[tuple[str, int]], seed: int, sharpness: float, window: float
) -> None:
    words, meanings = [word for word, _ in grammar], [meaning for _, meaning in grammar]
    decoder = DrawnDecoder(seed, sharpness)
    everything = scored(words, meanings, decoder, finds=Finds.EVERY_PHRASE, window=math.inf, prune=math.inf)
    shortlisted = scored(words, meanings, decoder, finds=Finds.TWO_MEANINGS, window=window, prune=PRUNE)
    meaning, phrase, score, rival = weighed(everything, meanings)
    found_meaning, found_phrase, found_score, found_rival = weighed(shortlisted, meanings)
    assert (found_meaning, found_phrase, found_score) == (meaning, phrase, score)
    if rival >= score - PRUNE:
        assert found_rival == rival
    else:  # beyond the prune the rival passes every margin, found or not
        assert found_rival < score - PRUNE
    assert shortlisted.rows <= everything.rows


def test_a_grammar_of_one_meaning_is_decided_by_its_best_phrase_alone() -> None:
    # "ab", "abc" and "abd" mean the same: once the best is scored, the longer ones cannot change the decision.
    words, meanings = ["ab", "abc", "abd", "c"], [0, 0, 0, 1]
    decoder = DrawnDecoder(7, 3.0)
    everything = scored(words, meanings, decoder, finds=Finds.EVERY_PHRASE, window=math.inf, prune=PRUNE)
    shortlisted = scored(words, meanings, decoder, finds=Finds.TWO_MEANINGS, window=3.0, prune=PRUNE)
    assert weighed(shortlisted, meanings) == weighed(everything, meanings)
    assert shortlisted.rows <= everything.rows


def node(meanings: set[int], *, ends: Sequence[int] = (), leads_on: bool = True) -> Node:
    """A trie node whose phrases have `meanings`; with `leads_on`, some go on past it."""
    return Node({1: Node()} if leads_on else {}, list(ends), frozenset(meanings))


def two_best(meanings: dict[int, float]) -> Bounds:
    return Bounds.standing(Finds.TWO_MEANINGS, {}, meanings)


def test_before_any_phrase_is_scored_every_prefix_may_change_the_decision() -> None:
    assert two_best({}).may_change(node({0}), -50.0)


def test_a_prefix_of_the_best_meaning_alone_must_beat_its_best_phrase() -> None:
    bounds = two_best({0: -1.0, 1: -3.0})
    assert bounds.may_change(node({0}), -0.5)
    assert not bounds.may_change(node({0}), -1.0)  # as likely as the best: the same decision
    assert not bounds.may_change(node({0}), -2.0)  # above the rival, but the rival is another meaning's score


def test_a_prefix_of_another_meaning_must_beat_the_rival_not_the_best() -> None:
    bounds = two_best({0: -1.0, 1: -3.0, 2: -4.0})
    assert bounds.may_change(node({2}), -2.0)  # it may become the rival, and narrow the margin
    assert bounds.may_change(node({1}), -2.0)
    assert not bounds.may_change(node({2}), -3.0)
    assert not bounds.may_change(node({2}), -3.5)  # above its own meaning's best, but a third meaning's score


def test_with_one_meaning_scored_any_other_meaning_may_become_the_rival() -> None:
    bounds = two_best({0: -1.0})
    assert bounds.may_change(node({1}), -40.0)
    assert not bounds.may_change(node({0}), -2.0)


def test_a_prefix_shared_by_the_best_meaning_and_another_must_beat_the_rival() -> None:
    # "Ich nehme" leads to A and to B alike.
    bounds = two_best({0: -1.0, 1: -3.0})
    assert bounds.may_change(node({0, 1}), -2.5)
    assert not bounds.may_change(node({0, 1}), -3.0)


def test_every_phrase_decodes_a_prefix_that_leads_on_and_a_phrase_not_yet_scored_as_high() -> None:
    bounds = Bounds.standing(Finds.EVERY_PHRASE, {0: -1.0, 1: -2.0}, {0: -1.0})
    assert bounds.may_change(node({0}, ends=[0]), -30.0)
    assert not bounds.may_change(node({0}, ends=[0, 1], leads_on=False), -2.0)  # "B?" once "B" has its end
    assert bounds.may_change(node({0}, ends=[0, 1], leads_on=False), -1.5)


def test_every_meaning_decodes_a_prefix_only_while_one_of_its_meanings_is_scored_lower() -> None:
    bounds = Bounds.standing(Finds.EVERY_MEANING, {}, {0: -1.0, 1: -3.0, 2: -4.0})
    assert bounds.may_change(node({2}), -3.5)
    assert not bounds.may_change(node({0, 1}), -3.0)


def test_each_trie_node_knows_the_meanings_of_the_phrases_past_it() -> None:
    trie = build(["ab", "ac", "b"], encode, meanings=["A", "B", "A"])
    a, b = trie.root.children[0], trie.root.children[1]
    assert trie.meaning_of == (0, 1, 0)
    assert trie.root.meanings == {0, 1}
    assert a.meanings == {0, 1}
    assert a.children[1].meanings == {0}
    assert b.meanings == {0}
