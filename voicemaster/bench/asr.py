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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from voicemaster.bench.corpus import Clip, Noise, Utterance, UtteranceSet, generate, load, utterances
from voicemaster.config import LANGUAGES
from voicemaster.speech.audio import Audio
from voicemaster.speech.intents import Understanding, understand
from voicemaster.speech.phrases import load as load_phrases
from voicemaster.speech.recognition import Context, Heard, Recognizer, RecognizerUnavailable


@dataclass(frozen=True)
class EngineSetup:
    name: str
    describe: str
    open: Callable[[str], Recognizer]
    """Opens the recognizer for a language; raises RecognizerUnavailable when its model is missing."""


def _whisper(*, min_window_seconds: float, prompted: bool, beam: int) -> Callable[[str], Recognizer]:
    def open_whisper(language: str) -> Recognizer:
        from voicemaster.speech.models import ModelMissing, require_model
        from voicemaster.speech.whisper_engine import WhisperEngine, WhisperRecognizer

        try:
            path = require_model("whisper", language)
        except ModelMissing as error:
            raise RecognizerUnavailable(str(error)) from None
        engine = WhisperEngine(path, beam=beam, min_window_seconds=min_window_seconds)
        return WhisperRecognizer(engine, prompted=prompted)

    return open_whisper


def _vosk(language: str) -> Recognizer:
    from voicemaster.speech.engines import open_recognizer

    return open_recognizer("vosk", language)


ENGINE_SETUPS = {
    setup.name: setup
    for setup in (
        EngineSetup(
            "whisper",
            "Whisper base, window sized to the utterance, context prompt, beam 2",
            _whisper(min_window_seconds=5.0, prompted=True, beam=2),
        ),
        EngineSetup(
            "whisper-30s",
            "the same with Whisper's full 30 s window",
            _whisper(min_window_seconds=30.0, prompted=True, beam=2),
        ),
        EngineSetup(
            "whisper-plain",
            "plain transcription: 30 s window, no prompt, greedy, then the same matcher",
            _whisper(min_window_seconds=30.0, prompted=False, beam=1),
        ),
        EngineSetup("vosk", "Vosk small model with a grammar per context", _vosk),
    )
}


def run(
    corpus: Path, engines: Sequence[str], *, languages: Sequence[str] = LANGUAGES, limit: int | None = None
) -> dict[str, Any]:
    clips = select_clips(corpus, languages, limit)
    results = {name: _measure(ENGINE_SETUPS[name], clips, corpus) for name in engines}
    written = {which: as_written(which, languages) for which in ("utterances", "heldout")}
    return {"benchmark": "asr", "corpus": str(corpus), "clips": len(clips), "engines": results, "written": written}


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


def per_language(
    setup: EngineSetup, clips: Sequence[Clip], missing: dict[str, str]
) -> Iterator[tuple[str, Recognizer, list[Clip]]]:
    """Each language's clips with the engine's recognizer for it, loaded once; a language whose model is not
    installed goes into `missing` with the reason."""
    by_language: dict[str, list[Clip]] = defaultdict(list)
    for clip in clips:
        by_language[clip.language].append(clip)
    for language, own in sorted(by_language.items()):
        try:
            recognizer = setup.open(language)
        except RecognizerUnavailable as error:
            missing[language] = str(error)
            continue
        yield language, recognizer, own


def _measure(setup: EngineSetup, clips: Sequence[Clip], corpus: Path) -> dict[str, Any]:
    outcomes: list[tuple[Clip, Heard]] = []
    missing: dict[str, str] = {}
    for _, recognizer, own in per_language(setup, clips, missing):
        for clip in own:
            context = Context(clip.context, clip.language, clip.options, clip.names)
            outcomes.append((clip, recognizer.recognize(Audio.read(corpus / clip.file), context)))
    return {"describe": setup.describe, **summarize(outcomes), "not_installed": missing}


def summarize(outcomes: Sequence[tuple[Clip, Heard]]) -> dict[str, Any]:
    commands = [(clip, heard) for clip, heard in outcomes if clip.intent != "unknown"]
    cells: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for clip, heard in commands:
        condition = "clean" if clip.snr_db is None else f"car {clip.snr_db:g} dB"
        cells[clip.language][condition].append(_right(clip, heard))
    times = [heard.decode_ms for _, heard in outcomes]
    return {
        **_tally(outcomes),
        "accuracy_by_language": {
            language: {condition: _share(marks) for condition, marks in sorted(row.items())}
            for language, row in sorted(cells.items())
        },
        "asked_again": _share([heard.intent == "unknown" for _, heard in commands]),
        "decode_ms": percentiles(times),
        "mistakes": [
            {
                "file": clip.file,
                "said": clip.text,
                "expected": _meaning(clip.intent, clip.value),
                "heard": heard.text,
                "understood": _meaning(heard.intent, heard.value),
            }
            for clip, heard in outcomes
            if not _right(clip, heard)
        ],
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


def report(figures: dict[str, Any]) -> str:
    lines = [f"speech corpus {figures['corpus']}: {figures['clips']} utterances"]
    for which, label in (("utterances", "the corpus's utterances"), ("heldout", "the held-out utterances")):
        found = figures["written"][which]
        by_language = ", ".join(
            f"{language} {cell['share']:.1%}" for language, cell in found["accuracy_by_language"].items() if cell
        )
        lines.append(
            f"intent matcher on the written words of {label}: {found['accuracy']['share']:.1%} of "
            f"{found['accuracy']['n']} commands ({by_language}), taken for something else {found['wrong']}, "
            f"false accepts {found['false_accepts']} of {found['non_command_utterances']}"
        )
    for name, result in figures["engines"].items():
        lines.append(f"\n{name}: {result['describe']}")
        for language, reason in result["not_installed"].items():
            lines.append(f"  {language}: not measured: {reason}")
        if not result["utterances"]:
            continue
        accuracy = result["accuracy"]
        lines.append(f"  intent accuracy {accuracy['share']:.1%} of {accuracy['n']} commands" if accuracy else "")
        for language, row in result["accuracy_by_language"].items():
            cells = ", ".join(f"{condition} {cell['share']:.1%} ({cell['n']})" for condition, cell in row.items())
            lines.append(f"    {language}: {cells}")
        asked = result["asked_again"]
        lines.append(f"  asked again {asked['share']:.1%}, taken for something else {result['wrong']}" if asked else "")
        lines.append(f"  false accepts {result['false_accepts']} of {result['non_command_utterances']} non-commands")
        lines.append(f"  decode p50 {result['decode_ms']['p50']} ms, p95 {result['decode_ms']['p95']} ms")
    return "\n".join(line for line in lines if line)
