"""`voicemaster bench asr --phone-path`: the phone corpus (`--corpora phone`) heard through the game's own phone path,
stage by stage, to find where utterances a phone at the mouth carries are lost (issue 47).

Each clip of a phone's condition is decided four ways:
- `straight`: the clip whole to the recognizer, as `bench asr` decides it (the crowd judged against the room alone);
- `pipeline`: the clip and its room at the level a phone's automatic gain gives them (the player at `bench room`'s
  close level, `harness.room.player_at_phone`), through the game's listening pipeline with the phone as its source
  (`PhoneMicrophone`, its own room level, voice activity and settings, as `play.live.through_phone` builds a phone's),
  the phone without a front end;
- `front end`: the same with the game's front end (AEC3 and the barge-in filter) and a silent reference;
- `echo`: the same while one of the quizmaster's lines plays (the reference the loudspeaker's, through the phone's
  branch of it, `PlayedSound.branch(BEHIND_SECONDS)`), its echo at the phone as `bench room --echo-db 0` puts it
  (`harness.room.phone_scene`), `ECHO_DELAY_SECONDS` behind the reference; the player begins `GAP_SECONDS` after it.

One phone, one front end and one pipeline per language and condition for each way, kept from clip to clip as in a
game. Before each listening the phone sends `room_level.FLOOR_SECONDS` of the room alone (`corpora.room_alone`,
the reference silent), as it does while the game decides; then the listening's frames, fed one 32 ms message per
frame read, so nothing waits on real time: the same figures on any machine. A reading at a short pause is taken to
last `READING_SECONDS` of the pause (the game reads it on a worker thread while the pause goes on).

For every command a way loses that the way before it understood, the stage that lost it: `no speech` (the
endpointer found none), `cut` (no pause for the longest utterance), `endpointer` (the utterance it found, read whole,
is not understood either: its start or end was cut off), `decision` (it is: the reading at a pause, the crowd, over
our voice decided otherwise).
"""

from __future__ import annotations

import zlib
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster.config.settings import FrontEndConfig
from voicemaster.dialogue.meaning import Context, Heard, Intent
from voicemaster.phones.server import BEHIND_SECONDS
from voicemaster.play.live import through_phone
from voicemaster.play.stage import StagePlayback
from voicemaster.speech.audio import Audio
from voicemaster.speech.barge_in.settings import BargeInSettings
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.devices.phone import PhoneLost, PhoneMicrophone
from voicemaster.speech.frame import FRAME_BYTES, FRAME_SECONDS, Frame
from voicemaster.speech.frontend import PlayedSound, usable_front_end
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, Hearing, ListeningPipeline
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.hearing.segmenter import Endpoint
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.signal import RECOGNITION_RATE, from_float, resample, to_float
from voicemaster_lab.asr import crowd_figures
from voicemaster_lab.asr.samples import Sample, option_samples, real_samples, room_samples
from voicemaster_lab.asr.tally import right
from voicemaster_lab.corpora import echo, rooms
from voicemaster_lab.harness import room as acoustics

WAYS = ("straight", "pipeline", "front end", "echo")
CONDITIONS = ("phone living room", "phone party 5 dB", "phone party 0 dB")
ROOM_OF = {"phone living room": "living-room", "phone party 5 dB": "party", "phone party 0 dB": "party"}
"""The room of `harness.room` whose loudspeaker reaches the phone in each condition."""
GAP_SECONDS = 0.4
"""The player begins this long after the line (or listening) begins to be quiet, as in `bench room`."""
ECHO_DELAY_SECONDS = 0.1
"""From the loudspeaker's reference to its echo in the phone's sound as it reaches the game: the devices' buffers and
the Wi-Fi (the echo canceller finds the delay itself)."""
TIMEOUT_SECONDS = 8.0
TAIL_SECONDS = 12.0
"""The room goes on after the clip at most this long; then the phone hangs up (a listening still going is cut)."""
READING_SECONDS = 0.5
"""How long a reading at a short pause is taken to last (about the decision's CPU time at p50, docs/benchmarks.md)."""


class _Steps:
    """A clock for the pipeline's readings: each reading lasts `READING_SECONDS`, whatever the machine."""

    def __init__(self) -> None:
        self._now = 0.0
        self._calls = 0

    def __call__(self) -> float:
        self._calls += 1
        if self._calls % 2 == 0:
            self._now += READING_SECONDS
        return self._now


