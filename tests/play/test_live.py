"""`voicemaster play` before and around the game (issue 17): the interrupted game offered and never pushed aside on
a guess, the config's settings used in a new game, and the store's faults said aloud. A real store in tmp_path, the
real runner speaking into a session file, scripted replies."""

from __future__ import annotations

import io
import json
import shutil
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from voicemaster.cli.history import listed
from voicemaster.config.settings import Settings, default_paths, load_settings
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Observation, Record, Say, Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.moneydrop.host import MoneyDropHost
from voicemaster.host.saved import DropSession, Session
from voicemaster.play.ear import Answers
from voicemaster.play.live import _resumed_or_new, _run
from voicemaster.play.runner import Runner, SessionClock, Transcript, drive
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, new_game, variant
from voicemaster.rules import moneydrop as md
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import MicrophoneLost, MicrophoneUnavailable, Playback
from voicemaster.speech.voice.speakers import Speakers
from voicemaster.store import Store, StoreUnwritable


@pytest.fixture
def config() -> Settings:
    return load_settings(default_paths()[:1])


class Table:
    """The runner as `play` makes it, the players' replies scripted in order; what was said, as text."""

    def __init__(
        self,
        store: Store,
        config: Settings,
        replies: list[Observation],
        answer: Callable[[Listen, Say | None, Playback | None], Observation] | None = None,
    ) -> None:
        self.replies: Iterator[Observation] = iter(replies)
        self.out = io.StringIO()
        sink = FileSink()
        self.runner = Runner(
            load_lines("de"),
            Speakers(config.speech),
            sink,
            SessionClock(sink),
            Answers(answer or self.hear),
            Transcript(self.out),
            store=store,
            render_ahead=False,
        )

    def hear(self, _listen: Listen, _said: Say | None, _speaking: object) -> Observation:
        return next(self.replies)

    @property
    def said(self) -> list[str]:
        lines = [json.loads(line) for line in self.out.getvalue().splitlines()]
        return [line["text"] for line in lines if line["event"] == "say"]


def yes() -> Heard:
    return Heard(Intent.YES, None, "ja", 0.9)


def no() -> Heard:
    return Heard(Intent.NO, None, "nein", 0.9)


def unclear() -> Heard:
    return Heard(Intent.UNKNOWN, None, "hm", 0.2)


def interrupted_game(store: Store, game_id: str = "old") -> Session:
    session = Session(new_game(GameSettings(variant("classic"), ("Anna",), rounds=1, seed=4)))
    store.save_game(game_id, session.to_json())
    return session


OFFER = load_lines("de").render("resume_offer", {})


