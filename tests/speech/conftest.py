"""A private PulseAudio daemon with a virtual microphone and speaker, for tests through the real sounddevice path.

Two null sinks at 16 kHz mono: what is played into `vmic` is what the microphone hears (its monitor is the default
source), what the program plays goes to `vspk` (the default sink) and is recorded from its monitor. `norewinds=1`
keeps the null sinks from dropping the start of a sound (NOTES-audio.md). The daemon runs in the foreground as our
child, with its socket, runtime and state in a temporary folder, so it never meets another daemon on the machine and
is stopped by its own process id. PortAudio reaches it through ALSA's pulse plugin (libasound2-plugins), which
follows PULSE_SERVER; PortAudio lists devices once, so it is restarted (`devices.rescan`) once the daemon is up.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from voicemaster.config.settings import default_paths, load_settings
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.signal import resample, to_float
from voicemaster.speech.voice.synthesis import Espeak

RATE = 16_000


@pytest.fixture(scope="session")
def ear(whisper: Callable[[str], WhisperRecognizer]) -> WhisperRecognizer:
    """Whisper base, to check by ear that a voice says what it was given."""
    return whisper("en")


@pytest.fixture(scope="session")
def espeak() -> Espeak:
    """The quizmaster's voices as shipped; also the voice of scripted players."""
    return Espeak(load_settings(default_paths()[:1]).speech)


def matches(heard: Audio, spoken: Audio) -> float:
    """How well the sound in `spoken` is found in `heard`: 1.0 is all of it, unchanged.

    The normalized correlation at the best offset, over `spoken` from its first to its last audible sample (so the
    silence a synthesizer adds around words does not count), after converting it to `heard`'s rate.
    """
    a = to_float(heard).astype(np.float64)
    b = to_float(resample(spoken, heard.rate)).astype(np.float64)
    loud = np.nonzero(np.abs(b) > 0.01)[0]
    b = b[loud[0] : loud[-1] + 1]
    if len(a) < len(b):
        return 0.0
    scores = np.correlate(a, b, "valid")
    best = int(np.argmax(scores))
    return float(scores[best] / np.sqrt(np.sum(b**2) * np.sum(a[best : best + len(b)] ** 2) + 1e-12))


@dataclass
class Recording:
    """What the virtual speaker received while recording; filled in when the recording stops."""

    audio: Audio = field(default_factory=lambda: Audio(b"", RATE))


@dataclass
class Pulse:
    """One running daemon: its process, its address (a PULSE_SERVER value) and its folder."""

    process: subprocess.Popen[bytes]
    server: str
    folder: Path

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
        """Record the virtual speaker while the block runs (the recorder is connected before the block starts)."""
        recording = Recording()
        target = Path(tempfile.mkstemp(suffix=".raw", dir=self.folder)[1])
        # Into a file, not a pipe: a pipe nobody reads fills after two seconds and the recorder stalls.
        with target.open("wb") as file:
            recorder = subprocess.Popen(
                ["parecord", "--device=vspk.monitor", "--raw", "--format=s16le", f"--rate={RATE}", "--channels=1",
                 "--latency-msec=20"],
                env=self.env,
                stdout=file,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
        _wait_for(lambda: "parecord" in self.pactl("list", "source-outputs"), "parecord to connect")
        try:
            yield recording
        finally:
            time.sleep(0.3)  # what the speaker played last is still on its way to the recorder
            recorder.send_signal(signal.SIGINT)
            recorder.wait(timeout=5)
            samples = target.read_bytes()
            recording.audio = Audio(samples[: len(samples) // 2 * 2], RATE)

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


def start_pulse(folder: Path) -> Pulse:
    """Start a daemon with the virtual microphone and speaker; raises with its log if it does not come up."""
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
    pulse = Pulse(process, f"unix:{socket}", folder)
    try:
        _wait_for(lambda: process.poll() is not None or _answers(pulse), "the PulseAudio daemon to start", seconds=10)
        if process.poll() is not None:
            raise RuntimeError(f"pulseaudio exited with {process.returncode}")
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


def _answers(pulse: Pulse) -> bool:
    shown = subprocess.run(["pactl", "info"], env=pulse.env, capture_output=True, check=False)
    return shown.returncode == 0


def _wait_for(ready: Callable[[], bool], what: str, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.02)


@pytest.fixture(scope="session")
def pulse() -> Iterator[Pulse]:
    missing = [tool for tool in ("pulseaudio", "pactl", "paplay", "parecord") if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"PulseAudio is not installed ({', '.join(missing)} missing): sudo apt-get install pulseaudio "
                    "pulseaudio-utils libasound2-plugins")  # fmt: skip
    from voicemaster.speech.devices import portaudio as devices

    # A short folder name: the socket path must fit in 108 bytes.
    daemon = start_pulse(Path(tempfile.mkdtemp(prefix="vm-pulse-")))
    with pytest.MonkeyPatch.context() as patch:
        for name, value in daemon.env.items():
            if name.startswith("PULSE_"):
                patch.setenv(name, value)
        devices.rescan()
        try:
            yield daemon
        finally:
            daemon.stop()
    devices.rescan()
    shutil.rmtree(daemon.folder, ignore_errors=True)
