"""Listening as one pipeline, top to bottom: audio frames -> endpointer -> recognizer -> decision.

1. **Frames**: the device (`AudioIn.frames`) records, 32 ms at a time; it knows nothing of utterances.
2. **Endpointer** (`endpoint.Endpointer`): each frame in, a value out: `BargedIn` (stop the program's voice),
   `Paused(audio)` (a short pause: the utterance so far), `Resumed` (more speech after it), `Ended(audio)`.
3. **Recognizer** (`recognition.Recognizer`): `prepare` while the question is read, then `recognize` at each short
   pause, and once more at the end when something was said after the last one.
4. **Decision**: a reading at a pause that is understood, and safe to act on at once, ends the utterance there,
   once the pause has lasted as long as the reading took (the frames that queued meanwhile): "Antwort B" is
   answered some 0.4 s sooner (about 0.27 s after the last sound), "Ich nehme ... Antwort B" is still heard out.
   The recognizers already refuse what they are unsure of, so a reading they accept is a complete, confident answer.
5. **Heard cue**: given `cue`, at a short pause (before anything is read) a soft sound tells the player that the
   microphone caught them, unless the program's own voice still plays; again at the next pause only if they spoke
   on, so the end of what they said is always answered at once.

Stages are named and run in this one function, as Home Assistant's `assist_pipeline` runs its stages in one run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from voicemaster.dialogue.meaning import Context, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import AudioIn, Playback
from voicemaster.speech.frame import EPSILON
from voicemaster.speech.frontend.room_level import RoomLevel
from voicemaster.speech.hearing.ahead import Ahead, Speculation, gained_only_silence
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.endpointer import BargedIn, Ended, Endpointer, Paused, Resumed, Timeline
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.hearing.segmenter import Endpoint
from voicemaster.speech.hearing.voice_activity import VoiceActivity

DEFAULT_SETTINGS = EndpointSettings()


@dataclass(frozen=True)
class Hearing:
    audio: Audio | None
    """The utterance as heard; None if nobody spoke."""
    recognitions: tuple[Heard, ...]
    """Every reading the recognizer made, in order: one at each short pause, then one of the whole utterance unless
    nothing was said after the last pause. The last is what was heard."""
    early: bool
    """Whether a reading at a short pause ended the utterance."""
    timeline: Timeline
    """Where, in the audio, the speech ended, the pauses came and listening stopped."""
    barged_in_at: float | None = None
    """Seconds into the program's line where the player's voice stopped it; None when it played out (or nothing
    played). Decided here, once: the runner writes it down, it does not work it out again."""
    cued_at: float | None = None
    """Seconds of audio since listening began where the heard cue was last started; None when none was."""
    speculation: Speculation | None = None
    """What reading ahead did (`ahead=True`); None without."""

    @property
    def heard(self) -> Heard | None:
        return self.recognitions[-1] if self.recognitions else None


def ends_early(heard: Heard, context: Context) -> bool:
    """Understood, and safe to act on at once. A yes may lock an answer or pay one out, so it waits out the whole
    pause ("Ja ... nein, warte!" must not lock at the "Ja"), unless the context says the quizmaster listens on
    for a take-back (`Context.yes_at_once`). A placement that places amounts only may go on after a breath ("zehn
    auf A ... und den Rest auf C"), so it ends early only once it places the rest or everything."""
    if heard.intent is Intent.PLACEMENT:
        return any(clause.endswith(("=rest", "=all")) for clause in (heard.value or "").split(","))
    return heard.intent is not Intent.UNKNOWN and (heard.intent is not Intent.YES or context.yes_at_once)


def listen_and_recognize(
    source: AudioIn,
    recognizer: Recognizer,
    context: Context,
    timeout: float,
    during: Playback | None = None,
    *,
    vad: VoiceActivity,
    settings: EndpointSettings = DEFAULT_SETTINGS,
    clock: Callable[[], float] = time.perf_counter,
    cue: Callable[[], object] | None = None,
    ahead: bool = False,
    room: RoomLevel | None = None,
) -> Hearing:
    """One utterance heard and understood. Listening ends at the end of speech, at a short pause whose reading is
    complete, or `timeout` seconds after the program stopped speaking if nobody spoke; with `settings` whose short
    pause is the whole pause, nothing is read before the end (the baseline `bench latency` compares with).
    `cue` is called where the utterance pauses or ends, before it is read, once for each stretch of speech: the
    player hears at once that they were heard, however long reading takes; never while `during` still plays.
    `ahead`, for a source whose frames come in real time (a microphone): the utterance is read on a worker thread
    from the short pause (`ahead.Ahead`), and a complete reading ends it as soon as the short pause is
    reached and the reading is made; without, it is read at the short pause, between frames. `room`: the room's
    speech-band level, kept across listenings (a microphone's `RoomLevel`), which the player must rise above."""
    # What the recognizer can work out from the context alone is done while the player still thinks.
    recognizer.prepare(context)
    endpointer = Endpointer(vad, settings, timeout, during.audio if during is not None else None, room)
    segmenter = endpointer.segmenter
    readings: list[Reading] = []
    complete_at: float | None = None
    """Where, in the audio, a pause whose reading was complete will have lasted as long as the reading took."""
    ended: Ended | None = None
    barged_in_at: float | None = None
    cued_at: float | None = None
    cue_due = cue is not None
    """Speech came since the last cue."""
    reader = Ahead(recognizer) if ahead else None
    for frame in source.frames(during, before=settings.pre_roll_seconds):
        event = endpointer.push(frame, _program_at(during))
        if cue is not None and cue_due and isinstance(event, Paused | Ended) and event.audio is not None:
            cued_at, cue_due = _cued(cue, during, endpointer.now, cued_at)
        if reader is not None and endpointer.state in (Endpoint.SPEAKING, Endpoint.PAUSED):
            _read_ahead(reader, endpointer, readings, context)
        if isinstance(event, BargedIn):
            context = replace(context, over_our_voice=True)  # what it is read as from here on
            if during is not None and not during.done():
                barged_in_at = _stopped_at(during, endpointer)
        elif isinstance(event, Paused) and reader is None:
            started = clock()
            readings.append((segmenter.end, recognizer.recognize(event.audio, context), event.audio))
            complete_at = event.at + (clock() - started) if ends_early(readings[-1][1], context) else None
        elif isinstance(event, Resumed):
            complete_at, cue_due = None, cue is not None
        elif isinstance(event, Ended):
            ended = event
            break
        if reader is not None and endpointer.state is Endpoint.PAUSED and _complete(readings, endpointer, context):
            ended = endpointer.end_early()
            break
        if complete_at is not None and endpointer.now >= complete_at - EPSILON:
            ended = endpointer.end_early()
            break
    ended = ended or endpointer.ended()  # a script's line ran out before the end of speech
    if reader is not None and ended.audio is not None and (not readings or readings[-1][0] != segmenter.end):
        waited = reader.wait(segmenter.end)  # the reading started at this pause
        readings += [(segmenter.end, *waited)] if waited is not None else []
    stands = bool(readings) and _stands(readings[-1], segmenter.end, ended.audio)
    speculation = reader.close(decided=stands) if reader is not None else None
    if ended.audio is None:
        return Hearing(None, (), False, endpointer.timeline(), barged_in_at, speculation=speculation)
    if cue is not None and cue_due:  # cut at the longest utterance, or the script ran out
        cued_at, _ = _cued(cue, during, endpointer.now, cued_at)
    recognitions = [heard for _, heard, _ in readings]
    if ended.state is Endpoint.CUT:
        # Speech that never paused for the longest utterance is babble or the room taken for a voice, or a player
        # talking on: nothing in it is acted on, and the player is asked again.
        recognitions.append(Heard(Intent.UNKNOWN, None, "", 0.0))
    elif not stands:
        # When nothing was said after the last reading, the utterance is what was read there: reading it again would
        # only make the player wait.
        recognitions.append(recognizer.recognize(ended.audio, context))
    early = ended.state is Endpoint.ENDED_EARLY
    return Hearing(ended.audio, tuple(recognitions), early, endpointer.timeline(), barged_in_at, cued_at, speculation)


Reading = tuple[float | None, Heard, Audio]
"""A reading made: the end of speech of the utterance it read, what it heard, and the audio it read."""


def _read_ahead(reader: Ahead, endpointer: Endpointer, readings: list[Reading], context: Context) -> None:
    """A reading started at a short pause, readings of an utterance that has gone on thrown away, and a reading
    made meanwhile taken in."""
    end = endpointer.segmenter.end
    if end is not None and endpointer.now > end + EPSILON:
        if endpointer.state is Endpoint.PAUSED:
            reader.pause(end, endpointer.utterance, context)  # the pause's own audio: its decision, to the bit
    else:
        reader.keep_only(end)
    if not readings or readings[-1][0] != end:
        made = reader.ready(end)
        if made is not None:
            readings.append((end, *made))


def _complete(readings: list[Reading], endpointer: Endpointer, context: Context) -> bool:
    """Whether the utterance so far has been read whole (its audio only gained silence since) and is complete."""
    return (
        bool(readings)
        and _stands(readings[-1], endpointer.segmenter.end, endpointer.utterance())
        and ends_early(readings[-1][1], context)
    )


def _stands(reading: Reading, speech_end: float | None, now: Audio | None) -> bool:
    """Whether a reading stands for the utterance: nothing was said since, and its audio only gained silence."""
    end, _, audio = reading
    return end == speech_end and (now is None or gained_only_silence(audio, now))


def _program_at(during: Playback | None) -> float | None:
    """Where the program is in its own speech, or None when it is silent."""
    return during.position() if during is not None and not during.done() else None


def _cued(
    cue: Callable[[], object], during: Playback | None, at: float, before: float | None
) -> tuple[float | None, bool]:
    """Plays the heard cue unless the program's own voice still plays: where the last cue is, and whether one is
    still due."""
    if during is not None and not during.done():
        return before, True
    cue()
    return at, False


def _stopped_at(during: Playback, endpointer: Endpointer) -> float | None:
    """Stops the program's line for the player's voice: where in it that was, or None when it had as good as ended."""
    at = during.position()
    during.stop()
    return endpointer.barge_in.stop(during.audio, at)
