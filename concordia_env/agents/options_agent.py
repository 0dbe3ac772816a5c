"""``OptionsAgent``: a policy of the options level plays as an agent, on the options the env shows.

At every decision the agent computes the turn options exactly as the options-level
environments do (:class:`~concordia_env.envs.options_level.OptionSet`: the same
determinization, drawn from a seed of the agent's own generator as ``SingleAgentEnv`` draws
one from its ``np_random``; the same kept ``max_options`` and their order; the same
features), asks its ``choose`` for one of them and plays that option's first action (the
``"decision"`` granularity). Every options-level model the project plays goes through it:
a saved or in-memory ``MaskablePPO(OptionsPolicy)`` (:mod:`concordia_env.agents.policy`),
``concordia train ppo_options``'s network and RLlib's options module (:mod:`concordia_env.training`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from concordia_env.engine.game import Game
from concordia_env.envs.options_level import OptionSet

from .base import Agent, draw_seed

#: the name the learner's seats show in a training run's evaluation records and replays
LEARNER = "policy (learner)"


class OptionsAgent(Agent):
    """A policy of the options level as an agent: it picks one of the turn options, and plays its first action.

    At every decision the options are computed as ``SingleAgentEnv(level="options")``
    computes them (:class:`~concordia_env.envs.options_level.OptionSet`, determinized with a
    seed drawn from the agent's own generator) and ``choose`` maps the options-level
    observation (``{"observation", "options", "action_mask"}``) to the index of an option;
    the agent plays that option's first action (the ``"decision"`` granularity). A decision
    with one legal action is played without asking. Copies share ``choose``.
    """

    name = LEARNER

    def __init__(self, choose: Callable[[dict[str, np.ndarray]], int], max_options: int, features_version: int) -> None:
        super().__init__()
        self.choose = choose
        self.max_options, self.features_version = max_options, features_version
        self.options = OptionSet(max_options, features_version)

    def __deepcopy__(self, memo: dict[int, Any]) -> OptionsAgent:
        return OptionsAgent(self.choose, self.max_options, self.features_version)

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        self.options.compute(game, draw_seed(self.rng))
        option = self.options.check(self.choose(self.options.observation(game.observation(game.current_player))))
        return self.checked(game, self.options.first_action(option), legal)


__all__ = ["LEARNER", "OptionsAgent"]
