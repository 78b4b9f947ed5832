"""pyttsx3, the portable voice: SAPI5 on Windows, NSSS on macOS, libespeak-ng elsewhere, rendered to a file we play.

pyttsx3 only speaks through the system or into a file, so every sentence goes to `save_to_file` and is read back:
the program then plays it itself, and timing, barge-in and the session file work as with the other engines. Its
traps (pyttsx3 2.99 with libespeak-ng 1.51), and what is done about each:

- `runAndWait()` can return before the file is written: the eSpeak driver synthesizes on eSpeak's own thread and
  leaves its loop after one 10 ms pause. With another thread busy in Python it returned with no file yet about once
  in 60 sentences. So we wait for the driver's "finished-utterance" and for a file holding every byte its header
  announces, within a bounded time.
- The eSpeak driver writes 22 050 Hz into every header. That is eSpeak-NG's rate for its own voices (the same
  duration as `espeak-ng -w`), but MBROLA voices run at 16 kHz: the rate is asked from the library
  (`espeak_ng_GetSampleRate`) and the header is overruled where they differ.
- The eSpeak driver never forgets its last `save_to_file` target: a later `say()` or an empty `runAndWait()` writes
  there again. We never call `say()` (it would also play through `aplay`), and every sentence goes to a new file in
  a new folder that is read once and removed, so no file is ever read twice or written after it was read.
- The driver prints "Audio saved to ..." on standard output, from eSpeak's thread: its module's `print` is
  silenced, rather than redirecting `sys.stdout`, which would swallow what other threads print meanwhile.
- Settings can be lost (not in the notes; found here): the eSpeak driver queues voice, rate and volume on eSpeak's
  thread, and `runAndWait()` cancels what is still queued. Alternating 160 and 320 words a minute, 9 to 12 of 40
  sentences came out at the other rate. We wait for eSpeak to apply them (`_settle`) and check, after each
  sentence, that the voice, rate and volume in force were ours, rendering it again if not.
- A voice the driver cannot set is reported on its "error" event only, and the sentence is spoken in the previous
  voice: names are checked against the driver's list first, and errors raised.
"""

from __future__ import annotations

import functools
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicemaster.config.voice import Voice
from voicemaster.speech.audio import Audio
from voicemaster.speech.sound_file import Sound, read_complete
from voicemaster.speech.voice.synthesis import ESPEAK_VOICES, SpeechUnavailable

INSTALL = "pip install 'voicemaster[pyttsx3]'` (on Linux also `sudo apt-get install libespeak-ng1`)"
SECONDS_PER_CHARACTER = 0.2
"""How long a sentence may take to be written: generous (eSpeak writes 30 s of speech in 60 ms; SAPI5 and NSSS
speak into the file about 10 times faster than real time), so a stall is reported rather than waited for forever."""
LEAST_WAIT_SECONDS = 10.0
RATE_RANGE = (80, 450)
"""What eSpeak-NG takes in words a minute; it clamps to it."""
ATTEMPTS = 2
"""Renders of a sentence whose settings the driver did not take, before giving up."""
STEADY_SECONDS = 0.2
"""A complete file that has not changed this long counts as finished when the driver never says so."""


@dataclass(frozen=True)
class Pyttsx3Voice:
    id: str
    """What the driver's `voice` property takes: "gmw/en-us" (eSpeak), a registry key (SAPI5), a bundle id (NSSS)."""
    name: str
    languages: tuple[str, ...]
    """Lower case, with "-": "en-gb"."""

    def speaks(self, language: str) -> bool:
        return any(code == language or code.startswith(f"{language}-") for code in self.languages)


