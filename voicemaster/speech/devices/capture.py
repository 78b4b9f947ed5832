"""Which microphone the game started with, and whether it is still there.

Unplugging a microphone while the sound server (PulseAudio, PipeWire) has another source makes the server move the
recording stream there, often to a speaker's monitor: the stream goes on delivering silence and nothing fails. So
the game remembers at its start which microphone is in use and asks, now and then, whether it still exists.

- With a sound server: the source the game's own recording stream is on (found by its process id; a source chosen
  for the program in the mixer is followed, not the default), else the server's default source; a real source, or
  the monitor of a sink other than the speaker (a virtual or loopback microphone), never the speaker's own monitor.
  It is gone when the server no longer lists it, or when the server moved the game's stream onto the speaker's
  monitor (where a removed virtual microphone's stream lands).
- Without one (plain ALSA): the sound card that can record, if there is exactly one (with several, which one is in
  use cannot be told from here, and a card vanishing under ALSA breaks the stream, which `devices` notices anyway).

The parsing and the decision are pure; `look()` is the one place that runs `pactl` or reads /proc. When neither
tells anything, nothing is watched: a failed look never declares a microphone gone. A sound server that refuses the
connection is gone, with every device on it; one that does not answer in time (a loaded machine) tells nothing.

`present()` is how a stall is told from an unplug (`Microphone`, `Speaker`): a stream that gave or took no sound
for a while, on a device that is still there, was stalled (the process stopped by Ctrl-Z or SIGSTOP, a suspend, a
loaded machine), and the game carries on; only a device seen gone ends it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from voicemaster.speech.devices.interfaces import MicrophoneUnavailable
from voicemaster.speech.devices.portaudio import NO_DEVICE_HINT

PACTL_SECONDS = 2.0
"""At most this long for one `pactl` run: a server that hangs must not hang the game."""


class Via(StrEnum):
    """Where the list of microphones came from."""

    SERVER = "server"
    """A sound server's sources (`pactl`)."""
    ALSA = "alsa"
    """The kernel's sound cards (/proc/asound), with no sound server answering."""


@dataclass(frozen=True)
class Capture:
    """What can record, as seen at one moment."""

    via: Via
    microphones: frozenset[str]
    """Server source names that are not monitors, or ALSA card ids that have a capture device."""
    default: str | None = None
    """The server's default source (where a stream opened without a device goes); None under ALSA."""
    recording: str | None = None
    """The source this program's recording stream is on, if the server shows one; None under ALSA."""
    echoes: frozenset[str] = frozenset()
    """The monitors of the server's default sink: what the game plays, recorded back."""
    sources: frozenset[str] = frozenset()
    """Every source the server lists, monitors too; empty under ALSA."""


@dataclass(frozen=True)
class InUse:
    """The microphone the game started with."""

    via: Via
    name: str


def in_use(capture: Capture) -> InUse | None:
    """The microphone to watch, or None when it cannot be told (then nothing is ever declared gone)."""
    if capture.via is Via.SERVER:
        source = capture.recording or capture.default
        if source is not None and (source in capture.microphones or _virtual(source, capture)):
            return InUse(Via.SERVER, source)
        return None  # the speaker's own monitor, or no default: not a microphone anyone can unplug
    if len(capture.microphones) == 1:
        return InUse(Via.ALSA, next(iter(capture.microphones)))
    return None


def _virtual(source: str, capture: Capture) -> bool:
    """A monitor of another sink than the speaker: a virtual or loopback microphone, fed on purpose."""
    return source in capture.sources and source not in capture.echoes


def hears_only_itself(capture: Capture | None) -> bool:
    """Whether the game would record its own voice and nothing else: a sound server with no microphone records
    from the speaker's monitor, and the game would wait for ever on the silence between its own lines. A monitor of
    another sink may be a microphone routed on purpose (a loopback, a virtual device) and is left alone."""
    if capture is None or capture.via is not Via.SERVER:
        return False
    source = capture.recording or capture.default
    return source is not None and source in capture.echoes


def gone(microphone: InUse | None, now: Capture | None) -> bool:
    """Whether the microphone the game started with has disappeared. Only a look of the same kind counts: a sound
    server that stopped answering is not proof of anything (and a server gone breaks the stream anyway)."""
    if microphone is None or now is None or now.via is not microphone.via:
        return False
    if now.via is Via.SERVER and now.recording != microphone.name and now.recording in now.echoes:
        return True  # moved onto the speaker's monitor: the server lost the source the game recorded from
    return microphone.name not in (now.sources or now.microphones)


# --- parsing (pure) -----------------------------------------------------------------------------------------------


def parse_pactl(info: str, sources: str, outputs: str = "", pid: int | None = None) -> Capture:
    """`LC_ALL=C pactl info`, `... list sources` and `... list source-outputs`; `pid` is this program's process."""
    default, speaker = (
        next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.startswith(field)), None)
        for field in ("Default Source:", "Default Sink:")
    )
    microphones: set[str] = set()
    echoes: set[str] = set()
    listed: set[str] = set()
    names: dict[str, str] = {}
    name: str | None = None
    number = ""
    for line in sources.splitlines():
        stripped = line.strip()
        if stripped.startswith("Source #"):
            name = None
            number = stripped.removeprefix("Source #")
        elif stripped.startswith("Name:"):
            name = names[number] = stripped.split(":", 1)[1].strip()
            listed.add(name)
        elif stripped.startswith("Monitor of Sink:") and name is not None:
            monitored = stripped.split(":", 1)[1].strip()
            if monitored == "n/a":
                microphones.add(name)
            elif monitored == speaker:
                echoes.add(name)
    recording = _recording_source(outputs, pid) if pid is not None else None
    return Capture(
        Via.SERVER,
        frozenset(microphones),
        default or None,
        names.get(recording or ""),
        frozenset(echoes),
        frozenset(listed),
    )


