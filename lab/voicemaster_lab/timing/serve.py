"""`voicemaster bench serve`: what the always-ready quizmaster costs and mistakes while it waits.

Streams heard faster than real time through `voicemaster serve`'s own waiting pipeline (the front end as configured,
the voice-activity detector, the endpointer at the waiting numbers, `waiting_reader`: Whisper base in int8 in every
listening language, a read-back's reply heard in float32 as a game hears it), each frame once, as a microphone would
deliver them:
- **quiet**: a quiet room's own noise: the CPU share of waiting (of one core: CPU seconds over seconds heard).
- **talk**: a living room (RT60 about 0.5 s, 2.5-3 m from the microphone) with a TV on and people talking: the TV a
  quiz show, reading the question packs' questions and options and the quizmaster's own lines (every language;
  SVOX Pico and eSpeak-NG voices), and people's own words between (the real-speech set: KLettres' and Asterisk's
  recordings of people). Every start heard is said back as `serve` does, and what the room says in the next 8 s
  is heard as the reply: a yes there starts a game nobody asked for (`false_starts_per_hour`; a start merely heard
  and asked back is `read_backs_per_hour`). Its CPU share is waiting's with talk.
- **starts**: every start phrase of the phrase files, each said once by each speaker of two families of voices
  (`SPEAKERS`: SVOX Pico in every language, Kokoro in English and French), close in a quiet room and 2 m away in the
  same living room, between stretches of its quiet: `starts_heard_share` counts those heard as a start of the right
  game in the right language the first time. A synthesizer is a voice, not a person: the set-up has no recordings
  of people saying start phrases (docs/benchmarks.md says so beside the figure).
"""

from __future__ import annotations

import itertools
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from voicemaster.config.settings import load_settings
from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.paths import DEFAULT_CONFIG, PHRASES_DIR, QUESTIONS_DIR
from voicemaster.serve.live import WAITING
from voicemaster.serve.reading import waiting_reader
from voicemaster.serve.waiting import ASKED_FOR, WAIT_SECONDS, start_context
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.frame import FRAME_SAMPLES, Frame
from voicemaster.speech.frontend import FrontEnd, usable_front_end
from voicemaster.speech.frontend.room_level import RoomLevel
from voicemaster.speech.hearing.phrases import FORMATS, load
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, ListeningPipeline
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.signal import RECOGNITION_RATE, resample, to_float
from voicemaster_lab.corpora import real_speech, rooms

Signal = npt.NDArray[np.float64]
RATE = RECOGNITION_RATE
READ_BACK_SECONDS = 2.5
"""How long "Soll ich ein neues Spiel starten?" takes: the room talks on meanwhile, unheard."""
REPLY_SECONDS = 8.0
"""How long the reply to the read-back is waited for (`host.listening.LISTEN_SECONDS`)."""
TV_LEVEL_DB, PEOPLE_LEVEL_DB, START_LEVEL_DB, HUSH_DB = -26.0, -28.0, -26.0, -70.0
"""Levels at the microphone, dBFS (root mean square): a TV and people across the room, a player asking, the room."""


@dataclass(frozen=True)
class Speaker:
    """One voice that says the start phrases: a synthesizer's (`engine`), its voice (None: the engine's for the
    language), words a minute and pitch (per cent)."""

    engine: str
    name: str | None
    rate: int
    pitch: int = 100

    @property
    def label(self) -> str:
        return f"{self.engine} {self.name or ''} {self.rate}/{self.pitch}".replace("  ", " ")


