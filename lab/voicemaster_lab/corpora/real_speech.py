"""Real people's speech for the tests and `voicemaster bench asr`: short clips in German, English and French, cut from
recordings in four Debian packages (see `real_speech_sources`: KLettres' voices, and Asterisk's telephone prompts by
Allison, June and Armelle).

License: the recordings are GPL-2+ (klettres-data) and CC-BY-SA-3.0 (asterisk-core-sounds). So they are never
committed and never go into the wheel: set-up (`make setup`, which runs `python -m voicemaster_lab.corpora.real_speech`)
fetches the packages with `apt-get download`, converts every recording used and installs them in `real-speech/` of
the models folder (`models/real-speech/` in a checkout, git-ignored), or in `$VOICEMASTER_REAL_SPEECH` if that is
set. The folder holds 16 kHz mono 16-bit WAV files (the telephone prompts stay telephone-band: 8 kHz upsampled),
`manifest.jsonl` (one `RealClip` a line: where it comes from, what is said, what kind of thing it is and what a game
should make of it) and `installed.json`, which records the packages' versions and checksums of the manifest and of
the recipe, so that set-up does nothing when the set is in place and rebuilds it when the recipe changes.

Words left out, so that a clip means one thing only: none any more. Every word is an option's text at its place, and
an option is what the player names, whatever else it may sound like; if "Key" is heard as the letter C, that is a
recognition error `bench asr` counts.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

from voicemaster.speech.audio import Audio
from voicemaster_lab.corpora import real_speech_sources as sources
from voicemaster_lab.corpora.real_speech_sources import (
    PACKAGES,
    Package,
    RealClip,
    real_speech_dir,
    select,
)

ENVIRONMENT, KINDS, LETTERS, LETTER_OPTIONS = (
    sources.ENVIRONMENT,
    sources.KINDS,
    sources.LETTERS,
    sources.LETTER_OPTIONS,
)
LANGUAGES = ("de", "en", "fr")
SOURCES = tuple(package.source for package in PACKAGES)
RATE = 16_000
MANIFEST = "manifest.jsonl"
STAMP = "installed.json"
BUILD_VERSION = 3
"""Raise it whenever a change here changes the files (their audio or names), so that installed sets are built again."""
PADDING_SECONDS = 0.2
"""Silence put around a telephone prompt, which is cut to the word: a voice-activity detector leaves about this."""
SETUP_HINT = "run `make setup`, or `.venv/bin/python -m voicemaster_lab.corpora.real_speech`"
PACKAGE_NAMES = " ".join(package.name for package in PACKAGES)
APT_HINT = (
    f"check the Debian sources (as root: `apt-get update`) or install them with `apt-get install {PACKAGE_NAMES}`, "
    f"then {SETUP_HINT}"
)


class RealSpeechUnavailable(RuntimeError):
    """The set is not installed, or cannot be."""


def load(
    languages: Sequence[str] = LANGUAGES, folder: Path | None = None, *, sources: Sequence[str] = SOURCES
) -> tuple[RealClip, ...]:
    unknown = sorted(set(languages) - set(LANGUAGES))
    if unknown:
        raise ValueError(f"no real speech in {', '.join(unknown)}; languages: {', '.join(LANGUAGES)}")
    manifest = (folder or real_speech_dir()) / MANIFEST
    if not manifest.is_file():
        raise RealSpeechUnavailable(f"the real speech set is not installed ({manifest} is missing): {SETUP_HINT}")
    names = {field.name for field in fields(RealClip)}
    clips = []
    for line in manifest.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if set(row) != names:
            raise RealSpeechUnavailable(f"{manifest} was written by another version: {SETUP_HINT}")
        clip = RealClip(**{**row, "options": tuple(row["options"])})
        if clip.language in languages and clip.source in sources:
            clips.append(clip)
    return tuple(clips)


def install(target: Path | None = None) -> Path:
    """Fetch, convert and install the set into `target` (default `real_speech_dir()`), unless it is there already."""
    target = target or real_speech_dir()
    if _installed(target):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    # Built beside the target and renamed into place, so a failure never leaves a set that looks installed.
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
    try:
        with tempfile.TemporaryDirectory(prefix="real-speech-") as download:
            roots, versions = _download(Path(download))
            _build(roots, versions, building)
        building.chmod(0o755)  # mkdtemp makes it private; the set is data anyone may read
        if target.exists():
            stale = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
            target.rename(stale / target.name)
            building.rename(target)
            shutil.rmtree(stale)
        else:
            building.rename(target)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return target


def _recipe() -> str:
    """A checksum of what the set is made from, so that changing the selection rebuilds it."""
    return hashlib.sha256(json.dumps([BUILD_VERSION, RATE, PADDING_SECONDS, *sources.RECIPE]).encode()).hexdigest()


def _installed(folder: Path) -> bool:
    try:
        stamp = json.loads((folder / STAMP).read_text(encoding="utf-8"))
        manifest = (folder / MANIFEST).read_bytes()
        clips = load(folder=folder)
    except (OSError, ValueError, RealSpeechUnavailable):
        return False
    if stamp.get("recipe") != _recipe() or stamp.get("manifest_sha256") != hashlib.sha256(manifest).hexdigest():
        return False
    return all((folder / clip.file).is_file() for clip in clips)


def _download(folder: Path) -> tuple[dict[Package, Path], dict[str, str]]:
    """Each package's files (extracted under `folder`) and its version, fetched with apt-get."""
    names = [package.name for package in PACKAGES]
    try:
        fetched = subprocess.run(
            ["apt-get", "download", *names], cwd=folder, capture_output=True, text=True, timeout=900, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RealSpeechUnavailable(f"apt-get download {' '.join(names)} failed: {error}; {APT_HINT}") from error
    debs = {package: sorted(folder.glob(f"{package.name}_*.deb")) for package in PACKAGES}
    if fetched.returncode != 0 or any(len(found) != 1 for found in debs.values()):
        said = " ".join(fetched.stderr.split()) or f"exit status {fetched.returncode}"
        raise RealSpeechUnavailable(f"apt-get download {' '.join(names)} failed: {said}; {APT_HINT}")
    roots, versions = {}, {}
    for package, (deb,) in debs.items():
        versions[package.name] = subprocess.run(
            ["dpkg-deb", "--field", str(deb), "Version"], capture_output=True, text=True, check=True
        ).stdout.strip()
        roots[package] = folder / package.name
        subprocess.run(["dpkg-deb", "--extract", str(deb), str(roots[package])], check=True)
    return roots, versions


def _build(roots: dict[Package, Path], versions: dict[str, str], folder: Path) -> None:
    rows = []
    for source, clip in select(roots):
        (folder / clip.file).parent.mkdir(parents=True, exist_ok=True)
        padding = 0.0 if clip.source == sources.KLETTRES.source else PADDING_SECONDS
        _convert(source, padding).write(folder / clip.file)
        rows.append(json.dumps(asdict(clip), ensure_ascii=False))
    manifest = "".join(f"{row}\n" for row in rows).encode()
    (folder / MANIFEST).write_bytes(manifest)
    stamp: dict[str, Any] = {
        "packages": versions,
        "manifest_sha256": hashlib.sha256(manifest).hexdigest(),
        "recipe": _recipe(),
    }
    (folder / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")


def _convert(source: Path, padding: float = 0.0) -> Audio:
    """A recording (Ogg Vorbis, WAV or raw GSM) as 16 kHz mono 16-bit audio: channels averaged, level left as the
    speaker gave it, `padding` seconds of silence either side."""
    try:
        import av
        import numpy as np
    except ImportError as error:
        raise RealSpeechUnavailable(f"converting the recordings needs {error.name}: {SETUP_HINT}") from error
    resampler = av.AudioResampler(format="fltp", rate=RATE)
    chunks = []
    with av.open(str(source)) as container:
        for frame in container.decode(audio=0):
            chunks += [resampled.to_ndarray() for resampled in resampler.resample(frame)]
        chunks += [resampled.to_ndarray() for resampled in resampler.resample(None)]
    # Vorbis decodes a little past full scale on loud peaks.
    mono = np.clip(np.concatenate(chunks, axis=1).mean(axis=0), -1.0, 1.0)
    silence = np.zeros(round(padding * RATE))
    mono = np.concatenate([silence, mono, silence])
    return Audio(np.round(mono * 32767).astype("<i2").tobytes(), RATE)


def main() -> None:
    try:
        folder = install()
    except RealSpeechUnavailable as error:
        print(f"setup: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    clips = load(folder=folder)
    counts = Counter((clip.source, clip.language) for clip in clips)
    listed = ", ".join(f"{source} {language} {count}" for (source, language), count in sorted(counts.items()))
    print(f"real speech: {len(clips)} clips ({listed}) in {folder}")


if __name__ == "__main__":
    main()
