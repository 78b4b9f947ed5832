"""The trie search drops a prefix far below the best whole phrase (`Tuning.prune`): only where no decision, and no
point of the curves the margins are chosen from, could turn on the phrases it would have led to. Its other shortcuts
(decision 021) are checked in `test_search_shortlist.py`."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.grammar import grammar
from voicemaster.speech.hearing.whisper.decision import ACTING_AT_ONCE, MARGINS, NARROWBAND, Meaning
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.hearing.whisper.search import Finds, search
from voicemaster.speech.hearing.whisper.strategies import Tuning, examples_of, trie
from voicemaster_lab.asr import measure, narrowband, options
from voicemaster_lab.corpora import real_speech


def test_no_margin_a_decision_uses_reaches_the_search_prune() -> None:
    # A dropped prefix ends more than the prune below the best phrase: a rival there passes every margin below it
    # as if it had not been scored at all, so the decision is the one a search of every phrase makes.
    used = [meaning for meaning, _ in ACTING_AT_ONCE.values()]
    for margins in (MARGINS, *NARROWBAND.values()):
        used += [margins.meaning, margins.doubted, margins.undecided]
    assert max(used) < Tuning().prune


def test_the_bench_curves_stop_at_the_search_prune() -> None:
    # The curves make each decision again with other margins, on the rivals the search scored.
    shown = [
        *measure.MEANING_MARGINS,
        *measure.UNDECIDED_MARGINS,
        *narrowband.MEANING_MARGINS,
        *options.MEANING_MARGINS,
        *(doubted for doubted in options.DOUBTED_MARGINS if doubted != math.inf),
    ]
    assert max(shown) <= Tuning().prune


def test_the_pruned_search_finds_what_the_decision_weighs_as_a_search_of_every_phrase(
    whisper: Callable[[str], WhisperRecognizer],
) -> None:
    # A person's "ja" where "final answer?" is asked. The search drops prefixes far below the best phrase, and those
    # that can change neither the best meaning's best phrase nor the rival meaning's score (decision 021): both come
    # out as a search of every phrase, unpruned, scores them.
    (clip,) = [clip for clip in real_speech.load(("de",)) if clip.kind == "yes"]
    context = Context(ContextName.CONFIRM, "de")
    listened = whisper("de").listen(Audio.read(clip.path()), "de")
    tokens, choices = listened.tokens, grammar(context, listened.phrases)
    prompt = listened.prompt_tokens(examples_of(context, listened.phrases))

    def weighed(prune: float, window: float, finds: Finds) -> tuple[Meaning, str, float, float]:
        found = search(
            listened.model,
            listened.keys,
            trie(tokens, choices),
            tokens.special,
            free_budget=listened.budget,
            prune=prune,
            beam=100_000,
            window=window,
            finds=finds,
            prompt=prompt,
        ).phrases
        best: dict[Meaning, tuple[float, str]] = {}
        for index, score in found.items():
            meaning = (choices[index].intent, choices[index].value)
            best[meaning] = max(best.get(meaning, (-math.inf, "")), (score, choices[index].written))
        ranked = sorted(best.items(), key=lambda item: -item[1][0])
        (meaning, (score, phrase)), rival = ranked[0], (ranked[1][1][0] if len(ranked) > 1 else -math.inf)
        return meaning, phrase, score, rival

    tuning = Tuning()
    meaning, phrase, score, rival = weighed(tuning.prune, tuning.window, tuning.finds)
    every = weighed(math.inf, math.inf, Finds.EVERY_PHRASE)
    assert (meaning, phrase) == every[:2]
    assert meaning == (Intent.YES, None)
    # Scores of the same phrases decoded in other batches (the game's int8 decoder scores a row a little
    # differently in each); the rival as far as a margin looks: beyond the prune it passes every margin, found or not.
    assert score == pytest.approx(every[2], abs=0.05)
    assert min(score - rival, tuning.prune) == pytest.approx(min(every[2] - every[3], tuning.prune), abs=0.1)