SPEAKERS = {
    "de": (Speaker("pico", None, 140, 90), Speaker("pico", None, 175, 115)),
    "en": (Speaker("pico", None, 140, 90), Speaker("pico", None, 175, 115), Speaker("kokoro", "af_heart", 150),
           Speaker("kokoro", "bm_george", 170)),
    "fr": (Speaker("pico", None, 140, 90), Speaker("pico", None, 175, 115), Speaker("kokoro", "ff_siwis", 150),
           Speaker("kokoro", "ff_siwis", 175)),
}  # fmt: skip
"""Who says the start phrases, per language: two Pico speakers everywhere, so that the share is not one
synthesizer's; Kokoro's American woman and British man in English, its one French voice at two speeds in French
(Kokoro has no German voice, NOTES: none reachable)."""
START_ROOMS = (("quiet", None), ("living room 2 m", 2.0))
"""Where a start phrase is said: close to the microphone in a quiet room (the recording as made), and 2 m away in
the living room."""


@dataclass
class StreamSource:
    """`AudioIn` of one long recording: frames from where the last listening stopped, through the front end as a
    microphone runs it (nothing plays: its reference is silence); the room's level learns every frame."""

    samples: npt.NDArray[np.int16]
    front_end: FrontEnd
    at: int = 0
    room: RoomLevel = field(default_factory=RoomLevel)

    @property
    def left(self) -> float:
        return (len(self.samples) - self.at) / RATE

    def skip(self, seconds: float) -> None:
        self.at = min(len(self.samples), self.at + round(seconds * RATE))

    def frames(self, during: Playback | None = None, *, before: float = 0.0) -> Iterator[Frame]:
        del during, before  # frames come once; what arrived while a reading was made is heard after it, as live
        silence = bytes(FRAME_SAMPLES * 2)
        while self.at + FRAME_SAMPLES <= len(self.samples):
            block = self.samples[self.at : self.at + FRAME_SAMPLES].tobytes()
            self.at += FRAME_SAMPLES
            frame = self.front_end.process(block, silence)
            self.room.hear(frame.samples)
            yield frame


@dataclass
class Tally:
    """What one stream made the waiting quizmaster do."""

    seconds: float = 0.0
    cpu_seconds: float = 0.0
    readings: int = 0
    asked: list[dict[str, Any]] = field(default_factory=list)
    """Each start, "weiter" or help heard: what, in which language, from which words, and the reply heard."""


def run(minutes: float, languages: Sequence[str], recognizer: Recognizer, seed: int = 0) -> dict[str, Any]:
    """The figures of `minutes` of quiet, `minutes` of talk and every start phrase, listening in `languages`."""
    draw = np.random.default_rng(seed)
    settings = load_settings([DEFAULT_CONFIG])
    reader = waiting_reader(recognizer, tuple(languages))
    quiet = _through_waiting(_hush(round(minutes * 60 * RATE), draw), reader, recognizer, languages, settings)
    talk = _through_waiting(_talk(minutes, languages, draw), reader, recognizer, languages, settings)
    starts = _starts(languages, reader, settings, draw)
    hours = talk.seconds / 3600
    false_starts = [asked for asked in talk.asked if asked["intent"] == "start" and asked["reply"] == "yes"]
    heard = sum(start["heard"] for start in starts)
    return {
        "minutes": minutes,
        "languages": list(languages),
        "false_starts_per_hour": round(len(false_starts) / hours, 2),
        "read_backs_per_hour": round(sum(asked["intent"] == "start" for asked in talk.asked) / hours, 2),
        "resumes_and_help_per_hour": round(sum(asked["intent"] != "start" for asked in talk.asked) / hours, 2),
        "starts_heard_share": round(heard / len(starts), 3),
        "starts_said": len(starts),
        "cpu_share_waiting": {
            "quiet": round(quiet.cpu_seconds / quiet.seconds, 4),
            "talk": round(talk.cpu_seconds / talk.seconds, 4),
        },
        "readings_per_minute": {
            "quiet": round(quiet.readings / quiet.seconds * 60, 2),
            "talk": round(talk.readings / talk.seconds * 60, 2),
        },
        "heard_in_talk": talk.asked,
        "starts_missed": [start for start in starts if not start["heard"]],
        "starts_by_room": {
            room: f"{sum(s['heard'] for s in starts if s['room'] == room)}/{sum(s['room'] == room for s in starts)}"
            for room, _ in START_ROOMS
        },
        "starts_by_family": {
            family: f"{sum(s['heard'] for s in starts if s['family'] == family)}"
            f"/{sum(s['family'] == family for s in starts)}"
            for family in dict.fromkeys(s["family"] for s in starts)
        },
        "starts_by_language": {
            language: f"{sum(s['heard'] for s in starts if s['language'] == language)}"
            f"/{sum(s['language'] == language for s in starts)}"
            for language in languages
        },
        "load": " ".join(f"{value:.2f}" for value in os.getloadavg()),
    }


