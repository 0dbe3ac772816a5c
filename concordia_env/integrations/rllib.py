"""Concordia on Ray RLlib: the env with the keys RLlib's action masking reads, and fixed policies to play against.

RLlib's stock ``ActionMaskingTorchRLModule`` reads the observation from the key
``"observations"`` and the legal actions from ``"action_mask"``; the PettingZoo env gives
``{"observation", "action_mask"}``, PettingZoo's classic convention, so
``PettingZooEnv(concordia_env.env())`` with that module fails with ``KeyError: 'observations'``.
This module gives the env RLlib expects and the policies that never learn (``pip install -e ".[rllib]"``):

* :func:`env`: RLlib's ``PettingZooEnv`` over :class:`RLlibObservation` over
  ``concordia_env.env(**options)``. It takes RLlib's ``env_config`` (a dict) and/or keyword
  options, so ``register_env("concordia", env)`` registers it as it is. Illegal actions are
  penalized (a lost episode, −1) unless ``illegal_action="raise"`` is given, so an env runner
  never crashes; ``with_state=True`` adds the engine's state array under ``"state"``, which
  the fixed agent policies need (the learner's masking module ignores that key).
* :func:`fixed_policy_spec`: the ``RLModuleSpec`` of a policy that is never trained:
  ``"random"`` (a uniformly random legal action, :class:`RandomRLModule`) or any agent spec
  (``"heuristic"``, ``"mcts:50"``, ``"learned"``: :class:`AgentRLModule`, which plays the
  project's agent on the game rebuilt from ``"state"``). Keep it out of ``policies_to_train``.

Your own config, PPO for ``player_0`` against the heuristic (``docs/environments.md`` runs it)::

    register_env("concordia", rllib.env)
    modules = {"learner": RLModuleSpec(module_class=ActionMaskingTorchRLModule),
               "heuristic": rllib.fixed_policy_spec("heuristic", map="italia")}
    config = (PPOConfig()
        .environment("concordia", env_config={"map": "italia", "num_players": 2, "with_state": True})
        .multi_agent(policies=set(modules), policies_to_train=["learner"],
                     policy_mapping_fn=lambda agent, episode, **kw: "learner" if agent == "player_0" else "heuristic")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules)))

``concordia train rllib`` (:mod:`concordia_env.training.rllib_ppo`) is the full script built on
this: self-play of one shared policy, fixed opponents in a share of the seats,
checkpoints, a cluster, and the evaluation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

import concordia_env
from concordia_env.engine.game import Game
from concordia_env.envs import opponents

#: the observation keys of RLlib's action-masking module (and the options level's feature rows)
OBSERVATIONS, ACTION_MASK, STATE, OPTIONS = "observations", "action_mask", "state", "options"


class RLlibObservation(BaseWrapper):
    """The AEC env with RLlib's observation keys: ``{"observations", "action_mask"[, "options"][, "state"]}``.

    At the options level (``level="options"``) the options' feature rows keep their key
    ``"options"`` (what :class:`~concordia_env.training.options_rllib.OptionsRLModule` reads).

    With ``with_state`` the engine's state array rides along for the fixed agent policies,
    which play on the game itself.
    """

    def __init__(self, env: Any, with_state: bool = False) -> None:
        super().__init__(env)
        self.with_state = with_state

    def observation_space(self, agent: str) -> spaces.Dict:
        inner = self.env.observation_space(agent)
        parts = {OBSERVATIONS: inner["observation"], ACTION_MASK: inner["action_mask"]}
        if OPTIONS in inner.spaces:  # the options level: the options' feature rows ride along
            parts[OPTIONS] = inner[OPTIONS]
        if self.with_state:
            parts[STATE] = self.env.unwrapped.state_space
        return spaces.Dict(parts)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        obs = self.env.observe(agent)
        out = {OBSERVATIONS: obs["observation"], ACTION_MASK: obs["action_mask"]}
        if OPTIONS in obs:
            out[OPTIONS] = obs[OPTIONS]
        if self.with_state:
            out[STATE] = self.env.unwrapped.state()
        return out


def env(env_config: Mapping[str, Any] | None = None, /, **options: Any) -> PettingZooEnv:
    """RLlib's ``PettingZooEnv`` over :class:`RLlibObservation` over ``concordia_env.env(**options)``.

    ``env_config`` (what RLlib passes to a registered env) and ``options`` are merged, the
    keyword options winning; ``with_state`` (default False) goes to :class:`RLlibObservation`,
    everything else to ``concordia_env.env`` with ``illegal_action="penalize"`` by default.
    """
    merged = {**(env_config or {}), **options}
    with_state = bool(merged.pop("with_state", False))
    merged.setdefault("illegal_action", "penalize")
    return PettingZooEnv(RLlibObservation(concordia_env.env(**merged), with_state=with_state))


# =========================================================================== fixed policies
def _rows(value: Any) -> np.ndarray:
    """A batch column as a numpy array (RLlib hands torch tensors or numpy arrays)."""
    return value.cpu().numpy() if hasattr(value, "cpu") else np.asarray(value)


class FixedRLModule(RLModule):
    """A policy that only acts: exploration is inference, and it refuses to be trained."""

    def fixed_config(self) -> dict[str, Any]:
        """The ``model_config`` this module was built with (a plain dict, see :func:`fixed_policy_spec`)."""
        if not isinstance(self.model_config, dict):
            raise TypeError(f"{type(self).__name__} takes a dict model_config, got {self.model_config!r}")
        return self.model_config

    def _forward_exploration(self, batch: dict, **kwargs: Any) -> dict:
        return self._forward_inference(batch, **kwargs)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        raise NotImplementedError(f"{type(self).__name__} is fixed: keep its policy out of policies_to_train")


class RandomRLModule(FixedRLModule):
    """A uniformly random legal action per row; ``model_config={"seed": s}`` seeds it."""

    def setup(self) -> None:
        self._rng = np.random.default_rng(self.fixed_config().get("seed"))

    def _forward_inference(self, batch: dict, **kwargs: Any) -> dict:
        masks = _rows(batch[Columns.OBS][ACTION_MASK])
        return {Columns.ACTIONS: np.array([self._rng.choice(np.flatnonzero(m)) for m in masks])}


class AgentRLModule(FixedRLModule):
    """A project agent (``model_config={"agent": "heuristic", "map": "italia", "seed": s}``) on the rebuilt game.

    The agent is built from its spec by the agents' registry
    (:func:`concordia_env.envs.opponents.from_spec`) and plays on ``Game(state, map)``, the
    game rebuilt from the observation's ``"state"`` key: the env must be made with
    ``with_state=True``.
    """

    def setup(self) -> None:
        options = self.fixed_config()
        self._map = options["map"]
        self._agent = opponents.from_spec(options["agent"])
        self._agent.reset(options.get("seed"))

    def _forward_inference(self, batch: dict, **kwargs: Any) -> dict:
        if STATE not in batch[Columns.OBS]:
            raise KeyError(
                f"the {self.fixed_config()['agent']!r} policy plays on the game: make the env with with_state=True"
            )
        states = _rows(batch[Columns.OBS][STATE]).astype(np.int32)
        actions = [self._agent.act(Game(np.ascontiguousarray(s), self._map)) for s in states]
        return {Columns.ACTIONS: np.array(actions)}


def fixed_policy_spec(agent: str, map: str, seed: int | None = None, **spec_options: Any) -> RLModuleSpec:
    """The ``RLModuleSpec`` of a never-trained policy: ``"random"``, or any agent spec played on the game.

    ``map`` is the env's map (an agent plays on ``Game(state, map)``); ``seed`` seeds the
    policy's choices; ``spec_options`` (``observation_space``, ``action_space``) go to the
    spec when given, else RLlib takes the spaces from the env. An unknown agent name raises
    ``ValueError`` here, before Ray builds anything.
    """
    if agent == "random":
        return RLModuleSpec(module_class=RandomRLModule, model_config={"seed": seed}, **spec_options)
    opponents.builder_for(opponents.split_spec(agent)[0])  # the name is known (ValueError otherwise)
    return RLModuleSpec(
        module_class=AgentRLModule, model_config={"agent": agent, "map": map, "seed": seed}, **spec_options
    )
