"""What the environments share besides rewards (:mod:`concordia_env.envs.rewards`).

Option checks, the action check at the envs' entry points (``action_index``, the one
:meth:`Game.step` runs), rendering, and the action space
whose unmasked ``sample()`` draws a legal action. Nothing here imports PettingZoo, so the
Gymnasium and batched environments stay free of it.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.errors import ArgumentTypeError, short_repr
from concordia_env.engine.game import Game
from concordia_env.engine.game import action_index as action_index  # the envs check actions with the engine's own check

ILLEGAL_ACTION_MODES: tuple[str, ...] = ("raise", "penalize")
RENDER_MODES = ["human", "ansi", "rgb_array"]
RENDER_FPS = 2
#: ``max_episode_steps`` of the registered Gymnasium ids: learner decisions before Gymnasium's
#: TimeLimit truncates. Random play takes 125-230 learner decisions on average and at most ~490
#: (measured on Italia 2p, Creta 2p, Imperium 5p), so the cap only stops policies that never end
#: a game (one that plays nothing but the Tribune, for example).
MAX_EPISODE_STEPS = 2000


def check_illegal_action(mode: str) -> str:
    if not isinstance(mode, str) or mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}; got {mode!r}")
    return mode


def check_render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(RENDER_MODES)}; got {render_mode!r}")
    return render_mode


#: what the environments' constructors take (besides the engine's game options): a reset
#: option of one of these names would be ignored, so it is refused
CONSTRUCTOR_OPTIONS = frozenset(
    {
        "map",
        "num_players",
        "seed",
        "reward",
        "render_mode",
        "illegal_action",
        "observation_version",
        "max_cycles",
        "max_turns",
        "opponents",
        "seat",
        "intermediate_scoring",
        "display_costs",
        "start_player",
    }
)


def check_reset_options(options: Any) -> None:
    """``reset(options=...)``: the environments read no reset options; refuse what would be ignored silently.

    ``None`` and a mapping are taken; anything else raises ``ArgumentTypeError``. A key that
    names a constructor option (``{"map": "imperium"}``, ``{"num_players": 4}``,
    ``{"start_player": 1}``...) raises ``ValueError``: the game would be played on the
    constructor's settings. Any other key is not read, and ``reset`` says so with a
    ``UserWarning``: PettingZoo's own ``api_test`` and ``parallel_test`` call
    ``reset(seed=0, options={"options": 1})`` to check the signature and require the call
    to succeed, so refusing every key would fail the standard conformance tests.
    """
    if options is None:
        return
    if not isinstance(options, Mapping):
        raise ArgumentTypeError(f"reset options are a dict or None, got {short_repr(options)}")
    named = [key for key in options if isinstance(key, str) and key in CONSTRUCTOR_OPTIONS]
    if named:
        raise ValueError(
            f"reset() takes no options, got {', '.join(map(repr, named[:5]))}: the map, player count and game "
            f"options are given to the constructor (make a new env to change them)"
        )
    if options:
        keys = ", ".join(short_repr(k, 30) for k in list(options)[:5])
        warnings.warn(f"reset() reads no options and ignores {keys}", UserWarning, stacklevel=3)


def check_cap(name: str, value: int | None) -> int | None:
    """An episode cap (``max_cycles``, ``max_turns``): None or a positive int, else TypeError/ValueError."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be None or a positive int; got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be None or a positive int; got {value!r}")
    return int(value)


def render_game(game: Game, mode: str | None, viewer: Any) -> tuple[Any, Any]:
    """Render ``game`` in ``mode``; returns (what render() returns, the human viewer to keep)."""
    if mode is None:
        gymnasium.logger.warn("render() was called without a render_mode; pass render_mode= to the constructor.")
        return None, viewer
    if mode == "ansi":
        from concordia_env.views.render import render_text  # matplotlib and the board drawing load only when rendering

        return render_text(game), viewer
    if mode == "rgb_array":
        from concordia_env.views.render import render_rgb

        return render_rgb(game), viewer
    from concordia_env.views.render import HumanViewer

    if viewer is None:
        viewer = HumanViewer()
    viewer.render(game)
    return None, viewer


class LegalActionSpace(spaces.Discrete):
    """``Discrete(NUM_ACTIONS)`` whose unmasked ``sample()`` draws a legal action of the pending decision.

    The environments raise on illegal actions, yet generic tools sample the action space
    blindly (Gymnasium's, Stable-Baselines3's and RLlib's env checkers, PettingZoo's
    ``state_test``, quick random baselines); with this space they get a uniformly random
    *legal* action. ``legal_mask()`` returns the legal actions of whoever the space belongs
    to; when it has none (not this agent's decision, episode over) the sample is uniform
    over the whole space. An explicit ``mask`` or ``probability`` is used as given. A copy
    or pickle of the space is a plain ``Discrete`` (it does not drag the env along).
    """

    def __init__(self, legal_mask: Callable[[], np.ndarray], seed: int | None = None) -> None:
        super().__init__(NUM_ACTIONS, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            legal = self._legal_mask()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (spaces.Discrete, (int(self.n),))
