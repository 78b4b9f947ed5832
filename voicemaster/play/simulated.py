"""Simulated players for the demo: a seeded policy decides, and says it in words from the language's phrase file.

Millionaire players are mostly right on low levels and less so higher up, sometimes take a joker, sometimes walk
away, sometimes say "no" at "final answer?". A money-drop team bets everything when it knows, hedges when it does
not, sometimes switches category and sometimes corrects its placement. What they say is text; the demo speaks it
and the real recognizer hears it.

A `Script` (`script.py`) tells them instead which moments to stage, whatever the seed: a short demo (`SHORT`) shows a
newcomer a joker, an answer said over the quizmaster, a walk-away and a loss in a few questions; a whole evening
(`FULL`) is left to the seeded policy.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from voicemaster.dialogue.meaning import ContextName
from voicemaster.dialogue.turns import Listen, Say
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.play.script import Act, Script
from voicemaster.rules import moneydrop as md
from voicemaster.rules.letters import Letter
from voicemaster.rules.state import Question, Round, Seat
from voicemaster.rules.variants import Joker
from voicemaster.speech.hearing.phrases import HearPhrases

SAYS_NO_FIRST = 0.15
"""How often a player hesitates at "final answer?" and says no before answering again."""
JOKER_WHEN_UNSURE = 0.6
WALKS_AWAY_WHEN_UNSURE = 0.35
WALKS_FROM_LEVEL = 6
GIVES_UP_AFTER = 3


TAKE_BACK_LINES = ("locked", "reveal_suspense")
"""The lines after a yes that the quizmaster listens through for it to be taken back."""


@dataclass(frozen=True)
class Intention:
    intent: str
    """answer, joker or walk_away."""
    value: str | None = None


CONFIRM_WORDINGS = 3
"""A yes that was not understood is said another way ("oui", then "oui, c'est mon dernier mot"), as a person would:
a French "oui" in a borrowed English voice was heard as "Wait" 149 times in a row."""


@dataclass
class SimulatedPlayers:
    quizmaster: Quizmaster
    phrases: HearPhrases
    rng: random.Random
    script: Script | None = None
    _intentions: dict[tuple[str, str, int], Intention] = field(default_factory=dict)
    _hesitated: set[tuple[str, str]] = field(default_factory=set)
    _spoken_over: set[tuple[str, str]] = field(default_factory=set)
    misheard: int = 0
    """How many utterances in a row the quizmaster did not understand: a player rephrases, and gives up a joker."""
    taken_wrong: int = 0
    """How often the quizmaster read back another letter than the player's: a person who heard "B?" after saying
    "Antwort D" says it another way next time, even after the "nein" was understood."""
    _not_heard: dict[tuple[str | None, Letter], int] = field(default_factory=dict)
    """How often each player's way of saying each letter was not understood: the next time they say that letter, they
    begin with the way after (a French "réponse C", heard as "repenser", is not tried again and again)."""
    _saying: tuple[str | None, Letter] | None = None

    def respond(self, listen: Listen, said: Say | None) -> str | None:
        """What the player says after the quizmaster's line `said`, or None for silence."""
        last_key = said.key if said else ""
        player = listen.player
        match listen.context.name:
            case ContextName.ANSWER if player is not None and self._on_turn(player):
                return self._say_intention(player, self._intention(player), over=self._to_speak_over(player))
            case ContextName.ANSWER:
                return self._letter(player, self._guess(0.7))
            case ContextName.CONFIRM if last_key == "scan_option" and said is not None and player is not None:
                meant = self._intention(player)
                offered = said.params.get("letter")
                return self._pick(self.phrases.confirm["yes" if meant.value == offered else "no"])
            case ContextName.CONFIRM if last_key in TAKE_BACK_LINES:
                return None  # a yes, once given, stands: the quizmaster listens for a take-back nobody says
            case ContextName.CONFIRM if last_key == "final_answer" and said is not None and player is not None:
                if said.params.get("letter") != self._intention(player).value:
                    self.taken_wrong += 1
                    return self._pick(self.phrases.confirm["no"])  # the quizmaster heard another letter
                return self._confirm(player, last_key)
            case ContextName.CONFIRM:
                return self._confirm(player, last_key)
            case ContextName.NAME:
                return self._name([name for name in listen.context.names if name != player])
        return None

    def understood(self, clearly: bool) -> None:
        self.misheard = 0 if clearly else self.misheard + 1
        if self._saying is not None and not clearly:
            self._not_heard[self._saying] = self._not_heard.get(self._saying, 0) + 1
        self._saying = None

    def speaks_over(self, listen: Listen) -> bool | None:
        """Whether the player asked for an answer now says it over the quizmaster's line: None without a script (the
        ear's own chance decides); scripted, yes once on a question where the player is cued to, else no."""
        if self.script is None:
            return None
        player = listen.player
        if listen.context.name is not ContextName.ANSWER or player is None or not self._to_speak_over(player):
            return False
        self._spoken_over.add((player, self._question()[1].id))
        return True

    def _to_speak_over(self, player: str) -> bool:
        """Whether the script has the player on turn speak over the quizmaster now (once a question)."""
        if self.script is None or not self._on_turn(player):
            return False
        return self._cued(player, Act.SPEAK_OVER) and (player, self._question()[1].id) not in self._spoken_over

    # Deciding

    def _on_turn(self, player: str) -> bool:
        current = self.quizmaster.game.round
        return current is not None and current.to_act == player

    def _question(self) -> tuple[Round, Question]:
        current = self.quizmaster.game.round
        assert current is not None and current.question is not None
        return current, current.question

    def _seat(self, player: str) -> Seat:
        seat = self._question()[0].seat(player)
        assert seat is not None
        return seat

    def _key(self, player: str) -> tuple[str, str, int]:
        # A new decision after each joker and after each failed try of a second chance (its letter is gone): the
        # key counts the jokers used and the options left on this question.
        seat = self._seat(player)
        return player, self._question()[1].id, len(seat.jokers_used) * 10 + len(seat.available)

    def _place(self, player: str) -> tuple[int, int]:
        """The player's place at the table, and how many play: where a script's cues find them."""
        players = self.quizmaster.game.settings.players
        return players.index(player), len(players)

    def _intention(self, player: str) -> Intention:
        key = self._key(player)
        if key not in self._intentions:
            self._intentions[key] = self._decide(player) if self.script is None else self._scripted(player)
        intention = self._intentions[key]
        if intention.intent != "answer" and self.misheard >= GIVES_UP_AFTER:
            # Nobody asks for a joker ten times: a player who is not understood answers instead.
            knows = self.script is not None and not self._cued(player, Act.WRONG)
            intention = self._intentions[key] = self._answer(player, knows)
        return intention

    def _cued(self, player: str, act: Act) -> bool:
        assert self.script is not None
        return self.script.cued(act, self._question()[0].level, *self._place(player))

    def _scripted(self, player: str) -> Intention:
        """What the script has the player do on this question: its joker while unused, walking away, a wrong answer;
        else the right one."""
        assert self.script is not None
        current, seat = self._question()[0], self._seat(player)
        jokers = self.quizmaster.game.settings.variant.jokers
        for cue in self.script.acts(current.level, *self._place(player)):
            if cue.act is Act.JOKER and cue.joker in jokers and cue.joker not in seat.jokers_used:
                return Intention("joker", cue.joker.value)
        if self._cued(player, Act.WALK_AWAY):
            return Intention("walk_away")
        if self._cued(player, Act.WRONG):
            correct = self._question()[1].correct
            return Intention("answer", self.rng.choice([x for x in seat.available if x != correct]).value)
        return self._answer(player, knows=True)

    def _decide(self, player: str) -> Intention:
        current, seat = self._question()[0], self._seat(player)
        knows = self.rng.random() < 0.97 - 0.055 * (current.level - 1)
        if not knows:
            unused = [j for j in self.quizmaster.game.settings.variant.jokers if j not in seat.jokers_used]
            if unused and self.rng.random() < JOKER_WHEN_UNSURE:
                return Intention("joker", self.rng.choice(unused).value)
            if current.level >= WALKS_FROM_LEVEL and self.rng.random() < WALKS_AWAY_WHEN_UNSURE:
                return Intention("walk_away")
        return self._answer(player, knows)

    def _answer(self, player: str, knows: bool) -> Intention:
        correct = self._question()[1].correct
        letter = correct if knows else self.rng.choice(self._seat(player).available)
        return Intention("answer", letter.value)

    def _guess(self, right: float) -> Letter:
        if self.rng.random() < right:
            return self._question()[1].correct
        return self.rng.choice(Letter.first(4))

    # Saying it

    def _say_intention(self, player: str, intention: Intention, over: bool = False) -> str:
        if intention.intent == "answer":
            assert intention.value is not None
            return self._letter(player, Letter(intention.value), blurted=over)
        if intention.intent == "joker":
            assert intention.value is not None
            return self._pick(self.phrases.jokers[Joker(intention.value).value], variety=2)
        return self._pick(self.phrases.commands["walk_away"], variety=2)

    def _letter(self, player: str | None, letter: Letter, blurted: bool = False) -> str:
        """ "Antwort B" first (a word before the letter is easier to hear), then the option's text, then other ways,
        each after the player's ways of saying this letter that were not understood; `blurted` (said over the
        quizmaster), the option's words, as a player who knows it calls it out."""
        self._saying = None if blurted else (player, letter)  # over the quizmaster, not heard says nothing of the way
        worded = [t.replace("{letter}", self.phrases.letters[letter][0]) for t in self.phrases.answer_letter[1:]]
        current = self.quizmaster.session.options
        option = current[Letter.first(4).index(letter)] if len(current) > Letter.first(4).index(letter) else ""
        by_text = [t.replace("{option}", option) for t in self.phrases.answer_option] if option else []
        if blurted and by_text:
            return by_text[1]
        spelled = self.phrases.letters[letter][1:3]
        ways = (worded[0], *by_text[1:2], *spelled, *worded[1:3])
        return rephrased(ways, self._not_heard.get((player, letter), 0) + self.taken_wrong, 5)

    def _confirm(self, player: str | None, last_key: str) -> str:
        phrases = self.phrases.confirm
        if last_key == "final_answer" and player is not None:
            current = self.quizmaster.game.round
            question = current.question.id if current and current.question else ""
            if (player, question) not in self._hesitated and self.rng.random() < SAYS_NO_FIRST:
                self._hesitated.add((player, question))
                return self._pick(phrases["no"])
            return self._pick(phrases["yes"], variety=CONFIRM_WORDINGS)
        if last_key in ("confirm_quit", "another_round"):
            return self._pick(phrases["no"], variety=CONFIRM_WORDINGS)
        if last_key == "paused":
            return self._pick(self.phrases.commands["resume"])
        return self._pick(phrases["yes"], variety=CONFIRM_WORDINGS)

    def _name(self, names: list[str]) -> str:
        template = self.phrases.name[0]
        return template.replace("{name}", self.rng.choice(names)) if names else ""

    def _pick(self, said: tuple[str, ...], variety: int = 1) -> str:
        return rephrased(said, self.misheard, variety)


