"""`voicemaster bench asr`: how well and how fast each recognizer understands the speech corpus.

The samples of each corpus are made in `asr_samples.py`, the figures of a set of outcomes in `asr_tally.py`; here the
engines compared, the run, and the curve the margins are set from.

Figures, never pass/fail: intent accuracy per language and noise level, answers taken for something else (wrong),
utterances refused (asked again), false accepts on non-command speech, and decode time p50/p95 per engine. Beside
them, the intent matcher alone on the written words, of the corpus and of a held-out set written without sight of
the phrase files: what no recognizer could do better than, and how far the matcher carries beyond its phrases.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from voicemaster.config.files import LANGUAGES
from voicemaster.dialogue.meaning import Context, Heard
from voicemaster.speech import cores
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.intents import Understanding, understand
from voicemaster.speech.hearing.phrases import load as load_phrases
from voicemaster.speech.hearing.recognition import Recognizer, RecognizerUnavailable
from voicemaster.speech.hearing.whisper.decision import MARGINS, NEAR, Evidence
from voicemaster.speech.hearing.whisper.search import Finds, Scores
from voicemaster.speech.hearing.whisper.strategies import Tuning
from voicemaster_lab.asr import crowd_figures, int8_first, narrowband, options, whisper_variants
from voicemaster_lab.asr.frontends import cleaned_samples
from voicemaster_lab.asr.options import decided_again
from voicemaster_lab.asr.samples import (
    CORPORA,
    ECHO,
    MANIFEST,
    ROOMS,
    Sample,
    echo_samples,
    espeak_samples,
    in_a_quiet_room,
    manifest_samples,
    option_samples,
    real_samples,
    room_samples,
    select_clips,
    voiced_samples,
)
from voicemaster_lab.asr.tally import percentiles, right, share, summarize, tally
from voicemaster_lab.corpora.utterance_set import Utterance, UtteranceSet, utterances


@dataclass(frozen=True)
class EngineSetup:
    name: str
    describe: str
    open: Callable[[str], Recognizer]
    """Opens the recognizer for a language; raises RecognizerUnavailable when its model is missing."""


def _vosk(language: str) -> Recognizer:
    from voicemaster.speech.hearing.engines import open_recognizer

    return open_recognizer("vosk", language)


ENGINE_SETUPS = {
    setup.name: setup
    for setup in (
        EngineSetup(
            "whisper",
            "Whisper base deciding by the grammar: every phrase of the context scored (after no text and after "
            "the context's examples), two margins",
            whisper_variants.whisper(Tuning()),
        ),
        EngineSetup(
            "whisper-unprompted",
            "the same with each phrase scored after no text only, not also after the context's examples",
            whisper_variants.whisper(Tuning(), prompted=False),
        ),
        EngineSetup(
            "whisper-2.5s",
            "the same with a 2.5 s window instead of 5 s (half the encoder's time)",
            whisper_variants.whisper(Tuning(window_seconds=2.5)),
        ),
        EngineSetup(
            "whisper-every-phrase",
            "the same with the search before decision 021: every phrase within the prune, depth by depth (not the "
            "likeliest first, only what the decision weighs)",
            whisper_variants.whisper(Tuning(window=math.inf, finds=Finds.EVERY_PHRASE)),
        ),
        EngineSetup(
            "whisper-narrow",
            "the same with half the search: at most 12 prefixes a token (not 24)",
            whisper_variants.whisper(Tuning(beam=12)),
        ),
        EngineSetup(
            "whisper-int8-first",
            "the same decided in int8 first (encoder and decoder), and again in float32 where the int8 decision is "
            "not far from every margin (decision 050)",
            int8_first.int8_first(Tuning()),
        ),
        EngineSetup(
            "whisper-words",
            "Whisper base's free reading, understood by its words alone (the baseline)",
            whisper_variants.whisper(Tuning(), whisper_variants.words_only),
        ),
        EngineSetup("vosk", "Vosk small model with a grammar per context", _vosk),
    )
}


def run(
    corpus: Path,
    engines: Sequence[str],
    *,
    languages: Sequence[str] = LANGUAGES,
    limit: int | None = None,
    corpora: Sequence[str] = CORPORA,
    frontends: Sequence[str] = ("none",),
) -> dict[str, Any]:
    """`limit` samples the eSpeak-NG and Kokoro corpora and the people's recordings passed through rooms; the real
    recordings are measured whole. `corpora` may also name rooms (`samples.ROOMS`), the quizmaster's echo
    (`samples.ECHO`) and manifests (`manifest:PATH`, which raise `ManifestError` for a wrong line). Each corpus is
    heard through each of `frontends` (`asr.frontends.FRONT_ENDS`), reported as "corpus +front end" but for none."""
    rooms = [which for which in corpora if which in ROOMS or which == ECHO]
    clips = select_clips(corpus, languages, limit) if "espeak" in corpora else ()
    wants_real = "real" in corpora or bool(rooms)
    real, real_missing = real_samples(languages) if wants_real else ([], None)
    natural, natural_missing = voiced_samples(corpus, languages, limit) if "kokoro" in corpora else ([], None)
    pico, pico_missing = voiced_samples(corpus, languages, limit, "pico") if "pico" in corpora else ([], None)
    wants_options = "options" in corpora or bool(rooms)
    worded, worded_missing = option_samples(corpus, languages, limit) if wants_options else ([], "")
    measured = {
        "espeak": espeak_samples(corpus, clips),
        "kokoro": natural,
        "pico": pico,
        "real": in_a_quiet_room(real, corpus),
        "options": in_a_quiet_room(worded, corpus),
    }
    if rooms:
        babble, _ = real_samples(LANGUAGES)  # the party's other voices, of any language
        spoken = [*real, *room_options(worded)]
        measured |= {
            room: echo_samples(spoken, corpus, limit)
            if room == ECHO
            else room_samples(room, spoken, babble, corpus, limit)
            for room in rooms
        }
    for which in corpora:
        if which.startswith(MANIFEST):
            measured[which] = manifest_samples(Path(which.removeprefix(MANIFEST)), languages)
    heard = {
        which if front_end == "none" else f"{which} +{front_end}": (
            measured[which]
            if front_end == "none" and which != ECHO
            else cleaned_samples(measured[which], front_end, corpus)
        )
        for which in corpora
        if which in measured
        for front_end in frontends
    }
    results = {name: _measure(ENGINE_SETUPS[name], heard) for name in engines}
    written = {which: as_written(which, languages) for which in ("utterances", "heldout")}
    return {
        "benchmark": "asr",
        "corpus": str(corpus),
        "corpora": list(corpora),
        "frontends": list(frontends),
        "clips": len(clips),
        "real_clips": len(real),
        "real_missing": real_missing,
        "kokoro_clips": len(natural),
        "kokoro_missing": natural_missing,
        "pico_clips": len(pico),
        "pico_missing": pico_missing,
        "option_clips": len(worded),
        "option_missing": worded_missing,
        "engines": results,
        "written": written,
    }


def room_options(worded: Sequence[Sample]) -> list[Sample]:
    """The option words that go through the rooms: people's own recordings only, not the synthetic voices nor the
    telephone copies (a room is between a person and the microphone, not after a telephone line)."""
    return [sample for sample in worded if sample.condition in PEOPLE]


PEOPLE = frozenset({"klettres", "asterisk-en", "asterisk-fr", "armelle"})
"""The option words' sources that are recordings of people."""


