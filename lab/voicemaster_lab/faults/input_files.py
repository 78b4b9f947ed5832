"""`bench faults`, files and inputs (faults/inputs.py runs them): where each fault is made and how its command is
met, and the faults of what is read, JSON nested thousands deep, numbers of thousands of digits, FIFOs, devices and
links that loop where a file or a model belongs, texts of megabytes.

Each fault makes its files in a `Place` of its own, as a user or a disk would make them, and runs the real command
in a process of its own (`command`), stopped after `LIMIT_SECONDS`; `met` says whether it was met as promised.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

LIMIT_SECONDS = 120
"""A command still running after this long has hung, and is stopped."""
DEEP = "[" * 5000 + "]" * 5000
VOSK_DE = "vosk-model-small-de-0.15"
HEAD = "level,category,question,correct,wrong1,wrong2,wrong3,explanation\n"
FAMILY = (
    "3,Music,Which instrument did the jazz musician Dizzy Gillespie play?,Trumpet,Piano,Drums,Guitar,He played a "
    "bent trumpet.\n"
    "5,Family,What is the name of grandmother's old grey cat?,Minka,Felix,Tiger,Mohrle,She is called Minka.\n"
    "7,Family,In which village did uncle Bertram grow up?,Oberwiesen,Unterbach,Lindenau,Kleinfeld,He grew up in "
    "Oberwiesen.\n"
)
"""Three questions the shipped bank does not ask."""


@dataclass
class Place:
    """One fault's folders: the user's (HOME and the XDG folders), the models folder, and a folder for its files."""

    root: Path

    @property
    def files(self) -> Path:
        folder = self.root / "files"
        folder.mkdir(exist_ok=True)
        return folder

    def env(self, **extra: str) -> dict[str, str]:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "VOICEMASTER_MODELS_DIR": str(self.models)}
        for name in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
            env[name] = str(self.root / name.lower())
        env.pop("VOICEMASTER_QUESTIONS", None)
        return {**env, **extra}

    @property
    def models(self) -> Path:
        return self.root / "models"

    @property
    def data(self) -> Path:
        return self.root / "xdg_data_home" / "voicemaster"


Done = subprocess.CompletedProcess[str]


def command(place: Place, argv: list[str], *, limit: Callable[[], None] | None = None, **env: str) -> Done | None:
    """`python -m voicemaster ARGV` (or `python -c CODE` for argv ["-c", CODE]) in the place's folders; None if it
    hung."""
    start = [sys.executable, *argv] if argv[0] == "-c" else [sys.executable, "-m", "voicemaster", *argv]
    try:
        return subprocess.run(start, capture_output=True, text=True, timeout=LIMIT_SECONDS, env=place.env(**env),
                              preexec_fn=limit, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return None


def _traceback(done: Done) -> bool:
    return any(mark in done.stderr for mark in ("Traceback", "this is a bug", "Exception ignored", "Warning:"))


def met(done: Done | None, *, code: int, says: str, more: bool = True, lines: int = 1) -> tuple[bool, str, bool]:
    """(right, first line, traceback): exit `code`, `lines` lines on stderr (the last saying `says`), and `more`."""
    if done is None:
        return False, "", False
    said = [line for line in done.stderr.strip().splitlines() if line.strip()]
    traceback = _traceback(done)
    first = (said[-1] if traceback else said[0]) if said else (done.stdout.strip().splitlines() or [""])[0]
    told = len(said) == lines and (says in said[-1] if said else says in done.stdout)
    return done.returncode == code and told and more and not traceback, first[:300], traceback


Met = tuple[str, list[str], Done | None, tuple[bool, str, bool]]
"""How a fault went: what was done, the command, how it ended (None: hung), and `met`."""
Fault = Callable[[Place], Met]
"""Makes a fault in its place and meets it."""


def manifest(place: Place, text: str | bytes) -> Path:
    manifest = place.files / "mine.jsonl"
    manifest.write_bytes(text if isinstance(text, bytes) else text.encode())
    return manifest


def line(**fields: object) -> str:
    return json.dumps({"file": "a.wav", "lang": "de", "context": "answer", **fields})


def manifest_line(what: str, text: str, says: str) -> Fault:
    """A manifest of one line, `text`, given to `hear --manifest`: refused in one line saying `says`."""

    def fault(place: Place) -> Met:
        argv = ["hear", "--manifest", str(manifest(place, text + "\n"))]
        done = command(place, argv)
        return f"a hear --manifest line with {what}", argv, done, met(done, code=2, says=says)

    return fault


def deep_stored_game(place: Place) -> Met:
    from voicemaster.host.saved import Session
    from voicemaster.rules import GameSettings, new_game, variant
    from voicemaster.store import Store

    place.data.mkdir(parents=True)
    with Store(place.data / "voicemaster.db") as store:
        store.save_game("older", Session(new_game(GameSettings(variant("classic"), ("Anna",), seed=3))).to_json())
        store.save_game("deep", json.dumps({"game": DEEP, "asked": [], "options": []}))
    argv = ["history", "--json"]
    done = command(place, argv)
    listed = json.loads(done.stdout)["games"] if done is not None and done.returncode == 0 else []
    # The other game listed as `play` offers it, and the unreadable one kept in the file set aside.
    kept = [game["id"] for game in listed] == ["older"] and not listed[0]["abandoned"]
    kept = kept and len(list(place.data.glob("voicemaster.damaged-*.db"))) == 1
    return "a stored game nested 5000 deep", argv, done, met(done, code=0, says="cannot be read", more=kept)


def deep_cache(place: Place) -> Met:
    cache = place.root / "xdg_cache_home" / "voicemaster" / "questions-checked.json"
    cache.parent.mkdir(parents=True)
    cache.write_text('{"packs": ' + DEEP + ', "banks": {}}', encoding="utf-8")
    argv = ["questions", "validate"]
    done = command(place, argv)
    rebuilt = cache.read_text(encoding="utf-8").startswith('{"packs": {')
    return "the check cache nested 5000 deep", argv, done, met(done, code=0, says="problem(s)", more=rebuilt)


def huge_limit(place: Place) -> Met:
    argv = ["history", "--limit", "9" * 23]
    done = command(place, argv)
    ok = done is not None and "No games yet" in done.stdout
    return "history --limit of 23 digits", argv, done, met(done, code=0, says="", more=ok, lines=0)


def deep_import(place: Place) -> Met:
    source = place.files / "trivia.json"
    source.write_text('{"results": ' + DEEP + "}", encoding="utf-8")
    argv = ["questions", "import", str(source), "--format", "opentdb"]
    done = command(place, argv)
    return "an Open Trivia DB import nested 5000 deep", argv, done, met(done, code=2, says="nested 5001 deep")


def special_manifest(kind: str) -> Fault:
    def fault(place: Place) -> Met:
        path = place.files / "mine.jsonl"
        os.mkfifo(path) if kind == "FIFO" else path.symlink_to("/dev/zero")
        argv = ["hear", "--manifest", str(path)]
        done = command(place, argv)
        named = "a FIFO" if kind == "FIFO" else "a device"
        return f"a manifest that is {kind}", argv, done, met(done, code=2, says=f"not a regular file ({named})")

    return fault


def special_archive(kind: str) -> Fault:
    def fault(place: Place) -> Met:
        archive = place.files / f"{VOSK_DE}.tar.gz"
        os.mkfifo(archive) if kind == "FIFO" else archive.symlink_to("/dev/zero")
        argv = ["models", "install", str(archive)]
        done = command(place, argv)
        named = "a FIFO" if kind == "FIFO" else "a device"
        nothing = not place.models.exists() or not any(place.models.iterdir())
        return (
            f"models install of {kind} named .tar.gz",
            argv,
            done,
            met(done, code=2, says=f"is {named}, not an archive", more=nothing),
        )

    return fault


def vosk_folder(place: Place) -> Path:
    folder = place.files / VOSK_DE
    for name in ("am/final.mdl", "conf/mfcc.conf", "conf/model.conf", "graph/Gr.fst", "graph/HCLr.fst"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(b"a model's file\n")
    return folder


def odd_folder(inside: str, says: str) -> Fault:
    def fault(place: Place) -> Met:
        odd = vosk_folder(place) / "graph" / "odd"
        if inside == "a FIFO":
            os.mkfifo(odd)
        else:
            odd.symlink_to("/dev/zero" if inside == "a link to /dev/zero" else "odd")
        argv = ["models", "install", str(odd.parent.parent)]
        done = command(place, argv)
        nothing = not place.models.exists() or not any(place.models.iterdir())
        return f"models install of a folder holding {inside}", argv, done, met(done, code=2, says=says, more=nothing)

    return fault


def root_folder(place: Place) -> Met:
    argv = ["models", "install", "/", "--name", VOSK_DE]
    done = command(place, argv)
    nothing = not place.models.exists() or not any(place.models.iterdir())
    return "models install /", argv, done, met(done, code=2, says=f"is not a {VOSK_DE} folder", more=nothing)


def long_field(place: Place) -> Met:
    source = place.files / "long.csv"
    long_question = "A question that goes on, and on, " * 6_000
    source.write_text(HEAD + f'4,Family,"{long_question}",Yes,No,Maybe,Never,\n' + FAMILY, encoding="utf-8")
    argv = ["questions", "import", str(source), "--format", "csv"]
    done = command(place, argv)
    kept = done is not None and "3 questions written" in done.stdout and "line 2: question: too long" in done.stdout
    return "a CSV with a 200 KB quoted field", argv, done, met(done, code=0, says="", more=kept, lines=0)


def header_only(place: Place) -> Met:
    source = place.files / "header.csv"
    source.write_text(HEAD, encoding="utf-8")
    argv = ["questions", "import", str(source), "--format", "csv"]
    done = command(place, argv)
    return "a CSV of its header alone", argv, done, met(done, code=2, says="holds no question, only its header")


def turned_text(place: Place) -> Met:
    source = place.files / "turned.csv"
    source.write_text(HEAD + FAMILY.replace("grey cat", "grey \u202ecat\u202c"), encoding="utf-8")
    argv = ["questions", "import", str(source), "--format", "csv"]
    done = command(place, argv)
    packs = list((place.data / "questions" / "en").glob("*.toml"))
    clean = len(packs) == 1 and "\u202e" not in packs[0].read_text(encoding="utf-8")
    return "an import with U+202E in a question", argv, done, met(done, code=0, says="", more=clean, lines=0)
