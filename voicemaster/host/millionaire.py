"""The quizmaster of a Millionaire game: a dialogue that drives the rules engine by voice (RULES.md §1).

The flow is derived from the stored game at every step: what to do next follows from the rules state alone (no
round: start one; no question: offer walking away, then ask; someone to act: their turn; else reveal). So a game
resumed from the store continues exactly where it was, and there is no second state machine to keep in step.
Every rules transition is recorded (and stored) before it is announced.
"""

from __future__ import annotations

import json
from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from voicemaster.host import foresight, wording
from voicemaster.host.lines import Choice, Line, Money
from voicemaster.host.listening import (
    Asking,
    after_silence,
    ask_clearly,
    ask_yes_no,
    change_voice,
    listen,
    one_by_one,
    pause,
)
from voicemaster.host.turns import (
    Dialogue,
    Effect,
    Foresee,
    Observation,
    Play,
    Record,
    Say,
    Silence,
    StartTimer,
    WaitUntil,
)
from voicemaster.questions.selection import Bank, Presented
from voicemaster.rules import events, millionaire
from voicemaster.rules.actions import (
    Action,
    AskAudience,
    AskQuestion,
    ConfirmAnswer,
    GiveAnswer,
    PhoneAFriend,
    Reveal,
    StartRound,
    StopGame,
    UseExtraJoker,
    UseFiftyFifty,
    WalkAway,
)
from voicemaster.rules.codec import dumps, loads
from voicemaster.rules.ladders import Stakes
from voicemaster.rules.letters import Letter
from voicemaster.rules.state import Game, Seat
from voicemaster.rules.variants import AudienceForm, Joker, PhoneForm
from voicemaster.speech.recognition import Context, ContextName, Heard

TRIES_FOR_HELPERS = 3
"""How often a voter, phone partner or helper is asked before the joker is given back."""
COUNTDOWN_FROM = 5
MISHEARD_BEFORE_SCAN = 3
"""After this many answers in a row that could not be understood, or were heard and then refused at "final
answer?", the quizmaster offers the options one by one, each to be taken with a yes: a yes is far easier to hear in
a noisy car than a letter."""


@dataclass(frozen=True)
class Session:
    """Everything needed to continue a game: the rules state and the questions as this game reads them."""

    game: Game
    asked: tuple[str, ...] = ()
    """Question ids asked in this game, in order."""
    options: tuple[str, ...] = ()
    """The current question's options in the order they were read."""

    def to_json(self) -> str:
        return json.dumps({"game": dumps(self.game), "asked": self.asked, "options": self.options}, ensure_ascii=False)

    @staticmethod
    def from_json(text: str) -> Session:
        data = json.loads(text)
        return Session(loads(Game, data["game"]), tuple(data["asked"]), tuple(data["options"]))


