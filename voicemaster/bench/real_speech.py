"""Real people's speech for the tests and `voicemaster bench asr`: a few dozen short clips in German, English and
French, cut from the recordings of Debian's package klettres-data (KDE's letter-learning game KLettres).

License: the recordings are GPL-2+ (Anne-Marie Mahfouf and KDE's contributors). So they are never committed and never
go into the wheel: set-up (`make setup`, which runs `python -m voicemaster.bench.real_speech`) fetches the package
with `apt-get download`, converts the chosen recordings and installs them in `real-speech/` of the models folder
(`models/real-speech/` in a checkout, git-ignored), or in `$VOICEMASTER_REAL_SPEECH` if that is set. The folder holds
16 kHz mono 16-bit WAV files, `manifest.jsonl` (one `RealClip` a line) and `installed.json`, which records the
package's version, a checksum of the manifest and of the selection below, so that set-up does nothing when the set
is in place and rebuilds it when the selection changes.

Speakers are KLettres' voices, named by their folder: `de`, `en` (KLettres' plain English voice), `en_GB` and `fr`,
one person each. What a quiz game would hear from them:

- The letters A to D, from every voice, as answers. Their options are four made-up answers (Berlin, Paris...): the
  letter still means that letter.
- Yes and no, as confirmations, where the package has them: only German "ja", and English "no" from both English
  voices. There is no "nein", no "yes", and French has neither "oui" nor "non".
- Short words as the options of a question: each said word is the answer at its place among four of them, and the
  places go round so that every letter is used. French has only syllables (LA, RI, PO...): the ones that sound like a
  word a player could give are used, with that word as the option ("Rat" for RA, "Riz" for RI, "Pot" for PO).

Words left out, so that a clip means one thing only:
- Function words, which nobody gives as an answer and which, alone, are heard as one another: de AUCH, DEM, DIE,
  DIR, IST, SEIN, VOR, WAS, WILL, WO, ZU; en ME, MY, OR, THE; fr DE, LE, ME, RE, MA, SA, DU.
- Number and yes/no words: de EIN (one), JA (a confirmation here); en NO (a confirmation here); fr PI (a number),
  SI (French for yes after a negative question), PA (sounds like "pas", a negation).
- Words a player says to agree or to think: de GUT, en WELL.
- Open syllables that rhyme with a letter's name, which said alone are as much the letter as the word: de REH (B, C,
  D), en KEY (B, C, D) and SAY (A).
- Sounds, not words: en AW, CH, TH; and French syllables that are no common word: DA, DI, LO, LU, MU, PU, RO, RU, SU.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unicodedata
import xml.etree.ElementTree as ElementTree
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from voicemaster.paths import models_dir
from voicemaster.speech.audio import Audio

PACKAGE = "klettres-data"
ENVIRONMENT = "VOICEMASTER_REAL_SPEECH"
LANGUAGES = ("de", "en", "fr")
RATE = 16_000
LETTERS = ("A", "B", "C", "D")
MANIFEST = "manifest.jsonl"
STAMP = "installed.json"
BUILD_VERSION = 1
"""Raise it whenever a change here changes the files (their audio or names), so that installed sets are built again."""
SETUP_HINT = "run `make setup`, or `.venv/bin/python -m voicemaster.bench.real_speech`"
APT_HINT = (
    f"check the Debian sources (as root: `apt-get update`) or install {PACKAGE} with `apt-get install {PACKAGE}`, "
    f"then {SETUP_HINT}"
)

SPEAKERS = {"de": "de", "en": "en", "en_GB": "en", "fr": "fr"}
"""KLettres' voice folders and the language each speaks."""
LETTER_OPTIONS = {
    "de": ("Berlin", "Paris", "Rom", "Wien"),
    "en": ("London", "Paris", "Rome", "Vienna"),
    "fr": ("Londres", "Paris", "Rome", "Vienne"),
}
CONFIRMATIONS = {
    "de": {"JA": "yes", "NEIN": "no"},
    "en": {"YES": "yes", "NO": "no"},
    "fr": {"OUI": "yes", "NON": "no"},
}
"""Yes and no as sounds.xml writes them; those the package lacks are left out."""
OPTION_WORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "de": (
        ("AFFE", "Affe"), ("BÄR", "Bär"), ("BUS", "Bus"), ("EULE", "Eule"), ("FISCH", "Fisch"), ("FRAU", "Frau"),
        ("FUß", "Fuß"), ("HAUS", "Haus"), ("HEU", "Heu"), ("HUND", "Hund"), ("KIND", "Kind"), ("LISA", "Lisa"),
        ("NASE", "Nase"), ("ÖL", "Öl"), ("OPA", "Opa"), ("PUTE", "Pute"), ("ROT", "Rot"), ("SITZ", "Sitz"),
        ("TÜR", "Tür"),
    ),
    "en": (
        ("CAR", "Car"), ("DOG", "Dog"), ("FIX", "Fix"), ("GAS", "Gas"), ("GEM", "Gem"), ("HOT", "Hot"),
        ("JET", "Jet"), ("PET", "Pet"), ("SAW", "Saw"), ("SIT", "Sit"), ("SKY", "Sky"),
    ),
    "en_GB": (
        ("ARM", "Arm"), ("BALL", "Ball"), ("CAR", "Car"), ("DOG", "Dog"), ("EAR", "Ear"), ("FIX", "Fix"),
        ("GAS", "Gas"), ("GEM", "Gem"), ("HOT", "Hot"), ("HUT", "Hut"), ("JET", "Jet"), ("PET", "Pet"),
        ("SAW", "Saw"), ("SIT", "Sit"), ("SKY", "Sky"),
    ),
    "fr": (
        ("DO", "Do"), ("MI", "Mi"), ("LA", "La"), ("RA", "Rat"), ("RI", "Riz"), ("PO", "Pot"), ("MO", "Mot"),
        ("LI", "Lit"), ("SO", "Seau"),
    ),
}  # fmt: skip
"""Per voice, the words said as options: their name in sounds.xml and the option's text as a quiz would show it."""


