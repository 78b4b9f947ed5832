"""Every line of whole games, checked: each variant with one, two and six players, each language in each variant and
with each number of players (money drop: teams, every number in every language), played by the demo's simulated
players at text level (their words go through the real intent matcher).

What a blind player would notice: a plural said to one player (or a "du" to a table of six), "und" in a question that
offers a choice, a digit or a symbol a voice might spell out, "sicher" said of money a wrong answer would not pay,
a wrong amount at stake, someone addressed who is not the one asked, a phone partner's letter read back wrongly or the
right letter said by the quizmaster before the player has locked.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest

from voicemaster.dialogue.meaning import Heard
from voicemaster.dialogue.turns import Effect, Foresee, Listen, Observation, Say, Silence
from voicemaster.host import lines as host_lines
from voicemaster.host.lines import Choice, Lines, Money
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.play.runner import drive
from voicemaster.play.simulated import SimulatedPlayers, SimulatedTeam
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, Safety, new_game, variant
from voicemaster.rules import moneydrop as md
from voicemaster.rules.variants import VARIANTS, AudienceForm, PhoneForm
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.intents import understand

LANGUAGES = ("de", "en", "fr")
NAMES = ("Anna", "Ben", "Cem", "Dora", "Emil", "Fay")
CONTENT = ("text", "category", "first", "second")
"""Parameters that carry a question pack's words, which may hold digits or "und": replaced before checking."""

FORBIDDEN = re.compile(r"[0-9€£$%&@#*+=/\\<>_|~^]")
"""Digits and symbols: a voice reads them out in its own way ("1.000" as "eins Komma null null null")."""
PLURAL_TO_ONE = {
    "de": re.compile(r"\b(ihr|euch|euer|eure[nrms]?|wollt|habt|seid|sagt|antwortet|(es|heute) spielen)\b", re.I),
    "en": re.compile(r"\b(you all|both of you|each of you|everyone|everybody)\b", re.I),
    "fr": re.compile(r"\b(vous|votre|vos|dites|répondez|tout le monde)\b", re.I),
}
SINGULAR_TO_MANY = {
    "de": re.compile(r"\b(du|dich|dir|dein\w*|willst|antworte|sag|(es|heute) spielt)\b", re.I),
    "en": re.compile(r"(?!)"),  # "you" is one or many
    "fr": re.compile(r"\b(tu|te|toi|ton|ta|tes|réponds|dis)\b", re.I),
}
SAFE = {"de": "sicher", "en": "safe", "fr": "assuré"}
NOT_SAFE = {"de": "nichts sicher", "en": "nothing is safe", "fr": "rien n'est encore assuré"}
NOTHING = {"de": "nichts", "en": "nothing", "fr": "rien"}
ADDRESSED = ("player", "helper", "name", "partner", "team")
MOST_UTTERANCES = 2_000
"""Far more than a game of six needs: a game that asks more is stuck in a loop."""


@dataclass
class Spoken:
    key: str
    text: str
    """As said."""
    plain: str
    """As said, with the question pack's words replaced: what the phrase file and the amounts made of it."""
    said: Say
    level: int
    players: int
    to_act: str | None
    correct: str | None
    """The right letter of the question being played, if one is."""
    foreseen: bool
    """Whether the quizmaster's latest foresight held this very text (what a slow voice renders ahead)."""
    heard_before: int = 0
    """How many listenings came before this line (an index into `Game.heard`)."""


@dataclass
class Game:
    lines: Lines
    players: tuple[str, ...]
    spoken: list[Spoken] = field(default_factory=list)
    heard: list[tuple[str, Heard | Silence]] = field(default_factory=list)
    """(key of the line before, what came back) of every listening."""
    listened: list[tuple[str | None, Spoken | None]] = field(default_factory=list)
    """(the player listened to, the last line that addressed a player) of every listening."""


