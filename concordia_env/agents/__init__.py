"""Agents for concordia-env: ``random``, ``heuristic``, ``mcts``, ``policy``, ``learned``, built by name.

``agents.make("heuristic", seed=0)`` builds an agent, ``agents.from_spec("mcts:200")`` one from
its command-line spelling (:mod:`.registry`: the one registry and spec parser, with the spec
syntax). Every agent is an :class:`~concordia_env.agents.base.Agent`: ``act(game) -> action``
and ``reset(seed)``. The agents are strategy only: every rule fact they use comes from the
public queries of :class:`~concordia_env.Game` and the compiled strategy core
(:mod:`concordia_env.strategy`).

| name | module | what it is |
| --- | --- | --- |
| ``random`` | :mod:`.random_agent` | a uniformly random legal action |
| ``heuristic`` | :mod:`.heuristic` | the rules of thumb of the strategy core |
| ``mcts`` | :mod:`.mcts` | UCT over whole turns, compiled |
| ``policy`` | :mod:`.policy` | a trained Stable-Baselines3 policy (``policy:path.zip``) |
| ``learned`` | :mod:`.learned` | a trained afterstate model over the turn options: greedy, searching or sampled |

How ``learned`` decides is its class (greedy, :mod:`.learned_search`'s search, or sampled in
Python); :mod:`.recording` keeps the decisions of the sampled one (``learned:record=True``).
"""

from .base import Agent, IllegalPlanError
from .registry import SPEC_OPTION, from_spec, make, names, parse_spec, register, spec_of, spec_version

__all__ = [
    "SPEC_OPTION",
    "Agent",
    "IllegalPlanError",
    "from_spec",
    "make",
    "names",
    "parse_spec",
    "register",
    "spec_of",
    "spec_version",
]
