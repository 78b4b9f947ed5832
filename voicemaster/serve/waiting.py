"""While no game is under way: what the always-ready quizmaster hears and says, pure (effects out, observations in).

Listening goes on in silence: the room's talk is never answered, nor told it was not understood. Only a start
phrase, "weiter" or help ends it. A start is said back in the language it was heard in and counts only after a clear
yes: a no, anything unclear or silence leaves the room as it was (a falsely heard start costs one question, never a
game). "Weiter" is answered by `play`'s own offer of the interrupted game, which needs its yes too.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import Effect, Listen, Observation, Record
from voicemaster.host.listening import Asking, ask_yes_no

WAIT_SECONDS = 60.0
"""One listening while waiting: silence ends it and the next begins at once, saying nothing."""

ASKED_FOR = (Intent.START, Intent.RESUME, Intent.HELP)
"""What ends the waiting; everything else heard is the room's own talk."""


@dataclass(frozen=True)
class Asked:
    """What the room asked for, and in which language."""

    intent: Intent
    """START, RESUME or HELP."""
    language: str
    game: str = ""
    """For a start, the format asked for: millionaire or moneydrop."""

    def __post_init__(self) -> None:
        if self.intent not in ASKED_FOR:
            raise ValueError(f"the room asks for a start, weiter or help, not {self.intent}")
        if (self.intent is Intent.START) != bool(self.game):
            raise ValueError("a start names its game, and only a start")


def start_context(language: str, own_phrases: tuple[str, ...] = ()) -> Context:
    """What is listened for while waiting; `own_phrases`, the user's own start phrases (`[serve] start_phrases`)."""
    return Context(ContextName.START, language, options=own_phrases)


def wait_for_asking(context: Context) -> Generator[Effect, Observation | None, Asked]:
    """Listens until a start, "weiter" or help is heard (in any language the reader listens in), and returns it."""
    while True:
        heard = yield Listen(context, None, WAIT_SECONDS)
        if isinstance(heard, Heard) and heard.intent in ASKED_FOR:
            language = heard.language or context.language
            yield Record("heard", {"context": context.name.value, "intent": heard.intent, "value": heard.value,
                                   "text": heard.text, "language": language})  # fmt: skip
            game = (heard.value or "") if heard.intent is Intent.START else ""
            return Asked(heard.intent, language, game)


def start_confirmed(asked: Asked) -> Asking:
    """The start said back ("Soll ich ein neues Spiel starten?"): True on a clear yes only."""
    return (yield from ask_yes_no(f"serve_start_{asked.game}", {}, None, asked.language))
