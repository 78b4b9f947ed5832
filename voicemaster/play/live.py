"""`voicemaster play`: a real game through the microphone and the speaker, stored after every step.

A game that did not end (a crash, a power cut, Ctrl-C) is offered again at the next start, by voice: a yes
continues it on the question it was on, jokers and all, in either format; a clear no abandons it (kept, listed by
`history`, not offered again) for a new game; no clear reply after a few tries keeps it for later and ends, so an
interrupted game is never pushed aside on a guess. Otherwise the players (or teams) and, when the config says
"ask", the variant are asked for by voice before the first question.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import nullcontext, suppress
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Protocol

from voicemaster.config.settings import ASK, Settings
from voicemaster.dialogue.meaning import ContextName, Intent
from voicemaster.dialogue.turns import Effect, Listen, Observation, Record, Say, Silence
from voicemaster.host import lines as host_lines
from voicemaster.host.listening import offer_resume
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session, UnreadableGame, restore, unfinishable
from voicemaster.host.screen_address import ScreenAddress
from voicemaster.host.setup import which_variant, who_plays
from voicemaster.play.ear import Listened, heard_cue
from voicemaster.play.runner import Runner, Transcript, WallClock, Watcher, drive
from voicemaster.questions.model import Entry
from voicemaster.questions.selection import Bank
from voicemaster.questions.spoken import lexicon
from voicemaster.rules import millionaire, new_game
from voicemaster.rules import moneydrop as md
from voicemaster.rules.variants import VARIANTS
from voicemaster.speech.devices.capture import Watch, speaker_present
from voicemaster.speech.devices.interfaces import AudioUnavailable, MicrophoneLost, MicrophoneUnavailable, Playback
from voicemaster.speech.devices.loudspeaker import Speaker
from voicemaster.speech.devices.microphone import Microphone
from voicemaster.speech.devices.phone import PhoneBehind, PhoneLost, PhoneMicrophone, PhoneNotice
from voicemaster.speech.frontend import FrontEnd, PlayedSound, usable_front_end
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, ListeningPipeline
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.hearing.voice_activity import SileroVad
from voicemaster.speech.voice.earcons import earcon
from voicemaster.speech.voice.speakers import quizmaster_voice
from voicemaster.speech.voice.synthesis import SpeechUnavailable
from voicemaster.store import Store


def play(
    config: Settings,
    *,
    players: tuple[str, ...],
    seed: int,
    language: str,
    entries: tuple[Entry, ...],
    recognizer: Recognizer,
    money_drop: bool = False,
    store_path: Path | None = None,
    log: Path | None = None,
    notify: Callable[[str], None] | None = None,
    store: Store | None = None,
    watch: Watcher | None = None,
    screen: ScreenAddress | None = None,
    phones: PhoneSources | None = None,
) -> bool:
    """Runs a game until it ends: True; False when the players gave no clear answer to continuing an interrupted
    game, which is kept for later. Raises AudioUnavailable when a device is missing or lost, StoreError when the
    store is busy (another game) or cannot be written. `watch` sees every step (the screen); `screen`: where it is,
    said when a player asks; `phones`: the players' phones, each its player's microphone once joined."""
    # The store first: a second quizmaster on the same games is refused before it opens the speaker. A store given
    # is open already (the command line opens it before loading a model) and stays open.
    opened = nullcontext(store) if store is not None else Store(store_path, exclusive=True, notify=notify)
    with opened as store:
        ear = open_ear(config, recognizer, notify, phones)
        speaker, microphone = ear.speaker, ear.microphone

        with (log or Path("/dev/null")).open("a", encoding="utf-8") as log_file:
            runner = Runner(
                host_lines.load(language),
                quizmaster_voice(config.speech, lexicon(entries)),
                speaker,
                WallClock(),
                ear,
                Transcript(log_file, watch),
                store=store,
                earcons=earcon,
            )
            try:
                host = _resumed_or_new(
                    config, store, runner, players, seed, money_drop, language, Bank(entries), screen=screen
                )
                if host is None:
                    runner.finish_speaking()
                    return False
                _run(host, store, runner, phones)
                return True
            finally:
                microphone.close()


PAUSED_SECONDS = 5.0
"""A stall of the devices this long, survived, is said: the players hear where the game was, and are listened to
again (the silence was the program's, not theirs)."""


class PhoneSources(Protocol):
    """The players' phones as the ear sees them (`voicemaster.phones.server.Phones`)."""

    played: PlayedSound | None
    """What the loudspeaker plays, of which each phone is handed a branch as its echo canceller's reference."""
    front_end: Callable[[], FrontEnd] | None
    """Each phone's own front end, made as it joins."""

    def microphone(self, player: str | None) -> PhoneMicrophone | None:
        """The phone that is `player`'s microphone now, if one is joined."""
        ...

    def for_all(self) -> PhoneMicrophone | None:
        """The phone that hears a question put to all the players (`Listen.to_all`), if one is joined."""
        ...

    def newcomer(self, seat: int, name_asked: bool = False) -> PhoneMicrophone | None:
        """The phone of a new player heard for the player being named at `seat` (`Listen.seat`); `name_asked`: the
        listening is for that player's name."""
        ...

    def waiting(self) -> int:
        """How many phones joined as new players wait for a seat (or were asked and not named: asked again)."""
        ...

    def set_players(self, players: tuple[str, ...], newcomers: bool = False, teams: bool = False) -> None:
        """Who may join, once known: a phone that said its name at a seat is that player's from now on; with
        `newcomers`, a phone may still join as a new player, asked for its name when the next round (or, `teams`, the
        next team's run) starts."""
        ...


@dataclass(frozen=True)
class MicrophoneEar:
    """Listens to the player whose turn it is through their phone, if one is joined, else through the room's
    microphone; each through the one listening pipeline. A phone lost while listened to is reported, nothing decided
    from it; a stall of the devices while nobody was heard is reported, not taken for the players' silence. A phone
    listened to is told when its player was heard and what was read (`PhoneNotice`): its page shows both."""

    microphone: Microphone
    speaker: Speaker
    pipeline: ListeningPipeline
    phones: PhoneSources | None = None
    _by_phone: dict[str, tuple[PhoneMicrophone, ListeningPipeline]] = field(default_factory=dict)

    def phone_for(self, listen: Listen) -> PhoneMicrophone | None:
        """The phone `listen` is heard through, or None for the room's microphone: the player's own; for a seat
        being named, the phone it is given (`PhoneSources.newcomer`); for a question put to all, one player's."""
        if self.phones is None:
            return None
        if listen.player is None and listen.seat is not None:
            return self.phones.newcomer(listen.seat, listen.context.name is ContextName.NAME)
        if listen.player is None and listen.to_all:
            return self.phones.for_all()
        return self.phones.microphone(listen.player)

    def listen(self, listen: Listen, said: Say | None, speaking: Playback | None) -> Listened:
        del said
        phone = self.phone_for(listen)
        if phone is not None:
            if listen.to_all and listen.player is None:
                phone.tell(PhoneNotice(for_everyone=True))  # the table answers through it: its holder should know
            try:
                hearing = self._through(phone).listen(listen.context, listen.timeout_seconds, speaking)
            except PhoneBehind:
                return Listened(Silence(), phone_lost=True, phone_behind=True)
            except PhoneLost:
                return Listened(Silence(), phone_lost=True)
            heard = hearing.heard
            if heard is not None:
                phone.tell(PhoneNotice(text=heard.text, asked_again=heard.intent is Intent.UNKNOWN))
            return Listened.from_hearing(hearing)
        self.microphone.stalled = 0.0
        hearing = self.pipeline.listen(listen.context, listen.timeout_seconds, speaking)
        stalled = max(self.microphone.stalled, self.speaker.stalled) >= PAUSED_SECONDS
        return Listened.from_hearing(hearing, stalled=hearing.heard is None and stalled)

    def _through(self, phone: PhoneMicrophone) -> ListeningPipeline:
        """The room's pipeline through the phone (`through_phone`); its heard cue is the room's (if any) and the
        phone's page told."""
        known = self._by_phone.get(phone.player)
        if known is None or known[0] is not phone:
            pipeline = replace(through_phone(self.pipeline, phone), cue=_cue(self, phone))
            known = self._by_phone[phone.player] = (phone, pipeline)
        return known[1]


def through_phone(pipeline: ListeningPipeline, phone: PhoneMicrophone) -> ListeningPipeline:
    """The room's pipeline with `phone` as its source: the phone's own room level and voice-activity state, and the
    settings of a microphone at the player's mouth (`EndpointSettings.at_the_mouth`), as the player is far louder
    there over the room than at the room's microphone."""
    return replace(pipeline, source=phone, vad=SileroVad(), room=phone.room, settings=pipeline.settings.at_the_mouth())


def _cue(ear: MicrophoneEar, phone: PhoneMicrophone) -> Callable[[], None]:
    sound = ear.pipeline.cue

    def cue() -> None:
        phone.tell(PhoneNotice(heard_you=True))
        if sound is not None:
            sound()

    return cue


def open_ear(
    config: Settings,
    recognizer: Recognizer,
    notify: Callable[[str], None] | None = None,
    phones: PhoneSources | None = None,
) -> MicrophoneEar:
    """The game's ear, built as `play` builds it: the front end the settings ask for, fed what the speaker plays as
    the microphone hears it (our own voice is cancelled before hearing listens, and what it leaves of it is never a
    player's), the microphone, and the listening pipeline over them, reading ahead on a worker thread; given
    `phones`, each phone as its player's microphone through the same pipeline, with a front end of its own. Opens no
    device yet: the microphone's stream opens at the first listening."""
    barge_in = config.barge_in
    front_end, why_not = usable_front_end(**asdict(config.front_end), settings=barge_in)
    if why_not is not None and notify is not None:
        notify(f"No echo cancellation: {why_not}")
    # Watched: an unplugged microphone's stream may be moved by the sound server, not broken; and a stream that
    # stalls is told from an unplug by whether its device is still there.
    in_use = Watch()
    played = PlayedSound()
    speaker = Speaker(present=speaker_present, played=played)
    microphone = Microphone(
        lost=in_use.lost,
        present=in_use.present,
        front_end=front_end,
        played=played,
        echo_tail_seconds=barge_in.echo_tail_seconds,
    )
    sound = heard_cue(config.heard_cue)
    cue = None if sound is None else (lambda: speaker.play(sound))
    settings = replace(DEFAULT_SETTINGS, barge_in=barge_in)
    pipeline = ListeningPipeline(microphone, recognizer, SileroVad(), settings, microphone.room, cue=cue, ahead=True)
    if phones is not None:
        phones.played = played
        phones.front_end = lambda: usable_front_end(**asdict(config.front_end), settings=barge_in)[0]
    return MicrophoneEar(microphone, speaker, pipeline, phones)


def _resumed_or_new(
    config: Settings,
    store: Store,
    runner: Runner,
    players: tuple[str, ...],
    seed: int,
    money_drop: bool,
    language: str,
    bank: Bank,
    *,
    screen: ScreenAddress | None = None,
) -> Quizmaster | MoneyDropHost | None:
    """The interrupted game if the players want it, else a new one; None when they gave no clear answer (the
    interrupted game is kept for later)."""
    interrupted = _interrupted(store, bank, runner)
    if interrupted is not None:
        game_id, session = interrupted
        wanted = drive(offer_resume(language), runner.perform)
        if wanted is None:
            return None
        if wanted:
            runner.start_game(game_id)
            runner.transcript.stored(runner.now, session.to_json())  # the screen shows the game it continues
            if isinstance(session, DropSession):
                heard = store.last_heard_by(session.game.settings.teams)
                return MoneyDropHost(session, bank, language, seed, heard, screen=screen)
            heard = store.last_heard_by(session.game.settings.players)
            confirm = config.game.confirm_from_level
            return Quizmaster(session, bank, language, heard, confirm_from_level=confirm, screen=screen)
        store.abandon(game_id)  # a clear no: listed as abandoned, never offered again
    players = players or drive(who_plays(language), runner.perform)
    runner.start_game(f"game-{uuid.uuid4().hex[:12]}")
    if money_drop:
        game = md.MoneyDropGame(config.money_drop_settings(players))
        heard = store.last_heard_by(game.settings.teams)
        return MoneyDropHost(DropSession(game), bank, language, seed, heard, screen=screen)
    if config.game.variant == ASK:
        chosen = drive(which_variant(language, tuple(VARIANTS)), runner.perform)
        config = replace(config, game=replace(config.game, variant=chosen))
    session = Session(new_game(config.game_settings(players, seed)))
    heard = store.last_heard_by(players)
    return Quizmaster(session, bank, language, heard, confirm_from_level=config.game.confirm_from_level, screen=screen)


def _interrupted(store: Store, bank: Bank, runner: Runner) -> tuple[str, Session | DropSession] | None:
    """The game to offer again; one that cannot be read gets the store set aside (kept, not offered). One that
    stands on a question that is no longer in the bank, stored without its words by an earlier version, cannot be
    finished: the players hear so, and it is abandoned (kept, listed) for a new game."""
    found = store.unfinished_game()
    if found is None:
        return None
    game_id, state = found
    try:
        session = restore(game_id, state)
    except UnreadableGame as error:
        store.set_aside([game_id], str(error))
        return None
    if unfinishable(session, bank) is not None:
        runner.say_now("resume_question_gone")
        store.abandon(game_id)
        return None
    return game_id, session


def _heard_as_asked(host: Quizmaster | MoneyDropHost) -> Callable[[], list[tuple[str, str]]]:
    """The questions asked since the last call, as (player, question id) for each player or team: a Millionaire
    question asked, a money-drop card read, is stored as heard with the step that asked or chose it (a kill skips any
    `finally`)."""

    def heard() -> tuple[tuple[str, ...], tuple[str, ...]]:
        if isinstance(host, Quizmaster):
            return host.session.asked, host.game.settings.players
        return host.session.read, host.settings.teams

    told = len(heard()[0])

    def asked() -> list[tuple[str, str]]:
        nonlocal told
        questions, players = heard()
        fresh, told = questions[told:], len(questions)
        return [(player, question_id) for question_id in fresh for player in players]

    return asked


def _players_to(phones: PhoneSources | None, host: Quizmaster | MoneyDropHost) -> Callable[[], None]:
    """Tells the phones who plays, at once, whenever a newcomer joins and whenever a round (a run) starts (each
    stored step is looked at): who may join, and the newcomer's phone their microphone. Told at each round's start,
    the phones forget the seat asked for before it, so a newcomer asked in the room and never named leaves the next
    round's "anyone new?" to a player's phone, not the room. A Millionaire game takes newcomers while there is room
    and a round still to start: every round of one that asks "another round?" (docs/decisions/045), until the last
    one starts of one of a fixed number (046), when a phone still waiting is let go; a money drop a new team, while
    a run is still to start (046)."""
    told: tuple[tuple[str, ...], bool, int] | None = None

    def tell() -> None:
        nonlocal told
        if phones is None:
            return
        if isinstance(host, Quizmaster):
            game = host.game
            players, rounds = game.settings.players, game.settings.rounds
            started = len(game.sheet) + (game.round is not None)
            to_come = rounds is None or started < rounds
            newcomers = to_come and millionaire.may_join(replace(game, round=None))
        else:
            drop = host.game
            players, started = drop.settings.teams, len(drop.results) + (drop.run is not None)
            newcomers = started < len(players) and len(players) < md.MAX_TEAMS  # a run still to start
        if (players, newcomers, started) != told:
            told = players, newcomers, started
            phones.set_players(players, newcomers, teams=not isinstance(host, Quizmaster))

    return tell


def _run(host: Quizmaster | MoneyDropHost, store: Store, runner: Runner, phones: PhoneSources | None = None) -> None:
    del store  # written through the runner, step by step
    runner.start_game(runner.game_id, _heard_as_asked(host))
    tell = _players_to(phones, host)
    tell()
    if phones is not None:
        runner.newcomers_waiting = phones.waiting  # a game of a fixed number of rounds asks only when one waits

    def perform(effect: Effect) -> Observation | None:
        observed = runner.perform(effect)
        if isinstance(effect, Record) and effect.state is not None:
            tell()
        return observed

    try:
        drive(host.run(), perform)
        runner.finish_speaking()
    except MicrophoneUnavailable as error:
        # A lost microphone is noticed within a second of its last sound (devices.STALL_SECONDS), or, when the sound
        # server moved its stream to another source, within microphone.PRESENCE_SECONDS of listening; never waited on;
        # the game was stored at its last step. Said aloud for players who cannot see the screen, if the speaker
        # still works.
        with suppress(AudioUnavailable, SpeechUnavailable):
            runner.say_now("microphone_lost" if isinstance(error, MicrophoneLost) else "microphone_missing")
        raise
