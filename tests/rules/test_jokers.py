"""Every joker form of docs/rules.md, "Jokers"."""

from __future__ import annotations

import pytest

from voicemaster.rules import (
    AskAudience,
    AudienceForm,
    ConfirmAnswer,
    Game,
    GameSettings,
    GiveAnswer,
    Joker,
    Letter,
    PhoneAFriend,
    PhoneForm,
    Reveal,
    StartRound,
    UseExtraJoker,
    UseFiftyFifty,
    errors,
    events,
    new_game,
    variant,
)

from .helpers import RIGHT, WRONG, answer, ask, at_question, play


def group(*players: str, variant_name: str = "classic", **settings: object) -> Game:
    game = new_game(GameSettings(variant(variant_name), players, **settings))  # type: ignore[arg-type]
    return play(game, StartRound(), ask(1))[0]


def test_fifty_fifty_removes_two_wrong_options_and_keeps_the_right_one() -> None:
    for seed in range(30):
        game, happened = play(at_question(4, seed=seed), UseFiftyFifty("Anna"))
        used = happened[0]
        assert isinstance(used, events.FiftyFiftyUsed)
        assert len(used.removed) == 2 and RIGHT not in used.removed
        assert RIGHT in used.remaining and len(used.remaining) == 2
        with pytest.raises(errors.OptionNotAvailable):
            play(game, GiveAnswer("Anna", used.removed[0]))


def test_fifty_fifty_depends_on_the_seed_only() -> None:
    removed = {seed: play(at_question(4, seed=seed), UseFiftyFifty("Anna"))[1][0] for seed in range(20)}
    again = {seed: play(at_question(4, seed=seed), UseFiftyFifty("Anna"))[1][0] for seed in range(20)}
    assert removed == again
    assert len({e.removed for e in removed.values() if isinstance(e, events.FiftyFiftyUsed)}) > 1


def test_audience_of_players_gets_every_other_vote_plus_the_right_one() -> None:
    game = group("Anna", "Ben", "Cem", audience_form=AudienceForm.PLAYERS)
    votes = (("Ben", Letter.A), ("Cem", Letter.A))
    _, happened = play(game, AskAudience("Anna", votes))
    voted = happened[0]
    assert isinstance(voted, events.AudienceVoted)
    assert dict(voted.tally) == {Letter.A: 2, RIGHT: 1}


def test_audience_of_players_includes_those_already_out() -> None:
    game = group("Anna", "Ben", audience_form=AudienceForm.PLAYERS)
    game, _ = play(game, *answer("Anna", RIGHT), *answer("Ben", WRONG), Reveal(), ask(2))
    with pytest.raises(errors.InvalidJokerInput):
        play(game, AskAudience("Anna", ()))
    _, happened = play(game, AskAudience("Anna", (("Ben", Letter.D),)))
    assert isinstance(happened[0], events.AudienceVoted)


def test_simulated_audience_gives_percentages_that_add_up_and_fade_with_the_level() -> None:
    def right_share(level: int, seed: int) -> int:
        _, happened = play(at_question(level, seed=seed), AskAudience("Anna"))
        polled = happened[0]
        assert isinstance(polled, events.AudiencePolled)
        assert sum(p for _, p in polled.percentages) == 100
        return dict(polled.percentages)[RIGHT]

    easy = sum(right_share(1, seed) for seed in range(20)) / 20
    hard = sum(right_share(15, seed) for seed in range(20)) / 20
    assert easy > 70 > 40 > hard


def test_simulated_audience_after_fifty_fifty_only_votes_on_what_is_left() -> None:
    _, happened = play(at_question(6), UseFiftyFifty("Anna"), AskAudience("Anna"))
    used, polled = happened
    assert isinstance(used, events.FiftyFiftyUsed) and isinstance(polled, events.AudiencePolled)
    assert {letter for letter, _ in polled.percentages} == set(used.remaining)


def test_audience_second_chance_gives_three_tries() -> None:
    game, happened = play(at_question(6, audience_form=AudienceForm.SECOND_CHANCE), AskAudience("Anna"))
    assert happened == [events.SecondChanceGranted("Anna", Joker.AUDIENCE, 3)]
    game, happened = play(game, *answer("Anna", Letter.A), *answer("Anna", Letter.C))
    assert events.TryFailed("Anna", Letter.A, 2) in happened
    assert events.TryFailed("Anna", Letter.C, 1) in happened
    with pytest.raises(errors.OptionNotAvailable):
        play(game, GiveAnswer("Anna", Letter.A))
    game, happened = play(game, *answer("Anna", Letter.D), Reveal())
    assert events.AnsweredWrongly("Anna", Letter.D, 500) in happened


def test_a_right_try_goes_up_a_level() -> None:
    game, _ = play(at_question(6, audience_form=AudienceForm.SECOND_CHANCE), AskAudience("Anna"))
    game, happened = play(game, *answer("Anna", Letter.A), *answer("Anna", RIGHT), Reveal())
    assert events.AnsweredCorrectly("Anna", 6, 1_000) in happened


