"""What the quizmaster of "Rette die Million" says about each money-drop rules event, once it is stored: the run
starting, the categories offered and the card read, the placement locked, the trapdoors dropping, the money left and
the ranking.

Kept apart from `moneydrop.py`, which decides what happens; this takes the host of the game through its public
interface (`hosting.MoneyDropHosting`) for its wording and its cards.
"""

from __future__ import annotations

from voicemaster.dialogue.turns import Dialogue, Play, Record
from voicemaster.host.hosting import MoneyDropHosting
from voicemaster.host.lines import Money
from voicemaster.questions.model import Entry
from voicemaster.rules import moneydrop as md
from voicemaster.rules.letters import Letter


def announce(
    host: MoneyDropHosting,
    event: md.MoneyDropEvent,
    played: tuple[Entry, tuple[str, ...]] | None,
    *,
    heard_before: bool = False,
) -> Dialogue:
    """What is said about `event`; `played`: the card the drop was on; `heard_before`: the card chosen is one the
    teams heard in an earlier game, and they have not been told yet in this one."""
    match event:
        case md.RunStarted(team, bundles):
            yield host.line("md_run_started", {"team": team, "money": host.money(bundles)})
        case md.CategoriesOffered(question, categories, bundles):
            key = "md_question_intro_last" if question == host.settings.questions else "md_question_intro"
            yield host.line(key, {"number": question, "money": host.money(bundles)})
            yield host.line("md_categories", {"first": categories[0], "second": categories[1]})
        case md.CategoryChosen(category, _) | md.CategorySwitched(category):
            key = "md_switched" if isinstance(event, md.CategorySwitched) else "md_category_chosen"
            yield host.line(key, {"category": category})
            entry, options = host.card()
            current = host.game.run
            assert current is not None
            yield Record(
                "question",
                {
                    "question": current.question,
                    "money": current.bundles * host.settings.bundle_value,
                    "question_id": entry.id,
                    "category": category,
                    "options": list(options),
                    "correct": current.card.correct.value if current.card else None,
                },
            )
            if heard_before:  # once a game: from here on a card may be one they know
                yield host.line("md_heard_before", {"options": len(options)})
            yield from host.read_card()
        case md.PlacementLocked(bundles):
            yield Record("locked", {"team": host.team, "placement": by_letter(bundles)})
            yield host.line("md_locked")
        case md.MoneyLostToTime(bundles):
            yield host.line("md_lost_to_time", {"money": host.money(bundles)})
        case md.OptionDropped(letter, bundles):
            assert played is not None
            _, options = played
            said = {"letter": letter.value, "text": options[letter.position], "money": host.money(bundles)}
            yield Play("drop")
            yield host.line("md_drop" if bundles else "md_drop_empty", said)
        case md.QuestionSurvived(correct, bundles):
            assert played is not None
            entry, options = played
            yield host.line("md_correct", {"letter": correct.value, "text": options[correct.position]})
            if entry.explanation:
                yield host.line("explanation", {"text": entry.explanation})
            money_left = bundles * host.settings.bundle_value
            yield Record("result", {"team": host.team, "correct": bundles > 0, "money_left": money_left})
            yield host.line("md_left" if bundles else "md_all_lost", {"money": host.money(bundles)})
        case md.TeamJoined(team):
            yield host.line("md_team_joined", {"team": team})
        case md.RunEnded(result):
            yield host.line("md_run_over", {"team": result.team, "money": Money(result.saved, host.settings.currency)})
        case md.MoneyDropOver(ranking):
            totals = {result.team: result.saved for _, result in ranking}
            winners = [result.team for place, result in ranking if place == 1]
            yield Record("game_over", {"totals": totals, "winners": winners})
            if len(ranking) > 1:
                for place, result in ranking:
                    money = Money(result.saved, host.settings.currency)
                    key = "md_ranking" if result.saved else "md_ranking_lost"
                    yield host.line(
                        key, {"place": place, "team": result.team, "money": money, "number": result.reached}
                    )
                yield host.line("winner" if len(winners) == 1 else "winners", {"players": winners})
            yield host.line("goodbye")


def by_letter(bundles: tuple[int, ...]) -> dict[str, int]:
    """A placement as recorded: the bundles on each option, by letter."""
    return {letter.value: count for letter, count in zip(Letter.first(len(bundles)), bundles, strict=True)}
