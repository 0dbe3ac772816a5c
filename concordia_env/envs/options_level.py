"""The options level: the turn options the project's own agents choose among, as an environment's actions.

Every environment form takes ``level="flat"`` (the default: one of ``NUM_ACTIONS`` actions
per decision, unchanged) or ``level="options"``. At the options level the agent chooses
among the **turn options** of its pending decision, exactly the candidates the ``learned``
agent scores (:func:`concordia_env.agents.learned_model.candidates`): every legal answer to the
decision (a played Diplomat: one option per card it may copy), each followed to the end of
the turn by the heuristic's rules of thumb (:func:`concordia_env.strategy.turn_options`),
and described by the **afterstate features** of the position where that turn ends
(:mod:`concordia_env.strategy.afterstate_scorer`, the learned agent's features). This module is the
one home of that level: every form (:mod:`.gym_env`, :mod:`.pettingzoo_env`,
:mod:`.vector_env`, :mod:`.sb3`) computes its options with :func:`fill_options`, in compiled
code (a batch on its threads with :func:`options_rows_parallel`).

Spaces
------

| | ``level="options"`` |
| --- | --- |
| Observation | ``Dict(observation=Box(float32, (OBS_SIZE,)), options=Box(float32, (K, F)),`` |
| | ``action_mask=Box(int8 0/1, (K,)))``, exactly these three keys |
| ``"observation"`` | the flat level's observation, the same Box |
| ``"options"`` | row k: the afterstate features of kept option k (rows past the count are zeros) |
| ``"action_mask"`` | 1 for the kept options, 0 past them (PettingZoo: all 0 for an agent not selected) |
| Action | ``Discrete(K)``: the index of a kept option; ``action_masks()`` (bool (K,)) for ``MaskablePPO`` |

``K`` is ``max_options`` (default :data:`DEFAULT_MAX_OPTIONS`); ``F`` is the width of
``features_version`` (``FEATURE_COUNTS``; default the newest, :data:`FEATURES_VERSION`).

Which options, in what order
----------------------------
* **No peeking.** The options are computed on a *determinized* copy of the game (the hidden
  stack reshuffled within each deck, :mod:`concordia_env.strategy.determinization`) whose seed is
  drawn, once per decision, from the environment's own seeded generator, as the ``learned``
  agent draws it from its own (``strategy.new_rng(draw_seed(rng))``). Two games that differ
  only in the hidden order give the same options, features and order.
* **The kept K.** When a decision has more than K options, the K of best utility for the
  chooser are kept (the heuristic's utility: own estimated final VP minus the opponents'
  mean, ``strategy.best_option``'s measure). **Order**: the kept options are listed by that
  utility, best first; equal utilities keep the strategy core's order (legal action index,
  a Diplomat's copies after it). Row 0 is therefore always the heuristic's own choice. The
  order depends only on the determinized position, so it is as deterministic as the seed.
* **Default K.** :data:`DEFAULT_MAX_OPTIONS` (96) keeps every option of 99.2% of the
  decisions of heuristic-vs-heuristic 2-player Italia games (median 6 options, 90% at most
  21, 99% at most 80, largest 154; the distribution is in ``docs/environments.md``); the
  larger decisions (Architect moves, Mercator trades) lose only their least useful
  answers. An observation then holds 96 × 522 float32 features (200 KB): a smaller
  ``max_options`` (32 keeps 95% of the decisions whole) makes rollout buffers smaller.

Granularity
-----------
* ``granularity="decision"`` (default): a step plays the chosen option's **first action**;
  at the next decision of the turn the options are computed again (what the ``learned``
  agent does with ``replan``). Several options may share their first action (a played
  Diplomat's copies): such options step alike, and the copy is the next decision.
* ``granularity="turn"``: a step plays the chosen option's actions on the real game while
  they stay legal and the agent's own, to the end of its turn (the rest of a turn never
  depends on the hidden stack). Where another seat must decide in the middle (a storehouse
  overflow), the plan stops there; the agent's next decision gets fresh options.

Features versions
-----------------
``features_version`` names the learned agent's feature layout the ``"options"`` rows hold
(``env.features_version``); a version's features begin with the previous version's.

| ``features_version`` | F | features |
| ---: | ---: | --- |
| 2 (default, newest) | 522 | version 1, then each seat's board summary (houses, reachable places, production) |
| 1 | 467 | observation columns of the chooser's view, every seat's estimated final VP, utility, lead, game left |

Starting from a position
------------------------
Every form, at both levels, takes ``reset(options={"position": p})``: ``p`` is a
:class:`~concordia_env.Game`, a position as JSON text (``Game.to_json``) or as its dict
(``Game.to_dict``; ``docs/position-format.md``). The episode starts from a copy of it (the
seed still seeds the seats, the opponents and the options' determinizations). A position
of another map or player count, one whose game is over, a ``Game`` whose state fails the
state check (one built from an edited array with ``with_state(state, check=False)``) or a
value that is no position is refused with :class:`~concordia_env.engine.position.PositionError`
(a ``ValueError``, one line), nothing changed (:func:`concordia_env.envs.env_checks.check_reset_options`).

A position whose game the opponents end before the learner decides (its last turn, the
learner's seat done) **ends the episode at once with its real result**, in every form with
a learner seat: ``SingleAgentEnv``'s ``reset`` shows the finished game (an all-False mask,
the infos' final scores and winner) and its first step ends it (``terminated``, the real
terminal reward; the action is not read, as in Gymnasium's next-step autoreset); a row of
``ConcordiaVectorEnv``, ``SB3VecEnv`` or ``VectorGame(opponents=...)`` ends in ``reset``
(its ``final_obs`` and ``final_info`` in the reset's infos) and starts its next game. The
PettingZoo envs have no learner seat: the position's current agent decides.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from concordia_env.engine.errors import ArgumentTypeError, IllegalActionError, short_repr
from concordia_env.engine.game import Game
from concordia_env.engine.rules import njit, njit_parallel
from concordia_env.engine.rules.pcg64 import integers
from concordia_env.engine.state import CURRENT_PLAYER, NUM_PLAYERS, PHASE, PHASE_GAME_OVER
from concordia_env.strategy import (
    DEFAULT_PARAMS,
    FEATURE_COUNTS,
    FEATURES_VERSION,
    MAX_FIRST,
    MAX_TURN_DECISIONS,
    OBSERVATION_COLUMNS,
    P_OPPONENT_WEIGHT,
    SEED_BOUND,
    STATUS_ILLEGAL,
    STATUS_SIZE,
    check_features_version,
    compiled_remaining_fraction,
    compiled_turn_options,
    compiled_utility,
    determinize,
    new_rng,
    option_features,
)

#: the environments' levels: one of NUM_ACTIONS actions, or one of the turn options
LEVELS = ("flat", "options")
#: what a step at the options level plays of the chosen option
GRANULARITIES = ("decision", "turn")
#: options kept per decision unless told (see "Which options, in what order")
DEFAULT_MAX_OPTIONS = 96
#: the most options a decision can keep (every action, and a Diplomat's copies)
MAX_MAX_OPTIONS = 1024

__all__ = [
    "DEFAULT_MAX_OPTIONS",
    "FEATURES_VERSION",
    "GRANULARITIES",
    "LEVELS",
    "OptionSet",
    "OptionsBatch",
    "check_granularity",
    "check_level",
    "check_max_options",
    "fill_options",
    "options_space",
]


# --------------------------------------------------------------------------- arguments
def check_level(level: object) -> str:
    if not isinstance(level, str) or level not in LEVELS:
        raise ValueError(f"level must be one of {LEVELS}; got {short_repr(level)}")
    return level


def check_granularity(granularity: object) -> str:
    if not isinstance(granularity, str) or granularity not in GRANULARITIES:
        raise ValueError(f"granularity must be one of {GRANULARITIES}; got {short_repr(granularity)}")
    return granularity


def check_max_options(max_options: object) -> int:
    if isinstance(max_options, (bool, np.bool_)) or not isinstance(max_options, (int, np.integer)):
        raise ArgumentTypeError(f"max_options must be an int in 1..{MAX_MAX_OPTIONS}; got {short_repr(max_options)}")
    if not 1 <= int(max_options) <= MAX_MAX_OPTIONS:
        raise ValueError(f"max_options must be an int in 1..{MAX_MAX_OPTIONS}; got {max_options!r}")
    return int(max_options)


def check_options_arguments(
    level: object, max_options: object, granularity: object, features_version: object
) -> tuple[str, int, str, int]:
    """Every options-level argument checked (also at the flat level, where they are not used)."""
    return (
        check_level(level),
        check_max_options(max_options),
        check_granularity(granularity),
        check_features_version(features_version),
    )


def options_space(
    observation: Any, max_options: int, features_version: int
) -> Any:  # gymnasium.spaces.Dict (imported here to keep the module's import light)
    """The observation space of the options level around the flat level's Box ``observation``."""
    from gymnasium import spaces

    width = FEATURE_COUNTS[features_version]
    return spaces.Dict(
        {
            "observation": observation,
            "options": spaces.Box(-np.inf, np.inf, shape=(max_options, width), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(max_options,), dtype=np.int8),
        }
    )


