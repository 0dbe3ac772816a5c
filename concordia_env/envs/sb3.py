"""The batch with opponents inside as a Stable-Baselines3 ``VecEnv`` (needs the ``train`` extra).

:class:`SB3VecEnv` takes the options of :class:`~concordia_env.envs.vector_env.ConcordiaVectorEnv`
and serves its rows to SB3 algorithms; ``MaskablePPO`` (``sb3_contrib``) gets the legal
actions from ``env_method("action_masks")``, answered from the batch's masks without a call
per row. Observations are new arrays at every step (SB3 keeps the previous step's to store
it after the next step returns).

Per-step infos follow SB3: one dict per row with ``learner_seat``; where the row's game
ended in that step (the row then already holds its next game, SB3's same-step autoreset),
also ``terminal_observation`` (the last observation from the learner's seat),
``TimeLimit.truncated`` (the game was cut by ``max_turns``) and ``final_info`` (the vector
env's ``final_info`` of that row: ``final_scores``, ``scores``, ``winner``, ``learner_seat``,
``seed``, ``decisions``, ``truncated``).

With ``level="options"`` (:mod:`concordia_env.envs.options_level`) the observations are
dicts of arrays (``observation``, ``options``, ``action_mask``; SB3's ``Dict`` observation
space, what ``concordia_env.OptionsPolicy`` reads), the actions option indices
(``Discrete(max_options)``) and ``action_masks()`` / ``env_method("action_masks")`` the
option masks; a ``terminal_observation`` is a dict of that row's arrays.

Starting from a position, at both levels: ``reset(options={"position": p})`` or SB3's own
``env.set_options({"position": p})`` before the next ``reset()`` (what ``model.learn``
calls): every row's first game starts from ``p`` (the vector env's "Reset options"). Like
``seed(s)``, options serve one reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from concordia_env._extras import needs_extra
from concordia_env.engine.errors import integer_argument

with needs_extra("concordia_env.envs.sb3"):  # without the train extra: one line naming it
    from stable_baselines3.common.vec_env import VecEnv

from .vector_env import ConcordiaVectorEnv
from .vector_game import MAX_SEED


class SB3VecEnv(VecEnv):
    """The batch as a Stable-Baselines3 ``VecEnv`` (``MaskablePPO`` asks ``env_method("action_masks")``).

    Takes the options of :class:`ConcordiaVectorEnv`. SB3's conventions: ``reset()`` returns
    the observations only (infos in ``reset_infos``); ``step_wait`` returns one info dict per
    row, with ``terminal_observation`` and ``TimeLimit.truncated`` where the row's game
    ended (then the row already holds its next game), plus ``learner_seat`` and, at the end
    of a game, the ``final_info`` dict of the vector env. ``seed(s)`` sets the base seed of
    the next ``reset()``.
    """

    def __init__(self, num_envs: int = 16, **options: Any) -> None:
        self.env = ConcordiaVectorEnv(num_envs, **options)
        super().__init__(self.env.num_envs, self.env.single_observation_space, self.env.single_action_space)
        self._actions: np.ndarray | None = None
        self._next_seed: int | None = options.get("seed")

    def reset(self, *, options: dict[str, Any] | None = None) -> Any:
        """Every row starts over: the observations (infos in ``reset_infos``).

        ``options`` are the vector env's reset options (``{"position": p}``: every row's
        first game starts from position ``p``); without them, what SB3's ``set_options``
        set for this reset (one dict for every row: the rows of a batch start from one
        position). Like the seed, they serve one reset; a refused reset changes nothing and
        keeps them. A row whose game the opponents end before the learner decides (a
        position's last turn) has already gone on to its next game: its ``reset_infos``
        entry holds ``terminal_observation`` and ``final_info``, as a step's would.
        """
        given = self._options_of_reset() if options is None else options
        obs, infos = self.env.reset(seed=self._next_seed, options=given)
        self._next_seed = None
        self._reset_options()
        self.reset_infos = self._row_infos(infos, infos.get("_final_info", np.zeros(self.num_envs, dtype=np.bool_)))
        return obs

    def _options_of_reset(self) -> dict[str, Any] | None:
        """What ``set_options`` asked for: one dict for every row, or None (different dicts: ValueError)."""
        first = self._options[0]
        if any(other is not first and other != first for other in self._options[1:]):
            raise ValueError(
                "set_options: the rows of a batch start from one position; give one dict for all of them "
                "(env.set_options({'position': p})), not one per row"
            )
        return dict(first) if first else None

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None  # refused actions are not sent again by the next call
        obs, rewards, terminations, truncations, infos = self.env.step(actions)
        dones = terminations | truncations
        row_infos = self._row_infos(infos, dones)
        for row in np.flatnonzero(dones):
            row_infos[row]["TimeLimit.truncated"] = bool(truncations[row] and not terminations[row])
        return obs, rewards.astype(np.float32), dones, row_infos

    @staticmethod
    def _row_infos(infos: dict[str, Any], ended: np.ndarray) -> list[dict[str, Any]]:
        """SB3's infos, one dict per row: ``learner_seat``, and in the rows ``ended`` the finished game."""
        row_infos: list[dict[str, Any]] = [{"learner_seat": int(seat)} for seat in infos["learner_seat"]]
        for row in np.flatnonzero(ended):
            final = {key: value[row] for key, value in infos["final_info"].items() if not key.startswith("_")}
            row_infos[row].update(terminal_observation=infos["final_obs"][row], final_info=final)
        return row_infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every row (bool, n × NUM_ACTIONS; options level: n × max_options)."""
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """The base seed of the next ``reset()`` (row i: ``seed + i``): None or an integer in 0..2**62.

        A seed the batch would refuse is refused here, at once (``ArgumentTypeError`` for a
        non-integer, ``ValueError`` out of range), and the pending seed stays as it was.
        """
        if seed is not None:
            seed = integer_argument(seed, "seed")
            if not 0 <= seed <= MAX_SEED:
                raise ValueError(f"seed must be None or an integer in 0..2**62, got {seed}")
        self._next_seed = seed
        return [None if seed is None else seed + i for i in range(self.num_envs)]

    # ------------------------------------------------------------------ SB3's per-env access
    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        rows = list(self._get_indices(indices))
        if attr_name == "action_masks":
            return [self.action_masks] * len(rows)
        value = getattr(self.env, attr_name)
        return [value] * len(rows)

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError(f"the rows of a batch have no attributes of their own to set ({attr_name!r})")

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        rows = list(self._get_indices(indices))
        if method_name == "action_masks" and not method_args and not method_kwargs:
            masks = self.env.action_masks()  # the option masks at the options level
            return [masks[row] for row in rows]
        raise AttributeError(f"the rows of a batch answer only action_masks(), not {method_name!r}")

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: Any = None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))