def as_written(which: UtteranceSet, languages: Sequence[str]) -> dict[str, Any]:
    """The intent matcher on the written words of one set of utterances, as if a recognizer had heard them perfectly."""
    outcomes: list[tuple[Utterance, Understanding]] = []
    for language in languages:
        phrases = load_phrases(language)
        for said in utterances(language, which):
            context = Context(said.context, language, said.options, said.names)
            outcomes.append((said, understand(said.text, context, phrases)))
    commands = [(said, meant) for said, meant in outcomes if said.intent != "unknown"]
    return {
        **tally(outcomes),
        "accuracy_by_language": {
            language: share([right(said, meant) for said, meant in commands if said.language == language])
            for language in languages
        },
    }


class _HasLanguage(Protocol):
    @property
    def language(self) -> str: ...


Sampled = TypeVar("Sampled", bound=_HasLanguage)


def per_language(
    setup: EngineSetup, clips: Sequence[Sampled], missing: dict[str, str]
) -> Iterator[tuple[str, Recognizer, list[Sampled]]]:
    """Each language's clips with the engine's recognizer for it, loaded once; a language whose model is not
    installed goes into `missing` with the reason."""
    by_language: dict[str, list[Sampled]] = defaultdict(list)
    for clip in clips:
        by_language[clip.language].append(clip)
    for language, own in sorted(by_language.items()):
        try:
            recognizer = setup.open(language)
        except RecognizerUnavailable as error:
            missing[language] = str(error)
            continue
        yield language, recognizer, own


