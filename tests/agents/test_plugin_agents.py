"""One agent registry: an agent of another package works everywhere an agent name is read.

Its name comes either from an entry point of the group ``concordia_env.agents`` (faked here
by adding one to what ``importlib.metadata`` reports) or from ``opponents.register`` at run
time; ``agents.names``, ``agents.make``, ``agents.from_spec``, ``SingleAgentEnv`` and the
tournament all find it in the same registry (``concordia_env.envs.opponents``).
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

import pytest

from concordia_env import agents
from concordia_env.envs import opponents
from concordia_env.envs.gym_env import SingleAgentEnv
from concordia_env.tools.tournament import TournamentConfig, run_tournament
from tests.agents import plugin_agent
from tests.agents.plugin_agent import LastLegal

PLUGIN = EntryPoint(name="last-legal", value="tests.agents.plugin_agent:build", group=opponents.ENTRY_POINT_GROUP)


@pytest.fixture(autouse=True)
def _clean_registry():
    builders = dict(opponents._BUILDERS)
    plugin_agent.BUILT.clear()
    yield
    opponents._BUILDERS.clear()
    opponents._BUILDERS.update(builders)


@pytest.fixture(params=["entry point", "run time"])
def plugin(request, monkeypatch) -> str:
    """The plugin's name, registered one way or the other."""
    if request.param == "entry point":

        def with_plugin(**selection):
            found = list(entry_points(**selection))
            wanted = selection.get("group") in (None, PLUGIN.group) and selection.get("name") in (None, PLUGIN.name)
            return [*found, PLUGIN] if wanted else found

        monkeypatch.setattr(opponents, "entry_points", with_plugin)
    else:
        opponents.register("last-legal", plugin_agent.build)
    return "last-legal"


def test_the_agents_package_lists_and_builds_it(plugin: str) -> None:
    assert plugin in agents.names() and plugin in opponents.names()
    assert isinstance(agents.make(plugin, skip=2), LastLegal) and agents.make(plugin, skip=2).skip == 2
    agent = agents.from_spec(f"{plugin}:skip=1", seed=5)
    assert agent.skip == 1
    assert [f"{plugin}:skip=2", f"{plugin}:skip=2", f"{plugin}:skip=1,seed=5"] == plugin_agent.BUILT
    with pytest.raises(ValueError, match="takes skip=N"):
        agents.make(plugin, depth=3)


def test_the_environment_plays_against_it(plugin: str) -> None:
    env = SingleAgentEnv(opponents=f"{plugin}:skip=1", map="italia")
    env.reset(seed=0)
    assert isinstance(env._opponents[0], LastLegal) and env._opponents[0].skip == 1


def test_a_tournament_seats_it(plugin: str) -> None:
    config = TournamentConfig(agents=(plugin, "random"), map="italia", players=2, games=2, seed=0)
    result = run_tournament(config, workers=1)
    assert [r.seats for r in result.records] == [[plugin, "random"], ["random", plugin]]
    assert {row["agent"] for row in result.summary["agents"]} == {plugin, "random"}


def test_unknown_names_and_options_that_cannot_be_written_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        agents.make("nobody")
    opponents.register("last-legal", plugin_agent.build)
    with pytest.raises(ValueError, match="not a literal"):
        agents.make("last-legal", skip=object())
    opponents.register("not-an-agent", lambda spec: 42)
    with pytest.raises(TypeError, match="no act"):
        agents.make("not-an-agent")
    opponents.register("stale", agents.from_spec)  # e.g. an old install's entry point for a removed agent
    with pytest.raises(ValueError, match="no such agent"):
        agents.from_spec("stale")
