"""`bench faults`, faults: a store that is damaged, read-only, deleted or full, a second instance, no sound server and
no microphone, each through a real command in a child process with a time limit, user folders of its own.

The game a fault strikes is the one `voicemaster play` hosts, run as `faults.resume` runs it (the real
quizmaster and the real store in the user's data folder; simulated players at the text level, as the microphone
would need a person): `python -m voicemaster_lab.faults.damaged_store game ...`. The store's own commands run as they
are (`voicemaster history`), and so do the device commands (`voicemaster devices`, `voicemaster say`).

Each outcome, as measured on the code as it is: the exit code, the first line of the message (the exception's last
line when a traceback was printed), whether a traceback was printed, whether a game stored before the fault, or
being played when it struck, can no longer be resumed (lost), and whether the command was still running at the time
limit (hung; it is then killed).
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from voicemaster_lab.faults import midgame

SECONDS = 60
"""The time limit of each command: a fault that makes a command wait longer than this is a hang."""
GAME_ID = "game-faults"


MESSAGE_KEPT = 1000
"""Characters of a message kept: whole, for what it says comes after a path that may be long (the report shortens
it for the eye)."""


@dataclass(frozen=True)
class FaultOutcome:
    fault: str
    command: str
    exit_code: int | None
    message: str
    traceback: bool
    game_lost: bool | None
    """None where no game was at stake."""
    hung: bool
    seconds: float
    said_kept: bool | None = None
    """Whether the message says the game is kept (None where no game was at stake): a lost game said to be kept is
    the defect issue 36 names."""
    left_behind: tuple[str, ...] = ()
    """Files a refused start left in the data folder that were not there before (a lock file of no running game)."""


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), **extra}
    for name in ("HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME"):
        env[name] = str(root / name.lower())
    env.pop("VOICEMASTER_QUESTIONS", None)
    return env


def _db(root: Path) -> Path:
    return root / "xdg_data_home" / "voicemaster" / "voicemaster.db"


def _run(
    fault: str, argv: list[str], env: dict[str, str], *, limit: Callable[[], None] | None = None
) -> tuple[FaultOutcome, subprocess.CompletedProcess[str] | None]:
    command = [sys.executable, "-m", *argv]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, env=env, capture_output=True, text=True, timeout=SECONDS, preexec_fn=limit, check=False
        )
    except subprocess.TimeoutExpired:
        return FaultOutcome(fault, _shown(argv), None, "", False, None, True, SECONDS), None
    lines = [line for line in done.stderr.splitlines() if line.strip() and not line.startswith("  ")]
    traceback = "Traceback" in done.stderr or "this is a bug" in done.stderr
    message = (lines[-1] if traceback else lines[0]) if lines else (done.stdout.splitlines() or [""])[0]
    outcome = FaultOutcome(fault, _shown(argv), done.returncode, message[:MESSAGE_KEPT], traceback, None, False, 0.0)
    return _timed(outcome, started), done


def _shown(argv: list[str]) -> str:
    if argv[0] == "voicemaster":
        return "voicemaster " + " ".join(argv[1:])
    return " ".join(["the game `play` hosts (text players)", *argv[2:]])


def _timed(outcome: FaultOutcome, started: float) -> FaultOutcome:
    return FaultOutcome(**{**asdict(outcome), "seconds": round(time.perf_counter() - started, 2)})


def _lost(db: Path, game_id: str = GAME_ID) -> bool:
    """The game can no longer be found where `play` looks for it, nor in any file beside the store."""
    for candidate in [db, *db.parent.glob("*")] if db.parent.is_dir() else []:
        if not candidate.is_file():
            continue
        if _holds(candidate, game_id):
            return False
    return True


def _holds(store: Path, game_id: str) -> bool:
    """Whether the store holds the game as the next `play` finds it: on a copy, with the journal a failed write
    left beside it rolled back, as SQLite does when it next opens the file."""
    with tempfile.TemporaryDirectory(prefix="vm-lost-") as folder:
        copy = Path(folder) / "copy.db"
        try:
            shutil.copyfile(store, copy)
            journal = store.with_name(store.name + "-journal")
            if journal.is_file():
                shutil.copyfile(journal, Path(f"{copy}-journal"))
            with contextlib.closing(sqlite3.connect(copy)) as found:
                return found.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone() is not None
        except (OSError, sqlite3.Error):
            return False


KEPT_WORDS = ("is kept", "is stored", "offers it again", "offers to continue it")
"""What a message says when it promises the game is there to be continued."""


def _says_kept(message: str) -> bool:
    return any(words in message for words in KEPT_WORDS) and "could not be kept" not in message


def game_outcome(fault: str, root: Path, *args: str, limit: Callable[[], None] | None = None) -> FaultOutcome:
    outcome, _ = _run(fault, ["voicemaster_lab.faults.damaged_store", "game", *args], _env(root), limit=limit)
    said_kept = _says_kept(outcome.message) if outcome.exit_code not in (0, None) else None
    return FaultOutcome(**{**asdict(outcome), "game_lost": _lost(_db(root)), "said_kept": said_kept})


def _stored_game(root: Path) -> None:
    """A game under way in the user's store, as a crash leaves it: played, killed after a few steps."""
    _run("setup", ["voicemaster_lab.faults.damaged_store", "game", "--stop-at", "40"], _env(root))


