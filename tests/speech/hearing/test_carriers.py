"""What people say before their answer ("I'll take answer B", "ich tippe auf Wien", "je dirais la C") is in the
grammar, in every language: each carrier of the phrase file before each way of naming an answer, and the text
matcher understands it."""

from __future__ import annotations

from pathlib import Path

import pytest

from voicemaster.config.files import ConfigError
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.paths import PHRASES_DIR
from voicemaster.speech.hearing.grammar import grammar
from voicemaster.speech.hearing.intents import understand
from voicemaster.speech.hearing.normal_form import normalize
from voicemaster.speech.hearing.phrases import load

OPTIONS = {
    "de": ("Berlin", "Madrid", "Lissabon", "Wien"),
    "en": ("London", "Madrid", "Lisbon", "Dublin"),
    "fr": ("Londres", "Madrid", "Lisbonne", "Dublin"),
}
SAID = {
    "de": [("ich tippe auf Antwort B", "B"), ("ich glaube, es ist Wien", "D"), ("ich nehme die C", "C"),
           ("meine Antwort ist die zweite", "B"), ("ich würde sagen Antwort A", "A")],
    "en": [("I'll take answer B.", "B"), ("I'd go with Dublin", "D"), ("let's say C", "C"),
           ("I think it's the second one", "B"), ("I'm pretty sure it's option A", "A")],
    "fr": [("je dirais la C", "C"), ("je prends la réponse B", "B"), ("je crois que c'est Dublin", "D"),
           ("je pars sur la première", "A"), ("ma réponse est réponse D", "D")],
}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "said", "letter"), [(lang, s, letter) for lang in SAID for s, letter in SAID[lang]]
)
def test_an_answer_after_a_common_carrier_is_a_whole_phrase_of_the_grammar(
    language: str, said: str, letter: str
) -> None:
    phrases = load(language)
    context = Context(ContextName.ANSWER, language, OPTIONS[language])
    meant = {
        (phrase.intent, phrase.value)
        for phrase in grammar(context, phrases)
        if phrase.text == normalize(said, language)
    }
    assert meant == {("answer", letter)}
    understood = understand(said, context, phrases)
    assert (understood.intent, understood.value, understood.score) == ("answer", letter, 1.0)


def test_a_carrier_takes_answer_or_option_before_a_letters_one_word_forms_only() -> None:
    # "I'll take answer B" and "I'll take the second one", but not "I'll take answer the second one": the grammar
    # stays as small as what people say (its size is decode time).
    texts = {phrase.text for phrase in grammar(Context(ContextName.ANSWER, "en", OPTIONS["en"]), load("en"))}
    said = ("I'll take answer B", "I'll take the second one", "I'll take option Bee")
    assert {normalize(text, "en") for text in said} <= texts
    assert normalize("I'll take answer the second one", "en") not in texts


def test_a_carried_form_without_a_letter_or_option_names_the_file_and_entry(tmp_path: Path) -> None:
    (tmp_path / "en").mkdir()
    text = (PHRASES_DIR / "en" / "hear.toml").read_text(encoding="utf-8")
    start = text.index("carried = [")
    broken = text[:start] + 'carried = ["answer"]' + text[text.index("]", start) + 1 :]
    (tmp_path / "en" / "hear.toml").write_text(broken, encoding="utf-8")
    with pytest.raises(ConfigError, match=r"hear.toml.*answer\.carried\[0\].*needs \{letter\} or \{option\}"):
        load("en", tmp_path)


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_the_trie_encoded_word_by_word_spells_each_phrase_as_the_whole_spelling_would(language: str) -> None:
    # Carriers times answers make thousands of phrases; the trie encodes their few hundred words once each, which
    # is only right if the tokens are those of each whole spelling ("I'll take answer B." with its endings).
    from voicemaster.models.verify import require_model
    from voicemaster.speech.hearing.whisper.tokens import Tokens, complete_tokenizer
    from voicemaster.speech.hearing.whisper.trie import Node, build, spellings

    tokens = Tokens(complete_tokenizer(require_model("whisper", language) / "tokenizer.json"), language)
    written = [
        phrase.written for phrase in grammar(Context(ContextName.ANSWER, language, OPTIONS[language]), load(language))
    ]
    written = [*written[::20], "Fünfzig-Fünfzig!", "C'est l'Île-de-France", "  it's   500,000 "]

    def paths(node: Node, prefix: tuple[int, ...] = ()) -> set[tuple[tuple[int, ...], int]]:
        found = {(prefix, index) for index in node.ends}
        for token, child in node.children.items():
            found |= paths(child, (*prefix, token))
        return found

    whole = {
        (tuple(tokens.encode(spelling)), index) for index, text in enumerate(written) for spelling in spellings(text)
    }
    assert paths(build(written, tokens.encode).root) == whole
