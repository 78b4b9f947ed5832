"""Rendering ahead: one worker thread renders the lines the quizmaster is likely to say next, while a line plays or a
player thinks, so that a reply is ready when it is needed.

Kokoro takes about as long to render a line as the line lasts. Waiting for it after every answer would put seconds of
silence between the player's words and the quizmaster's reply; rendering the likely replies ahead hides that time
behind the time a game spends speaking and listening anyway.

One thread owns the slow engine, so two renders never halve each other's speed: a line needed now goes to the front of
the queue, a line the runner already holds next, then the lines the quizmaster foresees, then the fixed lines of the
language. Foreseen lines of a moment that has passed are dropped when the quizmaster foresees again. A line nobody
waits for yet is not begun while a decision is being made: the player is waiting for that; one already rendering is
stopped when a decision starts (once) or a line is wanted now, and rendered again after: Kokoro on both cores tripled a
decision's wall time (docs/decisions/047-a-render-ahead-gives-way-to-a-decision.md).
"""

from __future__ import annotations

import atexit
import itertools
import queue
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field
from enum import IntEnum

from voicemaster.config.voice import Voice
from voicemaster.speech import cores
from voicemaster.speech.audio import Audio
from voicemaster.speech.voice.synthesis import Stopped

YIELD_SECONDS = 3.0
"""The longest a line rendered ahead waits for a decision being made (`speech.cores`): the player waits for the
decision, the line is for later; but not for ever."""
IDLE_SECONDS = 5.0
"""A worker with nothing to do for this long ends (a new one starts with the next line): a finished game leaves no
thread behind holding the engine."""


class Priority(IntEnum):
    NOW = 0
    """Someone is waiting for this line."""
    SOON = 1
    """The runner holds this line and will say it after the one playing."""
    FORESEEN = 2
    """The quizmaster expects to say this line at the next turn."""
    FIXED = 3
    """A line without parameters, rendered once per language and voice and kept on disk for every game."""


Key = tuple[str, Voice]
_QUEUES: weakref.WeakSet[RenderQueue] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for queue_ in list(_QUEUES):
        queue_.close()


@dataclass
class _Line:
    result: Future[Audio]
    priority: Priority
    """The most urgent it was asked for."""
    foresight: int
    """Which foresight of the quizmaster's asked for it last."""
    rendering: bool = False
    gave_way: bool = False
    """Stopped once for a decision: it is not stopped again, so a line is never rendered more than twice."""


