"""The machine's cores shared by hearing and the voice: a decision being made takes the second core when it is free
(`hearing.whisper.model.product`), and the voice rendering ahead waits for it (`voice.render_ahead`).

While a player answers, the quizmaster is silent: the second core is idle in German (Pico renders at once), and in
English and French the lines rendered ahead can wait a moment. A decision is the one thing the player waits for.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

BUSY_FROM = 0.5
"""A load average this far above the cores a decision leaves free means the other core is someone else's."""

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
    """Whether a second core is there and idle enough: on a machine busy with other work, a second thread only
    waits for a core and slows the first."""
    cores = os.cpu_count() or 1
    chosen = os.environ.get(CORES_ENVIRONMENT, "")
    if cores < 2 or chosen == "1":
        return False
    if chosen == "2":
        return True
    try:
        load = os.getloadavg()[0]
    except OSError:  # not on every platform
        return False
    return load < cores - 1 + BUSY_FROM
