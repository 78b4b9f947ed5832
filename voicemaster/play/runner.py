"""Carrying out the quizmaster's effects: speech to a speaker or a session file, listening, steps to a transcript.

The dialogue never sees a device or a clock; the runner keeps the game's time. Playing live it is the wall clock.
Writing a session it is the length of everything said and heard, so that the phone call's 30 seconds are 30 seconds
of session, whatever machine renders it.

A line is played out before anything else happens, except when the next thing is listening: then the player may
already be heard while the quizmaster finishes, and a player who speaks up over it stops it (barge-in, through the
microphone's echo gate). Lines that lead up to listening (the question, its options, "Anna, deine Antwort?") are
held until the listening comes and played as one, so a player who knows the answer need not wait for the options.

With `render_ahead`, a slow voice (Kokoro renders about as fast as it speaks) is kept ahead of the game: the next line
renders while one plays, the lines the quizmaster foresees while the player thinks, and the fixed lines of the
language whenever nothing else is to do.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Generator, Mapping
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, Protocol, TextIO, TypeVar

from voicemaster.dialogue.turns import (
    ChangeVoice,
    Effect,
    Elapsed,
    Foresee,
    Listen,
    LookForNewcomers,
    NewcomersWaiting,
    Observation,
    Play,
    ReadTimer,
    Record,
    Say,
    StartTimer,
    WaitUntil,
)
from voicemaster.host.lines import Lines
from voicemaster.play.ear import Ear
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import AudioOut, AudioUnavailable, Playback, Words
from voicemaster.speech.signal import resample
from voicemaster.speech.voice import voices
from voicemaster.speech.voice.render_ahead import Priority
from voicemaster.speech.voice.speakers import Speakers
from voicemaster.speech.voice.synthesis import SpeechUnavailable
from voicemaster.store import Store, StoreUnwritable


class Clock(Protocol):
    def now(self) -> float: ...

    def wait(self, seconds: float) -> None: ...


@dataclass
class SessionClock:
    """Time as the length of a session recording: waiting adds silence to it."""

    sink: FileSink

    def now(self) -> float:
        return self.sink.seconds

    def wait(self, seconds: float) -> None:
        self.sink.pause(seconds)


@dataclass
class WallClock:
    started: float = field(default_factory=time.monotonic)

    def now(self) -> float:
        return time.monotonic() - self.started

    def wait(self, seconds: float) -> None:
        time.sleep(seconds)


T = TypeVar("T")
EARCON_RATE = 22_050
_VOICE_STEPS = {
    ("rate", 1): voices.faster,
    ("rate", -1): voices.slower,
    ("volume", 1): voices.louder,
    ("volume", -1): voices.quieter,
}


def drive(dialogue: Generator[Effect, Observation | None, T], perform: Callable[[Effect], Observation | None]) -> T:
    """Run a dialogue to its end: each effect is performed, and what came of it is sent back. Returns what the
    dialogue returns."""
    try:
        effect = next(dialogue)
        while True:
            effect = dialogue.send(perform(effect))
    except StopIteration as ended:
        result: T = ended.value
        return result


class Watcher(Protocol):
    """Sees the game as it goes (the screen, `voicemaster.screen.feed`): must return at once, whatever it does."""

    def publish(self, t: float, event: str, data: Mapping[str, Any]) -> None: ...

    def stored(self, t: float, state: str) -> None: ...


@dataclass
class Transcript:
    """`transcript.jsonl`: one JSON object per line, each with the session time `t` in seconds; and the same steps,
    with each stored game, to a watcher if there is one."""

    out: TextIO
    watch: Watcher | None = None

    def write(self, t: float, event: str, data: dict[str, Any]) -> None:
        self.out.write(json.dumps({"t": round(t, 3), "event": event, **data}, ensure_ascii=False) + "\n")
        self.out.flush()
        if self.watch is not None:
            self.watch.publish(t, event, data)

    def stored(self, t: float, state: str) -> None:
        """The game as just stored (not written to the file, which has every step that led to it)."""
        if self.watch is not None:
            self.watch.stored(t, state)


@dataclass
class Runner:
    lines: Lines
    voice: Speakers
    out: AudioOut
    clock: Clock
    ear: Ear
    transcript: Transcript
    store: Store | None = None
    game_id: str = ""
    earcons: Callable[[str, int], Audio] | None = None
    render_ahead: bool = True
    """Render lines before they are said. A session file has no use for it: its time is the length of what is said,
    however long rendering takes."""
    asked_since_save: Callable[[], list[tuple[str, str]]] | None = None
    """The (player, question id) pairs asked since the last save, stored with the next one in one transaction: a
    question asked is heard, even if the game is killed before it ends."""
    newcomers_waiting: Callable[[], int] | None = None
    """How many phones wait to join as new players (`Phones.waiting`); None: the game has no phones."""
    last_said: Say | None = None
    _timer_start: float = 0.0
    _speaking: Playback | None = None
    """The last line, while it may still be playing."""
    _speaking_since: float = 0.0
    """When it began: a barge-in is written down at the moment it stopped the line, not when listening ended."""
    _held: list[tuple[str, Say]] = field(default_factory=list)
    """Lines leading up to listening, not yet played: their words, and the line of the phrase file they say."""
    _led_to_listening: list[tuple[str, Say]] = field(default_factory=list)
    """The lines played as one before the last listening: where the game stands, to say again after a stall."""
    _sounding: list[tuple[float, str]] = field(default_factory=list)
    """Where each line of the last sound begins in the session, and which line it is: written down ahead, so that a
    line the player cut off before it began can be taken back (`unsaid`)."""

    def __post_init__(self) -> None:
        if self.render_ahead:
            self.voice.ahead(self.lines.fixed(), self.lines.language, Priority.FIXED)

    @property
    def now(self) -> float:
        return self.clock.now()

    def perform(self, effect: Effect) -> Observation | None:
        if isinstance(effect, Say):
            text = self._text(effect)
            if effect.leads_to_listening:
                self._held.append((text, effect))
                return None
        if not isinstance(effect, Listen | Foresee):
            self.finish_speaking()
        match effect:
            case Say() as said:
                self._speak([(text, said)])
            case Foresee(lines):
                if self.render_ahead:
                    texts = [self.lines.text(said) for said in lines]
                    self.voice.ahead(texts, self.lines.language, Priority.FORESEEN)
            case Listen() as listen:
                if self._held:
                    self._wait_for_speaking()
                    self._speak(self._held)
                    self._led_to_listening, self._held = self._held, []
                asked = {"player": listen.player, "context": listen.context.name.value}
                self.transcript.write(self.now, "listen", asked | ({"to_all": True} if listen.to_all else {}))
                return self._listen(listen)
            case StartTimer(seconds):
                self._timer_start = self.now
                self.transcript.write(self.now, "timer", {"seconds": seconds})
            case ReadTimer():
                return Elapsed(self.now - self._timer_start)
            case LookForNewcomers():
                return NewcomersWaiting(self.newcomers_waiting() if self.newcomers_waiting is not None else 0)
            case WaitUntil(elapsed):
                self.clock.wait(max(0.0, self._timer_start + elapsed - self.now))
            case Play(earcon):
                self.transcript.write(self.now, "earcon", {"earcon": earcon})
                if self.earcons is not None:
                    self.out.play(self.earcons(earcon, EARCON_RATE)).wait()
            case ChangeVoice(setting, steps):
                language = self.lines.language
                changed = _VOICE_STEPS[(setting, 1 if steps > 0 else -1)](self.voice.voices[language])
                self.voice = self.voice.with_voice(language, changed)
            case Record(event, data, state):
                if state is not None:
                    self._save(state, finished=bool(data.get("finished")))
                    self.transcript.stored(self.now, state)
                    return None
                self.transcript.write(self.now, event, dict(data))
        return None

    def _listen(self, listen: Listen) -> Observation:
        """Listens through the ear, writing down a barge-in and an early decision as the ear reports them; after the
        devices stood still, says where the game was and listens again."""
        speaking, self._speaking = self._speaking, None
        since, lines = self._speaking_since, self._sounding
        while True:
            listened = self.ear.listen(listen, self.last_said, speaking)
            if listened.phone_lost:
                # Nothing was decided from the cut sound: the player hears why, and is listened to again.
                # A phone that left before its player was named has no name to call.
                # A phone this machine fell behind is still joined: its player says it again into it.
                # A question put to everyone goes on to the next player's phone, or the room: "my own microphone"
                # would not be true.
                key = "phone_behind" if listened.phone_behind else "phone_lost"
                if listen.player:
                    lost: tuple[str, dict[str, object]] = (key, {"player": listen.player})
                elif listen.to_all and not listened.phone_behind:
                    lost = ("phone_lost_to_all", {})
                else:
                    lost = (f"{key}_unnamed", {})
                self.say_now(*lost)
                speaking = None
                continue
            if not listened.stalled:
                break
            self.say_now("resumed")
            self.recall()
            speaking = None
        if listened.barged_in_at is not None:
            at = listened.barged_in_at
            self.transcript.write(since + at, "barge_in", {"player": listen.player, "at": at})
            # The lines the player cut off before they began were written down ahead, and never heard.
            for start, key in lines:
                if start >= since + at:
                    self.transcript.write(since + at, "unsaid", {"line": key, "start": start})
        if listened.cued_at is not None:
            self.transcript.write(self.now, "heard_cue", {"player": listen.player, "at": listened.cued_at})
        if listened.early:
            self.transcript.write(self.now, "early_decision", {"player": listen.player})
        ahead = listened.speculation
        if ahead is not None and ahead.started:
            said = {"started": ahead.started, "used": ahead.used, "thrown_ms": ahead.thrown_ms}
            self.transcript.write(self.now, "read_ahead", {"player": listen.player, **said})
        if listened.stages:
            stages = [event.to_json() for event in listened.stages]
            self.transcript.write(self.now, "listening", {"player": listen.player, "stages": stages})
        return listened.observation

    def start_game(self, game_id: str, asked_since_save: Callable[[], list[tuple[str, str]]] | None = None) -> None:
        """The game the steps that follow are stored under, and where its questions asked come from."""
        self.game_id = game_id
        if asked_since_save is not None:
            self.asked_since_save = asked_since_save

    def _save(self, state: str, *, finished: bool) -> None:
        """Stores the game before it goes on. A store that cannot be written stops the game, said aloud (it would
        otherwise go on unsaved, and a crash would lose it); a store file that had gone is said to be new."""
        if self.store is None:
            return
        try:
            heard = self.asked_since_save() if self.asked_since_save is not None else []
            renewed = self.store.save_game(self.game_id, state, finished=finished, heard=heard)
        except StoreUnwritable as error:
            with suppress(AudioUnavailable, SpeechUnavailable):  # what the store says is what the user must hear
                # Only a game whose file still holds it is said to be kept (its data folder replaced by a file: gone).
                self.say_now("store_failed" if error.kept else "store_lost")
            raise
        if renewed:
            self.say_now("store_renewed")

    def say_now(self, key: str, params: Mapping[str, Any] | None = None) -> None:
        """A line outside the dialogue (about the program, not the game), played out before anything else."""
        self.finish_speaking()
        self._speak([(self.lines.render(key, params or {}), Say(key, dict(params or {})))])
        self._wait_for_speaking()

    def recall(self) -> None:
        """The lines that led to the listening now under way, played again: where the game stands, after the
        program stood still (a stall, Ctrl-Z, a suspend) and the players may have lost the thread."""
        self.finish_speaking()
        if self._led_to_listening:
            self._speak(self._led_to_listening)
            self._wait_for_speaking()

    def finish_speaking(self) -> None:
        """Play out what is still to be said: the next thing is not listening, or there is no next thing."""
        self._wait_for_speaking()
        if self._held:
            self._speak(self._held)
            self._held = []
            self._wait_for_speaking()

    def _text(self, said: Say) -> str:
        """The line's words, put in the voice's queue to render while what is before it plays; the line becomes the
        last line said."""
        self.last_said = said
        text = self.lines.text(said)
        if self.render_ahead:
            self.voice.ahead([text], self.lines.language, Priority.SOON)
        return text

    def _speak(self, lines: list[tuple[str, Say]]) -> None:
        """Start playing lines one after the other, as one sound, and write down when each is heard: its words, and
        which line of the phrase file it is (the screen shows an option when its line is heard)."""
        said = [(text, line, self.voice.render(text, self.lines.language)) for text, line in lines]
        start = self._speaking_since = self.now
        rate = said[0][2].rate
        audio = Audio(b"".join(resample(sound, rate).samples for _, _, sound in said), rate)
        self._speaking = self.out.play(audio, _words(said))
        self._sounding = []
        for text, line, sound in said:
            end = start + sound.seconds
            step = {"speaker": "host", "text": text, "start": start, "end": end, "line": line.key}
            if "letter" in line.params:
                step["letter"] = str(line.params["letter"])
            self.transcript.write(start, "say", step)
            self._sounding.append((start, line.key))
            start = end

    def _wait_for_speaking(self) -> None:
        speaking, self._speaking = self._speaking, None
        if speaking is not None:
            speaking.wait()


def _words(said: list[tuple[str, Say, Audio]]) -> tuple[Words, ...]:
    """Each line's words and where in the joined sound it is said: what the pipeline takes for our own echo."""
    words, start = [], 0.0
    for text, _, sound in said:
        words.append(Words(text, start, start + sound.seconds))
        start += sound.seconds
    return tuple(words)
