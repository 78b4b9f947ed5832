"""Reading ahead: an utterance read on a worker thread while its frames go on being heard on the caller's.

A live microphone's frames come in real time: the pipeline (`pipeline.ListeningPipeline`, `ahead=True`) starts a
reading at the short pause and goes on hearing frames meanwhile, on the other core; a complete reading ends the
utterance the moment it is made. A reading overtaken by more speech is thrown away. A reading cannot be stopped
half-way: one thrown away runs out on its thread, and what it cost is counted (`Speculation.thrown_ms`, shown by
`voicemaster bench live`). Started earlier, at the first frame without speech, it changed decisions
(docs/decisions/012-reading-ahead-at-the-pause.md), so it starts at the pause and decides what the pause's reading
decides.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from voicemaster.dialogue.meaning import Context, Heard
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.recognition import Recognizer

QUIET = 0.1
"""Audio after a reading is silence while no 10 ms of it is louder than this share of the loudest 10 ms read."""
BLOCK = 160
WORKERS = 2
"""A reading thrown away still runs out: a second worker lets the next one start at once beside it."""


@dataclass(frozen=True)
class Speculation:
    """What reading ahead did in one listening."""

    started: int = 0
    """Readings started ahead."""
    used: int = 0
    """Of those, the one that decided (0 or 1): the utterance's speech had only gained silence since its pause."""
    thrown_ms: float = 0.0
    """The time the readings thrown away took on their threads (those that ended before listening did)."""


class Ahead:
    """The readings under way for one listening, each for the utterance up to one end of speech."""

    def __init__(self, recognizer: Recognizer) -> None:
        self._recognizer = recognizer
        self._workers = ThreadPoolExecutor(WORKERS, thread_name_prefix="reading-ahead")
        self._pending: tuple[float, Audio, Future[Heard]] | None = None
        self._read_for: float | None = None
        """The end of speech the last reading was started for."""
        self._started = 0
        self._thrown_ms = 0.0
        self._lock = threading.Lock()

    def pause(
        self,
        speech_end: float,
        utterance: Callable[[], Audio | None],
        context: Context,
        *,
        over_our_voice: bool,
        crowded: Callable[[Audio], bool],
        line_stopped_at: float | None = None,
    ) -> None:
        """A short pause after speech that ended at `speech_end`: a reading of the utterance so far (the pause's
        own audio) in `context` starts, unless one for this end is under way; `over_our_voice` and
        `line_stopped_at` as `Recognizer`'s, and `crowded` judges the audio read as `Recognizer`'s `crowded` takes
        it."""
        if self._read_for == speech_end:
            return
        self.keep_only(speech_end)
        audio = utterance()
        if audio is not None:
            self._start(
                speech_end,
                audio,
                context,
                over_our_voice=over_our_voice,
                crowded=crowded(audio),
                line_stopped_at=line_stopped_at,
            )

    def _start(
        self,
        speech_end: float,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool,
        crowded: bool,
        line_stopped_at: float | None,
    ) -> None:
        future = self._workers.submit(
            self._recognizer.recognize,
            audio,
            context,
            over_our_voice=over_our_voice,
            crowded=crowded,
            line_stopped_at=line_stopped_at,
        )
        self._pending = (speech_end, audio, future)
        self._read_for = speech_end
        self._started += 1

    def keep_only(self, speech_end: float | None) -> None:
        """More speech came: a reading of the utterance up to an earlier end is thrown away."""
        if self._pending is None or self._pending[0] == speech_end:
            return
        self._throw()

    def _throw(self) -> None:
        assert self._pending is not None
        _, _, future = self._pending
        self._pending = None
        if not future.cancel():  # running: it runs out, and what it cost is counted
            future.add_done_callback(self._count_thrown)

    def ready(self, speech_end: float | None) -> tuple[Heard, Audio] | None:
        """The reading of the utterance up to `speech_end`, with the audio it read, if it has been made."""
        if self._pending is None or self._pending[0] != speech_end or not self._pending[2].done():
            return None
        return self._take()

    def wait(self, speech_end: float | None) -> tuple[Heard, Audio] | None:
        """The reading up to `speech_end` and its audio, waited for if it is under way; None if none was started."""
        if self._pending is None or self._pending[0] != speech_end:
            return None
        return self._take()

    def close(self, *, decided: bool) -> Speculation:
        """Listening is over (`decided`: by a reading made ahead): what is still under way is thrown away."""
        self.keep_only(None)
        self._workers.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            return Speculation(self._started, int(decided), round(self._thrown_ms, 1))

    def _take(self) -> tuple[Heard, Audio]:
        assert self._pending is not None
        _, audio, future = self._pending
        self._pending = None
        return future.result(), audio

    def _count_thrown(self, future: Future[Heard]) -> None:
        if future.cancelled() or future.exception() is not None:
            return
        with self._lock:
            self._thrown_ms += future.result().decode_ms


def gained_only_silence(read: Audio, now: Audio) -> bool:
    """Whether `now`, the utterance `read` has grown into, only added silence: nothing in what it added is louder
    than `QUIET` of the loudest of what was read."""
    extra = np.frombuffer(now.samples[len(read.samples) :], dtype="<i2")
    if not len(extra):
        return True
    return _loudest(extra) <= QUIET * _loudest(np.frombuffer(read.samples, dtype="<i2"))


def _loudest(samples: npt.NDArray[np.int16]) -> float:
    count = len(samples) // BLOCK
    if not count:
        return float(np.sqrt(np.mean(samples.astype(np.float64) ** 2))) if len(samples) else 0.0
    blocks = samples[: count * BLOCK].astype(np.float64).reshape(count, BLOCK)
    return float(np.sqrt(np.mean(blocks**2, axis=1)).max())
