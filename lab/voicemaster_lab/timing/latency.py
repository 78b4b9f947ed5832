"""`voicemaster bench latency`: from the end of a player's utterance to the first sample of the quizmaster's reply.

Each clean clip of the speech corpus is heard the way the microphone hears a player: its file twin (`FileSource`)
pushes it frame by frame, in time order and followed by silence, through the end-of-speech detector. Where the
speech ends is known exactly (the clips are synthesized), so the detector's wait counts in full. A turn's latency is

- the wait: audio time from the last speech sample to where listening stopped,
- the recognizer's measured work, attempts at pauses that did not end the utterance included,
- the reply: eSpeak-NG rendering the first sentence of the reply (it renders a sentence whole, so its first sample
  is ready when the render is).

The recognizer's time is added the way the listening loop spends it (`latency_ms`): the microphone keeps recording
while the recognizer works on an attempt, so an attempt that does not end the utterance delays the end only if it
outlasts the rest of the pause. `serial_ms` adds every decode on top of the wait instead: an upper bound. Every clip
is heard twice, with the early decision and waiting out the full pause (endpoint settings whose short pause is the
whole pause, so that nothing is read before the end), so that the gain shows.

`--engines vosk-ko` times the Vosk engine on its Korean stand-in (`asr.korean_vosk`): ten Korean commands at
three speeds, answered by the German quizmaster, while no German, English or French Vosk model can be installed.

Noisy clips are left out: their noise stops 0.2 s after the speech, where a car's would go on, so the detector
would hear an end of speech no microphone in a car hears. `voicemaster bench asr` measures what noise costs.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster.config.files import LANGUAGES
from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.host import lines
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSource
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.pipeline import ListeningPipeline
from voicemaster.speech.hearing.recognition import Recognizer, RecognizerUnavailable
from voicemaster.speech.hearing.voice_activity import SileroVad, VoiceActivity
from voicemaster.speech.voice.synthesis import Espeak
from voicemaster_lab.asr import korean_vosk
from voicemaster_lab.asr.measure import ENGINE_SETUPS, EngineSetup, per_language
from voicemaster_lab.asr.samples import Sample, select_clips, voiced_samples
from voicemaster_lab.asr.tally import percentiles
from voicemaster_lab.corpora.corpus import Clip

LISTEN_TIMEOUT_SECONDS = 5.0
"""Long enough for every clip to begin: how long the game waits for a player plays no part here."""
AUDIBLE = 0.01
"""A sample louder than this share of the clip's peak is speech: the rule the corpus cut its renderings by."""
REPLY_STAND_IN = {"player": "Anna", "letter": "B", "text": "Paris"}
"""The read-back of an answer stands in for the reply to anything understood that is not an answer: it is among the
longer first sentences of a reply, so its render time flatters nothing."""
MODES = ("early_decision", "full_pause")


@dataclass(frozen=True)
class Turn:
    """One utterance heard and answered; times in seconds."""

    language: str
    ended_early: bool
    meaning: tuple[str, str | None]
    understood_as_said: bool
    wait: float
    recognition: float
    reply: float
    latency: float
    serial: float


def run(
    corpus: Path,
    engines: Sequence[str],
    *,
    voices: Mapping[str, Voice],
    languages: Sequence[str] = LANGUAGES,
    limit: int | None = None,
    settings: EndpointSettings | None = None,
) -> dict[str, Any]:
    started = time.perf_counter()
    settings = settings or EndpointSettings()
    clips = select_clips(corpus, languages, limit, clean_only=True)
    natural, _ = voiced_samples(corpus, languages, limit)
    vad = SileroVad()
    speaker = Espeak(dict(voices))
    results = {
        name: (
            _korean_vosk(vad, speaker, settings)
            if name == korean_vosk.ENGINE
            else {
                **_measure(ENGINE_SETUPS[name], clips, corpus, vad, speaker, settings),
                "kokoro_players": _measure_natural(ENGINE_SETUPS[name], natural, vad, speaker, settings),
            }
        )
        for name in engines
    }
    return {
        "benchmark": "latency",
        "corpus": str(corpus),
        "clips": len(clips),
        "early_silence_seconds": settings.early_silence_seconds,
        "silence_seconds": settings.silence_seconds,
        "engines": results,
        "seconds": round(time.perf_counter() - started, 1),
    }


def _measure(
    setup: EngineSetup,
    clips: Sequence[Clip],
    corpus: Path,
    vad: VoiceActivity,
    speaker: Espeak,
    settings: EndpointSettings,
) -> dict[str, Any]:
    missing: dict[str, str] = {}
    heard = (
        (utterance, recognizer, Replies.of(language, speaker))
        for language, recognizer, own in per_language(setup, clips, missing)
        for utterance in (Utterance.of(clip, corpus) for clip in own)
    )
    return _figures(setup.describe, heard, missing, vad, settings)


