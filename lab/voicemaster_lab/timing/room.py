"""`voicemaster bench room`: whole games in the rooms people play in, in real time, through the real audio path.

A private PulseAudio daemon carries the game's loudspeaker and microphone (`harness.pulse`, `room=True`), and a
mixer puts a room between them (`harness.mixer`, `harness.room`): the quizmaster's own voice comes back to the
microphone through the loudspeaker's impulse response at a stated level and delay, the player's speech through its
own (distance), over the room's noise. A real `voicemaster play` runs on it as its own process (Whisper, the shipped
settings or `--config`'s, classic rules; how each listening went is in its own log), and a player follows
its log (`harness.player`): its name, the right answers, a fifty-fifty on question 2 and the audience on question 3,
and after `questions` questions it stops and takes the money. On every second answer turn it answers over the
question while the options are still read, as a player who knows it does (a barge-in); otherwise it waits for the
quizmaster to finish and the pause a person leaves. An utterance the game decided on before it began (it heard
something else: its own voice, the noise) is taken back, and the player answers the next prompt.

With `--microphone phone` the player has a phone at their mouth as well (`harness.room.phone_scene`): the game runs
with `--phones`, the bench's phone joins as a new player before the quizmaster asks the player's name (`harness.phone`),
and sends what the room sounds like at the phone; the game listens to the player through it from then on, the name
too, through the same pipeline. Each listening says which microphone the player had (`microphone`: "phone" once the
game has named the phone's player; the name and its yes, heard through the phone, say "room"). `--microphone
phone-held` is the same phone held to talk, as the join page's "hold to talk" button does for the loudest rooms: the
player presses it `PRESS_LEAD_SECONDS` before each utterance and lets go just after (`harness.mixer`); the phone
sends silence otherwise.

What each listening came to is read from the game's log and the bus's recording (`timing.room_figures`). It runs
in real time, a few minutes a game; the load average is printed with the figures.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster.config.files import LANGUAGES
from voicemaster.config.settings import FrontEndConfig, Settings, default_paths, load_settings
from voicemaster.host.lines import load as load_lines
from voicemaster.speech.hearing.endpoint_settings import EndpointSettings
from voicemaster.speech.hearing.pipeline import PipelineStage
from voicemaster.speech.signal import resample, to_float
from voicemaster.speech.voice.speakers import Speakers
from voicemaster_lab.corpora import rooms as corpus_rooms
from voicemaster_lab.corpora.real_speech_sources import RealClip
from voicemaster_lab.harness import room as acoustics
from voicemaster_lab.harness.mixer import Mixer, Recorded, Scene, Signal, Utterance
from voicemaster_lab.harness.phone import PhoneLink
from voicemaster_lab.harness.player import LineMatcher, Repertoire, Reply, Spoken, real_clips, reply_to
from voicemaster_lab.harness.pulse import INSTALL_HINT, RATE, Pulse, missing_tools, start_pulse
from voicemaster_lab.timing import live_figures, room_figures
from voicemaster_lab.timing.room_figures import Game, Listening

GAP_SECONDS = 0.4
"""How long after the quizmaster's line the player begins: people leave 0.2-0.5 s between turns. Counted from where
the speaker falls silent on the bus, as a person hears it, not from where the game's log says the line ends (the
sound server plays it some time later)."""
BARGE_LEAD_SECONDS = 3.0
"""A player who speaks over the question begins this long before the quizmaster would have finished."""
BARGE_LOUDER_DB = 6.0
"""A player who speaks over the quizmaster speaks up: people raise their voice by about this much over other talk
(the Lombard effect)."""
BARGE_EVERY = 2
"""Every this many answer turns, the player speaks over the question (the first one included)."""
MOST_LISTENS = 60
"""A game that listened this often is stopped: it is not going to end (a game of three questions listens about 20
times, a few more for each time it asks again)."""
IDLE_SECONDS = 180.0
"""A game whose log has not grown this long has stopped."""
HEARD_SECONDS = EndpointSettings().speech_seconds + EndpointSettings().early_silence_seconds
"""The least of the player's speech a decision can be about: speech long enough to begin an utterance, then the
shortest pause that is read."""
CLOCK_SLACK_SECONDS = 0.1
"""How far the game's clock, read through its log, may be off the bus's."""
OVERLAP_SECONDS = 0.15
"""The quizmaster counts as speaking where the player began if it is audible within this much after."""
ENGINE = "whisper"
FRONT_ENDS = {
    "none": FrontEndConfig(echo_cancel=False, noise_suppression=False),
    "webrtc-aec": FrontEndConfig(echo_cancel=True, noise_suppression=False),
    "webrtc-aec-residual": FrontEndConfig(echo_cancel=True, noise_suppression=False, barge_in_filter=False),
    "webrtc-ns": FrontEndConfig(echo_cancel=False, noise_suppression=True),
    "webrtc": FrontEndConfig(echo_cancel=True, noise_suppression=True),
}
"""The game's own front ends (the `[speech]` switches), named as `bench asr --frontend` names them."""
SHIPPED = "webrtc-aec"
"""The front end the shipped settings run."""
MICROPHONES = ("room", "phone", "phone-held")
"""What the game hears the player through: the room's microphone alone, or a phone at the player's mouth besides
(held to talk: the phone sends silence but while the player holds its button)."""
PRESS_LEAD_SECONDS = 0.3
"""With hold to talk, how long before speaking the player presses the button: people press, then speak."""


