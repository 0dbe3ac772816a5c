"""concordia-env: a rules-exact Concordia engine and RL environments.

The parts, each a subpackage (``docs/architecture.md`` has the picture):

* :mod:`concordia_env.engine`: the rules over one state array, and ``Game``;
* :mod:`concordia_env.strategy`: the compiled strategy core the agents play with;
* :mod:`concordia_env.envs`: PettingZoo, Gymnasium and batched environments;
* :mod:`concordia_env.integrations`: OpenSpiel;
* :mod:`concordia_env.views`: text, pictures and HTML replays;
* :mod:`concordia_env.agents`: random, heuristic, MCTS, trained policies;
* :mod:`concordia_env.tools`: what people run (the ``concordia`` command), with
  :mod:`concordia_env.training` and :mod:`concordia_env.benchmarks` beside it.
"""

from __future__ import annotations

from typing import Any

from gymnasium.envs.registration import register as _register_gym_env
from gymnasium.envs.registration import registry as _gym_registry

from . import _aliases
from .engine import maps
from .engine.actions import NUM_ACTIONS
from .engine.errors import IllegalActionError, OpponentError, ResetNeededError
from .engine.game import Game
from .envs.common import MAX_EPISODE_STEPS

_aliases.install()  # the module names from before the re-cut (concordia_env.game, agents, ...)

#: the environments, imported on first use (PettingZoo takes half a second to import)
_LAZY = {
    "env": "envs.pettingzoo_env",
    "raw_env": "envs.pettingzoo_env",
    "parallel_env": "envs.pettingzoo_env",
    "SingleAgentEnv": "envs.gym_env",
    "VectorGame": "envs.vector",
    "ConcordiaVectorEnv": "envs.vector_env",
    # the options level's SB3 policy (needs the train extra: torch, stable-baselines3, sb3-contrib)
    "OptionsPolicy": "training.options_policy",
}

#: the Gymnasium ids: each fixes the observation version (see the version table of ``gym_env``);
#: "Concordia-v1" is the current one
GYM_ENV_IDS = {"Concordia-v0": 0, "Concordia-v1": 1}
for _env_id, _version in GYM_ENV_IDS.items():
    if _env_id not in _gym_registry:
        _register_gym_env(
            id=_env_id,
            entry_point="concordia_env.envs.gym_env:SingleAgentEnv",
            kwargs={"observation_version": _version},
            max_episode_steps=MAX_EPISODE_STEPS,
        )

#: the options level (``SingleAgentEnv(level="options")``, :mod:`concordia_env.envs.options_level`): the
#: learner chooses among the turn options of its decision, described by the learned agent's features
GYM_OPTIONS_ENV_IDS = {"ConcordiaOptions-v1": 1}
for _env_id, _version in GYM_OPTIONS_ENV_IDS.items():
    if _env_id not in _gym_registry:
        _register_gym_env(
            id=_env_id,
            entry_point="concordia_env.envs.gym_env:SingleAgentEnv",
            kwargs={"observation_version": _version, "level": "options"},
            max_episode_steps=MAX_EPISODE_STEPS,
        )


#: the vector env with compiled opponents inside (``gymnasium.make_vec("ConcordiaVector-v1", num_envs=...)``)
GYM_VECTOR_ENV_IDS = {"ConcordiaVector-v1": 1}
for _env_id, _version in GYM_VECTOR_ENV_IDS.items():
    if _env_id not in _gym_registry:
        _register_gym_env(
            id=_env_id,
            vector_entry_point="concordia_env.envs.vector_env:ConcordiaVectorEnv",
            kwargs={"observation_version": _version},
        )


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    if f"{__name__}.{name}" in _aliases.ALIASES:  # an old module name (concordia_env.render, ...)
        return _aliases.attribute(__name__, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "NUM_ACTIONS",
    "ConcordiaVectorEnv",
    "Game",
    "IllegalActionError",
    "OpponentError",
    "OptionsPolicy",
    "ResetNeededError",
    "SingleAgentEnv",
    "VectorGame",
    "env",
    "maps",
    "parallel_env",
    "raw_env",
]
__version__ = "0.1.0"
