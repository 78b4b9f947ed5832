"""Reading a file that someone else made: the one bounded reader for every text and JSON file voicemaster reads
(settings, packs, imports, manifests, stored games, the check cache, a model's record and tokenizer).

- Only a regular file is read. A FIFO, a device (/dev/zero), a socket, or a symbolic link to one is refused before
  any byte is read, and a FIFO is never waited on (opened with O_NONBLOCK, then looked at).
- At most `limit` bytes are read: a larger file is refused unread, one that grows while it is read stops there.
- Text is UTF-8; a byte-order mark at its start (Notepad's) is dropped.
- JSON is nested at most `MOST_DEPTH` deep and its numbers have at most `MOST_DIGITS` characters: deeper or longer
  is refused with a message, never a RecursionError or Python's own refusal of a 5000-digit int.

What goes wrong is a `FileRefused` (an OSError: not a regular file, too large) or an `Unreadable` (a ValueError: not
UTF-8, not JSON, too deep); `problem(error)` puts any of them, or the system's refusal to open the file, in words
that follow the file's name on one line: "mine.jsonl: a FIFO, not a regular file; give the path of the file itself".
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from itertools import accumulate
from pathlib import Path
from typing import Any, BinaryIO

MOST_DEPTH = 100
"""Lists and objects nested deeper than this are refused: our files nest a dozen deep at most."""
MOST_DIGITS = 100
"""A JSON number of more characters is refused: Python's int() fails past 4300 digits, and no count we read needs
more than twenty."""
READ_ERRORS = (OSError, ValueError)
"""What the readers here raise for a file that cannot be used (`problem` words each of them)."""
_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a disk device"),
    (stat.S_ISSOCK, "a socket"),
)


class FileRefused(OSError):
    """A file that is not read: not a regular file, or larger than the reader's bound. str() is the reason."""


class Unreadable(ValueError):
    """A file that was read but cannot be used as what it should be (not UTF-8, not JSON, nested too deeply); str()
    says why, in a user's words."""


def special_kind(mode: int) -> str | None:
    """What a file of this `st_mode` is, when it is no regular file nor folder ("a FIFO", "a device"...)."""
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def open_regular(path: Path) -> BinaryIO:
    """A regular file opened for reading. A FIFO, a device (/dev/zero, /dev/urandom) or a symlink to one is refused
    without waiting or reading: such a file has no end, or blocks until a writer comes."""
    # O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, for ever.
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        info = os.fstat(descriptor)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(path))
        kind = special_kind(info.st_mode)
        if kind is not None:
            raise FileRefused(f"not a regular file ({kind}); give the path of the file itself")
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def read_bounded(path: Path, limit: int) -> bytes:
    """A regular file's bytes (`open_regular`), at most `limit` of them: a larger file is refused."""
    with open_regular(path) as file:
        size = os.fstat(file.fileno()).st_size
        if size > limit:
            raise FileRefused(f"{megabytes(size)} is too large (at most {megabytes(limit)})")
        data = file.read(limit + 1)  # a file growing while it is read still stops at the bound
        if len(data) > limit:
            raise FileRefused(f"grew past {megabytes(limit)} while it was read")
        return data


def megabytes(size: int) -> str:
    return f"{size / 1e6:.1f} MB" if size < 10_000_000 else f"{size // 1_000_000} MB"


def decode_text(data: bytes) -> str:
    """UTF-8 text, without the byte-order mark some editors put first; `Unreadable` if it is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise Unreadable(f"not UTF-8 text (byte {error.start}): save it as UTF-8") from None


def read_text(path: Path, limit: int) -> str:
    """A regular file of at most `limit` bytes, as UTF-8 text (`read_bounded`, `decode_text`)."""
    return decode_text(read_bounded(path, limit))


def parse_json(text: str) -> Any:
    """JSON text's value; `Unreadable`, in a user's words, for text that is not JSON, nests deeper than
    `MOST_DEPTH` or holds a number longer than `MOST_DIGITS`."""
    deepest = _deepest(text)
    if deepest > MOST_DEPTH:
        raise Unreadable(f"not usable JSON: lists or objects nested {deepest} deep (at most {MOST_DEPTH})")
    try:
        return json.loads(text, parse_int=_whole, parse_float=_decimal)
    except json.JSONDecodeError as error:
        raise Unreadable(f"not JSON ({error.msg}, line {error.lineno} column {error.colno})") from None
    except RecursionError:  # the scan above bounds the depth; a fallback all the same
        raise Unreadable("not usable JSON: lists or objects nested too deeply") from None


def read_json(path: Path, limit: int) -> Any:
    """A regular file of at most `limit` bytes, as JSON (`read_text`, `parse_json`)."""
    return parse_json(read_text(path, limit))


def problem(error: BaseException) -> str:
    """What a reader here (or the system, opening the file) refused, in words that follow the file's name."""
    if isinstance(error, (FileRefused, Unreadable)):
        return str(error)
    if isinstance(error, FileNotFoundError):
        target = _dangling_target(error.filename)
        if target is not None:
            return f"a symbolic link to {target}, which does not exist: remove the link, or point it to the file"
        return "no such file"
    if isinstance(error, IsADirectoryError):
        return "is a folder, not a file: give the path of the file itself"
    if isinstance(error, OSError) and error.errno == errno.ELOOP:
        return "a symbolic link that leads round to itself (directly or through other links): remove it"
    if isinstance(error, PermissionError):
        return f"cannot be read ({error.strerror}): make it readable (chmod u+r)"
    if isinstance(error, OSError):
        return f"cannot be read ({error.strerror or error})"
    return str(error)


def _dangling_target(filename: object) -> str | None:
    """Where a symbolic link that leads nowhere points; None for anything else."""
    if not isinstance(filename, str) or not os.path.islink(filename):
        return None
    return os.readlink(filename)


_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_BRACKETS = re.compile(r"[\[\]{}]")


def _deepest(text: str) -> int:
    """How deep the lists and objects of JSON text nest (brackets within strings not counted)."""
    if text.count("[") + text.count("{") <= MOST_DEPTH:
        return 0  # cannot nest deeper than the bound: no scan needed
    steps = (1 if bracket in "[{" else -1 for bracket in _BRACKETS.findall(_STRING.sub("", text)))
    return max(accumulate(steps), default=0)


def _whole(digits: str) -> int:
    if len(digits) > MOST_DIGITS:
        raise Unreadable(f"not usable JSON: a number of {len(digits)} digits (at most {MOST_DIGITS})")
    return int(digits)


def _decimal(digits: str) -> float:
    if len(digits) > MOST_DIGITS:
        raise Unreadable(f"not usable JSON: a number of {len(digits)} characters (at most {MOST_DIGITS})")
    return float(digits)
