"""`voicemaster bench frontend`: what each acoustic front end does to the quizmaster's own voice in the microphone.

On the echo scenes of `corpora.echo` (a laptop, its speaker 10 dB louder at the microphone than the player):
- **ERLE**: how much of the echo is gone (dB, microphone over output) with nobody speaking, over the first second of
  a line (the canceller still learning) and after it;
- **echo taken for a player**: lines whose echo alone made the endpointer begin an utterance (a false barge-in, and
  what could be taken for a yes or a name), through the game's own `Endpointer`, Silero and echo gate;
- **player heard**: scenes of a real person speaking over the line where the endpointer began an utterance, and how
  long after the player began;
- the residual the canceller left in frames Silero calls speech, our own voice's against the player's: the data
  `BargeInSettings.player_residual` is set from;
- **CPU** per second of audio (one thread) and **added latency** (the lag of the output behind the input, by
  cross-correlation, on a player with nothing playing).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster.config.files import LANGUAGES
from voicemaster.dialogue.meaning import Context, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS, Frame, OverEcho
from voicemaster.speech.frontend import FrontEnd, FrontEndUnavailable
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, ListeningPipeline, PipelineStage
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.signal import RECOGNITION_RATE
from voicemaster_lab.asr.frontends import FRONT_ENDS
from voicemaster_lab.asr.samples import Sample, _spoken, real_samples
from voicemaster_lab.corpora import echo
from voicemaster_lab.harness.laptop import Laptop
from voicemaster_lab.harness.scene import ANSWER, HeardFrames, onset

TRIED = {
    "player_residual": (0.03, 0.1, 0.2, 0.3),
    "player_share": (0.15, 0.2, 0.25, 0.3, 0.4, 0.5),
    "filter_seconds": (0.1, 0.15, 0.2, 0.35),
    "residual_seconds": (0.15, 0.25, 0.35),
}
"""Barge-in's settings (`BargeInSettings`) each also tried at these values, the others as shipped."""
SHIPPED = "shipped"


def _varied(name: str, value: float) -> EndpointSettings:
    changes: dict[str, Any] = {name: value}
    return replace(DEFAULT_SETTINGS, barge_in=replace(DEFAULT_SETTINGS.barge_in, **changes))


VARIANTS = {
    SHIPPED: DEFAULT_SETTINGS,
    **{f"{name}={value}": _varied(name, value) for name, values in TRIED.items() for value in values},
}


