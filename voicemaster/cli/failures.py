"""What a user sees when a command fails: one line that says what to do, never a traceback.

Our own errors (a bad setting, a missing model, a busy or unwritable store...) carry a message written for the user;
they become `voicemaster: MESSAGE` and exit 2. Anything else is a bug: the user gets one line naming a log file
that holds the traceback (in the data folder, else the temporary folder), to send with a report; exit 1. Ctrl-C
ends quietly with 130, as a shell expects.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TextIO

from voicemaster import __version__, paths
from voicemaster.store import StoreUnwritable

BUG = 1
USER_ERROR = 2
INTERRUPTED = 130


USERS_ERRORS = (
    ("voicemaster.config.files", "ConfigError"),
    ("voicemaster.rules.errors", "IllegalAction"),
    ("voicemaster.questions.importers", "ImportFailed"),
    ("voicemaster.models.manifest", "ModelError"),
    ("voicemaster.speech.hearing.recognition", "RecognizerUnavailable"),
    ("voicemaster.speech.voice.synthesis", "SpeechUnavailable"),
    ("voicemaster.speech.devices.interfaces", "AudioUnavailable"),
    ("voicemaster.store", "StoreError"),
    ("voicemaster.screen", "ScreenUnavailable"),
    ("voicemaster.phones", "PhonesUnavailable"),
    ("voicemaster.speakable", "Unspeakable"),
)
"""The errors whose message is meant for the user, by module and name: only those of modules already imported are
looked at (an error can only come from a module that was), so that a failed command does not load the speech stack
(and numpy) to find out what it was."""


def _is_ours(error: BaseException) -> bool:
    return any(
        isinstance(error, getattr(sys.modules[module], name)) for module, name in USERS_ERRORS if module in sys.modules
    )


def guarded(run: Callable[[], int], argv: Sequence[str], err: TextIO | None = None) -> int:
    """Runs a command; returns its exit status, or the failure's, after one line on `err` (stderr)."""
    try:
        return run()
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:  # `voicemaster history | head`: the reader has all it wanted
        _quiet_stdout()
        return 0
    except Exception as error:  # the one place every failure is turned into a line for the user
        out = err or sys.stderr  # looked up now: a command may have moved standard error (devices.py)
        if _is_ours(error):
            print(f"voicemaster: {_one_line(str(error))}", file=out)
            return USER_ERROR
        if isinstance(error, OSError) and error.strerror:  # the system's own words and the file it concerns
            where = f" ({error.filename})" if error.filename else ""
            print(f"voicemaster: {_one_line(error.strerror + where)}", file=out)
            return USER_ERROR
        log = write_bug_log(error, argv)
        print(
            f"voicemaster: this is a bug, sorry ({type(error).__name__}). What happened is in {log}; "
            "please send that file with your report.",
            file=out,
        )
        return BUG


def write_bug_log(error: BaseException, argv: Sequence[str]) -> Path:
    """The traceback, in a new file of the data folder (or, if that cannot be written, the temporary folder): whole
    or not at all, written under a temporary name and renamed, so that a full disk leaves no empty log behind."""
    now = datetime.datetime.now()
    text = (
        f"voicemaster {__version__}, Python {sys.version.split()[0]}, {sys.platform}, {now.isoformat()}\n"
        f"command: voicemaster {' '.join(argv)}\n\n" + "".join(traceback.format_exception(error))
    )
    name = f"bug-{now:%Y%m%d-%H%M%S}-{os.getpid()}.log"
    for folder in (paths.data_dir() / "logs", Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            return _written_whole(folder / name, text)
        except OSError:
            continue
    return Path("(nowhere: neither the data folder nor the temporary folder can be written)")


def _written_whole(path: Path, text: str) -> Path:
    handle, partial = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".partial", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise
    return path


def _one_line(message: str) -> str:
    """The message on one line, and printable: a file name that is not UTF-8 (its bytes kept by Python as lone
    surrogates) is shown with \\x escapes, where printing it would raise UnicodeEncodeError."""
    try:
        data = message.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that stands for no byte (one from JSON's "\\ud800")
        data = message.encode("utf-8", "backslashreplace")
    return " ".join(data.decode("utf-8", "backslashreplace").split())


def _quiet_stdout() -> None:
    """Python flushes stdout again at exit and would complain of the broken pipe a second time."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def warn(notice: str) -> None:
    """A notice that is no failure (a store set aside, a setting ignored), said on stderr as the command goes on."""
    print(f"voicemaster: {notice}", file=sys.stderr, flush=True)


def run_game(game: Callable[[], int], *, kept: str, stopped: str) -> int:
    """`game`'s exit status, or, when a part it needs fails, one line on stderr and 2: a store it cannot write says
    whether the game is kept (`unsaved`); a recognizer, a voice or an audio device missing or lost says the fault and
    `kept`, what becomes of a game under way. Ctrl-C says `stopped` and returns 130. `play` and `serve` differ only in
    those words."""
    from voicemaster.speech.devices.interfaces import AudioUnavailable
    from voicemaster.speech.hearing.recognition import RecognizerUnavailable
    from voicemaster.speech.voice.synthesis import SpeechUnavailable

    try:
        return game()
    except StoreUnwritable as error:
        print(f"voicemaster: {unsaved(error)}", file=sys.stderr)
        return 2
    except (RecognizerUnavailable, SpeechUnavailable, AudioUnavailable) as error:
        print(f"voicemaster: {error} {kept}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"voicemaster: stopped. {stopped}", file=sys.stderr)
        return 130


def unsaved(error: StoreUnwritable) -> str:
    """What a game stopped by a store it could not write says: the fault, and whether the game is kept (only if its
    file still holds it)."""
    kept = (
        "The game stopped at its last saved step; `voicemaster play` offers it again once the store is writable."
        if error.kept
        else "The game stopped and could not be kept: its file is gone, so it cannot be continued."
    )
    return f"{error} {kept}"
