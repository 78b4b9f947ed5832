"""`voicemaster demo --screen` aloud, on the private PulseAudio daemon: the game is played through the loudspeaker in
real time, and the page shows each line of the quizmaster when its sound is there, not before.

The demo runs as a user starts it, in its own process; a browser reads the page's line (`#said`) every few tenths of
a second while the speaker is recorded. Real time is what is tested, but no bound on how long anything takes: a
loaded machine makes the demo slower, never faster than its sound.
"""

from __future__ import annotations

import itertools
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.screen.browser import chromium
from tests.speech.conftest import Pulse

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
LINES = 6
"""The quizmaster's lines watched on the page: the welcome, the rules, the first question and its answers."""
POLL_SECONDS = 0.2
SOUND_WINDOW = (-2.0, 1.0)
"""Where, around the moment the page first shows a line, its sound must be: it may have begun a moment before (the
page is told at the next step of the loudspeaker and reads it at the next poll), and begins within a second after."""


def test_the_demo_plays_aloud_and_the_page_keeps_in_step_with_the_sound(pulse: Pulse, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "voicemaster", "demo", "--lang", "de", "--players", "1", "--rounds", "1"]
    command += ["--seed", "5", "--screen", "--port", "0", "--out", str(tmp_path)]
    env = {**pulse.env, "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONUNBUFFERED": "1"}
    demo = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert demo.stdout is not None
    try:
        first = demo.stdout.readline()
        assert first.startswith("Playing aloud in real time through the loudspeaker"), first
        address = re.search(r"open (http://\S+) in a browser", demo.stdout.readline())
        assert address is not None
        # (the last look that saw the line before, when the page first showed a line, the line): a look can come
        # late on a busy machine, so a line changed somewhere between the two times.
        shown: list[tuple[float, float, str]] = []
        with pulse.record_speaker() as recording, chromium() as browser:
            page = browser.new_page()
            page.goto(address.group(1))
            looked = time.monotonic()
            while len(shown) <= LINES and demo.poll() is None:
                said = page.locator("#said").inner_text().strip()
                now = time.monotonic()
                if said and (not shown or shown[-1][2] != said):
                    shown.append((looked, now, said))
                looked = now
                time.sleep(POLL_SECONDS)
    finally:
        demo.terminate()
        _, errors = demo.communicate(timeout=60)
    assert len(shown) > LINES, f"the page showed {len(shown)} lines; the demo said: {errors}"

    samples = np.frombuffer(recording.audio.samples, dtype="<i2").astype(np.float64)
    rate = recording.audio.rate

    def loud(start: float, end: float) -> bool:
        window = samples[max(0, round((start - recording.started) * rate)) : round((end - recording.started) * rate)]
        return len(window) > 0 and float(np.sqrt(np.mean(window**2))) > 300

    said_at = _said_at(tmp_path / "transcript.jsonl")
    # The first line seen may have been mid-way when the page opened: timed from the second on.
    for (before, when, line), (_, then, following) in itertools.pairwise(shown[1:]):
        # The line's sound is there when the page shows it.
        assert loud(when + SOUND_WINDOW[0], when + SOUND_WINDOW[1]), line
        # Never faster than the sound: the page moves on no sooner than the session's time between the two lines. The
        # longest the page can have shown the line is from the look before it was seen to the next line's first look.
        session_gap = said_at[_page_text(following)] - said_at[_page_text(line)]
        assert then - before >= session_gap - 2 * POLL_SECONDS - 0.5, (line, then - before, session_gap)


def _page_text(line: str) -> str:
    return line.replace("\u00ad", "").replace("\u200b", "")


def _said_at(transcript: Path) -> dict[str, float]:
    """Each line the quizmaster said, at the session time it began (its first saying)."""
    said: dict[str, float] = {}
    for text in transcript.read_text(encoding="utf-8").splitlines():
        event = json.loads(text)
        if event["event"] == "say":
            said.setdefault(_page_text(event["text"]), event["t"])
    return said