class RealSpeechUnavailable(RuntimeError):
    """The set is not installed, or cannot be."""


@dataclass(frozen=True)
class RealClip:
    file: str
    """Relative to the set's folder."""
    language: str
    speaker: str
    """KLettres' voice: de, en, en_GB or fr."""
    text: str
    """What is said, as sounds.xml writes it."""
    context: str
    """What the game listens for: "answer" or "confirm"."""
    options: tuple[str, ...]
    """The four options on offer, A first, in the answer context; empty in the confirm context."""
    intent: str
    value: str | None

    def path(self, folder: Path | None = None) -> Path:
        return (folder or real_speech_dir()) / self.file


def real_speech_dir() -> Path:
    configured = os.environ.get(ENVIRONMENT)
    return Path(configured).expanduser() if configured else models_dir() / "real-speech"


def load(languages: Sequence[str] = LANGUAGES, folder: Path | None = None) -> tuple[RealClip, ...]:
    unknown = sorted(set(languages) - set(LANGUAGES))
    if unknown:
        raise ValueError(f"no real speech in {', '.join(unknown)}; languages: {', '.join(LANGUAGES)}")
    manifest = (folder or real_speech_dir()) / MANIFEST
    if not manifest.is_file():
        raise RealSpeechUnavailable(f"the real speech set is not installed ({manifest} is missing): {SETUP_HINT}")
    clips = []
    for line in manifest.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        clip = RealClip(**{**row, "options": tuple(row["options"])})
        if clip.language in languages:
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
        with tempfile.TemporaryDirectory(prefix="klettres-") as download:
            package, version = _download(Path(download))
            _build(package, version, building)
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
    selection = [BUILD_VERSION, RATE, SPEAKERS, LETTER_OPTIONS, CONFIRMATIONS, OPTION_WORDS]
    return hashlib.sha256(json.dumps(selection, sort_keys=True).encode()).hexdigest()


def _installed(folder: Path) -> bool:
    try:
        stamp = json.loads((folder / STAMP).read_text(encoding="utf-8"))
        manifest = (folder / MANIFEST).read_bytes()
    except (OSError, ValueError):
        return False
    if stamp.get("recipe") != _recipe() or stamp.get("manifest_sha256") != hashlib.sha256(manifest).hexdigest():
        return False
    return all((folder / clip.file).is_file() for clip in load(folder=folder))


