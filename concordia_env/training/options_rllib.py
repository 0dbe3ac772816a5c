"""``OptionsRLModule``: the options level's network as an RLlib RLModule (new API stack, PPO).

RLlib's env for the options level is :func:`concordia_env.integrations.rllib.env` with
``level="options"``: observations ``{"observations", "options", "action_mask"}`` (RLlib's
action-masking keys, the options' feature rows under ``"options"``). The module is
:class:`~concordia_env.agents.options_net.OptionsNet`, the network of
:class:`~concordia_env.OptionsPolicy` and of ``concordia train ppo_options``: one shared MLP
scores every option (invalid ones get a logit of -1e8), the value reads the pooled options
and the flat observation. ``model_config`` takes OptionsNet's sizes (``option_hidden``,
``observation_hidden``, ``pi``, ``vf``, ``use_observation``, ``utility_prior``)::

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env
    from concordia_env.integrations import rllib
    from concordia_env.training.options_rllib import OptionsRLModule

    register_env("concordia", rllib.env)
    config = (PPOConfig()
        .environment("concordia", env_config={"level": "options", "map": "italia", "num_players": 2})
        .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent, episode, **kw: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs={"shared": RLModuleSpec(module_class=OptionsRLModule)})))

``concordia train rllib --level options`` (:mod:`concordia_env.training.rllib_ppo`) runs that
self-play with its checkpoints and evaluation. :func:`options_agent` plays a module greedily
as an agent, for :func:`concordia_env.training.run_evaluation.evaluate`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
from ray.rllib.core.rl_module.torch import TorchRLModule

from concordia_env.agents.options_net import OptionsNet
from concordia_env.integrations.rllib import ACTION_MASK, OBSERVATIONS, OPTIONS
from concordia_env.strategy import features_version

from .run_evaluation import OptionsAgent

#: the model_config keys the module reads (OptionsNet's sizes)
MODEL_KEYS = ("option_hidden", "observation_hidden", "pi", "vf", "use_observation", "utility_prior")
#: the keys of RLlib's default model config, which RLlib may add to any module's (ignored here)
RLLIB_DEFAULTS = {f.name for f in dataclasses.fields(DefaultModelConfig)}


class OptionsRLModule(TorchRLModule, ValueFunctionAPI):
    """PPO's RLModule for the options level: masked logits over the options, the value of the pooled options."""

    def setup(self) -> None:
        space = self.observation_space
        keys = {OBSERVATIONS, OPTIONS, ACTION_MASK}
        if not isinstance(space, spaces.Dict) or not keys <= set(space.spaces):
            raise ValueError(
                f"OptionsRLModule takes observations with keys {sorted(keys)} (concordia_env.integrations.rllib.env "
                f"with level='options'); got {space!r}"
            )
        config = dict(self.model_config) if isinstance(self.model_config, dict) else {}
        unknown = set(config) - set(MODEL_KEYS) - RLLIB_DEFAULTS  # RLlib adds its defaults (vf_share_layers...)
        if unknown:
            raise ValueError(f"OptionsRLModule's model_config takes {list(MODEL_KEYS)}; got {sorted(unknown)}")
        config = {key: value for key, value in config.items() if key in MODEL_KEYS}
        (observation_size,), (self.max_options, num_features) = (
            space[OBSERVATIONS].shape or (),
            space[OPTIONS].shape or (),
        )
        self.net = OptionsNet(observation_size, num_features, **config)

    def _logits_and_values(self, batch: dict[str, Any]) -> tuple[th.Tensor, th.Tensor]:
        obs = batch[Columns.OBS]
        return self.net(obs[OBSERVATIONS].float(), obs[OPTIONS].float(), obs[ACTION_MASK].float())

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        return {Columns.ACTION_DIST_INPUTS: self._logits_and_values(batch)[0]}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, values = self._logits_and_values(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: values}  # the values, for compute_values

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> th.Tensor:
        return embeddings if embeddings is not None else self._logits_and_values(batch)[1]


def options_agent(module: OptionsRLModule) -> OptionsAgent:
    """The module's greedy choice (the most probable valid option) as an agent."""
    net = module.net

    def choose(obs: dict[str, np.ndarray]) -> int:
        with th.no_grad():
            rows = (th.as_tensor(obs[key]).float().unsqueeze(0) for key in ("observation", OPTIONS, ACTION_MASK))
            logits, _ = net(*rows)
        return int(logits.argmax())

    return OptionsAgent(choose, module.max_options, features_version(net.encoder.num_features))
