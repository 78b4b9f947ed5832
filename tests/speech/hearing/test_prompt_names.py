"""A name that is one of the name prompt's own examples stands only if a second reading, after other examples, finds
it too: live at a party the French and German name turns took "Anna" (the prompt's "Je m'appelle Anna.") from
other people's talk. A player who is called Anna is still Anna, said by SVOX Pico's player voices."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from voicemaster.config.voice import Voice
from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.speech.hearing.normal_form import Reading
from voicemaster.speech.hearing.phrases import HearPhrases, load
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.hearing.whisper.strategies import NewName
from voicemaster.speech.voice import pico
from voicemaster.speech.voice.speakers import Speakers

SAID = {"de": "Ich heiße Anna.", "en": "I'm Anna.", "fr": "Je m'appelle Anna."}


@dataclass
class Readings:
    """The decoder's readings after each prompt, scripted: what a party's talk was read as (the recognizer's own
    output is what the tests below with Pico's voices check)."""

    phrases: HearPhrases
    after: dict[str, str]
    prompts: list[str | None] = field(default_factory=list)

    def reading(self, prompt: str | None = None, *, beam: int = 2) -> Reading:
        del beam
        self.prompts.append(prompt)
        return Reading.of(self.after[prompt or ""], self.phrases.language)


def _heard(language: str, first: str, second: str) -> tuple[tuple[Intent, str | None], list[str | None]]:
    phrases = load(language)
    prompt, again = phrases.expect[ContextName.NAME], phrases.name_again
    readings = Readings(phrases, {prompt: first, again: second})
    heard = NewName().hear(readings, Context(ContextName.NAME, language))  # type: ignore[arg-type]
    return (heard.intent, heard.value), readings.prompts


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_the_prompts_own_name_read_once_is_asked_again_and_read_after_both_prompts_it_stands(language: str) -> None:
    prompt, again = load(language).expect[ContextName.NAME], load(language).name_again
    assert "Anna" in prompt and "Anna" not in again
    assert _heard(language, SAID[language], "Lena.")[0] == (Intent.UNKNOWN, None)
    assert _heard(language, SAID[language], SAID[language]) == ((Intent.NAME, "Anna"), [prompt, again])


def test_a_name_the_prompt_does_not_hold_is_read_once() -> None:
    heard, prompts = _heard("de", "Ich heiße Markus.", "Ich heiße Lena.")
    assert heard == (Intent.NAME, "Markus")
    assert len(prompts) == 1


@pytest.fixture(autouse=True)
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


@pytest.mark.audio
@pytest.mark.parametrize("turn", [0, 1])
@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_a_player_called_anna_is_anna(whisper: Callable[[str], WhisperRecognizer], language: str, turn: int) -> None:
    names = pico.voice_names(language)
    voice = Voice(names[turn % len(names)], rate=150, engine="pico", pitch=(90, 110)[turn % 2])
    audio = Speakers({language: voice}).render(SAID[language], language)
    heard = whisper("de").recognize(audio, Context(ContextName.NAME, language))
    assert (heard.intent, heard.value) == (Intent.NAME, "Anna"), heard.text
