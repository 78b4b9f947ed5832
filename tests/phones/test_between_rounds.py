"""Between rounds at a party (issue 47, docs/decisions/046): "Wollt ihr noch eine Runde spielen?" and "Spielt noch
jemand neu mit?" are put to all the players, and heard through the first named player's phone that is joined, not
the room's microphone, where the others' talk would start a round nobody wanted or seat a stranger."""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from tests.phones.pages import in_a_pause, joined_page, phone_page, said
from tests.phones.test_new_player import WORDS, Asked
from tests.rules.helpers import WRONG, ask, everyone_answers, play
from voicemaster.config.settings import default_paths, load_settings
from voicemaster.dialogue.meaning import Context, ContextName, Heard, Intent
from voicemaster.dialogue.turns import Listen, Observation, Say, Silence
from voicemaster.host.lines import load as load_lines
from voicemaster.host.millionaire.quizmaster import Quizmaster
from voicemaster.host.saved import Session
from voicemaster.phones.server import Phones
from voicemaster.play.ear import Answers
from voicemaster.play.live import _run, open_ear
from voicemaster.play.runner import Runner, SessionClock, Transcript
from voicemaster.questions.selection import Bank
from voicemaster.rules import GameSettings, StartRound, new_game, variant
from voicemaster.speech.audio import Audio
from voicemaster.speech.devices.files import FileSink
from voicemaster.speech.devices.interfaces import Playback
from voicemaster.speech.devices.phone import PhoneMicrophone
from voicemaster.speech.hearing.whisper.recognizer import WhisperRecognizer
from voicemaster.speech.voice.speakers import Speakers
from voicemaster.store import Store

pytestmark = pytest.mark.browser


@pytest.mark.slow  # real time: two questions between rounds, each waiting for the phone's "Ja"
def test_another_round_is_heard_through_the_first_named_players_phone_not_the_rooms_microphone(
    tmp_path: Path, bank: Bank, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    """Anna and Ben play; only Ben's phone is joined (Chromium, a person's real "Ja" as its microphone). Round one
    over, "another round?" and "anyone new?" are heard through Ben's phone: nobody speaks into the room's
    microphone, and the game goes on to round two only because the phone was heard (the room's silence is a no). The
    newcomer's name, with no newcomer's phone, is the room's: silence, nobody is seated."""
    recording = said(tmp_path, Audio.read(WORDS["Ja"].path()), silence=3.5, evenly=True)
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)
    game, _ = play(new_game(GameSettings(variant("classic"), ("Anna", "Ben"), seed=3)), StartRound(), ask())
    game, _ = everyone_answers(game, {"Anna": WRONG, "Ben": WRONG})  # both out: round one is over
    host = Quizmaster(Session(game), bank, "de")
    with Phones(tmp_path, port=0) as phones, Store(tmp_path / "vm.db", exclusive=True) as store:
        ear = open_ear(config, whisper("de"), phones=phones)
        phones.set_players(("Anna", "Ben"), newcomers=True)
        heard_through: list[tuple[str, PhoneMicrophone | None]] = []  # each question between rounds, and its phone

        def hear(listen: Listen, said: Say | None, speaking: Playback | None) -> Observation:
            phone = ear.phone_for(listen)
            if listen.context.name is ContextName.ANSWER:
                raise Asked(listen, phone)
            heard_through.append((said.key if said else "", phone))
            if phone is None:
                return Silence()  # nobody speaks into the room's microphone
            in_a_pause(phone)
            return ear.listen(listen, said, speaking).observation

        sink = FileSink()
        runner = Runner(
            load_lines("de"), Speakers(config.speech), sink, SessionClock(sink), Answers(hear),
            Transcript(io.StringIO()), store=store, render_ahead=False,
        )  # fmt: skip
        runner.start_game("g")
        playwright, browser, page = phone_page(recording)
        try:
            ben = joined_page(phones, page, "Ben")
            with pytest.raises(Asked) as second_round:
                _run(host, store, runner, phones)
        finally:
            browser.close()
            playwright.stop()
    assert len(host.game.sheet) == 1 and host.game.round is not None  # round two under way: the phone's yes
    assert second_round.value.listen.player == "Ben" and second_round.value.phone is ben  # Ben first in round two
    assert host.game.settings.players == ("Anna", "Ben")
    asked = dict(heard_through)  # the last listening after each line
    assert asked["another_round"] is ben and asked["newcomer_asked"] is ben, heard_through
    assert {phone for key, phone in heard_through if key in ("ask_name", "name_read_back")} <= {None}


def test_the_phone_that_hears_a_question_put_to_everyone_says_so_on_its_page(
    tmp_path: Path, whisper: Callable[[str], WhisperRecognizer]
) -> None:
    """Ben holds the only phone: "Wollt ihr noch eine Runde spielen?" is heard through it, and his page says that
    everyone is asked and answers into it (the board names no player whose turn it is); once the table's "Ja" is
    heard, the page no longer says so."""
    recording = said(tmp_path, Audio.read(WORDS["Ja"].path()), silence=3.5, evenly=True)
    config = replace(load_settings(default_paths()[:1]), heard_cue=False)
    board = json.dumps({"listening": None, "players": [], "question": None})
    with Phones(tmp_path, port=0, board=lambda: board) as phones:
        ear = open_ear(config, whisper("de"), phones=phones)
        phones.set_players(("Anna", "Ben"), newcomers=True)
        playwright, browser, page = phone_page(recording)
        try:
            ben = joined_page(phones, page, "Ben")
            everyone = Listen(Context(ContextName.CONFIRM, "de"), None, 30.0, to_all=True)
            assert ear.phone_for(everyone) is ben
            heard: list[Observation] = []
            listening = threading.Thread(target=lambda: heard.append(ear.listen(everyone, None, None).observation))
            listening.start()
            page.locator("#turn", has_text="Alle sind gefragt").wait_for()
            listening.join()
            assert isinstance(heard[0], Heard) and heard[0].intent is Intent.YES, heard
            page.locator("#turn", has_text="Alle sind gefragt").wait_for(state="hidden")
        finally:
            browser.close()
            playwright.stop()