def with_front_end(config: str, front_end: FrontEndConfig) -> str:
    """A settings file's text with the front end's switches set in its `[speech]` table (added if it has none)."""
    for key, on in asdict(front_end).items():
        config = with_key(config, "speech", key, str(on).lower())
    return config


def with_key(config: str, table: str, key: str, value: str) -> str:
    """A settings file's text with `key = value` in its `[table]` (added if it has none), replacing it there."""
    lines = config.splitlines()
    at = next((index for index, line in enumerate(lines) if line.strip() == f"[{table}]"), None)
    if at is None:
        return "\n".join([*lines, "", f"[{table}]", f"{key} = {value}"]) + "\n"
    end = next((index for index in range(at + 1, len(lines)) if lines[index].lstrip().startswith("[")), len(lines))
    kept = [line for line in lines[at + 1 : end] if not re.match(rf"\s*{re.escape(key)}\s*=", line)]
    return "\n".join([*lines[: at + 1], f"{key} = {value}", *kept, *lines[end:]]) + "\n"


def listenings_in(log: Path) -> list[dict[str, object]]:
    """How each listening of a game ended, from its log's `listening` records (`hearing.pipeline.PipelineStage`):
    the endpointer's state, and the frames heard over our voice and those the barge-in filter judged."""
    found: list[dict[str, object]] = []
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        record = json.loads(line)
        if record.get("event") != "listening":
            continue
        stages = {(stage["stage"], stage["started"]): stage for stage in record["stages"]}
        front_end, decision = (
            stages[(PipelineStage.FRONT_END.value, False)],
            stages[(PipelineStage.DECISION.value, False)],
        )
        found.append(
            {
                "state": decision["endpoint"],
                "sounding": front_end["over_our_voice"],
                "judged": front_end["judged_by_filter"],
            }
        )
    return found


class RoomUnavailable(RuntimeError):
    """What the bench needs is missing; the message says what to install."""


