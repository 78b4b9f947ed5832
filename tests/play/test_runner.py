"""The runner plays the lines leading up to listening as one sound the player may answer over (barge-in)."""

from __future__ import annotations

import io
import itertools
import json
from collections.abc import Generator
from typing import Any

import pytest

from voicemaster.config.voice import DEFAULT_VOICES
from voicemaster.dialogue.meaning import Context, ContextName
from voicemaster.dialogue.turns import Effect, Listen, Observation, Say, Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.play.ear import Answers, Listened
from voicemaster.play.narration import Narrator
from voicemaster.play.paced import Paced
from voicemaster.play.runner import Runner, SessionClock, Transcript, drive
from voicemaster.screen.board import Board, Step, follow
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.hearing.ahead import Speculation
from voicemaster.speech.voice.speakers import Speakers


def question_then_answer() -> Generator[Effect, Observation | None, None]:
    yield Say("question", {"text": "Was ist die Hauptstadt von Österreich?"}, leads_to_listening=True)
    for letter, text in zip("AB", ("Wien", "Graz"), strict=True):
        yield Say("option", {"letter": letter, "text": text}, leads_to_listening=True)
    yield Say("your_answer", {"player": "Anna"}, leads_to_listening=True)
    yield Listen(Context(ContextName.ANSWER, "de", ("Wien", "Graz")), "Anna", 8.0)
    yield Say("not_understood")


def test_the_question_its_options_and_the_prompt_are_one_sound_heard_over() -> None:
    sink, out = FileSink(), io.StringIO()
    speaking_when_listening: list[Playback | None] = []

    def hear(listen: Listen, said: Say | None, speaking: Playback | None) -> Observation:
        del listen, said
        speaking_when_listening.append(speaking)
        return Silence()

    runner = Runner(
        load_lines("de"), Speakers(DEFAULT_VOICES), sink, SessionClock(sink), Answers(hear), Transcript(out)
    )
    drive(question_then_answer(), runner.perform)
    runner.finish_speaking()

    # The four lines went to the speaker as one sound, and the microphone listened while it played.
    lead_up, afterwards = sink.played
    (speaking,) = speaking_when_listening
    assert speaking is not None and speaking.audio.seconds == lead_up.seconds
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    said = [event for event in events if event["event"] == "say"]
    assert [event["text"] for event in said[:4]] == [
        "Was ist die Hauptstadt von Österreich?",
        "A: Wien.",
        "B: Graz.",
        "Anna, deine Antwort?",
    ]
    # Each line is written down where it is heard within the one sound, which lasts as long as the four.
    assert all(later["start"] == earlier["end"] for earlier, later in itertools.pairwise(said[:4]))
    assert said[3]["end"] - said[0]["start"] == pytest.approx(lead_up.seconds)
    assert [event["event"] for event in events].index("listen") == 4
    assert afterwards.seconds > 0  # a line that leads to nothing is played on its own and waited for


class Stalls:
    """An ear whose devices stand still at the first listening, then hears the player out; what it was given."""

    def __init__(self, first: Listened) -> None:
        self.first = first
        self.speaking: list[Playback | None] = []

    def listen(self, listen: Listen, said: Say | None, speaking: Playback | None) -> Listened:
        del listen, said
        self.speaking.append(speaking)
        return self.first if len(self.speaking) == 1 else Listened(Silence())


def test_after_the_devices_stood_still_the_players_hear_where_the_game_was_and_are_listened_to_again() -> None:
    sink, out = FileSink(), io.StringIO()
    ear = Stalls(Listened(Silence(), stalled=True))
    runner = Runner(load_lines("de"), Speakers(DEFAULT_VOICES), sink, SessionClock(sink), ear, Transcript(out))
    drive(question_then_answer(), runner.perform)

    said = [json.loads(line)["line"] for line in out.getvalue().splitlines() if '"say"' in line]
    assert said == ["question", "option", "option", "your_answer", "resumed", *said[:4], "not_understood"]
    assert len(ear.speaking) == 2 and ear.speaking[1] is None  # listened again once the lines were played out


def test_a_barge_in_and_an_early_decision_are_written_down_as_the_ear_reports_them() -> None:
    sink, out = FileSink(), io.StringIO()
    ahead = Speculation(started=2, used=1, thrown_ms=310.0)
    ear = Stalls(Listened(Silence(), barged_in_at=1.25, early=True, speculation=ahead))
    runner = Runner(load_lines("de"), Speakers(DEFAULT_VOICES), sink, SessionClock(sink), ear, Transcript(out))
    drive(question_then_answer(), runner.perform)

    events = [json.loads(line) for line in out.getvalue().splitlines()]
    barge_in, early, read = (
        next(e for e in events if e["event"] == name) for name in ("barge_in", "early_decision", "read_ahead")
    )
    assert (barge_in["player"], barge_in["at"], early["player"]) == ("Anna", 1.25, "Anna")
    # Written down at the moment it cut the lines (played as one, from the question on), not when listening ended.
    lines_began = next(e["t"] for e in events if e["event"] == "say" and e["line"] == "question")
    assert barge_in["t"] == pytest.approx(lines_began + 1.25) and barge_in["t"] < early["t"]
    assert (read["started"], read["used"], read["thrown_ms"]) == (2, 1, 310.0)


def _said_while(dialogue: Generator[Effect, Observation | None, None], ear: Stalls) -> list[dict[str, Any]]:
    """The lines the runner said (transcript `say` events) while it ran `dialogue` with `ear`."""
    sink, out = FileSink(), io.StringIO()
    runner = Runner(load_lines("de"), Speakers(DEFAULT_VOICES), sink, SessionClock(sink), ear, Transcript(out))
    drive(dialogue, runner.perform)
    return [json.loads(line) for line in out.getvalue().splitlines() if '"say"' in line]