@dataclass(eq=False)
class RenderQueue:
    """Renders lines with `render` on one worker thread, most urgent first; `get` waits for a line, `ahead` asks for
    lines to be ready later."""

    render: Callable[[str, Voice], Audio]
    ready: Callable[[str, Voice], bool]
    """Whether a line can be had without rendering (it is on disk): then it is not queued."""
    stop: Callable[[], None] = lambda: None
    """Stops the render under way, which then raises `Stopped` (an engine that cannot stop does nothing)."""
    served: Counter[str] = field(default_factory=Counter)
    """How each line was had: `ready` (on disk, or rendered ahead and finished), `waited` (being rendered ahead, not
    finished), `rendered` (nobody had asked for it before)."""
    _lines: dict[Key, _Line] = field(default_factory=dict)
    _queue: queue.PriorityQueue[tuple[int, int, Key]] = field(default_factory=queue.PriorityQueue)
    _order: itertools.count[int] = field(default_factory=itertools.count)
    _foresight: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _worker: threading.Thread | None = None
    _running: Key | None = None
    """The line the worker is rendering (past its wait for a decision)."""
    _closing: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        _QUEUES.add(self)
        cores.give_way_to_decisions(self)

    def give_way(self) -> None:
        """A decision starts: the line rendering ahead, if nobody waits for it yet, stops, and is rendered again
        after the decision (`cores.wait_while_deciding`); a line stops so once. A line someone waits for renders on."""
        with self._lock:
            self._stop_ahead(for_decision=True)

    def _stop_ahead(self, *, for_decision: bool) -> None:
        """Stops the line rendering, unless someone waits for it (or it gave way to a decision once and this is
        another); it goes back to the front of its rank. The lock is held."""
        line = self._lines.get(self._running) if self._running is not None else None
        if line is None or line.priority == Priority.NOW or (for_decision and line.gave_way):
            return
        line.gave_way = line.gave_way or for_decision
        self.stop()

    def close(self) -> None:
        """Drop what is still to render and wait for the line being rendered: an engine stopped in the middle of a
        render as the program exits brings the process down (onnxruntime aborts)."""
        with self._lock:
            while not self._queue.empty():
                _, _, key = self._queue.get_nowait()
                line = self._lines.get(key)
                if line is None or line.rendering or line.result.done():
                    continue
                if not line.result.cancel():  # it gave way to a decision, and someone may wait for it
                    line.result.set_exception(Stopped("the program is ending"))
                del self._lines[key]
            worker = self._worker
            self._closing.set()
            self._queue.put((-1, -1, ("", Voice())))  # wakes the worker to see it is closing
        if worker is not None:
            worker.join()

    def get(self, text: str, voice: Voice) -> Audio:
        """The line's audio, rendered now if no one has rendered it yet; the engine's errors are raised here."""
        key = (text, voice)
        if self._closing.is_set():  # the program is ending: no worker any more
            return self.render(text, voice)
        with self._lock:
            line = self._lines.get(key)
            if line is None:
                how = "ready" if self.ready(text, voice) else "rendered"
            else:
                how = "ready" if line.result.done() else "waited"
            if how != "ready":
                line = self._want(key, Priority.NOW)
        audio = line.result.result() if line is not None else self.render(text, voice)
        self.served[how] += 1
        return audio

    def ahead(self, keys: Iterable[Key], priority: Priority) -> None:
        """Render these lines in the background, in this order, after anything more urgent. What the quizmaster
        foresaw before and does not foresee again is dropped: the new foresight replaces the old."""
        with self._lock:
            if priority == Priority.FORESEEN:
                self._foresight += 1
            for key in keys:
                if key in self._lines or not self.ready(*key):
                    self._want(key, priority)

    def _want(self, key: Key, priority: Priority) -> _Line:
        """Queues the line, or queues it again nearer the front when it is wanted more urgently; the lock is held."""
        line = self._lines.get(key)
        if line is None:
            line = self._lines[key] = _Line(Future(), priority, self._foresight)
            self._put(priority, key)
        elif priority == Priority.FORESEEN:
            line.foresight = self._foresight
        if priority < line.priority:
            line.priority = priority
            self._put(priority, key)  # the copy queued before is skipped when its turn comes
        if priority == Priority.NOW and self._running != key:  # someone waits: what renders ahead stops for it
            self._stop_ahead(for_decision=False)
        return line

    def _put(self, priority: Priority, key: Key) -> None:
        self._queue.put((priority, next(self._order), key))
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="render-ahead", daemon=True)
            self._worker.start()

    def _work(self) -> None:
        while (key := self._next()) is not None:
            line = self._lines.get(key)
            assert line is not None
            if line.priority != Priority.NOW:  # nobody waits for it yet: a decision being made goes first
                cores.wait_while_deciding(YIELD_SECONDS)
            with self._lock:
                if self._queue.queue and self._queue.queue[0][0] < line.priority:  # wanted more urgently meanwhile
                    line.rendering = False
                    self._queue.put((line.priority, -next(self._order), key))
                    continue
                self._running = key
            try:
                audio = self.render(*key)
            except Stopped:  # it gave way to a decision or a line wanted now: back to the front of its rank
                with self._lock:
                    self._running, line.rendering = None, False
                    self._queue.put((line.priority, -next(self._order), key))
                continue
            except Exception as error:  # handed to whoever waits for the line; a line foreseen in vain is dropped
                line.result.set_exception(error)
            else:
                line.result.set_result(audio)
            with self._lock:
                self._running = None
                del self._lines[key]

    def _next(self) -> Key | None:
        """The most urgent line still to render, marked as running; None when the queue stayed empty a while."""
        while True:
            try:
                _, _, key = self._queue.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                with self._lock:
                    if self._queue.empty():
                        self._worker = None
                        return None
                continue
            with self._lock:
                if self._closing.is_set():
                    self._worker = None
                    return None
                line = self._lines.get(key)
                if line is None or line.rendering or line.result.done():
                    continue  # queued twice (foreseen, then wanted now) and rendered already
                if line.priority == Priority.FORESEEN and line.foresight != self._foresight:
                    del self._lines[key]
                    line.result.cancel()
                    continue
                if not line.result.running():  # a line that gave way is running already
                    line.result.set_running_or_notify_cancel()
                line.rendering = True
                return key
