"""Several searches of one utterance asked of the decoder together (`search.together`: the waiting reader's languages,
decision 025) find what each finds alone, and take one decoder run per turn instead of one per search. On a decoder
whose next-token probabilities are drawn at random for any grammar (its rows do not depend on each other, so the
scores must be the very same); Whisper's own batches on people's recordings: `tests/serve/test_reading_together.py`."""

from __future__ import annotations

import math
from collections.abc import Sequence

from hypothesis import given
from hypothesis import strategies as st

from tests.speech.hearing.test_search_shortlist import END, LETTERS, NO_SPEECH, PREVIOUS, START, DrawnDecoder, encode
from voicemaster.speech.hearing.whisper.asking import Asking, alone, together
from voicemaster.speech.hearing.whisper.model import Array, AudioKeys, First, Prefixes, Tokens
from voicemaster.speech.hearing.whisper.search import Finds, Scores, searching
from voicemaster.speech.hearing.whisper.tokens import Special
from voicemaster.speech.hearing.whisper.trie import build

LANGUAGES = tuple(
    Special(start=(START, 6 + n), previous=PREVIOUS, end=END, blank=7, no_speech=NO_SPEECH) for n in (0, 1)
)
"""Two "languages": the start of transcript followed by a token of its own, as Whisper's language tokens are."""
SPECIALS = (Special(start=(START,), previous=PREVIOUS, end=END, blank=7, no_speech=NO_SPEECH), *LANGUAGES)


class CountedDecoder(DrawnDecoder):
    """The drawn decoder, counting its runs: each call of `start`, `starts` and `step_groups` is one."""

    def __init__(self, seed: int, sharpness: float) -> None:
        super().__init__(seed, sharpness)
        self.runs = 0

    def start(self, audio: AudioKeys, tokens: list[int], at: Sequence[int] = (-1,)) -> tuple[Prefixes, Array]:
        self.runs += 1
        return super().start(audio, tokens, at)

    def starts(self, audio: AudioKeys, firsts: Sequence[First]) -> list[tuple[Prefixes, Array]]:
        self.runs += 1
        return [super(CountedDecoder, self).start(audio, list(tokens), at) for tokens, at in firsts]

    def step_groups(self, audio: AudioKeys, groups: Sequence[tuple[Prefixes, Tokens]]) -> list[tuple[Prefixes, Array]]:
        self.runs += 1
        return super().step_groups(audio, groups)


def _searching(words: Sequence[str], meanings: Sequence[int], special: Special, prompted: bool) -> Asking[Scores]:
    return searching(
        build(words, encode, meanings=meanings),
        special,
        free_budget=4,
        prune=6.0,
        beam=24,
        window=6.0,
        finds=Finds.TWO_MEANINGS,
        prompt=(PREVIOUS, 3) if prompted else (),
    )


grammars = st.lists(
    st.tuples(st.text(LETTERS, min_size=1, max_size=4), st.integers(0, 4)),
    min_size=2,
    max_size=20,
    unique_by=lambda phrase: phrase[0],
)


@given(
    st.lists(st.tuples(grammars, st.booleans()), min_size=1, max_size=3),
    st.integers(0, 2**32 - 1),
    st.sampled_from([1.0, 3.0]),
)
def test_searches_together_find_what_each_finds_alone_in_fewer_decoder_runs(
    searches: list[tuple[list[tuple[str, int]], bool]], seed: int, sharpness: float
) -> None:
    """Searches of different grammars, with and without a prompt, in different languages: they take different
    numbers of steps, and each must get back its own rows whichever ends first."""
    asked = [
        ([word for word, _ in grammar], [meaning for _, meaning in grammar], SPECIALS[index], prompted)
        for index, (grammar, prompted) in enumerate(searches)
    ]
    one_by_one = CountedDecoder(seed, sharpness)
    each = [alone(one_by_one, AudioKeys((), ()), _searching(*search)) for search in asked]
    batched = CountedDecoder(seed, sharpness)
    both = together(batched, AudioKeys((), ()), [_searching(*search) for search in asked])
    assert both == each
    # One run for all the starts, then one per step of the longest search.
    assert batched.runs == 1 + max(scores.steps for scores in each)
    # Alone, one run for each search's starts, then one per step of its own.
    assert one_by_one.runs == len(asked) + sum(scores.steps for scores in each)


def test_a_search_alone_runs_its_starts_together_and_each_step_as_one_batch() -> None:
    """`search` (the game's single language) runs the free reading's start and the prompt's in one decoder run, then
    each step as one batch (decision 034)."""
    decoder = CountedDecoder(11, 3.0)
    scores = alone(decoder, AudioKeys((), ()), _searching(["ab", "abc", "c", "dd"], [0, 0, 1, 2], SPECIALS[1], True))
    assert decoder.runs == 1 + scores.steps
    assert scores.phrases and not math.isinf(scores.free)
