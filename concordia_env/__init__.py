"""concordia-env: a rules-exact Concordia engine and RL environments."""

from __future__ import annotations

from typing import Any

from gymnasium.envs.registration import register as _register_gym_env
from gymnasium.envs.registration import registry as _gym_registry

from . import maps
from .actions import NUM_ACTIONS
from .errors import IllegalActionError
from .game import Game

#: the environments, imported on first use (PettingZoo takes half a second to import)
_LAZY = {
    "env": "pettingzoo_env",
    "raw_env": "pettingzoo_env",
    "SingleAgentEnv": "gym_env",
    "VectorGame": "vector",
}

if "Concordia-v0" not in _gym_registry:
    _register_gym_env(id="Concordia-v0", entry_point="concordia_env.gym_env:SingleAgentEnv")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["NUM_ACTIONS", "Game", "IllegalActionError", "SingleAgentEnv", "VectorGame", "env", "maps", "raw_env"]
__version__ = "0.1.0"