def _pipelines(
    source: StreamSource, reader: Recognizer, recognizer: Recognizer, settings: Any
) -> tuple[ListeningPipeline, ListeningPipeline]:
    """The waiting pipeline as `serve` builds it over `source`, and the one its read-back's reply is heard by."""
    from dataclasses import replace

    waiting = ListeningPipeline(source, reader, SileroVad(), replace(WAITING, barge_in=settings.barge_in), source.room)
    reply = ListeningPipeline(source, recognizer, SileroVad(), DEFAULT_SETTINGS, source.room)
    return waiting, reply


def _through_waiting(
    samples: Signal, reader: Recognizer, recognizer: Recognizer, languages: Sequence[str], settings: Any
) -> Tally:
    front_end, _ = usable_front_end(**asdict(settings.front_end), settings=settings.barge_in)
    source = StreamSource(_pcm(samples), front_end)
    waiting, reply = _pipelines(source, reader, recognizer, settings)
    tally = Tally(seconds=source.left)
    started = time.process_time()
    while source.left > 1.0:
        at = source.at / RATE
        hearing = waiting.listen(start_context(languages[0]), WAIT_SECONDS)
        tally.readings += any(event.stage.value == "reader" and event.started for event in hearing.events)
        heard = hearing.heard
        if heard is None or heard.intent not in ASKED_FOR:
            continue
        asked: dict[str, Any] = {"at": round(at, 1), "intent": heard.intent.value, "value": heard.value,
                                 "language": heard.language, "text": heard.text, "reply": None}  # fmt: skip
        if heard.intent is Intent.START:
            source.skip(READ_BACK_SECONDS)
            answer = reply.listen(Context(ContextName.CONFIRM, heard.language or languages[0]), REPLY_SECONDS).heard
            asked["reply"] = answer.intent.value if answer is not None else "silence"
        tally.asked.append(asked)
    tally.cpu_seconds = time.process_time() - started
    return tally


def _starts(
    languages: Sequence[str], reader: Recognizer, settings: Any, draw: np.random.Generator
) -> list[dict[str, Any]]:
    """Every start phrase said by each speaker in the living room, each heard once by the waiting pipeline."""
    front_end, _ = usable_front_end(**asdict(settings.front_end), settings=settings.barge_in)
    say = _start_voices()
    results = []
    for language in languages:
        phrases = load(language, PHRASES_DIR)
        for game in FORMATS:
            for text in phrases.start[game]:
                for speaker, (room, distance) in itertools.product(SPEAKERS[language], START_ROOMS):
                    dry = _samples(say(text, language, speaker))
                    said = (
                        _at_level(dry, START_LEVEL_DB)
                        if distance is None
                        else _in_room(dry, distance, START_LEVEL_DB, draw)
                    )
                    hush = _hush(round(1.5 * RATE), draw)
                    source = StreamSource(_pcm(np.concatenate([hush, said + _hush(len(said), draw), hush])), front_end)
                    waiting, _ = _pipelines(source, reader, reader, settings)
                    heard = waiting.listen(start_context(languages[0]), WAIT_SECONDS).heard
                    right = heard is not None and (heard.intent, heard.value, heard.language) == (
                        Intent.START, game, language)  # fmt: skip
                    results.append({"language": language, "game": game, "text": text, "room": room,
                                    "speaker": speaker.label, "family": speaker.engine, "heard": right,
                                    "as": None if heard is None else f"{heard.intent.value} {heard.value or ''} "
                                    f"{heard.language or ''}: {heard.text}"})  # fmt: skip
    return results