def test_a_phone_lost_while_listened_to_is_said_and_its_player_listened_to_again() -> None:
    ear = Stalls(Listened(Silence(), phone_lost=True))
    said = _said_while(question_then_answer(), ear)
    lost = next(line for line in said if line["line"] == "phone_lost")
    assert lost["text"].startswith("Anna,") and "Mikrofon" in lost["text"]
    assert [line["line"] for line in said][-1] == "not_understood"  # nothing was decided from the cut sound
    assert len(ear.speaking) == 2 and ear.speaking[1] is None  # listened to again, the lines played out


def test_a_phone_this_machine_fell_behind_is_asked_to_say_it_again_not_to_reopen_the_page() -> None:
    """The phone is still joined (only this machine was too slow to clean all of its sound): its player is asked to
    say it again into it, not told the phone is gone and the page to be opened again."""
    ear = Stalls(Listened(Silence(), phone_lost=True, phone_behind=True))
    said = _said_while(question_then_answer(), ear)
    lines = [line["line"] for line in said]
    assert "phone_lost" not in lines
    behind = next(line for line in said if line["line"] == "phone_behind")
    assert behind["text"].startswith("Anna,") and "noch einmal" in behind["text"] and "Seite" not in behind["text"]
    assert lines[-1] == "not_understood"  # nothing was decided from the cut sound
    assert len(ear.speaking) == 2  # listened to again


def test_a_phone_lost_before_its_player_was_named_is_said_without_a_name() -> None:
    """A new player's phone that leaves while the name is asked has no name to call: no line starts with a comma."""

    def asking_a_name() -> Generator[Effect, Observation | None, None]:
        yield Say("ask_name", {"n": 1}, leads_to_listening=True)
        yield Listen(Context(ContextName.NAME, "de"), None, 8.0, seat=1)
        yield Say("not_understood")

    said = _said_while(asking_a_name(), Stalls(Listened(Silence(), phone_lost=True)))
    lost = next(line for line in said if line["line"] == "phone_lost_unnamed")
    assert lost["text"].startswith("Ein Telefon") and "Mikrofon" in lost["text"]


def test_a_phone_lost_while_everyone_is_asked_never_says_the_room_now_listens() -> None:
    """ "Another round?" is heard through the first named player's phone; when it leaves, the next listening takes the
    next player's phone or the room (docs/decisions/046): the line says what is true either way, and asks again."""

    def another_round() -> Generator[Effect, Observation | None, None]:
        yield Say("another_round", {}, leads_to_listening=True, form="many")
        yield Listen(Context(ContextName.CONFIRM, "de"), None, 8.0, to_all=True)
        yield Say("not_understood")

    said = _said_while(another_round(), Stalls(Listened(Silence(), phone_lost=True)))
    lost = next(line for line in said if line["line"] == "phone_lost_to_all")
    assert "Mikrofon" not in lost["text"] and "noch einmal" in lost["text"]


def test_the_log_tells_a_question_put_to_all_from_one_put_to_a_player() -> None:
    """ "Another round?" is heard through the first named player's phone, though no player has the turn: whoever
    reads the log (`bench room`'s player, which counts what each phone heard) can tell it from a player's turn."""
    sink, out = FileSink(), io.StringIO()
    runner = Runner(
        load_lines("de"), Speakers(DEFAULT_VOICES), sink, SessionClock(sink), Stalls(Listened(Silence())),
        Transcript(out),
    )  # fmt: skip

    def another_round_then_a_players_turn() -> Generator[Effect, Observation | None, None]:
        yield Listen(Context(ContextName.CONFIRM, "de"), None, 8.0, to_all=True)
        yield Listen(Context(ContextName.CONFIRM, "de"), "Anna", 8.0)

    drive(another_round_then_a_players_turn(), runner.perform)
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    listens = [(event["player"], event.get("to_all", False)) for event in events if event["event"] == "listen"]
    assert listens == [(None, True), ("Anna", False)]


def test_lines_the_player_cut_off_before_they_began_are_taken_back_for_every_watcher() -> None:
    """The lines up to listening are written down as they are started, ahead of the sound; a player who answers over
    the question stops them, and the lines after that moment were never heard: not on the screen, not in the
    terminal's narration when the demo plays aloud (where the quizmaster seemed to talk over its own reply)."""
    sink, out = FileSink(), io.StringIO()
    ear = Stalls(Listened(Silence(), barged_in_at=1.25))
    runner = Runner(load_lines("de"), Speakers(DEFAULT_VOICES), sink, SessionClock(sink), ear, Transcript(out))
    drive(question_then_answer(), runner.perform)

    events = [json.loads(line) for line in out.getvalue().splitlines()]
    cut = next(e["t"] for e in events if e["event"] == "barge_in")
    lines = [e for e in events if e["event"] == "say" and e["line"] in ("question", "option", "your_answer")][:4]
    unsaid = {e["start"] for e in events if e["event"] == "unsaid"}
    assert unsaid == {line["start"] for line in lines if line["start"] >= cut} and unsaid  # all those after the cut
    assert lines[0]["start"] not in unsaid  # the question, begun before the player spoke, was heard (in part)

    told: list[str] = []
    paced = Paced(Narrator(told.append))
    board = Board(language="de")
    for event in events:
        paced.publish(event["t"], event["event"], event)
        board = follow(board, Step(event["t"], event["event"], event), {})
    paced.release(float("inf"))
    shown = [text for _, text in board.said]
    for line in lines:
        heard = line["start"] not in unsaid
        assert any(line["text"] in said for said in told) == heard
        assert (line["text"] in shown) == heard