def rephrased(said: tuple[str, ...], misheard: int, variety: int = 1) -> str:
    """The common phrase first; after each misunderstanding the next of the first `variety`, as a person would
    rephrase. A yes or a no is simply said again."""
    return said[misheard % min(variety, len(said))]


HEDGES = (4, 8, 12)
"""Bundles a team that knows the answer may still keep on a second option, just in case."""
SWITCHES = 0.15
CORRECTS = 0.12
"""How often a team changes its mind at the read-back ("doch fünfzehn auf A")."""


@dataclass
class SimulatedTeam:
    host: MoneyDropHost
    phrases: HearPhrases
    rng: random.Random
    script: Script | None = None
    misheard: int = 0
    _plans: dict[str, dict[Letter, int]] = field(default_factory=dict)
    _corrected: set[str] = field(default_factory=set)
    _switch: dict[str, bool] = field(default_factory=dict)
    _choices: dict[str, int] = field(default_factory=dict)
    _spoken_over: set[str] = field(default_factory=set)
    _refused: int = 0
    """Read-backs refused because the quizmaster heard another placement: the team says its letters another way."""

    def respond(self, listen: Listen, said: Say | None) -> str | None:
        last_key = said.key if said else ""
        current = self.host.game.run
        match listen.context.name:
            case ContextName.ANSWER if current is not None and current.offered:
                index = self._choices.setdefault(f"{current.team}-{current.question}", self.rng.randrange(2))
                category = current.offered[index].category
                by_text = tuple(t.replace("{option}", category) for t in self.phrases.answer_option[:2])
                if self._to_speak_over(current):  # called out over the quizmaster: the longer way
                    return by_text[-1]
                by_letter = self.phrases.letters[Letter.first(2)[index]][3:5]
                return rephrased((*by_text, *by_letter), self.misheard, variety=4)
            case ContextName.NUMBER if current is not None and current.card is not None:
                if self._wants_switch(current):
                    return rephrased(self.phrases.placement.switch, self.misheard, variety=2)
                return self._say(self._plan(current))
            case ContextName.CONFIRM if last_key == "md_scan_option" and current is not None and said is not None:
                plan = self._plan(current)
                biggest = max(plan, key=lambda letter: plan[letter])
                if said.params.get("letter") != biggest.value:
                    return rephrased(self.phrases.confirm["no"], self.misheard)
                if current.card is not None:  # a split not understood: everything on the favourite, then
                    self._plans[current.card.id] = {biggest: current.bundles}
                return rephrased(self.phrases.confirm["yes"], self.misheard)
            case ContextName.CONFIRM if last_key == "md_category_offer" and current is not None and said is not None:
                chosen = current.offered[self._choices.get(f"{current.team}-{current.question}", 0)].category
                answer = "yes" if said.params.get("category") == chosen else "no"
                return rephrased(self.phrases.confirm[answer], self.misheard)
            case ContextName.CONFIRM if last_key == "md_confirm_placement" and current and current.card and said:
                return self._confirm(current.card.id, said.params.get("placement", {}))
            case ContextName.CONFIRM:
                if last_key == "confirm_quit":
                    return rephrased(self.phrases.confirm["no"], self.misheard)
                if last_key == "paused":
                    return rephrased(self.phrases.commands["resume"], self.misheard)
                return rephrased(self.phrases.confirm["yes"], self.misheard)
        return None

    def understood(self, clearly: bool) -> None:
        self.misheard = 0 if clearly else self.misheard + 1

    def speaks_over(self, listen: Listen) -> bool | None:
        """Whether the team names its category over the quizmaster's line: None without a script (the ear's own
        chance decides); scripted, yes once on a card where the team is cued to, else no."""
        current = self.host.game.run
        if self.script is None:
            return None
        if listen.context.name is not ContextName.ANSWER or current is None or not self._to_speak_over(current):
            return False
        self._spoken_over.add(f"{current.team}-{current.question}")
        return True

    def _to_speak_over(self, current: md.Run) -> bool:
        """Whether the script has the team choosing a category now speak over the quizmaster (once a card)."""
        if not current.offered or not self._cued(current, Act.SPEAK_OVER):
            return False
        return f"{current.team}-{current.question}" not in self._spoken_over

    def _cued(self, current: md.Run, act: Act) -> bool:
        teams = self.host.settings.teams
        place = teams.index(current.team)
        return self.script is not None and self.script.cued(act, current.question, place, len(teams))

    def _wants_switch(self, current: md.Run) -> bool:
        """Decided once, on first hearing a card: the category joker, if it is still there."""
        card = current.card
        if card is None or card.id in self._plans or current.joker_used:
            return False
        if self.script is not None:
            return self._switch.setdefault(card.id, self._cued(current, Act.JOKER))
        return self._switch.setdefault(card.id, self.rng.random() < SWITCHES)

    def _plan(self, current: md.Run) -> dict[Letter, int]:
        card = current.card
        assert card is not None
        if card.id in self._plans:
            return self._plans[card.id]
        letters = Letter.first(card.options)
        if self._cued(current, Act.WRONG):  # told to lose: everything on a wrong answer
            self._plans[card.id] = {self.rng.choice([x for x in letters if x != card.correct]): current.bundles}
            return self._plans[card.id]
        # Scripted, a team knows every answer (and may still hedge).
        knows = self.script is not None or self.rng.random() < 0.92 - 0.06 * (current.question - 1)
        favourite = card.correct if knows else self.rng.choice(letters)
        other = self.rng.choice([letter for letter in letters if letter != favourite])
        last = current.question == self.host.settings.questions
        if last:
            plan = {favourite: current.bundles}
        elif knows:
            hedge = min(self.rng.choice((0, *HEDGES)), current.bundles // 2)
            plan = {favourite: current.bundles - hedge, other: hedge}
        else:
            share = self.rng.randint(1, max(1, current.bundles - 1))
            plan = {favourite: current.bundles - share, other: share}
        self._plans[card.id] = {letter: n for letter, n in plan.items() if n}
        return self._plans[card.id]

    def _say(self, plan: dict[Letter, int]) -> str:
        """ "alles auf B", or "12 auf A und den Rest auf C": letters in any order, sometimes in euros."""
        words = self.phrases.placement
        if len(plan) == 1:
            return words.everything[0].replace("{letter}", self._letter(next(iter(plan))))
        first, second = self.rng.sample(list(plan), 2)
        amount = str(plan[first])
        if self.rng.random() < 0.25:
            amount = f"{plan[first] * self.host.settings.bundle_value} {words.euros[0]}"
        clauses = (
            words.amount[0].replace("{amount}", amount).replace("{letter}", self._letter(first)),
            words.rest[0].replace("{letter}", self._letter(second)),
        )
        return f" {words.joiners[0]} ".join(clauses)

    def _letter(self, letter: Letter) -> str:
        """ "D", then "Dee", then "d for delta": after each misunderstanding, or read-back refused, another way."""
        return self.phrases.letters[letter][(self.misheard + self._refused) % 3]

    def _confirm(self, card: str, read_back: dict[str, int]) -> str:
        """Yes to its own placement, no to one misheard; once in a while first a correction of one option, which the
        quizmaster reads back again."""
        plan = self._plans.get(card, {})
        if {letter: n for letter, n in read_back.items() if n} != {letter.value: n for letter, n in plan.items()}:
            self._refused += 1
            return rephrased(self.phrases.confirm["no"], self.misheard)
        if self.script is None and card not in self._corrected and len(plan) == 2 and self.rng.random() < CORRECTS:
            self._corrected.add(card)
            first, second = sorted(plan)
            moved = min(5, plan[second])
            plan[first], plan[second] = plan[first] + moved, plan[second] - moved
            if plan[second]:
                clause = self.phrases.placement.amount[0].replace("{amount}", str(plan[first]))
                correction = self.phrases.placement.corrections[0]
                return f"{correction} {clause.replace('{letter}', self._letter(first))}"
        return rephrased(self.phrases.confirm["yes"], self.misheard)