def _start_voices() -> Callable[[str, str, Speaker], Audio]:
    """Says a start phrase as a speaker; Kokoro's renders (about real time) kept in the cache folder, made once."""
    import hashlib

    from voicemaster.paths import cache_dir
    from voicemaster.speech.voice import kokoro, pico

    engines: dict[str, Any] = {}

    def say(text: str, language: str, speaker: Speaker) -> Audio:
        if speaker.engine == "pico":
            engine = engines.setdefault("pico", pico.Pico())
            voice = Voice(pico.DEFAULT_VOICE[language], rate=speaker.rate, pitch=speaker.pitch, engine="pico")
            spoken: Audio = engine.speak(text, voice)
            return spoken
        voice = Voice(speaker.name or kokoro.DEFAULT_VOICE[language], rate=speaker.rate, engine="kokoro")
        key = hashlib.sha256(f"{kokoro.ENGINE_VERSION} {voice} {text}".encode()).hexdigest()[:16]
        kept = cache_dir() / "bench-serve" / f"{key}.wav"
        if kept.exists():
            return Audio.read(kept)
        if "kokoro" not in engines:
            engines["kokoro"] = kokoro.Kokoro()
        audio: Audio = engines["kokoro"].speak(text, voice)
        kept.parent.mkdir(parents=True, exist_ok=True)
        kokoro.write_whole(kept, audio.write)
        return audio

    return say


def _talk(minutes: float, languages: Sequence[str], draw: np.random.Generator) -> Signal:
    """`minutes` of a living room with a quiz show on the TV and people's own words between, never silent long."""
    tv = _tv_lines(languages)
    people = list(real_speech.load(languages))
    chooser = random.Random(int(draw.integers(1 << 30)))
    voices = _tv_voices()
    length = round(minutes * 60 * RATE)
    parts: list[Signal] = []
    total = 0
    while total < length:
        if chooser.random() < 0.6:
            language, text = chooser.choice(tv)
            speak = chooser.choice(voices[language])
            part = _in_room(_samples(speak(text)), 3.0, TV_LEVEL_DB, draw)
        else:
            words = [_samples(Audio.read(chooser.choice(people).path())) for _ in range(chooser.randint(2, 6))]
            gaps = [np.zeros(round(chooser.uniform(0.1, 0.4) * RATE)) for _ in words]
            burst = np.concatenate([piece for pair in zip(words, gaps, strict=True) for piece in pair])
            part = _in_room(burst, 2.5, PEOPLE_LEVEL_DB, draw)
        pause = np.zeros(round(chooser.uniform(0.2, 1.5) * RATE))
        parts += [part, pause]
        total += len(part) + len(pause)
    talk = np.concatenate(parts)[:length]
    return talk + _hush(len(talk), draw)


def _tv_lines(languages: Sequence[str]) -> list[tuple[str, str]]:
    """A quiz show's words: the packs' questions and options, and the quizmaster's own lines (not `serve`'s, which
    tell people to say a start phrase)."""
    from voicemaster.host.lines import load as load_lines
    from voicemaster.questions.packs import load as load_packs
    from voicemaster.questions.packs import pack_files

    lines: list[tuple[str, str]] = []
    for entry in load_packs(pack_files(QUESTIONS_DIR)).entries:
        if entry.language in languages:
            lines += [(entry.language, entry.question), (entry.language, ", ".join(entry.options))]
    for language in languages:
        for key, wordings in load_lines(language).texts.items():
            if not key.startswith("serve_"):
                lines += [(language, text) for text in wordings if "{" not in text]
    return lines