def run(game: Game, host: Quizmaster | MoneyDropHost, players: SimulatedPlayers | SimulatedTeam) -> Game:
    meanings = phrases.load(game.lines.language)
    last: dict[str, Any] = {"said": None, "addressing": None, "foreseen": set()}

    def state() -> tuple[int, str | None, str | None]:
        if isinstance(host, Quizmaster):
            current = host.game.round
            if current is None:
                return 0, None, None
            return current.level, current.to_act, current.question.correct.value if current.question else None
        return (host.game.run.question if host.game.run else 0), None, None

    def perform(effect: Effect) -> Observation | None:
        match effect:
            case Say(key, params) as said:
                plain = {name: ("Inhalt" if name in CONTENT else value) for name, value in params.items()}
                level, to_act, correct = state()
                line = Spoken(
                    key,
                    game.lines.text(said),
                    game.lines.render(key, plain, said.form, said.vary),
                    said,
                    level,
                    len(game.players),
                    to_act,
                    correct,
                    game.lines.text(said) in last["foreseen"],
                    len(game.heard),
                )
                game.spoken.append(line)
                last["said"] = said
                if any(isinstance(params.get(name), str) and params[name] in line.text for name in ADDRESSED):
                    last["addressing"] = line
            case Foresee(lines):
                last["foreseen"] = {game.lines.text(line) for line in lines}
            case Listen() as listen:
                if len(game.listened) >= MOST_UTTERANCES:
                    raise AssertionError(f"stuck: {[line.text for line in game.spoken[-8:]]}")
                game.listened.append((listen.player, last["addressing"]))
                text = players.respond(listen, last["said"])
                if not text:
                    game.heard.append((last["said"].key if last["said"] else "", Silence()))
                    return Silence()
                meant = understand(text, listen.context, meanings)
                players.understood(meant.intent != "unknown")
                heard = Heard(meant.intent, meant.value, text, meant.score)
                game.heard.append((last["said"].key if last["said"] else "", heard))
                return heard
        return None

    drive(host.run(), perform)
    return game


def millionaire(bank: Bank, language: str, rules: str, count: int) -> tuple[Game, Quizmaster]:
    players = NAMES[:count]
    seed = 100 + count + sorted(VARIANTS).index(rules)
    # Several players: they are the audience and the phone partners. One alone: a TV audience and a real call, or
    # (in two variants, to reach those lines too) the second chances of the board game for one.
    if count > 1:
        audience, phone = AudienceForm.PLAYERS, PhoneForm.PARTNER
    elif rules in ("risiko", "uk"):
        audience, phone = AudienceForm.SECOND_CHANCE, PhoneForm.SECOND_CHANCE
    else:
        audience, phone = AudienceForm.SIMULATED, PhoneForm.CALL
    # No agreed number of rounds: the quizmaster asks whether to play another (the players say no).
    settings = GameSettings(variant(rules), players, seed=seed, audience_form=audience, phone_form=phone)
    host = Quizmaster(Session(new_game(settings)), bank, language)
    simulated = SimulatedPlayers(host, phrases.load(language), random.Random(seed))
    return run(Game(host_lines.load(language), players), host, simulated), host


def common_checks(game: Game) -> Iterator[str]:
    """What no line may ever do: spell out digits or symbols, offer a choice with "und", name nobody it speaks to."""
    joiner = re.compile(rf"\b{game.lines.joiner}\b")
    for line in game.spoken:
        if FORBIDDEN.search(line.plain):
            yield f"digit or symbol: {line.key}: {line.plain}"
        listed = [v.items if isinstance(v, Choice) else v for v in line.said.params.values()]
        offers = [v for v in listed if isinstance(v, list | tuple) and len(v) > 1]
        if offers and line.plain.rstrip().endswith("?") and joiner.search(line.plain):
            yield f"a choice joined with {game.lines.joiner!r}: {line.plain}"
    for player, addressing in game.listened:
        if player is not None and addressing is not None and player not in addressing.text:
            yield f"listening to {player} after a line to someone else: {addressing.text}"


