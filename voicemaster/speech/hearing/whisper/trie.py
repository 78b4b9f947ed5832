"""The phrases of a listening context as a trie of Whisper tokens, so that a common beginning is scored once.

Each phrase is spelled as the decoder writes it: starting with a capital, after a space, with or without the full
stop, question mark or exclamation mark Whisper likes to end a sentence with; every spelling is a path from the root
that ends in the end-of-text token. "Ich nehme A", "Ich nehme B" and "Ich nehme Paris." share "Ich nehme".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

ENDINGS = ("", ".", "?", "!")
"""What Whisper may write after a phrase before it ends the text."""


@dataclass
class Node:
    children: dict[int, Node] = field(default_factory=dict)
    ends: list[int] = field(default_factory=list)
    """The phrases (indices into the trie's list) whose spelling ends here, so the next token is end-of-text."""


@dataclass(frozen=True)
class TokenTrie:
    root: Node
    phrases: int
    """How many phrases the paths spell."""
    paths: int
    """How many spellings were inserted (a phrase has several)."""


def spellings(written: str) -> tuple[str, ...]:
    """The ways the decoder writes a phrase: as written and with a capital first letter, each with every ending."""
    text = " ".join(written.split())
    forms = dict.fromkeys((text[:1].upper() + text[1:], text))
    return tuple(f" {form}{ending}" for form in forms for ending in ENDINGS)


def build(phrases: Sequence[str], encode: Callable[[str], list[int]]) -> TokenTrie:
    """The trie of the phrases' spellings; `encode` turns a spelling into tokens."""
    root = Node()
    paths = 0
    for index, written in enumerate(phrases):
        for spelling in spellings(written):
            node = root
            for token in encode(spelling):
                node = node.children.setdefault(token, Node())
            if index not in node.ends:
                node.ends.append(index)
                paths += 1
    return TokenTrie(root, len(phrases), paths)