# --------------------------------------------------------------------------- compiled: one decision's options
@njit
def fill_options(s, m, params, noise, columns, features, mask, first, plans, lengths, status, previous):
    """The kept turn options of the pending decision of ``s`` into the output arrays; returns their count.

    ``noise`` (a strategy generator state, ``strategy.new_rng``) determinizes a copy of ``s``;
    the options (``compiled_turn_options``) are played on that copy, the K = ``features.shape[0]`` of
    best utility for the chooser kept (``params``' opponent weight), best first (see "Which
    options, in what order"). Row k of ``features`` gets kept option k's afterstate
    features (``features.shape[1]`` entries: the version), ``first[k]`` its first actions
    (-1 padded), ``plans[k, :lengths[k]]`` every action of its turn; ``mask[k]`` is 1 for
    the kept rows. Rows past the count are zeros (-1 in ``first``). ``status`` counts the
    planner's illegal proposals (a bug). ``previous`` is how many rows the arrays held before
    (rows past it are already cleared: a batch's arrays are cleared once, then only the rows
    a decision leaves are).
    """
    player = s[CURRENT_PLAYER]
    n = s[NUM_PLAYERS]
    sim = s.copy()
    determinize(sim, noise)
    remaining = compiled_remaining_fraction(sim, m)
    starts, afterstates, vals, all_plans, all_lengths = compiled_turn_options(sim, m, params, remaining, status)
    count = starts.shape[0]
    scores = np.empty(count)
    for k in range(count):
        scores[k] = -compiled_utility(vals[k], player, n, params[P_OPPONENT_WEIGHT])
    order = np.argsort(scores, kind="mergesort")  # best first; equal utilities keep the core's order
    kept = min(count, features.shape[0])
    chosen = order[:kept]
    for j in range(kept, max(kept, previous)):
        features[j] = 0.0
        mask[j] = 0
        first[j] = -1
        plans[j] = 0
        lengths[j] = 0
    option_features(afterstates[chosen], m, vals[chosen], player, remaining, columns, features[:kept])
    for j in range(kept):
        k = chosen[j]
        mask[j] = 1
        for i in range(MAX_FIRST):
            first[j, i] = starts[k, i]
        lengths[j] = all_lengths[k]
        plans[j] = all_plans[k]
    return kept