def run(
    corpus: Path,
    names: Sequence[str],
    *,
    languages: Sequence[str] = LANGUAGES,
    players: int = 30,
    listen: bool = False,
) -> dict[str, Any]:
    """Every front end of `names` on each language's lines alone and on `players` real recordings said over them;
    with `listen`, each player's scene also played through the game's whole listening (Whisper deciding, the line
    stopped where the player barged in): what was understood."""
    real, missing = real_samples(languages)
    chosen = real[:: max(1, len(real) // players)][:players] if real else []
    alone = [
        echo.made(None, language, corpus, line=index)
        for language in languages
        for index in range(len(echo.LINES[language]))
    ]
    spoken = [(sample, echo.made(_spoken(sample), sample.language, corpus)) for sample in chosen]
    vad = SileroVad()
    found: dict[str, Any] = {
        "benchmark": "frontend",
        "lines": len(alone),
        "players": len(spoken),
        "real_missing": missing,
    }
    results: dict[str, Any] = {}
    for name in names:
        try:
            results[name] = _measure(name, alone, spoken, vad)
            if listen:
                results[name]["listened"] = _listened(name, spoken, vad)
        except FrontEndUnavailable as error:
            results[name] = {"unavailable": str(error)}
    found["front_ends"] = results
    return found


def _measure(
    name: str, alone: Sequence[echo.Scene], spoken: Sequence[tuple[Sample, echo.Scene]], vad: SileroVad
) -> dict[str, Any]:
    make = FRONT_ENDS[name]
    cpu = 0.0
    seconds = 0.0
    first: list[float] = []
    later: list[float] = []
    echo_speech: list[float] = []
    echo_share: list[float] = []
    false_onsets = dict.fromkeys(VARIANTS, 0)
    for scene in alone:
        heard, played = _pair(scene)
        started = time.process_time()
        cleaned = _primed(make(), heard, played)
        cpu += time.process_time() - started
        seconds += len(heard) / 2 / RECOGNITION_RATE
        mic, out = _floats(heard), _floats(b"".join(frame.samples for frame in cleaned))
        second = RECOGNITION_RATE
        first.append(_erle(mic[:second], out[:second]))
        later.append(_erle(mic[second:], out[second:]))
        echo_speech += [
            frame.echo.residual for frame in cleaned if frame.echo is not None and _speech(vad, frame.samples)
        ]
        echo_share += [judged.share for judged in map(_over_echo, cleaned) if judged is not None]
        for variant, settings in VARIANTS.items():
            false_onsets[variant] += _onset(vad, cleaned, played, settings) is not None
    heard_at: dict[str, list[float]] = {variant: [] for variant in VARIANTS}
    player_speech: list[float] = []
    player_share: list[float] = []
    judged = 0
    for _sample, scene in spoken:
        heard, played = _pair(scene)
        started = time.process_time()
        cleaned = _primed(make(), heard, played)
        cpu += time.process_time() - started
        seconds += len(heard) / 2 / RECOGNITION_RATE
        begin = round(scene.onset / FRAME_SECONDS)
        player_speech += [
            frame.echo.residual for frame in cleaned[begin:] if frame.echo is not None and _speech(vad, frame.samples)
        ]
        player_share += [
            judged.share
            for judged in map(_over_echo, cleaned[begin:])
            if judged is not None and _speech(vad, judged.samples)
        ]
        judged += _over_echo(cleaned[begin]) is not None
        for variant, settings in VARIANTS.items():
            onset = _onset(vad, cleaned, played, settings)
            if onset is not None and onset >= scene.onset - 0.1:
                heard_at[variant].append(onset - scene.onset)
    return {
        "describe": make().name,
        "erle_first_second_db": _quantiles(first),
        "erle_db": _quantiles(later),
        "echo_taken_for_player": false_onsets,
        "player_heard": {variant: len(found) for variant, found in heard_at.items()},
        "player_heard_after_ms": {
            variant: _quantiles([1000 * at for at in found]) for variant, found in heard_at.items()
        },
        "filter_judged_at_onset": judged,
        "residual_db_echo_speech": _quantiles([_db(value) for value in echo_speech]),
        "residual_db_player_speech": _quantiles([_db(value) for value in player_speech]),
        "share_db_echo": _quantiles([_db(value) for value in echo_share]),
        "share_db_player_speech": _quantiles([_db(value) for value in player_share]),
        "cpu_ms_per_second": round(1000 * cpu / seconds, 2) if seconds else None,
        "added_latency_ms": _latency(make(), spoken),
    }


def _primed(front_end: FrontEnd, heard: bytes, played: bytes) -> list[Frame]:
    """The scene through `front_end` after its own first `echo.LEAD_SECONDS` (our voice alone): in a game the
    canceller runs on from line to line, so it has heard the room before a player talks over a line."""
    lead = round(echo.LEAD_SECONDS / FRAME_SECONDS) * FRAME_BYTES
    _through(front_end, heard[:lead], played[:lead])
    return _through(front_end, heard, played)


def _listened(name: str, spoken: Sequence[tuple[Sample, echo.Scene]], vad: SileroVad) -> dict[str, int]:
    """Each player's scene through the game's pipeline on a `Laptop`: understood as meant, asked again (or not heard),
    taken for something else; for what names nothing, taken for a command."""
    from voicemaster.speech.hearing.engines import open_recognizer

    counts = {"commands": 0, "understood": 0, "asked_again": 0, "wrong": 0, "non_commands": 0, "taken": 0}
    recognizers: dict[str, Recognizer] = {}
    for sample, _scene in spoken:
        if sample.language not in recognizers:
            recognizers[sample.language] = open_recognizer("whisper", sample.language)
        laptop = Laptop(
            echo.line_over(_spoken(sample), sample.language),
            Audio.read(sample.path),
            echo.LEAD_SECONDS,
            FRONT_ENDS[name](),
        )
        context = Context(sample.context, sample.language, sample.options, sample.names)
        heard = (
            ListeningPipeline(laptop, recognizers[sample.language], vad=vad).listen(context, 1.0, laptop.playing).heard
        )
        intent = heard.intent if heard is not None else Intent.UNKNOWN
        if sample.intent == "unknown":
            counts["non_commands"] += 1
            counts["taken"] += intent is not Intent.UNKNOWN
            continue
        counts["commands"] += 1
        if intent is Intent.UNKNOWN:
            counts["asked_again"] += 1
        elif heard is not None and (intent.value, heard.value) == (sample.intent, sample.value):
            counts["understood"] += 1
        else:
            counts["wrong"] += 1
    return counts


def _pair(scene: echo.Scene) -> tuple[bytes, bytes]:
    heard = Audio.read(scene.microphone).samples
    heard += bytes(-len(heard) % FRAME_BYTES)
    played = Audio.read(scene.reference).samples[: len(heard)]
    return heard, played + bytes(len(heard) - len(played))


def _through(front_end: FrontEnd, heard: bytes, played: bytes) -> list[Frame]:
    return [
        front_end.process(heard[at : at + FRAME_BYTES], played[at : at + FRAME_BYTES])
        for at in range(0, len(heard), FRAME_BYTES)
    ]


def _onset(vad: SileroVad, frames: Sequence[Frame], played: bytes, settings: EndpointSettings) -> float | None:
    """Where the game's pipeline (up to its endpointer) began an utterance, in seconds, with `played` as the line
    that plays; None if it never did."""
    sounding = np.flatnonzero(np.frombuffer(played, dtype="<i2"))
    program = Audio(played[: 2 * (int(sounding[-1]) + 1) if len(sounding) else 2], RECOGNITION_RATE)
    source = HeardFrames(frames, program)
    pipeline = ListeningPipeline(source, None, vad, settings, end_stage=PipelineStage.ENDPOINTER)
    return onset(pipeline.listen(ANSWER, timeout=3600.0, during=source.playing))


def _over_echo(frame: Frame) -> OverEcho | None:
    return frame.echo.over_echo if frame.echo is not None else None


def _speech(vad: SileroVad, frame: bytes) -> bool:
    return vad.probability(frame) >= DEFAULT_SETTINGS.threshold


def _latency(front_end: FrontEnd, spoken: Sequence[tuple[Sample, echo.Scene]]) -> float | None:
    """The output's lag behind the input, in ms, on the first player's own recording with nothing playing."""
    if not spoken:
        return None
    voice = Audio.read(spoken[0][0].path)
    if voice.rate != RECOGNITION_RATE:
        return None
    samples = voice.samples + bytes(-len(voice.samples) % FRAME_BYTES)
    out = b"".join(frame.samples for frame in _through(front_end, samples, bytes(len(samples))))
    a, b = _floats(samples), _floats(out)
    lags = np.arange(0, 2 * 480)
    scores = [float(np.dot(a[: len(a) - lag], b[lag:])) for lag in lags]
    return round(1000 * int(lags[int(np.argmax(scores))]) / RECOGNITION_RATE, 1)


def _floats(samples: bytes) -> np.ndarray[Any, np.dtype[np.float64]]:
    return np.frombuffer(samples, dtype="<i2").astype(np.float64)


def _erle(heard: Any, out: Any) -> float:
    return round(10 * float(np.log10(max(float(np.sum(heard**2)), 1.0) / max(float(np.sum(out**2)), 1.0))), 1)


def _db(value: float) -> float:
    return round(20 * float(np.log10(max(value, 1e-6))), 1)


def _quantiles(values: Sequence[float]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "min": None, "p50": None, "max": None}
    ordered = np.sort(np.asarray(values, dtype=np.float64))
    return {
        "n": len(values),
        "min": round(float(ordered[0]), 1),
        "p5": round(float(np.percentile(ordered, 5)), 1),
        "p50": round(float(np.percentile(ordered, 50)), 1),
        "p95": round(float(np.percentile(ordered, 95)), 1),
        "max": round(float(ordered[-1]), 1),
    }


def report(figures: dict[str, Any]) -> str:
    lines = [
        f"echo scenes: {figures['lines']} lines alone, {figures['players']} real recordings said over a line "
        f"(a laptop: our voice {echo.ECHO_OVER_PLAYED_DB:g} dB over the level played, {echo.ECHO_OVER_PLAYER_DB:g} dB "
        "over the player, at the microphone)"
    ]
    if figures.get("real_missing"):
        lines.append(f"real recordings: not measured: {figures['real_missing']}")
    for name, found in figures["front_ends"].items():
        if "unavailable" in found:
            lines.append(f"\n{name}: not measured: {found['unavailable']}")
            continue
        first, later = found["erle_first_second_db"], found["erle_db"]
        heard = found["player_heard_after_ms"][SHIPPED]
        lines += [
            f"\n{name}: {found['describe']}",
            f"  ERLE first second p50 {first['p50']} dB (min {first['min']}); after it p50 {later['p50']} dB "
            f"(min {later['min']})",
            f"  our voice alone taken for a player (shipped settings): "
            f"{found['echo_taken_for_player'][SHIPPED]} of {figures['lines']} lines",
            f"  a player over the line heard: {found['player_heard'][SHIPPED]} of {figures['players']}, "
            f"p50 {heard['p50']} ms after they began; judged by the barge-in filter at the onset: "
            f"{found['filter_judged_at_onset']}",
            "  each setting alone at other values (echo taken / players heard): "
            + ", ".join(
                f"{variant} {found['echo_taken_for_player'][variant]} / {found['player_heard'][variant]}"
                for variant in found["echo_taken_for_player"]
                if variant != SHIPPED
            ),
            "  residual left in frames Silero calls speech (dB): "
            f"our voice {_shown(found['residual_db_echo_speech'])}; "
            f"a player's {_shown(found['residual_db_player_speech'])}",
            "  share the barge-in filter left unexplained (dB): "
            f"our voice alone {_shown(found['share_db_echo'])}; "
            f"a player's speech {_shown(found['share_db_player_speech'])}",
            f"  CPU {found['cpu_ms_per_second']} ms per second of audio; added latency {found['added_latency_ms']} ms",
        ]
        if "listened" in found:
            heard = found["listened"]
            lines.append(
                "  through the whole listening (Whisper; the line stopped at a barge-in): "
                f"{heard['understood']} of {heard['commands']} understood, {heard['asked_again']} asked again or "
                f"unheard, {heard['wrong']} taken for something else; {heard['taken']} of {heard['non_commands']} "
                "non-commands taken for a command"
            )
    return "\n".join(lines)


def _shown(quantiles: dict[str, Any]) -> str:
    if not quantiles["n"]:
        return "none"
    return f"p5 {quantiles['p5']} / p50 {quantiles['p50']} / p95 {quantiles['p95']} of {quantiles['n']}"