def run(
    room_names: Sequence[str],
    languages: Sequence[str],
    games: int,
    echo_dbs: Sequence[float | None],
    *,
    delay_seconds: float = 0.08,
    questions: int = 3,
    seed: int = 1,
    config: Path | None = None,
    frontends: Sequence[str] = (SHIPPED,),
    barge_ins: Sequence[float | None] = (None,),
    microphones: Sequence[str] = ("room",),
) -> dict[str, Any]:
    missing = missing_tools()
    if missing:
        raise RoomUnavailable(f"PulseAudio is not installed ({', '.join(missing)} missing): {INSTALL_HINT}")
    started, load_before = time.monotonic(), _load()
    folder = Path(tempfile.mkdtemp(prefix="vm-room-"))  # short: the daemon's socket path must fit in 108 bytes
    pulse = start_pulse(folder / "pulse", room=True)
    rows: list[dict[str, Any]] = []
    played: list[Game] = []
    not_measured: dict[str, str] = {}
    try:
        for language, name, echo_db, frontend, barge_in, microphone in itertools.product(
            languages, room_names, echo_dbs, frontends, barge_ins, microphones
        ):
            setting = table(pulse, name, language, echo_db, questions=questions, delay_seconds=delay_seconds,
                            config=config, frontend=frontend, barge_in_seconds=barge_in,
                            microphone=microphone)  # fmt: skip
            where = f"{language}-{name}-{echo_db}-{frontend}-{barge_in}-{microphone}"
            own = [play_game(setting, seed + number, folder / f"{where}-{number}") for number in range(games)]
            played += own
            rows.append({"room": name, "language": language, "echo_db": echo_db, "frontend": frontend,
                         "barge_in_seconds": _barge_in(barge_in), "microphone": microphone,
                         **room_figures.summary(own)})  # fmt: skip
            if setting.repertoire.missing:
                not_measured[f"{language} voices"] = "; ".join(sorted(set(setting.repertoire.missing)))
    finally:
        pulse.stop()
        shutil.rmtree(folder, ignore_errors=True)
    for game in played:
        if game.stopped:
            not_measured[f"{game.room} {game.language} echo {game.echo_db} {game.frontend} {game.microphone}"] = (
                game.stopped
            )
    return {
        "benchmark": "room",
        "engine": ENGINE,
        "rooms_asked": list(room_names),
        "languages": list(languages),
        "echo_db": list(echo_dbs),
        "frontends": list(frontends),
        "barge_in_seconds": [_barge_in(value) for value in barge_ins],
        "microphones": list(microphones),
        "echo_delay_asked_ms": round(delay_seconds * 1000),
        "questions": questions,
        "games": len(played),
        "load_before": load_before,
        "load_after": _load(),
        "rooms": rows,
        "all": room_figures.summary(played),
        "by_microphone": {
            microphone: room_figures.summary([game for game in played if game.microphone == microphone])
            for microphone in microphones
        },
        "listenings": [_listening_row(game, item) for game in played for item in game.listenings],
        "not_measured": not_measured,
        "seconds": round(time.monotonic() - started, 1),
    }


@dataclass(frozen=True)
class Table:
    """Where a game is played: the bus, the room and what the mixer plays in it, the player, the settings."""

    pulse: Pulse
    room: acoustics.Room
    echo_db: float | None
    scene: Scene
    repertoire: Repertoire
    questions: int
    config: Path | None
    frontend: str = SHIPPED
    barge_in_seconds: float | None = None
    """The endpointer's `barge_in_seconds` in the game; None: the shipped one."""
    microphone: str = "room"
    """"phone" or "phone-held": a phone at the player's mouth besides the room's microphone (`MICROPHONES`)."""


def table(
    pulse: Pulse,
    name: str,
    language: str,
    echo_db: float | None,
    *,
    questions: int = 3,
    delay_seconds: float = 0.08,
    config: Path | None = None,
    frontend: str = SHIPPED,
    barge_in_seconds: float | None = None,
    microphone: str = "room",
) -> Table:
    """The room `name` on `pulse`'s bus with a player speaking `language`, the game hearing through `frontend` (one
    of `FRONT_ENDS`) and `microphone` (one of `MICROPHONES`); raises RoomUnavailable without the recordings of
    people."""
    clips, real_missing = real_clips(LANGUAGES)
    if real_missing:
        raise RoomUnavailable(f"the rooms need recordings of people: {real_missing}")
    settings = load_settings([default_paths()[0], *([config] if config is not None else [])])
    repertoire = Repertoire(language, clips)
    repertoire.prepare()  # rendered before the game, so that rendering does not load the machine while it decides
    room = acoustics.ROOMS[name]
    voice = _voice(settings, language)
    scene = acoustics.scene(room, echo_db, delay_seconds, voice, _babble(clips, language))
    if microphone != "room":
        phone = acoustics.phone_scene(room, echo_db, voice, scene.noise)
        scene = replace(scene, phone=replace(phone, hold_to_talk=microphone == "phone-held"))
    return Table(pulse, room, echo_db, scene, repertoire, questions, config, frontend, barge_in_seconds, microphone)


