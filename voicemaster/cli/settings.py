"""The settings a command runs with: the shipped defaults and the user's file, or with `--config` the defaults and
that file; for a command that speaks, with its voice checked first."""

from __future__ import annotations

import argparse
from pathlib import Path

from voicemaster.config.settings import Settings, default_paths, load_settings


def settings_for(args: argparse.Namespace) -> Settings:
    """The shipped defaults and the user's file, or with --config the defaults and that file."""
    return load_settings(settings_files(args))


def settings_files(args: argparse.Namespace) -> list[Path]:
    return default_paths() if args.config is None else [default_paths()[0], args.config]


def speaking_settings(args: argparse.Namespace, language: str | None = None) -> Settings:
    """The settings of a command that speaks: its voice checked before anything else happens."""
    from voicemaster.cli.voices import check_voice

    settings = settings_for(args)
    check_voice(settings, language or args.lang or settings.game.language, settings_files(args))
    return settings
