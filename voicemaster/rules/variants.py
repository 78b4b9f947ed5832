"""The Millionaire variants of docs/rules.md, "What a wrong answer pays" and "Jokers": a ladder with its safety levels,
a joker set, joker values.

A variant is data, not a code path: the round logic reads these fields and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from voicemaster.rules.errors import InvalidSetup
from voicemaster.rules.ladders import EUR_DE, EUR_FR, GBP_UK, Ladder, SafetyLevel


class Joker(StrEnum):
    FIFTY_FIFTY = "fifty_fifty"
    AUDIENCE = "audience"
    PHONE = "phone"
    EXTRA = "extra"
    """The Zusatzjoker: someone present helps; a right answer with their help earns them a reward."""


class AudienceForm(StrEnum):
    PLAYERS = "players"
    """Every other player says a letter; the quizmaster adds one vote for the right one."""
    SIMULATED = "simulated"
    """A seeded TV-style audience gives percentages; its accuracy falls with the level."""
    SECOND_CHANCE = "second_chance"
    """One player alone: up to three tries on this question."""


class PhoneForm(StrEnum):
    CALL = "call"
    """A real phone call, timed by the quizmaster."""
    PARTNER = "partner"
    """Another player gives a letter; the quizmaster adds the right one."""
    SECOND_CHANCE = "second_chance"
    """One player alone: up to two tries on this question."""


@dataclass(frozen=True)
class Variant:
    name: str
    ladder: Ladder
    jokers: tuple[Joker, ...]
    phone_call_seconds: int = 30
    extra_joker_reward: int = 5_000
    audience_tries: int = 3
    phone_tries: int = 2

    def __post_init__(self) -> None:
        if len(set(self.jokers)) != len(self.jokers):
            raise InvalidSetup(f"Variant {self.name!r} lists a joker twice.")
        if self.phone_call_seconds <= 0 or self.extra_joker_reward < 0:
            raise InvalidSetup(f"Variant {self.name!r}: timer must be positive, reward not negative.")
        if self.audience_tries < 1 or self.phone_tries < 1:
            raise InvalidSetup(f"Variant {self.name!r}: a second chance needs at least one try.")

    def with_ladder(self, ladder: Ladder) -> Variant:
        """The same jokers on a user's own ladder, which brings its own safety levels."""
        return replace(self, ladder=ladder)


CLASSIC_JOKERS = (Joker.FIFTY_FIFTY, Joker.AUDIENCE, Joker.PHONE)

VARIANTS: dict[str, Variant] = {
    v.name: v
    for v in (
        # The 2002 sheet pays 1 000 EUR for any miss on levels 6-10, more than the 500 EUR of level 5.
        Variant(
            "jumbo-2002",
            replace(EUR_DE, safety_levels=(SafetyLevel(5, 1_000), SafetyLevel(10, 16_000))),
            CLASSIC_JOKERS,
        ),
        Variant("classic", EUR_DE.with_safety_levels(5, 10), CLASSIC_JOKERS),
        Variant("risiko", EUR_DE.with_safety_levels(5), (*CLASSIC_JOKERS, Joker.EXTRA)),
        Variant("qvgdm", EUR_FR.with_safety_levels(5, 10), CLASSIC_JOKERS),
        Variant("uk", GBP_UK.with_safety_levels(5, 10), CLASSIC_JOKERS),
    )
}


def variant(name: str) -> Variant:
    try:
        return VARIANTS[name]
    except KeyError:
        known = ", ".join(VARIANTS)
        raise InvalidSetup(f"There is no variant {name!r}; choose one of {known}.") from None
