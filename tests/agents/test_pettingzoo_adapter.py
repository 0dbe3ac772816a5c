"""Engine agents in a PettingZoo loop through the adapter."""

from __future__ import annotations

import pytest

from concordia_env import agents
from concordia_env import env as make_env
from concordia_env.agents.adapter import PettingZooAgent


def test_planning_agents_play_a_pettingzoo_game_given_the_env():
    env = make_env(map="italia", num_players=2)
    env.reset(seed=1)
    players = {
        "player_0": PettingZooAgent("heuristic"),
        "player_1": PettingZooAgent(agents.make("mcts", simulations=2)),
    }
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            action = None
        else:
            action = players[name].act(observation, env)
            assert observation["action_mask"][action] == 1
        env.step(action)
    assert env.unwrapped.game.is_over()


def test_planning_agent_without_env_asks_for_it():
    env = make_env(map="italia", num_players=2)
    env.reset(seed=0)
    observation, *_ = env.last()
    with pytest.raises(ValueError, match="env"):
        PettingZooAgent("heuristic").act(observation)


def test_options_need_an_agent_name():
    with pytest.raises(ValueError, match="agent name"):
        PettingZooAgent(agents.make("random"), seed=3)
