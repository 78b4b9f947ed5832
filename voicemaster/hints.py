"""What to run to get a missing piece, said for the machine the user is on.

A message that names the wrong tool ("apt-get" on a Mac, `.venv/bin/pip` outside a checkout) leaves the user as stuck
as a traceback would, so every "is not installed" message takes its command from here.
"""

from __future__ import annotations

import shutil
import sys
from importlib import metadata

from voicemaster import paths

SYSTEM_PACKAGES = {
    "espeak-ng": {"apt-get": "espeak-ng", "dnf": "espeak-ng", "pacman": "espeak-ng", "brew": "espeak-ng"},
    "portaudio": {"apt-get": "libportaudio2", "dnf": "portaudio", "pacman": "portaudio", "brew": "portaudio"},
}
"""Per library voicemaster needs from the system, its package for each package manager."""
INSTALL_COMMANDS = {
    "apt-get": "sudo apt-get install {}",
    "dnf": "sudo dnf install {}",
    "pacman": "sudo pacman -S {}",
    "brew": "brew install {}",
}
WINDOWS = {
    "espeak-ng": "install eSpeak NG from https://github.com/espeak-ng/espeak-ng/releases",
    # sounddevice's Windows wheels carry PortAudio: without it, the wheel itself is broken.
    "portaudio": "reinstall sounddevice (`pip install --force-reinstall sounddevice`), whose wheel brings PortAudio",
}


def system_package(library: str) -> str:
    """How to install a system library here, e.g. "run `sudo apt-get install espeak-ng`"."""
    if sys.platform == "win32":
        return WINDOWS[library]
    packages = SYSTEM_PACKAGES[library]
    managers = ["brew"] if sys.platform == "darwin" else ["apt-get", "dnf", "pacman"]
    for manager in managers:
        if shutil.which(manager):
            return f"run `{INSTALL_COMMANDS[manager].format(packages[manager])}`"
    return f"install {library} with your system's package manager (Debian and Ubuntu: {packages['apt-get']})"


def python_extra(extra: str) -> str:
    """How to add one of voicemaster's extras (whisper, voice, audio, vosk) to the installation that is running."""
    if paths.checkout() is not None:
        return f"run `make demo`, or `.venv/bin/pip install -e '.[{extra}]'` in the checkout"
    packages = " ".join(f"'{requirement}'" for requirement in _extra_requirements(extra)) or f"'voicemaster[{extra}]'"
    return f"install voicemaster's {extra} extra: `pipx inject voicemaster {packages}` (or `pip install {packages}`)"


def _extra_requirements(extra: str) -> list[str]:
    """The packages an extra adds, as the installed metadata lists them (`numpy>=1.24; extra == "audio"`)."""
    try:
        requirements = metadata.requires(paths.APP) or []
    except metadata.PackageNotFoundError:
        return []
    marker = f'extra == "{extra}"'
    return [requirement.split(";")[0].strip() for requirement in requirements if marker in requirement]
