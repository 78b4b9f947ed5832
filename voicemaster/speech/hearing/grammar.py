"""A listening context's grammar: every whole phrase that counts in it, made from the phrase file (`phrases.py`).

A grammar is made for every question, from its kind's fixed phrases (letters, jokers, yes and no, commands: made once)
and the question's own (its options, the players' names). It keeps both parts and where each phrase stands, so the
recognizer makes the fixed phrases' trie once and extends it per question.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from operator import itemgetter
from typing import overload

from voicemaster.dialogue.meaning import Context, ContextName, Intent
from voicemaster.rules.letters import Letter
from voicemaster.speech.hearing.normal_form import Normalized, normalize, spoken
from voicemaster.speech.hearing.phrases import (
    CONTEXTS_KEPT,
    FORMATS,
    START_COMMANDS,
    HearPhrases,
    Phrase,
    option_forms,
)


@dataclass(frozen=True)
class Grammar(Sequence[Phrase]):
    """A context's phrases in order, hashed once: the recognizer's caches (its trie, the phrases' spellings) are looked
    up by the grammar at every decision, and hashing some 6 000 phrases again each time cost a few milliseconds a
    lookup. Two grammars are equal when their phrases are.

    A context's grammar (`grammar`) also keeps its two parts: the phrases every context of its kind holds (`fixed`,
    one object for them all) and the question's own (`own`), with where each of them, the fixed first, stands in it
    (`order`); a kind's fixed grammar has no parts of its own (`fixed` None)."""

    phrases: tuple[Phrase, ...]
    fixed: Grammar | None = field(default=None, compare=False, repr=False)
    own: tuple[Phrase, ...] = field(default=(), compare=False, repr=False)
    order: tuple[int, ...] = field(default=(), compare=False, repr=False)
    hashed: int = field(default=0, init=False, compare=False, repr=False)
    """The phrases' hash, computed once when the grammar is made."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hashed", hash(self.phrases))

    def __hash__(self) -> int:
        return self.hashed

    @overload
    def __getitem__(self, index: int) -> Phrase: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Phrase, ...]: ...

    def __getitem__(self, index: int | slice) -> Phrase | tuple[Phrase, ...]:
        return self.phrases[index]

    def __len__(self) -> int:
        return len(self.phrases)

    def __iter__(self) -> Iterator[Phrase]:
        return iter(self.phrases)


def grammar(context: Context, phrases: HearPhrases) -> Grammar:
    """Every whole phrase that counts in this context, normalized, with its intent and value."""
    return _grammar(context.asked, phrases)


@lru_cache(maxsize=CONTEXTS_KEPT)
def _grammar(context: Context, phrases: HearPhrases) -> Grammar:
    fixed, made, kind = _fixed(context.name, len(context.options) or 4, phrases)
    own: list[Row] = []
    if context.name is ContextName.ANSWER:
        letters = Letter.first(len(context.options) or 4)
        named = zip(letters, context.options, option_forms(context.options, phrases), strict=False)
        for letter, option, forms in named:
            if not option.strip():  # taken away by the 50:50: its templates alone ("Antwort", "ich nehme") name nothing
                continue
            templates = (*phrases.answer_option, *phrases.carried.option)
            own += [(t.replace("{option}", form), Intent.ANSWER, letter.value) for t in templates for form in forms]
    elif context.name is ContextName.NAME:
        for name in context.names:
            own += [(t.replace("{name}", name), Intent.NAME, name) for t in phrases.name]
    elif context.name is ContextName.START:  # the user's own start phrases (`[serve] start_phrases`)
        own += [(text, Intent.START, FORMATS[0]) for text in context.options]
    added = sorted((_made(row, phrases.language) for row in dict.fromkeys(own) if row not in fixed), key=_ORDER)
    # Two sorted runs: merged in C, each phrase with its number among the fixed and then the own.
    merged = sorted(((*ordered, number) for number, ordered in enumerate((*made, *added))), key=_ORDER)
    order = [0] * len(merged)
    for index, (_, _, number) in enumerate(merged):
        order[number] = index
    every = tuple(phrase for _, phrase, _ in merged)
    return Grammar(every, fixed=kind, own=tuple(phrase for _, phrase in added), order=tuple(order))


Row = tuple[str, Intent, str | None]
"""A phrase as written, with its intent and value: all a `Phrase` is made from."""
Ordered = tuple[tuple[Intent, str, Normalized, str], Phrase]
"""A phrase with where it stands in a grammar: by meaning, then by its words."""
_ORDER = itemgetter(0)


@lru_cache(maxsize=16)
def _fixed(
    name: ContextName, letters: int, phrases: HearPhrases
) -> tuple[frozenset[Row], tuple[Ordered, ...], Grammar]:
    """The phrases of a kind of context that no question changes (letters, jokers, yes and no, commands), made and
    ordered once: they are most of every grammar, and a grammar is made for every question."""
    found: list[Row] = []
    if name is ContextName.ANSWER:
        for letter in Letter.first(letters):
            for form in phrases.letters[letter]:
                found += [(t.replace("{letter}", form), Intent.ANSWER, letter.value) for t in phrases.answer_letter]
            for form in phrases.letters[letter]:
                carried = phrases.carried.letter + (phrases.carried.worded_letter if " " not in form.strip() else ())
                found += [(t.replace("{letter}", form), Intent.ANSWER, letter.value) for t in carried]
        # "La dernière", "ich nehme die letzte": the last option, alone and after each carrier.
        last, templates = Letter.first(letters)[-1].value, ("{letter}", *phrases.carried.letter)
        found += [(t.replace("{letter}", form), Intent.ANSWER, last) for t in templates for form in phrases.words.last]
        for joker, said in phrases.jokers.items():
            found += [(text, Intent.JOKER, joker) for text in said]
    elif name is ContextName.CONFIRM:
        for intent, said in phrases.confirm.items():
            found += [(text, Intent(intent), None) for text in said]
    elif name is ContextName.NUMBER:
        # A placement is read back and confirmed, or corrected, in this same context.
        for intent, said in phrases.confirm.items():
            found += [(text, Intent(intent), None) for text in said]
        found += [(text, Intent.SWITCH_CATEGORY, None) for text in phrases.placement.switch]
    elif name is ContextName.START:
        for game, said in phrases.start.items():
            found += [(text, Intent.START, game) for text in said]
        # A start phrase that is also a command ("on joue") asks for a new game: it is said back before it counts.
        starts = {normalize(text, phrases.language) for text, _, _ in found}
        for command in START_COMMANDS:
            found += [
                (text, Intent(command), None)
                for text in phrases.commands[command]
                if normalize(text, phrases.language) not in starts
            ]
    if name is not ContextName.START:
        for command, said in phrases.commands.items():
            found += [(text, Intent(command), None) for text in said]
    rows = frozenset(found)
    made = tuple(sorted((_made(row, phrases.language) for row in rows), key=_ORDER))
    return rows, made, Grammar(tuple(phrase for _, phrase in made))


def _made(row: Row, language: str) -> Ordered:
    written, intent, value = row
    phrase = Phrase(normalize(written, language), intent, value, spoken(written), written)
    return (intent, value or "", phrase.text, written), phrase
