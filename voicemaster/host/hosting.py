"""What the quizmaster's helpers may ask of the host of a game: its public interface, as protocols.

The joker dialogues, the announcements and the foresight are kept apart from the hosts, so that `millionaire.py` and
`moneydrop.py` read as the games' flow. They take the host as one of these protocols, not as the class: the class
imports them, they do not import it, and nothing outside a host touches its private state.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from typing import Any, Protocol

from voicemaster.dialogue.meaning import Context
from voicemaster.dialogue.turns import Dialogue, Effect, Observation, Say
from voicemaster.host.lines import Money
from voicemaster.questions.model import Entry
from voicemaster.questions.selection import Bank
from voicemaster.rules import events
from voicemaster.rules import moneydrop as md
from voicemaster.rules.actions import Action
from voicemaster.rules.ladders import Stakes
from voicemaster.rules.letters import Letter
from voicemaster.rules.state import Game, Seat


class MillionaireHosting(Protocol):
    """The quizmaster of a Millionaire game (`millionaire.Quizmaster`), as its jokers, announcements and foresight
    see it."""

    @property
    def game(self) -> Game: ...

    @property
    def language(self) -> str: ...

    @property
    def bank(self) -> Bank: ...

    @property
    def heard(self) -> dict[str, int]:
        """When each question these players heard in earlier games was last heard (the larger, the more recent)."""
        ...

    @property
    def asked(self) -> tuple[str, ...]:
        """Question ids asked in this game, in order."""
        ...

    @property
    def options(self) -> tuple[str, ...]:
        """The current question's options in the order they were read."""
        ...

    @property
    def level_played(self) -> int:
        """The level of the question the last action was taken on, for announcing its results."""
        ...

    @property
    def answer_unclear(self) -> bool:
        """Whether the last "final answer?" got nothing clear (rather than a no)."""
        ...

    def line(
        self,
        key: str,
        params: Mapping[str, Any] | None = None,
        *,
        form: str = "",
        asked: int | None = None,
        leads_to_listening: bool = False,
    ) -> Say: ...

    def money(self, amount: int) -> Money: ...

    def option(self, letter: Letter) -> str: ...

    def question_texts(self) -> tuple[str, str]: ...

    def in_round(self) -> str: ...

    def play_on(self, player: str, stakes: Stakes) -> Say: ...

    def seat(self, player: str) -> Seat: ...

    def answer_context(self, player: str) -> Context: ...

    def apply(self, action: Action) -> Generator[Effect, Observation | None, tuple[events.Event, ...]]: ...


class MoneyDropHosting(Protocol):
    """The quizmaster of a money drop (`moneydrop.MoneyDropHost`), as its announcements see it."""

    @property
    def game(self) -> md.MoneyDropGame: ...

    @property
    def settings(self) -> md.MoneyDropSettings: ...

    @property
    def team(self) -> str:
        """The team playing, or the one that played last."""
        ...

    def line(self, key: str, params: Mapping[str, Any] | None = None, *, form: str = "") -> Say: ...

    def money(self, bundles: int) -> Money: ...

    def card(self) -> tuple[Entry, tuple[str, ...]]:
        """The card being played and its options in the order they were read."""
        ...

    def read_card(self) -> Dialogue: ...
