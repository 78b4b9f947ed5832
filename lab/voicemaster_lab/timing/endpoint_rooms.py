"""`voicemaster bench endpoint`: where an utterance ends while a room's noise goes on, with the room's floor
(`speech.frontend.room_level`) at each margin and without it, the data `EndpointSettings.floor_margin_db` is set from.

Each real recording of a person is said into a room: `LEAD_SECONDS` of the room's noise, the recording, then
`TAIL_SECONDS` more of the noise (road noise, or other people's real recordings talking on, never the player's
speaker). The microphone has heard the room for `ROOM_SECONDS` before listening starts, as it has in a game. Each
scene goes through the game's listening pipeline up to its endpointer (`harness.scene`); what is counted:
- `whole`: the utterance ended and holds all the player said (its start and end as the endpointer finds them in the
  same recording in a quiet room, within the pre- and post-roll the endpointer keeps);
- `within_1s`: whole, and listening stopped within a second of the player's end (the issue's endpointing target);
- `cut_short`: ended, but without all the player said (talk begun before them, or an end inside their words);
- `never_ended`: still going at the end of the scene (babble taken for speech that never pauses);
- `not_heard`: the player was never taken to have begun.

Over our voice (`over_our_voice`), the data `BargeInSettings.floor_margin_db` is set from: the room heard
alone, then `OVER_LINE_SECONDS` of its noise while our line plays, then the player speaking up over both. What the
barge-in filter leaves of each frame is taken to be the whole microphone (the filter taking none of the room out, the
worst case); counted per margin: lines stopped for the room before the player began, players heard within a second.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from voicemaster.speech.audio import Audio
from voicemaster.speech.frame import FRAME_BYTES, EchoJudgement, Frame, OverEcho
from voicemaster.speech.frontend.room_level import RoomLevel
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.pipeline import ListeningPipeline, PipelineStage
from voicemaster.speech.hearing.segmenter import Endpoint
from voicemaster.speech.hearing.voice_activity import SileroVad, VoiceActivity
from voicemaster.speech.signal import RECOGNITION_RATE, from_float
from voicemaster_lab.corpora import real_speech, rooms
from voicemaster_lab.corpora.real_speech_sources import RealClip
from voicemaster_lab.harness.scene import ANSWER, HeardFrames, onset

CONDITIONS: tuple[tuple[str, float | None], ...] = (
    ("quiet", None),
    ("car", 5.0),
    ("car", 0.0),
    ("party", 5.0),
    ("party", 0.0),
)
"""Each room and the player's speech over its noise in dB; the quiet room has only its hush."""
MARGINS: tuple[float | None, ...] = (None, 3.0, 4.0, 5.0, 6.0)
"""None: without the room's floor, as the game listened before it."""
BARGE_IN_CONDITIONS: tuple[tuple[str, float | None], ...] = (("car", 5.0), ("party", 5.0), ("party", 0.0))
BARGE_IN_MARGINS = (4.0, 6.0, 8.0, 10.0)
OVER_LINE_SECONDS = 6.0
LEAD_SECONDS = 1.5
TAIL_SECONDS = 3.0
ROOM_SECONDS = 3.0
WITHIN_SECONDS = 1.0
SETTINGS = EndpointSettings()


@dataclass(frozen=True)
class Scene:
    audio: Audio
    """The noise, the player's recording in it, more noise."""
    room: Audio
    """The same room's noise heard before listening started."""


@dataclass(frozen=True)
class Heard:
    state: Endpoint
    start: float | None
    speech_end: float | None
    stopped: float


def scene(
    clip: RealClip,
    others: Sequence[rooms.Spoken],
    room: str,
    snr_db: float | None,
    *,
    lead_seconds: float = LEAD_SECONDS,
    tail_seconds: float = TAIL_SECONDS,
) -> Scene:
    """`clip` said into `room` after `lead_seconds` of it, reproducibly (seeded by the clip and the room)."""
    draw = np.random.default_rng(zlib.crc32(f"{room}|{snr_db}|{clip.file}".encode()))
    speech = rooms.trimmed(rooms.samples_of(clip.path()))
    lead, tail, before = (round(seconds * RECOGNITION_RATE) for seconds in (lead_seconds, tail_seconds, ROOM_SECONDS))
    total = before + lead + len(speech) + tail
    if room == "party":
        noise = rooms.at_snr(speech, rooms.party_babble(total, others, draw), snr_db or 0.0)
    elif room == "car":
        noise = rooms.at_snr(speech, rooms.road_noise(total, draw), snr_db or 0.0)
    else:
        noise = rooms.at_snr(speech, draw.standard_normal(total), rooms.ROOM_HUSH_DB)
    said = noise[before:].copy()
    said[lead : lead + len(speech)] += speech
    peak = max(float(np.max(np.abs(said))), float(np.max(np.abs(noise[:before]))), 1e-9)
    scale = 0.9 / peak if peak > 0.99 else 1.0
    return Scene(from_float(said * scale, RECOGNITION_RATE), from_float(noise[:before] * scale, RECOGNITION_RATE))


