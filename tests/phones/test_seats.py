"""Phones joined as new players, before the players are known: each is given the seat being named when it is first
asked for, first joined first; once the players are known each is its own player's microphone, and one never asked
for a name is let go."""

from __future__ import annotations

from pathlib import Path

from voicemaster.phones.server import NEWCOMER_ASKINGS, Phones
from voicemaster.speech.devices.phone import PhoneNotice


def _told(phones: Phones) -> tuple[list[PhoneNotice], list[PhoneNotice], list[PhoneNotice]]:
    """Three phones joined as new players, one after the other; what each page is told."""
    pages: tuple[list[PhoneNotice], list[PhoneNotice], list[PhoneNotice]] = ([], [], [])
    for page in pages:
        joined = phones.join_new()
        assert joined is not None
        joined.reaches(page.append)
    return pages


def test_new_players_phones_are_asked_for_names_in_the_order_they_joined_and_become_those_players(
    tmp_path: Path,
) -> None:
    phones = Phones(tmp_path)
    first, second, third = _told(phones)
    assert phones.waiting() == 3
    one = phones.newcomer(1)
    assert one is not None and one is phones.newcomer(1)  # asked again (a no, a name taken): the same phone
    two = phones.newcomer(2)
    assert two is not None and two is not one
    phones.set_players(("Lisa", "Cem"))
    assert (phones.microphone("Lisa"), phones.microphone("Cem")) == (one, two)
    assert first == [PhoneNotice(named="Lisa")] and second == [PhoneNotice(named="Cem")]
    assert third == [PhoneNotice(named="")] and phones.joined() == ("Lisa", "Cem")  # never asked: let go
    assert phones.join_new() is None  # the players are known: a phone joins as one of them


def test_a_player_named_in_the_room_stays_the_rooms_and_a_phone_joined_meanwhile_is_the_next_player(
    tmp_path: Path,
) -> None:
    phones = Phones(tmp_path)
    assert phones.newcomer(1, name_asked=True) is None  # nobody has scanned the code yet: the room is asked
    (page, _, _) = _told(phones)
    assert phones.newcomer(1) is None  # the room's name being read back: the phone joined meanwhile waits
    lisa = phones.newcomer(2)  # "anyone else?", heard through the phone waiting
    assert lisa is not None and phones.newcomer(2, name_asked=True) is lisa
    phones.set_players(("Anna", "Lisa"))
    assert phones.microphone("Anna") is None and phones.microphone("Lisa") is lisa
    assert page == [PhoneNotice(named="Lisa")]


def test_a_name_asked_again_of_the_room_is_heard_through_a_phone_joined_since(tmp_path: Path) -> None:
    phones = Phones(tmp_path)
    assert phones.newcomer(1, name_asked=True) is None  # the game began before anyone scanned the code
    _told(phones)
    lisa = phones.newcomer(1, name_asked=True)  # nobody answered in the room (a party): asked again
    assert lisa is not None and phones.newcomer(1) is lisa


def test_a_new_players_phone_gone_while_named_gives_its_seat_to_the_next_one_waiting_when_the_name_is_asked(
    tmp_path: Path,
) -> None:
    phones = Phones(tmp_path)
    _told(phones)
    gone = phones.newcomer(1, name_asked=True)
    assert gone is not None
    phones.leave(gone)
    assert phones.newcomer(1) is None  # its read-back heard in the room: no other phone answers for it
    again = phones.newcomer(1, name_asked=True)
    assert again is not None and again is not gone and again.connected


def test_anyone_else_is_asked_of_the_last_named_players_phone_and_the_next_name_of_the_room(tmp_path: Path) -> None:
    """At a party the room's microphone takes the others' "Ja" for a newcomer: with no new phone waiting, "Spielt
    noch jemand mit?" is heard through the phone of the player named last who has one; the next seat's name, with no
    phone to give it, is the room's, and that seat keeps no phone of another player's."""
    phones = Phones(tmp_path)
    page: list[PhoneNotice] = []
    other: list[PhoneNotice] = []
    for told in (page.append, other.append):  # two new players' phones waiting
        joined = phones.join_new()
        assert joined is not None
        joined.reaches(told)
    lisa = phones.newcomer(1, name_asked=True)
    assert lisa is not None and phones.newcomer(1) is lisa  # her read-back
    cem = phones.newcomer(2)  # "anyone else?": the phone still waiting answers it, as before
    assert cem is not None and cem is not lisa and phones.newcomer(2, name_asked=True) is cem
    assert phones.newcomer(3) is cem  # nobody waiting now: the last named player's phone answers for the room
    assert phones.newcomer(3) is cem  # asked again (unclear)
    assert phones.newcomer(3, name_asked=True) is None  # a yes: the third name is asked of the room
    assert phones.newcomer(3) is None  # and read back there
    phones.set_players(("Lisa", "Cem", "Anna"))
    assert (phones.microphone("Lisa"), phones.microphone("Cem"), phones.microphone("Anna")) == (lisa, cem, None)
    assert page == [PhoneNotice(named="Lisa")]


def test_anyone_else_is_the_rooms_when_no_player_named_holds_a_phone(tmp_path: Path) -> None:
    phones = Phones(tmp_path)
    assert phones.newcomer(1, name_asked=True) is None  # named in the room
    assert phones.newcomer(2) is None  # "anyone else?": the room's, as nobody named holds a phone
    _told(phones)
    lisa = phones.newcomer(2, name_asked=True)  # a phone joined meanwhile: the next name is asked through it
    assert lisa is not None
    phones.leave(lisa)
    assert phones.newcomer(3) is not None and phones.newcomer(3) is not lisa  # the next phone waiting, as before


# Between rounds (issue 47, docs/decisions/045): a Millionaire game takes newcomers when a round starts.