@njit
def options_row(s, m, params, rng, columns, features, mask, first, plans, lengths, status, previous):
    """:func:`fill_options` for a batch row whose learner draws its determinization seed from ``rng``.

    ``rng`` is the row's numpy generator state (``pcg64``): one ``integers(SEED_BOUND)``
    draw per decision, as ``SingleAgentEnv`` draws it from its ``np_random``. A finished
    game (the row waits for its next) gets no options. ``previous``: the row's count before.
    """
    if s[PHASE] == PHASE_GAME_OVER:
        features[:previous] = 0.0
        mask[:previous] = 0
        first[:previous] = -1
        plans[:previous] = 0
        lengths[:previous] = 0
        return 0
    noise = np.empty(1, dtype=np.uint64)
    noise[0] = np.uint64(integers(rng, SEED_BOUND))
    return fill_options(s, m, params, noise, columns, features, mask, first, plans, lengths, status, previous)


@njit
def options_rows(states, m, params, rng, columns, features, mask, first, plans, lengths, counts, status):
    """:func:`options_row` for every row of a batch (row i's arrays at index i)."""
    for i in range(states.shape[0]):
        counts[i] = options_row(
            states[i], m, params, rng[i], columns, features[i], mask[i], first[i], plans[i], lengths[i], status[i],
            counts[i],
        )  # fmt: skip


@njit_parallel
def options_rows_parallel(states, m, params, rng, columns, features, mask, first, plans, lengths, counts, status):
    """:func:`options_rows` on numba's pool (see :mod:`.threads`)."""
    for i in numba.prange(states.shape[0]):
        counts[i] = options_row(
            states[i], m, params, rng[i], columns, features[i], mask[i], first[i], plans[i], lengths[i], status[i],
            counts[i],
        )  # fmt: skip


