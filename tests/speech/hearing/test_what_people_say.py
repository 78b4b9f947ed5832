"""What people say at each kind of turn is understood as they meant it (issue 27: each turn asked again costs the
player seconds), and a take-back is never what it takes back: "play on?" answered "Ich spiele weiter", "I'll play
on", "je joue"; a yes in its own words ("Oui, dernier mot"); a name as people give it ("Ich heiß Markus", "Hallo, ich
bin Markus") and a known player's name misspelled by one letter ("Mar" for Marc).

The game-level tests play a real quizmaster with players whose words go through `understand`, as a transcript's do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from voicemaster.dialogue.meaning import Context, ContextName, Heard
from voicemaster.dialogue.turns import Effect, Listen, Observation, Record, Say
from voicemaster.host.lines import load as load_lines
from voicemaster.host.listening import ask_yes_no
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.saved import Session
from voicemaster.play.runner import drive
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.speech.hearing.intents import understand
from voicemaster.speech.hearing.phrases import load

GO_ON = {
    "de": ["Ich spiele weiter", "Ja, ich spiele weiter", "Ich mache weiter", "Ich will weiterspielen", "Weiter",
           "Klar, spiele ich weiter", "Ja"],
    "en": ["I'll play on", "Yes, I'll play on", "I'll keep going", "Keep going", "I'll carry on", "Yes, let's play",
           "Yes"],
    "fr": ["Je continue", "Je joue", "Oui, je joue", "Oui, je continue", "Je continue à jouer", "On continue", "Oui"],
}  # fmt: skip
STOP = {
    "de": ["Ich spiele nicht weiter", "Nein, ich spiele nicht weiter", "Ich mache nicht weiter", "Ich höre auf",
           "Ich will nicht weiterspielen", "Nein"],
    "en": ["I won't play on", "I'm not playing on", "No, I won't play on", "I'll stop", "I'll take the money", "No"],
    "fr": ["Je ne continue pas", "Je continue pas", "Je ne continue plus", "Je ne joue plus", "Je m'arrête", "Non"],
}  # fmt: skip


def _heard(said: str, context: Context) -> Heard:
    meant = understand(said, context, load(context.language))
    return Heard(meant.intent, meant.value, said, meant.score)


def _asked(key: str, said: str, language: str, *, silence_means: bool) -> tuple[bool, list[str]]:
    """A yes/no question of the quizmaster answered with `said`: what it made of it, and the lines it said."""
    lines: list[str] = []

    def perform(effect: Effect) -> Observation | None:
        if isinstance(effect, Say):
            lines.append(effect.key)
        return _heard(said, effect.context) if isinstance(effect, Listen) else None

    return drive(ask_yes_no(key, {}, "Markus", language, silence_means=silence_means), perform), lines


@pytest.mark.parametrize(("language", "said"), [(lang, said) for lang in GO_ON for said in GO_ON[lang]])
def test_going_on_in_a_players_own_words_goes_on_without_asking_again(language: str, said: str) -> None:
    # "Spielst du weiter?": silence and a clear go-on mean go on (the host asks it so: `_offer_walk_away`).
    goes_on, lines = _asked("play_on", said, language, silence_means=True)
    assert goes_on
    assert "not_understood" not in lines


@pytest.mark.parametrize(("language", "said"), [(lang, said) for lang in GO_ON for said in GO_ON[lang][:-1]])
def test_going_on_is_no_yes_to_walking_away(language: str, said: str) -> None:
    # "Du hörst auf und nimmst 500 Euro mit. Richtig?" answered "(Nein,) ich spiele weiter": not a yes.
    walks, _ = _asked("confirm_walk_away", said, language, silence_means=False)
    assert not walks
    walks, _ = _asked("confirm_walk_away", {"de": "Nein, ", "en": "No, ", "fr": "Non, "}[language] + said, language,
                      silence_means=False)  # fmt: skip
    assert not walks


@pytest.mark.parametrize(("language", "said"), [(lang, said) for lang in STOP for said in STOP[lang]])
def test_a_player_who_will_not_go_on_is_never_taken_to_go_on(language: str, said: str) -> None:
    goes_on, _ = _asked("play_on", said, language, silence_means=True)
    assert not goes_on


@pytest.mark.parametrize(
    ("language", "said", "meant"),
    [
        ("fr", "Oui, dernier mot", "yes"),
        ("fr", "Oui, c'est mon dernier mot", "yes"),
        ("fr", "Oui, vas-y", "yes"),
        ("fr", "Oui, je valide", "yes"),
        ("de", "Ja, ich bin mir sicher", "yes"),
        ("de", "Endgültige Antwort", "yes"),
        ("en", "Yes, that's final", "yes"),
        ("en", "Yes, lock it in", "yes"),
        # Taken back: never a yes, whatever the words before.
        ("fr", "Oui... non, attends", "-yes"),
        ("fr", "Oui mais non", "-yes"),
        ("fr", "Non, pas dernier mot", "-yes"),
        ("fr", "Ce n'est pas mon dernier mot", "no"),
        ("de", "Ja ... nein, warte", "-yes"),
        ("de", "Ich bin mir nicht sicher", "no"),
        ("de", "Nicht einloggen", "-yes"),
        ("en", "Yes... no, wait", "-yes"),
        ("en", "Don't lock it in", "no"),
    ],
)
def test_final_answer_is_answered_in_the_players_words_and_a_take_back_is_no_yes(
    language: str, said: str, meant: str
) -> None:
    intent = understand(said, Context(ContextName.CONFIRM, language), load(language)).intent
    assert intent != "yes" if meant == "-yes" else intent == meant


SAID_AT_A_QUESTION = [
    ("de", "Ich möchte den Publikumsjoker", "joker", "audience"),
    ("de", "Ich will telefonieren", "joker", "phone"),
    ("de", "Was war die Frage?", "repeat", None),
    ("de", "Kannst du die Frage wiederholen?", "repeat", None),
    ("en", "I want to use my fifty-fifty", "joker", "fifty_fifty"),
    ("en", "Can I phone a friend?", "joker", "phone"),
    ("en", "Could you read the answers again?", "repeat", None),
    ("en", "What was the question?", "repeat", None),
    ("fr", "Je voudrais appeler un ami", "joker", "phone"),
    ("fr", "J'utilise l'appel à un ami", "joker", "phone"),
    ("fr", "Tu peux répéter la question ?", "repeat", None),
    # "Pas" after a command takes it back ("je continue pas"), never after an answer: "la B, pas la C" is the B.
    ("fr", "Je prends la B, pas la C", "answer", "B"),
    ("fr", "Je prends la B, pas la D", "answer", "B"),
]


@pytest.mark.parametrize(("language", "said", "intent", "value"), SAID_AT_A_QUESTION)
def test_jokers_and_repeats_in_a_players_words(language: str, said: str, intent: str, value: str | None) -> None:
    options = {"de": ("Berlin", "Madrid", "Lissabon", "Wien"), "en": ("London", "Madrid", "Lisbon", "Dublin"),
               "fr": ("Londres", "Madrid", "Lisbonne", "Dublin")}[language]  # fmt: skip
    meant = understand(said, Context(ContextName.ANSWER, language, options), load(language))
    assert (meant.intent, meant.value) == (intent, value)


NEW_NAMES = [
    ("de", "Ich Heiß Markus", "Markus"),  # "ich heiße" as the decoder wrote it, and as many say it
    ("de", "Ich heiss Markus", "Markus"),
    ("de", "Hallo, ich bin Markus", "Markus"),
    ("de", "Hallo, ich heiße Markus", "Markus"),
    ("de", "Ich bin der Markus", "Markus"),
    ("de", "Ich bin die Anna", "Anna"),
    ("de", "Markus heiße ich", "Markus"),
    ("en", "Hi, my name is Mark", "Mark"),
    ("en", "I'm called Mark", "Mark"),
    ("en", "You can call me Mark", "Mark"),
    ("en", "Hey, I'm Mark", "Mark"),
    ("fr", "Bonjour, je m'appelle Marc", "Marc"),
    ("fr", "Salut, moi c'est Marc", "Marc"),
    ("fr", "Mon prénom est Marc", "Marc"),
    ("fr", "Appelle-moi Marc", "Marc"),
]


@pytest.mark.parametrize(("language", "said", "name"), NEW_NAMES)
def test_a_new_player_is_read_back_by_their_name_alone(language: str, said: str, name: str) -> None:
    meant = understand(said, Context(ContextName.NAME, language), load(language))
    assert (meant.intent, meant.value) == ("name", name)


KNOWN_NAMES = [
    ("fr", ("Marc", "Julie"), "Mar", "Marc"),  # a short name the decoder cut
    ("fr", ("Marc", "Julie"), "Mark", "Marc"),  # spelled as it sounds
    ("fr", ("Marc", "Julie"), "Je prends Mar", "Marc"),
    ("en", ("Mark", "Emma"), "I'll call Marc", "Mark"),
    ("de", ("Markus", "Anna"), "Ich Heiß Markus", "Markus"),
    ("de", ("Markus", "Anna"), "Ich rufe Anna an", "Anna"),
    # Near no player's name, or near two: asked again, never guessed.
    ("fr", ("Marc", "Julie"), "Max", None),
    ("fr", ("Marc", "Mara"), "Mar", None),
    ("de", ("Tim", "Tom"), "Tam", None),
    ("de", ("Markus", "Anna"), "Marco", None),
    ("de", ("Markus", "Anna"), "Ma", None),
]


@pytest.mark.parametrize(("language", "names", "said", "name"), KNOWN_NAMES)
def test_a_known_players_name_misspelled_by_one_letter_is_that_player_and_no_other(
    language: str, names: tuple[str, ...], said: str, name: str | None
) -> None:
    meant = understand(said, Context(ContextName.NAME, language, names=names), load(language))
    assert (meant.intent, meant.value) == (("name", name) if name else ("unknown", None))


Reply = Callable[[Listen, str], str]


def _game(bank: Bank, language: str, reply: Reply) -> tuple[list[str], list[tuple[str, dict[str, Any]]]]:
    """One player, classic rules, one round, answering by words as a transcript gives them: the keys of the
    quizmaster's lines and the records, in order."""
    quizmaster = Quizmaster(Session(new_game(GameSettings(variant("classic"), ("Markus",), rounds=1, seed=11))), bank,
                            language)  # fmt: skip
    said: list[str] = []
    records: list[tuple[str, dict[str, Any]]] = []
    lines = load_lines(language)

    def perform(effect: Effect) -> Observation | None:
        if isinstance(effect, Say):
            said.append(effect.key)
            lines.text(effect)  # every line renders from the phrase file
        elif isinstance(effect, Record) and effect.state is None:
            records.append((effect.event, dict(effect.data)))
        elif isinstance(effect, Listen):
            correct = next(data["correct"] for event, data in reversed(records) if event == "question")
            answer = {"de": "Antwort {}", "en": "Answer {}", "fr": "Réponse {}"}[language].format(correct)
            text = answer if effect.context.name is ContextName.ANSWER else reply(effect, said[-1])
            return _heard(text, effect.context)
        return None

    drive(quizmaster.run(), perform)
    return said, records


