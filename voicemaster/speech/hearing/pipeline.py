"""The listening pipeline: where a player's voice travels before the quizmaster acts on it, declared in one place.

    source -> front end -> barge-in -> endpointer -> reader -> decision

1. **Source** (`devices.AudioIn`): the microphone, the demo's stage or a file records 32 ms `Frame`s; it knows
   nothing of utterances.
2. **Front end** (`speech.frontend`): run by the source as each block arrives (an echo canceller must hear every
   block in order, listened to or not), it cancels our own voice's echo and judges each frame (`EchoJudgement`).
3. **Barge-in** (`speech.barge_in.stage.BargeIn`): while our voice may be in the microphone, what of a frame to
   listen to and whether its speech is a player cutting in; every number in `BargeInSettings`.
4. **Endpointer** (`endpointer.Endpointer`): each frame in, a value out: `BargedIn` (stop the line), `Paused(audio)`
   (a short pause: the utterance so far), `Resumed`, `Ended(audio)`.
5. **Reader** (`recognition.Recognizer`): `prepare` while the question is read, then `recognize` at each short pause
   (on a worker thread with `ahead`, `ahead.Ahead`), and once more at the end when something was said after the
   last one. An utterance begun over our voice is read as such (`over_our_voice`): the canceller took its start; the
   reader is told where in it our line stopped for the player (`line_stopped_at`), as what follows was said over no
   line. One said over other people's talk too (`crowded`, judged against the room's floor the endpointer kept:
   `crowd`).
6. **Decision**: a reading at a pause that is understood, and safe to act on at once (`ends_early`), ends the
   utterance there once the pause has lasted as long as the reading took: "Antwort B" is answered some 0.4 s sooner,
   "Ich nehme ... Antwort B" is still heard out. The last reading is what was heard, unless the utterance began over
   our line (or in its echo's tail) and says only the line's own words near where it was heard (`echo.our_echo`):
   that is our echo taken for a player, and it decides nothing (not understood).

Given `cue`, at a short pause (before anything is read) a soft sound tells the player the microphone caught them,
unless our voice still plays. Each stage's start and end is a `StageEvent`, handed to `observe` as it happens and
kept on the `Hearing`: the runner writes them to the game's log, where the benches read them. As Home Assistant's
`assist_pipeline` runs its stages in one run, `ListeningPipeline.listen` runs these in one loop; and as there, a
pipeline may end at an earlier stage (`end_stage`): a bench of where utterances end reads nothing.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from voicemaster.dialogue.meaning import Context, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import AudioIn, Playback
from voicemaster.speech.frame import EPSILON, Frame
from voicemaster.speech.frontend.room_level import RoomLevel
from voicemaster.speech.hearing import crowd, echo
from voicemaster.speech.hearing.ahead import Ahead, Speculation, gained_only_silence
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.endpointer import BargedIn, Ended, Endpointer, Paused, Resumed, Timeline
from voicemaster.speech.hearing.recognition import LINE_FADE_SECONDS, SPOKEN_ON_SECONDS, Recognizer
from voicemaster.speech.hearing.segmenter import Endpoint
from voicemaster.speech.hearing.voice_activity import VoiceActivity

DEFAULT_SETTINGS = EndpointSettings()


class PipelineStage(StrEnum):
    """The stages, in the order a frame passes them."""

    SOURCE = "source"
    FRONT_END = "front end"
    BARGE_IN = "barge-in"
    ENDPOINTER = "endpointer"
    READER = "reader"
    DECISION = "decision"


@dataclass(frozen=True)
class StageEvent:
    """A stage began or ended, `at` seconds of audio since listening began, with what it found (plain values)."""

    stage: PipelineStage
    started: bool
    at: float
    detail: Mapping[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {"stage": self.stage.value, "started": self.started, "at": round(self.at, 3), **self.detail}


@dataclass(frozen=True)
class Hearing:
    audio: Audio | None
    """The utterance as heard; None if nobody spoke."""
    recognitions: tuple[Heard, ...]
    """Every reading the recognizer made, in order: one at each short pause, then one of the whole utterance unless
    nothing was said after the last pause. The last is what was heard: not understood, after them, where the
    utterance was cut at its longest or the last reading was our own line heard back (`echo`)."""
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
    events: tuple[StageEvent, ...] = ()
    """Each stage's start and end, in order."""

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


