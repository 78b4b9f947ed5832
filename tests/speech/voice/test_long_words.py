"""The longest word spoken text may hold (`speakable.LONGEST_WORD`) is said whole by every engine, in every shape of
word: the bound the packs, imports, settings and `say` check is one the voices keep."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicemaster.config.voice import Voice
from voicemaster.speakable import LONGEST_WORD
from voicemaster.speech.audio import Audio
from voicemaster.speech.voice import kokoro, pico
from voicemaster.speech.voice.synthesis import Espeak

pytestmark = [pytest.mark.audio, pytest.mark.model, pytest.mark.slow]  # every engine renders long words

WORDS = {
    "digits": "1234567890" * 10,
    "one letter": "a" * 100,
    "x": "x" * 100,
    "compound": "donaudampfschifffahrtsgesellschaftskapitaenswitwenrentenversicherungsanstalt" * 2,
}
"""Shapes of word an engine may choke on: Pico fails on a long number and says less of "xxx...", eSpeak-NG and
Kokoro cut a long word short."""
WHOLE = 1.4
"""A word of letters said whole lasts clearly longer than its first half said alone; one cut short does not."""
DIGIT_SECONDS = 0.1
"""A long number is read digit by digit (its half may be read as a number, which takes longer): each digit is heard,
so the whole takes at least this long per digit."""


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def _said_whole(render: object, shape: str) -> None:
    assert callable(render)
    word = WORDS[shape][:LONGEST_WORD]
    whole: Audio = render(word)
    if shape == "digits":
        assert whole.seconds >= DIGIT_SECONDS * LONGEST_WORD, whole.seconds
        return
    half: Audio = render(word[: LONGEST_WORD // 2])
    assert whole.seconds >= WHOLE * half.seconds > 0, (shape, whole.seconds, half.seconds)


@pytest.mark.parametrize("shape", list(WORDS))
@pytest.mark.parametrize("name", ["de-DE", "en-GB", "fr-FR"])
def test_pico_says_the_longest_word_whole(name: str, shape: str) -> None:
    if not pico.installed():
        pytest.skip("ttspico is not installed")
    engine = pico.Pico()
    _said_whole(lambda text: engine.speak(text, Voice(name, engine="pico")), shape)


@pytest.mark.parametrize("shape", ["digits", "compound"])
@pytest.mark.parametrize("name", ["bf_emma", "ff_siwis"])
def test_kokoro_says_the_longest_word_whole(name: str, shape: str) -> None:
    if kokoro.installed() is None:
        pytest.skip("Kokoro is not installed")
    engine = _kokoro()
    _said_whole(lambda text: engine.speak(text, Voice(name, engine="kokoro")), shape)


@pytest.mark.parametrize("shape", list(WORDS))
@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_espeak_says_the_longest_word_whole(language: str, shape: str) -> None:
    engine = Espeak({language: Voice(engine="espeak")})
    _said_whole(lambda text: engine.render(text, language), shape)


_loaded: list[kokoro.Kokoro] = []


def _kokoro() -> kokoro.Kokoro:
    if not _loaded:
        _loaded.append(kokoro.Kokoro())
    return _loaded[0]