def listen(heard: Scene, vad: VoiceActivity, margin: float | None) -> Heard:
    """The scene through the game's pipeline up to its endpointer: with the room's floor at `margin` dB, or without
    it (None)."""
    room = RoomLevel()
    for frame in _frames(heard.room):
        room.hear(frame)
    settings = SETTINGS if margin is None else replace(SETTINGS, floor_margin_db=margin)
    source = HeardFrames([Frame(frame) for frame in _frames(heard.audio)])
    pipeline = ListeningPipeline(
        source, None, vad, settings, room if margin is not None else None, end_stage=PipelineStage.ENDPOINTER
    )
    hearing = pipeline.listen(ANSWER, timeout=10.0)
    timeline = hearing.timeline
    return Heard(timeline.state, onset(hearing), timeline.speech_end, timeline.stopped)


def outcome(heard: Heard, quiet: Heard) -> str:
    """What became of one listening, against where the same recording begins and ends in a quiet room."""
    if heard.state in (Endpoint.WAITING, Endpoint.SILENCE):
        return "not_heard"
    if not heard.state.finished or heard.state is Endpoint.CUT:
        return "never_ended"
    assert heard.start is not None and heard.speech_end is not None
    assert quiet.start is not None and quiet.speech_end is not None
    whole = (
        heard.start - SETTINGS.pre_roll_seconds <= quiet.start
        and heard.speech_end + SETTINGS.post_roll_seconds >= quiet.speech_end
    )
    if not whole:
        return "cut_short"
    return "within_1s" if heard.stopped - quiet.speech_end <= WITHIN_SECONDS else "whole"


