"""`voicemaster play` and `voicemaster demo`: a game by voice through the microphone and the speaker, and a whole game
played by simulated players (heard by a real recognizer, or narrated as text by the rules engine alone)."""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING

from voicemaster.cli import phones as phones_cli
from voicemaster.cli import questions as question_cli
from voicemaster.cli import screen as screen_cli
from voicemaster.cli.failures import run_game, warn
from voicemaster.cli.settings import settings_for, speaking_settings
from voicemaster.config.settings import ASK, Settings
from voicemaster.questions.model import Entry
from voicemaster.speakable import check_speakable
from voicemaster.store import Store

if TYPE_CHECKING:
    from voicemaster.play.script import DemoPlan
    from voicemaster.rules.moneydrop import MoneyDropSettings
    from voicemaster.speech.devices.interfaces import AudioOut


def play(args: argparse.Namespace) -> int:
    settings = speaking_settings(args)
    if args.variant:
        settings = replace(settings, game=replace(settings.game, variant=args.variant))
    names = tuple(name.strip() for name in args.players.split(",") if name.strip()) or tuple(settings.game.players)
    for name in names:  # each is said aloud: refused now, not when the quizmaster first names the player
        check_speakable(name, f"--players: the name {name!a}")
    language = args.lang or settings.game.language
    entries = question_cli.playable_questions(language)
    if entries is None:
        return 2
    # Opened before the model loads: a second game on the same data folder is refused at once.
    with Store(exclusive=True, notify=warn) as store:
        return _play_with(args, settings, names, language, entries, store)


def _play_with(
    args: argparse.Namespace,
    settings: Settings,
    names: tuple[str, ...],
    language: str,
    entries: tuple[Entry, ...],
    store: Store,
) -> int:
    from voicemaster.play.live import play as play_live
    from voicemaster.speech.devices.portaudio import divert_native_stderr
    from voicemaster.speech.hearing.engines import open_recognizer

    divert_native_stderr()

    def game() -> int:
        # The screen and the phones before the model: a port in use is said at once, not after the model has loaded.
        with (
            phones_cli.phones_for(args, language) as phones,
            screen_cli.screen_for(
                args, language, entries, live=True, phones_url=phones.url if phones else None
            ) as shown,
        ):
            watch, screen = phones_cli.with_phones(phones, *shown, language, entries)
            played = play_live(
                settings,
                players=names,
                seed=_seed(args.seed),
                money_drop=args.format == "moneydrop",
                language=language,
                entries=entries,
                recognizer=open_recognizer(args.engine, language),
                log=args.log,
                store=store,
                watch=watch,
                screen=screen,
                phones=phones,
                notify=warn,
            )
        if not played:
            print("voicemaster: no clear answer to continuing the interrupted game; it is kept, and offered again at "
                  "the next `voicemaster play`.", file=sys.stderr)  # fmt: skip
        return 0

    return run_game(
        game,
        kept="A game already under way is kept; `voicemaster play` offers it again.",
        stopped="The game is stored; `voicemaster play` offers to continue it.",
    )


def _demo_text(args: argparse.Namespace, settings: Settings, plan: DemoPlan, names: tuple[str, ...], seed: int) -> int:
    from voicemaster.play import tabletop

    if args.format == "moneydrop":
        lines = tabletop.play_money_drop(_money_drop_settings(settings, plan, names), seed)
    else:
        lines = tabletop.play_millionaire(settings.game_settings(names, seed), seed)
    for line in lines:
        print(line)
    return 0


DEMO_NAMES = ("Anna", "Ben", "Cem", "Dana", "Emil", "Fatma")
"""The simulated players (or teams); a Millionaire game has at most six players (MAX_PLAYERS)."""


def _money_drop_settings(settings: Settings, plan: DemoPlan, names: tuple[str, ...]) -> MoneyDropSettings:
    """The money drop's settings for these teams, with the plan's cards."""
    dropped = settings.money_drop_settings(names)
    return dropped if plan.cards is None else replace(dropped, option_counts=plan.cards)