class Pyttsx3Speech:
    """One pyttsx3 engine for the whole process: its drivers keep global state (libespeak-ng can be initialized once
    a process, and its callback goes to the last driver built), so a second engine would steal the first's audio."""

    def __init__(self, driver: str | None = None) -> None:
        _same_espeak_data_as_kokoro()
        try:
            import pyttsx3

            self._engine: Any = pyttsx3.init(driver)
        except ImportError:
            raise SpeechUnavailable(f"pyttsx3 is not installed: run `{INSTALL}.") from None
        except Exception as error:  # the drivers raise RuntimeError, OSError, or comtypes' and objc's own errors
            raise SpeechUnavailable(f"pyttsx3 cannot reach a speech synthesizer ({error}): run `{INSTALL}.") from None
        self._lock = threading.Lock()
        self._finished = threading.Event()
        self._errors: list[str] = []
        self._engine.connect("finished-utterance", self._on_finished)
        self._engine.connect("error", self._on_error)
        _silence(self._engine.driver_name)
        if self._engine.driver_name == "espeak":
            # A new engine holds its first settings back until a run; an empty run sends them, so that ours go
            # out at once (and `_settle` can wait for them).
            self._engine.runAndWait()
        self.voices = tuple(_voice(entry) for entry in self._engine.getProperty("voices"))

    def voices_for(self, language: str) -> list[Pyttsx3Voice]:
        """The driver's voices for the language, the one chosen when none is named first."""
        speaking = [voice for voice in self.voices if voice.speaks(language)]
        preferred = (ESPEAK_VOICES.get(language, language), language, f"{language}-{language}")
        return sorted(speaking, key=lambda voice: _rank(voice, preferred))

    def voice_id(self, name: str, language: str) -> str:
        """The driver's id for a voice named by id, name or language code; with no name, the language's voice."""
        if not name:
            found = self.voices_for(language)
            if not found:
                raise SpeechUnavailable(f"pyttsx3 has no voice for {language!r}; `voicemaster voices` lists them.")
            return found[0].id
        for voice in self.voices:
            if name in (voice.id, voice.name) or name.lower() in (voice.name.lower(), *voice.languages):
                return voice.id
        raise SpeechUnavailable(f"pyttsx3 has no voice {name!r}; `voicemaster voices` lists those it has.")

    def render(self, text: str, voice: Voice, language: str) -> Audio:
        """The sentence in the voice (or, with no name, the language's), as 16-bit mono at the rate the samples
        really have."""
        voice_id = self.voice_id(voice.name, language)
        if not text.strip():
            return Audio(b"", self._default_rate())
        with self._lock:  # one sentence at a time: the driver has one buffer and one target
            for _ in range(ATTEMPTS):
                sound, applied = self._render_once(text, voice_id, voice)
                if applied:
                    break
            else:
                raise SpeechUnavailable(f"pyttsx3 did not take the voice {voice_id!r} at {voice.rate} words a minute")
            real_rate = _library_rate(self._engine.driver_name)
        audio = sound.to_audio(real_rate)
        return _louder(audio, voice.volume / 100) if voice.volume > 100 else audio

    def _render_once(self, text: str, voice_id: str, voice: Voice) -> tuple[Sound, bool]:
        """The sentence as written, and whether it was spoken with the voice, rate and volume asked for."""
        folder = Path(tempfile.mkdtemp(prefix="voicemaster-pyttsx3-"))
        try:
            target = folder / "speech.wav"
            self._finished.clear()
            self._errors.clear()
            self._engine.setProperty("voice", voice_id)
            self._engine.setProperty("rate", voice.rate)
            # pyttsx3's 1.0 is each system's normal loudness; above it the samples are scaled (`_louder`).
            volume = min(voice.volume, 100) / 100
            self._engine.setProperty("volume", volume)
            _settle(self._engine.driver_name)
            self._engine.save_to_file(text, str(target))
            self._engine.runAndWait()
            sound = self._wait_for(target, text)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return sound, _applied(self._engine.driver_name, voice_id, voice.rate, volume)

    def _wait_for(self, target: Path, text: str) -> Sound:
        allowed = max(LEAST_WAIT_SECONDS, SECONDS_PER_CHARACTER * len(text))
        deadline = time.monotonic() + allowed
        last: tuple[int, float] | None = None
        while time.monotonic() < deadline:
            if self._errors:
                raise SpeechUnavailable(f"pyttsx3 could not speak: {'; '.join(self._errors)}")
            sound = read_complete(target)
            if sound is not None:
                size = len(sound.samples)
                if self._finished.is_set():
                    return sound
                if last is None or last[0] != size:
                    last = (size, time.monotonic())
                elif time.monotonic() - last[1] > STEADY_SECONDS:
                    return sound
            self._finished.wait(0.01)
        raise SpeechUnavailable(f"pyttsx3 did not finish writing the sentence within {allowed:.0f} s")

    def _default_rate(self) -> int:
        return _library_rate(self._engine.driver_name) or 22_050

    def _on_finished(self, **_event: object) -> None:
        self._finished.set()

    def _on_error(self, exception: object = None, **_event: object) -> None:
        self._errors.append(str(exception))


