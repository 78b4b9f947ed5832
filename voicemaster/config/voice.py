"""How each language is spoken, as the settings say it: the voice chosen, its rate, volume and pitch.

Plain data in the settings' layer, so that the settings name voices without importing a speech engine; the voice
engines (`speech/voice/`) read it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Voice:
    """How one language is spoken: a voice of an engine, words per minute, volume 0-200 and pitch."""

    name: str = ""
    """The engine's name for the voice; empty: the engine's own voice for the language."""
    rate: int = 160
    volume: int = 100
    engine: str = "auto"
    """auto | kokoro | pico | espeak | pyttsx3 (`speech/voice/speakers.py` resolves auto)."""
    pitch: int = 100
    """Percent of the voice's own pitch, as Pico takes it (50-200): the demo's German players are one Pico voice
    made several people by their pitch and rate. Kokoro, eSpeak-NG and pyttsx3 speak at their voice's pitch."""


SPEECH_ENGINES = ("auto", "kokoro", "pico", "espeak", "pyttsx3")
DEFAULT_VOICES = {"de": Voice(), "en": Voice(), "fr": Voice()}
