"""Speech output rendered to audio in memory, so the program knows exactly how long it speaks.

eSpeak-NG is called directly rather than through pyttsx3: pyttsx3 2.99 on Linux can return before its file is
complete, writes a header rate that is not the voice's, and lets a later `say()` write into an earlier file
(docs/speech.md). The command line renders one complete, byte-identical WAV per sentence in 10-20 ms. pyttsx3 is
the voice of systems without it (`speech/voice/pyttsx3_engine.py`).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from voicemaster.config.voice import Voice
from voicemaster.hints import system_package
from voicemaster.speech.audio import Audio


class SpeechUnavailable(RuntimeError):
    """No speech synthesizer is installed; the message says what to install."""


ESPEAK_VOICES = {"de": "de", "en": "en-gb", "fr": "fr"}
"""eSpeak-NG's voice where the voice names none."""


class Stopped(Exception):
    """A render stopped half-way because its caller asked (`Kokoro.stop`): nothing failed; the line is to be rendered
    again when it is wanted."""


@dataclass(frozen=True)
class Espeak:
    voices: dict[str, Voice]
    executable: str = "espeak-ng"

    def render(self, text: str, language: str) -> Audio:
        binary = shutil.which(self.executable)
        if binary is None:
            raise SpeechUnavailable(f"eSpeak-NG is not installed: {system_package('espeak-ng')}.")
        voice = self.voices[language]
        name = voice.name or ESPEAK_VOICES.get(language, language)
        with tempfile.TemporaryDirectory() as folder:
            target = Path(folder) / "speech.wav"
            command = [binary, "-v", name, "-s", str(voice.rate), "-a", str(voice.volume), "-w", str(target)]
            # The text goes on stdin so that a sentence starting with "-" is never taken for an option.
            done = subprocess.run([*command, "--stdin"], input=text.encode(), capture_output=True, check=False)
            if done.returncode != 0 or not target.exists():
                problem = done.stderr.decode(errors="replace").strip() or f"exit code {done.returncode}"
                raise SpeechUnavailable(
                    f"eSpeak-NG could not speak with the voice {name!r} ({problem}); `voicemaster voices` lists "
                    "the voices there are."
                )
            return Audio.read(target)
