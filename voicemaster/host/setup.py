"""Before the first question: who plays, and by which rules, asked by voice.

Names are free speech, so each one is read back and counts only after a clear yes. The variant is offered one at a
time, each taken with a yes: easier to hear in a car than a name the player has never heard of.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TypeVar

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import Effect, LookForNewcomers, NewcomersWaiting, Observation, Say
from voicemaster.host.lines import Line
from voicemaster.host.listening import ask_yes_no, listen, marked

MAX_PLAYERS = 6
T = TypeVar("T")


def who_plays(language: str) -> Generator[Effect, Observation | None, tuple[str, ...]]:
    """Names, one player after the other, until nobody else plays. Asking "anyone else?" rather than "how many?":
    a yes is heard far more reliably than a number said alone ("zwei" came back as "Smile."). Each player's name and
    its read-back are listened to as their seat, and "anyone else?" as the next one's: a player whose phone joined
    before their name was known says it, and the yes that brings them in, into that phone (with none waiting, a named
    player's phone answers "anyone else?": `Phones.newcomer`)."""
    yield Say("greeting")
    yield Say("setup_help")
    names: list[str] = []
    while len(names) < MAX_PLAYERS:
        tries = TRIES if names else None  # the first player is asked until named: no game has no player
        name = yield from _seated(len(names) + 1, _name(language, len(names) + 1, tries))
        if name is None:
            yield Say("another_player_unclear")
            break
        if _taken(name, names):
            yield Say("name_taken", {"name": name})
            continue
        names.append(name)
        if not (yield from _seated(len(names) + 1, _anyone_else(language))):
            break
    return tuple(names)


TRIES = 3
"""How often "anyone else?", or a further player's name, is asked when no clear reply comes, before the game begins
with the players it has."""


def newcomer(language: str, players: tuple[str, ...]) -> Generator[Effect, Observation | None, str | None]:
    """Between rounds (the next one about to start): "Is someone new joining in?", and for a yes the newcomer's name,
    read back, as `who_plays` asks a further player's, at the next seat (`Listen.seat`): a newcomer's phone waiting
    is heard for it. Every unclear reply is bounded by `TRIES`, so a party's talk neither loops nor seats a phantom;
    a no, silence or nothing clear is nobody new (None)."""
    if len(players) >= MAX_PLAYERS:
        return None
    seat = len(players) + 1
    if not (yield from _seated(seat, _anyone_else(language, "newcomer_asked"))):
        return None
    for _ in range(TRIES):
        name = yield from _seated(seat, _name(language, seat, TRIES))
        if name is None:
            yield Say("another_player_unclear")
            return None
        if not _taken(name, players):
            return name
        yield Say("name_taken", {"name": name})
    return None


def newcomer_by_phone(language: str, players: tuple[str, ...]) -> Generator[Effect, Observation | None, str | None]:
    """`newcomer`, only when a phone waits to join as a new player ("Ich spiele neu mit", `LookForNewcomers`): before
    the next round of a game that asks no "another round?" (a fixed number of rounds, the money drop's runs). With
    none waiting nothing is said: asking the room before every round would nag (docs/decisions/046)."""
    looked = yield LookForNewcomers()
    if not isinstance(looked, NewcomersWaiting) or looked.phones == 0:
        return None
    return (yield from newcomer(language, players))


def _taken(name: str, names: Sequence[str]) -> bool:
    """Whether a player of `names` has `name` already, whatever its case ("anna" is Anna)."""
    return name.casefold() in (taken.casefold() for taken in names)


def _anyone_else(language: str, key: str = "another_player") -> Generator[Effect, Observation | None, bool]:
    """True for a clear yes; a clear no or silence is nobody else. Unclear is asked again, so that nobody is left
    out, or added, by a misheard word; but a room that is never silent (a party's talk at the computer's microphone)
    keeps every reply unclear, and the game would never begin: after `TRIES` the quizmaster says it is too loud
    and begins with the players named."""
    for _ in range(TRIES):
        yield Say(key)
        heard = yield from listen(Context(ContextName.CONFIRM, language), None)
        if not isinstance(heard, Heard):
            return False
        if heard.intent in (Intent.YES, Intent.NO):
            return heard.intent == Intent.YES
    yield Say("another_player_unclear")
    return False


def _name(language: str, number: int, tries: int | None) -> Generator[Effect, Observation | None, str | None]:
    """Player `number`'s name, once read back and confirmed; None after `tries` askings without one (None: until
    named). At a party the computer's microphone hears other people's "Ich bin Jonas" and "ja" in every reply: asked
    for ever, a name the talk says is sooner or later confirmed by the talk's own yes."""
    asked = 0
    while tries is None or asked < tries:
        asked += 1
        yield Say("ask_name", {"n": number})
        heard = yield from listen(Context(ContextName.NAME, language), None)
        if isinstance(heard, Heard) and heard.intent == Intent.NAME and heard.value:
            if (yield from ask_yes_no("name_read_back", {"name": heard.value}, None, language)):
                return heard.value
        elif isinstance(heard, Heard) and heard.intent == Intent.HELP:
            yield Say("setup_help")
    return None


def _seated(seat: int, asking: Generator[Effect, Observation | None, T]) -> Generator[Effect, Observation | None, T]:
    """`asking`, its listenings marked as `seat`'s (`Listen.seat`)."""
    return (yield from marked(asking, seat=seat))


def which_variant(language: str, variants: tuple[str, ...]) -> Generator[Effect, Observation | None, str]:
    """Offers the variants in turn until one gets a yes; after the last, starts again."""
    yield Say("variant_intro")
    while True:
        for name in variants:
            described = {"variant": Line(f"variant_{name}")}
            if (yield from ask_yes_no("variant_offer", described, None, language)):
                return name
