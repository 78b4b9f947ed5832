"""A manifest of recordings for `voicemaster hear --manifest`: one JSON object a line saying what each recording is
heard in, so that anyone can measure the game on their own recordings and rooms with one model load for all.

Each line: `file` (relative to the manifest's folder unless absolute), `lang`, `context`, and `options` ("A|B|C|D"
or a list) and `names` likewise where the context has them. `intent` and `value` may say what the recording means;
`bench asr` counts against them and `hear` ignores them. A line that is wrong is refused with its file, its line
number and the field, because a person wrote it and must find it. The file is read by the bounded reader
(`voicemaster.file_reading`: a FIFO or a device is refused unread, a UTF-8 byte-order mark dropped), and each text
in it is bounded: a manifest names recordings, and an option of megabytes would only keep the recognizer busy.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from voicemaster.config.files import LANGUAGES
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.file_reading import READ_ERRORS, Unreadable, parse_json, problem, read_text

FIELDS = frozenset({"file", "lang", "context", "options", "names", "intent", "value", "text"})
MANIFEST_MOST_BYTES = 20_000_000
"""A manifest larger than this is refused unread: a line takes some hundred bytes."""
TEXT_MOST_CHARACTERS = 500
"""An option, a name or another text of a line: a pack's options are twelve words at most."""
FILE_MOST_CHARACTERS = 4096
"""A recording's path: the longest path the system takes."""
CHOICES_MOST = 26
"""Options or names a line gives: a game offers four options and six players at most."""


class ManifestError(ValueError):
    """A manifest line that cannot be read; the message names the file, the line and the field."""


@dataclass(frozen=True)
class ManifestEntry:
    """One recording and what it is heard in."""

    file: Path
    """Where the recording is, resolved against the manifest's folder."""
    said: str
    """The file as the manifest writes it: what the output names."""
    context: Context
    line: int
    intent: str | None = None
    """What the recording means, when the manifest says so (for `bench asr`)."""
    value: str | None = None
    text: str = ""


def read_manifest(path: Path) -> list[ManifestEntry]:
    """Every entry of the manifest, or `ManifestError` for the first wrong line (an unreadable file too)."""
    try:
        lines = read_text(path, MANIFEST_MOST_BYTES).splitlines()
    except READ_ERRORS as error:
        raise ManifestError(f"{path}: cannot read the manifest: {problem(error)}") from None
    return list(_entries(path, lines))


def _entries(path: Path, lines: list[str]) -> Iterator[ManifestEntry]:
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield _entry(path, number, line)


def _entry(path: Path, number: int, line: str) -> ManifestEntry:
    where = f"{path}:{number}"
    try:
        fields = parse_json(line)
    except Unreadable as error:  # not JSON, or nested or numbered beyond the reader's bounds
        raise ManifestError(f"{where}: {error}") from None
    if not isinstance(fields, dict):
        raise ManifestError(f"{where}: not a JSON object")
    for unknown in sorted(set(fields) - FIELDS):
        raise ManifestError(f"{where}: field {unknown!r} is unknown; fields: {', '.join(sorted(FIELDS))}")
    said = _text(fields, "file", where, required=True)
    language = _text(fields, "lang", where, required=True)
    if language not in LANGUAGES:
        raise ManifestError(f"{where}: field 'lang': {language!r} is not one of {', '.join(LANGUAGES)}")
    context = _text(fields, "context", where, required=True)
    if context not in {name.value for name in ContextName}:
        known = ", ".join(name.value for name in ContextName)
        raise ManifestError(f"{where}: field 'context': {context!r} is not one of {known}")
    intent = _text(fields, "intent", where) or None
    if intent is not None and intent not in {name.value for name in Intent}:
        raise ManifestError(f"{where}: field 'intent': {intent!r} is not an intent")
    file = Path(said)
    return ManifestEntry(
        file if file.is_absolute() else path.parent / file,
        said,
        Context(ContextName(context), language, _choices(fields, "options", where), _choices(fields, "names", where)),
        number,
        intent,
        _text(fields, "value", where) or None,
        _text(fields, "text", where),
    )


def _text(fields: dict[str, object], name: str, where: str, *, required: bool = False) -> str:
    value = fields.get(name)
    if value is None:
        if required:
            raise ManifestError(f"{where}: field {name!r} is missing")
        return ""
    if not isinstance(value, str) or (required and not value.strip()):
        raise ManifestError(f"{where}: field {name!r} must be a non-empty text")
    _bounded(value, name, where, FILE_MOST_CHARACTERS if name == "file" else TEXT_MOST_CHARACTERS)
    return value.strip()


def _bounded(text: str, name: str, where: str, most: int) -> None:
    if len(text) > most:
        raise ManifestError(
            f"{where}: field {name!r}: a text of {len(text):,} characters; at most {most:,} (shorten it)"
        )


def _choices(fields: dict[str, object], name: str, where: str) -> tuple[str, ...]:
    """The options (or names) in order, from a text like "A|B|C|D" or from a list; blanks dropped."""
    value = fields.get(name)
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[object] = list(value.split("|"))
    elif isinstance(value, list):
        items = value
    else:
        raise ManifestError(f"{where}: field {name!r} must be a text like 'A|B|C|D' or a list of texts")
    if not all(isinstance(item, str) for item in items):
        raise ManifestError(f"{where}: field {name!r}: every item must be a text")
    if len(items) > CHOICES_MOST:
        raise ManifestError(f"{where}: field {name!r}: {len(items)} items; at most {CHOICES_MOST}")
    for item in items:
        _bounded(str(item), name, where, TEXT_MOST_CHARACTERS)
    return tuple(item.strip() for item in items if isinstance(item, str) and item.strip())
