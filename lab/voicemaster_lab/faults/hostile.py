"""`bench faults`, hostile input (issue 36): text a listener would not hear, words longer than the voices say, file
names that are not UTF-8 or not a pack's, symbolic links that lead round to themselves, each given where a user
gives it, through the real commands (faults/fuzz.py runs them, with a standard output that refuses what is not
UTF-8, as a terminal's does).

Every hostile input is wholly bad, so every one must be refused with a message: one the command accepts is counted
as accepted (an empty folder named `pack.toml` checked with "0 problem(s)", a pack written as `x.txt`).
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable
from pathlib import Path

from voicemaster import paths
from voicemaster.speakable import LONGEST_WORD

Command = Callable[[list[str]], tuple[int, str]]
"""The real command line, run on these arguments: (exit code, what it said on standard error)."""

PLACES = {
    "invisible text": ("say", "option", "question", "id", "player"),
    "overlong words": ("say", "option", "import", "player"),
    "names": ("out-not-utf8", "out-txt", "pack-not-utf8", "empty-folder-pack", "pack-txt"),
    "symlink loops": ("pack", "import", "config", "out"),
}
"""Each class of hostile input, and where a user may give it."""
INVISIBLE = ("\u200b", "\u0301\u0308", "\u202e", "\u2060\ufeff", " \u200b ", "\u200e\u200f", "\u00ad")
SHAPES = ("1234567890", "a", "x", "donaudampfschifffahrtsgesellschaft")
LENGTHS = (LONGEST_WORD + 1, 1_000, 10_000)
FOLDER = "hostile"
"""Below the input's folder: what the generator made there, apart from what a command may write beside it."""
CSV_HEAD = "level,category,question,correct,wrong1,wrong2,wrong3,explanation\n"
CSV_ROW = "3,Science,Which gas do plants take in to make their food?,{answer},Oxygen,Nitrogen,Helium,They need it.\n"


def make(rng: random.Random) -> bytes:
    """One hostile input: its class, where it is given, and the seed of its details."""
    kind = rng.choice(tuple(PLACES))
    return f"{kind}:{rng.choice(PLACES[kind])}:{rng.randrange(1 << 30)}".encode()


def run(content: bytes, folder: Path, bases: dict[str, bytes], command: Command) -> tuple[int, str, Path | None]:
    """Gives the input where it belongs; (exit code, stderr, the pack an import wrote or None)."""
    kind, place, seed = content.decode().split(":")
    rng = random.Random(seed)
    made = folder / FOLDER
    made.mkdir()
    if kind == "invisible text":
        text = rng.choice(INVISIBLE)
        text = text if place != "id" else rng.choice(("\u202e", "\u200b", "twin"))
    elif kind == "overlong words":
        text = (rng.choice(SHAPES) * 10_000)[: rng.choice(LENGTHS)]
    if kind in ("invisible text", "overlong words"):
        return _text(place, text, made, folder, bases, command)
    if kind == "names":
        return _names(place, made, folder, bases, command)
    return _loops(place, made, folder, bases, command)


def _text(
    place: str, text: str, made: Path, folder: Path, bases: dict[str, bytes], command: Command
) -> tuple[int, str, Path | None]:
    if place == "say":
        return (*command(["say", text, "--lang", "en", "--out", str(folder / "said.wav")]), None)
    if place == "player":
        config = made / "config.toml"
        config.write_text(f'[game]\nplayers = ["Anna", {json.dumps(text)}]\n', encoding="utf-8")
        argv = ["--config", str(config), "demo", "--text", "--players", "2", "--rounds", "1", "--seed", "5"]
        return (*command(argv), None)
    if place == "import":
        source = made / "import.csv"
        source.write_text(CSV_HEAD + CSV_ROW.format(answer=text), encoding="utf-8")
        code, err = command(["questions", "import", str(source), "--format", "csv", "--lang", "en"])
        return code, err, paths.user_questions_dir() / "en" / "import.toml"
    pack = bases["pack-millionaire"].decode()
    if place == "id":
        ids = ["en-x-\u00e4", "en-x-a\u0308"] if text == "twin" else [f"en-x-{text}b"]
        found = list(re.finditer(r'(?m)^id = "[^"]*"$', pack))
        for match, new in reversed(list(zip(found, ids, strict=False))):
            pack = pack[: match.start()] + f"id = {json.dumps(new)}" + pack[match.end() :]
    elif place == "option":
        pack = re.sub(r'(?m)^(options = \[)"[^"]*"', lambda m: m.group(1) + json.dumps(text), pack, count=1)
        pack = re.sub(r'(?m)^answer = "[^"]*"$', lambda _: f"answer = {json.dumps(text)}", pack, count=1)
    else:
        pack = re.sub(r'(?m)^question = "[^"]*"$', lambda _: f"question = {json.dumps(text)}", pack, count=1)
    (made / "pack.toml").write_text(pack, encoding="utf-8")
    return (*command(["questions", "validate", str(made / "pack.toml")]), None)


def _names(
    place: str, made: Path, folder: Path, bases: dict[str, bytes], command: Command
) -> tuple[int, str, Path | None]:
    source = made / "import.csv"
    source.write_bytes(bases["csv"])
    if place in ("out-not-utf8", "out-txt"):
        out = os.fsdecode(os.fsencode(folder) + b"/pack\xff.toml") if place == "out-not-utf8" else str(folder / "x.txt")
        code, err = command(["questions", "import", str(source), "--format", "csv", "--lang", "en", "--out", out])
        return code, err, Path(out)
    if place == "pack-not-utf8":
        Path(os.fsdecode(os.fsencode(made) + b"/b\xfe.toml")).write_bytes(bases["pack-millionaire"])
        return (*command(["questions", "validate", str(made)]), None)
    if place == "empty-folder-pack":
        (made / "pack.toml").mkdir()
        return (*command(["questions", "validate", str(made / "pack.toml")]), None)
    (made / "pack.txt").write_bytes(bases["pack-millionaire"])
    return (*command(["questions", "validate", str(made / "pack.txt")]), None)


def _loops(
    place: str, made: Path, folder: Path, bases: dict[str, bytes], command: Command
) -> tuple[int, str, Path | None]:
    if place == "out":
        source = made / "import.csv"
        source.write_bytes(bases["csv"])
        out = folder / "out.toml"
        out.symlink_to(out.name)
        code, err = command(["questions", "import", str(source), "--format", "csv", "--lang", "en", "--out", str(out)])
        # Replacing the link is the defect: counted as a failure that wrote a file.
        return (3 if out.is_file() and not out.is_symlink() else code), err, None
    name = {"pack": "loop.toml", "import": "import.csv", "config": "config.toml"}[place]
    loop = made / name
    loop.symlink_to(name)
    argv = {
        "pack": ["questions", "validate", str(loop)],
        "import": ["questions", "import", str(loop), "--format", "csv", "--lang", "en"],
        "config": ["--config", str(loop), "demo", "--text", "--players", "2", "--rounds", "1", "--seed", "5"],
    }[place]
    return (*command(argv), None)