def _measure_natural(
    setup: EngineSetup, samples: Sequence[Sample], vad: VoiceActivity, speaker: Espeak, settings: EndpointSettings
) -> dict[str, Any]:
    """The same on the demo players' Kokoro voices (English and French): speech more like a person's."""
    missing: dict[str, str] = {}
    heard = (
        (Utterance.of_sample(sample), recognizer, Replies.of(language, speaker))
        for language, recognizer, own in per_language(setup, samples, missing)
        for sample in own
    )
    return _figures(setup.describe, heard, missing, vad, settings)


def _korean_vosk(vad: VoiceActivity, speaker: Espeak, settings: EndpointSettings) -> dict[str, Any]:
    """The Vosk engine timed on its Korean stand-in, answered in German (see `asr.korean_vosk`)."""
    describe = "Vosk's small Korean model, ten Korean commands as its grammar: the Vosk engine's timing"
    try:
        recognizer = korean_vosk.KoreanVosk()
    except RecognizerUnavailable as error:
        return _figures(describe, (), {korean_vosk.LANGUAGE: str(error)}, vad, settings)
    replies = Replies.of("de", speaker)
    context = Context(ContextName.ANSWER, korean_vosk.LANGUAGE)
    heard = ((Utterance(audio, context, meant), recognizer, replies) for audio, meant in korean_vosk.renderings())
    return _figures(describe, heard, {}, vad, settings)


def _figures(
    describe: str,
    heard: Iterable[tuple[Utterance, Recognizer, Replies]],
    missing: dict[str, str],
    vad: VoiceActivity,
    settings: EndpointSettings,
) -> dict[str, Any]:
    """Each utterance heard twice, with the early decision and with the full pause, and the figures of both."""
    turns: dict[str, list[Turn]] = {mode: [] for mode in MODES}
    missed = changed = 0
    for said, recognizer, replies in heard:
        full_pause = replace(settings, early_silence_seconds=settings.silence_seconds)
        early, full = (_turn(said, recognizer, vad, chosen, replies) for chosen in (settings, full_pause))
        if early is None or full is None:
            missed += 1
            continue
        turns["early_decision"].append(early)
        turns["full_pause"].append(full)
        changed += early.meaning != full.meaning
    measured = turns["early_decision"]
    return {
        "describe": describe,
        "not_installed": missing,
        "utterances": len(measured),
        "not_heard": missed,
        "early_changed_meaning": changed,
        **{mode: _summary(found) for mode, found in turns.items()},
        "by_language": {
            language: {mode: _summary([t for t in found if t.language == language]) for mode, found in turns.items()}
            for language in sorted({turn.language for turn in measured})
        },
    }


@dataclass(frozen=True)
class Utterance:
    """A clean rendering, where it was said, and what it means."""

    audio: Audio
    context: Context
    meant: tuple[str, str | None]

    @classmethod
    def of(cls, clip: Clip, corpus: Path) -> Utterance:
        context = Context(clip.context, clip.language, clip.options, clip.names)
        return cls(Audio.read(corpus / clip.file), context, (clip.intent, clip.value))

    @classmethod
    def of_sample(cls, sample: Sample) -> Utterance:
        context = Context(sample.context, sample.language, sample.options, sample.names)
        return cls(Audio.read(sample.path), context, (sample.intent, sample.value))


def _turn(
    said: Utterance,
    recognizer: Recognizer,
    vad: VoiceActivity,
    settings: EndpointSettings,
    replies: Replies,
) -> Turn | None:
    """The utterance heard and answered once; None if the endpointer heard no utterance in it."""
    audio, context = said.audio, said.context
    source = FileSource([audio])
    hearing = ListeningPipeline(source, recognizer, vad=vad, settings=settings).listen(context, LISTEN_TIMEOUT_SECONDS)
    timeline = hearing.timeline
    if hearing.heard is None:
        return None
    speech_end = FileSource.LEAD_SECONDS + last_speech_sample(audio)
    decodes = [heard.decode_ms / 1000 for heard in hearing.recognitions]
    at_pauses, after_stop = decodes[: len(timeline.pauses)], decodes[len(timeline.pauses) :]
    # The listening loop reads the utterance so far when a pause is long enough; meanwhile the audio goes on
    # arriving, and the loop catches up on it afterwards.
    clock = 0.0
    for asked, seconds in zip(timeline.pauses, at_pauses, strict=True):
        clock = max(clock, asked) + seconds
    clock = max(clock, timeline.stopped) + sum(after_stop)
    rendered = replies.render_time(hearing.heard, context)
    wait = timeline.stopped - speech_end
    meaning = (hearing.heard.intent, hearing.heard.value)
    return Turn(
        language=context.language,
        ended_early=hearing.early,
        meaning=meaning,
        understood_as_said=meaning == said.meant,
        wait=wait,
        recognition=sum(decodes),
        reply=rendered,
        latency=clock + rendered - speech_end,
        serial=wait + sum(decodes) + rendered,
    )


