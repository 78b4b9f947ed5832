"""`voicemaster serve` on the microphone and the loudspeaker: waiting, a game played by `play.live` once one is
asked for and confirmed, then waiting again, for as long as it runs.

While waiting, the microphone's frames go through the game's own listening pipeline with the waiting numbers
(`WAITING`): the voice-activity detector gates everything, and only an utterance that ends within `START_SECONDS`
is read, by `RoomReader`, against the start grammar; nothing is read at short pauses and no tick answers the room's
talk. The read-back's yes is heard as `play` hears a yes. A game that did not end (a crash, a kill, a power cut) is
offered first when it starts, exactly as `play` offers it, and again when someone says "weiter".
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from voicemaster.config.settings import Settings
from voicemaster.dialogue.meaning import ContextName, Intent
from voicemaster.dialogue.turns import Listen, Play, Say
from voicemaster.host import lines as host_lines
from voicemaster.host.saved import DropSession, UnreadableGame, restore
from voicemaster.host.screen_address import ScreenAddress
from voicemaster.play.ear import Listened
from voicemaster.play.live import MicrophoneEar, open_ear
from voicemaster.play.live import play as play_game
from voicemaster.play.runner import Runner, Transcript, WallClock, Watcher, drive
from voicemaster.questions.model import Entry
from voicemaster.questions.spoken import lexicon
from voicemaster.serve.reading import waiting_reader
from voicemaster.serve.waiting import Asked, start_confirmed, start_context, wait_for_asking
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, ListeningPipeline
from voicemaster.speech.hearing.recognition import Recognizer
from voicemaster.speech.voice.earcons import READY, earcon
from voicemaster.speech.voice.speakers import quizmaster_voice
from voicemaster.store import Store

if TYPE_CHECKING:  # the phones' web server is an extra: serve runs without it
    from voicemaster.phones.server import Phones

START_SECONDS = 4.0
"""The longest utterance read while waiting: every start phrase fits ("lass uns Wer wird Millionär spielen" takes
some 2.5 s); talk that goes on longer without a pause is cut there and not read, which is most of what the room's
talk and a TV cost (`bench serve`)."""
WAITING = replace(DEFAULT_SETTINGS, early_silence_seconds=DEFAULT_SETTINGS.silence_seconds, max_seconds=START_SECONDS)
"""The endpointer while waiting: an utterance is read once, at its end (a start is said back anyway, so reading at
a short pause would only read the room's talk twice)."""


@dataclass(frozen=True)
class ServeEar:
    """Listens for a start through the waiting pipeline; for anything else (the read-back's yes) as `play` does."""

    ear: MicrophoneEar
    waiting: ListeningPipeline

    def listen(self, listen: Listen, said: Say | None, speaking: Playback | None) -> Listened:
        if listen.context.name is ContextName.START:
            return Listened.from_hearing(self.waiting.listen(listen.context, listen.timeout_seconds, speaking))
        return self.ear.listen(listen, said, speaking)


def serve(
    config: Settings,
    *,
    languages: tuple[str, ...],
    entries: tuple[Entry, ...],
    recognizer: Recognizer,
    store: Store,
    tell: Callable[[str], None],
    log: Path | None = None,
    notify: Callable[[str], None] | None = None,
    watch: Watcher | None = None,
    screen: ScreenAddress | None = None,
    games: int | None = None,
    phones: Phones | None = None,
) -> None:
    """Waits, and plays each game asked for, for ever (or `games` games, for a test). `tell` writes one line of what
    happened to the log (the journal, under systemd). Raises AudioUnavailable when a device is missing or lost (the
    service starts again), StoreError when the store is busy or cannot be written. `phones`: the players' phones,
    joined by one code for as long as it runs; one joined while waiting is a new player's microphone in the next
    game (`Phones.new_game`)."""
    ear = open_ear(config, recognizer, notify)
    waiting = replace(
        ear.pipeline,
        recognizer=waiting_reader(recognizer, languages),
        settings=replace(WAITING, barge_in=config.barge_in),
        cue=None,
        ahead=False,
    )
    voice = quizmaster_voice(config.speech, lexicon(entries))
    with ExitStack() as stack:
        log_file = stack.enter_context((log or Path("/dev/null")).open("a", encoding="utf-8"))
        stack.callback(ear.microphone.close)
        runners = {
            language: Runner(
                host_lines.load(language),
                voice,
                ear.speaker,
                WallClock(),
                ServeEar(ear, waiting),
                Transcript(log_file, watch),
                earcons=earcon,
                render_ahead=False,  # the fixed lines of three languages would keep the processor busy while waiting
            )
            for language in languages
        }

        def play(language: str, money_drop: bool) -> None:
            ear.microphone.close()  # the game opens its own; this one opens again when waiting listens
            if phones is not None:
                phones.language = language  # the join page speaks the game's language
            game = config.game
            chosen = replace(game, variant=config.serve.variant or game.variant)
            played = play_game(
                replace(config, game=chosen),
                players=config.serve.players or game.players,
                seed=random.SystemRandom().randrange(1_000_000),
                language=language,
                entries=entries,
                recognizer=recognizer,
                money_drop=money_drop,
                log=log,
                notify=notify,
                store=store,
                watch=watch,
                screen=screen,
                phones=phones,
            )
            if phones is not None:
                phones.new_game()  # while waiting, a phone joins as a new player again
            tell("The game is over; waiting again." if played else "The interrupted game is kept; waiting again.")

        interrupted = interrupted_language(store, entries)
        if interrupted is not None:
            tell(f"A game was interrupted ({interrupted[0]}): offered first.")
            play(*interrupted)
        home = languages[0]
        played = 0
        while games is None or played < games:
            announce(runners, config.serve.chime)
            tell(f"Ready: listening for a start in {', '.join(languages)}.")
            asked = _asked(runners[home], start_context(home, config.serve.start_phrases))
            runner = runners[asked.language]
            if asked.intent is Intent.HELP:
                runner.say_now("serve_help")
            elif asked.intent is Intent.RESUME:
                interrupted = interrupted_language(store, entries)
                if interrupted is None:
                    runner.say_now("serve_nothing_to_resume")
                else:
                    tell(f"Asked to continue ({asked.language}): the interrupted game is offered.")
                    play(*interrupted)
                    played += 1
            else:
                tell(f"Heard a start ({asked.language}, {asked.game}): said back.")
                if drive(start_confirmed(asked), runner.perform):
                    tell(f"Starting a game of {asked.game} in {asked.language}.")
                    play(asked.language, asked.game == "moneydrop")
                    played += 1
                else:
                    tell("No clear yes: not started.")
                    runner.say_now("serve_not_started")


def announce(runners: Mapping[str, Runner], chime: bool) -> None:
    """The chime, then "Quizmaster bereit. Sag: Quiz starten." in the first language and the start phrase in each
    other listening language."""
    first, *others = runners.values()
    if chime:
        first.perform(Play(READY))
    first.say_now("serve_ready")
    for runner in others:
        runner.say_now("serve_ready_also")


def _asked(runner: Runner, context: object) -> Asked:
    from voicemaster.dialogue.meaning import Context

    assert isinstance(context, Context)
    return drive(wait_for_asking(context), runner.perform)


def interrupted_language(store: Store, entries: tuple[Entry, ...]) -> tuple[str, bool] | None:
    """The language of the game left unfinished, and whether it is a money drop; None when there is none. Told by
    the questions it asked (the store keeps no language); one that asked none yet is in the first entry's
    language. One that cannot be read is offered all the same: `play` sets it aside and says so."""
    found = store.unfinished_game()
    if found is None:
        return None
    game_id, state = found
    try:
        session = restore(game_id, state)
    except UnreadableGame:
        return (entries[0].language if entries else "de"), False
    languages = {entry.id: entry.language for entry in entries}
    asked = [languages[question] for question in session.asked if question in languages]
    return (asked[-1] if asked else entries[0].language if entries else "de"), isinstance(session, DropSession)
