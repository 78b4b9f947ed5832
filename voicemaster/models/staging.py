"""Where an install is put together before it is renamed into place, and what a stopped install leaves there.

Each install stages its model in a folder of its own, `.installing-XXXX` inside the models folder (one file system,
so the final rename is atomic), and holds a lock on `.installing.lock` inside it for as long as it runs. A process
that ends the usual way removes its folder; one killed (SIGKILL, a power cut) cannot, but the system drops its lock.
So the next install or set-up (`leftovers_removed`) removes every staging folder whose lock no process holds, and
puts back a model that a stopped install had moved aside (`.old-NAME-XXXX`) to make room for a new one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

STAGING_PREFIX = ".installing-"
LOCK_NAME = ".installing.lock"
OLD_PREFIX = ".old-"
"""A model moved aside while its new version is renamed into place: `.old-NAME-XXXXXXXX`."""


@contextlib.contextmanager
def staging(root: Path) -> Iterator[Path]:
    """A temporary folder inside `root`, so the final rename stays on one file system and is atomic; locked while
    it is in use, and removed after (by the next install, if this process is killed first)."""
    root.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=root))
    lock = _locked(stage / LOCK_NAME, wait=True)
    try:
        yield stage
    finally:
        shutil.rmtree(stage, ignore_errors=True)
        if lock is not None:
            lock.close()


def leftovers_removed(root: Path) -> list[str]:
    """Removes what stopped installs left in `root`, and says what, one sentence each: staging folders no running
    install holds, and models moved aside for a new version that never came (put back; or removed if the new one is
    in place)."""
    said: list[str] = []
    try:
        found = sorted(root.iterdir())
    except OSError:  # no models folder yet, or none to read: nothing left over
        return said
    for path in found:
        if path.name.startswith(STAGING_PREFIX) and path.is_dir() and not path.is_symlink():
            lock = _locked(path / LOCK_NAME, wait=False)
            if lock is None and (path / LOCK_NAME).exists():
                continue  # an install running now
            size = _size(path)
            shutil.rmtree(path, ignore_errors=True)
            if lock is not None:
                lock.close()
            said.append(f"removed {path} ({size / 1e6:.0f} MB), left by an install that was stopped")
        elif path.name.startswith(OLD_PREFIX) and path.is_dir() and not path.is_symlink():
            said.append(_old_model(path))
    return said


def _old_model(path: Path) -> str:
    name = path.name.removeprefix(OLD_PREFIX).rsplit("-", 1)[0]
    current = path.with_name(name)
    if current.exists():
        shutil.rmtree(path, ignore_errors=True)
        return f"removed {path}, the version of {name} an install had replaced before it was stopped"
    path.rename(current)
    return f"put {name} back in place: an install that was to replace it was stopped before it could"


def _locked(path: Path, *, wait: bool) -> IO[str] | None:
    """The lock file, held (until closed); None if another process holds it (without `wait`), or where locks are
    not kept (Windows)."""
    if sys.platform == "win32":
        return None
    import fcntl

    try:
        lock = path.open("a+", encoding="utf-8")
    except OSError:
        return None
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        lock.close()
        return None
    return lock


def _size(folder: Path) -> int:
    total = 0
    for directory, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(directory, name)).st_size
    return total
