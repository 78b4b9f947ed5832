"""A context's trie is its kind's fixed phrases, made once per language, extended by the question's own
(`strategies.trie`): the same trie as one made whole, node for node, and the same decisions on people's recordings
whatever was heard before it, in another language or with other options
(docs/decisions/029-the-fixed-phrases-trie-made-once.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from voicemaster.dialogue.meaning import Context, ContextName, Heard
from voicemaster.speech.audio import Audio
from voicemaster.speech.hearing.grammar import Grammar, grammar
from voicemaster.speech.hearing.phrases import load
from voicemaster.speech.hearing.whisper import strategies
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.hearing.whisper.trie import Node, TokenTrie
from voicemaster_lab.corpora import real_speech

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def recognizer(whisper: Callable[[str], WhisperRecognizer]) -> WhisperRecognizer:
    return whisper("de")  # the session's: Whisper base hears every language


def _walk(trie: TokenTrie, phrases: tuple[object, ...]) -> Iterator[tuple[list[int], list[object], set[object]]]:
    """Each node as its children's tokens in order, the phrases ending there (in order) and the meanings past it."""
    stack = [trie.root]
    while stack:
        node: Node = stack.pop()
        ends = [phrases[trie.index_of[end] if trie.index_of else end] for end in node.ends]
        yield list(node.children), ends, {trie.meanings[meaning] for meaning in node.meanings}
        stack.extend(reversed(node.children.values()))


@pytest.mark.parametrize(
    ("language", "name", "options"),
    [
        ("de", ContextName.ANSWER, ("Berlin", "Paris", "Rom", "Wien")),
        ("fr", ContextName.ANSWER, ("Le", "De", "Me", "Po")),
        ("en", ContextName.ANSWER, ("Olaf", "", "Three", "A dog")),  # an option taken away by the 50:50
        ("fr", ContextName.CONFIRM, ()),
    ],
)
def test_an_extended_trie_is_the_trie_made_whole(
    recognizer: WhisperRecognizer, language: str, name: ContextName, options: tuple[str, ...]
) -> None:
    tokens = recognizer.tokens(language)
    choices = grammar(Context(name, language, options), load(language))
    assert isinstance(choices, Grammar) and choices.fixed is not None
    extended = strategies.trie(tokens, choices)
    whole = strategies.whole_trie(tokens, (*choices.fixed, *choices.own))
    numbered = tuple(choices[index] for index in choices.order)  # the whole trie numbers the fixed phrases first
    assert list(_walk(extended, tuple(choices))) == list(_walk(whole, numbered))
    assert (extended.phrases, extended.paths) == (whole.phrases, whole.paths)
    # Extending leaves the kind's trie as it was made: the next question starts from it again.
    fixed = strategies.fixed_trie(tokens, choices.fixed)
    assert list(_walk(fixed, tuple(choices.fixed))) == list(
        _walk(strategies.whole_trie(tokens, choices.fixed), tuple(choices.fixed))
    )


CLIP = {clip.file: clip for clip in real_speech.load()}
SAID = [
    # (recording, the options of its question): "Bär" is C among its own options and D among the next question's,
    # a French "Le" heard between two German questions, and the first question again.
    ("de/answer-baer.wav", ("Affe", "Auch", "Bär", "Bus")),
    ("fr/answer-le.wav", ("La", "Le", "Li", "Lo")),
    ("de/answer-baer.wav", ("Zu", "Affe", "Auch", "Bär")),
    ("de/answer-baer.wav", ("Affe", "Auch", "Bär", "Bus")),
]


def _heard(recognizer: WhisperRecognizer, file: str, options: tuple[str, ...]) -> Heard:
    clip = CLIP[file]
    return recognizer.recognize(Audio.read(clip.path()), Context(ContextName(clip.context), clip.language, options))


def test_questions_heard_one_after_another_are_decided_as_with_tries_made_whole(
    recognizer: WhisperRecognizer, monkeypatch: pytest.MonkeyPatch
) -> None:
    strategies.trie.cache_clear()
    strategies.fixed_trie.cache_clear()
    in_turn = [_heard(recognizer, file, options) for file, options in SAID]
    # Each question alone, its trie made whole from its grammar, nothing kept from another question.
    monkeypatch.setattr(strategies, "trie", strategies.whole_trie)
    alone = [_heard(recognizer, file, options) for file, options in SAID]
    assert [(heard.intent, heard.value, heard.text) for heard in in_turn] == [
        (heard.intent, heard.value, heard.text) for heard in alone
    ]
    assert [heard.confidence for heard in in_turn] == pytest.approx([heard.confidence for heard in alone], abs=1e-6)
    # What a player would notice: "Bär" is the answer it is among each question's options.
    assert [in_turn[index].value for index in (0, 2, 3)] == ["C", "D", "C"]
