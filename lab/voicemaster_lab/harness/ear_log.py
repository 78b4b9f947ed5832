"""`python -m voicemaster_lab.harness.ear_log EAR.jsonl ARGS...`: `voicemaster ARGS...` as it is, writing down how
each listening of `play` ended (`bench room`).

The game's own log says what was heard, not how the utterance ended: whether the endpointer found the end of speech,
or waited while noise went on until the longest utterance cut it. So this wraps the one function `play`'s ear
listens through (`play.live.listen_and_recognize`), unchanged, and writes one line a listening: how it ended
(`speech.hearing.endpoint.Endpoint`), where speech ended and listening stopped in its audio, whether a reading ended
it early, where a barge-in stopped the line, and what was heard; and, since the listening before, how many
microphone frames the front end cleaned while our voice played (`sounding`) and how many of those the barge-in
filter judged (`judged`: it had found the echo's delay and learnt the coupling). Nothing of the product imports this.
`ENDPOINT_VARIABLE` (JSON) replaces fields of barge-in's settings, for a bench to measure other values.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from voicemaster.play import live
from voicemaster.speech.frame import Frame
from voicemaster.speech.frontend import FrontEnd
from voicemaster.speech.hearing.pipeline import DEFAULT_SETTINGS, Hearing

ENDPOINT_VARIABLE = "VOICEMASTER_LAB_ENDPOINT"


def run(ear: Path, argv: Sequence[str]) -> int:
    from voicemaster.cli.app import main

    hear = live.listen_and_recognize  # type: ignore[attr-defined]
    usable = live.usable_front_end  # type: ignore[attr-defined]
    counts = {"sounding": 0, "judged": 0}

    class Counted:
        """The game's front end, counting the frames cleaned while our voice played and those the filter judged."""

        def __init__(self, inner: FrontEnd) -> None:
            self._inner = inner
            self.name, self.cancels_echo = inner.name, inner.cancels_echo

        def process(self, frame: bytes, reference: bytes) -> Frame:
            cleaned = self._inner.process(frame, reference)
            if any(reference):
                counts["sounding"] += 1
                counts["judged"] += cleaned.echo is not None and cleaned.echo.over_echo is not None
            return cleaned

    def counted_front_end(*, echo_cancel: bool, noise_suppression: bool, barge_in_filter: bool = True) -> Any:
        front_end, why_not = usable(
            echo_cancel=echo_cancel, noise_suppression=noise_suppression, barge_in_filter=barge_in_filter
        )
        return Counted(front_end), why_not

    changed = json.loads(os.environ.get(ENDPOINT_VARIABLE) or "{}")

    def listened(*args: Any, **kwargs: Any) -> Hearing:
        if changed:
            settings = kwargs.get("settings", DEFAULT_SETTINGS)
            kwargs["settings"] = replace(settings, barge_in=replace(settings.barge_in, **changed))
        hearing = hear(*args, **kwargs)
        timeline, heard = hearing.timeline, hearing.heard
        line = {
            "monotonic": round(time.monotonic(), 3),
            "state": timeline.state.value,
            "speech_end": timeline.speech_end,
            "stopped": round(timeline.stopped, 3),
            "early": hearing.early,
            "barged_in_at": hearing.barged_in_at,
            "intent": None if heard is None else heard.intent.value,
            **counts,
        }
        counts.update(sounding=0, judged=0)
        with ear.open("a", encoding="utf-8") as out:
            out.write(json.dumps(line) + "\n")
        return hearing

    live.listen_and_recognize = listened  # type: ignore[attr-defined]
    live.usable_front_end = counted_front_end  # type: ignore[attr-defined,assignment]
    return main(list(argv))


if __name__ == "__main__":
    sys.exit(run(Path(sys.argv[1]), sys.argv[2:]))
