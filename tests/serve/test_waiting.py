"""While no game is under way: the room's talk is never answered; a start is said back in its own language and
counts only after a clear yes."""

from __future__ import annotations

from collections.abc import Generator
from typing import TypeVar

import pytest

from voicemaster.dialogue.meaning import ContextName, Heard, Intent
from voicemaster.dialogue.turns import Effect, Listen, Observation, Say, Silence
from voicemaster.serve.waiting import Asked, start_confirmed, start_context, wait_for_asking

T = TypeVar("T")


def _run(dialogue: Generator[Effect, Observation | None, T], heard: list[Observation]) -> tuple[T, list[Effect]]:
    """Drives the dialogue, answering each listening with the next of `heard`; fails when one is left unheard."""
    effects: list[Effect] = []
    try:
        effect = next(dialogue)
        while True:
            effects.append(effect)
            effect = dialogue.send(heard.pop(0) if isinstance(effect, Listen) else None)
    except StopIteration as ended:
        assert not heard, f"not listened to: {heard}"
        return ended.value, effects


def test_the_rooms_talk_is_listened_through_in_silence_until_a_start_in_any_language() -> None:
    talk: list[Observation] = [
        Silence(),
        Heard(Intent.UNKNOWN, None, "und dann hat sie gesagt", 0.4),
        Heard(Intent.UNKNOWN, None, "the weather tomorrow", 0.5, language="en"),
        Heard(Intent.START, "moneydrop", "on joue au money drop", 1.0, language="fr"),
    ]
    asked, effects = _run(wait_for_asking(start_context("de")), talk)
    assert asked == Asked(Intent.START, "fr", "moneydrop")
    assert not [effect for effect in effects if isinstance(effect, Say)]  # nothing said to the room's talk
    listens = [effect for effect in effects if isinstance(effect, Listen)]
    assert {listen.context.name for listen in listens} == {ContextName.START}


@pytest.mark.parametrize("intent", [Intent.RESUME, Intent.HELP])
def test_weiter_and_help_end_the_waiting_in_the_language_they_were_heard_in(intent: Intent) -> None:
    asked, _ = _run(wait_for_asking(start_context("de")), [Heard(intent, None, "x", 1.0, language="en")])
    assert asked == Asked(intent, "en")


def test_the_users_own_start_phrases_are_listened_for() -> None:
    context = start_context("de", ("Quizmaster, los",))
    assert context.options == ("Quizmaster, los",) and context.name is ContextName.START


@pytest.mark.parametrize(
    ("reply", "started"),
    [
        (Heard(Intent.YES, None, "ja", 1.0), True),
        (Heard(Intent.NO, None, "nein", 1.0), False),
        (Heard(Intent.UNKNOWN, None, "ja also vielleicht", 0.3), False),
        (Silence(), False),
        (Heard(Intent.RESUME, None, "weiter", 1.0), False),
    ],
)
def test_a_start_is_said_back_and_only_a_clear_yes_starts_it(reply: Observation, started: bool) -> None:
    said, effects = _run(start_confirmed(Asked(Intent.START, "fr", "millionaire")), [reply])
    assert said is started
    asked = next(effect for effect in effects if isinstance(effect, Say))
    assert asked.key == "serve_start_millionaire"
    (listen,) = [effect for effect in effects if isinstance(effect, Listen)]
    assert (listen.context.name, listen.context.language) == (ContextName.CONFIRM, "fr")


def test_what_the_room_asks_for_is_checked() -> None:
    with pytest.raises(ValueError, match="names its game"):
        Asked(Intent.START, "de")
    with pytest.raises(ValueError, match="not answer"):
        Asked(Intent.ANSWER, "de")
