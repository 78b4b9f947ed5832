"""What players say, as written: the utterance files (`corpora/utterances/*.toml`, and `heldout/` that only `bench asr`
reads as text), each utterance checked against what may be heard in its context. The speech corpus (`corpus.py`)
and the voiced corpora render them.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from voicemaster.dialogue.meaning import ContextName

INTENTS = (
    "answer", "joker", "yes", "no", "walk_away", "repeat", "help", "pause", "quit",
    "slower", "faster", "louder", "quieter", "placement", "name", "unknown",
)  # fmt: skip
JOKERS = ("fifty_fifty", "audience", "phone", "extra")
COMMANDS = ("repeat", "help", "pause", "quit", "slower", "faster", "louder", "quieter")
ALLOWED = {
    ContextName.ANSWER: {"answer", "joker", "walk_away", *COMMANDS, "unknown"},
    ContextName.CONFIRM: {"yes", "no", *COMMANDS, "unknown"},
    ContextName.NUMBER: {"placement", *COMMANDS, "unknown"},
    ContextName.NAME: {"name", *COMMANDS, "unknown"},
}
"""What may be heard in each context: anything else is the matcher's business, not the corpus's."""


class UtteranceError(ValueError):
    """An utterance file is malformed; the message names the file, the utterance and what is wrong."""


@dataclass(frozen=True)
class Utterance:
    id: str
    """Language and position in its file, e.g. de-017."""
    language: str
    context: ContextName
    options: tuple[str, ...]
    names: tuple[str, ...]
    text: str
    intent: str
    value: str | None
    hard: bool


UtteranceSet = Literal["utterances", "heldout"]
"""The corpus's utterances, or the held-out set that only `voicemaster bench asr` reads, as written text."""


def utterances(language: str, which: UtteranceSet = "utterances") -> tuple[Utterance, ...]:
    """The utterances of one language, checked: a mistake in the data would otherwise show up as a recognizer error."""
    name = f"{which}/{language}.toml"
    source = resources.files("voicemaster_lab.corpora") / which / f"{language}.toml"
    try:
        data = tomllib.loads(source.read_text("utf-8"))
    except (FileNotFoundError, tomllib.TOMLDecodeError) as error:
        raise UtteranceError(f"{name}: {error}") from error
    found: list[Utterance] = []
    for group in data.get("group", []):
        context = ContextName(group["context"])
        options, names = tuple(group.get("options", ())), tuple(group.get("names", ()))
        for entry in group["utterances"]:
            utterance = Utterance(
                id=f"{language}-{'h' if which == 'heldout' else ''}{len(found) + 1:03d}",
                language=language,
                context=context,
                options=options,
                names=names,
                text=entry["text"],
                intent=entry["intent"],
                value=entry.get("value"),
                hard=entry.get("hard", False),
            )
            if problem := _problem(utterance):
                raise UtteranceError(f"{name}, {utterance.text!r}: {problem}")
            found.append(utterance)
    return tuple(found)


def _problem(u: Utterance) -> str | None:
    if u.intent not in ALLOWED[u.context]:
        return f"intent {u.intent!r} cannot be heard in context {u.context}"
    if u.context in (ContextName.ANSWER, ContextName.NUMBER) and not 2 <= len(u.options) <= 4:
        return "an answer or number context needs 2-4 options"
    if u.context is ContextName.NAME and not u.names:
        return "a name context needs the players' names"
    if u.intent in ("answer", "joker", "placement", "name") and u.value is None:
        return f"intent {u.intent!r} needs a value"
    if u.intent not in ("answer", "joker", "placement", "name") and u.value is not None:
        return f"intent {u.intent!r} takes no value"
    if u.intent == "answer" and u.value not in tuple("ABCD"[: len(u.options)]):
        return f"answer {u.value!r} is not one of the options' letters"
    if u.intent == "joker" and u.value not in JOKERS:
        return f"joker {u.value!r} is not one of {', '.join(JOKERS)}"
    if u.intent == "name" and u.value not in u.names:
        return f"name {u.value!r} is not among the players' names"
    if u.intent == "placement" and u.value is not None:
        return placement_problem(u.value, len(u.options))
    return None


_ITEM = re.compile(r"([A-D])=([1-9][0-9]*€?|rest|all)")


def placement_problem(value: str, options: int = 4) -> str | None:
    """What is wrong with a placement value in the normal form (see utterances/de.toml), or None."""
    items = [_ITEM.fullmatch(item) for item in value.split(",")]
    if not all(items):
        return f"placement {value!r} is not LETTER=N|N€|rest|all items joined by commas"
    letters = [m[1] for m in items if m]
    amounts = [m[2] for m in items if m]
    if letters != sorted(set(letters)):
        return f"placement {value!r} must name each letter once, in letter order"
    if any("ABCD".index(letter) >= options for letter in letters):
        return f"placement {value!r} names a letter beyond the {options} options"
    if "all" in amounts and len(amounts) > 1:
        return f"placement {value!r}: 'all' stands alone"
    if amounts.count("rest") > 1:
        return f"placement {value!r}: only one 'rest'"
    return None
