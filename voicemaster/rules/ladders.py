"""Prize ladders (docs/rules.md, "Ladders") and safety levels ("What a wrong answer pays") as data."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from voicemaster.rules.errors import InvalidSetup

LEVELS = 15


class Safety(StrEnum):
    """How a wrong answer compares with walking away, before a question (§1.2): what a player may call safe."""

    NONE = "none"
    """A wrong answer pays nothing: nothing is safe yet (below the first safety level)."""
    HELD = "safe"
    """A wrong answer pays exactly what walking away keeps: all of it is safe."""
    PART = "part"
    """A wrong answer pays less than walking away keeps, but not nothing: a safety level below is safe."""
    MORE = "more"
    """A wrong answer pays more than walking away keeps (the 2002 sheet's 1 000 EUR on level 6)."""


@dataclass(frozen=True)
class Stakes:
    """What is at stake on question `level` for a player who reached it: the facts a player deciding to walk away
    needs, and the only source of what the quizmaster calls safe."""

    level: int
    keep: int
    """Walking away before answering keeps this."""
    wrong: int
    """A wrong answer leaves with this."""
    win: int
    """A right answer holds this."""

    @property
    def safety(self) -> Safety:
        if self.wrong == 0:
            return Safety.NONE
        if self.wrong == self.keep:
            return Safety.HELD
        return Safety.PART if self.wrong < self.keep else Safety.MORE


@dataclass(frozen=True)
class SafetyLevel:
    """Once a player has passed `level`, a wrong answer still pays `payout`.

    `payout` is usually the ladder's amount at `level`; the 2002 board game pays 1 000 EUR for any miss on levels
    6-10 although its level 5 is worth 500 EUR, so the payout is data of its own.
    """

    level: int
    payout: int


@dataclass(frozen=True)
class Ladder:
    name: str
    currency: str  # ISO 4217 code ("EUR", "GBP") or "points"
    amounts: tuple[int, ...]  # level 1 first
    safety_levels: tuple[SafetyLevel, ...]

    def __post_init__(self) -> None:
        if len(self.amounts) != LEVELS:
            raise InvalidSetup(f"Ladder {self.name!r} needs {LEVELS} amounts, it has {len(self.amounts)}.")
        if any(a <= 0 for a in self.amounts) or list(self.amounts) != sorted(set(self.amounts)):
            raise InvalidSetup(f"Ladder {self.name!r}: amounts must be positive and strictly rising.")
        levels = [s.level for s in self.safety_levels]
        if levels != sorted(set(levels)) or any(not 1 <= lv < LEVELS for lv in levels):
            raise InvalidSetup(f"Ladder {self.name!r}: safety levels must be distinct, rising, between 1 and 14.")
        if any(s.payout < 0 for s in self.safety_levels):
            raise InvalidSetup(f"Ladder {self.name!r}: a safety payout cannot be negative.")

    @property
    def top_prize(self) -> int:
        return self.amounts[-1]

    def amount(self, level: int) -> int:
        """What a player who has answered `level` questions correctly holds (0 before the first)."""
        return 0 if level == 0 else self.amounts[level - 1]

    def wrong_answer_payout(self, level: int) -> int:
        """What a player leaves with after a wrong answer to question `level`: the highest safety level below."""
        passed = [s.payout for s in self.safety_levels if s.level < level]
        return passed[-1] if passed else 0

    def walk_away_payout(self, level: int) -> int:
        """Walking away before answering question `level` keeps the amount of level - 1."""
        return self.amount(level - 1)

    def stakes(self, level: int) -> Stakes:
        """What walking away, a wrong and a right answer to question `level` bring."""
        return Stakes(level, self.walk_away_payout(level), self.wrong_answer_payout(level), self.amount(level))

    def with_safety_levels(self, *levels: int) -> Ladder:
        """This ladder with safety levels that pay the ladder's own amounts."""
        return Ladder(self.name, self.currency, self.amounts, tuple(SafetyLevel(lv, self.amount(lv)) for lv in levels))


def _standard(name: str, currency: str, amounts: tuple[int, ...]) -> Ladder:
    return Ladder(name, currency, amounts, ()).with_safety_levels(5, 10)


EUR_DE = _standard(
    "eur-de",
    "EUR",
    (50, 100, 200, 300, 500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 125_000, 500_000, 1_000_000),
)
EUR_FR = _standard(
    "eur-fr",
    "EUR",
    (
        200,
        300,
        500,
        800,
        1_500,
        3_000,
        6_000,
        12_000,
        24_000,
        48_000,
        72_000,
        100_000,
        150_000,
        300_000,
        1_000_000,
    ),
)
GBP_UK = _standard(
    "gbp-uk",
    "GBP",
    (
        100,
        200,
        300,
        500,
        1_000,
        2_000,
        4_000,
        8_000,
        16_000,
        32_000,
        64_000,
        125_000,
        250_000,
        500_000,
        1_000_000,
    ),
)

LADDERS: dict[str, Ladder] = {ladder.name: ladder for ladder in (EUR_DE, EUR_FR, GBP_UK)}