def millionaire_checks(game: Game, host: Quizmaster) -> Iterator[str]:
    language, ladder = game.lines.language, host.game.settings.variant.ladder
    currency = ladder.currency
    zero = game.lines.money(0, currency)
    level, confirmed = 0, None
    for line in game.spoken:
        params = line.said.params
        amount = params.get("amount")
        if line.key == "question_intro":
            level = params["level"]
            if amount != Money(ladder.amount(level), currency):
                yield f"question {level} is not for its ladder amount: {line.text}"
        group = not any(name in params for name in ADDRESSED) and line.to_act is None
        if game.players == NAMES[:1] and PLURAL_TO_ONE[language].search(line.plain):
            yield f"plural to one player: {line.key}: {line.plain}"
        if len(game.players) > 1 and group and SINGULAR_TO_MANY[language].search(line.plain):
            yield f"singular to several players: {line.key}: {line.plain}"
        if zero in line.text:
            yield f"says {zero!r} where it could say nothing: {line.text}"
        if line.key == "play_on":
            yield from stakes_checks(game, host, line)
        if line.key == "confirm_walk_away":
            confirmed = amount
            if amount != Money(ladder.walk_away_payout(line.level), currency):
                yield f"walking away before question {line.level} does not keep what the rules say: {line.text}"
        if line.key == "walked_away" and amount != confirmed:
            yield f"walked away with another amount than was confirmed: {line.text}"
        if line.key == "wrong" and amount != Money(ladder.wrong_answer_payout(level), currency):
            yield f"a wrong answer on level {level} does not pay what the rules say: {line.text}"
        if line.key == "right" and amount != Money(ladder.amount(level), currency):
            yield f"a right answer on level {level} is not its ladder amount: {line.text}"
    yield from partner_checks(game)


def stakes_checks(game: Game, host: Quizmaster, line: Spoken) -> Iterator[str]:
    language, lines = game.lines.language, game.lines
    stakes = host.game.settings.variant.ladder.stakes(line.level)
    currency = host.currency
    said = line.plain.replace(NOT_SAFE[language], "")
    if line.said.form != stakes.safety.value:
        yield f"level {line.level} is {stakes.safety}, said as {line.said.form}: {line.text}"
    if lines.money(stakes.win, currency) not in said:
        yield f"what the next question is worth is missing: {line.text}"
    if stakes.safety is Safety.NONE:
        if SAFE[language] in said:
            yield f"'{SAFE[language]}' below the first safety level: {line.text}"
        if lines.money(stakes.keep, currency) not in said or NOTHING[language] not in said:
            yield f"what stopping keeps and a wrong answer leaves is not said: {line.text}"
    elif lines.money(stakes.wrong, currency) not in said:
        yield f"what a wrong answer still pays is not said: {line.text}"
    elif stakes.safety is Safety.HELD and SAFE[language] not in said:
        yield f"the safe amount is not called safe: {line.text}"
    elif stakes.safety is Safety.PART and lines.money(stakes.keep, currency) not in said:
        yield f"what stopping keeps is not said: {line.text}"


LETTER_READINGS = ("option", "scan_option", "audience_votes", "audience_percent")
"""Lines that carry the right letter by their nature: the options read (after a 50:50 too), offered one by one, and
the audience's result."""
CALL_OVER = ("locked", "walked_away", "question_intro", "correct_answer")


