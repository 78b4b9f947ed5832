"""`voicemaster bench yes-wait`: how long a yes to "final answer?" must be waited out (issue 27).

A yes may lock an answer or pay one out, so where nothing listens on for a take-back, listening does not end at the
first short pause after it (`pipeline.ends_early`): it waits the whole pause (`EndpointSettings.silence_seconds`,
0.7 s), in case "Ja ..." goes on "... nein, warte". (At "final answer?" the game takes the yes at once and listens
through the lock line for the take-back instead: `Context.yes_at_once`, `host.listening.take_back_window`.) This
bench hears, through the real pipeline (Silero's voice activity, the endpointer, Whisper's decision in the confirm
context),

- plain yeses: recordings of people (the real-speech set's German "ja") and the voices (Pico; Kokoro in English and
  French), and what each costs the player: from the last sound of the yes to the decision;
- yeses taken back: "Ja ... nein, warte" as the voices say it (their own pause at the dots), and a yes followed,
  after a pause of known length, by "nein, warte" (the yes a person's where the set has one): the pause a player
  leaves before taking the yes back is the whole question, so each pause is tried,

with every pause from `WAITS`: the curve of what a yes costs against which taking-back is heard as a yes. A wait is
safe for a pause when every yes taken back with that pause is not a yes.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSource
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.pipeline import ListeningPipeline
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster_lab.harness.player import Repertoire, Reply, real_clips
from voicemaster_lab.timing import live_figures

WAITS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7)
"""The pauses a yes may be waited out for: from about a breath to today's whole pause."""
GAPS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.8)
"""How long the player pauses between the yes and "nein, warte" in the spliced takings-back."""
TAKEN_BACK = {"de": "nein, warte", "en": "no, wait", "fr": "non, attends"}
SAID_WHOLE = {"de": "Ja ... nein, warte", "en": "Yes ... no, wait", "fr": "Oui ... non, attends"}
RATE = live_figures.RATE


@dataclass(frozen=True)
class Said:
    language: str
    source: str
    text: str
    audio: Audio
    yes: bool
    """Whether it is a yes (else a yes taken back)."""
    gap: float | None = None
    """The pause before the taking-back, where it was spliced in."""


def _trimmed(audio: Audio) -> Audio:
    samples = np.frombuffer(audio.samples, dtype="<i2")
    loud = np.flatnonzero(live_figures.audible(samples))
    return Audio(samples[loud[0] : loud[-1] + 1].tobytes(), audio.rate) if len(loud) else audio


def utterances(languages: Sequence[str]) -> tuple[list[Said], list[str]]:
    """What is heard, and what could not be made (a voice not installed)."""
    clips, missing = real_clips(languages)
    said: list[Said] = []
    problems = [missing] if missing else []
    for language in languages:
        voices = Repertoire(language, clips)
        yeses = voices.all(Reply("yes", "yes", ("yes", None)))
        said += [Said(language, spoken.source, spoken.text, spoken.audio, True) for spoken in yeses]
        whole = voices.all_of(SAID_WHOLE[language])
        said += [Said(language, spoken.source, spoken.text, spoken.audio, False) for spoken in whole]
        back = voices.all_of(TAKEN_BACK[language])
        people = [spoken for spoken in yeses if spoken.source == "real"] or yeses[:1]
        if back and people:
            yes, taken_back = _trimmed(people[0].audio), _trimmed(back[0].audio)
            for gap in GAPS:
                pause = bytes(2 * round(gap * RATE))
                audio = Audio(yes.samples + pause + taken_back.samples, RATE)
                text = f"{people[0].text} [{gap:g} s] {TAKEN_BACK[language]}"
                said.append(Said(language, f"{people[0].source}+{back[0].source}", text, audio, False, gap))
        problems += voices.missing
    return said, sorted(set(problems))


def run(languages: Sequence[str], waits: Sequence[float] = WAITS) -> dict[str, Any]:
    from voicemaster.speech.hearing.engines import open_recognizer

    started = time.monotonic()
    said, missing = utterances(languages)
    vad = SileroVad()
    recognizers: dict[str, Recognizer] = {language: open_recognizer("whisper", language) for language in languages}
    rows = []
    for wait in waits:
        settings = EndpointSettings(silence_seconds=wait, early_silence_seconds=min(wait, 0.09))
        for one in said:
            rows.append({**_heard(one, recognizers[one.language], vad, settings), "wait_s": wait})
    return {
        "benchmark": "yes-wait",
        "languages": list(languages),
        "waits": list(waits),
        "curve": [curve_point(wait, [row for row in rows if row["wait_s"] == wait]) for wait in waits],
        "heard": rows,
        "not_measured": missing,
        "seconds": round(time.monotonic() - started, 1),
    }


