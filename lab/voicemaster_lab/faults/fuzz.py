"""`bench faults`, fuzzed input: mutated packs, imports, configs, phrase files and WAVs through the real code.

Each input is a seeded mutation (faults/mutate.py) of a file we ship, or of an import made from our packs, and
goes through what a user would run on it, in this process (a fresh interpreter per input would take most of an hour),
with user folders of its own:
- a pack: `voicemaster questions validate FILE`
- Open Trivia DB JSON and CSV: `voicemaster questions import FILE --format ...`, written to the user's packs folder;
  a pack written must pass `questions validate`
- a config: `voicemaster --config FILE demo --text`, a whole game by the rules engine with those settings
- phrase files (no command reads them from elsewhere than the package): the two loaders `play` uses, on a folder
  with the mutated file, and every fixed line rendered
- a WAV: what `hear` does with it before a model hears it (read, then resampled for the recognizer)
A traceback is an exception escaping (a "this is a bug" message counts as one too) or "Traceback" on stderr. After a
command that failed, the user folders and the input's folder must hold exactly what they held before.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
import wave
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

from voicemaster import paths
from voicemaster.config.files import LANGUAGES, ConfigError
from voicemaster_lab.faults import hostile
from voicemaster_lab.faults.mutate import mutate

Command = Callable[[list[str]], int]
"""The command line's `main`, given by the command that runs the fuzzer (`voicemaster bench fuzz`): a bench imports
nothing above it."""

KINDS = ("pack", "opentdb", "csv", "config", "phrases", "wav", "special", "hostile")
WEIGHTS = (25, 20, 20, 15, 10, 10, 4, 12)
SPECIALS = ("zero", "urandom", "fifo", "link-to-fifo")
"""What a user may give where a file belongs (issue 25): a device without end, a FIFO without writer, a link to one."""
SPECIAL_COMMANDS = ("pack", "csv", "opentdb", "config", "wav", "out")
HUNG_SECONDS = 30
"""An input still being handled after this long counts as a hang (and is stopped)."""
BUG_LINE = "this is a bug"
"""What the command line's top-level handler says of an unexpected error (issue 17)."""
INPUT_NAMES = {"pack.toml", "import.json", "import.csv", "config.toml", "clip.wav"}
SPECIAL_INPUTS = {"fifo"}
USER_VARIABLES = ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")


class _Hung(BaseException):
    """Raised by the alarm; a BaseException, so that no `except Exception` in the code under test swallows it."""


@dataclass(frozen=True)
class Result:
    kind: str
    mutations: tuple[str, ...]
    seconds: float
    traceback: str | None
    """The exception's type and first line, for an input that produced one."""
    failed: bool
    written_on_failure: tuple[str, ...]
    invalid_written: bool
    """An import that wrote a pack `questions validate` refuses."""
    hung: bool
    hostile_accepted: bool = False
    """A hostile input (faults/hostile.py) that the command accepted rather than refused with a message."""


