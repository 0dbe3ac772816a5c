"""Concordia as a Gymnasium vector env with the opponents inside the batch (``"ConcordiaVector-v1"``).

Each of ``num_envs`` rows is a game in which the learner plays one seat and compiled
opponents (``random``, ``heuristic``, the greedy ``learned`` model; :mod:`concordia_env.strategy.players`)
play the others inside :class:`~concordia_env.VectorGame`, on its threads, until the
learner must decide again. One ``step`` is one learner decision in every row, like
``SingleAgentEnv`` in ``n`` copies, without a Python call per opponent decision or a
process per environment. :class:`concordia_env.envs.sb3.SB3VecEnv` serves the same batch
to Stable-Baselines3 (``MaskablePPO``; it needs the ``train`` extra).

| | |
| --- | --- |
| Creation | ``ConcordiaVectorEnv(64, opponents="heuristic")``, ``gymnasium.make_vec("ConcordiaVector-v1", 64)`` |
| Single observation space | ``Box(float32, (OBS_SIZES[version],))``: the learner's ``observe(game, seat)`` |
| Single action space | ``Discrete(NUM_ACTIONS)``; the batch's ``action_space.sample()`` draws a legal action per row |
| Action masks | ``env.action_masks()``: bool ``(num_envs, NUM_ACTIONS)``; also ``infos["action_mask"]`` |
| Reward | as in every env (``"win"``, ``"rank"``, ``"vp"``, ``"score_delta"``), the learner's, per row |
| Autoreset | ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``) |
| SB3 | ``envs.sb3.SB3VecEnv(...)``, a ``VecEnv``: ``env_method("action_masks")`` for ``MaskablePPO`` |
| Options level | ``level="options"``: single spaces ``Dict(observation, options (K, F), action_mask (K,))`` and |
| | ``Discrete(K)``; ``action_masks()`` bool ``(num_envs, K)``; see "Options level" |

Options
-------
* ``opponents``: ``"random"``, ``"heuristic"``, ``"learned"`` (specs with options too, e.g.
  ``"heuristic:opponent_weight=0.5"``, ``"learned:path/to/model.npz"``), agent objects of
  those kinds, or a list with one per other seat. Only agents with a compiled twin play
  inside a batch (``ValueError`` otherwise; see :mod:`concordia_env.envs.opponents`).
  ``"random"`` unless told, as in ``SingleAgentEnv``.
* ``map``, ``num_players``, ``reward``, ``observation_version`` and the engine's game options,
  as in ``SingleAgentEnv`` (2-player Italia unless told; every form's defaults are in
  :mod:`concordia_env.engine.defaults`).
* ``threads``: rows are stepped, played and observed on this many threads (results do not
  depend on it).
* ``max_turns``: a row whose game has completed this many turns is *truncated* and starts
  its next game (``None``, the default: games end by the rules only).
* ``seed``: the base seed of the first ``reset()`` (``None``: random).
* ``copy``: ``True`` (default) returns new observation arrays; ``False`` writes them into
  one buffer that the next ``step`` overwrites (Gymnasium's ``copy=False`` convention).
* ``level`` (``"flat"``, default, or ``"options"``), ``max_options``, ``granularity`` and
  ``features_version``: see "Options level".

Options level
-------------
With ``level="options"`` (:mod:`concordia_env.envs.options_level`) every row's learner
chooses among the turn options of its decision: the observation is a dict of batched
arrays, ``"observation"`` (n, OBS_SIZE), ``"options"`` (n, K, F) and ``"action_mask"``
(n, K) int8, and ``step`` takes one kept option's index per row. The options of every row
are computed after each step in compiled code on the batch's threads
(``options_level.options_rows``), with the compiled opponents inside as at the flat level;
each row determinizes with its own learner generator, ``numpy.random.default_rng(game
seed)`` after the opponents' seeds are drawn from it, one draw per decision, exactly as
``SingleAgentEnv(level="options")`` draws from its ``np_random``: row i's k-th game shows
the options that env shows for the same seat and seed (``tests/test_options_vector.py``
checks it move by move). ``granularity="turn"`` plays the chosen option's turn inside the
compiled step (``VectorGame.step_turns``). A masked or out-of-range option raises
:class:`~concordia_env.IllegalActionError` naming the row (``err.row``), nothing changed.
The infos add ``"option_actions"`` (int64 (n, K, 2)); a finished game's ``final_obs`` is a
dict whose options and mask are zeros (no decision is left).

Reset options
-------------
``reset(options={"position": p})``: every row's first game starts from a copy of position
``p`` (a ``Game``, its JSON text or dict, of this map and player count, else
``PositionError``); the seeds still seat the learner and seed the opponents and the later
games. Any other key that names a constructor option raises ``ValueError``, nothing changed.
A row whose opponents end the position's game before its learner decides (its last turn,
the learner's seat done) ends at once: ``reset``'s infos hold its ``final_obs`` and
``final_info`` (``_final_info`` marks the rows), as a step's do, and the row has already
started its next game (seed ``s + i + num_envs``), so every row has a decision.

Threads
-------
One env may be stepped from several threads: ``reset``, ``step``, ``action_masks`` and
``action_space.sample()`` hold the batch's lock (``VectorGame.lock``) for the whole call,
so the option arrays (options level) always belong to the rows' current decisions. Calls
run one after another; an option chosen from masks that another thread's step has since
replaced is checked against the current decision (masked: ``IllegalActionError``).

Seats and seeds
---------------
``reset(seed=s)`` starts row i's first game with seed ``s + i``; row i's k-th game has seed
``s + i + k·num_envs`` and seats the learner at ``(i + k) % num_players``, so seats rotate
across rows and games. Its opponents are seeded as ``SingleAgentEnv(opponents, seat=that
seat).reset(seed=that seed)`` seeds them: the row plays exactly that env's game
(``tests/test_vector_env.py`` checks it move by move).

Rewards
-------
The learner's reward of the row's ``reward`` kind (:mod:`concordia_env.envs.rewards`) for
everything that happened since its previous decision (its action and the opponents'
replies): the terminal kinds at the step that ends the game, ``"score_delta"`` the change
of the learner's VP as if the game ended now. A truncated game pays no terminal reward.

Infos
-----
Every ``step`` and ``reset`` returns these keys (Gymnasium's vector convention: a key
``k`` of per-row values comes with a bool ``_k`` saying which rows have one):

| key | type | value |
| --- | --- | --- |
| ``"action_mask"`` | bool (n, NUM_ACTIONS) | the learner's legal actions in each row (the new game's after a reset) |
| ``"learner_seat"`` | int64 (n,) | the learner's seat in each row's current game |
| ``"final_obs"`` | object (n,) | for rows whose game ended this step: its last observation (learner's view) |
| ``"final_info"`` | dict of arrays | for those rows: ``final_scores`` (int64 per seat; 0 for a cut game), ``scores`` |
| | | (VP as if the game ended at its last position), ``winner`` (-1 for a cut game), |
| | | ``learner_seat``, ``seed``, ``decisions``, ``truncated`` (cut by ``max_turns``) |

The last two appear only in steps where some row's game ended (``_final_obs`` /
``_final_info`` mark the rows), as in Gymnasium's ``SyncVectorEnv``.

Illegal actions
---------------
``step`` checks every row's action before any row changes: a value that is no legal action
of its row raises :class:`~concordia_env.IllegalActionError` naming the first such row
(``err.row``), and the batch is left as it was. A wrong shape raises ``ValueError``.

Versions
--------

| id | ``observation_version`` | change |
| --- | ---: | --- |
| ``"ConcordiaVector-v1"`` (current) | 1 | initial release (the v1 observation of ``Concordia-v1``) |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NoReturn

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from concordia_env.engine import defaults
from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.errors import integer_argument, short_repr
from concordia_env.engine.observation import OBSERVATION_VERSION, observation_bounds
from concordia_env.engine.rules.entry_points import sample_rows
from concordia_env.engine.state import DECISION_COUNT, TURN_COUNT
from concordia_env.strategy import FEATURES_VERSION

from .env_checks import check_cap, check_reset_options
from .options_level import DEFAULT_MAX_OPTIONS, OptionsBatch, check_options_arguments, options_space
from .vector_game import VectorGame


def make_refused(**kwargs: Any) -> NoReturn:
    """The entry point of ``gymnasium.make("ConcordiaVector-v1")``: a vector env, which ``make`` cannot build."""
    raise gymnasium.error.Error(
        'ConcordiaVector-v1 is a vector environment: create it with gymnasium.make_vec("ConcordiaVector-v1", '
        'num_envs=64, opponents="heuristic"); gymnasium.make("Concordia-v1") is the single-game environment'
    )


class LegalBatchActionSpace(spaces.MultiDiscrete):
    """``MultiDiscrete([NUM_ACTIONS] * n)`` whose unmasked ``sample()`` draws a legal action for every row.

    Generic checkers sample the action space blindly; the batch refuses illegal actions, so
    this space asks the batch for one uniformly random legal action per row. An explicit
    ``mask`` is used as given. A copy or pickle is a plain ``MultiDiscrete``. At the options
    level (``options`` given) it is ``MultiDiscrete([K] * n)`` and draws a kept option per row.
    """

    def __init__(self, games: VectorGame, options: OptionsBatch | None = None, seed: int | None = None) -> None:
        size = NUM_ACTIONS if options is None else options.max_options
        super().__init__(np.full(games.n, size, dtype=np.int64), seed=seed)
        self._games = games
        self._options = options

    def sample(self, mask: Any = None, probability: Any = None) -> np.ndarray:
        if mask is None and probability is None:
            if self._options is None:
                return self._games.sample_actions(self.np_random)
            out = np.empty(self._games.n, dtype=np.int64)
            with self._games.lock:  # the option masks of the rows as they are now
                sample_rows(self._options.mask.view(np.bool_), self.np_random.random(self._games.n), out)
            return out
        return super().sample(mask=mask, probability=probability)

    def __reduce__(self) -> tuple[type, tuple[np.ndarray]]:
        return (spaces.MultiDiscrete, (self.nvec.copy(),))


class ConcordiaVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games, the learner one seat in each, compiled opponents the others; see the module docstring."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 (VectorEnv declares it an instance variable)

    def __init__(
        self,
        num_envs: int = 16,
        opponents: Any = defaults.OPPONENTS,
        map: str = defaults.MAP,
        num_players: int = defaults.NUM_PLAYERS,
        reward: str = "win",
        seed: int | None = defaults.SEED,
        threads: int = 1,
        max_turns: int | None = None,
        observation_version: int = OBSERVATION_VERSION,
        copy: bool = True,
        level: str = "flat",
        max_options: int = DEFAULT_MAX_OPTIONS,
        granularity: str = "decision",
        features_version: int = FEATURES_VERSION,
        **game_options: Any,
    ) -> None:
        if not isinstance(copy, (bool, np.bool_)):
            raise TypeError(f"copy must be True or False, got {short_repr(copy)}")
        if opponents is None:
            raise ValueError("the vector env plays the learner against opponents: name them (e.g. 'heuristic')")
        self.max_turns = check_cap("max_turns", max_turns)
        self.level, self.max_options, self.granularity, self.features_version = check_options_arguments(
            level, max_options, granularity, features_version
        )
        self.games = VectorGame(
            num_envs,
            map=map,
            num_players=num_players,
            seed=seed,  # None: a random one, also for a step before the first reset()
            reward=reward,
            observation_version=observation_version,
            threads=threads,
            opponents=opponents,
            **game_options,
        )
        self.num_envs = self.games.n
        self.copy = bool(copy)
        self._first_seed = seed
        self._seed_pending = True  # the first reset() without a seed uses the constructor's
        low, high = observation_bounds(self.games.observation_version)
        flat = spaces.Box(low, high, shape=(self.games.obs_size,), dtype=np.float32)
        #: every row's options (options level), computed in compiled code on the batch's threads; None: flat level
        self.options = (
            OptionsBatch(self.num_envs, self.max_options, self.features_version) if self.level == "options" else None
        )
        if self.options is None:
            self.single_observation_space: spaces.Space = flat
            self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        else:
            self.single_observation_space = options_space(flat, self.max_options, self.features_version)
            self.single_action_space = spaces.Discrete(self.max_options)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = LegalBatchActionSpace(self.games, self.options)
        self._obs = np.empty((self.num_envs, self.games.obs_size), dtype=np.float32)
        self._rows = np.arange(self.num_envs)
        self.render_mode = None

    # ------------------------------------------------------------------ gymnasium API
    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Every row starts over (row i with seed ``seed + i``); see "Seats and seeds" and "Reset options"."""
        with self.games.lock:  # the option arrays change with the rows (see "Threads")
            return self._reset(seed, options)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """One learner decision in every row, the opponents' replies, same-step autoreset."""
        with self.games.lock:  # the option arrays change with the rows (see "Threads")
            return self._step(actions)

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every row, bool (n, NUM_ACTIONS) (a copy).

        At the options level: every row's option mask, bool (n, max_options).
        """
        with self.games.lock:
            if self.options is not None:
                return self.options.mask.astype(np.bool_)
            return self.games.legal_masks().copy()

    def close_extras(self, **kwargs: Any) -> None:
        games = self.__dict__.get("games")  # absent when the constructor refused its options
        if games is not None:
            games.close()

    # ------------------------------------------------------------------ internals
    def _reset(
        self, seed: int | Sequence[int] | None, options: dict[str, Any] | None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        games = self.games
        position = check_reset_options(options, games.map.name, games.num_players)
        base = self._base_seed(seed)
        if base is None and self._seed_pending:
            base = self._first_seed
        self._seed_pending = False
        games.reset(base, position)
        if seed is not None or base is not None:
            self.action_space.seed(games.seed)
        self._compute_options()
        infos: dict[str, Any] = {}
        for row in np.flatnonzero(games.dones):  # a position the opponents ended: its result, the row's next game
            obs, final = self._finished(int(row), games.last_infos)
            infos = self._add_info(infos, {"final_obs": obs, "final_info": final}, int(row))
        infos.update(self._infos())
        return self._observations(), infos

    def _step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        games = self.games
        seats = games.learner_seats
        assert seats is not None  # the batch has opponents: the constructor made it so
        options = self.options
        if options is None:
            all_rewards, dones, game_infos = games.step(actions, observe_into=self._obs)
        else:
            chosen = options.check(actions)  # nothing changes if a row's option is refused
            if self.granularity == "decision":
                all_rewards, dones, game_infos = games.step(options.plans[self._rows, chosen, 0], self._obs)
            else:
                plans, lengths = options.plans[self._rows, chosen], options.lengths[self._rows, chosen]
                all_rewards, dones, game_infos = games.step_turns(plans, lengths, self._obs)
        rewards = all_rewards[self._rows, seats].astype(np.float64)
        terminations = dones.copy()
        truncations = np.zeros(self.num_envs, dtype=np.bool_)
        if self.max_turns is not None:
            truncations = games.states[:, TURN_COUNT] >= self.max_turns
        ended = np.flatnonzero(terminations | truncations)
        # the truncated rows' last positions, before they restart
        cut_scores = games.scores() if truncations.any() else np.zeros((0, games.num_players), dtype=np.int64)
        self._compute_options()  # every row's next decision (a truncated row's last one, until it restarts)
        infos: dict[str, Any] = {}
        for row in ended:
            if terminations[row]:
                obs, final = self._finished(int(row), game_infos)
            else:
                obs = self._row_observation(int(row))
                final = {
                    "final_scores": np.zeros(games.num_players, dtype=np.int64),
                    "scores": cut_scores[row],
                    "winner": -1,
                    "learner_seat": int(seats[row]),
                    "seed": int(games.game_seed(int(row), int(games.game_counts[row]))),
                    "decisions": int(games.states[row, DECISION_COUNT]),
                    "truncated": True,
                }
            infos = self._add_info(infos, {"final_obs": obs, "final_info": final}, int(row))
        if truncations.any():
            cut = np.flatnonzero(truncations)
            games.restart(cut)
            rows = games.observations()  # the restarted rows' new games (rarely: a cap was reached)
            self._obs[cut] = rows[cut]
            if options is not None:
                learner_rng = games.learner_rng
                for row in cut:
                    options.compute_row(int(row), games._states[row], games.map.tables, learner_rng[row])
        infos.update(self._infos())
        return self._observation_now(), rewards, terminations, truncations, infos

    def _base_seed(self, seed: int | Sequence[int] | None) -> int | None:
        """Gymnasium's vector seeds: one int (row i gets ``seed + i``) or that very list; others are refused."""
        if seed is None:
            return None
        if isinstance(seed, np.ndarray) and seed.ndim == 1:
            seed = list(seed)  # an array of seeds is the list of them (its items are numpy integers)
        if isinstance(seed, Sequence) and not isinstance(seed, str):
            seeds = [integer_argument(s, "seed") for s in seed]
            if len(seeds) != self.num_envs or seeds != list(range(seeds[0], seeds[0] + self.num_envs)):
                raise ValueError(
                    f"a list of seeds must be consecutive, one per row (row i plays seed s + i), got {short_repr(seed)}"
                )
            return seeds[0]
        return integer_argument(seed, "seed")

    def _observations(self) -> Any:
        self.games.observations(out=self._obs)
        return self._observation_now()

    def _observation_now(self) -> Any:
        """What ``reset`` and ``step`` return: the flat buffer, or the options level's dict around it."""
        if self.options is None:
            return self._obs.copy() if self.copy else self._obs
        return self.options.observation(self._obs, self.copy)

    def _compute_options(self) -> None:
        """Every row's options of its learner's pending decision (options level), on the batch's threads."""
        if self.options is not None:
            games = self.games
            self.options.compute(games._rows, games._states, games.map.tables, games.learner_rng)

    def _row_observation(self, row: int) -> Any:
        """Row ``row``'s observation now (a copy), at the env's level."""
        if self.options is None:
            return self._obs[row].copy()
        opts = self.options
        return {
            "observation": self._obs[row].copy(),
            "options": opts.features[row].copy(),
            "action_mask": opts.mask[row].copy(),
        }

    def _finished(self, row: int, game_infos: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """Row ``row``'s finished game as the infos show it: its last observation (the learner's) and result."""
        info = game_infos["final_info"][row]
        seat = int(info["learner_seat"])
        final = {
            "final_scores": info["final_scores"],
            "scores": info["final_scores"],
            "winner": int(info["winner"]),
            "learner_seat": seat,
            "seed": int(info["seed"]),
            "decisions": int(info["decisions"]),
            "truncated": False,
        }
        return self._final_observation(game_infos["final_observation"][row][seat]), final

    def _final_observation(self, flat: np.ndarray) -> Any:
        """A finished game's last observation at the env's level (at the options level: no options left)."""
        if self.options is None:
            return flat
        width = self.options.features.shape[2]
        return {
            "observation": flat,
            "options": np.zeros((self.max_options, width), dtype=np.float32),
            "action_mask": np.zeros(self.max_options, dtype=np.int8),
        }

    def _infos(self) -> dict[str, Any]:
        infos = {"action_mask": self.action_masks(), "learner_seat": self.games.learner_seats}
        if self.options is not None:
            infos["option_actions"] = self.options.first.copy()
        return infos
