"""The compiled learned scorer (strategy.afterstate_scorer) equals the numpy model of agents.learned_model."""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import Game, strategy
from concordia_env.agents.learned import shipped_model_path
from concordia_env.agents.learned_model import AfterstateModel, batch_features
from concordia_env.strategy.afterstate_scorer import NUM_FEATURES, UTILITY_INDEX, pack_model

#: float32 rounding of a 467-input MLP: the compiled sums are float64, BLAS's float32
SCORE_TOLERANCE = 1e-5


def decisions(map_name: str, players: int, seed: int, count: int):
    """Positions of a random game with a real choice, with the options the learned agent scores there."""
    game = Game.new(map_name, players, seed=seed)
    rng = np.random.default_rng(seed)
    found = 0
    while not game.is_over() and found < count:
        legal = game.legal_actions()
        if len(legal) > 1:
            sim = strategy.determinized(game.state, strategy.new_rng(int(rng.integers(2**63 - 1))))
            remaining = strategy.remaining_fraction(sim, game.map.tables)
            yield game, strategy.turn_options(sim, game.map.tables, None, remaining), remaining
            found += 1
        game.step(legal[rng.integers(len(legal))])


@pytest.mark.parametrize(("map_name", "players"), [("italia", 2), ("imperium", 4)])
def test_compiled_features_and_scores_equal_the_numpy_model(map_name: str, players: int) -> None:
    model = AfterstateModel.load(shipped_model_path(players))
    checked = choices = 0
    for game, options, remaining in decisions(map_name, players, seed=3, count=60):
        player, tables = game.current_player, game.map.tables
        reference = batch_features(options.afterstates, tables, options.values, player, remaining)
        compiled = strategy.afterstate_features(options.afterstates, tables, options.values, player, remaining)
        assert np.array_equal(compiled, reference), "the same features, bit for bit"
        expected = model.predict(reference)
        scores = strategy.afterstate_scores(
            options.afterstates, tables, options.values, player, remaining, model.compiled
        )
        assert np.allclose(scores, expected, rtol=0, atol=SCORE_TOLERANCE)
        top = np.sort(expected)[::-1]
        if len(top) == 1 or top[0] - top[1] > 2 * SCORE_TOLERANCE:  # not a tie within rounding
            assert int(np.argmax(scores)) == int(np.argmax(expected))
            choices += 1
        checked += 1
    assert checked == 60 and choices > 40


def test_identical_afterstates_get_identical_scores() -> None:
    """BLAS may score two equal rows a bit apart; the compiled scorer, which the agent plays with, never does."""
    model = AfterstateModel.load(shipped_model_path(2))
    game = Game.new("italia", 2, seed=1)
    options = strategy.turn_options(game.state, game.map.tables)
    states = np.repeat(options.afterstates[:1], 40, axis=0)
    values = np.repeat(options.values[:1], 40, axis=0)
    scores = strategy.afterstate_scores(states, game.map.tables, values, 0, 0.9, model.compiled)
    assert np.all(scores == scores[0])


def reference_scores(x: np.ndarray, model: AfterstateModel) -> np.ndarray:
    """The compiled scorer's arithmetic, slow and readable: each row on its own, its terms summed in order.

    Every sum is float64, one term at a time: the first layer's terms of the inputs every row
    of the decision has alike (and not zero) first, then the row's own inputs, each in the order
    of the inputs; a zero input adds no term. Each result is rounded to float32 before its
    bias, then ReLU (none at the output).
    """
    weights = [np.asarray(w, dtype=np.float32) for w in model.weights]
    biases = [np.asarray(b, dtype=np.float32) for b in model.biases]
    alike = np.all(x == x[0], axis=0) & (x[0] != 0) if len(x) > 1 else np.zeros(x.shape[1], dtype=bool)
    scores = np.empty(len(x), dtype=np.float32)
    for k, row in enumerate(x):
        h = row
        for layer, (w, bias) in enumerate(zip(weights, biases, strict=True)):
            order = list(range(len(h)))
            if layer == 0:  # the terms every row has alike, then the row's own
                order = [i for i in order if alike[i]] + [i for i in order if not alike[i]]
            total = np.zeros(w.shape[1], dtype=np.float64)
            for i in order:
                if h[i] != 0:
                    total += np.float64(h[i]) * w[i].astype(np.float64)
            out = total.astype(np.float32) + bias
            h = out if layer == len(weights) - 1 else np.where(out > 0, out, np.float32(0))
        scores[k] = np.float32(model.a) * row[UTILITY_INDEX] + np.float32(model.b) + h[0]
    return scores