@cache
def _bases() -> dict[str, bytes]:
    """The good files each kind of input is mutated from."""
    from voicemaster.questions.packs import load, pack_files

    packs = pack_files(paths.QUESTIONS_DIR)
    english = list(load(p for p in packs if "/en/millionaire/" in p.as_posix()).entries)[::15][:12]
    # Our questions with another option called right: an import joins the bank that holds the real ones, where a
    # repeat of one of its questions is left out (issue 25); the mutation `bank_duplicate` adds such repeats.
    english = [replace(e, answer=next(o for o in e.options if o != e.answer)) for e in english]
    results = [
        {"category": e.category, "type": "multiple", "difficulty": ("easy", "medium", "hard")[(e.level or 1) // 6],
         "question": e.question, "correct_answer": e.answer,
         "incorrect_answers": [o for o in e.options if o != e.answer]}
        for e in english
    ]  # fmt: skip
    rows = ["level,category,question,correct,wrong1,wrong2,wrong3,explanation"]
    for e in english:
        wrong = [o for o in e.options if o != e.answer]
        rows.append(
            ",".join(_csv_field(t) for t in (str(e.level), e.category, e.question, e.answer, *wrong, e.explanation))
        )
    small = next(p for p in packs if p.name == "options-2.toml")
    return {
        "pack-millionaire": (paths.QUESTIONS_DIR / "en" / "millionaire" / "level-07.toml").read_bytes(),
        "pack-moneydrop": small.read_bytes(),
        "opentdb": json.dumps({"response_code": 0, "results": results}, indent=1, ensure_ascii=False).encode(),
        "csv": ("\n".join(rows) + "\n").encode(),
        "config": paths.DEFAULT_CONFIG.read_bytes(),
        "say": (paths.PHRASES_DIR / "de" / "say.toml").read_bytes(),
        "hear": (paths.PHRASES_DIR / "de" / "hear.toml").read_bytes(),
        "wav": _tone(),
    }


def _csv_field(text: str) -> str:
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\n') else text


def _tone() -> bytes:
    """Half a second of a quiet 440 Hz tone, 16-bit mono at 22.05 kHz: a recording like the ones `hear` takes."""
    import math

    rate = 22_050
    frames = b"".join(
        int(3000 * math.sin(2 * math.pi * 440 * n / rate)).to_bytes(2, "little", signed=True) for n in range(rate // 2)
    )
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes(frames)
    return buffer.getvalue()


@contextlib.contextmanager
def _user_folders(root: Path) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in (*USER_VARIABLES, paths.QUESTIONS_ENVIRONMENT)}
    for name in USER_VARIABLES:
        os.environ[name] = str(root / name.lower())
    # One cache for the whole run, as a user's cache outlives a command: the shipped packs are checked once.
    os.environ["XDG_CACHE_HOME"] = str(root.parent / "cache")
    os.environ.pop(paths.QUESTIONS_ENVIRONMENT, None)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*") if p.is_file()}


def _command(main: Command, argv: list[str]) -> tuple[int, str]:
    """The real command line, in this process: its exit code and what it printed on stderr. Both streams take UTF-8
    alone, as a terminal's do: a name that is not UTF-8, printed as it is, fails here as it would there."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict", write_through=True)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 2
    said = err.buffer.getvalue().decode("utf-8")
    return code, said


def _phrases(folder: Path) -> tuple[int, str]:
    """The phrase loaders `play` uses, on this folder; every line without a placeholder rendered."""
    from voicemaster.host import lines as host_lines
    from voicemaster.speech.hearing import phrases

    try:
        host_lines.load("de", folder).fixed()
        phrases.load("de", folder)
    except ConfigError as error:
        return 2, f"voicemaster: {error}\n"
    return 0, ""


def _wav(path: Path) -> tuple[int, str]:
    """What `hear` does with a file before a model hears it: cli._hear reads it (and reports what it cannot read);
    the recognizer then resamples it to 16 kHz."""
    from voicemaster.speech.signal import resample
    from voicemaster.speech.sound_file import read_recording

    try:
        audio, _ = read_recording(path, 30)
    except (OSError, ValueError) as error:
        return 2, f"voicemaster: cannot read a recording: {error}\n"
    resample(audio)
    return 0, ""


def _special(content: bytes, folder: Path, main: Command) -> tuple[int, str, Path | None]:
    """A special file where a file belongs: given as a pack, an import, a settings file, a recording, or as the
    pack an import writes (`--out`, which must never be replaced)."""
    special, command = content.decode().split(":")
    target = folder / {"pack": "pack.toml", "csv": "import.csv", "opentdb": "import.json", "config": "config.toml",
                       "wav": "clip.wav", "out": "out.toml"}[command]  # fmt: skip
    if special in ("fifo", "link-to-fifo"):
        fifo = folder / "fifo"
        os.mkfifo(fifo)
        if special == "fifo":
            fifo.rename(target)
        else:
            target.symlink_to(fifo)
    else:
        target.symlink_to(f"/dev/{special}")
    if command == "out":
        source = folder / "import.csv"
        source.write_bytes(_bases()["csv"])
        code, err = _command(main, ["questions", "import", str(source), "--format", "csv", "--out", str(target)])
        # Replacing the special file is the defect: counted as a failure that wrote a file (out.toml).
        return (3 if target.is_file() and not target.is_symlink() else code), err, None
    if command == "wav":
        return (*_wav(target), None)
    argv = {
        "pack": ["questions", "validate", str(target)],
        "csv": ["questions", "import", str(target), "--format", "csv", "--lang", "en"],
        "opentdb": ["questions", "import", str(target), "--format", "opentdb", "--lang", "en"],
        "config": ["--config", str(target), "demo", "--text", "--players", "2", "--rounds", "1", "--seed", "5"],
    }[command]
    return (*_command(main, argv), None)


def _one(kind: str, content: bytes, folder: Path, main: Command) -> tuple[int, str, Path | None]:
    """Runs one input; (exit code, stderr, the pack an import wrote or None)."""
    if kind == "special":
        return _special(content, folder, main)
    if kind == "hostile":
        return hostile.run(content, folder, _bases(), lambda argv: _command(main, argv))
    if kind == "pack":
        target = folder / "pack.toml"
        target.write_bytes(content)
        return (*_command(main, ["questions", "validate", str(target)]), None)
    if kind in ("opentdb", "csv"):
        target = folder / f"import.{'json' if kind == 'opentdb' else 'csv'}"
        target.write_bytes(content)
        code, err = _command(main, ["questions", "import", str(target), "--format", kind, "--lang", "en"])
        return code, err, paths.user_questions_dir() / "en" / "import.toml"
    if kind == "config":
        target = folder / "config.toml"
        target.write_bytes(content)
        argv = ["--config", str(target), "demo", "--text", "--players", "2", "--rounds", "1", "--seed", "5"]
        return (*_command(main, argv), None)
    if kind == "phrases":
        for language in LANGUAGES:
            shutil.copytree(paths.PHRASES_DIR / language, folder / "phrases" / language)
        name = "say.toml" if content.startswith(b"#say") else "hear.toml"
        (folder / "phrases" / "de" / name).write_bytes(content.removeprefix(b"#say"))
        return (*_phrases(folder / "phrases"), None)
    target = folder / "clip.wav"
    target.write_bytes(content)
    return (*_wav(target), None)


def _on_alarm(_signum: int, _frame: FrameType | None) -> None:
    raise _Hung


def make_input(number: int, seed: int, bases: dict[str, bytes]) -> tuple[str, bytes, tuple[str, ...]]:
    """Input `number` of a run: its kind, its content, the mutations made. A mutated say.toml starts "#say"."""
    rng = random.Random(f"{seed}-{number}")
    kind = rng.choices(KINDS, WEIGHTS)[0]
    if kind == "special":
        which = f"{rng.choice(SPECIALS)}:{rng.choice(SPECIAL_COMMANDS)}"
        return kind, which.encode(), (f"special {which}",)
    if kind == "hostile":
        made = hostile.make(rng)
        return kind, made, (f"hostile {made.decode().rsplit(':', 1)[0]}",)
    mutation_kind = {"opentdb": "json", "csv": "csv", "wav": "wav"}.get(kind, "toml")
    if kind == "pack":
        base = bases[rng.choice(("pack-millionaire", "pack-moneydrop"))]
    elif kind == "phrases":
        base = bases[rng.choice(("say", "hear"))]
    else:
        base = bases[kind]
    content, mutations = mutate(base, rng, mutation_kind)
    if base is bases.get("say"):
        content = b"#say" + content
    return kind, content, mutations


def fuzz_one(number: int, seed: int, bases: dict[str, bytes], root: Path, main: Command) -> Result:
    kind, content, mutations = make_input(number, seed, bases)
    folder = root / f"input-{number}"
    user = root / f"user-{number}"
    folder.mkdir()
    user.mkdir()
    traceback = None
    code, err, written = 1, "", None
    started = time.perf_counter()
    hung = False
    with _user_folders(user):
        before = _snapshot(user)
        signal.setitimer(signal.ITIMER_REAL, HUNG_SECONDS)
        try:
            code, err, written = _one(kind, content, folder, main)
        except _Hung:
            hung = True
        except Exception as error:
            traceback = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"[:200]
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        seconds = time.perf_counter() - started
        if traceback is None and ("Traceback" in err or BUG_LINE in err):
            # The top-level handler turns an unexpected error into "this is a bug" and a log: still a traceback.
            traceback = next(line for line in err.splitlines()[::-1] if line.strip() and not line.startswith(" "))[:200]
        failed = code != 0 or traceback is not None or hung
        # Beside the input it was given (and the phrase folder made for it), a command has no business in its folder.
        beside = {
            k
            for k in _snapshot(folder)
            if k not in INPUT_NAMES | SPECIAL_INPUTS and not k.startswith(("phrases/", f"{hostile.FOLDER}/"))
        }
        after = _snapshot(user) | {f"input/{k}": (0, 0) for k in beside}
        # A bug's log (logs/bug-*.log) is written on purpose; the traceback is counted as such.
        changed = tuple(sorted(k for k in after if after[k] != before.get(k) and "/logs/bug-" not in f"/{k}"))
        changed = changed if failed else ()
        invalid = False
        if not failed and written is not None and written.exists():
            invalid = bool(_pack_problems(written))
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(user, ignore_errors=True)
    # Every hostile input is wholly bad: one a command took without a word is the defect (issue 36).
    return Result(kind, mutations, seconds, traceback, failed, changed, invalid, hung, kind == "hostile" and not failed)


def _hostile_figures(results: list[Result]) -> dict[str, Any]:
    """The hostile inputs' figures, per class (invisible text, overlong words, names, symlink loops)."""
    per: dict[str, dict[str, int]] = {}
    for result in results:
        if result.kind != "hostile":
            continue
        name = result.mutations[0].removeprefix("hostile ").split(":")[0]
        tally = per.setdefault(name, {"inputs": 0, "refused": 0, "accepted": 0, "tracebacks": 0, "hung": 0})
        tally["inputs"] += 1
        tally["refused"] += result.failed and result.traceback is None and not result.hung
        tally["accepted"] += result.hostile_accepted
        tally["tracebacks"] += result.traceback is not None
        tally["hung"] += result.hung
    total = {key: sum(tally[key] for tally in per.values()) for key in ("inputs", "refused", "accepted", "tracebacks")}
    return {**total, "per_class": dict(sorted(per.items()))}


def _pack_problems(pack: Path) -> list[Any]:
    from voicemaster.questions.packs import load_file
    from voicemaster.questions.validation import validate

    entries, problems = load_file(pack)
    return [*problems, *validate(entries)]


def fuzz(
    inputs: int, seed: int = 17, progress: Callable[[int], None] | None = None, *, command: Command
) -> dict[str, Any]:
    """`inputs` mutated inputs through `command` (the command line's `main`); the figures, with the first few
    tracebacks and their inputs for a reproducer."""
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    bases = _bases()
    results: list[Result] = []
    started = time.perf_counter()
    try:
        with tempfile.TemporaryDirectory(prefix="vm-fuzz-") as folder:
            for number in range(inputs):
                results.append(fuzz_one(number, seed, bases, Path(folder), command))
                if progress is not None:
                    progress(number)
    finally:
        signal.signal(signal.SIGALRM, previous)
    slowest = max(results, key=lambda r: r.seconds) if results else None
    tracebacks: Counter[str] = Counter()
    examples: dict[str, dict[str, Any]] = {}
    for number, result in enumerate(results):
        if result.traceback:
            key = f"{result.kind}: {result.traceback.split(':')[0]}"
            tracebacks[key] += 1
            examples.setdefault(key, {"input": number, "mutations": list(result.mutations), "error": result.traceback})
    return {
        "inputs": len(results),
        "seed": seed,
        "tracebacks": sum(r.traceback is not None for r in results),
        "written_on_failure": sum(bool(r.written_on_failure) for r in results),
        "invalid_packs_written": sum(r.invalid_written for r in results),
        "hung": sum(r.hung for r in results),
        "hostile": _hostile_figures(results),
        "hang_bound_seconds": HUNG_SECONDS,
        "refused_with_a_message": sum(r.failed and r.traceback is None and not r.hung for r in results),
        "accepted": sum(not r.failed for r in results),
        "per_kind": dict(Counter(r.kind for r in results)),
        "tracebacks_by_kind": dict(tracebacks.most_common()),
        "traceback_examples": examples,
        "written_examples": [list(r.written_on_failure) for r in results if r.written_on_failure][:5],
        "slowest": None
        if slowest is None
        else {"kind": slowest.kind, "mutations": list(slowest.mutations), "seconds": round(slowest.seconds, 3)},
        "peak_memory_mb": peak_memory_mb(),
        "seconds": round(time.perf_counter() - started, 1),
    }


def peak_memory_mb() -> float:
    """This process's peak resident memory in MB (10⁶ bytes). On Linux the kernel's high-water mark of this very
    program: getrusage's figure survives exec, so a child started from a large process would report that one's."""
    try:
        status = Path("/proc/self/status").read_text(encoding="ascii")
        kilobytes = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:"))
        return round(kilobytes * 1024 / 1e6, 1)
    except (OSError, StopIteration, ValueError):
        maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return round(maxrss * (1 if sys.platform == "darwin" else 1024) / 1e6, 1)
