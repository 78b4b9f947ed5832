"""The phrases of a listening context as a trie of Whisper tokens, so that a common beginning is scored once.

Each phrase is spelled as the decoder writes it: starting with a capital, after a space, with or without the full
stop, question mark or exclamation mark Whisper likes to end a sentence with; every spelling is a path from the root
that ends in the end-of-text token. "Ich nehme A", "Ich nehme B" and "Ich nehme Paris." share "Ich nehme".

Most of a context's phrases are fixed for its kind (letters, jokers, commands: some 4 900 of an answer's 6 000); a
question adds its options. The fixed phrases' trie is made once (`build`) and each question's trie extends it
(`extend`), copying only the nodes its own phrases pass through: the same trie as `build` of both, in a fraction of
the time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
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
    meanings: tuple[Hashable, ...] = ()
    """The meanings by number (`meaning_of`)."""
    index_of: tuple[int, ...] | None = None
    """Where each phrase the paths end in stands in the caller's list, when `extend` numbered them otherwise (the
    base's phrases first); None: as numbered."""


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
    paths = sum(_insert(root, index, written, encode, longest) for index, written in enumerate(phrases))
    numbers: dict[Hashable, int] = {}
    meaning_of = tuple(
        numbers.setdefault(meaning, len(numbers)) for meaning in (range(len(phrases)) if meanings is None else meanings)
    )
    _mark_meanings(root, meaning_of)
    return TokenTrie(root, len(phrases), paths, meaning_of, tuple(numbers))


def extend(
    base: TokenTrie,
    phrases: Sequence[str],
    encode: Callable[[str], list[int]],
    *,
    longest: int | None = None,
    meanings: Sequence[Hashable],
    index_of: tuple[int, ...] | None = None,
) -> TokenTrie:
    """`base` (built with meanings) with more phrases, numbered after its own: the trie `build` makes of the base's
    phrases and these, in that order, node for node and child for child, while `base` is left as it was. Only the
    nodes the new phrases pass through are copied (and their meanings worked out again); the rest is shared.
    `index_of`: where each phrase, the base's first, stands in the caller's list."""
    copied: dict[int, Node] = {}
    order: list[Node] = []

    def own(node: Node | None) -> Node:
        """The node this trie may change in place of `node` (a copy of a base's node), or a new one for None."""
        if node is not None and id(node) in copied:
            return copied[id(node)]
        mine = Node() if node is None else Node(dict(node.children), list(node.ends), node.meanings)
        copied[id(mine)] = mine
        if node is not None:
            copied[id(node)] = mine
        order.append(mine)
        return mine

    root = own(base.root)
    paths = base.paths
    for number, written in enumerate(phrases, start=base.phrases):
        paths += _insert(root, number, written, encode, longest, own)
    numbers = dict(zip(base.meanings, range(len(base.meanings)), strict=True))
    meaning_of = base.meaning_of + tuple(numbers.setdefault(meaning, len(numbers)) for meaning in meanings)
    _meanings_upward(reversed(order), meaning_of)  # a node is copied or made after its parent: children first
    return TokenTrie(root, base.phrases + len(phrases), paths, meaning_of, tuple(numbers), index_of)


def _insert(
    root: Node,
    index: int,
    written: str,
    encode: Callable[[str], list[int]],
    longest: int | None,
    own: Callable[[Node | None], Node] | None = None,
) -> int:
    """Every spelling of one phrase as a path from `root`, ending in `index`; `own` gives the node to change for one
    met on the way (`extend`'s copy; by default the node itself). The spellings added."""
    paths = 0
    for form in _forms(written):
        *words, last = form.split(" ")[1:]
        head = [token for word in words for token in encode(f" {word}")][:longest]
        stem = root
        for token in head:
            stem = _child(stem, token, own)
        for ending in ENDINGS:
            node = stem
            for token in encode(f" {last}{ending}")[: None if longest is None else longest - len(head)]:
                node = _child(node, token, own)
            if index not in node.ends:
                node.ends.append(index)
                paths += 1
    return paths


def _child(node: Node, token: int, own: Callable[[Node | None], Node] | None) -> Node:
    found = node.children.get(token)
    if own is not None:
        found = node.children[token] = own(found)
    elif found is None:
        found = node.children[token] = Node()
    return found


def _mark_meanings(root: Node, meaning_of: tuple[int, ...]) -> None:
    """Each node's meanings, children before parents; equal sets are one object (a grammar of a few thousand phrases
    has some 20 meanings, and tens of thousands of nodes)."""
    order, stack = [], [root]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(node.children.values())
    _meanings_upward(reversed(order), meaning_of)


def _meanings_upward(nodes: Iterable[Node], meaning_of: tuple[int, ...]) -> None:
    """Each of `nodes` (children before parents) given the meanings of the phrases it ends and its children's."""
    shared: dict[frozenset[int], frozenset[int]] = {}
    for node in nodes:
        found = {meaning_of[phrase] for phrase in node.ends}
        for child in node.children.values():
            found |= child.meanings
        node.meanings = shared.setdefault(frozenset(found), frozenset(found))
