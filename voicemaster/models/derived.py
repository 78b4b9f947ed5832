"""Files set-up makes from an installed model (Whisper's decoder graphs), and their record.

A model's manifest entry names them (`derived = [...]`). Whoever makes them (`voicemaster models setup`, by way of
the engine's maker) writes `.voicemaster-derived.json` beside them: who made them and each file's size and sha256, so
`voicemaster models verify` finds one damaged like any model file, and a loader finds one made by another version of
its maker. Standard library only.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from voicemaster.file_reading import READ_ERRORS, read_json
from voicemaster.models.manifest import ModelSpec

DERIVED_RECORD = ".voicemaster-derived.json"
RECORD_MOST_BYTES = 1_000_000
REMAKE_HINT = "voicemaster models setup"
"""The command that makes (or makes again) every derived file of the installed models."""


@dataclass(frozen=True)
class DerivedRecord:
    made_by: str
    files: dict[str, tuple[int, str]]
    """Each file's size and sha256, by its name in the model's folder."""


def read_record(model_dir: Path) -> DerivedRecord | None:
    """What set-up wrote when it made the derived files; None when it made none (or the record is unreadable)."""
    try:
        data = read_json(model_dir / DERIVED_RECORD, RECORD_MOST_BYTES)
        files = {name: (int(entry["size"]), str(entry["sha256"])) for name, entry in data["files"].items()}
        return DerivedRecord(str(data["made_by"]), files)
    except (*READ_ERRORS, KeyError, TypeError, AttributeError):
        return None


def write_record(model_dir: Path, made_by: str, files: dict[str, tuple[int, str]]) -> None:
    """Written to a temporary name and moved into place: a record is whole or absent."""
    data = {"made_by": made_by, "files": {name: {"size": size, "sha256": sha} for name, (size, sha) in files.items()}}
    temporary = model_dir / f"{DERIVED_RECORD}.part"
    temporary.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    os.replace(temporary, model_dir / DERIVED_RECORD)


def unmade(
    spec: ModelSpec, model_dir: Path, made_by: str | None = None, needed: tuple[str, ...] | None = None
) -> tuple[str, ...]:
    """The derived files (of those `needed`; None: all) that are not there as set-up recorded making them (missing, not
    in the record, another size, or, given `made_by`, made by another maker): what set-up must make again. Sizes
    only: no hashing."""
    names = spec.derived if needed is None else tuple(name for name in spec.derived if name in needed)
    record = read_record(model_dir)
    if record is None or (made_by is not None and record.made_by != made_by):
        return names
    return tuple(
        name
        for name in names
        if name not in record.files
        or not (model_dir / name).is_file()
        or (model_dir / name).stat().st_size != record.files[name][0]
    )


def problem(spec: ModelSpec, model_dir: Path, made_by: str, needed: tuple[str, ...] | None = None) -> str | None:
    """One line saying what is wrong with the derived files a loader needs (`needed`; None: all), and what to run;
    None if nothing is."""
    missing = unmade(spec, model_dir, made_by, needed)
    if not missing:
        return None
    record = read_record(model_dir)
    names = ", ".join(missing)
    one = len(missing) == 1
    if record is not None and record.made_by != made_by:
        why = f"{'was' if one else 'were'} made by {record.made_by!r}, this voicemaster needs {made_by!r}"
    elif all(not (model_dir / name).exists() for name in missing):
        why = f"{'has' if one else 'have'} not been made"
    else:
        why = f"{'is' if one else 'are'} damaged or incomplete"
    return f"{names} in {model_dir} (made by set-up from the model) {why}: run `{REMAKE_HINT}`"