def partner_checks(game: Game) -> Iterator[str]:
    """ "Ben meint: B": the partner's letter as the partner said it. From the call until the player locks, the
    quizmaster says no letter that nobody said: in voice play it adds none of its own (docs/rules.md, "Jokers")."""
    calling: str | None = None
    heard_from = 0
    for line in game.spoken:
        if line.key == "who_to_call":
            calling, heard_from = line.to_act, line.heard_before
        if calling is None:
            continue
        said = {heard.value for _, heard in game.heard[heard_from : line.heard_before] if isinstance(heard, Heard)}
        letters = {value for value in line.said.params.values() if value in ("A", "B", "C", "D")}
        if line.key not in LETTER_READINGS and line.correct in letters - said:
            yield f"the right letter said before {calling} locked, and nobody had said it: {line.text}"
        if line.key == "partner_said":
            yield from partner_said_checks(game, line)
        if line.key in CALL_OVER and line.said.params.get("player", calling) == calling:
            calling = None


def partner_said_checks(game: Game, line: Spoken) -> Iterator[str]:
    asked = ("partner_call", "partner_letter")
    partner_said = [h.value for key, h in game.heard[: line.heard_before] if key in asked and isinstance(h, Heard)]
    partner, letter = line.said.params["partner"], line.said.params["letter"]
    if not partner_said or letter != partner_said[-1]:
        yield f"the partner's letter is not what the partner said: {line.text}"
    if not re.search(rf"{partner}\b.*\b{letter}\b", line.text):
        yield f"not said who said what ('{partner} meint: {letter}'): {line.text}"


COUNTS = (1, 2, 6)
PAIRWISE = [
    (LANGUAGES[(v + c) % len(LANGUAGES)], rules, count)
    for v, rules in enumerate(sorted(VARIANTS))
    for c, count in enumerate(COUNTS)
]
"""Every variant with every number of players, the language turning with both, so that each pair of the three (a
language's lines in each variant, for one player and for many) is played once: 15 games, not 45."""


@pytest.mark.parametrize(("language", "rules", "count"), PAIRWISE)
def test_every_line_of_a_millionaire_game_is_right_for_the_situation(
    bank: Bank, language: str, rules: str, count: int
) -> None:
    game, host = millionaire(bank, language, rules, count)
    assert host.game.outcome is not None  # played to the end
    problems = [*common_checks(game), *millionaire_checks(game, host)]
    assert problems == []
    if count == 1:  # one player: each reply, whatever its wording, is the one rendered ahead
        replies = ("final_answer", "locked", "right", "wrong", "play_on", "question_intro")
        first_turn = next(i for i, line in enumerate(game.spoken) if line.key == "your_answer")
        missed = [line.text for line in game.spoken[first_turn + 1 :] if line.key in replies and not line.foreseen]
        assert missed == []


def test_the_sweep_reaches_the_lines_it_is_meant_to_check(bank: Bank) -> None:
    """The checks above would pass vacuously if the games never reached the lines: these do."""
    reached: dict[str, set[str]] = {}
    for rules, count in (("classic", 1), ("classic", 2), ("jumbo-2002", 6), ("risiko", 1)):
        game, _ = millionaire(bank, "de", rules, count)
        for line in game.spoken:
            reached.setdefault(line.key, set()).add(line.said.form)
    assert {"none", "safe", "part"} <= reached["play_on"]
    assert {"one", "many"} <= reached["welcome"]
    assert {"who_to_call", "partner_call", "partner_said"} <= reached.keys()
    assert "reveal_suspense" in reached and "wrong" in reached


@pytest.mark.parametrize("count", COUNTS)
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_line_of_a_money_drop_is_right_for_the_situation(bank: Bank, language: str, count: int) -> None:
    teams = tuple(f"Team {name}" for name in NAMES[:count])
    host = MoneyDropHost(DropSession(md.MoneyDropGame(md.MoneyDropSettings(teams=teams))), bank, language, 7 + count)
    team = SimulatedTeam(host, phrases.load(language), random.Random(7 + count))
    game = run(Game(host_lines.load(language), teams), host, team)
    assert host.game.over
    welcome = next(line for line in game.spoken if line.key == "md_welcome")
    assert welcome.said.form == ("one" if count == 1 else "many")
    assert list(common_checks(game)) == []