def _tv_voices() -> dict[str, list[Any]]:
    """Per language, the TV's voices: Pico at two speeds and eSpeak-NG."""
    from voicemaster.speech.voice import pico
    from voicemaster.speech.voice.synthesis import Espeak

    engine = pico.Pico()
    espeak = Espeak({language: Voice(engine="espeak") for language in ("de", "en", "fr")})
    voices: dict[str, list[Any]] = {}
    for language in ("de", "en", "fr"):
        fast = Voice(pico.DEFAULT_VOICE[language], rate=185, engine="pico")
        slow = Voice(pico.DEFAULT_VOICE[language], rate=150, pitch=85, engine="pico")
        voices[language] = [
            lambda text, v=fast: engine.speak(text, v),
            lambda text, v=slow: engine.speak(text, v),
            lambda text, language=language: espeak.render(text, language),
        ]
    return voices


def _samples(audio: Audio) -> Signal:
    return to_float(resample(audio, RATE)).astype(np.float64)


def _in_room(speech: Signal, distance: float, level_db: float, draw: np.random.Generator) -> Signal:
    """`speech` at `distance` metres in the living room, at `level_db` (dBFS, root mean square of its speech)."""
    response = rooms.room_response(rooms.LIVING_ROOM_SABINE, distance, int(draw.integers(4)))
    size = len(speech) + len(response) - 1
    wet = np.fft.irfft(np.fft.rfft(speech, size) * np.fft.rfft(response, size), size)[: len(speech) + rooms.TAIL]
    return _at_level(wet, level_db)


def _at_level(signal: Signal, level_db: float) -> Signal:
    """`signal` with its speech (what is above a tenth of its peak) at `level_db` dBFS root mean square."""
    loud = signal[np.abs(signal) > 0.1 * np.max(np.abs(signal))] if np.any(signal) else signal
    rms = float(np.sqrt(np.mean(loud**2))) if len(loud) else 1.0
    return signal * (10 ** (level_db / 20) / max(rms, 1e-9))


def _hush(length: int, draw: np.random.Generator) -> Signal:
    return draw.normal(0.0, 10 ** (HUSH_DB / 20), length)


def _pcm(signal: Signal) -> npt.NDArray[np.int16]:
    return np.clip(np.round(signal * 32767), -32768, 32767).astype(np.int16)


def report(figures: dict[str, Any]) -> str:
    cpu, reads = figures["cpu_share_waiting"], figures["readings_per_minute"]
    lines = [
        f"bench serve: {figures['minutes']:g} min of quiet and of talk (a TV quiz show and people, living room), "
        f"listening in {', '.join(figures['languages'])}; load {figures['load']}",
        f"  false starts per hour (a start heard, then a yes heard): {figures['false_starts_per_hour']:g}",
        f"  starts heard and said back per hour: {figures['read_backs_per_hour']:g}; "
        f"'weiter' or help heard per hour: {figures['resumes_and_help_per_hour']:g}",
        f"  start phrases heard right the first time: {figures['starts_heard_share']:.1%} of "
        f"{figures['starts_said']} ({', '.join(f'{k} {v}' for k, v in figures['starts_by_language'].items())}; "
        f"{', '.join(f'{k} {v}' for k, v in figures['starts_by_room'].items())}; "
        f"{', '.join(f'{k} {v}' for k, v in figures['starts_by_family'].items())})",
        f"  CPU while waiting, share of one core: quiet {cpu['quiet']:.1%}, talk {cpu['talk']:.1%} "
        f"(utterances read a minute: quiet {reads['quiet']:g}, talk {reads['talk']:g})",
    ]
    lines += [f"    heard in talk: {asked}" for asked in figures["heard_in_talk"]]
    lines += [f"    missed: {start['language']} {start['text']!r} ({start['speaker']}, {start['room']}) "
              f"as {start['as']}"
              for start in figures["starts_missed"]]  # fmt: skip
    return "\n".join(lines)
