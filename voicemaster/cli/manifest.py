"""A manifest of recordings for `voicemaster hear --manifest`: one JSON object a line saying what each recording is
heard in, so that anyone can measure the game on their own recordings and rooms with one model load for all.

Each line: `file` (relative to the manifest's folder unless absolute), `lang`, `context`, and `options` ("A|B|C|D"
or a list) and `names` likewise where the context has them. `intent` and `value` may say what the recording means;
`bench asr` counts against them and `hear` ignores them. A line that is wrong is refused with its file, its line
number and the field, because a person wrote it and must find it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from voicemaster.config.files import LANGUAGES
from voicemaster.dialogue.meaning import Context, ContextName, Intent

FIELDS = frozenset({"file", "lang", "context", "options", "names", "intent", "value", "text"})


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
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ManifestError(f"{path}: cannot read the manifest: {error}") from None
    return list(_entries(path, lines))


def _entries(path: Path, lines: list[str]) -> Iterator[ManifestEntry]:
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield _entry(path, number, line)


def _entry(path: Path, number: int, line: str) -> ManifestEntry:
    where = f"{path}:{number}"
    try:
        fields = json.loads(line)
    except json.JSONDecodeError as error:
        raise ManifestError(f"{where}: not a JSON object: {error.msg}") from None
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
    return value.strip()


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
    return tuple(item.strip() for item in items if isinstance(item, str) and item.strip())
