"""Every agent plays whole games: legal actions only, the game untouched, reproducible by seed."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from concordia_env import Game, agents
from concordia_env.agents.base import Agent

AgentFactory = Callable[[], Agent]

#: MCTS scaled down to a couple of simulations so that a whole game takes a few seconds
TINY_MCTS = {"simulations": 2}


def play_game(factories: list[AgentFactory], map_name: str, seed: int) -> tuple[Game, list[int]]:
    """Play one game; at every decision the agent must answer a legal action and leave the game alone."""
    game = Game.new(map_name, len(factories), seed=seed)
    seats = [make() for make in factories]
    for p, agent in enumerate(seats):
        agent.reset(seed * 10 + p)
    actions = []
    while not game.is_over():
        before = game.state.copy()
        legal = set(game.legal_actions().tolist())
        action = seats[game.current_player].act(game)
        assert np.array_equal(game.state, before), f"{seats[game.current_player]!r} changed the game"
        assert isinstance(action, int), f"{seats[game.current_player]!r} returned {type(action).__name__}"
        assert action in legal, f"{seats[game.current_player]!r} chose illegal {game.describe_action(action)}"
        actions.append(action)
        game.step(action)
    return game, actions


def heuristic() -> Agent:
    return agents.make("heuristic")


def rand() -> Agent:
    return agents.make("random")


def tiny_mcts() -> Agent:
    return agents.make("mcts", **TINY_MCTS)


@pytest.mark.parametrize(
    ("map_name", "lineup"),
    [
        ("italia", [heuristic, heuristic]),
        ("imperium", [heuristic, rand, heuristic]),
    ],
)
def test_heuristic_plays_whole_games_reproducibly(map_name, lineup):
    game, actions = play_game(lineup, map_name, seed=3)
    assert game.is_over()
    again, actions_again = play_game(lineup, map_name, seed=3)
    assert actions == actions_again
    assert np.array_equal(game.final_scores(), again.final_scores())


@pytest.mark.parametrize(
    ("map_name", "lineup"),
    [
        ("italia", [tiny_mcts, heuristic]),
        ("imperium", [rand, tiny_mcts, heuristic]),
    ],
)
def test_tiny_mcts_finishes_whole_games(map_name, lineup):
    game, _ = play_game(lineup, map_name, seed=5)
    assert game.is_over()


@pytest.mark.parametrize(
    "options",
    [
        {"rollout": "random", "rollout_rounds": 1, "evaluation": "score"},
        {"rollout": "heuristic", "rollout_rounds": None, "determinizations": 2},
    ],
)
def test_mcts_with_rollouts_finishes_a_game(options):
    lineup = [lambda: agents.make("mcts", simulations=2, **options), heuristic]
    game, _ = play_game(lineup, "italia", seed=2)
    assert game.is_over()


def test_heuristic_beats_random_players():
    """Not a benchmark (see concordia_env/benchmarks/strength_bars.py), but a heuristic that loses here is broken."""
    for seed in range(2):
        game, _ = play_game([rand, heuristic, rand], "imperium", seed=seed)
        assert game.winner() == 1, game.final_scores()