def test_unclear_replies_and_silence_ask_again_then_the_game_is_kept_for_later(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        interrupted_game(store)
        table = Table(store, config, [unclear(), Silence(), unclear()])
        host = _resumed_or_new(config, store, table.runner, ("Ben",), 1, False, "de", bank)
        assert host is None  # no new game on a guess
        assert table.said.count(OFFER) == 3
        assert table.said[-1].startswith("Ich habe keine klare Antwort gehört. Das unterbrochene Spiel bleibt")
        assert store.unfinished_game() is not None and store.unfinished_game()[0] == "old"  # type: ignore[index]


def test_a_reply_understood_at_the_second_offer_continues_the_game(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        session = interrupted_game(store)
        table = Table(store, config, [Silence(), yes()])
        host = _resumed_or_new(config, store, table.runner, ("Ben",), 1, False, "de", bank)
        assert isinstance(host, Quizmaster) and host.game == session.game and table.runner.game_id == "old"


def test_a_clear_no_abandons_the_old_game_which_history_lists_and_play_never_offers_again(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        interrupted_game(store)
        table = Table(store, config, [no()])
        host = _resumed_or_new(config, store, table.runner, ("Ben",), 1, False, "de", bank)
        assert isinstance(host, Quizmaster) and host.game.settings.players == ("Ben",)
        store.save_game(table.runner.game_id, host.session.to_json())
        assert store.unfinished_game() == (table.runner.game_id, host.session.to_json())
        games = listed(store, 5)
    assert [(game.id, game.finished, game.abandoned) for game in games] == [
        (table.runner.game_id, False, False),
        ("old", False, True),
    ]
    assert "abandoned" in games[1].line() and "resumes it" in games[0].line()


def test_confirm_from_level_in_the_config_holds_for_a_new_game(tmp_path: Path, bank: Bank, config: Settings) -> None:
    quick = replace(config, game=replace(config.game, variant="classic", rounds=1, confirm_from_level=3))
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        host = _resumed_or_new(quick, store, Table(store, quick, []).runner, ("Anna",), 11, False, "de", bank)
    assert isinstance(host, Quizmaster)
    said: list[str] = []

    class Stop(Exception):
        pass

    def answers_right(effect: object) -> Observation | None:
        match effect:
            case Say(key):
                said.append(key)
            case Listen(context) if context.name is ContextName.ANSWER:
                current = host.game.round
                assert current is not None and current.question is not None
                if current.level == 4:
                    raise Stop
                return Heard(Intent.ANSWER, current.question.correct.value, "", 0.9)
            case Listen():
                return yes()
        return None

    with pytest.raises(Stop):
        drive(host.run(), answers_right)
    assert said.count("right") == 3 and said.count("final_answer") == 1  # asked on level 3 only


def test_a_store_file_deleted_mid_game_is_said_and_the_game_saved_again(tmp_path: Path, config: Settings) -> None:
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [])
        table.runner.start_game("g")
        table.runner.perform(Record("state", {}, state='{"step": 1}'))
        for leftover in tmp_path.glob("vm.db*"):
            leftover.unlink()
        table.runner.perform(Record("state", {}, state='{"step": 2}'))
        assert table.said == [
            "Die Spieldatei war verschwunden oder beschädigt. Ich habe das Spiel neu gespeichert; es geht weiter."
        ]
    with Store(tmp_path / "vm.db") as store:
        assert store.unfinished_game() == ("g", '{"step": 2}')


def test_a_store_that_cannot_be_written_mid_game_is_said_and_the_game_stops(tmp_path: Path, config: Settings) -> None:
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [])
        table.runner.start_game("g")
        table.runner.perform(Record("state", {}, state='{"step": 1}'))
        pages = store._db.execute("PRAGMA page_count").fetchone()[0]
        store._db.execute(f"PRAGMA max_page_count = {pages}")  # full, as SQLite sees it
        with pytest.raises(StoreUnwritable) as raised:
            table.runner.perform(Record("state", {}, state=json.dumps({"step": 2, "filler": "x" * 100_000})))
        assert raised.value.kept
        assert table.said == [
            "Ich kann das Spiel nicht mehr speichern, deshalb höre ich hier auf. Alles, was bis hierher gespeichert "
            "ist, bleibt erhalten."
        ]


def test_a_data_folder_replaced_by_a_file_mid_game_is_said_lost_never_kept(tmp_path: Path, config: Settings) -> None:
    data = tmp_path / "data"
    with Store(data / "vm.db", exclusive=True) as store:
        table = Table(store, config, [])
        table.runner.start_game("g")
        table.runner.perform(Record("state", {}, state='{"step": 1}'))
        shutil.rmtree(data)  # as `rm -r` and a file written where the folder was
        data.write_text("a file where the data folder was")
        with pytest.raises(StoreUnwritable) as raised:
            table.runner.perform(Record("state", {}, state='{"step": 2}'))
        assert not raised.value.kept
        assert table.said == [
            "Ich kann das Spiel nicht mehr speichern, und seine Datei ist verschwunden. Deshalb höre ich hier auf; "
            "dieses Spiel kann nicht fortgesetzt werden."
        ]


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (MicrophoneLost("The microphone stopped delivering sound"), "Ich höre euch nicht mehr: Das Mikrofon ist weg."),
        (MicrophoneUnavailable("No usable microphone"), "Ich finde kein Mikrofon und kann euch nicht hören."),
    ],
    ids=["lost-mid-game", "none-to-open"],
)
def test_a_microphone_gone_is_said_aloud_and_the_game_kept(
    tmp_path: Path, bank: Bank, config: Settings, failure: Exception, said: str
) -> None:
    with Store(tmp_path / "vm.db", exclusive=True) as store:

        def unplugged(_listen: Listen, _said: Say | None, _speaking: object) -> Observation:
            raise failure

        table = Table(store, config, [], unplugged)
        session = Session(new_game(GameSettings(variant("classic"), ("Anna",), rounds=1, seed=4)))
        table.runner.start_game("g")
        with pytest.raises(type(failure)):
            _run(Quizmaster(session, bank, "de"), store, table.runner)
        assert table.said[-1].startswith(said) and "Das Spiel ist gespeichert" in table.said[-1]
        kept = store.unfinished_game()
    assert kept is not None and kept[0] == "g"  # the round started and its first question were stored
    assert Session.from_json(kept[1]).asked != ()


