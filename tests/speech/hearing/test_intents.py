"""What players say means what they meant, and anything unclear means nothing (German phrases; pure, no audio)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from voicemaster.config.files import ConfigError
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.paths import PHRASES_DIR
from voicemaster.speech.hearing import phrases
from voicemaster.speech.hearing.grammar import grammar
from voicemaster.speech.hearing.intents import understand

GERMAN = phrases.load("de")
ANSWER = Context(ContextName.ANSWER, "de", ("Berlin", "Paris", "Rom", "Wien"))
CONFIRM = Context(ContextName.CONFIRM, "de")
NUMBER = Context(ContextName.NUMBER, "de")
NAME = Context(ContextName.NAME, "de", names=("Anna", "Jonas"))


@pytest.mark.parametrize(
    ("said", "intent", "value"),
    [
        ("B", "answer", "B"),
        ("Antwort B.", "answer", "B"),
        ("B wie Berta!", "answer", "B"),
        ("Die zweite.", "answer", "B"),
        ("Ich nehme C.", "answer", "C"),
        ("Äh, C bitte.", "answer", "C"),
        ("Antwort 4", "answer", "D"),
        ("Ich nehme Paris.", "answer", "B"),
        ("Wien", "answer", "D"),
        ("Ich glaube, es ist Rom.", "answer", "C"),
        ("Fünfzig-fünfzig!", "joker", "fifty_fifty"),
        ("50:50", "joker", "fifty_fifty"),
        ("Ich frage das Publikum.", "joker", "audience"),
        ("Publikumsjocker", "joker", "audience"),
        ("Telefonjoker bitte", "joker", "phone"),
        ("Zusatzjoker", "joker", "extra"),
        ("Ich höre auf.", "walk_away", None),
        ("Ich nehme das Geld.", "walk_away", None),
        ("Noch einmal, bitte.", "repeat", None),
        ("Langsamer!", "slower", None),
        ("Was kann ich sagen?", "help", None),
        ("Wie bitte?", "repeat", None),  # not "Wien" once "bitte" is dropped as filler
        ("Noch mal", "repeat", None),
    ],
)
def test_an_answer_is_understood_however_it_is_said(said: str, intent: str, value: str | None) -> None:
    meaning = understand(said, ANSWER, GERMAN)
    assert (meaning.intent, meaning.value) == (intent, value)


@pytest.mark.parametrize(
    "said",
    [
        "Kannst du das Radio leiser machen?",
        "Ich nehme B oder doch C",
        "Wo ist die nächste Ausfahrt?",
        "Das B-Netz gibt es nicht mehr.",
        "Hamburg",
        "Hm.",
        "",
        "Ja, endgültig.",  # a yes is no answer: the question is still open
    ],
)
def test_talk_that_is_no_answer_means_nothing(said: str) -> None:
    assert understand(said, ANSWER, GERMAN).intent == "unknown"


@pytest.mark.parametrize(
    ("language", "said", "intent", "value"),
    [
        ("de", "Ich bin mir nicht ganz sicher, aber ich würde Paris nehmen", "answer", "B"),
        ("de", "Nicht A, ich nehme C", "answer", "C"),
        ("de", "Also ich tippe jetzt mal auf die letzte", "answer", "D"),
        ("de", "Ich würde gerne das Publikum fragen", "joker", "audience"),
        ("de", "Nimm bitte zwei falsche Antworten weg", "joker", "fifty_fifty"),
        ("de", "Kannst du bitte etwas langsamer sprechen", "slower", None),
        ("de", "Kannst du mir die Frage noch mal vorlesen", "repeat", None),
        ("en", "I'm not sure, but I'd go with Paris", "answer", "B"),
        ("en", "Not A, I think it's C", "answer", "C"),
        ("en", "I think I'd like to ask the audience", "joker", "audience"),
        ("en", "Could you speak a little bit slower please", "slower", None),
        ("fr", "Je ne suis pas sûr, mais je dirais plutôt Paris", "answer", "B"),
        ("fr", "Pas la B, je prends plutôt la D", "answer", "D"),
        ("fr", "Je voudrais demander au public", "joker", "audience"),
        ("fr", "Tu peux parler un peu plus lentement", "slower", None),
        ("fr", "Non, plutôt la C", "answer", "C"),  # a "non" before an answer corrects; only "pas" takes it back
        ("en", "No, I'd say C", "answer", "C"),
    ],
)
def test_an_answer_inside_a_sentence_of_small_words_is_understood(
    language: str, said: str, intent: str, value: str | None
) -> None:
    context = Context(ContextName.ANSWER, language, ("Berlin", "Paris", "Rom", "Wien"))
    meaning = understand(said, context, phrases.load(language))
    assert (meaning.intent, meaning.value) == (intent, value)


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("de", "Fahr mal schneller, wir kommen sonst zu spät"),
        ("de", "Mach doch mal das Radio lauter"),
        ("de", "Wir waren letztes Jahr in Paris"),
        ("de", "Ich glaube, A und C sind beide falsch"),
        ("en", "Can you turn the radio up a bit"),
        ("en", "We went to Paris last year"),
        ("en", "I'll have a coffee when we stop"),
        ("fr", "On était à Paris l'année dernière"),
        ("fr", "Tu peux rouler plus vite, on est en retard"),
    ],
)
def test_a_sentence_with_words_of_its_own_is_talk_not_an_answer(language: str, said: str) -> None:
    context = Context(ContextName.ANSWER, language, ("Berlin", "Paris", "Rom", "Wien"))
    assert understand(said, context, phrases.load(language)).intent == "unknown"


def test_a_letter_spelled_with_any_name_and_an_option_by_one_of_its_words_are_understood() -> None:
    authors = Context(ContextName.ANSWER, "de", ("Johann Wolfgang von Goethe", "Friedrich Schiller", "Heinrich Heine"))
    assert understand("B wie Bertram", ANSWER, GERMAN).value == "B"
    assert understand("Ich glaube, es war Schiller", authors, GERMAN).value == "B"
    assert understand("Goethe natürlich", authors, GERMAN).value == "A"
    # A word two options share names neither.
    twins = Context(ContextName.ANSWER, "de", ("Heinrich Heine", "Heinrich Mann"))
    assert understand("Heinrich", twins, GERMAN).intent == "unknown"


def test_a_player_says_whose_turn_it_is() -> None:
    meaning = understand("Jetzt ist Jonas dran", NAME, GERMAN)
    assert (meaning.intent, meaning.value) == ("name", "Jonas")


def test_only_the_letters_on_offer_count() -> None:
    after_fifty_fifty = Context(ContextName.ANSWER, "de", ("Berlin", "Paris"))
    assert understand("Antwort B", after_fifty_fifty, GERMAN).value == "B"
    assert understand("Antwort D", after_fifty_fifty, GERMAN).intent == "unknown"


@pytest.mark.parametrize(
    ("said", "intent"),
    [
        ("Ja.", "yes"),
        ("Ja, endgültig!", "yes"),
        ("Ja, entgültig", "yes"),  # one slip of the recognizer
        ("Ja, logg sie ein.", "yes"),
        ("Nein.", "no"),
        ("Nein, warte!", "no"),
        ("Doch nicht.", "no"),
        ("Ja, aber nein.", "no"),  # a yes taken back is a no: nothing is locked, the answer is asked for again
        ("Ja... nein, warte, doch nicht", "no"),
        ("Ja, ich glaube schon, ja", "unknown"),  # a yes counts only as a whole phrase: it locks an answer
        ("Da.", "unknown"),
        ("Jahr", "unknown"),
        ("Antwort B", "unknown"),
    ],
)
def test_only_a_clear_yes_locks_an_answer(said: str, intent: str) -> None:
    assert understand(said, CONFIRM, GERMAN).intent == intent


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("Zehn auf A, den Rest auf C.", "A=10,C=rest"),
        ("Alles auf B.", "B=all"),
        ("Fünf Bündel auf A und den Rest auf die B", "A=5,B=rest"),
        ("500.000 auf A und 500.000 auf D.", "A=500000€,D=500000€"),
        ("fünfhunderttausend Euro auf C", "C=500000€"),
        ("zwanzig auf D, zwanzig auf A", "A=20,D=20"),
        ("Also, alles auf B.", "B=all"),
    ],
)
def test_money_placement_comes_in_one_normal_form(said: str, value: str) -> None:
    meaning = understand(said, NUMBER, GERMAN)
    assert (meaning.intent, meaning.value) == ("placement", value)


@pytest.mark.parametrize(
    "said",
    ["Alles auf B und zehn auf C", "zehn auf A und zehn auf A", "den Rest auf A und den Rest auf B", "zehn auf X"],
)
def test_a_placement_that_does_not_add_up_means_nothing(said: str) -> None:
    assert understand(said, NUMBER, GERMAN).intent == "unknown"


def test_commands_count_while_placing_money() -> None:
    assert understand("Noch einmal", NUMBER, GERMAN).intent == "repeat"


@pytest.mark.parametrize(
    ("said", "name"), [("Ich heiße Anna.", "Anna"), ("Jonas", "Jonas"), ("Mein Name ist Jonas", "Jonas")]
)
def test_players_are_known_by_name(said: str, name: str) -> None:
    meaning = understand(said, NAME, GERMAN)
    assert (meaning.intent, meaning.value) == ("name", name)


@pytest.mark.parametrize(
    ("language", "heard", "name"),
    [("de", "Heiße Markus.", "Markus"), ("en", "Name is Mark.", "Mark"), ("fr", "M'appelle Marc.", "Marc")],
)
def test_a_new_name_whose_first_word_the_decoder_dropped_is_still_only_the_name(
    language: str, heard: str, name: str
) -> None:
    """What `bench live` heard of Pico's "Ich heiße Markus" and "Je m'appelle Marc": read back as "Heiße Markus",
    the player had to say no and start again."""
    meaning = understand(heard, Context(ContextName.NAME, language), phrases.load(language))
    assert (meaning.intent, meaning.value) == ("name", name)


@pytest.mark.parametrize(
    ("language", "reply"),
    [("de", "Ja."), ("de", "nein"), ("de", "Ja, genau."), ("en", "Yes."), ("fr", "Oui."), ("fr", "Non")],
)
def test_a_yes_or_a_no_is_not_taken_for_a_new_players_name(language: str, reply: str) -> None:
    """Asked "wie heißt du?", a "Ja" (the player's, out of turn, or a party's) was read back as the name "Ja"."""
    assert understand(reply, Context(ContextName.NAME, language), phrases.load(language)).intent == "unknown"


def test_an_unknown_name_is_not_taken_for_a_player() -> None:
    assert understand("Ich heiße Bernd", NAME, GERMAN).intent == "unknown"


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_no_phrase_means_two_things(language: str) -> None:
    loaded = phrases.load(language)
    contexts = [
        Context(ContextName.ANSWER, language, ("Berlin", "Paris", "Rom", "Wien")),
        Context(ContextName.CONFIRM, language),
        Context(ContextName.NAME, language, names=("Anna", "Jonas")),
    ]
    for context in contexts:
        meanings: dict[str, set[tuple[str, str | None]]] = {}
        for phrase in grammar(context, loaded):
            meanings.setdefault(phrase.text, set()).add((phrase.intent, phrase.value))
        assert {text: found for text, found in meanings.items() if len(found) > 1} == {}


def test_a_broken_phrase_file_names_the_file_and_the_key(tmp_path: Path) -> None:
    (tmp_path / "de").mkdir()
    text = (PHRASES_DIR / "de" / "hear.toml").read_text(encoding="utf-8")
    (tmp_path / "de" / "hear.toml").write_text(text.replace('"ich nehme {letter}",', '"ich nehme",'), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"hear\.toml: answer\.letter\[\d+\]: 'ich nehme' lacks \{letter\}"):
        phrases.load("de", tmp_path)


def test_a_context_heard_otherwise_keeps_the_grammar_worked_out_for_the_question() -> None:
    # Worked out while the question is read (`Recognizer.prepare`), not again where a yes is taken at once.
    at_once = replace(ANSWER, yes_at_once=True)
    assert grammar(at_once, GERMAN) is grammar(ANSWER, GERMAN)
    assert understand("Ich nehme Paris.", at_once, GERMAN) == understand("Ich nehme Paris.", ANSWER, GERMAN)
