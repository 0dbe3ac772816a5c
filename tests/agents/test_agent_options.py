"""Agent options are checked when the agent is built, everywhere (``agents.make``, ``from_spec``, the classes).

``mcts:determinizations=2.5`` once built an agent that raised on its first move; now it is
refused at once with a short message, a ``TypeError``/``ValueError`` like the engine's, and
no option can make one move take hours (the documented limits of :mod:`concordia_env.agents.option_checks`).
"""

from __future__ import annotations

import pytest

from concordia_env import agents
from concordia_env.agents import option_checks
from concordia_env.agents.option_checks import MAX_SIMULATIONS, MAX_TIME_PER_MOVE
from concordia_env.engine.errors import ArgumentTypeError

BAD_SPECS = [
    ("mcts:determinizations=2.5", ArgumentTypeError, "determinizations"),
    ("mcts:exploration=float", ArgumentTypeError, "exploration"),
    ("mcts:exploration=-1", ValueError, "exploration"),
    ("mcts:simulations=True", ArgumentTypeError, "simulations"),
    (f"mcts:simulations={MAX_SIMULATIONS + 1}", ValueError, "simulations"),
    ("mcts:time_per_move=1e12", ValueError, "time_per_move"),
    ("mcts:time_per_move=0", ValueError, "time_per_move"),
    ("mcts:time_per_move=inf", ValueError, "time_per_move"),
    ("mcts:rollout=everything", ValueError, "rollout"),
    ("mcts:rollout_rounds=0", ValueError, "rollout_rounds"),
    ("mcts:rollout_rounds=2.0", ArgumentTypeError, "rollout_rounds"),
    ("mcts:evaluation=1", ValueError, "evaluation"),
    ("mcts:value_scale=0", ValueError, "value_scale"),
    ("mcts:prior_visits=0", ValueError, "prior_visits"),
    ("mcts:prior_visits=nan", ValueError, "prior_visits"),
    ("mcts:prior_visits='a'", ArgumentTypeError, "prior_visits"),
    ("mcts:seed=-1", ValueError, "seed"),
    ("mcts:seed=1.5", ArgumentTypeError, "seed"),
    ("mcts:strict='yes'", ArgumentTypeError, "strict"),
    ("learned:temperature=-1", ValueError, "temperature"),
    ("learned:epsilon=2", ValueError, "epsilon"),
    ("learned:record=1", ArgumentTypeError, "record"),
    ("learned:simulations=-1", ValueError, "simulations"),
    ("learned:path=3", ArgumentTypeError, "path"),
    ("learned:simulations=5,prior_visits=-2", ValueError, "prior_visits"),
    ("learned:prior_visits=4", ValueError, "prior_visits applies to the search"),
    ("learned:simulations=5,rollout=everything", ValueError, "rollout"),
    ("learned:simulations=5,rollout_rounds=0", ValueError, "rollout_rounds"),
    ("learned:rollout=none", ValueError, "rollout applies to the search"),
    ("learned:rollout_rounds=None", ValueError, "rollout_rounds applies to the search"),
    ("random:seed='x'", ArgumentTypeError, "seed"),
    ("random:strict=0", ArgumentTypeError, "strict"),
    ("policy:path=3", ArgumentTypeError, "path"),
]


@pytest.mark.parametrize(("spec", "error", "words"), BAD_SPECS)
def test_bad_options_are_refused_when_the_agent_is_built(spec, error, words):
    with pytest.raises(error, match=words) as info:
        agents.from_spec(spec)
    assert isinstance(info.value, ValueError)  # ArgumentTypeError is both a TypeError and a ValueError
    assert len(str(info.value)) < 300


def test_the_budget_limits_are_documented_and_inclusive():
    assert agents.make("mcts", simulations=MAX_SIMULATIONS).simulations == MAX_SIMULATIONS
    assert agents.make("mcts", time_per_move=MAX_TIME_PER_MOVE).time_per_move == MAX_TIME_PER_MOVE
    assert "MAX_SIMULATIONS" in option_checks.__doc__ and "MAX_TIME_PER_MOVE" in option_checks.__doc__


def test_good_options_of_any_integer_or_number_type_are_taken():
    import numpy as np

    agent = agents.make("mcts", simulations=np.int64(3), time_per_move=np.float32(0.5), exploration=1, seed=np.int32(4))
    assert agent.simulations == 3 and agent.time_per_move == 0.5 and agent.exploration == 1.0
    agent.reset(np.uint8(2))
    with pytest.raises(ValueError, match="seed"):
        agent.reset(-3)
