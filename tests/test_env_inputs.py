"""The environments refuse what they used to ignore or answer with a bare ``KeyError``.

``reset(options={"map": "imperium"})`` (or ``"x"``, ``[]``) was silently ignored: the game
was played on the constructor's map; ``parallel_env.step`` took an unknown agent's key;
``observe("player_9")`` raised a bare ``KeyError``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

from concordia_env import IllegalActionError
from concordia_env.engine.errors import ArgumentTypeError
from concordia_env.envs.gym_env import SingleAgentEnv
from concordia_env.envs.pettingzoo_env import env, parallel_env, raw_env


def _legal(mask: np.ndarray) -> int:
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"map": "imperium"}, ValueError, "reset\\(\\) takes no options, got 'map'"),
        ({"seed": 3, "num_players": 4}, ValueError, "'seed', 'num_players'"),
        ({"start_player": 1, "x": 2}, ValueError, "got 'start_player'"),
        ("x", ArgumentTypeError, "reset options are a dict or None"),
        ([], ArgumentTypeError, "reset options are a dict or None"),
        (5, ArgumentTypeError, "reset options are a dict or None"),
    ],
)
@pytest.mark.parametrize("make", ["aec", "wrapped", "parallel", "gym"])
def test_reset_options_are_refused_and_nothing_changes(make: str, options: Any, error: type, message: str) -> None:
    e: Any = {
        "aec": lambda: raw_env(map="italia", num_players=2),
        "wrapped": lambda: env(map="italia", num_players=2),
        "parallel": lambda: parallel_env(map="italia", num_players=2),
        "gym": lambda: SingleAgentEnv(map="italia", num_players=2, seat=0),
    }[make]()
    e.reset(seed=1)
    before = e.unwrapped.game.state.copy()
    with pytest.raises(error, match=message):
        e.reset(seed=2, options=options)
    assert np.array_equal(e.unwrapped.game.state, before)
    e.reset(seed=2, options={})  # an empty dict and None are fine
    e.reset(seed=2, options=None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        e.reset(seed=2, options={"options": 1})  # what PettingZoo's api_test sends: taken without a warning
    with pytest.warns(UserWarning, match="reads no options and ignores 'postion'"):
        e.reset(seed=2, options={"postion": 1})  # any other key is not read, and says so
    assert e.unwrapped.game.map.name == "italia"


def test_observe_of_an_unknown_agent_is_a_value_error() -> None:
    e = raw_env(map="italia", num_players=2)
    e.reset(seed=0)
    for bad in ("player_9", "player_2", "", "PLAYER_0"):
        with pytest.raises(ValueError, match=r"unknown agent.*the agents are player_0, player_1") as caught:
            e.observe(bad)
        assert not isinstance(caught.value, KeyError)
        with pytest.raises(ValueError, match="unknown agent"):
            e.observation_space(bad)
        with pytest.raises(ValueError, match="unknown agent"):
            e.action_space(bad)
    for bad in (0, None, ["player_0"]):
        with pytest.raises(ArgumentTypeError, match="an agent is a name"):
            e.observe(bad)
    assert e.observe("player_1")["observation"].shape == e.observation_space("player_1")["observation"].shape
    wrapped = env(map="italia", num_players=2)
    wrapped.reset(seed=0)
    with pytest.raises(ValueError, match="unknown agent"):
        wrapped.observe("player_9")


def test_parallel_step_refuses_keys_that_are_not_live_agents() -> None:
    e = parallel_env(map="italia", num_players=2)
    observations, _ = e.reset(seed=3)
    mover = next(a for a, o in observations.items() if o["action_mask"].any())
    actions: dict[Any, Any] = {a: _legal(o["action_mask"]) if a == mover else 0 for a, o in observations.items()}
    before = e.unwrapped.game.state.copy()
    for extra in ("player_9", "player_2", 0, ("player_0",)):
        with pytest.raises(ValueError, match="not live agents; the live agents are player_0, player_1"):
            e.step({**actions, extra: 0})
        assert np.array_equal(e.unwrapped.game.state, before)
    with pytest.raises(IllegalActionError, match="no action for"):
        e.step({a: v for a, v in actions.items() if a != mover})
    e.step(actions)  # the live agents alone: one decision
    assert e.unwrapped.game.decision_count == 1


def test_parallel_step_refuses_agents_that_are_done() -> None:
    e = parallel_env(map="italia", num_players=2, max_cycles=3)
    observations, _ = e.reset(seed=4)
    while e.agents:
        actions = {a: _legal(o["action_mask"]) if o["action_mask"].any() else 0 for a, o in observations.items()}
        observations, *_ = e.step({a: actions[a] for a in e.agents})
    assert e.agents == []
    e.step({})  # nothing live: PettingZoo's "step after the end" warning, nothing else
