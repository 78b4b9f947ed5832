"""Listening, shared by every flow of the quizmaster: one utterance heard and recorded, and a yes/no question.

The safety rule lives here: only a clear yes is a yes.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import ChangeVoice, Effect, Listen, Observation, Record, Say, Silence

LISTEN_SECONDS = 8.0
"""How long the quizmaster waits for a player to start speaking."""
SILENCES_BEFORE_PAUSE = 2
"""Re-prompts after silence; one more silence pauses the game until someone says "weiter"."""

Asking = Generator[Effect, Observation | None, bool]
T = TypeVar("T")


def listen(
    context: Context,
    player: str | None,
    *,
    record_silence: bool = True,
    seconds: float = LISTEN_SECONDS,
    quiet: bool = False,
) -> Generator[Effect, Observation | None, Heard | Silence]:
    """One utterance, recorded; an utterance not understood is said to be so (unless `quiet`: a phone partner
    thinking aloud is not interrupted), and the caller asks again."""
    observation = yield Listen(context, player, seconds)
    if isinstance(observation, Heard):
        yield Record(
            "heard",
            {
                "player": player,
                "context": context.name.value,
                "intent": observation.intent,
                "value": observation.value,
                "text": observation.text,
            },
        )
        if observation.intent == Intent.UNKNOWN and not quiet:
            yield Say("not_understood")
    elif record_silence:
        yield Record("silence", {"player": player, "context": context.name.value})
    return observation if isinstance(observation, Heard) else Silence()


def marked(asking: Generator[Effect, Observation | None, T], **fields: Any) -> Generator[Effect, Observation | None, T]:
    """`asking`, each of its listenings with `fields` set (`Listen.seat`, `Listen.to_all`): who is asked, which
    decides the microphone that hears it, is the caller's to say, not the question's."""
    observation: Observation | None = None
    while True:
        try:
            effect = asking.send(observation)
        except StopIteration as done:
            result: T = done.value
            return result
        observation = yield replace(effect, **fields) if isinstance(effect, Listen) else effect


def ask_yes_no(
    key: str,
    params: dict[str, Any],
    player: str | None,
    language: str,
    *,
    form: str = "",
    vary: int = 0,
    silence_means: bool = False,
) -> Asking:
    """A clear yes is True, a clear no False; anything else is a no, and silence is `silence_means`. "Weiter"
    counts as a yes where `silence_means` is True: the question was whether to go on."""
    heard = yield from _asked(key, params, player, language, form, vary)
    if isinstance(heard, Silence):
        return silence_means
    if heard.intent == Intent.RESUME and silence_means:
        return True
    return heard.intent == Intent.YES


RESUME_TRIES = 3
"""How often "continue the interrupted game?" is asked when the reply is unclear or silence, before the game is
kept for later: an interrupted game is never pushed aside on a guess."""


def offer_resume(language: str) -> Generator[Effect, Observation | None, bool | None]:
    """True to continue the interrupted game, False (a clear no) for a new one, None when no clear reply came."""
    for _ in range(RESUME_TRIES):
        yield Say("resume_offer")
        heard = yield from listen(Context(ContextName.CONFIRM, language), None)
        if isinstance(heard, Heard) and heard.intent in (Intent.YES, Intent.NO, Intent.RESUME):
            return heard.intent != Intent.NO
    yield Say("resume_kept")
    return None


def ask_clearly(
    key: str,
    params: dict[str, Any],
    player: str | None,
    language: str,
    *,
    form: str = "",
    vary: int = 0,
    yes_at_once: bool = False,
) -> Generator[Effect, Observation | None, bool | None]:
    """Asks once: True for a clear yes, False for a clear no, None when nothing clear came (silence, or words not
    understood), so that the quizmaster says what happened rather than thank the player for a no never said.
    `yes_at_once`: the caller listens on for a take-back (`take_back_window`), so a yes need not wait the whole
    pause."""
    heard = yield from _asked(key, params, player, language, form, vary, yes_at_once)
    if isinstance(heard, Heard) and heard.intent in (Intent.YES, Intent.NO):
        return heard.intent == Intent.YES
    return None


def _asked(
    key: str, params: dict[str, Any], player: str | None, language: str, form: str, vary: int, yes_at_once: bool = False
) -> Generator[Effect, Observation | None, Heard | Silence]:
    yield Say(key, params, form=form, vary=vary)
    return (yield from listen(Context(ContextName.CONFIRM, language, yes_at_once=yes_at_once), player))


TAKE_BACK_SECONDS = 0.5
"""How long a take-back is still listened for once the lines said over it have ended. The window runs from the yes
through those lines (the lock, and the suspense when every answer is in): well past the longest pause people leave
before "... nein, warte" (`voicemaster bench yes-wait` tries up to 1.5 s)."""


def take_back_window(player: str | None, language: str) -> Generator[Effect, Observation | None, bool]:
    """Listens through the lines said since the yes, and a moment after, for the yes taken back: True for a clear
    no ("Nein, warte!", "Doch nicht"). Anything else (silence, a yes again, words not understood) leaves the yes
    standing, without a word: the yes was clear."""
    heard = yield from listen(
        Context(ContextName.CONFIRM, language), player, record_silence=False, seconds=TAKE_BACK_SECONDS, quiet=True
    )
    return isinstance(heard, Heard) and heard.intent == Intent.NO


def leading_to_listening(
    dialogue: Generator[Effect, Observation | None, T],
) -> Generator[Effect, Observation | None, T]:
    """`dialogue` with each line it says held for the listening that follows (`Say.leads_to_listening`): the player
    is heard while it is said."""
    try:
        effect = next(dialogue)
        while True:
            if isinstance(effect, Say):
                effect = replace(effect, leads_to_listening=True)
            effect = dialogue.send((yield effect))
    except StopIteration as ended:
        result: T = ended.value
        return result


def one_by_one(
    key: str, offers: Sequence[dict[str, Any]], player: str | None, language: str
) -> Generator[Effect, Observation | None, int | None]:
    """Offers each in turn, to be taken with a clear yes; the index of the one taken, or None. The fallback when a
    choice is not understood: a yes is far easier to hear in a noisy car than a letter, a split or a category."""
    for index, params in enumerate(offers):
        if (yield from ask_yes_no(key, params, player, language)):
            return index
    return None


def after_silence(silences: int, language: str) -> Generator[Effect, Observation | None, int]:
    """Counts one more silence in a row; the third pauses the game (nobody may be there) and the count starts again."""
    if silences + 1 > SILENCES_BEFORE_PAUSE:
        yield from pause(language)
        return 0
    return silences + 1


def pause(language: str) -> Generator[Effect, Observation | None, None]:
    """Waits, without re-prompting, until someone says "weiter" (or yes)."""
    yield Say("paused")
    while True:
        heard = yield from listen(Context(ContextName.CONFIRM, language), None, record_silence=False)
        if isinstance(heard, Heard) and heard.intent in (Intent.RESUME, Intent.YES):
            yield Say("resumed")
            return


VOICE_COMMANDS = {"slower": ("rate", -1), "faster": ("rate", 1), "louder": ("volume", 1), "quieter": ("volume", -1)}


def change_voice(intent: str) -> Generator[Effect, Observation | None, None]:
    """ "Langsamer", "lauter" and their kin; any other intent is left alone."""
    if intent in VOICE_COMMANDS:
        yield ChangeVoice(*VOICE_COMMANDS[intent])
        yield Say("voice_changed")