def test_an_interrupted_game_that_cannot_be_read_is_set_aside_not_offered(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    notices: list[str] = []
    with Store(tmp_path / "vm.db", exclusive=True, notify=notices.append) as store:
        store.save_game("broken", '{"game": "cut off by a full dis')
        table = Table(store, config, [])
        host = _resumed_or_new(config, store, table.runner, ("Ben",), 1, False, "de", bank)
        assert isinstance(host, Quizmaster) and host.game.settings.players == ("Ben",)
        assert OFFER not in table.said and "broken" not in [game.id for game in store.recent_games(5)]
    assert len(notices) == 1 and "the stored game broken cannot be read" in notices[0]
    (aside,) = tmp_path.glob("vm.damaged-*.db")
    with Store(aside) as kept:
        assert [(game.id, game.state) for game in kept.recent_games(5)] == [
            ("broken", '{"game": "cut off by a full dis')
        ]


# Issue 25: what a kill leaves behind is what a resumed game needs.


class Killed(BaseException):
    """A SIGKILL at this point: nothing after it runs, no `finally` that writes to the store either."""


def _killed_at(table: Table, action: str, found: dict[str, int] | None = None) -> None:
    """The process dies right after the step `action` is stored; `found` gets what a new process would then find
    heard by Anna (a `finally` of this one would still run after the exception that stands for the kill)."""
    perform = table.runner.perform

    def perform_then_die(effect: object) -> Observation | None:
        result = perform(effect)  # type: ignore[arg-type]
        if isinstance(effect, Record) and effect.state is not None and effect.data.get("action") == action:
            if found is not None and table.runner.store is not None:
                with Store(table.runner.store.path) as other:
                    found.update(other.heard("Anna"))
            raise Killed
        return result

    table.runner.perform = perform_then_die  # type: ignore[method-assign]


def test_a_question_asked_is_stored_as_heard_with_the_step_that_asked_it(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [])
        table.runner.start_game("g")
        heard: dict[str, int] = {}
        _killed_at(table, "AskQuestion", heard)
        with pytest.raises(Killed):
            _run(Quizmaster(Session(new_game(GameSettings(variant("classic"), ("Anna",), seed=4))), bank, "de"),
                 store, table.runner)  # fmt: skip
    with Store(tmp_path / "vm.db") as store:  # the next start, after the kill
        found = store.unfinished_game()
        assert found is not None
        asked = Session.from_json(found[1]).asked
        assert len(asked) == 1 and heard == {asked[0]: 1} and store.heard("Anna") == {asked[0]: 1}


def test_a_money_drop_card_chosen_is_stored_as_heard_by_every_team_with_the_step_that_chose_it(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    teams = ("Anna", "Ben")
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [Heard(Intent.ANSWER, "B", "B", 0.9)])
        table.runner.start_game("g")
        heard: dict[str, int] = {}
        _killed_at(table, "ChooseCategory", heard)
        host = MoneyDropHost(DropSession(md.MoneyDropGame(md.MoneyDropSettings(teams))), bank, "de", 4)
        with pytest.raises(Killed):
            _run(host, store, table.runner)
    with Store(tmp_path / "vm.db") as store:  # the next start, after the kill
        found = store.unfinished_game()
        assert found is not None
        session = DropSession.from_json(found[1])
        offered, chosen = session.asked, session.read
        assert len(offered) == 2 and chosen == (offered[1],)  # the card not chosen was not read: not heard
        assert heard == {offered[1]: 1} and store.heard("Ben") == {offered[1]: 1}
        # The next money drop of these teams offers that card no more while the others are fresh.
        resumed = _resumed_or_new(config, store, Table(store, config, [no()]).runner, teams, 4, True, "de", bank)
        assert isinstance(resumed, MoneyDropHost) and resumed.heard.keys() == {offered[1]}


def test_a_game_killed_just_after_a_lock_reads_again_only_the_options_a_fifty_fifty_left(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    host = Quizmaster(Session(new_game(GameSettings(variant("classic"), ("Anna",), seed=4))), bank, "de")

    def fifty_fifty_then_lock(listen: Listen, _said: Say | None, _speaking: object) -> Observation:
        current = host.game.round
        seat = current.seat("Anna") if current else None
        if listen.context.name is ContextName.ANSWER and seat is not None and not seat.removed:
            return Heard(Intent.JOKER, "fifty_fifty", "fünfzig fünfzig", 0.9)
        if listen.context.name is ContextName.ANSWER and seat is not None:
            return Heard(Intent.ANSWER, seat.available[0].value, seat.available[0].value, 0.9)
        return yes()

    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [], fifty_fifty_then_lock)
        table.runner.start_game("g")
        _killed_at(table, "ConfirmAnswer")
        with pytest.raises(Killed):
            _run(host, store, table.runner)
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [yes()])
        resumed = _resumed_or_new(config, store, table.runner, ("Anna",), 1, False, "de", bank)
        assert isinstance(resumed, Quizmaster)
        left = resumed.game.round.seat("Anna").available if resumed.game.round else ()  # type: ignore[union-attr]
        assert len(left) == 2
        effects = resumed.run()
        read = [next(effects) for _ in range(4)]
    letters = [said.params["letter"] for said in read if isinstance(said, Say) and said.key == "option"]
    first_two = [said.key for said in read[:2] if isinstance(said, Say)]
    assert first_two == ["resumed", "question"] and letters == [letter.value for letter in left]