def _barge_in(value: float | None) -> float:
    return EndpointSettings().barge_in.residual_seconds if value is None else value


def report(figures: dict[str, Any]) -> str:
    return room_figures.report(figures)


@dataclass
class _Turn:
    """One listening as the player lived it."""

    context: str
    reply: Reply | None
    spoken: Spoken | None
    heard_as: Signal | None = None
    """The utterance as the microphone hears it in the room."""
    at_phone: Signal | None = None
    """The same utterance as the phone at the player's mouth hears it; None: no phone."""
    microphone: str = "room"
    """What the game hears the player through at this listening: "phone" once the phone has joined as the player
    (a question put to all, "another round?", too: the game hears it through the first named player's phone)."""
    span: tuple[int, int] = (0, 0)
    """Its first and last audible sample, close to the microphone."""
    due: float | None = None
    """When (monotonic) the player begins; None once begun or given up."""
    barge: bool = False
    pressed: bool = False
    """With hold to talk: the player has pressed the phone's button for this utterance."""
    utterance: Utterance | None = None
    barged_in: bool = False
    decision: int | None = None
    """The index in the log of the decision (heard or silence)."""
    decided_at: float | None = None
    """When (monotonic) the game decided, by its own clock."""
    spoke: bool = False
    """The player's utterance began before the game decided."""