def test_phone_second_chance_gives_two_tries_and_may_walk_away_between() -> None:
    from voicemaster.rules import WalkAway

    game, _ = play(at_question(8, phone_form=PhoneForm.SECOND_CHANCE), PhoneAFriend("Anna"))
    game, happened = play(game, *answer("Anna", Letter.A))
    assert happened[-1] == events.TryFailed("Anna", Letter.A, 1)
    _, happened = play(game, WalkAway("Anna"))
    assert happened[0] == events.WalkedAway("Anna", 2_000)


def test_phone_call_runs_thirty_seconds_and_is_spent_even_if_nobody_answers() -> None:
    game, happened = play(at_question(3), PhoneAFriend("Anna"))
    assert happened == [events.PhoneCallStarted("Anna", 30)]
    with pytest.raises(errors.JokerAlreadyUsed):
        play(game, PhoneAFriend("Anna"))


def test_phone_partner_gives_their_letter_and_the_quizmaster_adds_none() -> None:
    """docs/rules.md, "Jokers": everyone hears the partner, so a right letter added beside theirs would give the answer
    away."""
    game = group("Anna", "Ben", phone_form=PhoneForm.PARTNER)
    game, happened = play(game, PhoneAFriend("Anna", "Ben", WRONG))
    assert happened == [events.PartnerAnswered("Anna", "Ben", WRONG)]
    seat = game.round.seat("Anna") if game.round else None
    assert seat is not None and Joker.PHONE in seat.jokers_used
    with pytest.raises(errors.InvalidJokerInput):
        play(group("Anna", "Ben", phone_form=PhoneForm.PARTNER), PhoneAFriend("Anna", "Anna", Letter.D))
    with pytest.raises(errors.InvalidJokerInput):
        play(group("Anna", "Ben", phone_form=PhoneForm.PARTNER), PhoneAFriend("Anna"))


def test_extra_joker_rewards_the_helper_when_the_help_was_right() -> None:
    game = group("Anna", "Ben", variant_name="risiko")
    game, happened = play(game, UseExtraJoker("Anna", "Ben", RIGHT), *answer("Anna", RIGHT), *answer("Ben", RIGHT))
    game, happened = play(game, Reveal())
    assert events.HelperRewarded("Ben", 5_000) in happened
    game, _ = play(game, ask(2), *answer("Ben", WRONG), *answer("Anna", WRONG), Reveal())
    assert game.totals() == {"Anna": 0, "Ben": 5_000}


def test_extra_joker_pays_nothing_when_the_help_was_wrong() -> None:
    game = group("Anna", "Ben", variant_name="risiko")
    game, _ = play(game, UseExtraJoker("Anna", "Ben", WRONG), *answer("Anna", RIGHT), *answer("Ben", RIGHT))
    _, happened = play(game, Reveal())
    assert not any(isinstance(e, events.HelperRewarded) for e in happened)


def test_extra_joker_without_a_helper_is_still_spent() -> None:
    game = group("Anna", "Ben", variant_name="risiko")
    game, happened = play(game, UseExtraJoker("Anna"))
    assert happened == [events.ExtraJokerUsed("Anna", None, None)]
    with pytest.raises(errors.JokerAlreadyUsed):
        play(game, UseExtraJoker("Anna", "Ben", RIGHT))


def test_extra_joker_is_only_in_risiko() -> None:
    for name in ("classic", "jumbo-2002", "qvgdm", "uk"):
        with pytest.raises(errors.JokerNotInVariant):
            play(at_question(2, name), UseExtraJoker("Anna"))


def test_several_jokers_on_one_question_each_once_per_round() -> None:
    game, happened = play(at_question(10), UseFiftyFifty("Anna"), AskAudience("Anna"), PhoneAFriend("Anna"))
    assert len(happened) == 3
    game, _ = play(game, *answer("Anna", RIGHT), Reveal(), ask(11))
    for joker in (UseFiftyFifty("Anna"), AskAudience("Anna"), PhoneAFriend("Anna")):
        with pytest.raises(errors.JokerAlreadyUsed):
            play(game, joker)


def test_jokers_are_fresh_in_the_next_round() -> None:
    game, _ = play(at_question(2, rounds=2), UseFiftyFifty("Anna"), *answer("Anna", WRONG), Reveal())
    game, happened = play(game, StartRound(), ask(1), UseFiftyFifty("Anna"))
    assert isinstance(happened[-1], events.FiftyFiftyUsed)


def test_a_joker_sets_an_unconfirmed_answer_aside() -> None:
    game, _ = play(at_question(5), GiveAnswer("Anna", WRONG), UseFiftyFifty("Anna"))
    with pytest.raises(errors.NoAnswerToConfirm):
        play(game, ConfirmAnswer("Anna", final=True))
