"""A money-drop placement as the team says it, and counted in bundles (docs/rules.md, "Rette die Million"): "zehn auf
A, den Rest auf C",
corrected one option at a time ("doch fünfzehn auf A"); what cannot even be counted says why (`Unplaceable`), and
so does what the rules refuse (`checked`)."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import dataclass
from typing import Any

from voicemaster.dialogue.turns import Dialogue, Effect, Observation
from voicemaster.host import wording
from voicemaster.host.hosting import MoneyDropHosting
from voicemaster.host.lines import Money
from voicemaster.rules import errors
from voicemaster.rules import moneydrop as md
from voicemaster.rules.letters import Letter


@dataclass(frozen=True)
class Placement:
    """What the team has said so far: per letter a number of bundles, an amount in euros, "rest" or "all"."""

    said: Mapping[Letter, str]

    @staticmethod
    def parse(value: str) -> Placement:
        """The intent matcher's normal form, "A=10,C=rest", back into clauses."""
        pairs = (clause.split("=") for clause in value.split(","))
        return Placement({Letter(letter): amount for letter, amount in pairs})

    def corrected(self, by: Placement) -> Placement:
        """A later utterance replaces what it names and keeps the rest; "alles auf B" replaces everything, and a
        new "rest" replaces the old one."""
        if "all" in by.said.values() or "all" in self.said.values():
            return by
        kept = {
            k: v for k, v in self.said.items() if k not in by.said and not ("rest" in by.said.values() and v == "rest")
        }
        return Placement({**kept, **by.said})


class Unplaceable(Exception):
    """A placement that cannot even be counted in bundles; the line to say, and its parameters."""

    def __init__(self, key: str, params: dict[str, Any]) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


def in_bundles(placement: Placement, options: int, bundles: int, bundle_value: int) -> tuple[int, ...]:
    """Bundles per option, A first. Raises `Unplaceable` for a letter not on offer or euros that are not whole
    bundles; the rules judge the rest."""
    letters = Letter.first(options)
    counted: dict[Letter, int] = {}
    rest: Letter | None = None
    for letter, amount in placement.said.items():
        if letter not in letters:
            raise Unplaceable("md_no_such_option", {"letter": letter.value})
        if amount == "all":
            counted[letter] = bundles
        elif amount == "rest":
            rest = letter
        elif amount.endswith("€"):
            euros = int(amount[:-1])
            if euros % bundle_value:
                raise Unplaceable("md_whole_bundles", {"bundle": bundle_value})
            counted[letter] = euros // bundle_value
        else:
            counted[letter] = int(amount)
    if rest is not None:
        counted[rest] = max(0, bundles - sum(counted.values()))
    return tuple(counted.get(letter, 0) for letter in letters)


def counted(placement: Placement, settings: md.MoneyDropSettings, run: md.Run, *, complete: bool) -> tuple[int, ...]:
    """The placement in bundles as the rules allow it on the current card. Raises `Unplaceable` or the rules'
    `IllegalPlacement`; `complete` False lets money stay unplaced (the time ran out)."""
    card = run.card
    assert card is not None
    bundles = in_bundles(placement, card.options, run.bundles, settings.bundle_value)
    md.check_placement(settings, run, bundles, complete=complete)
    return bundles


def checked(
    host: MoneyDropHosting, current: md.Run, placement: Placement
) -> Generator[Effect, Observation | None, tuple[int, ...] | None]:
    """The placement in bundles if the rules allow it; else the reason, said, and None."""
    try:
        return counted(placement, host.settings, current, complete=True)
    except Unplaceable as problem:
        params = {k: Money(v, host.settings.currency) if k == "bundle" else v for k, v in problem.params.items()}
        yield host.line(problem.key, params)
    except errors.IllegalPlacement as illegal:
        yield from _explain(host, illegal)
    return None


def _explain(host: MoneyDropHosting, illegal: errors.IllegalPlacement) -> Dialogue:
    match illegal:
        case errors.NotAllBundlesPlaced(placed=placed, available=available):
            missing = available - placed
            yield host.line(
                "md_not_all", {"bundles": missing, "money": host.money(missing)}, form=wording.number(missing)
            )
        case errors.TooManyBundles(placed=placed, available=available):
            yield host.line("md_too_many", {"placed": placed, "available": available})
        case errors.SplitInLastQuestion():
            yield host.line("md_split_last")
        case errors.NoEmptyOption():
            yield host.line("md_no_empty")
        case _:
            yield host.line("md_place_again")
