"""What may be said now and what it meant: the words the quizmaster and the ear share.

A listening context names what may be said (answer, confirm, number, name) and carries what is specific to the
moment (the four options, the players' names); `Heard` is what an utterance meant in it. The host asks for contexts
and receives `Heard`; the speech layer turns audio into `Heard`. Both import this module; it imports neither.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum


class ContextName(StrEnum):
    ANSWER = "answer"
    """A question is open: a letter, an option's text, a joker, or a command."""
    CONFIRM = "confirm"
    """'Ist das deine endgültige Entscheidung?': yes or no (and commands)."""
    NUMBER = "number"
    """Money placement in the money drop: amounts or bundles on letters."""
    NAME = "name"
    """A player's name, when players introduce themselves or a partner is chosen."""
    START = "start"
    """No game is under way (`voicemaster serve`): a start phrase, "weiter" for an interrupted game, or help."""


@dataclass(frozen=True)
class Context:
    name: ContextName
    language: str
    options: tuple[str, ...] = ()
    """The texts of the options on offer, in letter order (A first)."""
    names: tuple[str, ...] = ()
    """The players' names, for the name context."""
    yes_at_once: bool = False
    """A clear yes may end listening at the first short pause, like any other clear reading: the quizmaster listens
    on for a take-back ("Ja ... nein, warte!") before anything follows from it. Elsewhere a yes waits out the whole
    pause."""

    @property
    def asked(self) -> Context:
        """What the quizmaster asked, without when it acts on a yes (`yes_at_once`): what may be said depends on this
        alone, so what is worked out from it is kept once for both."""
        return replace(self, yes_at_once=False)


class Intent(StrEnum):
    """What an utterance means. A `StrEnum`, so that it reads, logs and stores as its plain name."""

    ANSWER = "answer"
    """An option: value the letter, A-D."""
    JOKER = "joker"
    """Value the joker: fifty_fifty, audience, phone, extra."""
    YES = "yes"
    NO = "no"
    PLACEMENT = "placement"
    """Money placed on options in the money drop: value like "A=10,C=rest"."""
    SWITCH_CATEGORY = "switch_category"
    """The money drop's category joker: the other category's question."""
    NAME = "name"
    """Value the name."""
    WALK_AWAY = "walk_away"
    REPEAT = "repeat"
    HELP = "help"
    PAUSE = "pause"
    RESUME = "resume"
    SCORE = "score"
    QUIT = "quit"
    SLOWER = "slower"
    FASTER = "faster"
    LOUDER = "louder"
    QUIETER = "quieter"
    START = "start"
    """A new game asked for (`voicemaster serve`): value the format, millionaire or moneydrop."""
    SCREEN_ADDRESS = "screen_address"
    """Where the screen for the room can be opened: said so that a player can type it."""
    UNKNOWN = "unknown"
    """Nothing matched clearly: the player is asked again."""


@dataclass(frozen=True)
class Heard:
    """One understood utterance: the observation the quizmaster receives."""

    intent: Intent
    value: str | None
    text: str
    confidence: float
    decode_ms: float = 0.0
    language: str | None = None
    """The language it was heard in, where a reader listened in several at once (`voicemaster serve`); None: the
    context's."""

    def __post_init__(self) -> None:
        # A plain name ("answer") is accepted where a test or a saved game writes one; an unknown name is an error.
        object.__setattr__(self, "intent", Intent(self.intent))
