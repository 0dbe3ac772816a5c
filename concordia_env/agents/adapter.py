"""Use the engine agents in a PettingZoo loop.

The agents of this package plan on the engine :class:`~concordia_env.Game` (MCTS clones
and steps it, the heuristic reads the board). A PettingZoo loop hands out observations;
the game behind them is ``env.unwrapped.game``. :class:`PettingZooAgent` bridges the two::

    from concordia_env import env as make_env
    from concordia_env.agents.adapter import PettingZooAgent

    env = make_env(map="italia", num_players=2)
    env.reset(seed=0)
    players = {name: PettingZooAgent("mcts", simulations=100) for name in env.agents}
    for name in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else players[name].act(observation, env)
        env.step(action)

* ``act(observation, env)``: the wrapped agent acts on ``env.unwrapped.game`` (any agent).
* ``act(observation)`` without ``env``: only for agents that can play from the observation
  and its action mask alone (those with an ``act_observation(observation, mask)`` method,
  such as :class:`~concordia_env.agents.policy.PolicyAgent`); any other agent raises ``ValueError``
  asking for ``env``, because it needs the engine game to plan. An options-level model
  (``PettingZooAgent("policy", path="opt.zip")``) plays from the observation alone in an env
  with ``level="options"`` (it picks one of the env's options), and in a flat env with ``env``
  (it computes the options from the game, as the env would).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import make
from .base import Agent


class PettingZooAgent:
    """An engine agent (or a registry name plus options) acting in a PettingZoo env."""

    def __init__(self, agent: Agent | str, **options: Any) -> None:
        if options and not isinstance(agent, str):
            raise ValueError("options go with an agent name, e.g. PettingZooAgent('mcts', simulations=50)")
        self.agent = make(agent, **options) if isinstance(agent, str) else agent

    def reset(self, seed: int | None = None) -> None:
        self.agent.reset(seed)

    def act(self, observation: dict | np.ndarray | None = None, env: Any = None) -> int:
        """The wrapped agent's action for the selected PettingZoo agent."""
        if env is not None:
            game = env.unwrapped.game
            return int(self.agent.act(game))
        act_observation = getattr(self.agent, "act_observation", None)
        if act_observation is None:
            raise ValueError(
                f"{self.agent!r} plans on the engine game: call act(observation, env) (the game is env.unwrapped.game)"
            )
        if not isinstance(observation, dict) or "action_mask" not in observation:
            raise ValueError("without env, act() needs the PettingZoo observation dict with 'action_mask'")
        if "options" in observation:  # an env with level="options": the agent picks one of the env's own options
            return int(act_observation(observation, observation["action_mask"]))
        return int(act_observation(observation["observation"], observation["action_mask"]))

    def __repr__(self) -> str:
        return f"PettingZooAgent({self.agent!r})"
