"""Sounds without words: a rising figure before a reveal, two beeps when a timer runs out, a falling one when a
trapdoor opens, and a soft tick when the end of a player's speech was heard."""

from __future__ import annotations

import array
import math

from voicemaster.speech.audio import Audio

# (frequency in Hz, seconds) per note; 0 Hz is a rest.
FIGURES = {
    "suspense": ((392.0, 0.18), (0.0, 0.05), (523.3, 0.18), (0.0, 0.05), (659.3, 0.18), (0.0, 0.05), (784.0, 0.5)),
    "timer_end": ((880.0, 0.25), (0.0, 0.1), (880.0, 0.5)),
    "drop": ((659.3, 0.12), (523.3, 0.12), (392.0, 0.12), (261.6, 0.35)),
    "heard": ((1046.5, 0.07),),
    "ready": ((523.3, 0.1), (0.0, 0.03), (659.3, 0.1), (0.0, 0.03), (784.0, 0.22)),
}
LOUDNESS = 0.3
"""Of full scale: clearly heard, never louder than the voice."""
SOFT = {"heard": 0.1}
"""Figures quieter than `LOUDNESS`: "heard you" is a tick under the talk, not a signal to react to."""
HEARD = "heard"
READY = "ready"
"""The always-ready quizmaster (`voicemaster serve`) is listening: a short rising figure before "Quizmaster bereit"."""
"""The cue that tells a player who cannot see the screen that the microphone caught the end of what they said."""


def earcon(name: str, rate: int) -> Audio:
    samples = array.array("h")
    loudness = SOFT.get(name, LOUDNESS)
    for frequency, seconds in FIGURES[name]:
        count = round(seconds * rate)
        fade = max(1, round(0.01 * rate))  # 10 ms ramps: no clicks
        for i in range(count):
            envelope = min(1.0, i / fade, (count - i) / fade)
            value = math.sin(2 * math.pi * frequency * i / rate) if frequency else 0.0
            samples.append(round(32767 * loudness * envelope * value))
    return Audio(samples.tobytes(), rate)
