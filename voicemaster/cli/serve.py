"""`voicemaster serve`: the always-ready quizmaster, waiting until someone in the room asks for a game
(`voicemaster.serve`); what it does goes to standard output, one line a step (the journal, under systemd)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from voicemaster.cli import phones as phones_cli
from voicemaster.cli import questions as question_cli
from voicemaster.cli import screen as screen_cli
from voicemaster.cli.failures import run_game, warn
from voicemaster.cli.settings import settings_files, settings_for
from voicemaster.config.files import LANGUAGES
from voicemaster.config.settings import Settings
from voicemaster.questions.model import Entry
from voicemaster.screen import DEFAULT_PORT
from voicemaster.store import Store


def add_command(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from voicemaster.speech.hearing.engines import ENGINES

    serve = commands.add_parser(
        "serve", help='wait, always ready, until someone says a start phrase ("Quiz starten"); then play'
    )
    serve.add_argument(
        "--lang", default=None, help='the languages a start is heard in, e.g. "de,en" (default: [serve] languages)'
    )
    serve.add_argument("--engine", default="auto", choices=ENGINES, help="auto: Vosk if its model is installed")
    serve.add_argument("--log", type=Path, help="append every step (waiting and games) to this JSON-lines file")
    serve.add_argument("--games", type=int, default=None, help="stop after so many games (default: never)")
    serve.add_argument("--screen", action="store_true", help="show the page for the room (default: [serve] screen)")
    serve.add_argument("--screen-host", default=None, metavar="ADDRESS", help="default: [serve] screen_host")
    serve.add_argument("--port", type=screen_cli.port, default=DEFAULT_PORT, help=f"the screen's port ({DEFAULT_PORT})")
    phones_cli.add_flags(serve)  # --phones: default [serve] phones
    serve.set_defaults(run=serve_command)


def listening_languages(args: argparse.Namespace, configured: tuple[str, ...]) -> tuple[str, ...] | None:
    """The languages `--lang` names, or the settings'; None (said why) for a language voicemaster does not speak."""
    if args.lang is None:
        return configured
    chosen = tuple(dict.fromkeys(part.strip() for part in args.lang.split(",") if part.strip()))
    wrong = [language for language in chosen if language not in LANGUAGES]
    if wrong or not chosen:
        expected = f"expected some of {', '.join(LANGUAGES)}, e.g. de,en"
        print(f"voicemaster: --lang {args.lang!r}: {expected}.", file=sys.stderr)
        return None
    return chosen


def serve_command(args: argparse.Namespace) -> int:
    from voicemaster.cli.voices import check_voice

    settings = settings_for(args)
    languages = listening_languages(args, settings.serve.listening(settings.game.language))
    if languages is None:
        return 2
    for language in languages:  # every voice it may speak with, found at start, not when a start is said back
        check_voice(settings, language, settings_files(args))
    found: dict[str, Entry] = {}
    playable = []
    for language in languages:
        entries = question_cli.playable_questions(language)
        if entries is not None:
            playable.append(language)
            found |= {entry.id: entry for entry in entries}
    if not playable:
        return 2
    if args.games is not None and args.games < 1:
        print("voicemaster: --games: at least 1 (or leave it out: serve never stops).", file=sys.stderr)
        return 2
    # Opened before the model loads: a second quizmaster on the same games is refused at once.
    with Store(exclusive=True, notify=warn) as store:
        return _serve_with(args, settings, tuple(playable), tuple(found.values()), store)


def _serve_with(
    args: argparse.Namespace, settings: Settings, languages: tuple[str, ...], entries: tuple[Entry, ...], store: Store
) -> int:
    from voicemaster.serve.live import serve
    from voicemaster.speech.devices.portaudio import divert_native_stderr
    from voicemaster.speech.hearing.engines import open_recognizer

    divert_native_stderr()
    shown = argparse.Namespace(
        screen=args.screen or settings.serve.screen,
        screen_host=args.screen_host or settings.serve.screen_host,
        port=args.port,
    )
    joining = argparse.Namespace(phones=args.phones or settings.serve.phones, phones_port=args.phones_port)

    def waiting() -> int:
        # While waiting, the page shows its own address as a QR code: a guest's phone opens it to follow along; with
        # the phones, this computer's own browser shows where they join, for the whole time it serves (one code).
        with (
            phones_cli.phones_for(joining, languages[0]) as phones,
            screen_cli.screen_for(
                shown, languages[0], entries, live=True, phones_url=phones.url if phones else None, shows_address=True
            ) as shown_screen,
        ):
            watch, screen = phones_cli.with_phones(phones, *shown_screen, languages[0], entries)
            serve(
                settings,
                languages=languages,
                entries=entries,
                recognizer=open_recognizer(args.engine, languages[0]),
                store=store,
                tell=lambda line: print(line, flush=True),
                log=args.log,
                notify=warn,
                watch=watch,
                screen=screen,
                games=args.games,
                phones=phones,
            )
        return 0

    return run_game(
        waiting,
        kept="A game under way is kept; it is offered again when the quizmaster starts.",
        stopped="A game under way is stored and offered again at the next start.",
    )
