"""The quizmaster of "Rette die Million" (docs/rules.md, "Rette die Million"): a dialogue that drives the money-drop
rules by voice.

As in the Millionaire game, what happens next follows from the stored rules state alone (no run: start one; no
categories: offer two; a choice open: hear it; money to place: hear the placement; placement locked: drop the
trapdoors), so a run resumed after a crash continues where it was. A placement is said back in full and locked only
after a clear yes; it can be corrected one option at a time ("doch fünfzehn auf A").

What a placement says, how it counts in bundles and why one is refused, is in `moneydrop/placement.py`; what is
said about each rules event in `moneydrop/announcements.py`.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping
from dataclasses import replace
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
    Say,
    Silence,
    StartTimer,
)
from voicemaster.host import wording
from voicemaster.host.lines import Money
from voicemaster.host.listening import (
    LISTEN_SECONDS,
    after_silence,
    ask_yes_no,
    change_voice,
    listen,
    one_by_one,
    pause,
)
from voicemaster.host.moneydrop.announcements import announce, by_letter
from voicemaster.host.moneydrop.placement import Placement, Unplaceable, checked, counted
from voicemaster.host.saved import DropSession
from voicemaster.host.screen_address import ScreenAddress, tell
from voicemaster.host.setup import newcomer_by_phone
from voicemaster.questions.model import Entry, Format
from voicemaster.questions.selection import Bank
from voicemaster.rules import errors
from voicemaster.rules import moneydrop as md
from voicemaster.rules.letters import Letter

MISHEARD_BEFORE_SCAN = 3
"""After this many placements in a row that could not be understood, or were read back and refused, the options
are offered one by one, the whole money to go on the one that gets a yes: a yes is far easier to hear in a noisy car
than a split."""
TIME_WARNINGS = (30, 10)
"""Seconds left at which a timed placement is warned about."""


class MoneyDropHost:
    """Hosts one money drop. `run()` is the dialogue; `session` is where the game stands."""

    def __init__(
        self,
        session: DropSession,
        bank: Bank,
        language: str,
        seed: int,
        heard: Mapping[str, int] | None = None,
        *,
        screen: ScreenAddress | None = None,
    ) -> None:
        self.session = session
        self.screen = screen
        """Where the screen for the room is, when one runs: said when the team asks."""
        self.bank = bank
        self.language = language
        self.seed = seed
        self.heard = dict(heard or {})
        """When each card the teams read in earlier games was last read (`Store.last_heard_by`): the cards they have
        not heard are offered first, then those heard longest ago."""
        self._quit = False

    @property
    def game(self) -> md.MoneyDropGame:
        return self.session.game

    @property
    def settings(self) -> md.MoneyDropSettings:
        return self.game.settings

    def money(self, bundles: int) -> Money:
        return Money(bundles * self.settings.bundle_value, self.settings.currency)

    def line(self, key: str, params: Mapping[str, Any] | None = None, *, form: str = "") -> Say:
        """A line as this game says it: its wording follows the seed and the moment (the cards offered so far), so a
        long evening does not sound like a loop and a replayed game says the same."""
        moment = len(self.session.asked) // 2
        return Say(key, dict(params or {}), form=form, vary=wording.vary(self.seed, key, moment))

    def run(self) -> Dialogue:
        if not self.game.results and self.game.run is None:
            yield self.line(
                "md_welcome", {"teams": list(self.settings.teams)}, form=wording.number(self.settings.teams)
            )
            yield self.line("md_how_to", {"money": self.money(self.settings.bundles), "bundles": self.settings.bundles})
        else:
            yield self.line("resumed")
            if self.game.run is not None and self.game.run.phase is md.Phase.PLACING:
                yield from self.read_card()
        while not self.game.over and not self._quit:
            current = self.game.run
            if current is None:
                if self.game.results:
                    yield from self._newcomer_by_phone()
                yield from self.apply(md.StartRun())
            elif current.phase is md.Phase.CATEGORIES:
                yield from self._offer_categories(current)
            elif current.phase is md.Phase.CHOOSING:
                yield from self._choose_category(current)
            elif current.phase is md.Phase.PLACING:
                yield from self._place(current)
            else:
                yield self.line("md_drop_suspense")
                yield Play("suspense")
                yield from self.apply(md.RevealDrop())

    def _newcomer_by_phone(self) -> Dialogue:
        """Before the next run: a team that arrived late joins, only when a phone waits, through it
        (`setup.newcomer_by_phone`); it plays after the others (docs/decisions/046)."""
        if not md.may_join(self.game):
            return
        team = yield from newcomer_by_phone(self.language, self.settings.teams)
        if team is not None:
            yield from self.apply(md.AddTeam(team))

    def apply(self, action: md.MoneyDropAction) -> Dialogue:
        """Carry out an action, store the game, then announce what happened."""
        before = self.game.run
        # The drop is announced after the rules moved on to the next question: the card is taken beforehand.
        played = self.card() if before is not None and before.card is not None else None
        game, happened = md.apply_money_drop(self.game, action)
        self.session = replace(self.session, game=game)
        tell = False
        chosen = game.run.card if game.run is not None else None
        if chosen is not None and isinstance(action, md.ChooseCategory | md.SwitchCategory):
            # The card about to be read is heard: stored with this step. Said once a game when it is one they know.
            read = chosen.id
            tell = read in self.heard and not self.session.told_heard_before
            told = tell or self.session.told_heard_before
            self.session = replace(self.session, read=(*self.session.read, read), told_heard_before=told)
        yield Record("state", {"action": type(action).__name__, "finished": game.over}, state=self.session.to_json())
        for event in happened:
            yield from announce(self, event, played, heard_before=tell)

    # Categories and cards

    def _offer_categories(self, current: md.Run) -> Dialogue:
        options = self.settings.option_counts[current.question - 1]
        # Two cards never offered in this game, the same for the same seed and history.
        shown = self.bank.next_cards(self.language, options, seed=self.seed, asked=self.session.asked, heard=self.heard)
        first, second = (presented.entry for presented in shown)
        cards = tuple(md.Card(p.entry.id, p.entry.category, options, p.correct) for p in shown)
        self.session = replace(
            self.session,
            asked=(*self.session.asked, first.id, second.id),
            offered=(shown[0].options, shown[1].options),
            texts=((first.question, first.explanation), (second.question, second.explanation)),
        )
        yield from self.apply(md.OfferCategories((cards[0], cards[1])))

    def card(self) -> tuple[Entry, tuple[str, ...]]:
        current = self.game.run
        assert current is not None and current.card is not None and current.chosen is not None
        options = self.session.offered[current.chosen]
        entry = self.bank.entry(current.card.id)
        if entry is None and len(self.session.texts) == 2:  # its pack changed or went: as this game read it
            question, explanation = self.session.texts[current.chosen]
            answer = options[current.card.correct.position]
            card = Entry(current.card.id, self.language, Format.MONEYDROP, current.card.category, question, options,
                         answer, explanation)  # fmt: skip
            return card, options
        assert entry is not None, "a stored game names a card the bank no longer has (see host.saved.unfinishable)"
        return entry, options

    def read_card(self) -> Dialogue:
        """The options first, then the question (docs/rules.md, "Rette die Million")."""
        entry, options = self.card()
        yield self.line("md_options_intro")
        for letter, text in zip(Letter.first(len(options)), options, strict=True):
            yield self.line("option", {"letter": letter.value, "text": text})
        yield self.line("question", {"text": entry.question})

    def _choose_category(self, current: md.Run) -> Dialogue:
        names = tuple(card.category for card in current.offered)
        context = Context(ContextName.ANSWER, self.language, names)
        silences = misheard = 0
        while True:
            if misheard >= MISHEARD_BEFORE_SCAN:
                misheard = 0
                offers = [{"category": name} for name in names]
                taken = yield from one_by_one("md_category_offer", offers, current.team, self.language)
                if taken is not None:
                    yield from self.apply(md.ChooseCategory(taken))
                    return
            yield self.line("md_which_category", {"team": current.team, "first": names[0], "second": names[1]})
            heard = yield from listen(context, current.team)
            if isinstance(heard, Silence):
                silences = yield from after_silence(silences, self.language)
                continue
            if heard.intent == Intent.ANSWER and heard.value in ("A", "B"):
                yield from self.apply(md.ChooseCategory(Letter(heard.value).position))
                return
            misheard += heard.intent == Intent.UNKNOWN
            if heard.intent not in (Intent.UNKNOWN, Intent.ANSWER, Intent.JOKER):
                yield from self._command(heard.intent)
                if self._quit:
                    return

    # Placing the money

    def _place(self, current: md.Run) -> Dialogue:
        limit = self.settings.time_limit_seconds
        context = self._placing_context(current)
        placement = Placement({})
        silences = misheard = 0
        warned: set[int] = set()
        params = {"team": current.team, "bundles": current.bundles, "money": self.money(current.bundles)}
        yield self.line("md_place", params, form=wording.number(current.bundles))
        if limit:
            yield self.line("md_time_start", {"seconds": limit})
            yield StartTimer(limit)
        while not self._quit:
            seconds = LISTEN_SECONDS
            if limit:
                elapsed = yield ReadTimer()
                left = limit - (elapsed.seconds if isinstance(elapsed, Elapsed) else 0.0)
                if left <= 0:
                    yield from self._time_up(current, placement)
                    return
                for warning in TIME_WARNINGS:
                    if left <= warning < limit and warning not in warned:
                        warned.add(warning)
                        yield self.line("md_time_left", {"seconds": warning})
                seconds = min(seconds, left)
            heard = yield from listen(context, current.team, seconds=seconds)
            if isinstance(heard, Silence):
                if not limit:  # a timed placement never pauses: the time runs out instead
                    silences = yield from after_silence(silences, self.language)
                yield self.line("md_place_again")
                continue
            silences = 0
            if heard.intent == Intent.SWITCH_CATEGORY:
                if current.joker_used:
                    yield self.line("md_switch_used")
                    continue
                # Said back first: the joker is spent once, and a word to someone else can sound like it.
                other = {"category": current.offered[1 - (current.chosen or 0)].category}
                if not (yield from ask_yes_no("md_confirm_switch", other, current.team, self.language)):
                    yield self.line("md_switch_kept")
                    continue
                yield from self.apply(md.SwitchCategory())
                return
            misheard += heard.intent == Intent.UNKNOWN
            if misheard >= MISHEARD_BEFORE_SCAN:
                misheard = 0
                everything = yield from self._scan(current)
                if everything is None:
                    yield self.line("md_place_again")
                    continue
                placement = Placement({everything: "all"})
            elif heard.intent == Intent.PLACEMENT and heard.value:
                placement = placement.corrected(Placement.parse(heard.value))
            elif not (heard.intent == Intent.YES and placement.said):  # a yes after an unclear read-back: read it again
                if heard.intent in (Intent.YES, Intent.NO, Intent.UNKNOWN):
                    yield self.line("md_place_again")
                else:
                    yield from self._command(heard.intent)
                continue
            decided = yield from self._settle(current, placement)
            if decided is None:
                return
            if placement.said and not decided.said:
                misheard += 1  # read back and refused: perhaps misheard, as "D" heard as "B"
            placement = decided

    def _settle(self, current: md.Run, placement: Placement) -> Generator[Effect, Observation | None, Placement | None]:
        """Checks the placement, reads it back, and locks it on a clear yes (None: locked). A correction is checked
        and read back in turn; an unclear reply gets the read-back again, once. Returns the placement to go on
        from: what was said so far, or nothing after a no."""
        unclear = 0
        while True:
            bundles = yield from checked(self, current, placement)
            if bundles is None:
                return placement
            yield Record("placement", {"team": current.team, "placement": by_letter(bundles)})
            confirmed = yield from self._confirm(current, bundles)
            if confirmed is True:
                yield from self.apply(md.LockPlacement(bundles))
                return None
            if confirmed is False:
                yield self.line("md_place_again")
                return Placement({})
            if confirmed is None:
                unclear += 1
                if unclear > 1:
                    yield self.line("md_place_again")
                    return placement
                continue
            placement = placement.corrected(confirmed)

    def _scan(self, current: md.Run) -> Generator[Effect, Observation | None, Letter | None]:
        yield self.line("md_scan_intro")
        options = self.session.offered[current.chosen or 0]
        letters = Letter.first(len(options))
        offers = [{"letter": letter.value, "text": text} for letter, text in zip(letters, options, strict=True)]
        taken = yield from one_by_one("md_scan_option", offers, current.team, self.language)
        return None if taken is None else letters[taken]

    def _placing_context(self, current: md.Run) -> Context:
        return Context(ContextName.NUMBER, self.language, self.session.offered[current.chosen or 0])

    def _confirm(
        self, current: md.Run, bundles: tuple[int, ...]
    ) -> Generator[Effect, Observation | None, bool | Placement | None]:
        """Reads the placement back. True: a clear yes; False: a no; a Placement: a correction; None: unclear."""
        yield self.line("md_readback_intro")
        for letter, count in zip(Letter.first(len(bundles)), bundles, strict=True):
            if count:
                said = {"letter": letter.value, "bundles": count, "money": self.money(count)}
                yield self.line("md_readback", said, form=wording.number(count))
        # The placement goes with the question too, for whoever answers it without hearing the read-back (a script).
        yield self.line("md_confirm_placement", {"placement": by_letter(bundles)})
        # Heard in the confirm context: there a yes is heard far better than among amounts ("yes" came back as "B. F.").
        options = self.session.offered[current.chosen or 0]
        heard = yield from listen(Context(ContextName.CONFIRM, self.language, options), current.team)
        if isinstance(heard, Heard):
            if heard.intent in (Intent.YES, Intent.NO):
                return heard.intent == Intent.YES
            if heard.intent == Intent.PLACEMENT and heard.value:
                return Placement.parse(heard.value)
        yield self.line("md_not_locked")
        return None

    def _time_up(self, current: md.Run, placement: Placement) -> Dialogue:
        """The TV rule: what lies on the options stands; money not placed is lost; an illegal placement loses all."""
        yield self.line("md_time_up")
        card = current.card
        assert card is not None
        try:
            bundles = counted(placement, self.settings, current, complete=False)
        except (Unplaceable, errors.IllegalPlacement):
            bundles = tuple(0 for _ in range(card.options))
        yield Record("placement", {"team": current.team, "placement": by_letter(bundles), "time_up": True})
        yield from self.apply(md.LockPlacement(bundles, time_up=True))

    # Commands

    def _command(self, intent: str) -> Dialogue:
        current = self.game.run
        match intent:
            case "repeat" if current is not None and current.phase is md.Phase.PLACING:
                yield from self.read_card()
            case "help":
                yield self.line("md_help")
            case "pause":
                yield from pause(self.language)
            case "score" if current is not None:
                yield self.line("md_score", {"money": self.money(current.bundles), "number": current.question})
            case "screen_address":
                yield from tell(self.screen)
            case "quit":
                # The run stays stored unfinished: the next start offers to continue it.
                self._quit = yield from ask_yes_no("confirm_quit", {}, None, self.language, form=wording.MANY)
            case _:
                yield from change_voice(intent)

    @property
    def team(self) -> str:
        current = self.game.run
        return current.team if current is not None else self.game.results[-1].team