@pytest.mark.parametrize(
    ("language", "go_on"), [("de", "Ich spiele weiter"), ("en", "I'll play on"), ("fr", "Je joue")]
)
def test_a_whole_game_played_on_in_the_players_words_is_never_asked_again(
    bank: Bank, language: str, go_on: str
) -> None:
    yes = {"de": "Ja, endgültig", "en": "Yes, final answer", "fr": "Oui, dernier mot"}[language]
    said, records = _game(bank, language, lambda _listen, key: go_on if key == "play_on" else yes)
    assert said.count("play_on") == 14  # before every question but the first
    assert "not_understood" not in said and "confirm_walk_away" not in said
    assert [data["level"] for event, data in records if event == "question"] == list(range(1, 16))


def test_a_player_who_will_not_play_on_is_asked_before_walking_away(bank: Bank) -> None:
    def reply(_listen: Listen, key: str) -> str:
        return {"play_on": "Ich spiele nicht weiter", "confirm_walk_away": "Ja"}.get(key, "Ja, endgültig")

    said, records = _game(bank, "de", reply)
    assert said[said.index("play_on") + 1] == "confirm_walk_away"
    assert [data["player"] for event, data in records if event == "walk_away"] == ["Markus"]
    assert [data["level"] for event, data in records if event == "question"] == [1]
