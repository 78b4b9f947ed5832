"""When a level (or a kind of money-drop card) has no question left that the players have not heard, the quizmaster
says so, once a game."""

from __future__ import annotations

import pytest

from tests.host.test_millionaire import Table, always_right
from tests.host.test_moneydrop import Studio
from tests.questions.test_evenings import synthetic_bank
from voicemaster.dialogue.meaning import ContextName
from voicemaster.dialogue.turns import Listen
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.rules import moneydrop as md

SAID = {
    ("de", 1): "Alle neuen Fragen dieser Stufe hast du schon gehört.",
    ("de", 2): "Alle neuen Fragen dieser Stufe habt ihr schon gehört.",
    ("en", 1): "you've heard all my new questions at this stage",
    ("fr", 1): "tu as déjà entendu toutes mes nouvelles questions",
    ("fr", 2): "vous avez déjà entendu toutes mes nouvelles questions",
}


@pytest.mark.parametrize(("language", "players"), list(SAID))
def test_the_players_hear_once_that_known_questions_come_back(language: str, players: int) -> None:
    bank = synthetic_bank((language,), per_level=2)
    # Every question of levels 5 and up was heard, those of level 5 in the last game.
    heard = {e.id: n for n, e in enumerate(e for e in bank.entries if e.level and e.level >= 5)}
    heard |= {e.id: 10_000 + n for n, e in enumerate(bank.millionaire(language, 5))}
    settings = GameSettings(variant("classic"), ("Anna", "Ben")[:players], rounds=1, seed=3)
    played = Table(Quizmaster(Session(new_game(settings)), bank, language, heard), always_right).play()
    keys = [key for key, _ in played.said]
    assert keys.count("heard_before") == 1
    said = dict(played.said)["heard_before"]
    assert SAID[language, players] in said
    # Said at question 5, after its number and before its words; levels 1-4 were fresh.
    intros = [i for i, key in enumerate(keys) if key == "question_intro"]
    assert keys.index("heard_before") == intros[4] + 1
    assert '"told_heard_before": true' in played.states[-1]


def test_a_game_stored_after_saying_it_does_not_say_it_again() -> None:
    bank = synthetic_bank(("de",), per_level=2)
    heard = {e.id: n for n, e in enumerate(bank.entries)}
    settings = GameSettings(variant("classic"), ("Anna",), rounds=1, seed=3)
    session = Session(new_game(settings), told_heard_before=True)
    again = Session.from_json(session.to_json())
    played = Table(Quizmaster(again, bank, "de", heard), always_right).play()
    assert [key for key, _ in played.said].count("heard_before") == 0


EVERYTHING_ON = {"de": "alles auf {}", "en": "everything on {}", "fr": "tout sur {}"}
YES = {"de": "ja", "en": "yes", "fr": "oui"}


def knows_everything(studio: Studio, listen: Listen, last_key: str) -> str:
    """In the game's language: the first category, everything on the right answer, yes to the read-back."""
    language = studio.host.language
    if listen.context.name is ContextName.ANSWER:
        return "A"
    if listen.context.name is ContextName.NUMBER and last_key != "md_confirm_placement":
        return EVERYTHING_ON[language].format(studio.correct().value)
    return YES[language]


MONEY_DROP_SAID = {
    "de": "Alle neuen Fragen mit zwei Antworten habt ihr schon gehört.",
    "en": "you've heard all my new questions with two answers",
    "fr": "vous avez déjà entendu toutes mes nouvelles questions à deux réponses",
}


@pytest.mark.parametrize("language", list(MONEY_DROP_SAID))
def test_a_money_drop_team_hears_once_that_known_cards_come_back(bank: Bank, language: str) -> None:
    """Every two-option card was read in earlier games: the last question's card is one the teams know, said before
    it is read, in both teams' runs only once; the cards of more options were never heard and are not said to be."""
    two = bank.cards(language, 2)
    heard = {e.id: n for n, e in enumerate(two)}
    settings = md.MoneyDropSettings(teams=("Rot", "Blau"))
    host = MoneyDropHost(DropSession(md.MoneyDropGame(settings)), bank, language, seed=5, heard=heard)
    played = Studio(host, knows_everything).play()
    keys = [key for key, _ in played.said]
    assert keys.count("md_heard_before") == 1
    assert MONEY_DROP_SAID[language] in dict(played.said)["md_heard_before"]
    question_read = keys.index("md_options_intro", keys.index("md_heard_before"))
    assert keys.index("md_heard_before") == question_read - 1
    read = [q["question_id"] for q in played.events("question")]
    assert [card in heard for card in read] == [False] * 7 + [True] + [False] * 7 + [True]
    assert '"told_heard_before": true' in played.states[-1]
    assert DropSession.from_json(played.states[-1]).read == tuple(read)