# --------------------------------------------------------------------------- one game's options (Python forms)
class OptionSet:
    """The kept options of one pending decision, as the single-game forms show and step them.

    :meth:`compute` fills new arrays (an observation handed out earlier is never changed);
    :meth:`clear` leaves none (an agent not selected, an episode over).
    """

    def __init__(self, max_options: int, features_version: int, params: np.ndarray = DEFAULT_PARAMS) -> None:
        self.max_options = max_options
        self.features_version = features_version
        self.width = FEATURE_COUNTS[features_version]
        self.params = np.array(params, dtype=np.float64)  # a writable copy: the compiled signature's
        self.clear()

    def clear(self) -> None:
        k = self.max_options
        self.features = np.zeros((k, self.width), dtype=np.float32)
        self.mask = np.zeros(k, dtype=np.int8)
        self.first = np.full((k, MAX_FIRST), -1, dtype=np.int64)
        self.plans = np.zeros((k, MAX_TURN_DECISIONS), dtype=np.int64)
        self.lengths = np.zeros(k, dtype=np.int64)
        self.count = 0

    def compute(self, game: Game, seed: int) -> None:
        """The options of ``game``'s pending decision, determinized with ``strategy.new_rng(seed)``."""
        if game.is_over():
            self.clear()
            return
        k = self.max_options
        features = np.zeros((k, self.width), dtype=np.float32)
        mask = np.zeros(k, dtype=np.int8)
        first = np.full((k, MAX_FIRST), -1, dtype=np.int64)
        plans = np.zeros((k, MAX_TURN_DECISIONS), dtype=np.int64)
        lengths = np.zeros(k, dtype=np.int64)
        status = np.zeros(STATUS_SIZE, dtype=np.int64)
        state = game.state.copy()  # a game's read-only state: compiled code takes a writable copy
        self.count = int(
            fill_options(
                state,
                game.map.tables,
                self.params,
                new_rng(seed),
                OBSERVATION_COLUMNS,
                features,
                mask,
                first,
                plans,
                lengths,
                status,
                0,
            )
        )
        if status[STATUS_ILLEGAL]:
            raise RuntimeError("the rules of thumb proposed an illegal action (a bug in concordia_env.strategy)")
        self.features, self.mask, self.first, self.plans, self.lengths = features, mask, first, plans, lengths

    def bool_mask(self) -> np.ndarray:
        """The option mask as bools (``action_masks()``)."""
        return self.mask.astype(np.bool_)

    def check(self, option: Any) -> int:
        """``option`` as the index of a kept option, or ``IllegalActionError`` (the level's one action check).

        Python and numpy integers and 0-d integer arrays are taken; any other type, an index
        outside ``0..K-1`` or a row past the count is refused (``err.action`` the index, or
        -1 for a value that is not an integer).
        """
        if isinstance(option, np.ndarray) and option.ndim == 0:
            option = option[()]
        if isinstance(option, (bool, np.bool_)) or not isinstance(option, (int, np.integer)):
            raise IllegalActionError(
                -1,
                f"an option is an integer index in 0..{self.max_options - 1}, got {type(option).__name__} "
                f"{short_repr(option)}",
            )
        k = int(option)
        if not 0 <= k < self.max_options:
            shown = k if -(2**63) <= k < 2**63 else -1
            raise IllegalActionError(shown, f"option {short_repr(k)} is outside 0..{self.max_options - 1}")
        if not self.mask[k]:
            raise IllegalActionError(
                k, f"option {k} is masked: this decision has {self.count} option(s) (see action_masks())"
            )
        return k

    def first_action(self, k: int) -> int:
        """The first action of kept option ``k`` (what a ``"decision"`` step plays)."""
        return int(self.plans[k, 0])

    def play(self, game: Game, k: int, granularity: str) -> None:
        """Play kept option ``k`` (checked) on ``game``: its first action, or its turn (see "Granularity")."""
        if granularity == "decision":
            game.step(self.first_action(k))
            return
        game.play_plan(self.plans[k, : int(self.lengths[k])])

    def observation(self, flat: np.ndarray) -> dict[str, np.ndarray]:
        """The options level's observation around the flat one (the arrays are this decision's own)."""
        return {"observation": flat, "options": self.features, "action_mask": self.mask}