def demo(args: argparse.Namespace) -> int:
    from voicemaster.play.script import FULL, SHORT

    plan = FULL if args.full else SHORT  # a short game by default, a whole evening with --full
    settings = speaking_settings(args) if not args.text else settings_for(args)
    seed = random.randrange(10_000) if args.seed is None else args.seed
    who = "teams" if args.format == "moneydrop" else "players"
    players = (plan.teams if args.format == "moneydrop" else plan.players) if args.players is None else args.players
    if not 1 <= players <= len(DEMO_NAMES):
        print(f"voicemaster: --players {players}: the demo plays with 1 to {len(DEMO_NAMES)} {who}.", file=sys.stderr)
        return 2
    names = DEMO_NAMES[:players]
    if args.variant or settings.game.variant == ASK:  # simulated players do not choose: the classic rules
        settings = replace(settings, game=replace(settings.game, variant=args.variant or "classic"))
    rounds = plan.rounds if args.rounds is None else args.rounds
    settings = replace(settings, game=replace(settings.game, rounds=rounds))
    if args.text:
        if args.screen:
            print("voicemaster: --screen shows a game the quizmaster hosts; --text has none.", file=sys.stderr)
            return 2
        return _demo_text(args, settings, plan, names, seed)
    from voicemaster.play.demo import Demo
    from voicemaster.play.narration import Narrator, Watchers
    from voicemaster.play.simulated_ear import DemoStuck
    from voicemaster.speech.frontend import usable_front_end
    from voicemaster.speech.hearing.engines import open_recognizer
    from voicemaster.speech.hearing.recognition import RecognizerUnavailable
    from voicemaster.speech.voice.synthesis import SpeechUnavailable

    language = args.lang or settings.game.language
    entries = question_cli.playable_questions(language)
    if entries is None:
        return 2
    try:
        recognizer = open_recognizer(args.engine, language)
        # The players are heard through the front end `play` hears through (the stage's microphone hears no echo).
        front_end, why_not = usable_front_end(**asdict(settings.front_end))
        if why_not is not None:
            print(f"voicemaster: no echo cancellation: {why_not}", file=sys.stderr)
        speaker = None if args.fast else _loudspeaker()
        print(
            f"{_pace_notice(args.out, speaker is not None)} "
            f"Language {language}, seed {seed}, {who} {', '.join(names)}: {plan.told}.",
            flush=True,
        )
        with screen_cli.screen_for(args, language, entries, live=speaker is not None) as (feed, screen):
            watch = Watchers((Narrator(), feed)) if feed is not None else Narrator()
            demo = Demo(
                language, entries, recognizer, settings.speech, args.out, (), watch, screen, speaker,
                heard_cue=settings.heard_cue, front_end=front_end,
            )  # fmt: skip
            if args.format == "moneydrop":
                result = demo.money_drop(_money_drop_settings(settings, plan, names), seed, plan.script)
            else:
                result = demo.millionaire(settings.game_settings(names, seed), plan.script)
    except (RecognizerUnavailable, SpeechUnavailable, DemoStuck) as error:
        print(f"voicemaster: {error}", file=sys.stderr)
        return 2
    print(
        f"{result.seconds / 60:.1f} minutes of game in {result.session}; every step in {result.transcript}. "
        f"{result.understood} of {result.utterances} player utterances understood as meant, {result.mistaken} taken "
        "for something else, the rest asked again."
    )
    return 0


def _loudspeaker() -> AudioOut | None:
    """The system's loudspeaker when one opens now; None where there is none (CI, a server): the demo then runs as
    fast as it can."""
    from voicemaster.speech.devices.interfaces import AudioUnavailable
    from voicemaster.speech.devices.loudspeaker import Speaker
    from voicemaster.speech.devices.portaudio import divert_native_stderr, list_devices

    divert_native_stderr()
    try:
        found = list_devices(probe=True)
    except AudioUnavailable:
        return None
    return Speaker() if any(device.outputs and device.default_output for device in found) else None


def _pace_notice(out: Path, aloud: bool) -> str:
    """The demo's first line: how fast it runs, and where its sound goes."""
    if aloud:
        return f"Playing aloud in real time through the loudspeaker (also to {out / 'session.wav'})."
    return (
        f"Not played aloud (no loudspeaker, or --fast): the game runs as fast as it can; its sound goes to "
        f"{out / 'session.wav'}."
    )


def _seed(given: int | None) -> int:
    return random.SystemRandom().randrange(1_000_000) if given is None else given
