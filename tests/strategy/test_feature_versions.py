"""Feature versions of the learned scorer: version 2's board summary, models of either version side by side.

Version 2 appends, for every relative seat, houses per good, the places per good an
Architect could build in now and the best province for a Prefect
(``strategy.afterstate_scorer.BOARD_LAYOUT``). ``tests/test_afterstate.py`` checks every entry
against a slow reference over the game's public queries (``tests/reference/features.py``);
this file builds positions where the answer is known, and checks that a version-1 model
plays as before beside version-2 code.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from concordia_env import Game, strategy
from concordia_env.agents.learned_model import AfterstateModel, batch_features
from concordia_env.engine.cards import GOOD_PRICE, NUM_GOODS
from concordia_env.engine.state import BONUS_COIN_SIDE, MAX_PLAYERS, house_index
from concordia_env.strategy.afterstate_scorer import (
    B_BEST_PRODUCTION,
    B_HOUSES_BY_GOOD,
    B_REACH_BY_GOOD,
    BOARD_INDEX,
    BOARD_SEAT_SIZE,
    FEATURE_COUNTS,
    HOUSES_SCALE,
    NUM_FEATURES,
    PRODUCTION_SCALE,
    REACH_SCALE,
    features_version,
    pack_model,
)


def _seat(features: np.ndarray, relative_seat: int) -> np.ndarray:
    at = BOARD_INDEX + relative_seat * BOARD_SEAT_SIZE
    return features[at : at + BOARD_SEAT_SIZE]


def _features(game: Game, player: int, width: int = NUM_FEATURES) -> np.ndarray:
    values = np.zeros((1, game.num_players))
    return batch_features(game.state[None, :], game.map.tables, values, player, 0.5, width)[0]


def test_the_versions_extend_each_other() -> None:
    assert FEATURE_COUNTS[1] == BOARD_INDEX
    assert FEATURE_COUNTS[2] == BOARD_INDEX + MAX_PLAYERS * BOARD_SEAT_SIZE == NUM_FEATURES
    assert [features_version(count) for count in FEATURE_COUNTS.values()] == list(FEATURE_COUNTS)
    game = Game.new("imperium", 4, seed=3)
    full = _features(game, 1)
    np.testing.assert_array_equal(_features(game, 1, FEATURE_COUNTS[1]), full[: FEATURE_COUNTS[1]])
    for width in (0, FEATURE_COUNTS[1] - 1, FEATURE_COUNTS[1] + 1, NUM_FEATURES + 1):
        with pytest.raises(ValueError, match="features"):
            features_version(width)
        with pytest.raises(ValueError, match="features"):
            _features(game, 1, width)


def test_at_the_start_nobody_has_houses_and_the_architect_reaches_the_capital_s_neighbours() -> None:
    game = Game.new("italia", 3, seed=4)
    x = _features(game, 2)
    goods = game.city_goods()
    for j in range(MAX_PLAYERS):
        seat = _seat(x, j)
        assert np.all(seat[B_HOUSES_BY_GOOD : B_HOUSES_BY_GOOD + NUM_GOODS] == 0)
        assert seat[B_BEST_PRODUCTION] == 0
        if j >= 3:
            assert np.all(seat == 0), "a seat the game does not have is all zeros"
            continue
        player = (2 + j) % 3
        reach = game.reachable_places(player)
        expected = np.bincount(goods[reach & (goods >= 0)], minlength=NUM_GOODS) / REACH_SCALE
        np.testing.assert_allclose(seat[B_REACH_BY_GOOD : B_REACH_BY_GOOD + NUM_GOODS], expected, rtol=1e-6)
        assert expected.sum() > 0, "an Architect at the start reaches cities"


def test_houses_count_per_good_and_the_best_goods_side_province_is_the_production() -> None:
    game = Game.new("italia", 2, seed=7)
    goods = game.city_goods()
    names = game.map.places
    provinces = game.map.provinces
    # two cities of one province and one of another, all for player 1
    first, second = [name for name in game.map.province_names if len(provinces[name]) >= 2][:2]
    chosen = [names.index(provinces[first][0]), names.index(provinces[first][1]), names.index(provinces[second][0])]
    built = game.clone()
    for c in chosen:
        built._state[house_index(1, c)] = 1
    x = _features(built, 0)  # player 0 observes: player 1 is relative seat 1
    seat = _seat(x, 1)
    expected_houses = np.bincount(goods[chosen], minlength=NUM_GOODS) / HOUSES_SCALE
    np.testing.assert_allclose(seat[B_HOUSES_BY_GOOD : B_HOUSES_BY_GOOD + NUM_GOODS], expected_houses, rtol=1e-6)
    assert np.all(_seat(x, 0)[B_HOUSES_BY_GOOD : B_HOUSES_BY_GOOD + NUM_GOODS] == 0)
    in_first = GOOD_PRICE[goods[chosen[0]]] + GOOD_PRICE[goods[chosen[1]]]
    in_second = GOOD_PRICE[goods[chosen[2]]]
    assert seat[B_BEST_PRODUCTION] == pytest.approx(max(in_first, in_second) / PRODUCTION_SCALE)
    # the first province's marker turned to its coin side: a Prefect may not produce there
    v = game.map.province_names.index(first)
    built._state[BONUS_COIN_SIDE + v] = 1
    assert _seat(_features(built, 0), 1)[B_BEST_PRODUCTION] == pytest.approx(in_second / PRODUCTION_SCALE)
    # a place with the seat's house is no longer a place to build in
    reach_before = _seat(_features(game, 0), 1)[B_REACH_BY_GOOD : B_REACH_BY_GOOD + NUM_GOODS]
    reach_after = _seat(x, 1)[B_REACH_BY_GOOD : B_REACH_BY_GOOD + NUM_GOODS]
    assert np.all(reach_after <= reach_before + 1e-7)


#: a version-1 model kept in the checkout: the 2-player model shipped until 2026-12-05
VERSION_1_MODEL = Path(__file__).resolve().parents[2] / "docs" / "reports" / "expert_italia2d" / "model.npz"


def test_a_widened_version_1_model_scores_exactly_as_before() -> None:
    old = AfterstateModel.load(VERSION_1_MODEL)
    assert old.features_version == 1
    new = old.widened(2)
    assert new.features_version == 2 and new.num_features == NUM_FEATURES
    game = Game.new("italia", 2, seed=11)
    rng = np.random.default_rng(0)
    for _ in range(40):
        game.step(int(rng.choice(game.legal_actions())))
    options = strategy.turn_options(game.state, game.map.tables)
    player, tables = game.current_player, game.map.tables
    args = (options.afterstates, tables, options.values, player, 0.6)
    np.testing.assert_array_equal(
        strategy.afterstate_scores(*args, old.compiled), strategy.afterstate_scores(*args, new.compiled)
    )
    x = batch_features(*args)
    np.testing.assert_allclose(old.predict(x), new.predict(x), rtol=0, atol=1e-5)
    with pytest.raises(ValueError, match="widens"):
        new.widened(1)


def test_a_version_2_model_scores_compiled_as_in_numpy_and_round_trips() -> None:
    model = AfterstateModel.heuristic_only((16, 8), seed=3)
    rng = np.random.default_rng(4)
    model.weights[-1][:] = rng.normal(0, 0.1, model.weights[-1].shape).astype(np.float32)
    model = AfterstateModel(model.weights, model.biases, 1.0, 0.0)
    assert model.features_version == 2
    game = Game.new("aegyptus", 3, seed=5)
    for _ in range(60):
        game.step(int(rng.choice(game.legal_actions())))
    options = strategy.turn_options(game.state, game.map.tables)
    args = (options.afterstates, game.map.tables, options.values, game.current_player, 0.4)
    compiled = strategy.afterstate_scores(*args, model.compiled)
    np.testing.assert_allclose(compiled, model.predict(batch_features(*args)), rtol=0, atol=1e-5)
    again = AfterstateModel.load_bytes(model.to_bytes())
    assert again.features_version == 2
    np.testing.assert_array_equal(strategy.afterstate_scores(*args, again.compiled), compiled)
    assert AfterstateModel.heuristic_only((4,), version=1).num_features == FEATURE_COUNTS[1]
    with pytest.raises(ValueError, match="version"):
        AfterstateModel.heuristic_only((4,), version=3)
    with pytest.raises(ValueError, match="features"):
        pack_model([np.zeros((NUM_FEATURES + 1, 1))], [np.zeros(1)], 1.0, 0.0)
    with pytest.raises(ValueError):
        AfterstateModel([np.zeros((NUM_FEATURES - 1, 1))], [np.zeros(1)])
