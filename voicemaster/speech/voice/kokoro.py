"""Kokoro-82M, a natural voice for English and French, run by kokoro-onnx on onnxruntime.

One model speaks every language; a voice is a table of style vectors (one row per phoneme count). The model comes
from the `kokoro-82m` entry of the model manifest, the voices from `kokoro-voices` (both installed by set-up). Kokoro
has no German voice: German stays with eSpeak-NG (`speech/voice/speakers.py` chooses).
"""

from __future__ import annotations

import hashlib
import logging
import os
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from voicemaster import paths
from voicemaster.config.voice import Voice
from voicemaster.hints import python_extra
from voicemaster.speakable import Unspeakable
from voicemaster.speech import onnx_runtime
from voicemaster.speech.audio import Audio
from voicemaster.speech.signal import from_float
from voicemaster.speech.voice.synthesis import SpeechUnavailable, Stopped

MODEL, VOICES = "kokoro-82m", "kokoro-voices"
MODEL_FILE = "kokoro-v1.0.int8.onnx"
STYLE_WIDTH = 256
NORMAL_RATE = 160
"""The words a minute that Kokoro's speed 1.0 stands for, as eSpeak-NG's default: a voice's `rate` means the same
with either engine."""
ENGINE_VERSION = "kokoro-onnx 0.6.1, kokoro-v1.0.int8, no language flags"
"""Part of the key of every rendered line in the cache: a new model or library, or new phonemes, render anew."""
SLOWEST_SPEED, FASTEST_SPEED = 0.5, 2.0
"""What the model accepts."""


@dataclass(frozen=True)
class KokoroVoice:
    name: str
    language: str
    """The language voicemaster offers it for."""
    phonemes: str
    """The eSpeak-NG language its text is phonemized as: the accent it speaks with."""


VOICE_LIST = (
    KokoroVoice("af_heart", "en", "en-us"),
    KokoroVoice("af_bella", "en", "en-us"),
    KokoroVoice("am_michael", "en", "en-us"),
    KokoroVoice("am_adam", "en", "en-us"),
    KokoroVoice("bf_emma", "en", "en-gb"),
    KokoroVoice("bf_isabella", "en", "en-gb"),
    KokoroVoice("bm_george", "en", "en-gb"),
    KokoroVoice("bm_lewis", "en", "en-gb"),
    KokoroVoice("ff_siwis", "fr", "fr-fr"),
)
"""The voices the manifest installs. Kokoro has one French voice: French players in the demo borrow English voices
speaking French phonemes, as people with an accent do."""

KOKORO_VOICES = {voice.name: voice for voice in VOICE_LIST}
DEFAULT_VOICE = {"en": "bf_emma", "fr": "ff_siwis"}
"""The quizmaster's: a British host for the English game, as the UK show has one."""


def voice_names(language: str) -> list[str]:
    return [voice.name for voice in VOICE_LIST if voice.language == language]


def installed() -> tuple[Path, Path] | None:
    """The model file and the voices folder, when both are installed."""
    from voicemaster.models.verify import installed_path

    model, voices = installed_path(MODEL), installed_path(VOICES)
    if model is None or voices is None:
        return None
    return model / MODEL_FILE, voices / "voices"


def speaks(language: str) -> bool:
    return bool(voice_names(language)) and installed() is not None


