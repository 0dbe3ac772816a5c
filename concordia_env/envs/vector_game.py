"""``VectorGame``: n games of one map stepped together on a 2-D state array (one game per row).

The batch runs the very same compiled rules as :class:`~concordia_env.Game`
(``rules.entry_points.apply_batch`` and ``legal_masks``) plus the batched observation, so one
Python call advances all n games by one decision each. It is meant for throughput:
self-play data collection, random playouts, search over many positions.

Each row has its own current player (``current_players``); ``observations()`` shows each
game from its current player's point of view; ``step(actions)`` takes one action per row.

Opponents inside
----------------
``VectorGame(n, ..., opponents="heuristic")`` makes every row a game against compiled
opponents (``"random"``, ``"heuristic"``, the greedy ``"learned"``, or a list of them, one
per other seat; :class:`~concordia_env.envs.opponents.CompiledOpponents`): the caller plays
one seat per row, ``learner_seats``, and the others decide inside ``reset`` and ``step``
(on the batch's threads) until the caller must decide again or the game is over. Row i's
k-th game seats the caller at ``(i + k) % num_players``, so seats rotate across rows and
games; its opponents are seeded as ``SingleAgentEnv(opponents, seat=that seat).reset(seed=game_seed)``
seeds them, and the row plays that very game. ``current_players`` is then always
``learner_seats``; ``final_info`` adds the finished game's ``learner_seat``. The
Gymnasium vector env on this is :mod:`concordia_env.envs.vector_env`.

Threads
-------
``VectorGame(n, threads=k)`` steps, masks, scores and observes the rows on k threads at
once (contiguous chunks of rows; the compiled functions release the GIL, see
:mod:`concordia_env.envs.threads`). Everything it returns is identical for every k: a
row's work depends on that row alone, and ``sample_actions`` draws its random numbers for
the whole batch before the rows are split. ``close()`` stops the threads.

Work done once
--------------
A step computes each row's next legal mask while it applies the action (the engine needs
it to close forced decisions anyway) and keeps it: ``legal_masks()`` after a ``step`` costs
nothing, and the next ``step`` checks its actions against the same masks.
A game that ends in a step is finished in the same compiled pass (its final VP, ranking
and last state kept, the row's next game set up and its mask computed, on the batch's
threads); Python only builds the infos of the rows that finished.
``observations(out=buffer)`` writes into a float32 array the caller keeps between steps.
``observation_version`` (default: the current one, 1) chooses the observation version of
``observations()`` and ``infos["final_observation"]`` (see :mod:`concordia_env.engine.observation`).

Starting from a position, whole turns
-------------------------------------
``reset(seed, position=p)`` starts every row's first game from a copy of position ``p``
instead of a new game (later games are new, with their seeds). With opponents, a row whose
opponents end that game before the caller decides finishes in ``reset``: ``dones`` marks
it, ``last_infos`` holds its result as a step's infos would, and it starts its next game. With opponents,
``step_turns(plans, lengths)`` lets each row's learner play a planned turn (the options
level's ``granularity="turn"``, :mod:`concordia_env.envs.options_level`) where ``step``
takes one action.

Rewards
-------
``step`` returns ``rewards`` of shape (n, num_players): every player's reward in every
game for that step, with the same ``reward=`` options as every env ("win" (default),
"rank", "vp", "score_delta"; see :mod:`concordia_env.envs.rewards`). The terminal kinds are
non-zero only in the step that finishes a game.

Autoreset
---------
A game that ends in ``step`` is reset within that same step ("same-step" autoreset, as in
Stable-Baselines3 and Gymnasium's ``AutoresetMode.SAME_STEP``): ``dones[i]`` is True, the
row already holds the next game, and ``observations()``, ``legal_masks()`` and
``current_players`` describe the new game. What the finished game looked like is kept in
the infos returned by that ``step`` (and in ``last_infos``). Every ``infos`` has all four
keys at every step, with the same types; rows that did not finish hold the placeholders
(0 scores, None):

* ``infos["_final"]``: bool (n,), the rows that finished (the same as ``dones``);
* ``infos["final_scores"]``: int (n, num_players), the finished games' final VP (0 elsewhere);
* ``infos["final_observation"]``: object array (n,), for a finished row the final position
  seen from every seat (float32, (num_players, obs_size)), else None;
* ``infos["final_info"]``: object array (n,), for a finished row a dict with
  ``final_scores``, ``winner``, ``ranking``, ``seed``, ``decisions`` and ``state`` (the
  final state row), else None.

Seeds
-----
Row i's k-th game (k = 0, 1, ...) is ``Game.new(map, num_players, seed=seed + i + k * n,
**game_options)``: all games of a batch have distinct seeds, and a row's sequence does not
depend on how fast the other rows finish. ``seed=None`` (the default, as in every env; the
map and player count default to 2-player Italia: :mod:`concordia_env.engine.defaults`) picks
a random base seed (``self.seed`` tells which). A base seed is at most ``MAX_SEED`` (2**62; ``ValueError`` above):
the compiled step sets up the rows' next games from int64 seeds.

Illegal actions
---------------
``step`` checks every row before changing any: if some row's action is illegal it raises
:class:`~concordia_env.IllegalActionError` naming the first such row (``err.row``), and no
row changes.

Who owns the states
-------------------
The batch owns its (n, STATE_SIZE) array and only the compiled rules write it (numba does
not bounds-check: a Python write of a wrong value would make them read or write outside
the arrays). ``states`` is a read-only view of it (a write, or setting
``flags.writeable`` back, raises ``ValueError``); ``n``, ``map`` and ``num_players`` are
read-only properties (``AttributeError``); ``game(row)`` and ``infos["final_info"][row]["state"]``
are copies or read-only. To study or edit a row, take ``vec.game(row)`` (a copy) or
``Game(vec.states[row].copy(), vec.map)``.

Inputs
------
``step`` takes any integer array-like of shape (n,): numpy integers of every width and
byte order, read-only, strided or non-contiguous arrays, Python lists (values beyond
int64 included). Everything is checked, then copied to one contiguous int64 array, the
only type the compiled batch functions see (so no input compiles a new version of them
at run time). Floats, bools and objects are refused with ``IllegalActionError``, a wrong
shape with ``ValueError``; an object array of Python or numpy integers is integers.
``observations(players)`` takes integer seats only (a float seat is refused, not
truncated), and ``restart(rows)`` integer rows only (``[0.9]``, ``[True]`` or ``"2"`` raise
``ArgumentTypeError`` and restart nothing).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from concordia_env.engine import defaults
from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.errors import ArgumentTypeError, IllegalActionError, integer_argument, short_repr
from concordia_env.engine.game import Game
from concordia_env.engine.maps import Map, load
from concordia_env.engine.observation import (
    OBS_SIZES,
    OBSERVATION_VERSION,
    check_observation_version,
    observe_batch_into,
    scores_batch_into,
)
from concordia_env.engine.rules.entry_points import first_illegal_row, legal_masks, sample_rows
from concordia_env.engine.rules.setup import setup_args, start_game
from concordia_env.engine.serial import serialized
from concordia_env.engine.state import CURRENT_PLAYER, DECISION_COUNT, PHASE, PHASE_GAME_OVER, STATE_SIZE
from concordia_env.engine.state_check import read_only_view
from concordia_env.strategy import play_rows

from .env_checks import start_position
from .opponents import CompiledOpponents
from .rewards import check_reward, rewards_of_result
from .threads import (
    RowThreads,
    legal_masks_parallel,
    observe_batch_parallel,
    play_rows_parallel,
    sample_rows_parallel,
    scores_batch_parallel,
    step_rows,
    step_rows_parallel,
    step_rows_playing,
    step_rows_playing_parallel,
    step_rows_turn,
    step_rows_turn_parallel,
)

#: random base seeds (``seed=None``) are drawn below this bound
SEED_BOUND = 2**31
#: the largest base seed: the rows' game seeds (``seed + i + k * n``) are int64 in the compiled step
MAX_SEED = 2**62


@serialized
class VectorGame:
    """n games of one map and player count, one state per row of ``states``.

    The batch owns its state array and only the compiled rules write it (see the module
    docstring, "Who owns the states"): ``states`` is a read-only view, and ``n``, ``map``
    and ``num_players`` cannot be reassigned.

    One batch may be shared by threads: every public method holds the batch's lock while
    it runs, so calls from several threads run one after another
    (:mod:`concordia_env.engine.serial`); a batch of actions that another thread's step made
    illegal is refused (``IllegalActionError``, no row changed).
    """

    def __init__(
        self,
        n: int,
        map: str = defaults.MAP,
        num_players: int = defaults.NUM_PLAYERS,
        seed: int | None = defaults.SEED,
        reward: str = "win",
        observation_version: int = OBSERVATION_VERSION,
        threads: int = 1,
        opponents: Any = None,
        **game_options: Any,
    ) -> None:
        self._lock = threading.RLock()  # one call at a time (engine.serial): the compiled step releases the GIL
        if integer_argument(n, "n") < 1:
            raise ValueError(f"n must be a positive int, got {n}")
        self._n = integer_argument(n, "n")
        self.observation_version = check_observation_version(observation_version)
        #: length of one observation of ``observation_version``
        self.obs_size = OBS_SIZES[self.observation_version]
        self._map = load(map)
        Game.new(self._map.name, num_players, 0, **game_options)  # refuses bad options here, once
        self._num_players = int(num_players)
        #: what a row's next game is set up from (``rules.setup.start_game``): the empty state, start player, plan
        self._template, self._start_player, self._plan = setup_args(self._map, self._num_players, **game_options)
        self.reward = check_reward(reward)
        self._states = np.empty((self._n, STATE_SIZE), dtype=np.int32)
        self._states_view = read_only_view(self._states)
        self.game_counts = np.zeros(self._n, dtype=np.int64)
        self.dones = np.zeros(self._n, dtype=np.bool_)
        self.last_infos: dict[str, Any] = {}
        self._masks = np.zeros((self._n, NUM_ACTIONS), dtype=np.bool_)
        self._masks_view = read_only_view(self._masks)  # step trusts the cache: nobody else writes it
        self._masks_valid = False
        self._scores = np.zeros((self._n, self._num_players), dtype=np.int64)
        #: what the compiled step keeps of the games that end in it (``threads.end_row``)
        self._done = np.zeros(self._n, dtype=np.bool_)
        self._final_scores = np.zeros((self._n, self._num_players), dtype=np.int64)
        self._final_ranks = np.zeros((self._n, self._num_players), dtype=np.int64)
        self._final_states = np.zeros((self._n, STATE_SIZE), dtype=np.int32)
        self._rows = RowThreads(self._n, threads)
        #: what a step that observes nothing passes the compiled step as its observation buffer
        self._no_observations = np.zeros((self._n, 0), dtype=np.float32)
        #: threads the rows are split over (``threads``, at most ``n``)
        self.threads = self._rows.threads
        self._opponents = (
            None if opponents is None else CompiledOpponents(opponents, self._n, self._num_players, self._map.name)
        )
        self._start: np.ndarray | None = None  # the state every row's first game starts from (reset's position)
        self.reset(seed)

    # ------------------------------------------------------------------ what the compiled code reads: read-only
    @property
    def states(self) -> np.ndarray:
        """One state per row, int32 (n, STATE_SIZE): a read-only view (``step`` and ``reset`` write the rows)."""
        return self._states_view

    @property
    def lock(self) -> threading.RLock:
        """The batch's reentrant lock, which every public method holds while it runs.

        Code that keeps arrays beside the rows and changes them with the rows (the options
        level's option arrays, :mod:`.vector_env`) holds it across its own calls, so that a
        thread never sees those arrays of one position beside the rows of another.
        """
        return self._lock

    @property
    def n(self) -> int:
        """Number of games (rows)."""
        return self._n

    @property
    def map(self) -> Map:
        return self._map

    @property
    def num_players(self) -> int:
        return self._num_players

    @property
    def learner_seats(self) -> np.ndarray | None:
        """With ``opponents``: the seat the caller plays in each row's current game (n,), else None."""
        return None if self._opponents is None else self._opponents.learner_seats.copy()

    @property
    def learner_rng(self) -> np.ndarray:
        """With ``opponents``: every row's learner generator (``CompiledOpponents.learner_rng``), else ``ValueError``.

        The options level draws its determinizations from it (:mod:`.options_level`).
        """
        if self._opponents is None:
            raise ValueError("the learner's generators belong to a batch with opponents")
        return self._opponents.learner_rng

    def learner_seat(self, row: int, k: int) -> int:
        """The caller's seat in row ``row``'s ``k``-th game when ``opponents`` play: ``(row + k) % num_players``."""
        return (row + k) % self._num_players

    def close(self) -> None:
        """Nothing to release: ``threads > 1`` runs on numba's pool, which belongs to the process.

        Kept so that code written for closeable environments (Gymnasium's ``VectorEnv.close``)
        can call it; the batch may still be stepped afterwards.
        """

    # ------------------------------------------------------------------ setup
    def game_seed(self, row: int, k: int) -> int:
        """The seed of row ``row``'s ``k``-th game."""
        return self.seed + row + k * self._n

    def reset(self, seed: int | None = None, position: Any = None) -> None:
        """Start every row over with its first game (row i: ``seed + i``).

        ``position`` (a :class:`Game`, its JSON text or dict; of this map and player count,
        else :class:`~concordia_env.engine.position.PositionError`, nothing changed): every
        row's first game starts from a copy of it instead (the seeds still seed the
        opponents and the later games).
        """
        start = None if position is None else start_position(position, self._map.name, self._num_players)
        if seed is None:
            seed = int(np.random.default_rng().integers(SEED_BOUND))
        elif not 0 <= integer_argument(seed, "seed") <= MAX_SEED:
            raise ValueError(f"seed must be None or an integer in 0..2**62, got {seed}")
        self.seed = integer_argument(seed, "seed")
        self._start = None if start is None else start.state.copy()
        self.game_counts[:] = 0
        self._rng = np.random.default_rng(self.seed)
        for i in range(self._n):
            self._new_game(i)
        self.dones[:] = False
        self._masks_valid = False
        if self._opponents is not None:
            self.legal_masks()
            learners, *rest = self._opponents.arrays()
            self._rows.run(play_rows, play_rows_parallel, self._states, self._map.tables, learners, self._masks, *rest)
            self._opponents.check()
        self.last_infos = self._infos(np.flatnonzero(self.dones))  # the placeholders: no row finished
        if self._opponents is not None:
            self._finish_before_the_learner()

    def _finish_before_the_learner(self) -> None:
        """Rows whose first game the opponents ended before the learner's first decision end at once.

        Only a start position can do that (its last turn, the learner's seat done). Such a row
        is finished as a step finishes a game: ``dones`` marks it, its result goes into the
        infos (``last_infos``: final VP, ranking, last state, the learner's seat) and the row
        starts its next game, so that no row waits for a decision it will never have.
        """
        over = np.flatnonzero(self._states[:, PHASE] == PHASE_GAME_OVER)
        if not over.size:
            return
        for row in over:
            game = self.game(int(row))
            self._final_scores[row] = game.final_scores()
            self._final_ranks[row] = game.ranking()
            self._final_states[row] = self._states[row]
        self.dones[over] = True
        self.game_counts[over] += 1
        self.last_infos = self._infos(over)  # the finished games' seeds and learner seats, before the rows go on
        for row in over:
            self._start_next_game(int(row))

    def _new_game(self, row: int) -> None:
        """Row ``row`` starts its ``game_counts[row]``-th game: set up as ``Game.new`` (its opponents seeded)."""
        k = int(self.game_counts[row])
        seed = self.game_seed(row, k)
        if k == 0 and self._start is not None:
            self._states[row] = self._start  # reset(position=...): the first game starts there
        else:
            start_game(self._states[row], self._template, seed, self._start_player, self._plan)
        self._new_opponents(row)

    def _new_opponents(self, row: int) -> None:
        """Row ``row`` has just been set up for a new game: its VP so far are 0, its opponents are seeded."""
        self._scores[row] = 0
        if self._opponents is not None:
            k = int(self.game_counts[row])
            self._opponents.new_game(row, self.game_seed(row, k), self.learner_seat(row, k))

    # ------------------------------------------------------------------ views
    @property
    def current_players(self) -> np.ndarray:
        """Who decides in each row (n,)."""
        return self._states[:, CURRENT_PLAYER].astype(np.int64)

    def legal_masks(self) -> np.ndarray:
        """Legal actions of each row's pending decision, bool (n, NUM_ACTIONS), a read-only view of the cache.

        :meth:`step` checks actions against this cache and the compiled batch step trusts
        that check, so nobody outside may write it; it changes with the next ``step``: copy
        it to keep it or to change it.
        """
        if not self._masks_valid:
            self._rows.run(legal_masks, legal_masks_parallel, self._states, self._map.tables, self._masks)
            self._masks_valid = True
        return self._masks_view

    def observations(self, players: np.ndarray | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """Each row from its current player's view (or ``players[i]``'s): float32 (n, obs_size).

        A new array, or ``out`` filled and returned: a writable C-contiguous float32 array of
        shape (n, obs_size) kept by the caller (``ValueError`` for any other).
        """
        if players is None:
            players = self.current_players
        else:
            players = self._seats(players)
        out = np.empty((self._n, self.obs_size), dtype=np.float32) if out is None else self._check_out(out)
        self._rows.run(observe_batch_into, observe_batch_parallel, self._states, self._map.tables, players, out)
        return out

    def _check_out(self, out: Any) -> np.ndarray:
        """``out`` if it is a writable C-contiguous float32 array of shape (n, obs_size), else ``ValueError``."""
        shape = (self._n, self.obs_size)
        if not (
            isinstance(out, np.ndarray)
            and out.dtype == np.float32
            and out.shape == shape
            and out.flags.c_contiguous
            and out.flags.writeable
        ):
            raise ValueError(
                f"out must be a writable C-contiguous float32 array of shape {shape}; got {short_repr(out)}"
            )
        return out

    def _seats(self, players: Any) -> np.ndarray:
        """``players`` as contiguous int64 seats, one per row; floats and bools are refused, not truncated."""
        try:
            seats = self._integers(players, "players")
        except ArgumentTypeError as e:
            raise ArgumentTypeError(f"players must be integer seats: {e}") from None
        if seats.shape != (self._n,) or seats.min() < 0 or seats.max() >= self._num_players:
            raise ValueError(f"players must be {self._n} seats in 0..{self._num_players - 1}")
        return np.array(seats, dtype=np.int64)

    def game(self, row: int) -> Game:
        """Row ``row`` as a :class:`Game` (a copy: stepping it does not change the batch)."""
        row = integer_argument(row, "row")
        if not 0 <= row < self._n:
            raise ValueError(f"row must be in 0..{self._n - 1}, got {row}")
        return Game._wrap(self._states[row].copy(), self._map)

    def sample_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniformly random legal action for every row, int64 (n,), drawn in compiled code.

        The batched counterpart of ``action_space.sample(mask)``: random opponents,
        exploration, random playouts. ``rng`` defaults to a generator seeded from the
        batch's seed, so a seeded batch samples reproducibly.
        """
        if rng is not None and not isinstance(rng, np.random.Generator):
            raise ArgumentTypeError(f"rng must be a numpy Generator, got {short_repr(rng)}")
        rng = self._rng if rng is None else rng
        out = np.empty(self._n, dtype=np.int64)
        self.legal_masks()
        self._rows.run(sample_rows, sample_rows_parallel, self._masks, rng.random(self._n), out)
        return out

    # ------------------------------------------------------------------ step
    def step(
        self, actions: np.ndarray, observe_into: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """One decision in every row; returns (rewards (n, num_players), dones (n,), infos).

        ``observe_into``, a buffer as ``observations(out=)`` takes it, gets every row's
        observation after the step (what ``observations()`` would return then) in the same
        pass over the rows: with threads, one hand-over to the workers per step instead of two.
        """
        return self._step(self._check_actions(actions), None, observe_into)

    def step_turns(
        self, plans: np.ndarray, lengths: np.ndarray, observe_into: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """The learner of every row plays ``plans[i, :lengths[i]]``, then its opponents reply (with ``opponents``).

        The options level's ``granularity="turn"`` (:mod:`.options_level`): each row's
        learner takes the plan's actions while they are legal and its own decisions
        (``rules.entry_points.play_plan``), then the opponents play up to its next decision. The
        first action of every plan is checked as :meth:`step` checks actions (nothing changes
        if one is refused); the returns are :meth:`step`'s.
        """
        if self._opponents is None:
            raise ValueError("step_turns() plays the learner's turns: the batch needs opponents")
        plans = np.ascontiguousarray(plans, dtype=np.int64)
        lengths = np.ascontiguousarray(lengths, dtype=np.int64)
        if plans.ndim != 2 or plans.shape[0] != self._n or lengths.shape != (self._n,):
            raise ValueError(f"plans are ({self._n}, length) action indices and lengths ({self._n},)")
        if (lengths < 1).any() or (lengths > plans.shape[1]).any() or plans.min() < 0 or plans.max() >= NUM_ACTIONS:
            raise ValueError("every plan holds 1..plans.shape[1] action indices")
        self._check_actions(plans[:, 0].copy())
        return self._step(plans, lengths, observe_into)

    def _step(
        self, actions: np.ndarray, lengths: np.ndarray | None, observe_into: np.ndarray | None
    ) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
        """:meth:`step` (``lengths`` None: one checked action per row) or :meth:`step_turns` (checked plans)."""
        out = None if observe_into is None else self._check_out(observe_into)
        observe = out is not None
        args = (
            self._states,
            self._map.tables,
            *((actions,) if lengths is None else (actions, lengths)),
            self._masks,
            observe,
            out if observe else self._no_observations,
            (self._done, self.game_counts, self._final_scores, self._final_ranks, self._final_states),
            (self.seed, self._n, self._template, self._start_player),
            self._plan,
        )
        if self._opponents is None:
            self._rows.run(step_rows, step_rows_parallel, *args)
        elif lengths is None:
            self._rows.run(step_rows_playing, step_rows_playing_parallel, *args, *self._opponents.arrays())
            self._opponents.check()
        else:
            self._rows.run(step_rows_turn, step_rows_turn_parallel, *args, *self._opponents.arrays())
            self._opponents.check()
        # every row's mask is its new position's; a finished row already holds its next game
        self.dones = self._done.copy()
        finished = np.flatnonzero(self.dones)
        rewards = self._step_rewards(finished)
        infos = self._infos(finished)
        if self._opponents is not None and finished.size:
            self._start_opponents(finished, out)
        self.last_infos = infos
        return rewards, self.dones, infos

    @staticmethod
    def _integers(values: Any, what: str) -> np.ndarray:
        """``values`` as an int64 array; floats, bools, strings and objects that are not integers are refused.

        Integers are Python and numpy integers (of any width, also inside an object array);
        a value beyond int64 is refused as out of range by the caller's range check, never wrapped.
        """
        try:
            given = np.asarray(values)
        except (TypeError, ValueError, OverflowError) as e:  # ragged lists and the like
            raise ArgumentTypeError(f"{what} must be integers, got {short_repr(values)} ({e})") from None
        if given.dtype == np.object_:
            items = given.reshape(-1).tolist()
            if not all(isinstance(a, (int, np.integer)) and not isinstance(a, (bool, np.bool_)) for a in items):
                raise ArgumentTypeError(f"{what} must be integers, got {short_repr(values)}")
            clipped = [min(max(int(a), -1), 2**62) for a in items]  # beyond int64: out of range, not wrapped
            return np.array(clipped, dtype=np.int64).reshape(given.shape)
        if given.dtype == np.bool_ or given.dtype.kind not in "iu":
            raise ArgumentTypeError(f"{what} must be integers, got {short_repr(values)} (dtype {given.dtype})")
        if given.dtype == np.uint64:
            given = np.minimum(given, np.uint64(2**62))  # beyond int64: out of range, not wrapped
        return given.astype(np.int64)

    def _check_actions(self, actions: Any) -> np.ndarray:
        """The actions as a new contiguous int64 array (n,), or an error naming the first bad row (nothing changed).

        The range is checked on the given values, before any cast: a uint64 of 2**63 or a
        Python int of 2**70 must not wrap into a legal index.
        """
        try:
            given = np.asarray(actions)
        except (TypeError, ValueError, OverflowError) as e:  # ragged lists and the like
            raise IllegalActionError(-1, f"actions must be an integer array, got {short_repr(actions)} ({e})") from None
        if given.shape != (self._n,):
            raise ValueError(f"actions must be an integer array of shape ({self._n},), got shape {given.shape}")
        if given.dtype == np.int64:  # the usual case: the compiled check below tests the range too
            out = np.array(given)  # a fresh, writable, contiguous copy: the compiled signature
        else:
            if given.dtype == np.object_:  # Python ints beyond int64, numpy integers in a list with them
                integer = (int, np.integer)
                if not all(isinstance(a, integer) and not isinstance(a, (bool, np.bool_)) for a in given):
                    raise IllegalActionError(-1, f"actions must be integers, got {short_repr(given.tolist())}")
                in_range = np.array([0 <= a < NUM_ACTIONS for a in given], dtype=np.bool_)
            elif given.dtype == np.bool_ or given.dtype.kind not in "iu":
                raise IllegalActionError(-1, f"actions must be integers, got an array of dtype {given.dtype}")
            else:
                in_range = (given >= 0) & (given < NUM_ACTIONS)
            if not in_range.all():
                row = int(np.flatnonzero(~in_range)[0])
                self._raise_illegal(row, int(given[row]))
            out = np.array(given, dtype=np.int64)
        row = int(first_illegal_row(self.legal_masks(), out))
        if row >= 0:
            self._raise_illegal(row, int(out[row]))
        return out

    def _raise_illegal(self, row: int, action: int) -> None:
        try:
            self.game(row).step(action)  # a copy: produces the engine's explanation
        except IllegalActionError as err:
            error = IllegalActionError(err.action, f"row {row}: {err.reason}")
            error.row = row
            raise error from None
        raise AssertionError(f"row {row}: the batch mask refused action {action} that the game accepts")

    def scores(self) -> np.ndarray:
        """Every player's VP in every row as if the game ended now, int64 (n, num_players) (``Game.scores``)."""
        scores = np.empty((self._n, self._num_players), dtype=np.int64)
        self._rows.run(scores_batch_into, scores_batch_parallel, self._states, self._map.tables, scores)
        return scores

    def _step_rewards(self, finished: np.ndarray) -> np.ndarray:
        """Every row's rewards of this step; ``finished``: the rows whose game ended (their results are kept)."""
        rewards = np.zeros((self._n, self._num_players), dtype=np.float32)
        if self.reward == "score_delta":
            scores = self.scores()
            scores[finished] = self._final_scores[finished]  # those rows are already in their next games
            rewards[:] = scores - self._scores
            self._scores = scores
            self._scores[finished] = 0
        else:
            for row in finished:
                rewards[row] = rewards_of_result(self._final_scores[row], self._final_ranks[row], self.reward)
        return rewards

    def _infos(self, finished: np.ndarray) -> dict[str, Any]:
        """The infos of a step whose games of rows ``finished`` ended (placeholders in the other rows)."""
        final_scores = np.zeros((self._n, self._num_players), dtype=np.int64)
        final_obs = np.empty(self._n, dtype=object)  # None everywhere
        final_info = np.empty(self._n, dtype=object)
        infos: dict[str, Any] = {
            "_final": self.dones.copy(),
            "final_scores": final_scores,
            "final_observation": final_obs,
            "final_info": final_info,
        }
        if not finished.size:
            return infos
        p = self._num_players
        states = self._final_states[finished]
        final_scores[finished] = self._final_scores[finished]
        views = np.empty((len(finished) * p, self.obs_size), dtype=np.float32)  # every seat's view of each game
        seats = np.tile(np.arange(p, dtype=np.int64), len(finished))
        observe_batch_into(np.repeat(states, p, axis=0), self._map.tables, seats, views)
        for j, row in enumerate(finished):
            state = read_only_view(states[j])
            final_obs[row] = views[j * p : (j + 1) * p]
            final_info[row] = {
                "final_scores": self._final_scores[row].copy(),
                "winner": int(self._final_ranks[row, 0]),
                "ranking": self._final_ranks[row].tolist(),
                "seed": self.game_seed(int(row), int(self.game_counts[row]) - 1),
                "decisions": int(state[DECISION_COUNT]),
                "state": state,
            }
            if self._opponents is not None:
                final_info[row]["learner_seat"] = int(self._opponents.learner_seats[row])
        return infos

    def _start_opponents(self, rows: np.ndarray, out: np.ndarray | None) -> None:
        """The opponents of ``rows``' new games (set up by the step) are seeded and play up to the learner.

        Their observations in ``out`` (if any) are then written again: the step observed
        the rows before their opponents played.
        """
        for row in rows:
            self._new_opponents(int(row))
            self._opponents_play(int(row))
        if out is not None:
            states = self._states[rows]
            fresh = np.empty((len(rows), self.obs_size), dtype=np.float32)
            observe_batch_into(states, self._map.tables, states[:, CURRENT_PLAYER].astype(np.int64), fresh)
            out[rows] = fresh

    def _opponents_play(self, row: int) -> None:
        """Row ``row``'s opponents (if any) decide until the learner must (its mask is its position's)."""
        if self._opponents is not None:
            self._opponents.play(self._states, self._map.tables, self._masks, slice(row, row + 1))
            self._opponents.check()

    def _next_game(self, row: int) -> None:
        """Row ``row`` starts its next game: set up, its mask computed, its opponents played up to the caller."""
        self.game_counts[row] += 1
        self._start_next_game(row)

    def _start_next_game(self, row: int) -> None:
        """Row ``row``'s game number ``game_counts[row]`` is set up, its mask computed, its opponents played."""
        self._new_game(row)
        legal_masks(self._states[row : row + 1], self._map.tables, self._masks[row : row + 1])
        self._opponents_play(row)

    def restart(self, rows: np.ndarray) -> None:
        """Abandon the games of ``rows`` (no result, no reward) and start each row's next game.

        What an episode cap does (the vector env's ``max_turns``): the rows go on with the
        seeds and seats of their next games, as if their games had ended.
        """
        picked = np.unique(self._integers(rows, "rows").reshape(-1))
        if picked.size and (picked[0] < 0 or picked[-1] >= self._n):
            raise ValueError(f"rows must be in 0..{self._n - 1}, got {short_repr(rows)}")
        for row in picked:
            self._next_game(int(row))
