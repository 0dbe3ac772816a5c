"""The rollout policy: the planner with noise, legal everywhere, a pure function of its seed."""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import Game, strategy
from concordia_env.agents.mcts import ROLLOUT_PARAMS
from concordia_env.strategy import RolloutSettings

SETUPS = [("imperium", 5), ("italia", 2), ("aegyptus", 3), ("creta", 4)]
NOISY = strategy.params_array(rollout=RolloutSettings(epsilon=0.2, temperature=2.0, nested_lookahead=True))


def rolled_out(game: Game, params: np.ndarray, turns: int, seed: int) -> tuple[np.ndarray, int]:
    sim = game.clone()
    decisions = strategy.rollout_turns(sim._state, sim.map.tables, params, turns, strategy.new_rng(seed))  # in place
    return sim.state, decisions


@pytest.mark.parametrize(("map_name", "players"), SETUPS)
@pytest.mark.parametrize("params", [ROLLOUT_PARAMS, NOISY], ids=["mcts", "noisy"])
def test_rollouts_play_legal_games_to_the_end(map_name: str, players: int, params: np.ndarray) -> None:
    """An illegal proposal would raise (``rollout_turns`` checks the planner's count); the game must end."""
    game = Game.new(map_name, players, seed=players)
    state, decisions = rolled_out(game, params, 1_000_000, seed=1)
    assert Game(state, game.map).is_over() and decisions > 50


def test_a_rollout_is_a_function_of_its_seed() -> None:
    game = Game.new("italia", 3, seed=4)
    first, _ = rolled_out(game, NOISY, 6, seed=7)
    again, _ = rolled_out(game, NOISY, 6, seed=7)
    assert np.array_equal(first, again)
    others = [rolled_out(game, NOISY, 6, seed=s)[0] for s in range(8, 12)]
    assert any(not np.array_equal(first, other) for other in others)


def test_without_noise_a_rollout_turn_is_the_heuristic_turn() -> None:
    """No noise: the rollout policy's turn is the heuristic's best option, played out."""
    game = Game.new("imperium", 4, seed=3)
    state, _ = rolled_out(game, strategy.DEFAULT_PARAMS, 1, seed=0)
    options = strategy.turn_options(game.state, game.map.tables)
    best = strategy.best_option(options, game.current_player)
    assert np.array_equal(state, options.afterstates[best])


def test_random_rollouts_and_the_score_estimate() -> None:
    game = Game.new("creta", 2, seed=1)
    sim = game.clone()
    strategy.random_rollout(sim._state, sim.map.tables, 1_000_000, strategy.new_rng(3))  # in place
    assert sim.is_over()
    assert strategy.score_estimate(sim.state, sim.map.tables).tolist() == sim.final_scores().tolist()
    start = strategy.score_estimate(game.state, game.map.tables)
    assert (start > game.scores()).all()  # plus a tenth of the wealth still to spend


def test_a_rollout_turn_among_sampled_options_is_one_of_the_options() -> None:
    """``options=k``: the card choice weighs k options drawn at random; the turn played is one of the options."""
    game = Game.new("italia", 2, seed=6)
    options = strategy.turn_options(game.state, game.map.tables, ROLLOUT_PARAMS)
    one = strategy.params_array(rollout=RolloutSettings(nested_lookahead=False, options=1))
    chosen = set()
    for seed in range(12):
        state, _ = rolled_out(game, one, 1, seed=seed)
        rows = [k for k in range(len(options.first)) if np.array_equal(state, options.afterstates[k])]
        assert len(rows) >= 1
        chosen.add(rows[0])
    assert len(chosen) > 2  # one option drawn at random, not the best one every time


def test_sampling_at_least_every_option_is_weighing_them_all() -> None:
    game = Game.new("aegyptus", 3, seed=2)
    every = strategy.params_array(rollout=RolloutSettings(temperature=1.0, nested_lookahead=False))
    plenty = strategy.params_array(rollout=RolloutSettings(temperature=1.0, nested_lookahead=False, options=100))
    for seed in range(3):
        assert np.array_equal(rolled_out(game, every, 6, seed)[0], rolled_out(game, plenty, 6, seed)[0])


@pytest.mark.parametrize(("value", "error"), [(-1, ValueError), (1.5, TypeError), (True, TypeError)])
def test_the_number_of_sampled_options_is_checked(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="options"):
        RolloutSettings(options=value)  # type: ignore[arg-type]