@dataclass(frozen=True)
class Replies:
    """The quizmaster's first sentence in reply to what was heard, rendered by its voice."""

    language: str
    said: lines.Lines
    speaker: Espeak

    @classmethod
    def of(cls, language: str, speaker: Espeak) -> Replies:
        return cls(language, lines.load(language), speaker)

    def text(self, heard: Heard, context: Context) -> str:
        if heard.intent is Intent.UNKNOWN:
            return self.said.render("not_understood", {})
        if heard.intent is Intent.ANSWER and heard.value is not None and context.options:
            text = context.options["ABCD".index(heard.value)]
            return self.said.render("final_answer", {**REPLY_STAND_IN, "letter": heard.value, "text": text})
        return self.said.render("final_answer", REPLY_STAND_IN)

    def render_time(self, heard: Heard, context: Context) -> float:
        """Seconds until the reply's first sample exists."""
        text = self.text(heard, context)
        started = time.perf_counter()
        self.speaker.render(text, self.language)
        return time.perf_counter() - started


def last_speech_sample(audio: Audio) -> float:
    """Where the speech in a clean clip ends, in seconds: just after its last audible sample."""
    samples = np.abs(np.frombuffer(audio.samples, dtype="<i2").astype(np.float64))
    loud = np.flatnonzero(samples > AUDIBLE * samples.max())
    return (int(loud[-1]) + 1) / audio.rate


def _summary(turns: Sequence[Turn]) -> dict[str, Any]:
    def ms(values: Sequence[float]) -> dict[str, float | None]:
        return percentiles([value * 1000 for value in values])

    return {
        "utterances": len(turns),
        "latency_ms": ms([t.latency for t in turns]),
        "understood": sum(t.meaning[0] != "unknown" for t in turns),
        "latency_understood_ms": ms([t.latency for t in turns if t.meaning[0] != "unknown"]),
        "latency_ended_early_ms": ms([t.latency for t in turns if t.ended_early]),
        "serial_ms": ms([t.serial for t in turns]),
        "wait_ms": ms([t.wait for t in turns]),
        "recognition_ms": ms([t.recognition for t in turns]),
        "reply_ms": ms([t.reply for t in turns]),
        "ended_early": round(sum(t.ended_early for t in turns) / len(turns), 3) if turns else None,
        "understood_as_said": round(sum(t.understood_as_said for t in turns) / len(turns), 3) if turns else None,
    }


def report(figures: dict[str, Any]) -> str:
    out = [
        f"speech corpus {figures['corpus']}: {figures['clips']} clean utterances, from the end of speech to the first "
        f"sample of the reply; early decision after {figures['early_silence_seconds']:g} s of pause, else "
        f"{figures['silence_seconds']:g} s ({figures['seconds']:g} s to measure)"
    ]
    for name, result in figures["engines"].items():
        out.append(f"\n{name}: {result['describe']}")
        out += _report_result(result)
        if "kokoro_players" in result:
            out.append("  the demo players' Kokoro voices (English, French):")
            out += ["  " + line for line in _report_result(result["kokoro_players"])]
    return "\n".join(out)


def _report_result(result: dict[str, Any]) -> list[str]:
    out = [f"  {language}: not measured: {reason}" for language, reason in result["not_installed"].items()]
    if not result["utterances"]:
        return out
    out.append(f"  {'p50 / p95 ms':16}{'early decision':>18}{'full pause':>18}")
    rows = [("all", result), *result["by_language"].items()]
    for label, row in rows:
        early, full = row["early_decision"], row["full_pause"]
        out.append(f"  {label + ' (' + str(early['utterances']) + ')':16}{_cell(early):>18}{_cell(full):>18}")
    early, full = result["early_decision"], result["full_pause"]
    understood = f"understood ({early['understood']})"
    out.append(
        f"  {understood:16}{_cell(early, 'latency_understood_ms'):>18}{_cell(full, 'latency_understood_ms'):>18}"
    )
    out.append(f"  {'ended early':16}{_cell(early, 'latency_ended_early_ms'):>18}{'-':>18}")
    out.append(
        f"  ended early {early['ended_early']:.0%}; meaning changed by deciding early "
        f"{result['early_changed_meaning']} of {result['utterances']}; understood as said "
        f"{early['understood_as_said']:.0%} early, {full['understood_as_said']:.0%} full pause"
    )
    for mode, row in (("early decision", early), ("full pause", full)):
        parts = ", ".join(f"{part} {_number(row[f'{part}_ms']['p50'])}" for part in ("wait", "recognition", "reply"))
        out.append(f"  {mode}: p50 ms of {parts}; every decode added on top: {_cell(row, 'serial_ms')} ms")
    if result["not_heard"]:
        out.append(f"  {result['not_heard']} clip(s) held no utterance the detector heard")
    return out


def _cell(row: dict[str, Any], figure: str = "latency_ms") -> str:
    return f"{_number(row[figure]['p50'])} / {_number(row[figure]['p95'])}"


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}"
