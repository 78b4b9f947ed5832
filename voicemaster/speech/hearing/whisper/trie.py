"""The phrases of a listening context as a trie of Whisper tokens, so that a common beginning is scored once.

Each phrase is spelled as the decoder writes it: starting with a capital, after a space, with or without the full
stop, question mark or exclamation mark Whisper likes to end a sentence with; every spelling is a path from the root
that ends in the end-of-text token. "Ich nehme A", "Ich nehme B" and "Ich nehme Paris." share "Ich nehme".
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

ENDINGS = ("", ".", "?", "!")
"""What Whisper may write after a phrase before it ends the text."""


@dataclass(slots=True)
class Node:
    children: dict[int, Node] = field(default_factory=dict)
    ends: list[int] = field(default_factory=list)
    """The phrases (indices into the trie's list) whose spelling ends here, so the next token is end-of-text."""
    meanings: frozenset[int] = frozenset()
    """The meanings (`TokenTrie.meaning_of`) of every phrase whose spelling ends here or further on."""


@dataclass(frozen=True)
class TokenTrie:
    root: Node
    phrases: int
    """How many phrases the paths spell."""
    paths: int
    """How many spellings were inserted (a phrase has several)."""
    meaning_of: tuple[int, ...] = ()
    """Each phrase's meaning, numbered from 0: phrases of one meaning share a number."""


def spellings(written: str) -> tuple[str, ...]:
    """The ways the decoder writes a phrase: as written and with a capital first letter, each with every ending."""
    return tuple(f"{form}{ending}" for form in _forms(written) for ending in ENDINGS)


def _forms(written: str) -> tuple[str, ...]:
    text = " ".join(written.split())
    return tuple(f" {form}" for form in dict.fromkeys((text[:1].upper() + text[1:], text)))


def build(
    phrases: Sequence[str],
    encode: Callable[[str], list[int]],
    *,
    longest: int | None = None,
    meanings: Sequence[Hashable] | None = None,
) -> TokenTrie:
    """The trie of the phrases' spellings; `encode` turns text into tokens, `longest` cuts a spelling's tokens,
    `meanings` says which phrases mean the same (by default none do).

    A spelling is encoded word by word, each with its space, the last with the ending: Whisper's byte-pair encoding
    never merges across a space, so the tokens are the same as the whole spelling's, and a grammar of carriers
    times answers (thousands of phrases, a few hundred words) is encoded in a fraction of the time."""
    root = Node()
    paths = 0
    for index, written in enumerate(phrases):
        for form in _forms(written):
            *words, last = form.split(" ")[1:]
            head = [token for word in words for token in encode(f" {word}")][:longest]
            stem = root
            for token in head:
                stem = stem.children.setdefault(token, Node())
            for ending in ENDINGS:
                node = stem
                for token in encode(f" {last}{ending}")[: None if longest is None else longest - len(head)]:
                    node = node.children.setdefault(token, Node())
                if index not in node.ends:
                    node.ends.append(index)
                    paths += 1
    numbers: dict[Hashable, int] = {}
    meaning_of = tuple(
        numbers.setdefault(meaning, len(numbers)) for meaning in (range(len(phrases)) if meanings is None else meanings)
    )
    _mark_meanings(root, meaning_of)
    return TokenTrie(root, len(phrases), paths, meaning_of)


def _mark_meanings(root: Node, meaning_of: tuple[int, ...]) -> None:
    """Each node's meanings, children before parents; equal sets are one object (a grammar of a few thousand phrases
    has some 20 meanings, and tens of thousands of nodes)."""
    shared: dict[frozenset[int], frozenset[int]] = {}
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children.values())
    for node in reversed(order):
        found = {meaning_of[phrase] for phrase in node.ends}
        for child in node.children.values():
            found |= child.meanings
        node.meanings = shared.setdefault(frozenset(found), frozenset(found))
