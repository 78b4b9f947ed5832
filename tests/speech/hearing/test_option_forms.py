"""Options as people say them: generated from the option's text per language (with and without an article, elided,
plural, a long option by one of its names), and understood so by the text matcher."""

from __future__ import annotations

import pytest

from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.speech.hearing.intents import understand
from voicemaster.speech.hearing.phrases import load, option_forms

COMPOSERS = ("Wolfgang Amadeus Mozart", "Franz Schubert", "Johann Sebastian Bach", "Richard Wagner")


def _forms(language: str, options: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return dict(zip(options, option_forms(options, load(language)), strict=True))


@pytest.mark.parametrize(
    ("language", "options", "option", "said"),
    [
        ("de", ("Ball", "Katze", "Haus", "Esel"), "Ball", "der Ball"),
        ("de", ("Ball", "Katze", "Haus", "Esel"), "Katze", "eine Katze"),
        ("en", ("camel", "apple", "house", "donkey"), "camel", "the camel"),
        ("en", ("camel", "apple", "house", "donkey"), "apple", "an apple"),
        ("en", ("camel", "apple", "house", "donkey"), "camel", "a camel"),
        ("fr", ("âne", "lune", "arbre", "ballon"), "âne", "un âne"),
        ("fr", ("âne", "lune", "arbre", "ballon"), "lune", "une lune"),
        ("fr", ("âne", "lune", "arbre", "ballon"), "arbre", "l'arbre"),
        ("fr", ("âne", "lune", "oiseaux", "ballon"), "oiseaux", "les oiseaux"),
        ("de", COMPOSERS, "Wolfgang Amadeus Mozart", "Mozart"),
        ("en", ("The Beatles", "Queen", "Abba", "Oasis"), "The Beatles", "Beatles"),
        ("fr", ("Les Misérables", "Germinal", "Candide", "Madame Bovary"), "Les Misérables", "Misérables"),
        ("fr", ("Les Misérables", "Germinal", "Candide", "Madame Bovary"), "Madame Bovary", "Bovary"),
    ],
)  # fmt: skip
def test_an_option_is_heard_as_people_say_it(language: str, options: tuple[str, ...], option: str, said: str) -> None:
    assert said in _forms(language, options)[option]
    context = Context(ContextName.ANSWER, language, options)
    meant = understand(said, context, load(language))
    assert (meant.intent, meant.value) == ("answer", "ABCD"[options.index(option)])


def test_the_options_own_text_comes_first() -> None:
    forms = _forms("de", ("Ball", "Der Zauberberg", "Katze", "Haus"))
    assert [each[0] for each in forms.values()] == ["Ball", "Der Zauberberg", "Katze", "Haus"]


def test_an_option_with_its_own_article_takes_no_other() -> None:
    assert _forms("en", ("The Beatles", "Queen", "Abba", "Oasis"))["The Beatles"] == ("The Beatles", "Beatles")
    assert "die Zauberberg" not in _forms("de", ("Der Zauberberg", "Ball", "Katze", "Haus"))["Der Zauberberg"]


def test_a_name_two_options_share_names_neither() -> None:
    forms = _forms("de", ("Johann Sebastian Bach", "Johann Strauss", "Franz Schubert", "Richard Wagner"))
    assert "Johann" not in forms["Johann Sebastian Bach"] and "Johann" not in forms["Johann Strauss"]
    assert "Bach" in forms["Johann Sebastian Bach"] and "Strauss" in forms["Johann Strauss"]
    context = Context(ContextName.ANSWER, "de", tuple(forms))
    assert understand("Johann", context, load("de")).intent == "unknown"


def test_short_words_and_numbers_take_no_article_or_name_of_their_own() -> None:
    forms = _forms("fr", ("1789", "1815", "1870", "1914"))
    assert forms["1789"] == ("1789",)
    # "van" is too short to name Beethoven alone; "Beethoven" does.
    beethoven = _forms("de", ("Ludwig van Beethoven", "Franz Schubert", "Richard Wagner", "Joseph Haydn"))
    assert "van" not in beethoven["Ludwig van Beethoven"] and "Beethoven" in beethoven["Ludwig van Beethoven"]


def test_an_option_whose_text_is_another_letters_name_names_neither() -> None:
    # "De" as option B is also how a German says D: said alone, it is asked again, never taken for either.
    context = Context(ContextName.ANSWER, "de", ("Affe", "De", "Haus", "Bus"))
    assert understand("De", context, load("de")).intent == "unknown"
    assert understand("Haus", context, load("de")).value == "C"