def _same_espeak_data_as_kokoro() -> None:
    """Kokoro's phonemizer loads its own libespeak-ng (espeakng-loader), built with a data path of its build machine.
    pyttsx3 asks for `libespeak-ng.so.1` by name and gets that copy when it is loaded already; initialized without a
    path it then looks for data that is not there, and libespeak-ng ends the whole process. The environment variable
    points it at the copy's own data."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:  # not Linux
        return
    if "espeakng_loader" not in maps:
        return
    import espeakng_loader  # type: ignore[import-untyped]

    os.environ.setdefault("ESPEAK_DATA_PATH", espeakng_loader.get_data_path())


@functools.cache
def shared() -> Pyttsx3Speech:
    """The process's engine, built when first asked for (a failure is not kept: the next call tries again)."""
    return Pyttsx3Speech()


def _voice(entry: Any) -> Pyttsx3Voice:
    languages = []
    for code in entry.languages or ():
        if isinstance(code, bytes):  # older drivers hand out eSpeak's raw bytes
            code = code.decode(errors="replace").lstrip("\x05")
        languages.append(str(code).lower().replace("_", "-"))
    return Pyttsx3Voice(str(entry.id), str(entry.name or entry.id), tuple(languages))


def _rank(voice: Pyttsx3Voice, preferred: tuple[str, ...]) -> int:
    for rank, code in enumerate(preferred):
        if code in voice.languages:
            return rank
    return len(preferred)


def _silence(driver: str) -> None:
    """The eSpeak driver announces every file it saves with print(); a module-level name shadows the built-in for
    that module only."""
    if driver == "espeak":
        from pyttsx3.drivers import espeak

        espeak.print = _ignore


def _ignore(*_args: object, **_kwargs: object) -> None:
    return None


def _settle(driver: str) -> None:
    """Let eSpeak-NG apply the voice, rate and volume before the sentence starts. It queues them on its own thread,
    and `runAndWait()` cancels what is still queued (its stop() calls espeak_Cancel while eSpeak is busy): without
    this, one sentence in four came out at the previous rate."""
    if driver != "espeak":
        return
    from pyttsx3.drivers import _espeak

    _espeak.Synchronize()


def _applied(driver: str, voice_id: str, rate: int, volume: float) -> bool:
    """Whether eSpeak-NG spoke with these settings (other drivers set them at once and are trusted). pyttsx3 reads
    parameters with the `current` flag missing, so its getProperty may answer the default: asked here directly."""
    if driver != "espeak":
        return True
    from pyttsx3.drivers import _espeak

    current = _espeak.GetCurrentVoice()
    spoken = current.contents.identifier.decode(errors="replace").lower() if current else ""
    wanted_rate = min(max(rate, RATE_RANGE[0]), RATE_RANGE[1])
    parameters = (_espeak.dll.espeak_GetParameter(_espeak.RATE, 1), _espeak.dll.espeak_GetParameter(_espeak.VOLUME, 1))
    return spoken == voice_id.lower() and parameters == (wanted_rate, round(volume * 100))


def _library_rate(driver: str) -> int | None:
    """The rate eSpeak-NG really renders at for the current voice (22 050 Hz, 16 000 for MBROLA voices), which the
    eSpeak driver's header does not tell; None for other drivers, whose headers are right, or an old libespeak."""
    if driver != "espeak":
        return None
    from pyttsx3.drivers import _espeak

    try:
        rate = int(_espeak.dll.espeak_ng_GetSampleRate())
    except AttributeError:  # libespeak (not -ng) has no such function
        return None
    return rate if rate > 0 else None


def _louder(audio: Audio, gain: float) -> Audio:
    from voicemaster.speech.signal import from_float, to_float

    return from_float(to_float(audio) * gain, audio.rate)
