"""The decoder asked in turns: a search (`search.searching`) yields what it wants decoded, its first prefixes and then
each step's groups of prefixes, and receives the decoder's answer. One driver runs a search alone (`alone`: the game's
one language, each request one decoder run: its starts, the free reading's and the prompt's, in one, decision 034);
another runs several searches of one utterance in lockstep (`together`: the waiting reader's languages, whose starts go
in one decoder run and whose steps go in one batch, decision 025).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from voicemaster.speech.hearing.whisper.model import Array, AudioKeys, First, Prefixes, Tokens

Done = TypeVar("Done")


class Decoder(Protocol):
    """What the search asks of Whisper's decoder (`model.Whisper`): first prefixes run whole, several in one run,
    then batches of prefixes one token longer at a time."""

    def start(self, audio: AudioKeys, tokens: list[int], at: Sequence[int] = (-1,)) -> tuple[Prefixes, Array]: ...

    def starts(self, audio: AudioKeys, firsts: Sequence[First]) -> list[tuple[Prefixes, Array]]: ...

    def step_groups(
        self, audio: AudioKeys, groups: Sequence[tuple[Prefixes, Tokens]]
    ) -> list[tuple[Prefixes, Array]]: ...


@dataclass(frozen=True)
class Starts:
    """What a search asks first: the decoder over whole first prefixes (`Whisper.starts`), answered in order."""

    firsts: tuple[First, ...]


@dataclass(frozen=True)
class Steps:
    """What a search asks at each step: groups of prefixes one token longer (`Whisper.step_groups`), answered in
    order."""

    groups: tuple[tuple[Prefixes, Tokens], ...]


Answer = list[tuple[Prefixes, Array]]
Asking = Generator[Starts | Steps, Answer, Done]
"""Something that asks the decoder in turns (a search, a way of hearing around one) and ends with `Done`."""


def alone(model: Decoder, audio: AudioKeys, asking: Asking[Done]) -> Done:
    """What `asking` ends with, each request asked of `model` as it is asked: its starts in one decoder run, each
    step as one batch. A run reads all the decoder's weights whatever its rows, so the free reading's start and the
    prompt's cost one read, not two; each row attends to its own prefix only, so each gets the figures it would alone,
    to float tolerance (the A/B on every corpus: decision 034)."""
    answer: Answer | None = None
    while True:
        try:
            asked = _next(asking, answer)
        except StopIteration as stop:
            done: Done = stop.value
            return done
        if isinstance(asked, Starts):
            answer = model.starts(audio, asked.firsts)
        else:
            answer = model.step_groups(audio, asked.groups)


def together(model: Decoder, audio: AudioKeys, askings: Sequence[Asking[Done]]) -> list[Done]:
    """What each of `askings` ends with, all on one utterance, asked in lockstep: at each turn every start asked is
    run in one decoder run, and every step in one batch. A decoder run reads all its weights whatever its rows, so
    that share is paid once a turn instead of once per search; each row's own arithmetic stays (what it saves: decision
    025). Each gets the figures it would alone, to float tolerance: a row attends to its own prefix only."""
    finished: dict[int, Done] = {}
    asked: dict[int, Starts | Steps] = {}

    def answer(index: int, answered: Answer | None) -> None:
        try:
            asked[index] = _next(askings[index], answered)
        except StopIteration as stop:
            finished[index] = stop.value

    for index in range(len(askings)):
        answer(index, None)
    while asked:
        turn = dict(asked)
        asked.clear()
        answers: dict[int, Answer] = {}
        starting = {index: request for index, request in turn.items() if isinstance(request, Starts)}
        if starting:
            made = iter(model.starts(audio, [first for request in starting.values() for first in request.firsts]))
            answers |= {index: [next(made) for _ in request.firsts] for index, request in starting.items()}
        stepping = {index: request for index, request in turn.items() if isinstance(request, Steps)}
        if stepping:
            stepped = iter(
                model.step_groups(audio, [group for request in stepping.values() for group in request.groups])
            )
            answers |= {index: [next(stepped) for _ in request.groups] for index, request in stepping.items()}
        for index, answered in answers.items():
            answer(index, answered)
    return [finished[index] for index in range(len(askings))]


def _next(asking: Asking[Done], answer: Answer | None) -> Starts | Steps:
    """What `asking` asks next, given the answer to what it asked before (None: it has asked nothing yet)."""
    return next(asking) if answer is None else asking.send(answer)