def test_a_game_resumed_after_its_question_left_the_bank_finishes_that_question(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    host = Quizmaster(Session(new_game(GameSettings(variant("classic"), ("Anna",), seed=4))), bank, "de")
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [])
        table.runner.start_game("g")
        _killed_at(table, "AskQuestion")
        with pytest.raises(Killed):
            _run(host, store, table.runner)
    asked = host.session.asked[-1]
    question = bank.entry(asked)
    assert question is not None
    changed = Bank(tuple(entry for entry in bank.entries if entry.id != asked))  # the pack changed meanwhile
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [yes()])
        resumed = _resumed_or_new(config, store, table.runner, ("Anna",), 1, False, "de", changed)
        assert isinstance(resumed, Quizmaster)
        effects = resumed.run()
        read = [next(effects) for _ in range(2)]
    assert isinstance(read[1], Say) and read[1].params["text"] == question.question


def test_an_old_game_on_a_question_gone_from_the_bank_says_so_and_a_new_game_begins(
    tmp_path: Path, bank: Bank, config: Settings
) -> None:
    host = Quizmaster(Session(new_game(GameSettings(variant("classic"), ("Anna",), seed=4))), bank, "de")
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [])
        table.runner.start_game("old")
        _killed_at(table, "AskQuestion")
        with pytest.raises(Killed):
            _run(host, store, table.runner)
        found = store.unfinished_game()
        assert found is not None
        stored = json.loads(found[1])
        del stored["texts"]  # as an earlier version stored it: the question's words not kept
        store.save_game("old", json.dumps(stored))
    changed = Bank(tuple(entry for entry in bank.entries if entry.id != host.session.asked[-1]))
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [])
        new = _resumed_or_new(config, store, table.runner, ("Anna",), 1, False, "de", changed)
        assert isinstance(new, Quizmaster) and new.game.round is None  # a new game, nothing pushed aside on a guess
        assert table.said == [load_lines("de").render("resume_question_gone", {})]
        assert [(game.id, game.abandoned) for game in store.recent_games(5)] == [("old", True)]


def test_after_a_stall_the_lines_that_led_to_listening_are_said_again(tmp_path: Path, config: Settings) -> None:
    """What `play` does when its devices stood still (issue 25): where the game was, said again."""
    with Store(tmp_path / "vm.db", exclusive=True) as store:
        table = Table(store, config, [Silence()])
        lines = load_lines("de")
        question = Say("question", {"text": "Wie heißt die Hauptstadt von Frankreich?"}, leads_to_listening=True)
        prompt = Say("your_answer", {"player": "Anna"}, leads_to_listening=True)
        for effect in (question, prompt, Listen(Context(ContextName.ANSWER, "de", ("A", "B", "C", "D")), "Anna", 5.0)):
            table.runner.perform(effect)
        table.runner.recall()
    assert table.said == [lines.text(question), lines.text(prompt)] * 2
