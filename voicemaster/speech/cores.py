"""The machine's cores shared by hearing and the voice: a decision being made takes the second core when it is free
(`hearing.whisper.model.product`), and the voice rendering ahead waits for it (`voice.render_ahead`).

While a player answers, the quizmaster is silent: the second core is idle in German (Pico renders at once), and in
English and French the lines rendered ahead can wait a moment. A decision is the one thing the player waits for.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager

BUSY_FROM = 0.5
"""Others' load (the load average less this process's own share) from which the second core counts as taken: on a
machine busy with other work a split decision only waits for its other half (docs/decisions/023-the-second-core.md)."""
OWN_WINDOW_SECONDS = 60.0
"""This process's CPU rate is taken over about the span of the 1-minute load average it is subtracted from."""

_lock = threading.Condition()
_deciding = 0
_mine = threading.local()


@contextmanager
def deciding() -> Iterator[None]:
    """A decision is under way on this thread: the voice renders nothing new meanwhile, and this thread's large
    products take the second core when the machine has it to spare."""
    global _deciding
    with _lock:
        _deciding += 1
    _mine.split = second_core_free()
    try:
        yield
    finally:
        _mine.split = False
        with _lock:
            _deciding -= 1
            _lock.notify_all()


def wait_while_deciding(timeout: float) -> None:
    """Returns once no decision is under way, or after `timeout` seconds (a line the runner needs soon will not
    wait for ever)."""
    with _lock:
        _lock.wait_for(lambda: _deciding == 0, timeout)


def split_here() -> bool:
    """Whether this thread's decision may take a second core for its products."""
    return bool(getattr(_mine, "split", False))


CORES_ENVIRONMENT = "VOICEMASTER_DECISION_CORES"
"""1 or 2: a decision takes that many cores whatever the load (`bench asr` compares them); unset, the load decides."""


def second_core_free() -> bool:
    """Whether a second core is there and idle enough. The game's own work does not count against it (the voice
    rendering ahead waits while a decision is made: `wait_while_deciding`); other processes' work does: on a
    machine busy with other work, a second thread only waits for a core and slows the first."""
    count = os.cpu_count() or 1
    chosen = os.environ.get(CORES_ENVIRONMENT, "")
    if count < 2 or chosen == "1":
        return False
    if chosen == "2":
        return True
    try:
        load = os.getloadavg()[0]
    except OSError:  # not on every platform
        return False
    return free_beside_others(count, load, _own.rate(time.monotonic(), time.process_time()))


def free_beside_others(count: int, load: float, own_rate: float) -> bool:
    """Whether `count` cores leave a second one to a decision under a 1-minute `load` of which `own_rate` (cores'
    worth of CPU) is this process's own: one core is the decision's, and others' load must leave the second idle."""
    others = max(0.0, load - own_rate)
    return count >= 2 and others < count - 2 + BUSY_FROM


class OwnRate:
    """This process's CPU rate over about the last `OWN_WINDOW_SECONDS`, from samples taken when asked (every
    decision); before a window has passed, since the process began."""

    def __init__(self, now: float, cpu: float) -> None:
        self._samples: deque[tuple[float, float]] = deque([(now, cpu)])
        self._guard = threading.Lock()

    def rate(self, now: float, cpu: float) -> float:
        with self._guard:
            while len(self._samples) > 1 and now - self._samples[1][0] >= OWN_WINDOW_SECONDS:
                self._samples.popleft()
            then, cpu_then = self._samples[0]
            self._samples.append((now, cpu))
        return (cpu - cpu_then) / (now - then) if now > then else 0.0


_own = OwnRate(time.monotonic(), time.process_time())