def _download(folder: Path) -> tuple[Path, str]:
    """The package's .deb and its version, fetched with apt-get into `folder`."""
    try:
        fetched = subprocess.run(
            ["apt-get", "download", PACKAGE], cwd=folder, capture_output=True, text=True, timeout=900, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise RealSpeechUnavailable(f"apt-get download {PACKAGE} failed: {error}; {APT_HINT}") from error
    debs = sorted(folder.glob("*.deb"))
    if fetched.returncode != 0 or len(debs) != 1:
        said = " ".join(fetched.stderr.split()) or f"exit status {fetched.returncode}"
        raise RealSpeechUnavailable(f"apt-get download {PACKAGE} failed: {said}; {APT_HINT}")
    version = subprocess.run(
        ["dpkg-deb", "--field", str(debs[0]), "Version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    subprocess.run(["dpkg-deb", "--extract", str(debs[0]), str(folder / "root")], check=True)
    return folder / "root" / "usr" / "share" / "klettres", version


def _sounds(package: Path, speaker: str) -> dict[str, Path]:
    """What each of a voice's recordings says, as sounds.xml writes it, and its file."""
    found: dict[str, Path] = {}
    for sound in ElementTree.parse(package / speaker / "sounds.xml").iter("sound"):
        found.setdefault(sound.attrib["name"], package / sound.attrib["file"])
    return found


def _selection(package: Path) -> list[tuple[Path, RealClip]]:
    """Every clip of the set with the recording it comes from."""
    chosen: list[tuple[Path, RealClip]] = []
    for speaker, language in SPEAKERS.items():
        sounds = _sounds(package, speaker)
        missing = [name for name in (*LETTERS, *dict(OPTION_WORDS[speaker])) if name not in sounds]
        if missing:
            raise RealSpeechUnavailable(f"{PACKAGE} has no {speaker} recording of {', '.join(missing)}")
        said: list[tuple[str, str, tuple[str, ...], str, str | None]] = [
            (letter, "answer", LETTER_OPTIONS[language], "answer", letter) for letter in LETTERS
        ]
        said += [
            (name, "confirm", (), intent, None) for name, intent in CONFIRMATIONS[language].items() if name in sounds
        ]
        words = OPTION_WORDS[speaker]
        for index, (name, _) in enumerate(words):
            # Four words in a row, wrapping round at the end, with the said one at its place among them.
            first = index - index % len(LETTERS)
            options = tuple(words[(first + place) % len(words)][1] for place in range(len(LETTERS)))
            said.append((name, "answer", options, "answer", LETTERS[index % len(LETTERS)]))
        for name, context, options, intent, value in said:
            file = f"{speaker}/{context}-{_slug(name)}.wav"
            chosen.append((sounds[name], RealClip(file, language, speaker, name, context, options, intent, value)))
    files = Counter(clip.file for _, clip in chosen)
    if len(files) != len(chosen):
        raise AssertionError(f"two clips share a file: {[file for file, n in files.items() if n > 1]}")
    return chosen


def _slug(name: str) -> str:
    spelled = name.lower()
    for letter, written in (("ä", "ae"), ("ö", "oe"), ("ü", "ue"), ("ß", "ss")):
        spelled = spelled.replace(letter, written)
    return unicodedata.normalize("NFKD", spelled).encode("ascii", "ignore").decode()


def _convert(source: Path) -> Audio:
    """A recording as 16 kHz mono 16-bit audio: channels averaged, level left as the speaker gave it."""
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
    return Audio(np.round(mono * 32767).astype("<i2").tobytes(), RATE)


def _build(package: Path, version: str, folder: Path) -> None:
    rows = []
    for source, clip in _selection(package):
        (folder / clip.file).parent.mkdir(parents=True, exist_ok=True)
        _convert(source).write(folder / clip.file)
        rows.append(json.dumps(asdict(clip), ensure_ascii=False))
    manifest = "".join(f"{row}\n" for row in rows).encode()
    (folder / MANIFEST).write_bytes(manifest)
    stamp: dict[str, Any] = {
        "package": PACKAGE,
        "version": version,
        "manifest_sha256": hashlib.sha256(manifest).hexdigest(),
        "recipe": _recipe(),
    }
    (folder / STAMP).write_text(json.dumps(stamp, indent=2) + "\n", encoding="utf-8")


def main() -> None:
    try:
        folder = install()
    except RealSpeechUnavailable as error:
        print(f"setup: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    counts = Counter(clip.language for clip in load(folder=folder))
    print(f"real speech: {', '.join(f'{counts[lang]} {lang}' for lang in LANGUAGES)} clips in {folder}")


if __name__ == "__main__":
    main()
