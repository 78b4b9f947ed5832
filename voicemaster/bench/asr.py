"""`voicemaster bench asr`: how well and how fast each recognizer understands the speech corpus.

Figures, never pass/fail: intent accuracy per language and noise level, answers taken for something else (wrong),
utterances refused (asked again), false accepts on non-command speech, and decode time p50/p95 per engine. Beside
them, the intent matcher alone on the written words, of the corpus and of a held-out set written without sight of
the phrase files: what no recognizer could do better than, and how far the matcher carries beyond its phrases.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar

from voicemaster.bench import asr_options, real_speech, voiced_corpus, whisper_variants
from voicemaster.bench.corpus import Clip, Noise, Utterance, UtteranceSet, generate, load, utterances
from voicemaster.config.files import LANGUAGES
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.intents import Understanding, understand
from voicemaster.speech.hearing.phrases import load as load_phrases
from voicemaster.speech.hearing.recognition import (
    Context,
    ContextName,
    Heard,
    Intent,
    Recognizer,
    RecognizerUnavailable,
)
from voicemaster.speech.hearing.whisper.decision import MARGINS, Evidence, decide
from voicemaster.speech.hearing.whisper.strategies import Tuning


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
            "whisper-narrow",
            "the same with half the search: at most 12 prefixes a token, dropped 6 (not 8) below the best phrase",
            whisper_variants.whisper(Tuning(beam=12, prune=6.0)),
        ),
        EngineSetup(
            "whisper-words",
            "Whisper base's free reading, understood by its words alone (the baseline)",
            whisper_variants.whisper(Tuning(), whisper_variants.words_only),
        ),
        EngineSetup("vosk", "Vosk small model with a grammar per context", _vosk),
    )
}


@dataclass(frozen=True)
class Sample:
    """One utterance of either corpus, as the measurement needs it."""

    path: Path
    language: str
    context: ContextName
    options: tuple[str, ...]
    names: tuple[str, ...]
    text: str
    intent: str
    value: str | None
    condition: str
    """Clean or with car noise (eSpeak-NG), whose voice (Kokoro), which source (real recordings)."""
    kind: str = ""
    """Real recordings: what kind of thing is said (letter, word, number...: `real_speech.KINDS`)."""

    @property
    def file(self) -> str:
        return self.path.name


def espeak_samples(corpus: Path, clips: Sequence[Clip]) -> list[Sample]:
    return [
        Sample(
            corpus / clip.file,
            clip.language,
            clip.context,
            clip.options,
            clip.names,
            clip.text,
            clip.intent,
            clip.value,
            "clean" if clip.snr_db is None else f"car {clip.snr_db:g} dB",
        )
        for clip in clips
    ]


def voiced_samples(
    corpus: Path, languages: Sequence[str], limit: int | None, voices: str = "kokoro"
) -> tuple[list[Sample], str | None]:
    """The utterances in the players' voices of an engine (`voiced_corpus.SPEAKERS`: kokoro, pico), or none and
    why."""
    rendered, missing = voiced_corpus.generate(corpus, languages, limit, voiced_corpus.SPEAKERS[voices])
    return [
        Sample(c.path, u.language, u.context, u.options, u.names, u.text, u.intent, u.value, c.voice)
        for c in rendered
        for u in [c.utterance]
    ], missing


def real_samples(languages: Sequence[str]) -> tuple[list[Sample], str | None]:
    """The real recordings set-up installed, or none and why; the condition is the source (klettres, asterisk-en,
    asterisk-fr, armelle)."""
    try:
        clips = real_speech.load(languages)
    except real_speech.RealSpeechUnavailable as error:
        return [], str(error)
    return [
        Sample(
            clip.path(),
            clip.language,
            ContextName(clip.context),
            clip.options,
            (),
            clip.text,
            clip.intent,
            clip.value,
            clip.source,
            clip.kind,
        )
        for clip in clips
    ], None


CORPORA = ("espeak", "kokoro", "pico", "real", "options")


def option_samples(corpus: Path, languages: Sequence[str], limit: int | None) -> tuple[list[Sample], str]:
    """Option words said by people among four options of their kind (`bench.option_words`), the source as the
    condition; `limit` takes an even sample of the cells."""
    clips, missing = asr_options.clips(corpus, languages, limit)
    return [
        Sample(c.path, c.language, ContextName.ANSWER, c.options, (), c.said, "answer", c.value, c.source)
        for c in clips
    ], missing


def run(
    corpus: Path,
    engines: Sequence[str],
    *,
    languages: Sequence[str] = LANGUAGES,
    limit: int | None = None,
    corpora: Sequence[str] = CORPORA,
) -> dict[str, Any]:
    """`limit` samples the eSpeak-NG and Kokoro corpora; the real recordings are measured whole."""
    clips = select_clips(corpus, languages, limit) if "espeak" in corpora else ()
    real, real_missing = real_samples(languages) if "real" in corpora else ([], None)
    natural, natural_missing = voiced_samples(corpus, languages, limit) if "kokoro" in corpora else ([], None)
    pico, pico_missing = voiced_samples(corpus, languages, limit, "pico") if "pico" in corpora else ([], None)
    worded, worded_missing = option_samples(corpus, languages, limit) if "options" in corpora else ([], "")
    measured = {
        "espeak": espeak_samples(corpus, clips),
        "kokoro": natural,
        "pico": pico,
        "real": real,
        "options": worded,
    }
    results = {
        name: _measure(ENGINE_SETUPS[name], {which: measured[which] for which in CORPORA if which in corpora})
        for name in engines
    }
    written = {which: as_written(which, languages) for which in ("utterances", "heldout")}
    return {
        "benchmark": "asr",
        "corpus": str(corpus),
        "corpora": list(corpora),
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
        **_tally(outcomes),
        "accuracy_by_language": {
            language: _share([_right(said, meant) for said, meant in commands if said.language == language])
            for language in languages
        },
    }


class _Meaning(Protocol):
    @property
    def intent(self) -> str: ...

    @property
    def value(self) -> str | None: ...


def _right(said: _Meaning, meant: _Meaning) -> bool:
    return (meant.intent, meant.value) == (said.intent, said.value)


def _tally(outcomes: Sequence[tuple[_Meaning, _Meaning]]) -> dict[str, Any]:
    """What was said against what was understood: commands understood, taken for something else, and non-command
    talk taken for a command."""
    commands = [(said, meant) for said, meant in outcomes if said.intent != "unknown"]
    talk = [meant for said, meant in outcomes if said.intent == "unknown"]
    return {
        "utterances": len(outcomes),
        "accuracy": _share([_right(said, meant) for said, meant in commands]),
        "wrong": sum(1 for said, meant in commands if meant.intent != "unknown" and not _right(said, meant)),
        "non_command_utterances": len(talk),
        "false_accepts": sum(1 for meant in talk if meant.intent != "unknown"),
    }


def select_clips(
    corpus: Path, languages: Sequence[str], limit: int | None, *, clean_only: bool = False
) -> tuple[Clip, ...]:
    """The corpus's clips in these languages (the corpus is made first if missing), or an even sample of `limit`."""
    manifest = corpus / "manifest.jsonl"
    if not manifest.exists():
        generate(corpus)
    clips = tuple(
        clip for clip in load(manifest) if clip.language in languages and (clip.noise is Noise.CLEAN or not clean_only)
    )
    if limit is not None:
        clips = clips[:: max(1, len(clips) // limit)][:limit]
    return clips


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
        weighed: list[Weighed] = []
        missing: dict[str, str] = {}
        for _, recognizer, own in per_language(setup, samples, missing):
            for sample in own:
                context = Context(sample.context, sample.language, sample.options, sample.names)
                heard = recognizer.recognize(Audio.read(sample.path), context)
                outcomes.append((sample, heard))
                evidence = recognizer.last if isinstance(recognizer, whisper_variants.WhisperVariant) else None
                if evidence is not None:
                    weighed.append(Weighed(sample, context, evidence, heard))
        found[name] = {**summarize(outcomes), "not_installed": missing, "margins": margin_curve(outcomes, weighed)}
        if name == "options":
            points = asr_options.curve(weighed)
            found[name] |= {
                "option_cells": asr_options.cells(outcomes),
                "option_curve": points,
                "option_chosen": asr_options.chosen(points),
            }
    return found


@dataclass(frozen=True)
class Weighed:
    """A grammar decision and the evidence it was made on, to be made again with other margins."""

    sample: Sample
    context: Context
    evidence: Evidence
    heard: Heard


MEANING_MARGINS = (0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
FREE_MARGINS = (2.0, 4.0, 6.0, 8.0, 10.0, 12.0)


def margin_curve(outcomes: Sequence[tuple[Sample, Heard]], weighed: Sequence[Weighed]) -> list[dict[str, Any]]:
    """Accuracy, wrong meanings and false accepts had the margins been others: the data they were set from.
    Utterances decided without the grammar (placements, new names) count as they were heard."""
    if not weighed:
        return []
    regraded = {id(item.heard) for item in weighed}
    fixed = [(sample, heard) for sample, heard in outcomes if id(heard) not in regraded]
    phrases = {item.sample.language: load_phrases(item.sample.language) for item in weighed}
    free = [understand(item.heard.text, item.context, phrases[item.sample.language]) for item in weighed]
    curve = []
    for meaning in MEANING_MARGINS:
        for free_margin in FREE_MARGINS:
            margins = replace(MARGINS, meaning=meaning, free=free_margin)
            again = [
                (item.sample, decide(item.evidence, reading, item.heard.text, margins))
                for item, reading in zip(weighed, free, strict=True)
            ]
            tally = _tally([*fixed, *again])
            curve.append(
                {
                    "meaning": meaning,
                    "free": free_margin,
                    "accuracy": tally["accuracy"]["share"] if tally["accuracy"] else None,
                    "wrong": tally["wrong"],
                    "false_accepts": tally["false_accepts"],
                }
            )
    return curve


def summarize(outcomes: Sequence[tuple[Sample, Heard]]) -> dict[str, Any]:
    commands = [(clip, heard) for clip, heard in outcomes if clip.intent != "unknown"]
    cells: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for clip, heard in commands:
        cells[clip.language][clip.condition].append(_right(clip, heard))
    times = [heard.decode_ms for _, heard in outcomes]
    talk = [(clip, heard) for clip, heard in outcomes if clip.intent == "unknown"]
    return {
        **_tally(outcomes),
        "accuracy_by_language": {
            language: {condition: _share(marks) for condition, marks in sorted(row.items())}
            for language, row in sorted(cells.items())
        },
        "asked_again": _share([heard.intent == Intent.UNKNOWN for _, heard in commands]),
        "false_accepts_by_context": {
            context: sum(1 for clip, heard in talk if clip.context == context and heard.intent != Intent.UNKNOWN)
            for context in sorted({clip.context.value for clip, _ in talk})
        },
        "decode_ms": percentiles(times),
        "by_source": by_source(outcomes),
        "refused_though_read": refused_though_read(outcomes),
        "mistakes": [
            {
                "file": str(clip.path),
                "said": clip.text,
                "kind": clip.kind,
                "expected": _meaning(clip.intent, clip.value),
                "heard": heard.text,
                "understood": _meaning(heard.intent, heard.value),
            }
            for clip, heard in outcomes
            if not _right(clip, heard)
        ],
    }


def by_source(outcomes: Sequence[tuple[Sample, Heard]]) -> dict[str, Any]:
    """Per condition (a real recording's source) and language, and per kind: commands understood, taken for
    something else, asked again; non-commands taken for a command."""
    groups: dict[str, dict[str, list[tuple[Sample, Heard]]]] = defaultdict(lambda: defaultdict(list))
    for sample, heard in outcomes:
        groups[f"{sample.condition} {sample.language}"]["all"].append((sample, heard))
        if sample.kind:
            groups[f"{sample.condition} {sample.language}"][sample.kind].append((sample, heard))
    found: dict[str, Any] = {}
    for group, kinds in sorted(groups.items()):
        found[group] = {}
        for kind, members in sorted(kinds.items(), key=lambda item: (item[0] != "all", item[0])):
            tally = _tally(members)
            commands = [heard for sample, heard in members if sample.intent != "unknown"]
            found[group][kind] = {
                **tally,
                "asked_again": sum(1 for heard in commands if heard.intent == Intent.UNKNOWN),
            }
    return found


READ_NEARLY = 0.85
"""A free reading this close (in share of letters, after normalizing) to what was said counts as read right."""


def refused_though_read(outcomes: Sequence[tuple[Sample, Heard]]) -> dict[str, Any]:
    """Commands asked again although the decoder's own free reading was what was said, exactly or nearly: the
    grammar, not the ear, refused them. The goal is none."""
    from rapidfuzz.distance import Levenshtein

    from voicemaster.speech.hearing.normal_form import normalize

    refused = []
    for sample, heard in outcomes:
        if sample.intent == "unknown" or heard.intent != Intent.UNKNOWN:
            continue
        said, read = normalize(sample.text, sample.language), normalize(heard.text, sample.language)
        if said and read and Levenshtein.normalized_similarity(said, read) >= READ_NEARLY:
            refused.append({"file": str(sample.path), "said": sample.text, "heard": heard.text, "exact": said == read})
    return {
        "exact": sum(1 for item in refused if item["exact"]),
        "near": sum(1 for item in refused if not item["exact"]),
        "utterances": refused,
    }


def percentiles(values: Sequence[float]) -> dict[str, float | None]:
    return {
        "p50": round(statistics.median(values), 1) if values else None,
        "p95": round(statistics.quantiles(values, n=20)[-1], 1) if len(values) > 1 else None,
    }


def _meaning(intent: str, value: str | None) -> str:
    return intent + (f" {value}" if value else "")


def _share(marks: Sequence[bool]) -> dict[str, float | int] | None:
    return {"share": round(sum(marks) / len(marks), 4), "n": len(marks)} if marks else None
