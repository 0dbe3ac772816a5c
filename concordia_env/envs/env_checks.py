"""What the environments share besides rewards (:mod:`concordia_env.envs.rewards`): mostly checks.

Option checks (the reset options: a start position, :func:`check_reset_options`), the
action check at the envs' entry points (``action_index``, the one
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
from concordia_env.engine.position_codec import PositionError

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


#: the reset option that starts an episode from a position (``reset(options={"position": game})``)
POSITION_OPTION = "position"
#: the key PettingZoo's api_test and parallel_test send to check reset's signature: taken without a warning
SIGNATURE_PROBE = "options"
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
        "level",
        "max_options",
        "granularity",
        "features_version",
    }
)


def check_reset_options(options: Any, map_name: str, num_players: int) -> Game | None:
    """The start position a ``reset(options=...)`` asks for, checked; None when it asks for none.

    ``None`` and a mapping are taken (``ArgumentTypeError`` otherwise). A key that names a
    constructor option (``{"map": "imperium"}``) raises ``ValueError``: the game would be
    played on the constructor's settings. ``"position"`` (:data:`POSITION_OPTION`) is a
    :class:`Game` (its state checked: :func:`start_position`), a position's JSON text or its
    dict; it must be a game still running of ``map_name`` with ``num_players`` players, else
    :class:`PositionError` (a ``ValueError``).
    Any other key is not read, and says so with a ``UserWarning`` (a misspelt ``"postion"``
    is seen), except ``"options"`` (:data:`SIGNATURE_PROBE`): PettingZoo's own ``api_test``
    and ``parallel_test`` call ``reset(seed=0, options={"options": 1})`` to check the
    signature, and a conforming env should pass them without a warning of its own. No
    options and ``{}`` warn nothing.
    """
    if options is None:
        return None
    if not isinstance(options, Mapping):
        raise ArgumentTypeError(f"reset options are a dict or None, got {short_repr(options)}")
    named = [key for key in options if isinstance(key, str) and key in CONSTRUCTOR_OPTIONS]
    if named:
        raise ValueError(
            f"reset() takes no options, got {', '.join(map(repr, named[:5]))}: the map, player count and game "
            f"options are given to the constructor (make a new env to change them)"
        )
    ignored = [key for key in options if key not in (POSITION_OPTION, SIGNATURE_PROBE)]
    if ignored:
        keys = ", ".join(short_repr(k, 30) for k in ignored[:5])
        warnings.warn(
            f"reset() reads no options and ignores {keys} (the one reset option is {POSITION_OPTION!r})",
            UserWarning,
            stacklevel=3,
        )
    if POSITION_OPTION not in options:
        return None
    return start_position(options[POSITION_OPTION], map_name, num_players)


def start_position(position: Any, map_name: str, num_players: int) -> Game:
    """A copy of ``position`` (a Game, JSON text or a position dict) if it fits the env, else ``PositionError``.

    A ``Game`` is checked as ``Game(state, map)`` checks a state (about 40 µs, once per reset):
    one built from an edited array with ``with_state(state, check=False)`` (a current player
    of 7 in a 2-player game) would make the compiled rules read outside their arrays.
    """
    if isinstance(position, Game):
        try:  # a checked copy: a game built with ``with_state(state, check=False)`` may hold any values
            game = position.with_state(position.state)
        except ValueError as err:
            raise PositionError(f"reset option 'position' is a Game whose state is no position: {err}") from None
    elif isinstance(position, (str, bytes)):
        game = Game.from_json(position)
    elif isinstance(position, Mapping):
        game = Game.from_dict(dict(position))
    else:
        raise PositionError(
            f"reset option 'position' is a Game, a position's JSON text or its dict, got {short_repr(position)}"
        )
    if game.map.name != map_name or game.num_players != num_players:
        raise PositionError(
            f"the position is a {game.num_players}-player game of {game.map.name}; this env plays "
            f"{num_players}-player {map_name} (make an env of that map and player count)"
        )
    if game.is_over():
        raise PositionError("the position's game is over: there is no decision to start from")
    return game


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
    """``Discrete(n)`` whose unmasked ``sample()`` draws a legal action of the pending decision.

    ``n`` is ``NUM_ACTIONS`` at the flat level and ``max_options`` at the options level
    (:mod:`.options_level`), where ``legal_mask()`` is the option mask.

    The environments raise on illegal actions, yet generic tools sample the action space
    blindly (Gymnasium's, Stable-Baselines3's and RLlib's env checkers, PettingZoo's
    ``state_test``, quick random baselines); with this space they get a uniformly random
    *legal* action. ``legal_mask()`` returns the legal actions of whoever the space belongs
    to; when it has none (not this agent's decision, episode over) the sample is uniform
    over the whole space. An explicit ``mask`` or ``probability`` is used as given. A copy
    or pickle of the space is a plain ``Discrete`` (it does not drag the env along).
    """

    def __init__(self, legal_mask: Callable[[], np.ndarray], seed: int | None = None, n: int = NUM_ACTIONS) -> None:
        super().__init__(n, seed=seed)
        self._legal_mask = legal_mask

    def sample(self, mask: np.ndarray | None = None, probability: np.ndarray | None = None) -> np.int64:
        if mask is None and probability is None:
            legal = self._legal_mask()
            if legal.any():
                mask = legal.astype(np.int8)
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[type, tuple[int]]:
        return (spaces.Discrete, (int(self.n),))