def test_a_phone_joined_as_a_new_player_mid_game_waits_and_becomes_the_newcomers_microphone(tmp_path: Path) -> None:
    phones = Phones(tmp_path)
    phones.set_players(("Anna", "Ben"), newcomers=True)
    anna = phones.join("Anna")
    page: list[PhoneNotice] = []
    lisa = phones.join_new()  # mid-round: it waits
    assert lisa is not None and phones.waiting() == 1
    lisa.reaches(page.append)
    assert phones.newcomer(3) is lisa  # "Spielt noch jemand neu mit?", the seat after the players'
    assert phones.newcomer(3, name_asked=True) is lisa and phones.newcomer(3) is lisa  # her name, read back
    phones.set_players(("Anna", "Ben", "Lisa"), newcomers=True)  # the newcomer joined
    assert phones.microphone("Anna") is anna and phones.microphone("Lisa") is lisa  # every phone kept
    assert page == [PhoneNotice(named="Lisa")] and phones.joined() == ("Anna", "Lisa")


def test_between_rounds_with_no_newcomer_waiting_a_players_phone_answers_and_the_name_is_the_rooms(
    tmp_path: Path,
) -> None:
    phones = Phones(tmp_path)
    phones.set_players(("Anna", "Ben"), newcomers=True)
    anna = phones.join("Anna")
    assert phones.newcomer(3) is anna  # "Spielt noch jemand neu mit?" at a party: not the room's "Ja"
    assert phones.newcomer(3, name_asked=True) is None  # a yes: the newcomer, phoneless, is named in the room
    phones.set_players(("Anna", "Ben", "Cem"), newcomers=True)
    assert phones.microphone("Anna") is anna and phones.microphone("Cem") is None


def test_a_question_to_all_is_heard_through_the_first_named_players_phone_and_anyone_new_through_the_same(
    tmp_path: Path,
) -> None:
    """Between rounds "Wollt ihr noch eine Runde spielen?" and then "Spielt noch jemand neu mit?" are put to all the
    players (docs/decisions/046): both are heard through one phone, the first named player's that is joined (the
    same every round), not the room's microphone, where a party's talk would start a round or seat a stranger."""
    phones = Phones(tmp_path)
    assert phones.for_all() is None  # no players known yet: the room
    phones.set_players(("Anna", "Ben", "Cem"), newcomers=True)
    assert phones.for_all() is None  # nobody holds a phone: the room, as without phones
    cem = phones.join("Cem")
    ben = phones.join("Ben")
    assert phones.for_all() is ben  # Anna has none: Ben, named before Cem, whoever joined first
    assert phones.newcomer(4) is ben  # "anyone new?" right after: the phone that answered "another round?"
    phones.leave(ben)
    assert phones.for_all() is cem and phones.newcomer(4) is cem  # Ben's phone gone: the next one's
    phones.leave(cem)
    assert phones.for_all() is None and phones.newcomer(4) is None  # none left: the room, as today


def test_a_new_players_phone_not_asked_waits_for_the_next_round_in_a_game_that_takes_newcomers(
    tmp_path: Path,
) -> None:
    phones = Phones(tmp_path)
    (page, _, _) = _told(phones)
    phones.set_players(("Anna",), newcomers=True)  # Anna named in the room; three phones never asked
    assert page == [] and phones.waiting() == 3
    phones.set_players(("Anna",))  # a game that takes none (a money drop, a fixed number of rounds)
    assert page == [PhoneNotice(named="")] and phones.waiting() == 0 and phones.join_new() is None


def test_a_newcomers_phone_asked_and_not_named_still_waits_and_is_let_go_when_no_round_is_left(
    tmp_path: Path,
) -> None:
    """A game of a fixed number of rounds asks only when a phone waits (docs/decisions/046): one asked "Spielt noch
    jemand neu mit?" that said no, or nothing, waits on and is asked again next round; when the last round starts
    (`set_players` without newcomers) it is let go, its page offering the players."""
    phones = Phones(tmp_path)
    phones.set_players(("Anna",), newcomers=True)
    page: list[PhoneNotice] = []
    lisa = phones.join_new()
    assert lisa is not None
    lisa.reaches(page.append)
    assert phones.newcomer(2) is lisa and phones.waiting() == 1  # asked, and a no: still waiting
    assert phones.newcomer(2) is lisa  # the next round: asked again, through the same phone
    phones.set_players(("Anna",))  # the last round has started
    assert phones.waiting() == 0 and page == [PhoneNotice(named="")] and not lisa.connected


def test_a_newcomers_phone_asked_round_after_round_and_never_named_is_let_go(tmp_path: Path) -> None:
    """A page left open on a phone nobody holds (or whose holder said no): asked "Spielt noch jemand neu mit?" at the
    start of `NEWCOMER_ASKINGS` rounds and never named, it is let go, its page saying why; the quizmaster stops asking
    before every round."""
    phones = Phones(tmp_path)
    phones.set_players(("Anna",), newcomers=True)
    page: list[PhoneNotice] = []
    lisa = phones.join_new()
    assert lisa is not None
    lisa.reaches(page.append)
    for _ in range(NEWCOMER_ASKINGS - 1):
        assert phones.newcomer(2) is lisa  # asked: a no, or silence
        phones.set_players(("Anna",), newcomers=True)  # the next round starts
        assert phones.waiting() == 1 and page == [] and lisa.connected
    assert phones.newcomer(2) is lisa
    phones.set_players(("Anna",), newcomers=True)
    assert phones.waiting() == 0 and page == [PhoneNotice(named="", unanswered=True)] and not lisa.connected
    again = phones.join_new()  # the player who did want to play joins again, and is asked again
    assert again is not None and phones.waiting() == 1 and phones.newcomer(2) is again