def test_scores_are_the_readable_reference_bit_for_bit_rows_with_the_same_features_scored_once() -> None:
    """The compiled scorer shares the terms rows have alike and scores a repeated row once, changing no bit."""
    model = AfterstateModel.load(shipped_model_path(2))
    repeated = 0
    for game, options, remaining in decisions("italia", 2, seed=4, count=12):
        player, tables = game.current_player, game.map.tables
        x = strategy.afterstate_features(options.afterstates, tables, options.values, player, remaining)
        scores = strategy.afterstate_scores(
            options.afterstates, tables, options.values, player, remaining, model.compiled
        )
        assert scores.view(np.int32).tolist() == reference_scores(x, model).view(np.int32).tolist()
        repeated += len(x) - len(np.unique(x, axis=0))
    assert repeated > 0, "some options of these decisions have the same features"


def test_bad_inputs_are_refused_before_compiled_code() -> None:
    model = AfterstateModel.heuristic_only((8,))
    game = Game.new("italia", 2, seed=1)
    options = strategy.turn_options(game.state, game.map.tables)
    args = (options.afterstates, game.map.tables, options.values)
    with pytest.raises(ValueError, match="player"):
        strategy.afterstate_scores(*args, 2, 0.5, model.compiled)
    with pytest.raises(ValueError, match="remaining"):
        strategy.afterstate_scores(*args, 0, 1.5, model.compiled)
    with pytest.raises(ValueError, match="values"):
        strategy.afterstate_scores(options.afterstates, game.map.tables, options.values[:, :1], 0, 0.5, model.compiled)
    with pytest.raises(ValueError, match="afterstates"):
        strategy.afterstate_scores(options.afterstates[:, :10], game.map.tables, options.values, 0, 0.5, model.compiled)
    with pytest.raises(ValueError, match="model"):
        strategy.afterstate_scores(*args, 0, 0.5, "a model")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="features"):
        pack_model([np.zeros((NUM_FEATURES - 1, 1))], [np.zeros(1)], 1.0, 0.0)
    with pytest.raises(ValueError, match="finite"):
        pack_model([np.full((NUM_FEATURES, 1), np.nan)], [np.zeros(1)], 1.0, 0.0)


def test_a_seat_summary_is_copied_only_where_its_inputs_are_the_same() -> None:
    """The features copy another seat's board summary from an earlier option only where all it reads is equal."""
    from concordia_env.engine.maps import M_NUM_CITIES
    from concordia_env.engine.rules.state_helpers import pbase
    from concordia_env.engine.state import BONUS_COIN_SIDE, HOUSES, MAX_CITIES, P_COLONISTS

    game, options, remaining = next(decisions("imperium", 4, seed=5, count=1))
    player, tables = game.current_player, game.map.tables
    other = (player + 1) % 4
    base = options.afterstates[0]
    rows = np.repeat(base[None, :], 5, axis=0)
    houses = HOUSES + other * MAX_CITIES
    city = int(np.flatnonzero(rows[1, houses : houses + tables[M_NUM_CITIES]] == 0)[1])
    rows[1, houses + city] = 1  # another seat's house
    rows[2, BONUS_COIN_SIDE] = 1 - rows[2, BONUS_COIN_SIDE]  # a province's bonus side
    colonists = pbase(other) + P_COLONISTS
    placed = rows[3, colonists : colonists + 2].copy()
    rows[3, colonists], rows[3, colonists + 1] = placed[1], placed[0]  # the same places: the same summary
    rows[4, colonists] = rows[4, colonists + 1]  # a colonist moved to another's place
    # (the bonus side and the move change the summary only with houses or reach there: the reference says)
    values = np.repeat(options.values[:1], 5, axis=0)
    compiled = strategy.afterstate_features(rows, tables, values, player, remaining)
    reference = batch_features(rows, tables, values, player, remaining)
    assert np.array_equal(compiled, reference)
    assert not np.array_equal(compiled[1], compiled[0]), "a house of another seat changes its summary"
    assert np.array_equal(compiled[3], compiled[0]), "two land colonists swapped: the same summary"
