"""Invariants over random legal games (hypothesis drives the seeds and the settings)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from voicemaster.rules import (
    VARIANTS,
    Action,
    AskAudience,
    AskQuestion,
    AudienceForm,
    ConfirmAnswer,
    Game,
    GameSettings,
    GiveAnswer,
    Letter,
    Mode,
    PhoneAFriend,
    PhoneForm,
    Reveal,
    StartRound,
    StopGame,
    TakeBack,
    UseExtraJoker,
    UseFiftyFifty,
    WalkAway,
    apply,
    dumps,
    errors,
    events,
    loads,
    new_game,
)
from voicemaster.rules.moneydrop import (
    MoneyDropGame,
    MoneyDropSettings,
    MoneyLostToTime,
    OptionDropped,
    QuestionSurvived,
    apply_money_drop,
)
from voicemaster.rules.simulate import Policy, next_action, next_money_drop_action

NAMES = ("Anna", "Ben", "Cem", "Dana", "Emil", "Fatma")


@st.composite
def game_settings(draw: st.DrawFn) -> GameSettings:
    count = draw(st.integers(1, 6))
    mode = draw(st.sampled_from(Mode)) if count > 1 else Mode.EVERYONE
    alone = count == 1 or mode is Mode.SHOW
    audience = [AudienceForm.SIMULATED] + ([AudienceForm.SECOND_CHANCE] if alone else [])
    phone = [PhoneForm.CALL] + ([PhoneForm.SECOND_CHANCE] if alone else [])
    if count > 1:
        audience.append(AudienceForm.PLAYERS)
        phone.append(PhoneForm.PARTNER)
    return GameSettings(
        variant=VARIANTS[draw(st.sampled_from(sorted(VARIANTS)))],
        players=NAMES[:count],
        mode=mode,
        audience_form=draw(st.sampled_from(audience)),
        phone_form=draw(st.sampled_from(phone)),
        rounds=draw(st.integers(1, 3)),
        seed=draw(st.integers(0, 2**32)),
    )


policies = st.builds(
    Policy,
    know_first=st.floats(0.5, 1.0),
    know_last=st.floats(0.0, 1.0),
    joker_rate=st.floats(0.0, 0.6),
    walk_away_rate=st.floats(0.0, 0.5),
    doubt_rate=st.floats(0.0, 0.5),
)


def allowed_payouts(game: Game) -> set[int]:
    ladder = game.settings.variant.ladder
    return {0, *ladder.amounts, *(s.payout for s in ladder.safety_levels)}


@settings(max_examples=40, deadline=None)
@given(game_settings(), policies, st.integers(0, 2**32))
def test_random_legal_games_keep_the_invariants(settings_: GameSettings, policy: Policy, seed: int) -> None:
    rng = random.Random(seed)
    game = new_game(settings_)
    round_totals: dict[str, int] = dict.fromkeys(settings_.players, 0)
    steps = 0
    while game.outcome is None:
        game, happened = apply(game, next_action(game, rng, policy))
        steps += 1
        assert loads(Game, dumps(game)) == game
        if game.round is not None:
            for seat in game.round.seats:
                assert len(set(seat.jokers_used)) == len(seat.jokers_used)
                assert seat.payout is None or seat.payout in allowed_payouts(game)
                assert seat.tries_left >= 0
        for event in happened:
            if isinstance(event, events.RoundEnded):
                for result in event.result.results:
                    assert result.payout >= 0 and result.bonus >= 0
                    assert result.payout in allowed_payouts(game)
                    round_totals[result.player] += result.total
    assert dict(game.outcome.totals) == round_totals == game.totals()
    best = max(round_totals.values())
    assert set(game.outcome.winners) == {p for p, t in round_totals.items() if t == best}
    assert steps < 10_000


@settings(max_examples=30, deadline=None)
@given(game_settings(), st.integers(0, 2**32))
def test_the_same_seed_plays_the_same_game(settings_: GameSettings, seed: int) -> None:
    def play() -> Game:
        rng, game = random.Random(seed), new_game(settings_)
        while game.outcome is None:
            game, _ = apply(game, next_action(game, rng))
        return game

    assert play() == play()


def any_action(rng: random.Random) -> Action:
    """Anything at all, legal or not."""
    player = rng.choice((*NAMES, "Zoe"))
    letter = rng.choice(list(Letter))
    choices: list[Action] = [
        StartRound(),
        AskQuestion("q", letter),
        WalkAway(player),
        UseFiftyFifty(player),
        AskAudience(player, tuple((p, rng.choice(list(Letter))) for p in rng.sample(NAMES, rng.randint(0, 3)))),
        PhoneAFriend(player, rng.choice((None, *NAMES)), rng.choice((None, letter))),
        UseExtraJoker(player, rng.choice((None, *NAMES)), rng.choice((None, letter))),
        GiveAnswer(player, letter),
        ConfirmAnswer(player, rng.random() < 0.7),
        TakeBack(player),
        Reveal(),
        StopGame(),
    ]
    weights = [3, 4, 1, 2, 2, 2, 2, 8, 8, 1, 4, 0.1]
    return rng.choices(choices, weights)[0]


@settings(max_examples=60, deadline=None)
@given(game_settings(), st.integers(0, 2**32))
def test_any_action_is_either_applied_or_refused_with_a_named_error(settings_: GameSettings, seed: int) -> None:
    rng = random.Random(seed)
    game = new_game(settings_)
    refusals: list[str] = []
    for _ in range(300):
        if game.outcome is not None:
            break
        try:
            game, _ = apply(game, any_action(rng))
        except errors.IllegalAction as error:
            refusals.append(str(error))
    assert all(len(message) > 10 for message in refusals)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.sampled_from([None, 60]), st.integers(0, 2**32))
def test_money_drop_bundles_are_kept_or_lost_never_created(teams: int, time_limit: int | None, seed: int) -> None:
    rng = random.Random(seed)
    game = MoneyDropGame(MoneyDropSettings(teams=NAMES[:teams], time_limit_seconds=time_limit))
    while not game.over:
        before = game.run.bundles if game.run else None
        game, happened = apply_money_drop(game, next_money_drop_action(game, rng))
        assert loads(MoneyDropGame, dumps(game)) == game
        survived = [e for e in happened if isinstance(e, QuestionSurvived)]
        if survived and before is not None:
            lost = sum(e.bundles for e in happened if isinstance(e, OptionDropped))
            assert survived[0].bundles + lost <= before
            assert survived[0].bundles >= 0
        lost_to_time = [e.bundles for e in happened if isinstance(e, MoneyLostToTime)]
        assert all(b > 0 for b in lost_to_time)
    assert all(0 <= r.saved <= 1_000_000 and r.saved % 25_000 == 0 for r in game.results)
    assert len(game.results) == teams