# --------------------------------------------------------------------------- every row's options (the vector env)
class OptionsBatch:
    """The kept options of every row of a batch, computed in compiled code on the batch's threads.

    ``compute(states, tables, rng)`` fills the arrays in place, every row at once
    (:func:`options_rows`, or its ``prange`` twin through ``rows``, a
    :class:`~concordia_env.envs.threads.RowThreads`); ``rng[i]`` is row i's learner
    generator (``CompiledOpponents.learner_rng``), one draw per decision as
    ``SingleAgentEnv`` draws from ``np_random``, so a row's options are those that env shows
    for the same game, seat and seed.
    """

    def __init__(self, n: int, max_options: int, features_version: int, params: np.ndarray = DEFAULT_PARAMS) -> None:
        self.n = n
        self.max_options = max_options
        self.features_version = features_version
        self.params = np.array(params, dtype=np.float64)  # a writable copy: the compiled signature's
        width = FEATURE_COUNTS[features_version]
        self.features = np.zeros((n, max_options, width), dtype=np.float32)
        self.mask = np.zeros((n, max_options), dtype=np.int8)
        self.first = np.full((n, max_options, MAX_FIRST), -1, dtype=np.int64)
        self.plans = np.zeros((n, max_options, MAX_TURN_DECISIONS), dtype=np.int64)
        self.lengths = np.zeros((n, max_options), dtype=np.int64)
        self.counts = np.zeros(n, dtype=np.int64)
        self.status = np.zeros((n, STATUS_SIZE), dtype=np.int64)

    def compute(self, rows: Any, states: np.ndarray, tables: np.ndarray, rng: np.ndarray) -> None:
        """Every row's options (``rows``: the batch's ``RowThreads``)."""
        rows.run(
            options_rows,
            options_rows_parallel,
            states,
            tables,
            self.params,
            rng,
            OBSERVATION_COLUMNS,
            self.features,
            self.mask,
            self.first,
            self.plans,
            self.lengths,
            self.counts,
            self.status,
        )
        self._check()

    def compute_row(self, i: int, state: np.ndarray, tables: np.ndarray, rng: np.ndarray) -> None:
        """Row ``i``'s options alone (a row restarted after the others were computed)."""
        self.counts[i] = options_row(
            state,
            tables,
            self.params,
            rng,
            OBSERVATION_COLUMNS,
            self.features[i],
            self.mask[i],
            self.first[i],
            self.plans[i],
            self.lengths[i],
            self.status[i],
            self.counts[i],
        )
        self._check()

    def _check(self) -> None:
        bad = np.flatnonzero(self.status[:, STATUS_ILLEGAL])
        if bad.size:
            raise RuntimeError(
                f"row {int(bad[0])}: the rules of thumb proposed an illegal action (a bug in concordia_env.strategy)"
            )

    def check(self, options: Any) -> np.ndarray:
        """One kept option per row as an int64 array (n,), or ``IllegalActionError`` naming the first bad row.

        Integer arrays of shape (n,) only (a wrong shape: ``ValueError``); an index outside
        ``0..K-1`` or masked in its row is refused with ``err.row`` set, nothing changed.
        """
        try:
            given = np.asarray(options)
        except (TypeError, ValueError, OverflowError) as e:
            raise IllegalActionError(-1, f"options must be an integer array, got {short_repr(options)} ({e})") from None
        if given.shape != (self.n,):
            raise ValueError(f"options must be an integer array of shape ({self.n},), got shape {given.shape}")
        if given.dtype == np.bool_ or given.dtype.kind not in "iu":
            raise IllegalActionError(-1, f"options must be integers, got an array of dtype {given.dtype}")
        inside = (given >= 0) & (given < self.max_options)
        chosen = np.where(inside, given, 0).astype(np.int64)
        ok = inside & (self.mask[np.arange(self.n), chosen] == 1)
        if not ok.all():
            row = int(np.flatnonzero(~ok)[0])
            k = int(given[row])
            why = (
                f"option {k} is outside 0..{self.max_options - 1}"
                if not inside[row]
                else f"option {k} is masked: this decision has {int(self.counts[row])} option(s)"
            )
            error = IllegalActionError(k if -(2**63) <= k < 2**63 else -1, f"row {row}: {why}")
            error.row = row
            raise error
        return chosen

    def observation(self, flat: np.ndarray, copy: bool) -> dict[str, np.ndarray]:
        """The batch's options-level observation around the flat one (copies, or the buffers themselves)."""
        if copy:
            return {"observation": flat.copy(), "options": self.features.copy(), "action_mask": self.mask.copy()}
        return {"observation": flat, "options": self.features, "action_mask": self.mask}
