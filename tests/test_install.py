"""voicemaster as a user without a checkout gets it: the wheel built from this checkout, installed into a fresh virtual
environment outside it, run from another folder with a home (config, data, cache) of its own.

How the fresh environment gets the heavy dependencies (faster-whisper, onnxruntime, numpy...) without downloading
them: `--system-site-packages` would not do, since a venv is always made from the base interpreter, whose site-packages
are not the project's `.venv`. So the new venv gets one `.pth` line naming the project venv's site-packages. Python
puts that folder on the path but runs no `.pth` file inside it, so the project's editable voicemaster stays inactive:
`import voicemaster` finds only the wheel's copy, which the first test checks. The wheel itself is built offline with
the project venv's setuptools (`--no-build-isolation`) from a copy of the sources, so no `build/` folder of an earlier
layout can leak stale files into it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from voicemaster import paths
from voicemaster.models import manifest, verify
from voicemaster_lab.corpora import real_speech

pytestmark = pytest.mark.model  # set-up in a fresh home installs the models

CHECKOUT = Path(__file__).resolve().parent.parent
BIN = "Scripts" if sys.platform == "win32" else "bin"


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / BIN / "python"


@dataclass(frozen=True)
class User:
    """One user's machine: their folders, and a working folder that is neither the checkout nor the venv."""

    installed: Installed
    home: Path
    work: Path

    @property
    def data(self) -> Path:
        return self.home / "data" / "voicemaster"

    def run(self, *args: str, program: str = "voicemaster") -> subprocess.CompletedProcess[str]:
        # A clean environment: no PYTHONPATH (it would put the checkout first) and no VOICEMASTER_* override.
        env = {
            "PATH": f"{self.installed.venv / BIN}{os.pathsep}{os.environ.get('PATH', '')}",
            "HOME": str(self.home),
            "XDG_CONFIG_HOME": str(self.home / "config"),
            "XDG_DATA_HOME": str(self.home / "data"),
            "XDG_CACHE_HOME": str(self.home / "cache"),
            "LANG": "C.UTF-8",
        }
        return subprocess.run(
            [program, *args], cwd=self.work, env=env, capture_output=True, text=True, timeout=300, check=False
        )


def _pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    root = tmp_path_factory.mktemp("install")
    source = root / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(CHECKOUT / name, source / name)
    shutil.copytree(CHECKOUT / "voicemaster", source / "voicemaster", ignore=shutil.ignore_patterns("__pycache__"))
    _pip("wheel", "--no-deps", "--no-build-isolation", "--no-index", "--wheel-dir", str(root / "dist"), str(source))
    (wheel,) = (root / "dist").glob("voicemaster-*.whl")
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    target = Path(
        subprocess.run(
            [str(venv / BIN / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    project = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (target / "project-dependencies.pth").write_text("".join(f"{folder}\n" for folder in sorted(project)))
    _pip("--python", str(venv / BIN / "python"), "install", "--no-deps", "--no-index", str(wheel))
    return Installed(wheel, venv)


@pytest.fixture
def user(installed: Installed, tmp_path: Path) -> Iterator[User]:
    (tmp_path / "home").mkdir()
    (tmp_path / "work").mkdir()
    yield User(installed, tmp_path / "home", tmp_path / "work")
    shutil.rmtree(tmp_path / "home")  # its models are a quarter of a gigabyte; pytest keeps old runs' folders


def test_the_wheel_carries_the_defaults_and_runs_its_own_copy(user: User) -> None:
    names = set(zipfile.ZipFile(user.installed.wheel).namelist())
    shipped = [path.relative_to(CHECKOUT).as_posix() for path in paths.SHIPPED.rglob("*.toml")]
    assert shipped and set(shipped) <= names
    assert "voicemaster/data/config/default.toml" in names
    # The lab (benchmarks, corpora, fault drills) stays in the checkout: no file of it ships.
    assert [name for name in names if name.startswith("voicemaster_lab") or "/bench" in name] == []
    shown = user.run("-c", "import voicemaster.paths as p; print(p.__file__, p.checkout())", program="python")
    where, checkout = shown.stdout.split()
    assert Path(where).is_relative_to(user.installed.venv) and checkout == "None", shown.stderr


def test_questions_and_the_text_demo_work_from_another_folder(user: User) -> None:
    shown = user.run("questions", "stats", "--json")
    assert shown.returncode == 0, shown.stderr
    figures = json.loads(shown.stdout)
    assert set(figures) == {"de", "en", "fr"}
    assert list(figures["de"]["millionaire"]) == [str(level) for level in range(1, 16)]
    shown = user.run("demo", "--text", "--players", "2", "--seed", "5")
    assert shown.returncode == 0, shown.stderr
    assert "Question 1 for" in shown.stdout and "Game over" in shown.stdout
    assert list(user.work.iterdir()) == []


def test_a_first_run_without_a_model_says_in_one_line_what_to_run(user: User) -> None:
    clip = real_speech.load(["de"])[0]
    shown = user.run("hear", str(clip.path()), "--lang", "de", "--context", "answer")
    assert shown.returncode == 2
    assert "Traceback" not in shown.stderr and shown.stderr.count("\n") == 1
    assert shown.stderr.startswith("voicemaster: no whisper model")
    assert shown.stderr.strip().endswith("voicemaster models setup")
    listed = user.run("models", "list")
    assert f"Models live in {user.data / 'models'}." in listed.stdout and str(CHECKOUT) not in listed.stdout


def test_models_setup_installs_into_the_users_data_folder_once_and_then_the_program_hears(user: User) -> None:
    # The team's models stand in for the download (about 250 MB), through set-up's own shared-folder path.
    shared = manifest.models_dir()
    verify.require_model("whisper", "de", root=shared)  # fails with what to run if this checkout has none
    shown = user.run("models", "setup", "--shared", str(shared))
    assert shown.returncode == 0, shown.stderr
    for name in ("whisper-base", "kokoro-82m", "kokoro-voices"):
        assert f"models: {name}: copied from {shared / name}" in shown.stdout
        assert (user.data / "models" / name / ".voicemaster-install.json").is_file()
    again = user.run("models", "setup", "--shared", str(shared))
    assert again.returncode == 0, again.stderr
    assert "models: whisper-base: installed, ok (" in again.stdout and "copied" not in again.stdout

    clips = {clip.file: clip for clip in real_speech.load(["de"])}
    answer, yes = clips["de/answer-b.wav"], next(clip for clip in clips.values() if clip.intent == "yes")
    options = "|".join(answer.options)
    heard = user.run("hear", str(answer.path()), "--lang", "de", "--context", "answer", "--options", options, "--json")
    assert heard.returncode == 0, heard.stderr
    meaning = json.loads(heard.stdout)
    assert (meaning["intent"], meaning["value"]) == ("answer", "B")
    heard = user.run("hear", str(yes.path()), "--lang", "de", "--context", "confirm", "--json")
    assert heard.returncode == 0, heard.stderr
    assert json.loads(heard.stdout)["intent"] == "yes"
