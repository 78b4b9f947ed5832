"""The quizmaster of a Millionaire game: a dialogue that drives the rules engine by voice (docs/rules.md,
"Millionaire").

The flow is derived from the stored game at every step: what to do next follows from the rules state alone (no
round: start one; no question: offer walking away, then ask; someone to act: their turn; else reveal). So a game
resumed from the store continues exactly where it was, and there is no second state machine to keep in step.
Every rules transition is recorded (and stored) before it is announced.

The jokers' dialogues are in `millionaire/jokers.py`, what is said about each rules event in
`millionaire/announcements.py`, the lines rendered ahead in `foresight.py`: each takes the quizmaster through its
public interface (`hosting.MillionaireHosting`).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import (
    Dialogue,
    Effect,
    Foresee,
    Observation,
    Play,
    Record,
    Say,
    Silence,
)
from voicemaster.host import foresight, wording
from voicemaster.host.lines import Money
from voicemaster.host.listening import (
    Asking,
    after_silence,
    ask_clearly,
    ask_yes_no,
    change_voice,
    leading_to_listening,
    listen,
    marked,
    one_by_one,
    pause,
    take_back_window,
)
from voicemaster.host.millionaire.announcements import announce, score
from voicemaster.host.millionaire.jokers import use_joker
from voicemaster.host.saved import Session
from voicemaster.host.screen_address import ScreenAddress, tell
from voicemaster.host.setup import newcomer, newcomer_by_phone
from voicemaster.questions.selection import Bank, Presented
from voicemaster.rules import events, millionaire
from voicemaster.rules.actions import (
    Action,
    AddPlayer,
    AskQuestion,
    ConfirmAnswer,
    GiveAnswer,
    Reveal,
    StartRound,
    StopGame,
    TakeBack,
    WalkAway,
)
from voicemaster.rules.ladders import Stakes
from voicemaster.rules.letters import Letter
from voicemaster.rules.state import Game, Seat
from voicemaster.rules.variants import Joker

MISHEARD_BEFORE_SCAN = 3
"""After this many answers in a row that could not be understood, or were heard and then refused at "final
answer?", the quizmaster offers the options one by one, each to be taken with a yes: a yes is far easier to hear in
a noisy car than a letter."""


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
        screen: ScreenAddress | None = None,
    ) -> None:
        self.session = session
        self.screen = screen
        """Where the screen for the room is, when one runs: said when a player asks."""
        self.confirm_from_level = confirm_from_level
        """ "Final answer?" is asked from this level on; below it an answer counts as heard (a choice in the config,
        never the default: 1 asks on every level)."""
        self.bank = bank
        self.language = language
        self.heard = heard or {}
        """When each question these players heard in earlier games was last heard (`Store.last_heard_by`): the
        questions they have not heard come first, then those heard longest ago."""
        self._level = 0
        """The level of the question the last action was taken on, for announcing its results."""
        self._unclear = False
        """Whether the last "final answer?" got nothing clear (rather than a no): said when the answer stays open."""
        self._suspense_said = False
        """Whether the line before the reveal was said already, in the window a yes could be taken back in."""

    # The game

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def asked(self) -> tuple[str, ...]:
        return self.session.asked

    @property
    def options(self) -> tuple[str, ...]:
        return self.session.options

    @property
    def level_played(self) -> int:
        return self._level

    @property
    def answer_unclear(self) -> bool:
        return self._unclear

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
                # Only the options still open: a 50:50 before the break stays used.
                yield from self._read_question(self.open_letters())
        while self.game.outcome is None:
            current = self.game.round
            if current is None:
                if self.game.sheet and self.game.settings.rounds is None:
                    asked = self._ask_yes_no("another_round", {}, None, form=self.everyone())
                    another = yield from marked(asked, to_all=True)  # a player's phone hears it (046)
                    if not another:
                        yield from self.apply(StopGame())
                        continue
                    yield from self._newcomer()
                elif self.game.sheet:  # a fixed number of rounds: a newcomer only by phone (046)
                    yield from self._newcomer(by_phone=True)
                yield from self.apply(StartRound())
            elif current.question is None:
                yield from self._offer_walk_away()
                if self.game.round is not None and not self.game.round.over:
                    yield from self._ask_question()
            elif current.to_act is not None:
                yield from self._turn(current.to_act)
            else:
                if not self._suspense_said:
                    yield self.line("reveal_suspense", form=self.in_round())
                self._suspense_said = False
                yield Play("suspense")
                yield from self.apply(Reveal())

    def apply(
        self, action: Action, *, heard_over: bool = False
    ) -> Generator[Effect, Observation | None, tuple[events.Event, ...]]:
        """Carry out an action, store the game, then announce what happened; `heard_over`: the lines announcing it
        are held for the listening that follows, so the player is heard while they are said."""
        self._level = self.game.round.level if self.game.round else 0
        game, happened = millionaire.apply(self.game, action)
        self.session = replace(self.session, game=game)
        if isinstance(action, AskQuestion):
            self.session = replace(self.session, asked=(*self.session.asked, action.question_id))
        finished = game.outcome is not None
        yield Record("state", {"action": type(action).__name__, "finished": finished}, state=self.session.to_json())
        for event in happened:
            yield from leading_to_listening(announce(self, event)) if heard_over else announce(self, event)
        return happened

    def _newcomer(self, *, by_phone: bool = False) -> Dialogue:
        """Before the next round: someone new may join (`setup.newcomer`; `by_phone`, only if a phone waits), when
        the rules have room for them. Only here: everyone in a round plays its one level, so a newcomer seated
        mid-round would hold money for questions they never answered (docs/decisions/045, 046)."""
        if not millionaire.may_join(self.game):
            return
        asking = newcomer_by_phone if by_phone else newcomer
        name = yield from asking(self.language, self.game.settings.players)
        if name is not None:
            yield from self.apply(AddPlayer(name))

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
        texts = (presented.entry.question, presented.entry.explanation)
        tell = presented.heard_before and not self.session.told_heard_before
        told = tell or self.session.told_heard_before  # stored with the step that asks the question
        self.session = replace(self.session, options=presented.options, texts=texts, told_heard_before=told)
        yield from self.apply(AskQuestion(presented.entry.id, presented.correct))
        if tell:  # once a game: from here on a question may be one they know
            yield self.line("heard_before", form=self.everyone())
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
        if len(self.session.texts) == 2:
            return self.session.texts[0], self.session.texts[1]
        entry = self.bank.entry(self.session.asked[-1])
        assert entry is not None, "a stored game names a question the bank no longer has (see host.saved.unfinishable)"
        return entry.question, entry.explanation

    def _read_question(self, letters: Sequence[Letter] | None = None) -> Dialogue:
        question, _ = self.question_texts()
        yield self.line("question", {"text": question}, leads_to_listening=True)
        for letter in letters or Letter.first(len(self.session.options)):
            yield self.line("option", {"letter": letter.value, "text": self.option(letter)}, leads_to_listening=True)

    def open_letters(self) -> tuple[Letter, ...]:
        """The options of the current question still open: to the player on turn, or, with every answer locked
        (the reveal to come), to anyone still playing it; a 50:50 removes two."""
        current = self.game.round
        assert current is not None
        if current.to_act is not None:
            return self.seat(current.to_act).available
        seats = [seat for seat in current.seats if seat.playing] or list(current.seats)
        return tuple(letter for letter in Letter.first(4) if any(letter in seat.available for seat in seats))

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
                yield from self.apply(WalkAway(seat.player))

    def play_on(self, player: str, stakes: Stakes) -> Say:
        """ "Spielst du weiter?", with what is safe and what is at stake as the rules have it (docs/rules.md, "What a
        wrong answer pays"): "sicher" is said only of what a wrong answer still pays."""
        amounts = {"amount": stakes.keep, "safe": stakes.wrong, "next": stakes.win}
        params = {"player": player, **{name: self.money(value) for name, value in amounts.items()}}
        return self.line("play_on", params, form=stakes.safety.value)

    # A player's turn

    def answer_context(self, player: str) -> Context:
        seat = self.seat(player)
        options = tuple(
            self.option(letter) if letter in seat.available else ""
            for letter in Letter.first(len(self.session.options))
        )
        return Context(ContextName.ANSWER, self.language, options)

    def seat(self, player: str) -> Seat:
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
            heard = yield from listen(self.answer_context(player), player)
            prompt = ("your_answer_again", {"player": player})
            if isinstance(heard, Silence):
                silences = yield from after_silence(silences, self.language)
                continue
            silences = 0
            if heard.intent == Intent.UNKNOWN:
                misheard += 1
            elif heard.intent in (Intent.JOKER, Intent.WALK_AWAY):
                misheard = 0  # understood and acted on; a command heard in passing ("Répète." for "bé") is not
            if misheard < MISHEARD_BEFORE_SCAN:
                yield from self._act(player, heard)
                if heard.intent == Intent.ANSWER and self._still_deciding(player):
                    misheard += 1  # an answer heard, then refused at "final answer?": perhaps misheard
                continue
            misheard = 0
            letter = yield from self._scan_options(player)
            if letter is not None:
                yield from self._act(player, Heard(Intent.ANSWER, letter.value, heard.text, heard.confidence))

    def _hold_for_take_back(self, player: str) -> Dialogue:
        """After a yes taken at once: listens through the lock line (and the suspense line, when every answer is in)
        for "nein, warte"; heard, the lock is undone and the player answers again. Nothing is revealed before."""
        current = self.game.round
        if current is not None and current.to_act is None:
            yield self.line("reveal_suspense", form=self.in_round(), leads_to_listening=True)
            self._suspense_said = True
        if (yield from take_back_window(player, self.language)):
            self._suspense_said = False
            yield from self.apply(TakeBack(player))

    def _still_deciding(self, player: str) -> bool:
        return self.game.round is not None and self.game.round.to_act == player

    def _scan_options(self, player: str) -> Generator[Effect, Observation | None, Letter | None]:
        yield self.line("scan_intro", {"player": player})
        letters = self.seat(player).available
        offers = [{"letter": letter.value, "text": self.option(letter)} for letter in letters]
        taken = yield from one_by_one("scan_option", offers, player, self.language)
        return None if taken is None else letters[taken]

    def _act(self, player: str, heard: Heard) -> Dialogue:
        seat = self.seat(player)
        match heard.intent:
            case "answer" if heard.value is not None:
                letter = Letter(heard.value)
                if letter not in seat.available:
                    yield self.line("option_gone", {"letter": letter.value})
                    return
                yield from self.apply(GiveAnswer(player, letter))
                said = {"player": player, "letter": letter.value, "text": self.option(letter)}
                level = self.game.round.level if self.game.round else 1
                final: bool | None = True
                # A yes is taken at once, and a take-back listened for after it, except where the lock is judged
                # the moment it is made (a second chance): that yes waits out the whole pause.
                at_once = level >= self.confirm_from_level and not seat.judged_at_once
                if level >= self.confirm_from_level:
                    asked = self.line("final_answer", said)
                    final = yield from ask_clearly(
                        asked.key, said, player, self.language, vary=asked.vary, yes_at_once=at_once
                    )
                # Only a clear yes locks; what is then said depends on whether a no was heard or nothing clear.
                self._unclear = final is None
                happened = yield from self.apply(ConfirmAnswer(player, final is True), heard_over=at_once)
                if at_once and any(isinstance(event, events.AnswerLocked) for event in happened):
                    yield from self._hold_for_take_back(player)
            case "joker" if heard.value is not None:
                yield from use_joker(self, player, Joker(heard.value))
            case "walk_away":
                level = self.game.round.level if self.game.round else 1
                keep = self.game.settings.variant.ladder.stakes(level).keep
                params: dict[str, Any] = {"player": player, "amount": self.money(keep)}
                if (yield from self._ask_yes_no("confirm_walk_away", params, player, wording.amount(keep))):
                    yield from self.apply(WalkAway(player))
            case _:
                yield from self._command(heard.intent, player)

    def _command(self, intent: str, player: str | None) -> Dialogue:
        match intent:
            case "repeat":
                seat = self.seat(player) if player else None
                yield from self._read_question(seat.available if seat else None)
            case "help":
                yield self.line("help_answer")
            case "pause":
                yield from pause(self.language)
            case "score":
                yield from score(self)
            case "screen_address":
                yield from tell(self.screen)
            case "quit":
                if (yield from self._ask_yes_no("confirm_quit", {}, player, self.everyone())):
                    yield from self.apply(StopGame())
            case _:
                yield from change_voice(intent)

    # Listening

    def _ask_yes_no(
        self, key: str, params: dict[str, Any], player: str | None, form: str = "", silence_means: bool = False
    ) -> Asking:
        vary = self.line(key, params).vary
        return (
            yield from ask_yes_no(key, params, player, self.language, form=form, vary=vary, silence_means=silence_means)
        )