def longest_pause(said: Audio, vad: SileroVad, threshold: float = EndpointSettings().threshold) -> float:
    """The longest pause inside the utterance as the voice-activity model hears it, in seconds: what a yes-wait
    must outlast for the utterance to be heard whole."""
    vad.reset()
    speech = [
        vad.probability(said.samples[offset : offset + FRAME_BYTES]) >= threshold
        for offset in range(0, len(said.samples) - FRAME_BYTES + 1, FRAME_BYTES)
    ]
    spoken = [index for index, is_speech in enumerate(speech) if is_speech]
    gaps = [later - earlier - 1 for earlier, later in itertools.pairwise(spoken)]
    return round(max(gaps, default=0) * FRAME_SECONDS, 3)


def _heard(said: Said, recognizer: Recognizer, vad: SileroVad, settings: EndpointSettings) -> dict[str, Any]:
    context = Context(ContextName.CONFIRM, said.language)
    hearing = ListeningPipeline(FileSource([said.audio]), recognizer, vad=vad, settings=settings).listen(context, 5.0)
    samples = np.frombuffer(said.audio.samples, dtype="<i2")
    loud = np.flatnonzero(live_figures.audible(samples))
    speech_end = FileSource.LEAD_SECONDS + (int(loud[-1]) + 1) / RATE if len(loud) else 0.0
    readings = [heard.decode_ms / 1000 for heard in hearing.recognitions]
    after_stop = readings[len(hearing.timeline.pauses) :]
    heard = hearing.heard
    return {
        "language": said.language,
        "source": said.source,
        "text": said.text,
        "yes": said.yes,
        "gap_s": said.gap,
        "pause_s": longest_pause(said.audio, vad),
        "heard": None if heard is None else str(heard.intent),
        "taken_as_yes": heard is not None and heard.intent is Intent.YES,
        # The pause waited out, then the reading of the whole utterance (made after listening stopped); negative
        # where listening stopped before the player did.
        "wait_ms": round((hearing.timeline.stopped - speech_end + sum(after_stop)) * 1000),
    }


def curve_point(wait: float, rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    yeses = [row for row in rows if row["yes"]]
    back = [row for row in rows if not row["yes"]]
    spliced = [row for row in back if row["gap_s"] is not None]
    unsafe_gaps = sorted({row["gap_s"] for row in spliced if row["taken_as_yes"]})
    return {
        "wait_s": wait,
        "yes_understood": sum(row["taken_as_yes"] for row in yeses),
        "yeses": len(yeses),
        **live_figures.percentiles_ms(
            [row["wait_ms"] / 1000 for row in yeses if row["taken_as_yes"] and row["wait_ms"] > 0]
        ),
        "yes_decided_mid_speech": sum(row["wait_ms"] <= 0 for row in yeses),
        "taken_back_heard_as_yes": sum(row["taken_as_yes"] for row in back),
        "taken_back": len(back),
        "voices_taken_back_heard_as_yes": sum(row["taken_as_yes"] for row in back if row["gap_s"] is None),
        "shortest_pause_heard_as_yes_s": unsafe_gaps[0] if unsafe_gaps else None,
    }


def report(figures: dict[str, Any]) -> str:
    out = [
        f"yes-wait ({', '.join(figures['languages'])}, {figures['seconds']:g} s): a yes to 'final answer?' waited out "
        "for each pause; the wait runs from the yes's last sound to the decision",
        f"  {'wait s':>7}{'yes heard':>11}{'p50 ms':>8}{'p95 ms':>8}{'taken back heard as yes':>25}"
        f"{'voices':>8}   shortest spliced pause heard as yes",
    ]
    for point in figures["curve"]:
        shortest = point["shortest_pause_heard_as_yes_s"]
        out.append(
            f"  {point['wait_s']:>7g}{point['yes_understood']:>6} of {point['yeses']:<3}"
            f"{live_figures.fmt(point['p50_ms']):>8}{live_figures.fmt(point['p95_ms']):>8}"
            f"{point['taken_back_heard_as_yes']:>16} of {point['taken_back']:<5}"
            f"{point['voices_taken_back_heard_as_yes']:>8}   {'none' if shortest is None else f'{shortest:g} s'}"
        )
    whole = {
        (row["language"], row["source"], row["text"], row["pause_s"])
        for row in figures["heard"]
        if row["gap_s"] is None
    }
    out.append(
        "  the longest pause inside each utterance, as the voice-activity model hears it (a yes-wait shorter than"
    )
    out.append("  a taking-back's pause hears it as a yes):")
    out += [f"    {language} {source} {text!r}: {pause:g} s" for language, source, text, pause in sorted(whole)]
    out += [f"  not measured: {reason}" for reason in figures["not_measured"]]
    return "\n".join(out)