def _measure(setup: EngineSetup, corpora: dict[str, list[Sample]]) -> dict[str, Any]:
    found: dict[str, Any] = {"describe": setup.describe}
    for name, samples in corpora.items():
        outcomes: list[tuple[Sample, Heard]] = []
        cpu_ms: list[float] = []
        weighed: list[Weighed] = []
        searched: list[Scores] = []
        missing: dict[str, str] = {}
        int8_only = 0
        for _, recognizer, own in per_language(setup, samples, missing):
            for sample in own:
                context = Context(sample.context, sample.language, sample.options, sample.names)
                audio = Audio.read(sample.path)
                crowded = crowd_figures.crowded(sample)  # the listening pipeline's judgement, before the reader's
                cpu_before = time.process_time()
                heard = recognizer.recognize(audio, context, crowded=crowded)
                cpu_ms.append((time.process_time() - cpu_before) * 1000)
                outcomes.append((sample, heard))
                evidence = recognizer.last if isinstance(recognizer, whisper_variants.WhisperVariant) else None
                searched += recognizer.searched if isinstance(recognizer, whisper_variants.WhisperVariant) else ()
                if evidence is not None:
                    weighed.append(Weighed(sample, context, evidence, heard))
            if isinstance(recognizer, int8_first.Int8First):
                int8_only += recognizer.int8_only
        found[name] = {
            **summarize(outcomes),
            "decision_cpu_ms": percentiles(cpu_ms),
            "decision_cores": decision_cores(),
            "int8_only": int8_only if setup.name == "whisper-int8-first" else None,
            "decoder": work(searched),
            "not_installed": missing,
            "margins": margin_curve(outcomes, weighed),
            "undecided_curve": undecided_curve(weighed),
            "over_our_voice": over_our_voice(weighed),
            "narrowband": sum(item.evidence.narrowband for item in weighed),
            "crowded": sum(item.evidence.crowded for item in weighed),
            "crowd_curve": crowd_figures.curve(weighed),
            "narrowband_curve": narrowband.curve(weighed),
        }
        if name == "options":
            points = options.curve(weighed)
            found[name] |= {
                "option_cells": options.cells(outcomes),
                "option_curve": points,
                "option_chosen": options.chosen(points),
            }
    return found


def decision_cores() -> str:
    """How many cores a decision was given: "2" where the bench was told (`cores.CORES_ENVIRONMENT`), else "1"."""
    return "2" if os.environ.get(cores.CORES_ENVIRONMENT, "") == "2" else "1"


def work(searched: Sequence[Scores]) -> dict[str, Any]:
    """The decoder's work in the grammar searches: rows (each phrase prefix once per reading, and the free reading's
    tokens) and steps per search, as percentiles and means (docs/decisions/021-less-work-per-decision.md)."""
    rows, steps = [scores.rows for scores in searched], [scores.steps for scores in searched]
    return {
        "searches": len(searched),
        "rows": percentiles(rows) | {"mean": round(statistics.fmean(rows), 1) if rows else None},
        "steps": percentiles(steps) | {"mean": round(statistics.fmean(steps), 2) if steps else None},
    }


@dataclass(frozen=True)
class Weighed:
    """A grammar decision and the evidence it was made on, to be made again with other margins."""

    sample: Sample
    context: Context
    evidence: Evidence
    heard: Heard


