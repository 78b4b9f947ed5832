"""A yes to "final answer?" is taken at once, and the quizmaster listens on through the lock line and the suspense
for it to be taken back: "nein, warte" heard there undoes the lock ("Gut, dann nicht eingeloggt."), nothing is
revealed or paid, and the player answers again."""

from __future__ import annotations

import pytest

from tests.host.test_millionaire import Table, heard, table
from voicemaster.dialogue.meaning import ContextName, Intent
from voicemaster.dialogue.turns import Effect, Listen, Observation, Say, Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.questions.selection import Bank


class TakesBackOnce:
    """Answers A, says yes, then "nein, warte" over the lock line; then the right answer, yes, and lets it stand."""

    def __init__(self) -> None:
        self.taken_back = False
        self.listens: list[tuple[str, Listen]] = []

    def __call__(self, table: Table, listen: Listen, last_key: str) -> Observation:
        self.listens.append((last_key, listen))
        if listen.context.name is ContextName.ANSWER:
            return heard(Intent.ANSWER, "A" if not self.taken_back else table.correct())
        if last_key == "final_answer":
            return heard(Intent.YES)
        if last_key in ("locked", "reveal_suspense") and not self.taken_back:
            self.taken_back = True
            return heard(Intent.NO)
        if last_key in ("locked", "reveal_suspense"):
            return Silence()
        return heard(Intent.YES)


class Held(Table):
    """A table that also notes, of every line, whether it is held for the listening that follows."""

    held: list[tuple[str, bool]]

    def perform(self, effect: Effect) -> Observation | None:
        if isinstance(effect, Say):
            self.__dict__.setdefault("held", []).append((effect.key, effect.leads_to_listening))
        return super().perform(effect)


def first_question(bank: Bank, script: TakesBackOnce) -> list[str]:
    played = table(bank, script)
    held = Held(played.quizmaster, script)
    quizmaster = held.quizmaster
    dialogue = quizmaster.run()
    effect = next(dialogue)
    while not any(key == "right" for key, _ in held.said):
        effect = dialogue.send(held.perform(effect))
    keys = [key for key, _ in held.said]
    # The lock and the suspense are said while the player is heard, and nothing follows from the lock before.
    assert ("locked", True) in held.held and ("reveal_suspense", True) in held.held
    return keys


def test_a_take_back_heard_over_the_lock_undoes_it_and_the_player_answers_again(bank: Bank) -> None:
    script = TakesBackOnce()
    keys = first_question(bank, script)
    back = keys.index("taken_back")
    assert keys[back - 2 : back + 2] == ["locked", "reveal_suspense", "taken_back", "your_answer_again"]
    assert "correct_answer" not in keys[:back] and "right" not in keys[:back] and "wrong" not in keys[:back]
    again = keys[back:]
    assert keys.count("reveal_suspense") == 2 and again.index("reveal_suspense") < again.index("correct_answer")
    assert load_lines("de").text(Say("taken_back")) == "Gut, dann nicht eingeloggt."
    # The yes to "final answer?" may end listening at once; the take-back listening is short and quiet.
    finals = [listen for key, listen in script.listens if key == "final_answer"]
    windows = [listen for key, listen in script.listens if key in ("locked", "reveal_suspense")]
    assert finals and all(listen.context.yes_at_once for listen in finals)
    assert len(windows) == 2 and all(not listen.context.yes_at_once for listen in windows)
    assert all(listen.timeout_seconds < 1.0 for listen in windows)


@pytest.mark.parametrize("language", ["de", "en", "fr"])
def test_every_language_says_the_take_back(language: str) -> None:
    assert load_lines(language).text(Say("taken_back"))
