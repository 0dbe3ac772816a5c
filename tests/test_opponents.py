"""How ``SingleAgentEnv`` finds its opponents without importing the agents package.

The environments sit below the agents in the package graph, so spec strings are built by
the builders registered in :mod:`concordia_env.envs.opponents`: the entry points of the
installed distribution, and what ``import agents`` registers. These tests pin that the
two lists agree, that a fresh interpreter builds ``"heuristic"`` through ``gymnasium.make``
without importing ``agents`` itself, and the errors of every bad input.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib.metadata import entry_points

import gymnasium
import numpy as np
import pytest

from concordia_env import Game, agents
from concordia_env.agents import registry as registry_module
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.agents.mcts import MCTSAgent
from concordia_env.envs import opponents
from concordia_env.envs.gym_env import SingleAgentEnv


@pytest.fixture(autouse=True)
def _registries_restored():
    """Names registered by a test do not outlive it."""
    builders, registry = dict(opponents._BUILDERS), dict(registry_module._REGISTRY)
    yield
    opponents._BUILDERS.clear()
    opponents._BUILDERS.update(builders)
    registry_module._REGISTRY.clear()
    registry_module._REGISTRY.update(registry)


def test_the_entry_points_name_every_agent() -> None:
    listed = {ep.name: ep.value for ep in entry_points(group=opponents.ENTRY_POINT_GROUP)}
    assert sorted(listed) == agents.names(), "pyproject.toml's entry points and agents' registry differ"
    assert set(listed.values()) == {"concordia_env.agents:from_spec"}
    assert set(agents.names()) <= set(opponents.names())


def test_a_fresh_interpreter_finds_the_agents_through_the_entry_points() -> None:
    code = textwrap.dedent(
        """
        import sys
        import gymnasium
        import concordia_env
        assert "concordia_env.agents" not in sys.modules
        env = gymnasium.make("Concordia-v1", opponents="mcts:time_per_move=0.01,simulations=1", map="italia")
        env.reset(seed=0)
        print(type(env.unwrapped._opponents[0]).__name__, env.unwrapped._opponents[0].time_per_move)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.split() == ["MCTSAgent", "0.01"]


def test_spec_strings_instances_and_callables() -> None:
    assert isinstance(opponents.resolve("heuristic"), HeuristicAgent)
    agent = MCTSAgent(simulations=2)
    assert opponents.resolve(agent) is agent
    wrapped = opponents.resolve(lambda game: int(game.legal_actions()[-1]))
    assert isinstance(wrapped, opponents.CallableOpponent)
    game = Game.new("italia", 2, seed=0)
    wrapped.reset(3)
    assert wrapped.act(game) == game.legal_actions()[-1]


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("alphazero", ValueError, "unknown agent 'alphazero'.*known agents: .*heuristic"),
        (":3", ValueError, "no agent name"),
        ("  ", ValueError, "no agent name"),
        ("mcts:speed=3", ValueError, "does not take"),
        (HeuristicAgent, TypeError, "not a class"),
        (3, TypeError, "spec string"),
        (None, TypeError, "spec string"),
    ],
)
def test_bad_opponents_are_refused(spec: object, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        opponents.resolve(spec)
    with pytest.raises(error, match=message):
        SingleAgentEnv(opponents=spec, map="italia")


def test_a_registered_builder_serves_the_env() -> None:
    calls: list[str] = []

    def build(spec: str) -> opponents.Opponent:
        calls.append(spec)
        return HeuristicAgent()

    opponents.register("test-last-legal", build)
    env = gymnasium.make("Concordia-v1", opponents="test-last-legal:anything", map="italia")
    env.reset(seed=0)
    assert calls == ["test-last-legal:anything"] and "test-last-legal" in opponents.names()
    with pytest.raises(ValueError, match="agent name"):
        opponents.register("a:b", build)
    with pytest.raises(TypeError, match="callable"):
        opponents.register("x", 3)  # type: ignore[arg-type]


def test_a_builder_must_return_an_opponent() -> None:
    opponents.register("test-not-an-agent", lambda spec: 42)
    with pytest.raises(TypeError, match="no act"):
        opponents.resolve("test-not-an-agent")


def test_agents_register_adds_the_name_to_the_envs() -> None:
    agents.register("test-random-again", "concordia_env.agents.random_agent:RandomAgent")
    env = SingleAgentEnv(opponents="test-random-again", map="italia")
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
