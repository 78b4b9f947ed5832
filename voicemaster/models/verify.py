"""Whether an installed model is intact, and finding one: what `voicemaster models verify` and list report, and
what the rest of the program asks ("the Whisper model for German, or what to install").

Each install records the size and sha256 of every file it put in place (`.voicemaster-install.json`), so a check
can tell a corrupt Vosk model from an intact one although Alpha Cephei publishes no per-file sums.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from voicemaster.file_reading import READ_ERRORS, open_regular, read_json
from voicemaster.models import derived
from voicemaster.models.derived import REMAKE_HINT
from voicemaster.models.manifest import MULTILINGUAL, ModelMissing, ModelSpec, load_manifest, models_dir, resolve

RECORD = ".voicemaster-install.json"
"""The record an install leaves in the model's folder: every file's size and sha256."""
CHUNK = 1 << 20
"""Bytes read or copied at a time."""
RECORD_MOST_BYTES = 10_000_000
"""A record larger than this is not read: ours name each file in a line."""


@dataclass(frozen=True)
class Check:
    """What `verify` found for one model."""

    spec: ModelSpec
    path: Path
    present: bool
    missing: tuple[str, ...] = ()
    corrupt: tuple[str, ...] = ()
    checked: int = 0
    unmade: tuple[str, ...] = ()
    """Files set-up makes from the model (`derived.py`) that are missing or differ from what it recorded."""

    @property
    def installed(self) -> bool:
        """The model's own files are intact (what set-up makes from them may still be missing)."""
        return self.present and not self.missing and not self.corrupt

    @property
    def ok(self) -> bool:
        return self.installed and not self.unmade

    def describe(self) -> str:
        if not self.present:
            return "not installed"
        if self.ok:
            return f"ok ({self.checked} files checked)"
        problems = [f"missing {', '.join(self.missing)}"] if self.missing else []
        problems += [f"corrupt (size or sha256 differs) {', '.join(self.corrupt)}"] if self.corrupt else []
        repairs = [f"Repair with: {self.spec.install_hint()}"] if problems else []
        if self.unmade:
            problems.append(f"missing or damaged (made by set-up from the model) {', '.join(self.unmade)}")
            repairs.append(f"Make {'them' if len(self.unmade) > 1 else 'it'} again with: {REMAKE_HINT}")
        return f"{'; '.join(problems)}. {' '.join(repairs)}"


# What the rest of the program asks


def installed_path(
    name: str, *, manifest: Mapping[str, ModelSpec] | None = None, root: Path | None = None
) -> Path | None:
    """The model's folder if it is installed with all its files at their sizes (no hashing: this runs at start-up)."""
    spec = resolve(name, manifest or load_manifest())
    status = check(spec, root or models_dir(), full=False)
    # What set-up makes from the model is its loader's to ask for, in words that name the file and the command.
    return status.path if status.installed else None


def find_model(
    engine: str, language: str, *, manifest: Mapping[str, ModelSpec] | None = None, root: Path | None = None
) -> Path | None:
    """An installed model of this engine that hears this language; one for the language itself comes first."""
    manifest = manifest or load_manifest()
    candidates = [spec for spec in manifest.values() if spec.engine == engine and spec.serves(language)]
    candidates.sort(key=lambda spec: spec.language == MULTILINGUAL)
    for spec in candidates:
        path = installed_path(spec.name, manifest=manifest, root=root)
        if path is not None:
            return path
    return None


def require_model(
    engine: str, language: str, *, manifest: Mapping[str, ModelSpec] | None = None, root: Path | None = None
) -> Path:
    """Like `find_model`, but raises `ModelMissing` saying which command installs a fitting model."""
    manifest = manifest or load_manifest()
    root = root or models_dir()
    path = find_model(engine, language, manifest=manifest, root=root)
    if path is not None:
        return path
    fitting = [spec for spec in manifest.values() if spec.engine == engine and spec.serves(language)]
    if not fitting:
        raise ModelMissing(f"the model manifest lists no {engine} model for language {language!r}")
    # A model set-up installs comes with the others a game needs (the voices): one command for a first run.
    hint = "voicemaster models setup" if fitting[0].setup else fitting[0].install_hint()
    raise ModelMissing(f"no {engine} model for language {language!r} is installed in {root}. Install one with: {hint}")


def check(spec: ModelSpec, root: Path, *, full: bool = True) -> Check:
    """Compares an installed model with the manifest and with the sums recorded when it was installed.

    `full` hashes every file; without it only presence and sizes are compared.
    """
    path = root / spec.name
    if not path.is_dir():
        return Check(spec, path, present=False)
    expected = _read_record(path)
    for file in spec.files:
        recorded_size, recorded_sha = expected.get(file.path, (None, None))
        size = file.size if file.size is not None else recorded_size
        expected[file.path] = (size, file.sha256 if file.sha256 is not None else recorded_sha)
    missing, corrupt = [], []
    for relative, (size, sha256) in sorted(expected.items()):
        file_path = path / relative
        if not file_path.is_file():
            missing.append(relative)
        elif (size is not None and file_path.stat().st_size != size) or (
            full and sha256 is not None and file_sha256(file_path) != sha256
        ):
            corrupt.append(relative)
    unmade = _unmade(spec, path, full=full)
    checked = len(expected) + len(spec.derived)
    return Check(spec, path, True, tuple(missing), tuple(corrupt), checked=checked, unmade=unmade)


def _unmade(spec: ModelSpec, path: Path, *, full: bool) -> tuple[str, ...]:
    """The derived files that are missing or differ from the record set-up wrote (sums too, when `full`)."""
    unmade = derived.unmade(spec, path)
    record = derived.read_record(path)
    if not full or record is None:
        return unmade
    damaged = tuple(
        name for name in spec.derived if name not in unmade and file_sha256(path / name) != record.files[name][1]
    )
    return unmade + damaged


def verify(manifest: Mapping[str, ModelSpec], root: Path) -> list[Check]:
    """Full checks of every model that has a folder in `root`."""
    return [status for spec in manifest.values() if (status := check(spec, root)).present]


def _read_record(path: Path) -> dict[str, tuple[int | None, str | None]]:
    try:
        data = read_json(path / RECORD, RECORD_MOST_BYTES)
        return {name: (entry["size"], entry["sha256"]) for name, entry in data["files"].items()}
    except (*READ_ERRORS, KeyError, TypeError, AttributeError):
        # Installed by hand, or the record itself is damaged: the manifest's list still applies.
        return {}


def file_sha256(path: Path) -> str:
    """The file's sha256; a FIFO or a device is refused unread (`file_reading.open_regular`), never hashed for ever."""
    digest = hashlib.sha256()
    with open_regular(path) as file:
        while chunk := file.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()