@contextlib.contextmanager
def _immutable(*paths: Path) -> Iterator[bool]:
    """Read-only even for root (who ignores file modes): the immutable attribute; False if it cannot be set."""
    done = []
    try:
        for path in paths:
            if subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False).returncode != 0:
                yield False
                return
            done.append(path)
        yield True
    finally:
        for path in done:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)


def store_faults(folder: Path) -> list[FaultOutcome]:
    outcomes = []

    def fresh(name: str) -> Path:
        root = folder / name
        root.mkdir()
        return root

    root = fresh("corrupt")
    _stored_game(root)
    _db(root).write_bytes(b"this is not a database, it was overwritten " * 100)
    for name in ("-wal", "-shm"):
        Path(f"{_db(root)}{name}").unlink(missing_ok=True)
    outcome, _ = _run("corrupt store", ["voicemaster", "history"], _env(root))
    preserved = any(p.read_bytes().startswith(b"this is not") for p in _db(root).parent.glob("*") if p.is_file())
    # The damaged file itself holds the game: lost is that file deleted rather than moved aside.
    outcomes.append(FaultOutcome(**{**asdict(outcome), "game_lost": not preserved}))
    outcome = game_outcome("corrupt store", root)
    preserved = any(p.read_bytes().startswith(b"this is not") for p in _db(root).parent.glob("*") if p.is_file())
    outcomes.append(FaultOutcome(**{**asdict(outcome), "game_lost": not preserved}))

    root = fresh("folder")
    _db(root).mkdir(parents=True)
    outcomes.append(_run("store path is a folder", ["voicemaster", "history"], _env(root))[0])

    root = fresh("datafile")
    _db(root).parent.parent.mkdir(parents=True)
    _db(root).parent.write_text("a file where the data folder should be")
    outcomes.append(_run("data folder is a file", ["voicemaster", "history"], _env(root))[0])

    root = fresh("readonly")
    _stored_game(root)
    with _immutable(*_db(root).parent.glob("*"), _db(root).parent) as readonly:
        if readonly:
            outcomes.append(_run("read-only store", ["voicemaster", "history"], _env(root))[0])
            outcomes.append(game_outcome("read-only store", root))
    if not readonly:
        outcomes.append(FaultOutcome("read-only store", "(chattr +i refused here)", None, "", False, None, False, 0.0))

    outcomes += _link_loop_faults(fresh)

    root = fresh("deleted")
    outcomes.append(game_outcome("store deleted mid-game", root, "--delete-at", "60"))

    root = fresh("full")
    outcomes.append(game_outcome("disk full", root, "--full-at", "60"))

    root = fresh("second")
    started = time.perf_counter()
    env = _env(root)
    command = [sys.executable, "-m", "voicemaster_lab.faults.damaged_store", "game", "--game-id"]
    first = subprocess.Popen(
        [*command, "game-first", "--slow", "--announce"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert first.stdout is not None
    first.stdout.readline()  # the first holds the store (its bank loaded) when the second starts, as in a real race
    second = subprocess.run(
        [*command, "game-second"], env=env, capture_output=True, text=True, timeout=SECONDS, check=False
    )
    try:
        first.wait(timeout=SECONDS)
    except subprocess.TimeoutExpired:
        first.kill()
        first.wait()
    both = first.returncode == 0 and second.returncode == 0
    message = (second.stderr.strip().splitlines() or ["both games ran to their end" if both else ""])[-1]
    outcome = FaultOutcome(
        "second instance", "two games at once on one data folder", second.returncode, message[:MESSAGE_KEPT],
        "Traceback" in second.stderr, _lost(_db(root), "game-first"), False, 0.0,
    )  # fmt: skip
    outcomes.append(_timed(outcome, started))
    return outcomes


def _link_loop_faults(fresh: Callable[[str], Path]) -> list[FaultOutcome]:
    """Symbolic links that lead round to themselves where the store and the settings file belong, and a file where
    the rendered-speech cache keeps a folder (issue 36): each a message that names it, and nothing left behind."""
    outcomes = []
    for played in (False, True):  # `history`, and the game `play` hosts (which takes the lock)
        root = fresh(f"loop-{played}")
        _db(root).parent.mkdir(parents=True)
        _db(root).symlink_to(_db(root).name)
        fault = "store is a symlink loop"
        outcome = game_outcome(fault, root) if played else _run(fault, ["voicemaster", "history"], _env(root))[0]
        left = tuple(sorted(p.name for p in _db(root).parent.iterdir() if p.name != _db(root).name))
        # No game was at stake: the game could not open the store to start one.
        outcomes.append(FaultOutcome(**{**asdict(outcome), "left_behind": left, "game_lost": None, "said_kept": None}))
    root = fresh("config-loop")
    config = root / "xdg_config_home" / "voicemaster" / "config.toml"
    config.parent.mkdir(parents=True)
    config.symlink_to(config.name)
    argv = ["voicemaster", "demo", "--text", "--players", "2", "--rounds", "1", "--seed", "5"]
    outcomes.append(_run("config is a symlink loop", argv, _env(root))[0])
    root = fresh("cache-file")
    env = _env(root)
    speech = root / "xdg_cache_home" / "voicemaster" / "speech"
    speech.parent.mkdir(parents=True)
    speech.write_text("a file where the rendered speech's folders belong")
    argv = ["voicemaster", "say", "Hallo", "--lang", "de", "--out", str(root / "hallo.wav")]
    outcomes.append(_run("cache folder is a file", argv, env)[0])
    return outcomes


FULL_BYTES = 4096
"""From the step given by `game --full-at`, the largest file the game's process may write: a disk that fills after
the first few steps are stored (each step's journal is larger)."""


def _disk_full() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (FULL_BYTES, hard))


def device_faults(folder: Path) -> list[FaultOutcome]:
    outcomes = []
    root = folder / "devices"
    root.mkdir()
    nowhere = _env(root, PULSE_SERVER=f"unix:{folder}/no-such-server")
    outcomes.append(_run("no sound server", ["voicemaster", "devices"], nowhere)[0])
    outcomes.append(_run("no sound server", ["voicemaster", "say", "Hallo", "--lang", "de"], nowhere)[0])
    daemon = _pulse(folder / "pulse") if shutil.which("pulseaudio") else None
    if daemon is None:
        outcomes.append(FaultOutcome("no microphone", "(no PulseAudio here)", None, "", False, None, False, 0.0))
        return outcomes
    process, env = daemon
    try:
        no_microphone = {**_env(root), **env}
        outcomes.append(_run("no microphone", ["voicemaster", "devices"], no_microphone)[0])
        argv = ["voicemaster", "play", "--lang", "de", "--players", "Anna", "--engine", "whisper", "--seed", "1"]
        outcomes.append(_run("no microphone", argv, no_microphone)[0])
        outcomes.append(stopped_and_continued(no_microphone))
    finally:
        process.terminate()
        process.wait(timeout=10)
    return outcomes


def _pulse(folder: Path) -> tuple[subprocess.Popen[bytes], dict[str, str]] | None:
    """A private PulseAudio daemon with a speaker (a null sink) and no microphone at all."""
    folder.mkdir(mode=0o700, parents=True)
    socket = folder / "native"
    env = {**os.environ, "XDG_RUNTIME_DIR": str(folder), "PULSE_RUNTIME_PATH": str(folder), "HOME": str(folder)}
    process = subprocess.Popen(
        ["pulseaudio", "--daemonize=no", "--exit-idle-time=-1", "--use-pid-file=no", "-n",
         f"--load=module-native-protocol-unix auth-anonymous=1 socket={socket}", "--log-target=stderr"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    client = {"PULSE_SERVER": f"unix:{socket}", "PULSE_COOKIE": str(folder / "cookie")}
    for _ in range(200):
        if subprocess.run(["pactl", "info"], env={**os.environ, **client}, capture_output=True).returncode == 0:
            break
        time.sleep(0.05)
    else:
        process.terminate()
        process.wait()
        return None
    # As the tests make their speaker: a null sink that rewinds plays no sound for PortAudio to hand on.
    sink = ["pactl", "load-module", "module-null-sink", "sink_name=vspk", "rate=16000", "channels=1", "norewinds=1"]
    subprocess.run(sink, env={**os.environ, **client}, capture_output=True, check=False)
    return process, client


def store_damage(folder: Path) -> list[Any]:
    """Every kind of damage, each to its own game in its own data folder."""
    outcomes = []
    for number, name in enumerate(midgame.DAMAGE):
        root = folder / f"damage-{number}"
        root.mkdir()
        if "read-only" in name and (os.geteuid() != 0 or shutil.which("chattr") is None):
            outcomes.append(FaultOutcome(f"store {name} mid-game", "(needs root and chattr)", None, "", False,
                                            None, False, 0.0))  # fmt: skip
            continue
        try:
            outcomes.append(
                game_outcome(f"store {name} mid-game", root, "--damage-at", str(midgame.DAMAGE_AT), "--damage", name)
            )
        finally:
            data = root / "xdg_data_home" / "voicemaster"
            for target in [data, *data.glob("*")] if data.exists() else []:
                subprocess.run(["chattr", "-i", str(target)], capture_output=True, check=False)
    return outcomes


STOPPED_SECONDS = 4.0
"""How long the speaking process is stopped: longer than any stall bound (devices.STALL_SECONDS)."""

_SPEAKING = """
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.capture import speaker_present
from voicemaster.speech.devices.loudspeaker import Speaker
speaker = Speaker(present=speaker_present)
playback = speaker.play(Audio(bytes(16_000 * 2 * 5), 16_000))
print("ready", flush=True)
playback.wait()
print(f"played {playback.position():.1f} s, stalled {speaker.stalled:.1f} s", flush=True)
"""


def stopped_and_continued(env: dict[str, str]) -> Any:
    """A process speaking through the speaker, stopped (SIGSTOP) and continued (SIGCONT) as Ctrl-Z and `fg` do."""
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", _SPEAKING], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    child.stdout.readline()
    time.sleep(0.5)
    child.send_signal(signal.SIGSTOP)
    time.sleep(STOPPED_SECONDS)
    child.send_signal(signal.SIGCONT)
    try:
        stdout, stderr = child.communicate(timeout=SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return FaultOutcome("stop/continue", "speaking, stopped 4 s", None, "", False, None, True, SECONDS)
    lines = [line for line in stderr.splitlines() if line.startswith(("voicemaster", "Traceback")) or "Error" in line]
    message = (lines[-1] if lines else stdout.strip())[:MESSAGE_KEPT]
    traceback = "Traceback" in stderr
    seconds = round(time.perf_counter() - started, 2)
    return FaultOutcome("stop/continue", "speaking, stopped 4 s", child.returncode, message, traceback, None,
                           False, seconds)  # fmt: skip


def run() -> dict[str, Any]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="vm-faults-") as folder:
        outcomes = store_faults(Path(folder)) + store_damage(Path(folder)) + device_faults(Path(folder))
    return {
        "outcomes": [asdict(outcome) for outcome in outcomes],
        "games_lost": sum(outcome.game_lost is True for outcome in outcomes),
        "lost_but_said_kept": sum(outcome.game_lost is True and outcome.said_kept is True for outcome in outcomes),
        "left_behind": sum(bool(outcome.left_behind) for outcome in outcomes),
        "hung": sum(outcome.hung for outcome in outcomes),
        "tracebacks": sum(outcome.traceback for outcome in outcomes),
        "time_limit_seconds": SECONDS,
        "seconds": round(time.perf_counter() - started, 1),
    }


def game(argv: list[str]) -> None:
    """A game as `play` hosts it, in the user's store; options: --stop-at N (SIGKILL), --delete-at N (the store's
    files removed at that step), --damage-at N with --damage NAME (midgame.DAMAGE), --full-at N (the disk
    full from that step), --game-id ID, --slow (a short pause at each listening, as players take)."""
    from voicemaster.paths import QUESTIONS_DIR
    from voicemaster.questions.packs import load, pack_files
    from voicemaster.questions.selection import Bank
    from voicemaster.store import Store, default_path
    from voicemaster_lab.faults import resume as fr

    options = dict(zip(argv[::2], argv[1::2], strict=False))
    bank = Bank(tuple(load(pack_files(QUESTIONS_DIR)).entries))
    spec = fr.Spec("millionaire", 4, ("Anna", "Ben"), "classic", kill_at=int(options.get("--stop-at", 0)) or None)
    delete_at = int(options.get("--delete-at", 0))
    damage_at = int(options.get("--damage-at", 0))
    full_at = int(options.get("--full-at", 0))
    # As `play` opens it: holding the store's lock.
    said = lambda notice: print(f"voicemaster: {notice}", file=sys.stderr, flush=True)  # noqa: E731 - as `play`
    with Store(exclusive=True, notify=said) as store, open(os.devnull, "w", encoding="utf-8") as log:
        if "--announce" in argv:
            print("holding the store", flush=True)
        found = fr.resumed_host(spec, bank, store)
        _, _, host = found if found is not None else ("", "", fr.new_host(spec, bank))
        table = fr.Table(host, store, options.get("--game-id", GAME_ID), log, spec.seed, spec.kill_at)
        perform = table.perform

        def faulty(effect: Any) -> Any:
            if table.steps + 1 == delete_at:
                for suffix in ("", "-journal", "-wal", "-shm"):
                    Path(f"{default_path()}{suffix}").unlink(missing_ok=True)
            if table.steps + 1 == full_at:
                _disk_full()
            if table.steps + 1 == damage_at:
                midgame.damage(options["--damage"], default_path())
            if "--slow" in argv and type(effect).__name__ == "Listen":
                time.sleep(0.01)
            return perform(effect)

        table.perform = faulty  # type: ignore[method-assign]
        table.play()


if __name__ == "__main__":
    if sys.argv[1:2] == ["game"]:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        try:
            game(sys.argv[2:])
        except Exception as error:
            # As `play` would say it: our own errors (a busy or unwritable store...) carry a message for the user;
            # anything else stays a traceback, which is what this benchmark counts.
            if not type(error).__module__.startswith("voicemaster."):
                raise
            from voicemaster.cli.failures import unsaved
            from voicemaster.store import StoreUnwritable

            print(f"voicemaster: {unsaved(error) if isinstance(error, StoreUnwritable) else error}", file=sys.stderr)
            sys.exit(2)
