"""`voicemaster models install` given what is not a model (issue 49): a FIFO or a link to /dev/zero named like an
archive, a folder holding a FIFO, a device or a link that loops, the root folder itself, a folder larger than any
model; and what an install stopped by a kill leaves behind. Each is refused (or tidied) with one true line before
anything is copied; the subprocess timeouts are guards against a hang, never a measure of speed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from tests.models.test_models import VOSK, VOSK_FILES, World, leftovers, make_folder, world
from voicemaster.models import install
from voicemaster.models.manifest import ModelError
from voicemaster.models.staging import staging

__all__ = ["world"]  # the fixture, shared with the models' own tests
GUARD_SECONDS = 120


def models(*args: str) -> subprocess.CompletedProcess[str]:
    """`voicemaster models ...` in a process of its own, in the `world` fixture's models folder and manifest."""
    return subprocess.run(
        [sys.executable, "-m", "voicemaster", "models", *args],
        capture_output=True,
        text=True,
        timeout=GUARD_SECONDS,
        check=False,
    )


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """The one line a refused install says."""
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and lines[0].startswith("voicemaster: "), done.stderr
    assert "Traceback" not in done.stderr and "this is a bug" not in done.stderr
    return lines[0]


def nothing_installed(world: World) -> None:
    assert not (world.root / VOSK).exists()
    assert not world.root.exists() or leftovers(world.root) == []


@pytest.mark.parametrize("special", ["fifo", "dev-zero"])
def test_a_special_file_named_like_an_archive_is_refused_unopened(world: World, special: str) -> None:
    archive = world.tmp / f"{VOSK}.tar.gz"
    if special == "fifo":
        os.mkfifo(archive)
    else:
        archive.symlink_to("/dev/zero")
    kind = "a FIFO" if special == "fifo" else "a device"
    said = refused(models("install", str(archive)))
    assert said == f"voicemaster: {archive} is {kind}, not an archive: give the path of the file itself"
    nothing_installed(world)


@pytest.mark.parametrize("inside", ["fifo", "dev-zero", "loop", "dangling"])
def test_a_folder_holding_what_is_not_a_file_is_refused_before_anything_is_copied(world: World, inside: str) -> None:
    folder = make_folder(world.tmp / VOSK, VOSK_FILES)
    odd = folder / "graph" / "odd"
    if inside == "fifo":
        os.mkfifo(odd)
    elif inside == "dev-zero":
        odd.symlink_to("/dev/zero")
    elif inside == "loop":
        odd.symlink_to("odd")
    else:
        odd.symlink_to("missing-file")
    said = refused(models("install", str(folder)))
    reason = {
        "fifo": "is a FIFO, not a file of a model",
        "dev-zero": "is a device, not a file of a model",
        "loop": "a symbolic link that leads round to itself",
        "dangling": "a symbolic link to missing-file, which does not exist",
    }[inside]
    assert said.startswith(f"voicemaster: {odd}") and reason in said and "nothing was copied" in said, said
    nothing_installed(world)


def test_a_folder_linking_back_to_itself_is_refused(world: World) -> None:
    folder = make_folder(world.tmp / VOSK, VOSK_FILES)
    (folder / "graph" / "again").symlink_to(folder)
    said = refused(models("install", str(folder)))
    assert "leads back to a folder above it" in said, said
    nothing_installed(world)


def test_the_root_folder_is_no_model_and_nothing_is_copied(world: World) -> None:
    said = refused(models("install", "/", "--name", VOSK))
    assert said.startswith(f"voicemaster: / is not a {VOSK} folder: it lacks am/final.mdl"), said
    nothing_installed(world)


def test_a_folder_larger_than_any_model_is_refused_unread(world: World) -> None:
    folder = make_folder(world.tmp / VOSK, VOSK_FILES)
    with (folder / "huge.bin").open("wb") as huge:  # sparse: takes no disk, reads as zeros
        huge.truncate(install.LEAST_MOST_BYTES + 1)
    with pytest.raises(ModelError, match=r"holds more than 2\.0 GB"):
        install.install(folder, manifest=world.manifest, root=world.root)
    nothing_installed(world)


_STOPPED = """
import os, signal, sys
from pathlib import Path
from voicemaster.models.staging import staging
with staging(Path(sys.argv[1])) as stage:
    (stage / "model").mkdir()
    (stage / "model" / "weights.bin").write_bytes(bytes(1_000_000))
    os.kill(os.getpid(), getattr(signal, sys.argv[2]))
"""


@pytest.mark.parametrize("stop", ["SIGKILL", "SIGTERM"])
def test_an_install_killed_mid_way_is_tidied_by_the_next(world: World, stop: str) -> None:
    """A killed install cannot remove its staging folder; the next install does, and says so."""
    world.root.mkdir()
    stopped = subprocess.run([sys.executable, "-c", _STOPPED, str(world.root), stop], timeout=GUARD_SECONDS)
    assert stopped.returncode == -getattr(signal, stop)
    (left,) = leftovers(world.root)
    assert left.startswith(".installing-")
    folder = make_folder(world.tmp / VOSK, VOSK_FILES)
    done = models("install", str(folder))
    assert done.returncode == 0, done.stderr
    assert f"models: removed {world.root / left} (1 MB), left by an install that was stopped" in done.stderr
    assert leftovers(world.root) == [] and (world.root / VOSK / "am" / "final.mdl").is_file()


def test_a_running_install_is_left_alone(world: World) -> None:
    from voicemaster.models.staging import leftovers_removed

    with staging(world.root) as stage:
        assert leftovers_removed(world.root) == [] and stage.is_dir()


def test_a_model_moved_aside_by_a_stopped_install_is_put_back(world: World) -> None:
    install.install(make_folder(world.tmp / VOSK, VOSK_FILES), manifest=world.manifest, root=world.root)
    (world.root / VOSK).rename(world.root / f".old-{VOSK}-0123abcd")  # killed between the two renames
    again = models("download", VOSK)  # installed once back in place and intact: nothing to download
    assert again.returncode == 0, again.stderr
    assert f"models: put {VOSK} back in place" in again.stderr
    assert leftovers(world.root) == [] and (world.root / VOSK / "am" / "final.mdl").is_file()
