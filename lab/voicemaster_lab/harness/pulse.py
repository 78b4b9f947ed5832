"""A private PulseAudio daemon with a virtual microphone and speaker: the real sounddevice path without hardware, for
the slow tests and `voicemaster bench live`.

Two null sinks at 16 kHz mono: what is played into `vmic` is what the microphone hears (its monitor is the default
source), what the program plays goes to `vspk` (the default sink) and is recorded from its monitor. `norewinds=1`
keeps the null sinks from dropping the start of a sound (docs/speech.md). The daemon runs in the foreground as our
child, with its socket, runtime and state in a temporary folder, so it never meets another daemon on the machine and
is stopped by its own process id. PortAudio reaches it through ALSA's pulse plugin (libasound2-plugins), which
follows PULSE_SERVER; PortAudio lists devices once, so a process that was already using it must rescan
(`speech.devices.portaudio.rescan`) once the daemon is up.

`bus=True` lays the two devices out on one clock, for timing what a player waits for: `vmic` and `vspk` are then the
left and right channel of one stereo null sink `vbus` (remap sinks), and the microphone (`vmicin`, the default
source) hears only the left. Recording `vbus.monitor` gives the player's speech and the quizmaster's voice
sample-aligned in one stream: both pass through the same mixer in the same block (measured: a click played into
both at once lands on the same sample, or one 20 ms block apart when the two players started that far apart).

`room=True` puts a room between them (`harness.mixer`): the bus `vbus` gets a third channel, and nothing plays into
the microphone but one two-channel stream into `vroom`, whose left is what the microphone hears (`vbus` left, the
default source `vmicin` as on the bus) and whose right lands on the third channel: a running count of the samples
written, so that where each of them was heard can be read off the bus.
"""

from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

from voicemaster.speech.audio import Audio

RATE = 16_000
TOOLS = ("pulseaudio", "pactl", "paplay", "parecord")
INSTALL_HINT = "sudo apt-get install pulseaudio pulseaudio-utils libasound2-plugins"
TAIL_SECONDS = 0.3
"""Recorded after a recording's block ends: the sound played last is still on its way to the recorder."""
LATE_SECONDS = 10.0
"""How long a recorder may take to catch up with the block's end: a guard for a stalled one, not a measurement."""


@dataclass
class Recording:
    """What the recorded device received while recording; filled in when the recording stops."""

    audio: Audio = field(default_factory=lambda: Audio(b"", RATE))
    channels: int = 1
    started: float = 0.0
    """`time.monotonic()` when the recorder was connected: where, roughly, its first sample is."""


