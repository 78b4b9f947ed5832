"""The jokers of a Millionaire game as the quizmaster hosts them (RULES.md §1.3): the 50:50, the audience (simulated or
the other players voting), the phone call (simulated or a partner at the table) and the extra joker.

These are the quizmaster's own steps, kept apart so `millionaire.py` reads as the game's flow: each takes the
`Quizmaster` hosting the game, whose state they read and whose `_apply` carries out the joker's action.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING

from voicemaster.host import wording
from voicemaster.host.lines import Choice, Line
from voicemaster.host.listening import listen
from voicemaster.host.turns import Dialogue, Effect, Observation, Play, Record, Say, StartTimer, WaitUntil
from voicemaster.rules.actions import Action, AskAudience, PhoneAFriend, UseExtraJoker, UseFiftyFifty
from voicemaster.rules.letters import Letter
from voicemaster.rules.variants import AudienceForm, Joker, PhoneForm
from voicemaster.speech.hearing.recognition import Context, ContextName, Heard

if TYPE_CHECKING:
    from voicemaster.host.millionaire import Quizmaster

TRIES_FOR_HELPERS = 3
"""How often a voter, phone partner or helper is asked before the joker is given back."""
COUNTDOWN_FROM = 5


def use_joker(host: Quizmaster, player: str, joker: Joker) -> Dialogue:
    seat = host._seat(player)
    name = {"joker": Line(f"joker_{joker.value}")}
    if joker not in host.game.settings.variant.jokers:
        yield host.line("joker_not_in_variant", name)
        return
    if joker in seat.jokers_used:
        yield host.line("joker_used_up", name)
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
        answer = yield from _helper_answer(host, player, "who_to_call")
        if answer is None:
            yield host.line("joker_given_back", name)
            return
        host._partner_said = answer[1]
        action = PhoneAFriend(player, *answer)
    elif joker is Joker.PHONE:
        action = PhoneAFriend(player)
    else:
        helped = (yield from _helper_answer(host, player, "who_helps")) if len(settings.players) > 1 else None
        action = UseExtraJoker(player) if helped is None else UseExtraJoker(player, *helped)
    yield Record("joker", {"player": player, "joker": joker.value})
    yield from host._apply(action)


def _votes(
    host: Quizmaster, player: str
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
    host: Quizmaster, player: str, question: str
) -> Generator[Effect, Observation | None, tuple[str, Letter] | None]:
    others = tuple(p for p in host.game.settings.players if p != player)
    if len(others) == 1:
        # Nobody to choose from: the one other player is named, not offered as a choice.
        yield host.line(question, {"player": player, "names": others[0]}, form=wording.ONE)
        letter = yield from _letter_from(host, others[0], "helper_answer")
        return None if letter is None else (others[0], letter)
    context = Context(ContextName.NAME, host.language, names=others)
    for _ in range(TRIES_FOR_HELPERS):
        yield host.line(question, {"player": player, "names": Choice(others)}, form=wording.MANY)
        heard = yield from listen(context, player)
        if isinstance(heard, Heard) and heard.intent == "name" and heard.value in others:
            letter = yield from _letter_from(host, heard.value, "helper_answer")
            return None if letter is None else (heard.value, letter)
    return None


def _letter_from(host: Quizmaster, who: str, key: str) -> Generator[Effect, Observation | None, Letter | None]:
    player = host.game.round.to_act if host.game.round else None
    context = host._answer_context(player) if player else Context(ContextName.ANSWER, host.language)
    for _ in range(TRIES_FOR_HELPERS):
        yield host.line(key, {"player": who})
        heard = yield from listen(context, who)
        if isinstance(heard, Heard) and heard.intent == "answer" and heard.value:
            return Letter(heard.value)
    return None


def phone_call(host: Quizmaster, seconds: int) -> Dialogue:
    """The call runs in game time: announced, "ten seconds left", the last five counted, a sound at the end."""
    yield host.line("phone_start", {"seconds": seconds})
    yield StartTimer(seconds)
    yield WaitUntil(seconds - 10)
    yield host.line("phone_ten_left")
    for left in range(COUNTDOWN_FROM, 0, -1):
        yield WaitUntil(seconds - left)
        yield host.line("count", {"n": left})
    yield WaitUntil(seconds)
    yield Play("timer_end")
    yield host.line("phone_over")


def partner_letters(host: Quizmaster, partner: str, letters: tuple[Letter, ...]) -> Say:
    """Who said what: the partner's letter (they said it aloud anyway) and the quizmaster's, the other one the
    rules drew; "auch" when both said the same."""
    said = host._partner_said if host._partner_said in letters else letters[0]
    mine = next((letter for letter in letters if letter != said), said)
    params = {"partner": partner, "letter": said.value, "mine": mine.value}
    return host.line("partner_letters", params, form="same" if mine == said else "different")
