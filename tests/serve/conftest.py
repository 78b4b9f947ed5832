"""The private PulseAudio daemon of the speech tests (`tests/speech/conftest.py`), for `serve` on its devices."""

from tests.speech.conftest import pulse

__all__ = ["pulse"]
