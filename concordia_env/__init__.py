"""concordia-env: a rules-exact engine for the board game Concordia, and RL environments around it.

Quick start::

    import concordia_env

    game = concordia_env.Game.new(map="italia", num_players=2, seed=0)  # the engine: step(), legal_actions()
    aec = concordia_env.env(map="italia", num_players=2)  # PettingZoo AEC; parallel_env() for the parallel API
    gym = concordia_env.SingleAgentEnv(opponents="heuristic")  # Gymnasium, or gymnasium.make("Concordia-v1")
    report = concordia_env.evaluate("heuristic", opponents=["random"], games=200)  # win rates with intervals

The entry points, each documented in its module's docstring (``help(module)``; these ship
with the package), and the ``concordia`` command (``concordia --help``):

* ``Game``, ``IllegalActionError``: :mod:`concordia_env.engine.game`;
* ``env``, ``raw_env``, ``parallel_env``: PettingZoo, :mod:`concordia_env.envs.pettingzoo_env`;
* ``SingleAgentEnv`` (``"Concordia-v1"``): Gymnasium, :mod:`concordia_env.envs.gym_env`;
* ``ConcordiaVectorEnv`` (``gymnasium.make_vec("ConcordiaVector-v1", num_envs=64)``), opponents
  inside the batch: :mod:`concordia_env.envs.vector_env`; for Stable-Baselines3 (the fast path,
  ``train`` extra): ``concordia_env.envs.sb3.SB3VecEnv``;
* ``VectorGame``: many games on one 2-D state array, :mod:`concordia_env.envs.vector_game`;
* ``OptionsPolicy``: the SB3 policy of the options level (``level="options"``; ``train`` extra),
  :mod:`concordia_env.agents.options_policy`;
* ``evaluate``: a model, callable or agent against the reference agents, :mod:`concordia_env.tools.evaluate`;
* the agents (``random``, ``heuristic``, ``mcts``, ``learned``, ``policy``): :mod:`concordia_env.agents`.

The rules and agents are compiled by numba on first use (30-60 s each part, cached on disk):
``concordia warmup`` compiles everything ahead of time.

The parts, each a subpackage:

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

from . import _extras
from .engine import maps
from .engine.actions import NUM_ACTIONS
from .engine.errors import IllegalActionError, OpponentError, ResetNeededError
from .engine.game import Game
from .envs.env_checks import MAX_EPISODE_STEPS

#: the environments and the evaluation, imported on first use (PettingZoo takes half a second to import)
_LAZY = {
    "env": "envs.pettingzoo_env",
    "raw_env": "envs.pettingzoo_env",
    "parallel_env": "envs.pettingzoo_env",
    "SingleAgentEnv": "envs.gym_env",
    "VectorGame": "envs.vector_game",
    "ConcordiaVectorEnv": "envs.vector_env",
    "evaluate": "tools.evaluate",
    # the options level's SB3 policy (needs the train extra: torch, stable-baselines3, sb3-contrib)
    "OptionsPolicy": "agents.options_policy",
}
#: lazy names that need an extra: name -> (extra, the modules it brings that the name imports)
_LAZY_EXTRAS = {"OptionsPolicy": ("train", ("torch", "stable_baselines3", "sb3_contrib"))}


def _missing_module(name: str) -> str | None:
    """The first module of the extra a lazy name needs that is not installed (None: all there); imports nothing."""
    return next((m for m in _LAZY_EXTRAS.get(name, ("", ()))[1] if not _extras.installed(m)), None)


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
            entry_point="concordia_env.envs.vector_env:make_refused",  # make() says to use make_vec()
            kwargs={"observation_version": _version},
        )


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        missing = _missing_module(name)
        if missing is not None:
            line = _extras.needs_text((_LAZY_EXTRAS[name][0],), missing)
            raise _extras.MissingExtraError(f"concordia_env.{name} {line}", name=missing)

        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names and the lazy ones, so that ``dir()``, ``help()`` and completion list them.

    A lazy name whose extra is not installed is left out, so that ``help(concordia_env)`` works on
    the core install (asking for the name itself says which extra it needs).
    """
    return sorted(set(globals()) | {name for name in _LAZY if _missing_module(name) is None})


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
    "evaluate",
    "maps",
    "parallel_env",
    "raw_env",
]
__version__ = "0.1.0"