@dataclass
class _Player:
    """Follows one game's log and speaks into the room when the quizmaster listens."""

    mixer: Mixer
    repertoire: Repertoire
    room: acoustics.Room
    language: str
    questions: int
    matcher: LineMatcher
    phone: PhoneLink | None = None
    events: list[dict[str, Any]] = field(default_factory=list)
    turns: list[_Turn] = field(default_factory=list)
    offset: float = float("inf")
    """Monotonic seconds minus the game's clock: the smallest gap between an event's time and its reading (of the
    events logged when they happen)."""
    said: list[str] = field(default_factory=list)
    last_line: str = ""
    speaking_until: float = 0.0
    correct: str = "A"
    level: int = 0
    jokers_used: set[str] = field(default_factory=set)
    answer_turns: int = 0
    over: bool = False
    _made: dict[int, tuple[Signal, tuple[int, int], Signal | None]] = field(default_factory=dict)

    def follow(self, game: subprocess.Popen[bytes], log: Path, most_listens: int) -> str:
        """Plays until the game ends; returns why it was stopped first, or ""."""
        seen, grown = 0, time.monotonic()
        while True:
            text = log.read_text(encoding="utf-8")
            lines = text.splitlines()
            complete = lines if text.endswith("\n") else lines[:-1]  # a line being written is read next time
            for line in complete[seen:]:
                self._act(json.loads(line))
            if len(complete) > seen:
                seen, grown = len(complete), time.monotonic()
            self._speak_when_due()
            if game.poll() is not None:
                return "" if self.over else f"the game ended with exit status {game.returncode} before its end"
            if len(self.turns) > most_listens:
                return f"the game listened {most_listens} times without ending"
            if time.monotonic() - grown > IDLE_SECONDS:
                return f"the game made no step in {IDLE_SECONDS:g} s"
            time.sleep(0.02)

    def _act(self, event: dict[str, Any]) -> None:
        if event["event"] != "say":  # a line leading to listening is logged at once, with the time it will be heard
            self.offset = min(self.offset, time.monotonic() - float(event["t"]))
        self.events.append(event)
        match event["event"]:
            case "say":
                self.said.append(str(event["text"]))
                self.speaking_until = float(event["end"])
            case "question":
                self.correct, self.level = str(event["correct"]), int(event["level"])
            case "joker":
                self.jokers_used.add(str(event["joker"]))
            case "game_over":
                self.over = True
            case "barge_in" if self.turns:
                self.turns[-1].barged_in = True
            case "heard" | "silence" if self.turns:
                self._decided(self.turns[-1], len(self.events) - 1)
            case "listen":
                self._listen(event)

    def _listen(self, event: dict[str, Any]) -> None:
        # Listening again with nothing said in between (a pause waiting for "weiter"): the same question stands.
        said, self.said = (self.said[-1] if self.said else self.last_line), []
        self.last_line = said
        context, now = str(event["context"]), float(event["t"])
        reply = reply_to(self.matcher.key(said), context, self.language, said=said, correct=self.correct,
                         level=self.level, jokers_used=frozenset(self.jokers_used),
                         walk_away=self.level >= self.questions)  # fmt: skip
        turn = _Turn(context, reply, None if reply is None else self.repertoire.next(reply))
        phone = self.phone
        put_to_all = event.get("to_all", False) and event.get("player") is None  # heard through the first's phone
        if phone is not None and phone.player is not None and (phone.player == event.get("player") or put_to_all):
            turn.microphone = "phone"
        self.turns.append(turn)
        if turn.spoken is None:
            return
        turn.heard_as, turn.span, turn.at_phone = self._made_for(turn.spoken)
        left = self.speaking_until - now
        if context == "answer":
            turn.barge = self.answer_turns % BARGE_EVERY == 0 and left > BARGE_LEAD_SECONDS + 1
            self.answer_turns += 1
        start = self.speaking_until - BARGE_LEAD_SECONDS if turn.barge else max(now, self.speaking_until)
        turn.due = self.offset + start

    def _speak_when_due(self) -> None:
        turn = self.turns[-1] if self.turns else None
        if turn is None or turn.due is None:
            return
        pressing = turn.barge or self.mixer.speaker_quiet >= GAP_SECONDS - PRESS_LEAD_SECONDS
        if self._held_to_talk() and not turn.pressed and time.monotonic() >= turn.due - PRESS_LEAD_SECONDS and pressing:
            self.mixer.press()
            turn.pressed = True
        if time.monotonic() < turn.due:
            return
        if not turn.barge and self.mixer.speaker_quiet < GAP_SECONDS:
            return
        assert turn.heard_as is not None
        louder = 10 ** (BARGE_LOUDER_DB / 20) if turn.barge else 1.0
        at_phone = None if turn.at_phone is None else turn.at_phone * louder
        turn.due, turn.utterance = None, self.mixer.say(turn.heard_as * louder, at_phone)

    def _decided(self, turn: _Turn, index: int) -> None:
        turn.decision = index
        turn.decided_at = self.offset + float(self.events[index]["t"])
        turn.due = None
        if turn.utterance is None and turn.pressed:
            self.mixer.release()
        if turn.utterance is not None and not self.mixer.cancel(turn.utterance):
            turn.spoke = True

    def _held_to_talk(self) -> bool:
        scene = self.mixer.scene.phone
        return scene is not None and scene.hold_to_talk

    def _made_for(self, spoken: Spoken) -> tuple[Signal, tuple[int, int], Signal | None]:
        """The utterance through the room, where it is audible close to the microphone, and as the phone hears it
        when there is one (made once a clip)."""
        key = hash(spoken.audio.samples)
        if key not in self._made:
            dry = to_float(resample(spoken.audio, RATE)).astype(np.float64)
            close = acoustics.leveled(dry, acoustics.close_power())
            loud = np.flatnonzero(live_figures.audible(np.round(close * 32767).astype(np.int16)))
            span = (int(loud[0]), int(loud[-1])) if len(loud) else (0, len(close) - 1)
            place = f"{spoken.source}|{spoken.text}"
            heard = acoustics.player_at_microphone(self.room, dry, place)
            at_phone = acoustics.player_at_phone(self.room, dry, place) if self.phone is not None else None
            self._made[key] = (heard, span, at_phone)
        return self._made[key]