@dataclass
class Pulse:
    """One running daemon: its process, its address (a PULSE_SERVER value) and its folder."""

    process: subprocess.Popen[bytes]
    server: str
    folder: Path
    bus: bool = False
    room: bool = False

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "PULSE_SERVER": self.server, "PULSE_COOKIE": str(self.folder / "cookie")}

    def pactl(self, *args: str) -> str:
        shown = subprocess.run(["pactl", *args], env=self.env, capture_output=True, text=True, check=False)
        if shown.returncode != 0:
            raise RuntimeError(f"pactl {' '.join(args)} failed: {shown.stderr.strip()}")
        return shown.stdout.strip()

    def feed_microphone(self, audio: Audio) -> subprocess.Popen[bytes]:
        """Start playing `audio` into the virtual microphone; returns the player process (wait() for its end)."""
        source = Path(tempfile.mkstemp(suffix=".wav", dir=self.folder)[1])
        audio.write(source)
        return subprocess.Popen(["paplay", "--device=vmic", str(source)], env=self.env, stderr=subprocess.DEVNULL)

    @contextmanager
    def record_speaker(self) -> Iterator[Recording]:
        """Record the virtual speaker while the block runs (the recorder is connected before the block starts); on
        the bus, both channels: the microphone's left, the speaker's right."""
        with self._record("vbus.monitor" if self.bus else "vspk.monitor", 2 if self.bus else 1) as recording:
            yield recording

    @contextmanager
    def _record(self, device: str, channels: int) -> Iterator[Recording]:
        recording = Recording(channels=channels)
        target = Path(tempfile.mkstemp(suffix=".raw", dir=self.folder)[1])
        # Into a file, not a pipe: a pipe nobody reads fills after two seconds and the recorder stalls.
        with target.open("wb") as file:
            recorder = subprocess.Popen(
                ["parecord", f"--device={device}", "--raw", "--format=s16le", f"--rate={RATE}",
                 f"--channels={channels}", "--latency-msec=20"],
                env=self.env,
                stdout=file,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
        wait_for(lambda: "parecord" in self.pactl("list", "source-outputs"), "parecord to connect")
        recording.started = time.monotonic()
        try:
            yield recording
        finally:
            # What the speaker played last is still on its way to the recorder, which a loaded machine runs late:
            # it stops once it has written as long as the block lasted and TAIL_SECONDS more.
            covered = (time.monotonic() - recording.started + TAIL_SECONDS) * RATE * 2 * channels
            with suppress(TimeoutError):  # a recorder this late has stalled: what it wrote is the recording
                wait_for(lambda: target.stat().st_size >= covered, "the recorder to catch up", LATE_SECONDS)
            recorder.send_signal(signal.SIGINT)
            recorder.wait(timeout=5)
            samples = target.read_bytes()
            frame = 2 * channels
            recording.audio = Audio(samples[: len(samples) // frame * frame], RATE)
            target.unlink(missing_ok=True)

    @contextmanager
    def echo(self) -> Iterator[None]:
        """Let the microphone hear the speaker, as in a car: a loopback from the speaker's monitor into vmic."""
        module = self.pactl("load-module", "module-loopback", "source=vspk.monitor", "sink=vmic", "latency_msec=60")
        try:
            yield
        finally:
            self.pactl("unload-module", module)

    def plug_in_microphone(self) -> str:
        """A microphone that is a real source (not a monitor, as a USB one is), on what `vmic` plays, made the
        default; returns its module: unloading it unplugs the microphone, and the server moves its streams to
        another source."""
        module = self.pactl("load-module", "module-remap-source", "master=vmic.monitor", "source_name=usbmic")
        self.pactl("set-default-source", "usbmic")
        return module

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def missing_tools() -> list[str]:
    import shutil

    return [tool for tool in TOOLS if shutil.which(tool) is None]


def start_pulse(folder: Path, *, bus: bool = False, room: bool = False) -> Pulse:
    """Start a daemon with the virtual microphone and speaker; raises RuntimeError with its log if it does not come
    up. `folder` must have a short path: the socket's must fit in 108 bytes."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    socket = folder / "native"
    env = {
        **os.environ,
        "XDG_RUNTIME_DIR": str(folder),
        "PULSE_RUNTIME_PATH": str(folder),
        "PULSE_STATE_PATH": str(folder / "state"),
        "HOME": str(folder),  # as root, the daemon otherwise keeps a cookie and a runtime link in root's home
    }
    log = (folder / "daemon.log").open("wb")
    process = subprocess.Popen(
        [
            "pulseaudio",
            "--daemonize=no",
            "--exit-idle-time=-1",
            "--system=false",
            "--use-pid-file=no",
            "-n",  # no default.pa: only the modules loaded here, nothing that probes for sound cards
            f"--load=module-native-protocol-unix auth-anonymous=1 socket={socket}",
            "--log-target=stderr",
        ],
        env=env,
        stdout=log,
        stderr=log,
    )
    log.close()
    pulse = Pulse(process, f"unix:{socket}", folder, bus, room)
    try:
        wait_for(lambda: process.poll() is not None or _answers(pulse), "the PulseAudio daemon to start", seconds=10)
        if process.poll() is not None:
            raise RuntimeError(f"pulseaudio exited with {process.returncode}")
        if room:
            _load_room(pulse)
        elif bus:
            _load_bus(pulse)
        else:
            for name in ("vmic", "vspk"):
                pulse.pactl(
                    "load-module", "module-null-sink", f"sink_name={name}", f"rate={RATE}", "channels=1", "norewinds=1"
                )
            pulse.pactl("set-default-source", "vmic.monitor")
        pulse.pactl("set-default-sink", "vspk")
    except (RuntimeError, TimeoutError) as error:
        pulse.stop()
        shown = (folder / "daemon.log").read_text(errors="replace")
        raise RuntimeError(f"{error}; daemon log:\n{shown}") from None
    return pulse


def _load_bus(pulse: Pulse) -> None:
    mono = ("channels=1", "channel_map=mono", "remix=no", f"rate={RATE}")
    pulse.pactl("load-module", "module-null-sink", "sink_name=vbus", f"rate={RATE}", "channels=2",
                "channel_map=front-left,front-right", "norewinds=1")  # fmt: skip
    pulse.pactl("load-module", "module-remap-sink", "sink_name=vmic", "master=vbus", "master_channel_map=front-left",
                *mono)  # fmt: skip
    pulse.pactl("load-module", "module-remap-sink", "sink_name=vspk", "master=vbus", "master_channel_map=front-right",
                *mono)  # fmt: skip
    pulse.pactl("load-module", "module-remap-source", "source_name=vmicin", "master=vbus.monitor",
                "master_channel_map=front-left", *mono)  # fmt: skip
    pulse.pactl("set-default-source", "vmicin")


ROOM_CHANNELS = 3
ROOM_MAP = "front-left,front-right,rear-left"
"""The room's bus: the microphone, the speaker, the count of samples written into `vroom`. A recorder must ask for
this map: with its own default for three channels the server would remix them."""


def _load_room(pulse: Pulse) -> None:
    mono = ("channels=1", "channel_map=mono", "remix=no", f"rate={RATE}")
    pulse.pactl("load-module", "module-null-sink", "sink_name=vbus", f"rate={RATE}", f"channels={ROOM_CHANNELS}",
                f"channel_map={ROOM_MAP}", "norewinds=1")  # fmt: skip
    pulse.pactl("load-module", "module-remap-sink", "sink_name=vspk", "master=vbus", "master_channel_map=front-right",
                *mono)  # fmt: skip
    pulse.pactl("load-module", "module-remap-sink", "sink_name=vroom", "master=vbus", "channels=2",
                "master_channel_map=front-left,rear-left", "channel_map=front-left,front-right", "remix=no",
                f"rate={RATE}")  # fmt: skip
    pulse.pactl("load-module", "module-remap-source", "source_name=vmicin", "master=vbus.monitor",
                "master_channel_map=front-left", *mono)  # fmt: skip
    pulse.pactl("set-default-source", "vmicin")


def _answers(pulse: Pulse) -> bool:
    shown = subprocess.run(["pactl", "info"], env=pulse.env, capture_output=True, check=False)
    return shown.returncode == 0


def wait_for(ready: Callable[[], bool], what: str, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.02)
