"""One core against two for a decision, clip by clip: every `--step`-th recording of people (the real-speech
manifest) decided on one core and on two (`VOICEMASTER_DECISION_CORES`), the order alternating clip by clip in one
process, so the machine's load falls on both alike.

    python -m voicemaster_lab.asr.cores_ab --step 8

Prints each setting's wall and CPU milliseconds per decision (p50, p95), how many decisions were the same, and the
load average. Figures: docs/decisions/023-the-second-core.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence

from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.models.verify import require_model
from voicemaster.speech import cores
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster_lab.corpora import real_speech

SETTINGS = ("1", "2")


def _percentiles(values: Sequence[float]) -> str:
    return f"p50 {statistics.median(values):.0f} ms, p95 {statistics.quantiles(values, n=20)[-1]:.0f} ms"


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--step", type=int, default=8, help="every STEP-th recording (default 8)")
    args = parser.parse_args(argv)
    clips = real_speech.load()[:: max(1, args.step)]
    recognizer = WhisperRecognizer(require_model("whisper", "de"))
    wall: dict[str, list[float]] = {setting: [] for setting in SETTINGS}
    cpu: dict[str, list[float]] = {setting: [] for setting in SETTINGS}
    same = 0
    load_before = os.getloadavg()
    for number, clip in enumerate(clips):
        context = Context(ContextName(clip.context), clip.language, clip.options)
        audio = Audio.read(clip.path())
        decided = {}
        for setting in SETTINGS if number % 2 == 0 else SETTINGS[::-1]:
            os.environ[cores.CORES_ENVIRONMENT] = setting
            started, cpu_started = time.perf_counter(), time.process_time()
            heard = recognizer.recognize(audio, context)
            wall[setting].append((time.perf_counter() - started) * 1000)
            cpu[setting].append((time.process_time() - cpu_started) * 1000)
            decided[setting] = (heard.intent, heard.value, heard.text, heard.confidence)
        same += decided["1"] == decided["2"]
    print(f"{len(clips)} clips, {same} the same decision; load {load_before} before, {os.getloadavg()} after")
    for setting in SETTINGS:
        print(f"{setting} core(s): wall {_percentiles(wall[setting])}; CPU {_percentiles(cpu[setting])}")


if __name__ == "__main__":
    main()
