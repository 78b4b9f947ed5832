"""The demo told in the terminal: one short line a step, as a newcomer watching it would read it."""

from __future__ import annotations

from voicemaster.play.narration import WIDTH, Narrator


def test_each_step_is_one_short_line_with_its_time() -> None:
    lines: list[str] = []
    narrator = Narrator(lines.append)
    narrator.publish(17.8, "question", {"level": 1, "amount": 50, "options": ["A"], "correct": "C"})
    narrator.publish(17.8, "say", {"speaker": "host", "text": "Wie geht das Sprichwort weiter? " * 10})
    narrator.publish(17.8, "listen", {"player": "Anna", "context": "answer"})
    narrator.publish(30.1, "player", {"player": "Anna", "speaker": "player", "text": "Antwort C"})
    narrator.publish(30.9, "barge_in", {"player": "Anna", "at": 12.3})
    narrator.publish(31.0, "early_decision", {"player": "Anna"})
    narrator.publish(31.0, "heard", {"player": "Anna", "intent": "answer", "value": "C", "text": "Antwort C"})
    narrator.publish(36.0, "heard", {"player": "Anna", "intent": "unknown", "value": None, "text": "hm"})
    narrator.publish(85.0, "result", {"player": "Anna", "correct": True, "level": 1})

    assert lines[0] == " 0:17  ── question 1, for 50 ──"
    assert lines[1].startswith(" 0:17  Quizmaster: Wie geht") and len(lines[1]) == WIDTH  # cut, not wrapped
    assert lines[2:] == [
        " 0:30  Anna says: “Antwort C”",
        " 0:30    Anna spoke over the quizmaster, who stopped (12.3 s into the line)",
        " 0:31    heard “Antwort C”: taken as answer C, at the first short pause",
        " 0:36    heard “hm”: not clear, asked again",
        " 1:25  Anna: right, level 1 reached",
    ]


def test_a_money_drop_is_told_by_its_cards_and_its_money() -> None:
    """The money drop's steps name a team, a card and the money left, not a player and a level."""
    lines: list[str] = []
    narrator = Narrator(lines.append)
    card = {"question": 2, "money": 750_000, "question_id": "x", "category": "Sport", "options": ["A", "B", "C"]}
    narrator.publish(61.0, "question", {**card, "correct": "B"})
    narrator.publish(75.0, "locked", {"team": "Anna", "placement": {"A": 0, "B": 25, "C": 5}})
    narrator.publish(90.0, "result", {"team": "Anna", "correct": True, "money_left": 625_000})

    assert lines == [
        " 1:01  ── card 2, Sport: 750,000 to place ──",
        " 1:15  Anna locks in 25 bundles on B, 5 bundles on C",
        " 1:30  Anna: 625,000 left",
    ]


def test_jokers_takebacks_and_the_end_are_told_in_the_games_words() -> None:
    """A newcomer reads the joker's name from the show, the money with its thousands marked, and the end of the game
    as names and sums: never the rules engine's names or a Python dictionary."""
    lines: list[str] = []
    narrator = Narrator(lines.append)
    narrator.publish(60.0, "heard", {"player": "Ben", "intent": "joker", "value": "fifty_fifty", "text": "50/50"})
    narrator.publish(61.0, "joker", {"player": "Ben", "joker": "fifty_fifty"})
    narrator.publish(70.0, "heard", {"player": "Ben", "intent": "switch_category", "value": None, "text": "wechseln"})
    narrator.publish(80.0, "locked", {"player": "Ben", "option": "B"})
    narrator.publish(82.0, "taken_back", {"player": "Ben", "option": "B"})
    narrator.publish(90.0, "question", {"level": 12, "amount": 64_000, "options": ["A"], "correct": "C"})
    narrator.publish(95.0, "walk_away", {"player": "Anna", "amount": 16_000})
    narrator.publish(99.0, "game_over", {"totals": {"Anna": 16_000, "Ben": 0}, "winners": ["Anna"]})

    assert lines == [
        " 1:00    heard “50/50”: taken as joker 50:50",
        " 1:01  Ben takes the 50:50 joker",
        " 1:10    heard “wechseln”: taken as switch category",
        " 1:20  Ben locks in B",
        " 1:22  Ben takes B back before it is revealed",
        " 1:30  ── question 12, for 64,000 ──",
        " 1:35  Anna leaves with 16,000",
        " 1:39  game over: Anna 16,000, Ben 0; Anna wins",
    ]
