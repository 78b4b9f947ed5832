"""The jokers of a Millionaire game as the quizmaster hosts them (docs/rules.md, "One question"): the 50:50, the
audience (simulated or
the other players voting), the phone call (simulated or a partner at the table) and the extra joker.

These are the quizmaster's own steps, kept apart so `millionaire.py` reads as the game's flow: each takes the
quizmaster hosting the game through its public interface (`hosting.MillionaireHosting`), whose `apply` carries out
the joker's action. What is said of a joker's result is in `millionaire/announcements.py`.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import (
    Dialogue,
    Effect,
    Elapsed,
    Observation,
    Play,
    ReadTimer,
    Record,
    Silence,
    StartTimer,
)
from voicemaster.host import wording
from voicemaster.host.hosting import MillionaireHosting
from voicemaster.host.lines import Choice, Line
from voicemaster.host.listening import ask_yes_no, listen
from voicemaster.rules.actions import Action, AskAudience, PhoneAFriend, UseExtraJoker, UseFiftyFifty
from voicemaster.rules.letters import Letter
from voicemaster.rules.variants import AudienceForm, Joker, PhoneForm

TRIES_FOR_HELPERS = 3
"""How often a voter, phone partner or helper is asked before the joker is given back."""
PARTNER_WARNING_SECONDS = 10
"""A phone partner hears "noch zehn Sekunden"; the last seconds are not counted over their words."""
MOST_UTTERANCES_IN_A_CALL = 12
"""Utterances heard in one partner call before it ends, whatever the clock says: a runner without a clock (a
scripted table) must not keep a call going forever."""


def use_joker(host: MillionaireHosting, player: str, joker: Joker) -> Dialogue:
    seat = host.seat(player)
    name = {"joker": Line(f"joker_{joker.value}")}
    if joker not in host.game.settings.variant.jokers:
        yield host.line("joker_not_in_variant", name)
        return
    if joker in seat.jokers_used:
        yield host.line("joker_used_up", name)
        return
    if not (yield from _sure(host, player, name)):
        yield host.line("joker_kept", name)
        return
    settings = host.game.settings
    action: Action
    if joker is Joker.FIFTY_FIFTY:
        action = UseFiftyFifty(player)
    elif joker is Joker.AUDIENCE and settings.audience_form is AudienceForm.PLAYERS:
        votes = yield from _votes(host, player)
        if votes is None:
            yield host.line("joker_given_back", name)
            return
        action = AskAudience(player, votes)
    elif joker is Joker.AUDIENCE:
        action = AskAudience(player)
    elif joker is Joker.PHONE and settings.phone_form is PhoneForm.PARTNER:
        answer = yield from _partner_call(host, player)
        if answer is None:
            yield host.line("joker_given_back", name)
            return
        action = PhoneAFriend(player, *answer)
    elif joker is Joker.PHONE:
        action = PhoneAFriend(player)
    else:
        helped = (yield from _helper_answer(host, player, "who_helps")) if len(settings.players) > 1 else None
        action = UseExtraJoker(player) if helped is None else UseExtraJoker(player, *helped)
    yield Record("joker", {"player": player, "joker": joker.value})
    yield from host.apply(action)


def _sure(host: MillionaireHosting, player: str, name: dict[str, Line]) -> Generator[Effect, Observation | None, bool]:
    """Whether the player, told which joker was heard, says yes: a joker is spent once, and in a noisy room a word
    said to someone else can sound like one, so only a clear yes spends it; a no, silence or anything unclear keeps
    it."""
    params: dict[str, Any] = {"player": player, **name}
    asked = host.line("confirm_joker", params)
    return (yield from ask_yes_no(asked.key, params, player, host.language, vary=asked.vary))


def _votes(
    host: MillionaireHosting, player: str
) -> Generator[Effect, Observation | None, tuple[tuple[str, Letter], ...] | None]:
    votes: list[tuple[str, Letter]] = []
    for voter in host.game.settings.players:
        if voter == player:
            continue
        letter = yield from _letter_from(host, voter, "your_vote")
        if letter is None:
            return None
        votes.append((voter, letter))
    return tuple(votes)


def _helper_answer(
    host: MillionaireHosting, player: str, question: str
) -> Generator[Effect, Observation | None, tuple[str, Letter] | None]:
    helper = yield from _choose_other(host, player, question)
    if helper is None:
        return None
    letter = yield from _letter_from(host, helper, "helper_answer")
    return None if letter is None else (helper, letter)


def _choose_other(
    host: MillionaireHosting, player: str, question: str
) -> Generator[Effect, Observation | None, str | None]:
    """The other player `player` names ("wen rufst du an?"), or None when no name was understood."""
    others = tuple(p for p in host.game.settings.players if p != player)
    if len(others) == 1:
        # Nobody to choose from: the one other player is named, not offered as a choice.
        yield host.line(question, {"player": player, "names": others[0]}, form=wording.ONE)
        return others[0]
    context = Context(ContextName.NAME, host.language, names=others)
    for _ in range(TRIES_FOR_HELPERS):
        yield host.line(question, {"player": player, "names": Choice(others)}, form=wording.MANY)
        heard = yield from listen(context, player)
        if isinstance(heard, Heard) and heard.intent == Intent.NAME and heard.value in others:
            return heard.value
    return None


def _partner_call(
    host: MillionaireHosting, player: str
) -> Generator[Effect, Observation | None, tuple[str, Letter] | None]:
    """The phone partner at the table (docs/rules.md, "Jokers"): the partner has the call's time to say their letter,
    and why if they like, to the player; the first letter heard ends the call. Everyone hears the partner, so the
    quizmaster adds no letter of its own: it only reads the partner's back (`announce`), and the player decides."""
    partner = yield from _choose_other(host, player, "who_to_call")
    if partner is None:
        return None
    seconds = host.game.settings.variant.phone_call_seconds
    context = host.answer_context(player)
    yield host.line("partner_call", {"partner": partner, "seconds": seconds})
    yield StartTimer(seconds)
    warned = seconds <= PARTNER_WARNING_SECONDS
    for _ in range(MOST_UTTERANCES_IN_A_CALL):
        elapsed = yield ReadTimer()
        left = seconds - (elapsed.seconds if isinstance(elapsed, Elapsed) else 0.0)
        if left <= 0:
            break
        if not warned and left <= PARTNER_WARNING_SECONDS:
            warned = True
            yield host.line("phone_ten_left")
        # Until the warning is due, then until the end: a listening that hears nobody lasts exactly that long.
        heard = yield from listen(
            context, partner, seconds=left if warned else left - PARTNER_WARNING_SECONDS, quiet=True
        )
        if isinstance(heard, Heard) and heard.intent == Intent.ANSWER and heard.value:
            return partner, Letter(heard.value)
        if isinstance(heard, Silence):
            if warned:
                break
            warned = True
            yield host.line("phone_ten_left")
    yield Play("timer_end")
    yield host.line("phone_over")
    # The call is over without a letter understood: the partner is asked for just the letter, as any helper is.
    letter = yield from _letter_from(host, partner, "partner_letter")
    return None if letter is None else (partner, letter)


def _letter_from(host: MillionaireHosting, who: str, key: str) -> Generator[Effect, Observation | None, Letter | None]:
    player = host.game.round.to_act if host.game.round else None
    context = host.answer_context(player) if player else Context(ContextName.ANSWER, host.language)
    for _ in range(TRIES_FOR_HELPERS):
        yield host.line(key, {"player": who})
        heard = yield from listen(context, who)
        if isinstance(heard, Heard) and heard.intent == Intent.ANSWER and heard.value:
            return Letter(heard.value)
    return None