@dataclass
class _Fed:
    """`AudioIn` over a phone: one message sent to it for each frame read (after the pre-roll it keeps), the
    loudspeaker adding the line's stretch as it plays, so that the phone takes it as its reference in step, and the
    phone hearing the echo of what was played (none once the pipeline stops the line)."""

    phone: PhoneMicrophone
    played: PlayedSound
    heard: bytes = b""
    """What the phone hears from the listening's start besides the echo, 16-bit at 16 kHz (the room, the player)."""
    line: StagePlayback | None = None
    echo: np.ndarray | None = None
    """The loudspeaker-to-phone response, scaled, `ECHO_DELAY_SECONDS` included; None: no echo."""

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        inner = self.phone.frames(during, before=before)
        kept = round(before / FRAME_SECONDS)
        sent = 0
        history = np.zeros(0 if self.echo is None else len(self.echo) - 1)
        while True:
            if kept > 0:
                kept -= 1
            elif sent * FRAME_BYTES < len(self.heard):
                block = np.frombuffer(self.heard[sent * FRAME_BYTES : (sent + 1) * FRAME_BYTES], dtype="<i2")
                played = bytes(FRAME_BYTES)
                line = self.line
                if line is not None and not line.done():
                    line.elapsed = sent * FRAME_SECONDS
                    played = line.played(FRAME_BYTES)
                self.played.add(played)
                if self.echo is not None:
                    history = np.concatenate([history, np.frombuffer(played, dtype="<i2").astype(np.float64)])
                    echoed = np.convolve(history[-(len(self.echo) + len(block) - 1) :], self.echo, mode="valid")
                    block = np.clip(np.round(block + echoed), -32768, 32767).astype("<i2")
                self.phone.receive(block.tobytes())
                self.phone.settle(30.0)
                sent += 1
            else:
                return  # the scene is over: a listening still going stops here, decided as it stands
            try:
                frame = next(inner)
            except PhoneLost:
                return
            yield frame


@dataclass(frozen=True)
class Decided:
    sample: Sample
    way: str
    heard: Heard
    endpoint: str = ""
    read_whole: Heard | None = None
    """The utterance the pipeline found, read whole and straight (only where the pipeline lost a clip)."""
    barged_in: bool = False
    """The line was stopped for what the phone heard."""

    @property
    def understood(self) -> bool:
        return right(self.sample, self.heard)


def phone_samples(corpus: Path, languages: Sequence[str], limit: int | None, conditions: Sequence[str]) -> list[Sample]:
    """The clips of `bench asr --corpora phone` (the same even sample for the same `limit`), of `conditions`."""
    real, _ = real_samples(languages)
    worded, _ = option_samples(corpus, languages, limit)
    from voicemaster_lab.asr.measure import room_options

    babble, _ = real_samples(("de", "en", "fr"))
    return [
        sample
        for sample in room_samples("phone", [*real, *room_options(worded)], babble, corpus, limit)
        if sample.condition in conditions
    ]


def run(
    corpus: Path,
    recognizers: dict[str, Recognizer],
    *,
    languages: Sequence[str],
    limit: int | None,
    conditions: Sequence[str] = CONDITIONS,
) -> dict[str, Any]:
    samples = phone_samples(corpus, languages, limit, conditions)
    groups: dict[tuple[str, str], list[Sample]] = defaultdict(list)
    for sample in samples:
        groups[sample.language, sample.condition].append(sample)
    decided: list[Decided] = []
    for (language, condition), own in sorted(groups.items()):
        recognizer = recognizers[language]
        for way in WAYS:
            decided += _decide_all(way, own, recognizer, condition)
    found = losses(decided)
    return {
        "benchmark": "asr phone path",
        "limit": limit,
        "table": table(decided),
        "losses": found,
        "lost_at": lost_at(found),
    }