def play_game(table: Table, seed: int, folder: Path, *, most_listens: int = MOST_LISTENS) -> Game:
    """One whole game at `table`, its log (`game.jsonl`, with how each listening went) kept in `folder`; stopped once
    it has listened `most_listens` times."""
    folder.mkdir(parents=True)
    config, language = table.config, table.repertoire.language
    log = folder / "game.jsonl"
    log.touch()
    # The shipped settings (not the user's config.toml) or --config's, with the front end asked for.
    own = config.read_text(encoding="utf-8") if config is not None else ""
    config = folder / "config.toml"
    settings = with_front_end(own, FRONT_ENDS[table.frontend])
    if table.barge_in_seconds is not None:
        settings = with_key(settings, "barge_in", "residual_seconds", str(table.barge_in_seconds))
    config.write_text(settings, encoding="utf-8")
    command = [sys.executable, "-m", "voicemaster", "--config", str(config), "play"]
    command += ["--lang", language, "--variant", "classic", "--engine", ENGINE, "--seed", str(seed), "--log", str(log)]
    printed = folder / "stdout.txt"
    phone = PhoneLink(printed) if table.microphone != "room" else None
    if phone is not None:
        command += ["--phones", "--phones-port", "0"]
    env = {**table.pulse.env, "XDG_DATA_HOME": str(folder / "data")}
    mixer = Mixer(table.pulse, table.scene, phone.hear if phone is not None else None)
    mixer.start()
    started = time.monotonic()
    player = _Player(mixer, table.repertoire, table.room, language, table.questions,
                     LineMatcher.of(load_lines(language)), phone)  # fmt: skip
    try:
        with (folder / "stderr.txt").open("wb") as errors, printed.open("wb") as output:
            game = subprocess.Popen(command, env=env, stdout=output, stderr=errors)
            if phone is not None:
                phone.start()
            try:
                stopped = player.follow(game, log, most_listens)
            finally:
                if phone is not None:
                    phone.stop()  # before the game is ended: a game stopped by the bench loses no phone of its own
                _end(game)
    finally:
        if phone is not None:
            phone.stop()
        recorded = mixer.stop()
    if phone is not None and (phone.lost or phone.player is None):
        stopped = "; ".join(why for why in (stopped, f"the phone: {phone.lost or 'never joined'}") if why)
    if stopped:
        shown = (folder / "stderr.txt").read_text(errors="replace").strip().splitlines()
        stopped += f": {shown[-1]}" if shown else ""
    endings = listenings_in(log)
    played = _played(player, recorded, endings, table, time.monotonic() - started, stopped)
    return replace(played, phone_behind=phone.most_behind) if phone is not None else played


def _end(game: subprocess.Popen[bytes]) -> None:
    """The game's end waited for a little (it says goodbye), then made."""
    try:
        game.wait(timeout=20)
    except subprocess.TimeoutExpired:
        game.terminate()
        try:
            game.wait(timeout=10)
        except subprocess.TimeoutExpired:
            game.kill()
            game.wait()