PauseReading = tuple[float | None, Heard, Audio]
"""A reading made: the end of speech of the utterance it read, what it heard, and the audio it read."""


@dataclass(frozen=True)
class ListeningPipeline:
    """The stages a game listens through, built once for a game (or a bench) with its source and its reader.

    `vad` tells speech; `settings` are the endpointer's and barge-in's numbers; `room`, the room's speech-band level
    kept across listenings (a microphone's `RoomLevel`), which a player must rise above; `clock` times the readings
    (a stage's session clock makes the demo the same on every machine); `cue` is called where the utterance pauses
    or ends, before it is read, once for each stretch of speech, never while our voice still plays; `ahead`, for a
    source whose frames come in real time (a microphone): the utterance is read on a worker thread from the short
    pause, and a complete reading ends it as soon as it is made; `observe` sees each `StageEvent` as it happens."""

    source: AudioIn
    recognizer: Recognizer | None
    """The reader; None only for a pipeline that ends at the endpointer."""
    vad: VoiceActivity
    settings: EndpointSettings = DEFAULT_SETTINGS
    room: RoomLevel | None = None
    clock: Callable[[], float] = time.perf_counter
    cue: Callable[[], object] | None = None
    ahead: bool = False
    observe: Callable[[StageEvent], None] | None = None
    end_stage: PipelineStage = PipelineStage.DECISION
    """The last stage run: `ENDPOINTER` finds the utterance and reads nothing (the `Hearing` has no recognitions)."""

    def __post_init__(self) -> None:
        if self.end_stage not in (PipelineStage.ENDPOINTER, PipelineStage.DECISION):
            raise ValueError(f"a pipeline ends at the endpointer or the decision, not at the {self.end_stage}")
        if (self.recognizer is None) != (self.end_stage is PipelineStage.ENDPOINTER):
            raise ValueError("a pipeline that reads needs a recognizer, and only one that reads")

    def listen(self, context: Context, timeout: float, during: Playback | None = None) -> Hearing:
        """One utterance heard and understood. Listening ends at the end of speech, at a short pause whose reading is
        complete, or `timeout` seconds after the program stopped speaking if nobody spoke; with settings whose short
        pause is the whole pause, nothing is read before the end. `during`: our line, if it is playing."""
        return _Listening(self, context, during).run(timeout)