MEANING_MARGINS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
FREE_MARGINS = (2.0, 4.0, 6.0, 6.5, 7.0, 8.0, 10.0, 12.0)


def margin_curve(outcomes: Sequence[tuple[Sample, Heard]], weighed: Sequence[Weighed]) -> list[dict[str, Any]]:
    """Accuracy, wrong meanings and false accepts had the margins been others: the data they were set from.
    Utterances decided without the grammar (placements, new names) count as they were heard."""
    if not weighed:
        return []
    regraded = {id(item.heard) for item in weighed}
    fixed = [(sample, heard) for sample, heard in outcomes if id(heard) not in regraded]
    free = options.free_readings(weighed)
    curve = []
    for meaning in MEANING_MARGINS:
        for free_margin in FREE_MARGINS:
            margins = replace(MARGINS, meaning=meaning, free=free_margin)
            again = list(zip([item.sample for item in weighed], decided_again(weighed, free, margins), strict=True))
            counted = tally([*fixed, *again])
            curve.append(
                {
                    "meaning": meaning,
                    "free": free_margin,
                    "accuracy": counted["accuracy"]["share"] if counted["accuracy"] else None,
                    "wrong": counted["wrong"],
                    "false_accepts": counted["false_accepts"],
                }
            )
    return curve


def over_our_voice(weighed: Sequence[Weighed]) -> dict[str, dict[str, int]]:
    """Understood, wrong meanings and false accepts of every grammar decision of a corpus made again as if each
    utterance had begun after the quizmaster's line ("after"), and over it: by the decoder's words, or an answer its
    last words name beside the scores ("over", the rule in use: `decision.named_at_the_end`), by its whole words alone
    ("over_words_only", decision 017's rule before it), or by the scores with the doubted margin where the free
    reading is not spelled like the pick ("over_doubted", the design not taken). The data the rules were chosen from,
    on the `echo` corpus and every other."""
    free = options.free_readings(weighed)
    after = [replace(item, evidence=replace(item.evidence, over_our_voice=False)) for item in weighed]
    over = [replace(item, evidence=replace(item.evidence, over_our_voice=True)) for item in weighed]
    words_only = [replace(item, evidence=replace(item.evidence, named_at_the_end=None)) for item in over]
    doubted = replace(MARGINS, meaning=MARGINS.doubted)
    made = {
        "after": decided_again(after, free, MARGINS),
        "over": decided_again(over, free, MARGINS),
        "over_words_only": decided_again(words_only, free, MARGINS),
        "over_doubted": [
            plain if reading.intent != "unknown" or _spelled_like(item.evidence) else strict
            for item, reading, plain, strict in zip(
                after, free, decided_again(after, free, MARGINS), decided_again(after, free, doubted), strict=True
            )
        ],
    }
    return {name: _counted(weighed, heard) for name, heard in made.items()}


def _counted(weighed: Sequence[Weighed], heard: Sequence[Heard]) -> dict[str, int]:
    """Commands understood, wrong meanings and false accepts, had each decision been `heard`."""
    again = list(zip([item.sample for item in weighed], heard, strict=True))
    counted = tally(again)
    understood = sum(right(sample, meant) for sample, meant in again if sample.intent != "unknown")
    return {"understood": understood, "wrong": counted["wrong"], "false_accepts": counted["false_accepts"]}


def _spelled_like(evidence: Evidence) -> bool:
    return evidence.meaning is not None and evidence.distances.get(evidence.meaning, 1.0) <= NEAR


UNDECIDED_MARGINS = (1.0, 3.0, 4.0, 5.0, 6.0)


def undecided_curve(weighed: Sequence[Weighed]) -> list[dict[str, Any]]:
    """Understood, wrong meanings and false accepts had `Margins.undecided` been another, the other margins as in use,
    over every grammar decision of a corpus: the data it was chosen from."""
    free = options.free_readings(weighed)
    points = []
    for undecided in UNDECIDED_MARGINS:
        margins = replace(MARGINS, undecided=undecided)
        points.append({"undecided": undecided, **_counted(weighed, decided_again(weighed, free, margins))})
    return points