def _played(
    player: _Player,
    recorded: Recorded,
    endings: list[dict[str, Any]],
    table: Table,
    seconds: float,
    stopped: str,
) -> Game:
    """What the game came to, read off the log, the ear's endings and the bus."""
    speaker = recorded.speaker
    listenings = []
    aligned = len(endings) == len(player.turns)
    for index, turn in enumerate(player.turns):
        decision = player.events[turn.decision] if turn.decision is not None else None
        heard, read = None, ""
        if decision is not None and decision["event"] == "heard":
            heard, read = (str(decision["intent"]), decision["value"]), str(decision.get("text", ""))
        over, latency, spoke = False, None, turn.spoke
        utterance = turn.utterance
        if turn.spoke and utterance is not None and utterance.written_from is not None:
            at = recorded.frame_of(utterance.written_from, near=utterance.expected_at)
            start = at if at is not None else utterance.expected_at
            assert start is not None
            onset, end = (start + turn.span[0]) / RATE, (start + turn.span[1] + 1) / RATE
            # A decision too soon after the player began was about what the microphone heard before (the
            # quizmaster's own voice, the noise): the endpointer had not yet heard enough of the player to start.
            if turn.decided_at is not None:
                spoke = recorded.frame_at(turn.decided_at) / RATE >= onset + HEARD_SECONDS - CLOCK_SLACK_SECONDS
            window = speaker[round(onset * RATE) : round((onset + OVERLAP_SECONDS) * RATE)]
            over = spoke and bool(live_figures.audible(window).any())
            reply = live_figures.reply_onset(speaker, end)
            latency = None if reply is None or not spoke else reply - end
        reply_of = turn.reply
        listenings.append(
            Listening(
                context=turn.context,
                kind=None if reply_of is None else reply_of.kind,
                meant=None if reply_of is None else reply_of.meant,
                heard=heard,
                spoke=spoke,
                alike=() if reply_of is None else reply_of.alike,
                source="" if turn.spoken is None else turn.spoken.source,
                text="" if turn.spoken is None else turn.spoken.text,
                barge_planned=turn.barge,
                spoken_over=over,
                barged_in=turn.barged_in,
                ended=str(endings[index]["state"]) if aligned else None,
                latency=latency,
                microphone=turn.microphone,
                read=read,
            )
        )
    yes_decisions = [
        turn.decision
        for turn, item in zip(player.turns, listenings, strict=True)
        if item.spoke and turn.decision is not None and turn.context == "confirm"
    ]
    return Game(
        room=table.room.name,
        language=table.repertoire.language,
        echo_db=table.echo_db,
        frontend=table.frontend,
        microphone=table.microphone,
        listenings=tuple(listenings),
        ended=player.over,
        locked_without_yes=room_figures.locked_without_yes(player.events, yes_decisions),
        seconds=round(seconds, 1),
        echo_delays=tuple(recorded.delays()),
        dropouts=recorded.dropouts(),
        cut=sum(ending["state"] == "cut" for ending in endings),
        stopped=stopped,
        sounding_frames=sum(int(ending["sounding"]) for ending in endings),
        judged_frames=sum(int(ending["judged"]) for ending in endings),
    )


def _voice(settings: Settings, language: str, count: int = 3) -> list[Signal]:
    """A few lines in the quizmaster's voice as it plays them: what the echo's level is set from."""
    speakers = Speakers(settings.speech)
    lines = load_lines(language).fixed()[:count]
    return [to_float(resample(speakers.render(line, language), RATE)).astype(np.float64) for line in lines]


def _babble(clips: Sequence[RealClip], language: str) -> list[corpus_rooms.Spoken]:
    """The party's other people: real recordings in the other languages, so never a voice the player speaks in."""
    return [corpus_rooms.Spoken(clip.path(), clip.file, clip.speaker) for clip in clips if clip.language != language]


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def _listening_row(game: Game, item: Listening) -> dict[str, Any]:
    return {
        "room": game.room,
        "language": game.language,
        "echo_db": game.echo_db,
        "frontend": game.frontend,
        "game_microphone": game.microphone,
        "microphone": item.microphone,
        "context": item.context,
        "kind": item.kind,
        "source": item.source,
        "text": item.text,
        "meant": None if item.meant is None else list(item.meant),
        "heard": None if item.heard is None else list(item.heard),
        "read": item.read,
        "outcome": item.outcome,
        "barge_in": item.barge_in,
        "ended": item.ended,
        "latency_ms": None if item.latency is None else round(item.latency * 1000),
    }