class _Listening:
    """One run of the pipeline: the state that lives from the first frame to the decision."""

    def __init__(self, pipeline: ListeningPipeline, context: Context, during: Playback | None) -> None:
        self.pipeline, self.context, self.during = pipeline, context, during
        self.over_our_voice = False
        """The utterance began while our line played (a barge-in): it is read as such."""
        self.line_stopped: float | None = None
        """Seconds of audio since listening began where our line stopped for the player."""
        self.endpointer: Endpointer | None = None
        """Where the utterance being heard begins and its speech ends."""
        self.room_floor: float | None = None
        """The room's floor when the player began (`Endpointer.room_floor`): the crowd is judged against it."""
        self.line_heard: bool | None = None
        """Whether the barge-in stage runs (our line plays while listening); True until it has ended."""
        self.line_at: list[tuple[float, float]] = []
        """Where our line was at each frame heard while it played: (seconds of audio since listening began, seconds
        into the line)."""
        self.line_ended: float | None = None
        """Seconds of audio since listening began where our line was first heard no more (stopped or played out)."""
        self.events: list[StageEvent] = []
        self.readings: list[PauseReading] = []
        self.cued_at: float | None = None
        self.cue_due = pipeline.cue is not None
        """Speech came since the last cue."""
        self.counts = {"frames": 0, "over_our_voice": 0, "judged_by_canceller": 0, "judged_by_filter": 0}

    def emit(self, stage: PipelineStage, started: bool, at: float, **detail: object) -> None:
        event = StageEvent(stage, started, at, detail)
        self.events.append(event)
        if self.pipeline.observe is not None:
            self.pipeline.observe(event)

    def run(self, timeout: float) -> Hearing:
        pipeline, during = self.pipeline, self.during
        recognizer = pipeline.recognizer
        if recognizer is not None:
            # What the recognizer can work out from the context alone is done while the player still thinks.
            recognizer.prepare(self.context)
        settings = pipeline.settings
        endpointer = Endpointer(
            pipeline.vad, settings, timeout, during.audio if during is not None else None, pipeline.room
        )
        self.endpointer = endpointer
        self.emit(PipelineStage.SOURCE, True, 0.0, context=self.context.name.value, timeout=timeout)
        complete_at: float | None = None
        """Where, in the audio, a pause whose reading was complete will have lasted as long as the reading took."""
        ended: Ended | None = None
        barged_in_at: float | None = None
        reader = Ahead(recognizer) if pipeline.ahead and recognizer is not None else None
        for frame in pipeline.source.frames(during, before=settings.pre_roll_seconds):
            program_at = _program_at(during)
            if program_at is not None and self.line_heard is None:  # barge-in listens while our line plays
                self.line_heard = True
                self.emit(PipelineStage.BARGE_IN, True, endpointer.now)
            self._count(frame, program_at)
            if program_at is not None:
                self.line_at.append((endpointer.now, program_at))
            elif self.line_at and self.line_ended is None:
                self.line_ended = endpointer.now
            began = endpointer.state is Endpoint.WAITING
            event = endpointer.push(frame, program_at)
            self.room_floor = endpointer.room_floor
            if began and endpointer.segmenter.start is not None:
                self.emit(PipelineStage.ENDPOINTER, True, endpointer.segmenter.start)
            if self.cue_due and isinstance(event, Paused | Ended) and event.audio is not None:
                self._cue(endpointer.now)
            if reader is not None and endpointer.state in (Endpoint.SPEAKING, Endpoint.PAUSED):
                self._read_ahead(reader, endpointer)
            if isinstance(event, BargedIn):
                self.over_our_voice = True  # what it is read as from here on
                if during is not None and not during.done():
                    barged_in_at = _stopped_at(during, endpointer)
                    self.line_stopped = endpointer.now
                    self._line_ended(endpointer.now, barged_in_at)
            elif isinstance(event, Paused) and reader is None and recognizer is not None:
                started = pipeline.clock()
                self.readings.append((endpointer.segmenter.end, self._read(event.audio, event.at), event.audio))
                took = pipeline.clock() - started
                complete_at = event.at + took if ends_early(self.readings[-1][1], self.context) else None
            elif isinstance(event, Resumed):
                complete_at, self.cue_due = None, pipeline.cue is not None
            elif isinstance(event, Ended):
                ended = event
                break
            if reader is not None and endpointer.state is Endpoint.PAUSED and self._complete(endpointer):
                ended = endpointer.end_early()
                break
            if complete_at is not None and endpointer.now >= complete_at - EPSILON:
                ended = endpointer.end_early()
                break
        return self._decide(endpointer, ended or endpointer.ended(), reader, barged_in_at)

    def _decide(
        self, endpointer: Endpointer, ended: Ended, reader: Ahead | None, barged_in_at: float | None
    ) -> Hearing:
        """The reading that stands for the utterance, made if none does yet."""
        segmenter, readings = endpointer.segmenter, self.readings
        if reader is not None and ended.audio is not None and (not readings or readings[-1][0] != segmenter.end):
            waited = reader.wait(segmenter.end)  # the reading started at this pause
            readings += [(segmenter.end, *waited)] if waited is not None else []
        stands = bool(readings) and _stands(readings[-1], segmenter.end, ended.audio)
        speculation = reader.close(decided=stands) if reader is not None else None
        now, timeline = endpointer.now, endpointer.timeline()
        self._line_ended(now, None)
        self.emit(PipelineStage.FRONT_END, False, now, **self.counts)
        recognitions: list[Heard] = []
        if ended.audio is not None:
            self.emit(PipelineStage.ENDPOINTER, False, now, state=ended.state.value, speech_end=timeline.speech_end)
            if self.cue_due:  # cut at the longest utterance, or the script ran out
                self._cue(now)
            recognitions = [heard for _, heard, _ in readings]
        echoed, over_line = False, self._heard_over_line()
        if ended.audio is not None and self.pipeline.recognizer is not None:
            if ended.state is Endpoint.CUT:
                # Speech that never paused for the longest utterance is babble or the room taken for a voice, or a
                # player talking on: nothing in it is acted on, and the player is asked again.
                recognitions.append(Heard(Intent.UNKNOWN, None, "", 0.0))
            elif not stands:
                # When nothing was said after the last reading, the utterance is what was read there: reading it
                # again would only make the player wait.
                recognitions.append(self._read(ended.audio, now))
            last = recognitions[-1]
            if last.intent is not Intent.UNKNOWN and self._our_echo(last, over_line):
                # Our own line, heard back: the player said none of it, and hears the line again when asked again.
                recognitions.append(Heard(Intent.UNKNOWN, None, last.text, 0.0))
                echoed = True
        early = ended.state is Endpoint.ENDED_EARLY and bool(recognitions)
        if self.pipeline.recognizer is not None:
            decided: dict[str, object] = {"endpoint": ended.state.value, "early": early}
            if recognitions:
                heard = recognitions[-1]
                decided |= {"intent": heard.intent.value, "value": heard.value, "confidence": heard.confidence}
            if over_line is not None:
                decided |= {"over_line": [round(at, 3) for at in over_line], "our_echo": echoed}
            self.emit(PipelineStage.DECISION, False, now, over_our_voice=self.over_our_voice, **decided)
        self.emit(PipelineStage.SOURCE, False, now)
        cued_at = self.cued_at if ended.audio is not None else None
        return Hearing(
            ended.audio, tuple(recognitions), early, timeline, barged_in_at, cued_at, speculation, tuple(self.events)
        )

    def _line_ended(self, at: float, line_at: float | None) -> None:
        """The barge-in stage's end: our line stopped `line_at` seconds in for the player, or played out (None)."""
        if self.line_heard:
            self.line_heard = False
            self.emit(PipelineStage.BARGE_IN, False, at, line_at=line_at)

    def _read(self, audio: Audio, at: float) -> Heard:
        """A reading made here, between frames."""
        self.emit(PipelineStage.READER, True, at)
        assert self.pipeline.recognizer is not None
        heard = self.pipeline.recognizer.recognize(
            audio,
            self.context,
            over_our_voice=self.over_our_voice,
            crowded=self._crowded(audio),
            line_stopped_at=self._line_stopped_at(),
        )
        self.emit(PipelineStage.READER, False, at, intent=heard.intent.value, decode_ms=heard.decode_ms)
        return heard

    def _heard_over_line(self) -> tuple[float, float] | None:
        """The stretch of our line (seconds into its sound, from where the utterance's audio begins to where it ends)
        the utterance was heard over, where it began over the line or in its echo's tail; None elsewhere, or where
        the line has no words."""
        endpointer, during = self.endpointer, self.during
        if endpointer is None or during is None or not during.words or not self.line_at:
            return None
        began, start, end = endpointer.utterance_began(), endpointer.segmenter.start, endpointer.segmenter.end
        if began is None or start is None or end is None:
            return None
        ended = self.line_ended
        if not self.over_our_voice and (ended is None or start > ended + echo.ECHO_TAIL_SECONDS + EPSILON):
            return None
        heard_to = end + self.pipeline.settings.post_roll_seconds
        return self._line_position(began), self._line_position(heard_to)

    def _our_echo(self, heard: Heard, over_line: tuple[float, float] | None) -> bool:
        """Whether `heard` says only our line's words near the stretch of it the utterance was heard over
        (`echo.our_echo`)."""
        if over_line is None or self.during is None:
            return False
        answer = heard.intent is Intent.ANSWER
        return echo.our_echo(heard.text, self.during.words, self.context.language, *over_line, answer=answer)

    def _line_position(self, at: float) -> float:
        """Seconds into our line that played (or whose echo faded) at `at` seconds of audio since listening began:
        from the last frame heard over it at or before `at`, our line going on from there."""
        heard, position = self.line_at[0]
        for frame_at, program_at in self.line_at:
            if frame_at > at + EPSILON:
                break
            heard, position = frame_at, program_at
        return position + (at - heard)

    def _line_stopped_at(self) -> float | None:
        """Seconds into the utterance's audio where our line stopped for the player; None where it did not stop
        (it played out, or there was none), stopped before the utterance began, or where the player's voice did
        not go on past the line's fade for a word's worth (`recognition.SPOKEN_ON_SECONDS`): a letter said and
        ended before the stop leaves after it only the room and what the canceller left of our voice."""
        endpointer, stopped = self.endpointer, self.line_stopped
        if endpointer is None or stopped is None:
            return None
        began, speech_end = endpointer.utterance_began(), endpointer.segmenter.end
        if began is None or speech_end is None or stopped < began:
            return None
        if speech_end - stopped < LINE_FADE_SECONDS + SPOKEN_ON_SECONDS - EPSILON:
            return None
        return stopped - began

    def _crowded(self, audio: Audio) -> bool:
        """Whether the utterance `audio` was said over other people's talk, by the room heard before it."""
        return crowd.crowded(audio, self.room_floor)

    def _count(self, frame: Frame, program_at: float | None) -> None:
        """What the front end judged, over the frames our voice may be in: the barge-in filter needs the echo's delay
        and the coupling before it judges (`bench room` reads these)."""
        counts = self.counts
        counts["frames"] += 1
        if program_at is None:
            return
        counts["over_our_voice"] += 1
        if frame.echo is not None:
            counts["judged_by_canceller"] += frame.echo.settled
            counts["judged_by_filter"] += frame.echo.over_echo is not None

    def _cue(self, at: float) -> None:
        """Plays the heard cue unless the program's own voice still plays."""
        if self.during is not None and not self.during.done():
            return
        assert self.pipeline.cue is not None
        self.pipeline.cue()
        self.cued_at, self.cue_due = at, False

    def _read_ahead(self, reader: Ahead, endpointer: Endpointer) -> None:
        """A reading started at a short pause, readings of an utterance that has gone on thrown away, and a reading
        made meanwhile taken in."""
        end = endpointer.segmenter.end
        if end is not None and endpointer.now > end + EPSILON:
            if endpointer.state is Endpoint.PAUSED:
                # The pause's own audio: its decision, to the bit.
                reader.pause(
                    end,
                    endpointer.utterance,
                    self.context,
                    over_our_voice=self.over_our_voice,
                    crowded=self._crowded,
                    line_stopped_at=self._line_stopped_at(),
                )
        else:
            reader.keep_only(end)
        if not self.readings or self.readings[-1][0] != end:
            made = reader.ready(end)
            if made is not None:
                self.readings.append((end, *made))

    def _complete(self, endpointer: Endpointer) -> bool:
        """Whether the utterance so far has been read whole (its audio only gained silence since) and is complete."""
        readings = self.readings
        return (
            bool(readings)
            and _stands(readings[-1], endpointer.segmenter.end, endpointer.utterance())
            and ends_early(readings[-1][1], self.context)
        )


def _stands(reading: PauseReading, speech_end: float | None, now: Audio | None) -> bool:
    """Whether a reading stands for the utterance: nothing was said since, and its audio only gained silence."""
    end, _, audio = reading
    return end == speech_end and (now is None or gained_only_silence(audio, now))


def _program_at(during: Playback | None) -> float | None:
    """Where the program is in its own speech, or None when it is silent."""
    return during.position() if during is not None and not during.done() else None


def _stopped_at(during: Playback, endpointer: Endpointer) -> float | None:
    """Stops the program's line for the player's voice: where in it that was, or None when it had as good as ended."""
    at = during.position()
    during.stop()
    return endpointer.barge_in.stop(during.audio, at)
