"""Whether an utterance came through a telephone's band (about 300-3 400 Hz): a phone on speaker, a car's hands-free.

Whisper base hears such audio much worse in some languages (French telephone letters, words and numbers: 109 of
266 understood and 15 taken for something else at the meaning and free margins of full-band audio), so the decision
asks for larger margins there (`decision.NARROWBAND`). Two signs, over the frames that hold speech (within 25 dB of
the loudest in the speech band):
- almost nothing above 4.5 kHz against the upper speech band (2-3.4 kHz): what is left after 8 kHz sampling;
- or a flat floor there, well below the speech: a codec's or line's noise (the GSM prompts of Armelle), where the
  highs of a voice (s, f, t) have a shape, falling off with frequency.

Measured on every clip `voicemaster bench asr` decodes (it prints each corpus's count of narrowband decisions): all
389 Asterisk and Armelle telephone recordings and the 84 klettres words sent through 8 kHz are narrowband; none of
the 211 klettres recordings and 350 Kokoro and Pico utterances, and one of 900 eSpeak-NG utterances (in car noise at
5 dB; it is only asked again sooner for it).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from voicemaster.speech.signal import RECOGNITION_RATE

FRAME, HOP = 512, 160
"""32 ms frames every 10 ms, at 16 kHz."""
SPEECH_DB = 25.0
"""A frame holds speech when its speech band is within this many dB of the loudest frame's."""
EMPTY_DB = -35.0
"""Above 4.5 kHz, at most this much (dB against 2-3.4 kHz) is narrowband whatever its shape: full-band voices measured
-27 dB at their dullest (a klettres "fix"), telephone recordings -38 dB at their brightest."""
FLAT, FLAT_DB = 0.95, -8.0
"""Or a spectrum above 4.5 kHz this flat (geometric over arithmetic mean, 1 for white noise) and at most this loud:
the Armelle recordings' codec floor measured 0.98-0.99 at -11 to -31 dB; voices 0.15-0.92 (one Pico clip in car
noise 0.985, but at -2 dB)."""


def narrowband(samples: npt.NDArray[np.float32], rate: int = RECOGNITION_RATE) -> bool:
    """Whether the utterance (mono float samples at `rate`, 16 kHz in the recognizer) holds nothing of a voice above
    the telephone band."""
    if rate < 2 * 7_500:  # sampled too slowly to hold anything above the telephone band
        return True
    if len(samples) < FRAME:
        return False
    frames = np.lib.stride_tricks.sliding_window_view(samples.astype(np.float64), FRAME)[::HOP] * np.hanning(FRAME)
    power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
    hertz = np.fft.rfftfreq(FRAME, 1 / rate)
    speech_band = power[:, (hertz >= 300) & (hertz < 3_400)].sum(axis=1)
    if speech_band.max() <= 0:
        return False
    speech = power[speech_band >= speech_band.max() * 10 ** (-SPEECH_DB / 10)]
    above = speech[:, (hertz >= 4_500) & (hertz < 7_500)].mean(axis=0) + 1e-20
    upper = speech[:, (hertz >= 2_000) & (hertz < 3_400)].sum()
    level = 10 * np.log10(above.sum() * len(speech) / max(upper, 1e-20))
    flatness = float(np.exp(np.log(above).mean()) / above.mean())
    return bool(level < EMPTY_DB or (flatness > FLAT and level < FLAT_DB))