class Kokoro:
    """Renders sentences in Kokoro voices: about as long as the audio lasts on two cores, so `Speakers` keeps each
    rendered line on disk."""

    def __init__(self, files: tuple[Path, Path] | None = None) -> None:
        files = files or installed()
        if files is None:
            raise SpeechUnavailable("the Kokoro voice is not installed: run `voicemaster models setup`.")
        try:
            onnxruntime = onnx_runtime.onnxruntime()  # telemetry off before kokoro-onnx loads it
            from kokoro_onnx import Kokoro as Engine
        except ImportError:
            raise SpeechUnavailable(f"kokoro-onnx is not installed: {python_extra('voice')}.") from None
        model, voice_folder = files
        # The phonemizer warns on stderr about "words count mismatch" for most sentences with punctuation: noise on
        # a player's terminal, and nothing the player can act on.
        logging.getLogger("phonemizer").setLevel(logging.ERROR)
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = os.cpu_count() or 1
        session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self._engine: Any = Engine.from_session(session, str(_voice_tables(voice_folder)))
        self._engine.sess = _Stoppable(session, onnxruntime.RunOptions)
        # kokoro-onnx keeps the voice file open for as long as it lives: read the tables and close it.
        with self._engine.voices as tables:
            self._engine.voices = {name: tables[name] for name in tables.files}

    def speak(self, text: str, voice: Voice) -> Audio:
        known = KOKORO_VOICES.get(voice.name)
        if known is None:
            raise SpeechUnavailable(f"Kokoro has no voice {voice.name!r}; `voicemaster voices` lists those it has.")
        speed = min(max(voice.rate / NORMAL_RATE, SLOWEST_SPEED), FASTEST_SPEED)
        self._engine.sess.begin()
        try:
            phonemes = self.phonemes(text, known.phonemes)
            samples, rate = self._engine.create(phonemes, voice=voice.name, speed=speed, is_phonemes=True)
        except ValueError:  # kokoro-onnx: "Nothing to synthesize, ... produced no phonemes"
            raise Unspeakable(f"Kokoro reads no sound in {text[:40]!r}: write it in words.") from None
        return from_float(np.asarray(samples, dtype=np.float32) * (voice.volume / 100), rate)

    def stop(self) -> None:
        """Stops the line being rendered (`speak` raises `Stopped` within milliseconds; a line whose sounds are still
        being made, as its run starts); the engine renders the next line as usual. onnxruntime's
        `RunOptions.terminate` ends a run cleanly, unlike a session destroyed mid-run (`RenderQueue.close`)."""
        self._engine.sess.stop()

    def phonemes(self, text: str, accent: str) -> str:
        """The sounds Kokoro is given for `text`, as eSpeak-NG's `accent` says them. eSpeak-NG says a word it takes
        for another language's ("football", and "menthe" or "le dos" in French) with that language's sounds and
        marks the stretch "(en)...(fr)"; kokoro-onnx would hand the marks on as sounds ("Bretton Woods" heard as
        "Breton and Woods of France"), so they are left out. Which words a language says its own way is the
        reading's business (`reading.py`)."""
        import phonemizer
        from kokoro_onnx.tokenizer import _espeak_lock  # eSpeak-NG is one per process: kokoro-onnx's own lock

        with _espeak_lock:
            said = phonemizer.phonemize(
                text.strip(), accent, preserve_punctuation=True, with_stress=True, language_switch="remove-flags"
            )
        return "".join(p for p in str(said) if p in self._engine.tokenizer.vocab).strip()


class _Stoppable:
    """An onnxruntime session whose runs under way can be stopped from another thread; kokoro-onnx calls its `run`.
    A stop that comes while a line's sounds are still being made (`begin` was called, no run yet) stops the line's
    first run as it starts."""

    def __init__(self, session: Any, options: Callable[[], Any]) -> None:
        self._session = session
        self._options = options
        self._running: set[Any] = set()
        self._stop_next = False
        self._lock = threading.Lock()

    def begin(self) -> None:
        """A line starts: a stop asked for before it is not its."""
        with self._lock:
            self._stop_next = False

    def run(self, outputs: Any, feed: Any) -> Any:
        options = self._options()
        with self._lock:
            self._running.add(options)
            options.terminate = self._stop_next
        try:
            return self._session.run(outputs, feed, options)
        except Exception:
            if options.terminate:
                raise Stopped("the render was stopped") from None
            raise
        finally:
            with self._lock:
                self._running.discard(options)

    def stop(self) -> None:
        with self._lock:
            for options in self._running:
                options.terminate = True
            self._stop_next = not self._running

    def __getattr__(self, name: str) -> Any:
        return getattr(self._session, name)


def _voice_tables(folder: Path) -> Path:
    """The installed voices as one `.npz`, as kokoro-onnx loads them, made once in the cache folder: the voices are
    installed as the raw tables the npm package ships."""
    files = sorted(folder.glob("*.bin"))
    digest = hashlib.sha256("".join(f"{file.name}:{file.stat().st_size}" for file in files).encode()).hexdigest()
    target = cache_dir() / f"kokoro-voices-{digest[:16]}.npz"
    if target.exists():
        return target
    tables = {file.stem: np.fromfile(file, dtype="<f4").reshape(-1, 1, STYLE_WIDTH) for file in files}
    try:
        write_whole(target, lambda path: np.savez(path, **tables))  # type: ignore[arg-type]
    except OSError as error:
        blocking = paths.file_in_the_way(target.parent)
        problem = (
            f"{paths.shown(blocking)} is a file where voicemaster keeps its cache folder: remove it (rm "
            f"{paths.shown(blocking)}), and Kokoro's voices are prepared there again."
            if blocking is not None
            else f"cannot prepare Kokoro's voices in {paths.shown(target.parent)} ({error.strerror or error}): make "
            "the cache folder writable, or point XDG_CACHE_HOME to another folder."
        )
        raise SpeechUnavailable(problem) from None
    return target


def write_whole(target: Path, write: Callable[[Path], object]) -> None:
    """Writes a cache file under another name and renames it into place: a crash never leaves half a file, and a
    failed write (a full disk) leaves none."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, suffix=target.suffix, delete=False) as out:
        pass
    try:
        write(Path(out.name))
        Path(out.name).replace(target)
    except BaseException:
        Path(out.name).unlink(missing_ok=True)
        raise


def cache_dir() -> Path:
    """Rendered speech and derived files: the platform's cache folder (~/.cache/voicemaster, or $XDG_CACHE_HOME)."""
    return paths.cache_dir()