def run(languages: Sequence[str], limit: int | None = 90, vad: VoiceActivity | None = None) -> dict[str, object]:
    """Every condition at every margin over an even sample of `limit` real recordings in `languages`."""
    clips = real_speech.load(languages)
    chosen = list(clips)[:: max(1, len(clips) // limit)][:limit] if limit else list(clips)
    pool = [rooms.Spoken(clip.path(), clip.file, clip.speaker) for clip in real_speech.load()]
    vad = vad or SileroVad()
    references: list[tuple[RealClip, list[rooms.Spoken], Heard]] = []
    for clip in chosen:
        others = [spoken for spoken in pool if spoken.speaker != clip.speaker]
        quiet = listen(scene(clip, others, "quiet", None), vad, None)
        if quiet.start is not None and quiet.state.finished:  # else the model hears no speech in it even in quiet
            references.append((clip, others, quiet))
    rows: list[dict[str, object]] = []
    for room, snr_db in CONDITIONS:
        counts: dict[str | None, dict[str, int]] = {margin_name(m): {} for m in MARGINS}
        lags: dict[str | None, list[float]] = {margin_name(m): [] for m in MARGINS}
        for clip, others, quiet in references:
            noisy = scene(clip, others, room, snr_db)
            for margin in MARGINS:
                heard = listen(noisy, vad, margin)
                found = outcome(heard, quiet)
                tally = counts[margin_name(margin)]
                tally[found] = tally.get(found, 0) + 1
                if found in ("within_1s", "whole"):
                    assert quiet.speech_end is not None
                    lags[margin_name(margin)].append(heard.stopped - quiet.speech_end)
        for margin in MARGINS:
            name = margin_name(margin)
            spread = lags[name]
            rows.append(
                {
                    "room": room if snr_db is None else f"{room} {snr_db:g} dB",
                    "margin_db": margin,
                    "clips": sum(counts[name].values()),
                    **{key: counts[name].get(key, 0) for key in OUTCOMES},
                    "stop_after_player_p50_ms": round(1000 * float(np.median(spread))) if spread else None,
                }
            )
    over_lines = {
        condition: [
            scene(clip, others, *condition, lead_seconds=OVER_LINE_SECONDS, tail_seconds=0.0)
            for clip, others, _ in references
        ]
        for condition in BARGE_IN_CONDITIONS
    }
    barge_ins = [
        _over_our_voice(*condition, margin, over_lines[condition], vad)
        for condition in BARGE_IN_CONDITIONS
        for margin in BARGE_IN_MARGINS
    ]
    return {"benchmark": "endpoint", "languages": list(languages), "rows": rows, "over_our_voice": barge_ins}


def _over_our_voice(
    room: str, snr_db: float | None, margin: float, scenes: Sequence[Scene], vad: VoiceActivity
) -> dict[str, object]:
    stopped = heard = 0
    line = Audio(bytes(2 * RECOGNITION_RATE * round(OVER_LINE_SECONDS + 10)), RECOGNITION_RATE)
    settings = replace(SETTINGS, barge_in=replace(SETTINGS.barge_in, floor_margin_db=margin))
    for over in scenes:
        level = RoomLevel()
        for frame in _frames(over.room):
            level.hear(frame)
        at = barged_in_at(over_our_voice(over.audio), line, vad, settings, level)
        if at is not None:
            stopped += at < OVER_LINE_SECONDS
            heard += OVER_LINE_SECONDS <= at <= OVER_LINE_SECONDS + WITHIN_SECONDS
    return {
        "room": f"{room} {snr_db:g} dB",
        "margin_db": margin,
        "clips": len(scenes),
        "stopped_for_the_room": stopped,
        "player_heard_within_1s": heard,
    }


def over_our_voice(audio: Audio) -> list[Frame]:
    """`audio` as the barge-in filter would leave it of microphone frames while our line plays, taking none of it out
    (the worst case); the canceller's own output, our voice and what was under it, suppressed to silence."""
    return [Frame(bytes(len(frame)), EchoJudgement(0.0, over_echo=OverEcho(frame, 1.0))) for frame in _frames(audio)]


def barged_in_at(
    frames: Sequence[Frame], line: Audio, vad: VoiceActivity, settings: EndpointSettings, room: RoomLevel | None
) -> float | None:
    """`frames` heard through the game's pipeline (up to its endpointer) while `line` plays from its start: where
    the line was stopped for a player, if it was."""
    source = HeardFrames(frames, line)
    pipeline = ListeningPipeline(source, None, vad, settings, room, end_stage=PipelineStage.ENDPOINTER)
    return pipeline.listen(ANSWER, timeout=60.0, during=source.playing).barged_in_at


OUTCOMES = ("within_1s", "whole", "cut_short", "never_ended", "not_heard")


def margin_name(margin: float | None) -> str | None:
    return None if margin is None else f"{margin:g}"


def report(figures: dict[str, object]) -> str:
    rows = figures["rows"]
    assert isinstance(rows, list)
    lines = [
        "Where utterances end while the room's noise goes on (real recordings; margin over the room's floor, "
        "off: without it)",
        f"{'room':<12} {'margin':>6} {'clips':>5} " + " ".join(f"{key:>11}" for key in OUTCOMES) + "  stop p50",
    ]
    for row in rows:
        margin = "off" if row["margin_db"] is None else f"{row['margin_db']:g} dB"
        stop = "-" if row["stop_after_player_p50_ms"] is None else f"{row['stop_after_player_p50_ms']} ms"
        counts = " ".join(f"{row[key]:>11}" for key in OUTCOMES)
        lines.append(f"{row['room']:<12} {margin:>6} {row['clips']:>5} {counts}  {stop}")
    over = figures["over_our_voice"]
    assert isinstance(over, list)
    lines.append(
        f"Over our voice: our line stopped for the room's noise ({OVER_LINE_SECONDS:g} s of it) and players speaking "
        "up over it heard within a second, per margin over the room's floor"
    )
    lines.append(f"{'room':<12} {'margin':>6} {'clips':>5} {'stopped':>8} {'heard':>6}")
    for row in over:
        lines.append(
            f"{row['room']:<12} {row['margin_db']:>3g} dB {row['clips']:>5} {row['stopped_for_the_room']:>8} "
            f"{row['player_heard_within_1s']:>6}"
        )
    return "\n".join(lines)


def _frames(audio: Audio) -> list[bytes]:
    samples = audio.samples
    return [samples[at : at + FRAME_BYTES] for at in range(0, len(samples) - FRAME_BYTES + 1, FRAME_BYTES)]