def _decide_all(way: str, samples: Sequence[Sample], recognizer: Recognizer, condition: str) -> list[Decided]:
    if way == "straight":
        return [
            Decided(
                sample,
                way,
                recognizer.recognize(Audio.read(sample.path), _context(sample), crowded=crowd_figures.crowded(sample)),
            )
            for sample in samples
        ]
    front_end = FrontEndConfig() if way != "pipeline" else FrontEndConfig(echo_cancel=False)
    barge_in = BargeInSettings()
    played = PlayedSound()
    phone = PhoneMicrophone(
        "player", usable_front_end(**asdict(front_end), settings=barge_in)[0], played.branch(BEHIND_SECONDS)
    )
    source = _Fed(phone, played)
    settings = replace(DEFAULT_SETTINGS, barge_in=barge_in)
    # As the game makes a phone's pipeline from the room's (`play.live.through_phone`), fed one message per frame.
    rooms_own = ListeningPipeline(phone, recognizer, SileroVad(), settings, clock=_Steps())
    pipeline = replace(through_phone(rooms_own, phone), source=source)
    response = _echo_response(_language(samples), condition) if way == "echo" else None
    out = []
    for sample in samples:
        clip = to_float(resample(Audio.read(sample.path), RECOGNITION_RATE)).astype(np.float64)
        gain = _phone_gain(clip)
        clip *= gain
        room = _pcm(_louder(Audio.read(sample.room), gain)) if sample.room is not None else bytes(FRAME_BYTES * 100)
        for at in range(0, len(room) - FRAME_BYTES + 1, FRAME_BYTES):  # while nobody listens
            phone.receive(room[at : at + FRAME_BYTES])
        phone.settle(60.0)
        line = _line_for(sample) if way == "echo" else None
        playing = StagePlayback(from_float(line, RECOGNITION_RATE)) if line is not None else None
        source.heard, source.line, source.echo = _scene(clip, room, line), playing, response
        hearing = pipeline.listen(_context(sample), TIMEOUT_SECONDS, playing)
        heard_as = hearing.heard or Heard(Intent.UNKNOWN, None, "", 0.0)
        read_whole = None
        if not right(sample, heard_as) and hearing.audio is not None:
            read_whole = recognizer.recognize(hearing.audio, _context(sample), crowded=crowd_figures.crowded(sample))
        barged_in = hearing.barged_in_at is not None
        out.append(Decided(sample, way, heard_as, _endpoint(hearing), read_whole, barged_in))
    return out


def _echo_response(language: str, condition: str) -> np.ndarray:
    """The loudspeaker-to-phone response of the condition's room, `ECHO_DELAY_SECONDS` behind the reference, scaled
    as `bench room --echo-db 0` scales it against the close player (`harness.room.phone_scene`), from the
    quizmaster's lines of `language`."""
    voice = [echo._line(language, index) for index in range(len(echo.LINES[language]))]
    hush = np.random.default_rng(0).standard_normal(RECOGNITION_RATE)
    scene = acoustics.phone_scene(acoustics.ROOMS[ROOM_OF[condition]], 0.0, voice, hush)
    assert scene.echo is not None
    return np.concatenate([np.zeros(round(ECHO_DELAY_SECONDS * RECOGNITION_RATE)), scene.echo])


def _scene(clip: np.ndarray, room: bytes, line: np.ndarray | None) -> bytes:
    """What the phone hears from the listening's start besides the echo: the room while the line plays and for
    `GAP_SECONDS` more, the clip (its own room in it), the room again."""
    noise = to_float(Audio(room, RECOGNITION_RATE)).astype(np.float64)
    start = round((GAP_SECONDS + ECHO_DELAY_SECONDS) * RECOGNITION_RATE) + (len(line) if line is not None else 0)
    length = start + len(clip) + round(TAIL_SECONDS * RECOGNITION_RATE)
    heard = np.resize(noise, length) if len(noise) else np.zeros(length)
    heard[start : start + len(clip)] = clip
    return _pcm(from_float(heard, RECOGNITION_RATE))


def _phone_gain(clip: np.ndarray) -> float:
    """The phone's automatic gain: the player at the close player's level (`harness.room.player_at_phone`), as
    `bench room` has them, short of clipping."""
    power = rooms.speech_power(clip)
    peak = float(np.max(np.abs(clip))) if len(clip) else 0.0
    wanted = float(np.sqrt(acoustics.close_power() / power)) if power > 0 else 1.0
    return min(wanted, 0.9 / peak) if peak > 0 else wanted


def _louder(audio: Audio, gain: float) -> Audio:
    return from_float(to_float(resample(audio, RECOGNITION_RATE)).astype(np.float64) * gain, RECOGNITION_RATE)


def _line_for(sample: Sample) -> np.ndarray:
    """One of the quizmaster's lines (`corpora.echo.LINES`), drawn from the clip's name."""
    lines = echo.LINES[sample.language]
    return echo._line(sample.language, zlib.crc32(sample.path.name.encode()) % len(lines))


def _endpoint(hearing: Hearing) -> str:
    if hearing.audio is None:
        return "no speech"
    return "cut" if hearing.timeline.state is Endpoint.CUT else hearing.timeline.state.value


