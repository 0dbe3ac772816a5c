"""concordia-env: a rules-exact Concordia engine and RL environments."""

from __future__ import annotations

from typing import Any

from gymnasium.envs.registration import register as _register_gym_env
from gymnasium.envs.registration import registry as _gym_registry

from . import maps
from .actions import NUM_ACTIONS
from .env_common import MAX_EPISODE_STEPS
from .errors import IllegalActionError, ResetNeededError
from .game import Game

#: the environments, imported on first use (PettingZoo takes half a second to import)
_LAZY = {
    "env": "pettingzoo_env",
    "raw_env": "pettingzoo_env",
    "parallel_env": "pettingzoo_env",
    "SingleAgentEnv": "gym_env",
    "VectorGame": "vector",
}

#: the Gymnasium ids: each fixes the observation version (see the version table of ``gym_env``);
#: "Concordia-v1" is the current one
GYM_ENV_IDS = {"Concordia-v0": 0, "Concordia-v1": 1}
for _env_id, _version in GYM_ENV_IDS.items():
    if _env_id not in _gym_registry:
        _register_gym_env(
            id=_env_id,
            entry_point="concordia_env.gym_env:SingleAgentEnv",
            kwargs={"observation_version": _version},
            max_episode_steps=MAX_EPISODE_STEPS,
        )


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "NUM_ACTIONS",
    "Game",
    "IllegalActionError",
    "ResetNeededError",
    "SingleAgentEnv",
    "VectorGame",
    "env",
    "maps",
    "parallel_env",
    "raw_env",
]
__version__ = "0.1.0"