def _recording_source(outputs: str, pid: int) -> str | None:
    """The number of the source `pid`'s recording stream is on (the first, if it has several)."""
    for block in outputs.split("Source Output #")[1:]:
        source = next(
            (line.split(":", 1)[1].strip() for line in block.splitlines() if line.strip().startswith("Source:")), None
        )
        if f'application.process.id = "{pid}"' in block and source is not None:
            return source
    return None


_CARD = re.compile(r"^\s*(\d+)\s+\[(\S+)\s*\]")
_PCM = re.compile(r"^(\d+)-\d+:.*\bcapture\s+\d+")


def parse_alsa(cards: str, pcm: str) -> Capture:
    """/proc/asound/cards and /proc/asound/pcm: the ids of the cards with a capture device."""
    ids = {match[1]: match[2] for line in cards.splitlines() if (match := _CARD.match(line))}
    recording = {str(int(match[1])) for line in pcm.splitlines() if (match := _PCM.match(line))}
    return Capture(Via.ALSA, frozenset(ids[number] for number in recording if number in ids))


# --- looking (I/O) ------------------------------------------------------------------------------------------------

Run = Callable[[list[str]], str | None]


def server_answers() -> bool | None:
    """Whether a sound server answers `pactl`: False when it refuses (gone, or none), None when it cannot be told (no
    `pactl`, or no answer in time on a loaded machine)."""
    if shutil.which("pactl") is None:
        return None
    try:
        shown = subprocess.run(
            ["pactl", "info"],
            env={**os.environ, "LC_ALL": "C"},
            capture_output=True,
            timeout=PACTL_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return shown.returncode == 0


def _pactl(args: list[str]) -> str | None:
    try:
        shown = subprocess.run(
            ["pactl", *args],
            env={**os.environ, "LC_ALL": "C"},  # the field names parsed above are the untranslated ones
            capture_output=True,
            text=True,
            timeout=PACTL_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return shown.stdout if shown.returncode == 0 else None


def look_server(run: Run = _pactl) -> Capture | None:
    """The sound server's sources, or None if `pactl` is not installed or no server answers."""
    if run is _pactl and shutil.which("pactl") is None:
        return None
    info = run(["info"])
    sources = run(["list", "sources"]) if info is not None else None
    if info is None or sources is None:
        return None
    return parse_pactl(info, sources, run(["list", "source-outputs"]) or "", os.getpid())


def look_alsa(proc: Path = Path("/proc/asound")) -> Capture | None:
    try:
        return parse_alsa((proc / "cards").read_text(errors="replace"), (proc / "pcm").read_text(errors="replace"))
    except OSError:
        return None


def look(via: Via | None = None) -> Capture | None:
    """What can record now: through the sound server if one answers, else ALSA's cards. Given `via`, only that
    way, so that a later look compares like with like (and never starts a server: `pactl` is only run when one
    answered at the start)."""
    if via is None:
        return look_server() or look_alsa()
    return look_server() if via is Via.SERVER else look_alsa()


class Watch:
    """The microphone the game listens with, and whether it is still there: `lost` is what `Microphone` asks while
    it listens. The first ask (the stream open, so the server shows which source it is on) remembers the microphone;
    every later ask looks again."""

    def __init__(self) -> None:
        self.microphone: InUse | None = None
        self._started = False
        self._via: Via | None = None

    def lost(self) -> str | None:
        """The name of the microphone if it has gone (a server source or an ALSA card id), else None."""
        if not self._started:
            self._started = True
            found = look()
            self._via = found.via if found is not None else None
            if hears_only_itself(found):
                raise MicrophoneUnavailable(
                    f"The sound server has no microphone, only what the speaker plays: {NO_DEVICE_HINT}."
                )
            self.microphone = in_use(found) if found is not None else None
            return None
        if self.microphone is None or not gone(self.microphone, look(self.microphone.via)):
            return None
        return self.microphone.name

    def present(self) -> bool | None:
        """Whether the microphone is still there: True seen, False seen gone (or its sound server gone), None when it
        cannot be told. Asked when the stream has been quiet too long: a stall, or an unplug?"""
        if self._via is Via.SERVER and server_answers() is False:
            return False
        if self.microphone is None:
            return None
        now = look(self.microphone.via)
        if now is None:
            return None
        return not gone(self.microphone, now)


def speaker_present() -> bool | None:
    """Whether the speaker is still there: with a sound server, whether it answers (a sink that goes makes the server
    move the stream to another one, which goes on taking sound; a server gone takes every device with it); None when
    that cannot be told (plain ALSA, where a card that goes breaks the stream, or no answer in time)."""
    return server_answers()