def _language(samples: Sequence[Sample]) -> str:
    return samples[0].language


def _context(sample: Sample) -> Context:
    return Context(sample.context, sample.language, sample.options, sample.names)


def _pcm(audio: Audio) -> bytes:
    pcm = resample(audio, RECOGNITION_RATE).samples
    return pcm[: len(pcm) - len(pcm) % FRAME_BYTES]


def stage_lost(item: Decided) -> str:
    """Where a way lost a clip: `no speech`, `cut`, `endpointer` or `decision` (see the module's docstring)."""
    if item.endpoint in ("no speech", "cut"):
        return item.endpoint
    return "decision" if item.read_whole is not None and right(item.sample, item.read_whole) else "endpointer"


def table(decided: Sequence[Decided]) -> list[dict[str, Any]]:
    """Per condition and way: commands understood (by language), asked again, wrong, talk taken."""
    rows = []
    for condition in sorted({item.sample.condition for item in decided}):
        for way in WAYS:
            own = [item for item in decided if item.sample.condition == condition and item.way == way]
            commands = [item for item in own if item.sample.intent != "unknown"]
            talk = [item for item in own if item.sample.intent == "unknown"]
            rows.append(
                {
                    "condition": condition,
                    "way": way,
                    "understood": sum(item.understood for item in commands),
                    "commands": len(commands),
                    "by_language": {
                        language: f"{sum(i.understood for i in commands if i.sample.language == language)} of "
                        f"{sum(1 for i in commands if i.sample.language == language)}"
                        for language in sorted({item.sample.language for item in commands})
                    },
                    "asked_again": sum(item.heard.intent is Intent.UNKNOWN for item in commands),
                    "wrong": sum(item.heard.intent is not Intent.UNKNOWN and not item.understood for item in commands),
                    "talk_taken": f"{sum(item.heard.intent is not Intent.UNKNOWN for item in talk)} of {len(talk)}",
                }
            )
    return rows


def losses(decided: Sequence[Decided]) -> list[dict[str, Any]]:
    """Each command a way lost that the way before it understood (straight -> pipeline -> front end -> echo), or took
    for something else where the way before asked again, with the stage that lost it."""
    by_clip = {(item.sample.path, item.way): item for item in decided}
    found: list[dict[str, Any]] = []
    for item in decided:
        if item.way == "straight" or item.sample.intent == "unknown" or item.understood:
            continue
        before = by_clip.get((item.sample.path, WAYS[WAYS.index(item.way) - 1]))
        wrong = item.heard.intent is not Intent.UNKNOWN
        if before is None or not (before.understood or (wrong and before.heard.intent is Intent.UNKNOWN)):
            continue
        found.append(
            {
                "condition": item.sample.condition,
                "way": item.way,
                "file": f"{item.sample.language}/{item.sample.path.name}",
                "said": item.sample.text,
                "heard": item.heard.text,
                "intent": item.heard.intent.value,
                "endpoint": item.endpoint,
                "barged_in": item.barged_in,
                "wrong": wrong,
                "stage": stage_lost(item),
            }
        )
    return found


def lost_at(found: Sequence[dict[str, Any]]) -> dict[str, int]:
    """How many commands each stage lost, per condition and way ("phone party 5 dB | front end | endpointer")."""
    counted = Counter(f"{row['condition']} | {row['way']} | {row['stage']}" for row in found)
    return dict(sorted(counted.items()))


def report(figures: dict[str, Any]) -> str:
    lines = ["condition | way | understood | by language | asked again | wrong | talk taken"]
    for row in figures["table"]:
        by_language = ", ".join(f"{language} {count}" for language, count in row["by_language"].items())
        lines.append(
            f"{row['condition']} | {row['way']} | {row['understood']} of {row['commands']} | {by_language} | "
            f"{row['asked_again']} | {row['wrong']} | {row['talk_taken']}"
        )
    lines.append("")
    lines += [f"{key}: {count}" for key, count in figures["lost_at"].items()]
    for row in figures["losses"]:
        stopped = (", line stopped" if row["barged_in"] else "") + (", wrong" if row["wrong"] else "")
        lines.append(
            f"{row['condition']} | {row['way']} | {row['file']} | {row['said']!r} -> {row['heard']!r} "
            f"({row['intent']}, {row['endpoint']}{stopped}) | {row['stage']}"
        )
    return "\n".join(lines)
