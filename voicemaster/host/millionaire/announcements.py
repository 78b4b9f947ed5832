"""What the quizmaster of a Millionaire game says about each rules event, once it is stored: the round and the
question starting, a joker's result, an answer given, locked or tried again, the reveal, the payouts and the totals;
and the score, when a player asks for it.

Kept apart from `millionaire.py`, which decides what happens; this takes the quizmaster hosting the game through its
public interface (`hosting.MillionaireHosting`) for its wording and for what it remembers of the last step (the level
played, whether "final answer?" got nothing clear).
"""

from __future__ import annotations

from voicemaster.dialogue.turns import Dialogue, Play, Record, Say, StartTimer, WaitUntil
from voicemaster.host import wording
from voicemaster.host.hosting import MillionaireHosting
from voicemaster.rules import events
from voicemaster.rules.letters import Letter

COUNTDOWN_FROM = 5
"""The last seconds of a phone call, counted aloud."""


def announce(host: MillionaireHosting, event: events.Event) -> Dialogue:
    options = host.option
    match event:
        case events.RoundStarted(number, candidates):
            yield host.line(
                "round_started", {"number": number, "players": list(candidates)}, form=wording.number(candidates)
            )
        case events.PlayerJoined(player, number):
            yield host.line("newcomer_joined", {"player": player, "number": number})
        case events.QuestionAsked(level, amount, _):
            yield host.line("question_intro", {"level": level, "amount": host.money(amount)})
        case events.WalkedAway(player, amount):
            yield Record("walk_away", {"player": player, "amount": amount})
            yield host.line(
                "walked_away", {"player": player, "amount": host.money(amount)}, form=wording.amount(amount)
            )
        case events.FiftyFiftyUsed(player, _, remaining):
            yield host.line("fifty_fifty", {"player": player})
            for letter in remaining:
                yield host.line("option", {"letter": letter.value, "text": options(letter)})
        case events.AudiencePolled(_, percentages) | events.AudienceVoted(_, percentages):
            unit = "percent" if isinstance(event, events.AudiencePolled) else "votes"
            shares = {letter.value: share for letter, share in percentages}
            yield Record("audience", {"player": event.player, "unit": unit, "shares": shares})
            yield host.line(f"audience_{unit}_intro")
            for letter, share in percentages:
                yield host.line(f"audience_{unit}", {"letter": letter.value, "n": share}, form=wording.counted(share))
        case events.SecondChanceGranted(player, _, tries):
            yield host.line("second_chance", {"player": player, "tries": tries}, form=wording.counted(tries))
        case events.PhoneCallStarted(_, seconds):
            yield from phone_call(host, seconds)
        case events.PartnerAnswered(_, partner, letter):
            yield partner_said(host, partner, letter)
        case events.ExtraJokerUsed(player, helper, letter):
            if helper is None or letter is None:
                yield host.line("extra_joker_alone", {"player": player})
            else:
                yield host.line("extra_joker_helper", {"helper": helper, "letter": letter.value})
        case events.AnswerGiven():
            pass
        case events.AnswerWithdrawn(player, _):
            yield host.line("not_locked", {"player": player}, form="unclear" if host.answer_unclear else "refused")
        case events.AnswerLocked(player, letter):
            yield Record("locked", {"player": player, "option": letter.value})
            yield host.line("locked", {"player": player, "letter": letter.value})
        case events.AnswerTakenBack(player, letter):
            yield Record("taken_back", {"player": player, "option": letter.value})
            yield host.line("taken_back", {"player": player})
        case events.TryFailed(player, letter, tries):
            yield host.line(
                "try_failed",
                {"player": player, "letter": letter.value, "tries": tries},
                form=wording.counted(tries),
            )
        case events.Revealed(correct):
            _, explanation = host.question_texts()
            yield host.line("correct_answer", {"letter": correct.value, "text": options(correct)})
            if explanation:
                yield host.line("explanation", {"text": explanation})
        case events.AnsweredCorrectly(player, level, amount):
            yield Record("result", {"player": player, "correct": True, "level": level})
            yield host.line("right", {"player": player, "amount": host.money(amount)})
        case events.AnsweredWrongly(player, _, payout):
            yield Record("result", {"player": player, "correct": False, "level": host.level_played})
            yield Record("payout", {"player": player, "amount": payout})
            yield host.line("wrong", {"player": player, "amount": host.money(payout)}, form=wording.amount(payout))
        case events.TopPrizeWon(player, amount):
            yield Record("result", {"player": player, "correct": True, "level": 15})
            yield Record("payout", {"player": player, "amount": amount})
            yield host.line("top_prize", {"player": player, "amount": host.money(amount)})
        case events.HelperRewarded(helper, amount):
            yield host.line("helper_rewarded", {"helper": helper, "amount": host.money(amount)})
        case events.RoundEnded(result):
            yield host.line("round_over", {"number": result.number})
            for line in result.results:
                said = {"player": line.player, "total": host.money(line.total)}
                yield host.line("round_total", said, form=wording.amount(line.total))
        case events.GameEnded(outcome):
            totals = dict(outcome.totals)
            yield Record("game_over", {"totals": totals, "winners": list(outcome.winners)})
            for player, total in outcome.totals:
                yield host.line(
                    "game_total", {"player": player, "total": host.money(total)}, form=wording.amount(total)
                )
            key = "winner" if len(outcome.winners) == 1 else "winners"
            yield host.line(key, {"players": list(outcome.winners)})
            yield host.line("goodbye")


def phone_call(host: MillionaireHosting, seconds: int) -> Dialogue:
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


def partner_said(host: MillionaireHosting, partner: str, letter: Letter) -> Say:
    """ "Ben meint: B", with the option's words: what the partner said, read back to the player, and nothing more."""
    return host.line("partner_said", {"partner": partner, "letter": letter.value, "text": host.option(letter)})


def score(host: MillionaireHosting) -> Dialogue:
    """Each player's total so far, and the level they stand on if they are still playing this round."""
    current = host.game.round
    totals = host.game.totals()
    for player in host.game.settings.players:
        seat = current.seat(player) if current else None
        level = current.level - 1 if current and seat and seat.playing else 0
        said = {"player": player, "total": host.money(totals[player]), "level": level}
        yield host.line("score_line", said, form=wording.amount(totals[player]))
