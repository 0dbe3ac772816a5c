"""The agent registry: names, options and command-line specs."""

from __future__ import annotations

import pytest

from concordia_env import agents
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.agents.mcts import MCTSAgent


def test_every_baseline_agent_is_registered():
    assert {"random", "heuristic", "mcts", "policy"} <= set(agents.names())


def test_make_passes_options():
    agent = agents.make("mcts", simulations=12, rollout="random")
    assert isinstance(agent, MCTSAgent)
    assert agent.simulations == 12
    assert agent.rollout == "random"
    assert isinstance(agents.make("heuristic"), HeuristicAgent)


def test_spec_options_are_parsed_by_agent():
    assert agents.parse_spec("mcts:200") == ("mcts", {"simulations": 200})
    assert agents.parse_spec("policy:runs/model.zip") == ("policy", {"path": "runs/model.zip"})
    assert agents.parse_spec("heuristic") == ("heuristic", {})
    agent = agents.from_spec("mcts:7", time_per_move=0.5)
    assert (agent.simulations, agent.time_per_move) == (7, 0.5)
    assert agents.from_spec("mcts:30").spec == "mcts:30"


def test_bad_specs_are_refused():
    with pytest.raises(ValueError, match="takes no bare ':' value"):
        agents.parse_spec("heuristic:3")
    with pytest.raises(ValueError, match="unknown agent"):
        agents.make("alphazero")
    with pytest.raises(ValueError, match="simulations"):
        agents.from_spec("mcts:0")
    with pytest.raises(ValueError, match="rollout"):
        agents.make("mcts", rollout="smart")
    with pytest.raises(ValueError, match="path"):
        agents.make("policy")