class Quizmaster:
    """Hosts one game. `run()` is the dialogue; `session` is where the game stands."""

    def __init__(
        self,
        session: Session,
        bank: Bank,
        language: str,
        heard: dict[str, int] | None = None,
        *,
        confirm_from_level: int = 1,
    ) -> None:
        self.session = session
        self.confirm_from_level = confirm_from_level
        """ "Final answer?" is asked from this level on; below it an answer counts as heard (a choice in the config,
        never the default: 1 asks on every level)."""
        self.bank = bank
        self.language = language
        self.heard = heard or {}
        """How often each question was heard by these players before; fresh questions come first."""
        self._level = 0
        """The level of the question the last action was taken on, for announcing its results."""
        self._unclear = False
        """Whether the last "final answer?" got nothing clear (rather than a no): said when the answer stays open."""
        self._partner_said: Letter | None = None
        """The letter the phone partner gave, for saying who said what."""

    # The game

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def currency(self) -> str:
        return self.game.settings.variant.ladder.currency

    def money(self, amount: int) -> Money:
        return Money(amount, self.currency)

    def line(
        self,
        key: str,
        params: Mapping[str, Any] | None = None,
        *,
        form: str = "",
        asked: int | None = None,
        leads_to_listening: bool = False,
    ) -> Say:
        """A line as this game says it: its wording follows the seed and the moment (the question, counted by the
        questions `asked` so far, and the player addressed), so the foresight can build the very same line."""
        params = dict(params or {})
        moment = len(self.session.asked) if asked is None else asked
        players = self.game.settings.players
        if params.get("player") in players:
            moment += players.index(params["player"])
        return Say(key, params, leads_to_listening, form, wording.vary(self.game.settings.seed, key, moment))

    def in_round(self) -> str:
        """The form for a line about everyone still in this round ("Alle Antworten sind eingeloggt"): "one" for one."""
        current = self.game.round
        return wording.number(
            sum(seat.playing for seat in current.seats) if current else len(self.game.settings.players)
        )

    def everyone(self) -> str:
        """The form for a line said to all the players: "one" when one plays alone."""
        return wording.number(self.game.settings.players)

    def run(self) -> Dialogue:
        fresh = self.game.round is None and not self.game.sheet
        if fresh:
            yield self.line("welcome", {"players": list(self.game.settings.players)}, form=self.everyone())
            yield self.line("how_to_get_help", form=self.everyone())
        else:
            yield self.line("resumed")
            current = self.game.round
            if current is not None and current.question is not None:
                # Only the options still open to the player on turn: a 50:50 before the break stays used.
                to_act = current.to_act
                yield from self._read_question(self._seat(to_act).available if to_act else None)
        while self.game.outcome is None:
            current = self.game.round
            if current is None:
                if self.game.sheet and self.game.settings.rounds is None:
                    another = yield from self._ask_yes_no("another_round", {}, None, form=self.everyone())
                    if not another:
                        yield from self._apply(StopGame())
                        continue
                yield from self._apply(StartRound())
            elif current.question is None:
                yield from self._offer_walk_away()
                if self.game.round is not None and not self.game.round.over:
                    yield from self._ask_question()
            elif current.to_act is not None:
                yield from self._turn(current.to_act)
            else:
                yield self.line("reveal_suspense", form=self.in_round())
                yield Play("suspense")
                yield from self._apply(Reveal())

    def _apply(self, action: Action) -> Generator[Effect, Observation | None, tuple[events.Event, ...]]:
        """Carry out an action, store the game, then announce what happened."""
        self._level = self.game.round.level if self.game.round else 0
        game, happened = millionaire.apply(self.game, action)
        self.session = replace(self.session, game=game)
        if isinstance(action, AskQuestion):
            self.session = replace(self.session, asked=(*self.session.asked, action.question_id))
        finished = game.outcome is not None
        yield Record("state", {"action": type(action).__name__, "finished": finished}, state=self.session.to_json())
        for event in happened:
            yield from self._announce(event)
        return happened

    # Questions

    def _presented(self) -> Presented:
        current = self.game.round
        assert current is not None
        return self.bank.next_question(
            self.language, current.level, seed=self.game.settings.seed, asked=self.session.asked, heard=self.heard
        )

    def _ask_question(self) -> Dialogue:
        current = self.game.round
        assert current is not None
        presented = self._presented()
        self.session = replace(self.session, options=presented.options)
        yield from self._apply(AskQuestion(presented.entry.id, presented.correct))
        yield Record(
            "question",
            {
                "level": current.level,
                "amount": self.game.settings.variant.ladder.amount(current.level),
                "question_id": presented.entry.id,
                "options": list(presented.options),
                "correct": presented.correct.value,
            },
        )
        yield from self._read_question()

    def question_texts(self) -> tuple[str, str]:
        """The current question and its explanation."""
        entry = self.bank.entry(self.session.asked[-1])
        assert entry is not None, "a stored game names a question the bank no longer has"
        return entry.question, entry.explanation

    def _read_question(self, letters: Sequence[Letter] | None = None) -> Dialogue:
        question, _ = self.question_texts()
        yield self.line("question", {"text": question}, leads_to_listening=True)
        for letter in letters or Letter.first(len(self.session.options)):
            yield self.line("option", {"letter": letter.value, "text": self.option(letter)}, leads_to_listening=True)

    def option(self, letter: Letter) -> str:
        """The text of the current question's option `letter`, as the players heard it."""
        return self.session.options[Letter.first(4).index(letter)]

    # Before a question

    def _offer_walk_away(self) -> Dialogue:
        current = self.game.round
        assert current is not None
        if current.level == 1:
            return
        stakes = self.game.settings.variant.ladder.stakes(current.level)
        for seat in current.seats:
            if not seat.playing:
                continue
            offer = self.play_on(seat.player, stakes)
            go_on = yield from self._ask_yes_no(offer.key, dict(offer.params), seat.player, offer.form, True)
            if go_on:
                continue
            sure = yield from self._ask_yes_no(
                "confirm_walk_away", dict(offer.params), seat.player, wording.amount(stakes.keep)
            )
            if sure:
                yield from self._apply(WalkAway(seat.player))

    def play_on(self, player: str, stakes: Stakes) -> Say:
        """ "Spielst du weiter?", with what is safe and what is at stake as the rules have it (RULES.md §1.2): "sicher"
        is said only of what a wrong answer still pays."""
        amounts = {"amount": stakes.keep, "safe": stakes.wrong, "next": stakes.win}
        params = {"player": player, **{name: self.money(value) for name, value in amounts.items()}}
        return self.line("play_on", params, form=stakes.safety.value)

    # A player's turn

    def _answer_context(self, player: str) -> Context:
        seat = self._seat(player)
        options = tuple(
            self.option(letter) if letter in seat.available else ""
            for letter in Letter.first(len(self.session.options))
        )
        return Context(ContextName.ANSWER, self.language, options)

    def _seat(self, player: str) -> Seat:
        current = self.game.round
        assert current is not None
        seat = current.seat(player)
        assert seat is not None
        return seat

    def _turn(self, player: str) -> Dialogue:
        yield Foresee(foresight.replies(self, player))
        silences = misheard = 0
        prompt: tuple[str, dict[str, Any]] = ("your_answer", {"player": player})
        while self._still_deciding(player):
            yield self.line(*prompt, leads_to_listening=True)
            heard = yield from listen(self._answer_context(player), player)
            prompt = ("your_answer_again", {"player": player})
            if isinstance(heard, Silence):
                silences = yield from after_silence(silences, self.language)
                continue
            silences = 0
            if heard.intent == "unknown":
                misheard += 1
            elif heard.intent in ("joker", "walk_away"):
                misheard = 0  # understood and acted on; a command heard in passing ("Répète." for "bé") is not
            if misheard < MISHEARD_BEFORE_SCAN:
                yield from self._act(player, heard)
                if heard.intent == "answer" and self._still_deciding(player):
                    misheard += 1  # an answer heard, then refused at "final answer?": perhaps misheard
                continue
            misheard = 0
            letter = yield from self._scan_options(player)
            if letter is not None:
                yield from self._act(player, Heard("answer", letter.value, heard.text, heard.confidence))

    def _still_deciding(self, player: str) -> bool:
        return self.game.round is not None and self.game.round.to_act == player

    def _scan_options(self, player: str) -> Generator[Effect, Observation | None, Letter | None]:
        yield self.line("scan_intro", {"player": player})
        letters = self._seat(player).available
        offers = [{"letter": letter.value, "text": self.option(letter)} for letter in letters]
        taken = yield from one_by_one("scan_option", offers, player, self.language)
        return None if taken is None else letters[taken]

    def _act(self, player: str, heard: Heard) -> Dialogue:
        seat = self._seat(player)
        match heard.intent:
            case "answer" if heard.value is not None:
                letter = Letter(heard.value)
                if letter not in seat.available:
                    yield self.line("option_gone", {"letter": letter.value})
                    return
                yield from self._apply(GiveAnswer(player, letter))
                said = {"player": player, "letter": letter.value, "text": self.option(letter)}
                level = self.game.round.level if self.game.round else 1
                final: bool | None = True
                if level >= self.confirm_from_level:
                    asked = self.line("final_answer", said)
                    final = yield from ask_clearly(asked.key, said, player, self.language, vary=asked.vary)
                # Only a clear yes locks; what is then said depends on whether a no was heard or nothing clear.
                self._unclear = final is None
                yield from self._apply(ConfirmAnswer(player, final is True))
            case "joker" if heard.value is not None:
                yield from self._joker(player, Joker(heard.value))
            case "walk_away":
                level = self.game.round.level if self.game.round else 1
                keep = self.game.settings.variant.ladder.stakes(level).keep
                params: dict[str, Any] = {"player": player, "amount": self.money(keep)}
                if (yield from self._ask_yes_no("confirm_walk_away", params, player, wording.amount(keep))):
                    yield from self._apply(WalkAway(player))
            case _:
                yield from self._command(heard.intent, player)

    def _command(self, intent: str, player: str | None) -> Dialogue:
        match intent:
            case "repeat":
                seat = self._seat(player) if player else None
                yield from self._read_question(seat.available if seat else None)
            case "help":
                yield self.line("help_answer")
            case "pause":
                yield from pause(self.language)
            case "score":
                yield from self._score()
            case "quit":
                if (yield from self._ask_yes_no("confirm_quit", {}, player, self.everyone())):
                    yield from self._apply(StopGame())
            case _:
                yield from change_voice(intent)

    def _score(self) -> Dialogue:
        current = self.game.round
        totals = self.game.totals()
        for player in self.game.settings.players:
            seat = current.seat(player) if current else None
            level = current.level - 1 if current and seat and seat.playing else 0
            said = {"player": player, "total": self.money(totals[player]), "level": level}
            yield self.line("score_line", said, form=wording.amount(totals[player]))

    # Jokers

    def _joker(self, player: str, joker: Joker) -> Dialogue:
        seat = self._seat(player)
        name = {"joker": Line(f"joker_{joker.value}")}
        if joker not in self.game.settings.variant.jokers:
            yield self.line("joker_not_in_variant", name)
            return
        if joker in seat.jokers_used:
            yield self.line("joker_used_up", name)
            return
        settings = self.game.settings
        action: Action
        if joker is Joker.FIFTY_FIFTY:
            action = UseFiftyFifty(player)
        elif joker is Joker.AUDIENCE and settings.audience_form is AudienceForm.PLAYERS:
            votes = yield from self._votes(player)
            if votes is None:
                yield self.line("joker_given_back", name)
                return
            action = AskAudience(player, votes)
        elif joker is Joker.AUDIENCE:
            action = AskAudience(player)
        elif joker is Joker.PHONE and settings.phone_form is PhoneForm.PARTNER:
            answer = yield from self._helper_answer(player, "who_to_call")
            if answer is None:
                yield self.line("joker_given_back", name)
                return
            self._partner_said = answer[1]
            action = PhoneAFriend(player, *answer)
        elif joker is Joker.PHONE:
            action = PhoneAFriend(player)
        else:
            helped = (yield from self._helper_answer(player, "who_helps")) if len(settings.players) > 1 else None
            action = UseExtraJoker(player) if helped is None else UseExtraJoker(player, *helped)
        yield Record("joker", {"player": player, "joker": joker.value})
        yield from self._apply(action)

    def _votes(self, player: str) -> Generator[Effect, Observation | None, tuple[tuple[str, Letter], ...] | None]:
        votes: list[tuple[str, Letter]] = []
        for voter in self.game.settings.players:
            if voter == player:
                continue
            letter = yield from self._letter_from(voter, "your_vote")
            if letter is None:
                return None
            votes.append((voter, letter))
        return tuple(votes)

    def _helper_answer(
        self, player: str, question: str
    ) -> Generator[Effect, Observation | None, tuple[str, Letter] | None]:
        others = tuple(p for p in self.game.settings.players if p != player)
        if len(others) == 1:
            # Nobody to choose from: the one other player is named, not offered as a choice.
            yield self.line(question, {"player": player, "names": others[0]}, form=wording.ONE)
            letter = yield from self._letter_from(others[0], "helper_answer")
            return None if letter is None else (others[0], letter)
        context = Context(ContextName.NAME, self.language, names=others)
        for _ in range(TRIES_FOR_HELPERS):
            yield self.line(question, {"player": player, "names": Choice(others)}, form=wording.MANY)
            heard = yield from listen(context, player)
            if isinstance(heard, Heard) and heard.intent == "name" and heard.value in others:
                letter = yield from self._letter_from(heard.value, "helper_answer")
                return None if letter is None else (heard.value, letter)
        return None

    def _letter_from(self, who: str, key: str) -> Generator[Effect, Observation | None, Letter | None]:
        player = self.game.round.to_act if self.game.round else None
        context = self._answer_context(player) if player else Context(ContextName.ANSWER, self.language)
        for _ in range(TRIES_FOR_HELPERS):
            yield self.line(key, {"player": who})
            heard = yield from listen(context, who)
            if isinstance(heard, Heard) and heard.intent == "answer" and heard.value:
                return Letter(heard.value)
        return None

    def _phone_call(self, seconds: int) -> Dialogue:
        """The call runs in game time: announced, "ten seconds left", the last five counted, a sound at the end."""
        yield self.line("phone_start", {"seconds": seconds})
        yield StartTimer(seconds)
        yield WaitUntil(seconds - 10)
        yield self.line("phone_ten_left")
        for left in range(COUNTDOWN_FROM, 0, -1):
            yield WaitUntil(seconds - left)
            yield self.line("count", {"n": left})
        yield WaitUntil(seconds)
        yield Play("timer_end")
        yield self.line("phone_over")

    # Listening

    def _ask_yes_no(
        self, key: str, params: dict[str, Any], player: str | None, form: str = "", silence_means: bool = False
    ) -> Asking:
        vary = self.line(key, params).vary
        return (
            yield from ask_yes_no(key, params, player, self.language, form=form, vary=vary, silence_means=silence_means)
        )

    def _partner_letters(self, partner: str, letters: tuple[Letter, ...]) -> Say:
        """Who said what: the partner's letter (they said it aloud anyway) and the quizmaster's, the other one the
        rules drew; "auch" when both said the same."""
        said = self._partner_said if self._partner_said in letters else letters[0]
        mine = next((letter for letter in letters if letter != said), said)
        params = {"partner": partner, "letter": said.value, "mine": mine.value}
        return self.line("partner_letters", params, form="same" if mine == said else "different")

    # Announcements

    def _announce(self, event: events.Event) -> Dialogue:
        options = self.option
        match event:
            case events.RoundStarted(number, candidates):
                yield self.line(
                    "round_started", {"number": number, "players": list(candidates)}, form=wording.number(candidates)
                )
            case events.QuestionAsked(level, amount, _):
                yield self.line("question_intro", {"level": level, "amount": self.money(amount)})
            case events.WalkedAway(player, amount):
                yield Record("walk_away", {"player": player, "amount": amount})
                yield self.line(
                    "walked_away", {"player": player, "amount": self.money(amount)}, form=wording.amount(amount)
                )
            case events.FiftyFiftyUsed(player, _, remaining):
                yield self.line("fifty_fifty", {"player": player})
                for letter in remaining:
                    yield self.line("option", {"letter": letter.value, "text": options(letter)})
            case events.AudiencePolled(_, percentages) | events.AudienceVoted(_, percentages):
                unit = "percent" if isinstance(event, events.AudiencePolled) else "votes"
                yield self.line(f"audience_{unit}_intro")
                for letter, share in percentages:
                    yield self.line(
                        f"audience_{unit}", {"letter": letter.value, "n": share}, form=wording.counted(share)
                    )
            case events.SecondChanceGranted(player, _, tries):
                yield self.line("second_chance", {"player": player, "tries": tries}, form=wording.counted(tries))
            case events.PhoneCallStarted(_, seconds):
                yield from self._phone_call(seconds)
            case events.PartnerAnswered(_, partner, letters):
                yield self._partner_letters(partner, letters)
            case events.ExtraJokerUsed(player, helper, letter):
                if helper is None or letter is None:
                    yield self.line("extra_joker_alone", {"player": player})
                else:
                    yield self.line("extra_joker_helper", {"helper": helper, "letter": letter.value})
            case events.AnswerGiven():
                pass
            case events.AnswerWithdrawn(player, _):
                yield self.line("not_locked", {"player": player}, form="unclear" if self._unclear else "refused")
            case events.AnswerLocked(player, letter):
                yield Record("locked", {"player": player, "option": letter.value})
                yield self.line("locked", {"player": player, "letter": letter.value})
            case events.TryFailed(player, letter, tries):
                yield self.line(
                    "try_failed",
                    {"player": player, "letter": letter.value, "tries": tries},
                    form=wording.counted(tries),
                )
            case events.Revealed(correct):
                _, explanation = self.question_texts()
                yield self.line("correct_answer", {"letter": correct.value, "text": options(correct)})
                if explanation:
                    yield self.line("explanation", {"text": explanation})
            case events.AnsweredCorrectly(player, level, amount):
                yield Record("result", {"player": player, "correct": True, "level": level})
                yield self.line("right", {"player": player, "amount": self.money(amount)})
            case events.AnsweredWrongly(player, _, payout):
                yield Record("result", {"player": player, "correct": False, "level": self._level})
                yield Record("payout", {"player": player, "amount": payout})
                yield self.line("wrong", {"player": player, "amount": self.money(payout)}, form=wording.amount(payout))
            case events.TopPrizeWon(player, amount):
                yield Record("result", {"player": player, "correct": True, "level": 15})
                yield Record("payout", {"player": player, "amount": amount})
                yield self.line("top_prize", {"player": player, "amount": self.money(amount)})
            case events.HelperRewarded(helper, amount):
                yield self.line("helper_rewarded", {"helper": helper, "amount": self.money(amount)})
            case events.RoundEnded(result):
                yield self.line("round_over", {"number": result.number})
                for line in result.results:
                    said = {"player": line.player, "total": self.money(line.total)}
                    yield self.line("round_total", said, form=wording.amount(line.total))
            case events.GameEnded(outcome):
                totals = dict(outcome.totals)
                yield Record("game_over", {"totals": totals, "winners": list(outcome.winners)})
                for player, total in outcome.totals:
                    yield self.line(
                        "game_total", {"player": player, "total": self.money(total)}, form=wording.amount(total)
                    )
                key = "winner" if len(outcome.winners) == 1 else "winners"
                yield self.line(key, {"players": list(outcome.winners)})
                yield self.line("goodbye")
