"""The machine's cores shared by hearing and the voice: a decision runs on one core (a bench may split its large
products over two: `hearing.whisper.model.product`), and the voice rendering ahead waits for it
(`voice.render_ahead`), so the decision the player waits for never shares its core with the game's own work; the
second core reads ahead at a pause (`hearing.ahead`) and renders the quizmaster's next lines. A render ahead already
running when a decision starts is told to give way (`give_way_to_decisions`): Kokoro's render took both cores and
tripled a decision's wall time (docs/decisions/047-a-render-ahead-gives-way-to-a-decision.md).
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

_lock = threading.Condition()
_deciding = 0
_mine = threading.local()


class GivesWay(Protocol):
    def give_way(self) -> None:
        """A decision starts: stop the work that would share the cores with it (called on the deciding thread)."""


_yielding: weakref.WeakSet[GivesWay] = weakref.WeakSet()


def give_way_to_decisions(work: GivesWay) -> None:
    """`work.give_way()` is called each time a decision starts, for as long as `work` lives."""
    _yielding.add(work)


@contextmanager
def deciding() -> Iterator[None]:
    """A decision is under way on this thread: the voice renders nothing new meanwhile (and what it renders ahead
    gives way), and this thread's large products take the second core when a bench asks for it."""
    global _deciding
    with _lock:
        _deciding += 1
    for work in list(_yielding):
        work.give_way()
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
"""2: a decision splits its large products over two cores (`python -m voicemaster_lab.asr.cores_ab` compares); unset
or 1, it takes one."""


def second_core_free() -> bool:
    """Whether this decision splits its large products over two cores: only where a bench asks for it
    (`CORES_ENVIRONMENT` = 2). Measured, a split decision waits as long as one on one core on an idle machine and
    longer on a busy one, for 40 % more CPU (docs/decisions/023-the-second-core.md); the second core serves the
    reading ahead at a pause and the voice instead."""
    return (os.cpu_count() or 1) >= 2 and os.environ.get(CORES_ENVIRONMENT, "") == "2"
