"""Rows of a batch on several cores: how ``VectorGame(n, threads=k)`` uses k cores.

Every batch operation of :class:`~concordia_env.envs.vector_game.VectorGame` is a compiled loop
over its rows that calls one per-row function: the legal masks (``legal_row``), a step
(``apply_checked``, then the compiled opponents' ``play_row``, then ``end_row``: a finished game's
result kept and the row's next game set up, then ``fill_observation``),
the observations, the scores, the random actions, and at the options level the learner's
whole turn (``rules.entry_points.play_plan``, :func:`step_rows_turn`) and every row's options
(:mod:`.options_level`, whose twins live beside their per-row function). Each loop exists twice: the serial one
(``threads=1``; the one ``Game`` and the tests use) and, here, its twin whose ``numba.prange``
loop numba runs on its own pool of threads (:func:`~concordia_env.engine.rules.njit_parallel`).
The twin calls the very same per-row function, so a rule still has one compiled home.

Why numba's pool rather than Python threads that each call the serial loop on a piece of
the rows (how this module worked first): a step of 256 rows takes well under a millisecond,
and waking Python workers and handing them the GIL at every step ate most of the gain
(256 observations: 1.26× on 2 cores with Python threads, 1.62× with ``prange``; measured
in one run). Numba's pool is started once per process and reused by every batch; a batch
sets how many of its threads it uses (``numba.set_num_threads``, which holds for the
calling thread only), at most numba's ``NUMBA_NUM_THREADS`` (the machine's cores unless set).

A process that uses a multi-threaded batch and then *forks* should start its children with
``spawn`` or ``forkserver`` (what Stable-Baselines3's ``SubprocVecEnv`` and Ray do): numba's
OpenMP threading layer is not fork-safe.

Results never depend on the thread count: each row's work reads and writes only that row
(its state, its action, its mask, its observation, its opponents' generators and plans), and
the split only decides which thread does a row, not what it computes.
``tests/test_vector_env.py`` checks ``threads=k`` against ``threads=1``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numba

from concordia_env.engine.errors import integer_argument
from concordia_env.engine.observation import fill_observation
from concordia_env.engine.rules import njit, njit_parallel
from concordia_env.engine.rules.entry_points import apply_checked, legal_row, play_plan, sample_row
from concordia_env.engine.rules.scoring import ranking, score_totals
from concordia_env.engine.rules.setup import start_game
from concordia_env.engine.state import CURRENT_PLAYER, PHASE, PHASE_GAME_OVER
from concordia_env.strategy import play_row

#: more threads than this is a mistake (a machine with more cores still gains nothing past the rows)
MAX_THREADS = 256


def check_threads(threads: int) -> int:
    """``threads`` as an int in 1..MAX_THREADS (``ArgumentTypeError``/``ValueError`` otherwise)."""
    k = integer_argument(threads, "threads")
    if not 1 <= k <= MAX_THREADS:
        raise ValueError(f"threads must be in 1..{MAX_THREADS}, got {k}")
    return k


#: the thread count this module last gave ``numba.set_num_threads`` in the calling thread (numba's
#: setting is per thread): setting it costs several microseconds, a step makes two parallel calls
_set_here = threading.local()


class RowThreads:
    """Runs a batch operation on the rows ``0..n-1`` with ``threads`` threads.

    ``run(serial, parallel, *args)`` calls ``serial(*args)`` with one thread, else
    ``parallel(*args)`` (its ``prange`` twin) on numba's pool with ``threads`` threads (capped
    at numba's ``NUMBA_NUM_THREADS``: more threads than cores would only take turns).
    """

    def __init__(self, n: int, threads: int = 1) -> None:
        self.threads = min(check_threads(threads), n)
        self._pool_threads = min(self.threads, numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]

    def run(self, serial: Callable[..., Any], parallel: Callable[..., Any], *args: Any) -> Any:
        """The operation on every row: ``serial(*args)`` with one thread, else ``parallel(*args)``."""
        if self._pool_threads == 1:
            return serial(*args)
        if getattr(_set_here, "threads", None) != self._pool_threads:
            numba.set_num_threads(self._pool_threads)
            _set_here.threads = self._pool_threads
        return parallel(*args)


# --------------------------------------------------------------------------- one step of every row
@njit
def observe_row(s, m, observe, out):
    """With ``observe``, ``out`` gets the observation of whoever decides next in row ``s``."""
    if observe:
        fill_observation(s, m, s[CURRENT_PLAYER], out)


@njit
def end_row(s, m, mask, i, ends, starts, setup):
    """If row i's game is over: its result goes into ``ends`` and the row starts its next game.

    ``ends`` = (done, counts, final_scores, final_ranks, final_states), arrays over the rows:
    ``done[i]`` tells whether the game ended; if so, its final VP, its ranking (first place
    first) and its last state are kept, ``counts[i]`` (the row's games so far) steps on, and
    the row's next game, the one of seed ``seed + i + counts[i] * n``, is set up with its legal
    mask in ``mask`` (``starts`` = (seed, n, template, start_player) and ``setup``, the plan, as
    ``rules.setup.start_game`` takes them: a tuple apart, numba's parallel loops take no tuple
    of tuples). So a finished row needs no Python call to go on.
    """
    done, counts, final_scores, final_ranks, final_states = ends
    done[i] = s[PHASE] == PHASE_GAME_OVER
    if not done[i]:
        return
    score_totals(s, m, final_scores[i])
    ranking(s, m, final_ranks[i])
    final_states[i] = s
    counts[i] += 1
    seed, n, template, start_player = starts
    start_game(s, template, seed + i + counts[i] * n, start_player, setup)
    legal_row(s, m, mask)


@njit
def step_row(s, m, a, mask, observe, out, i, ends, starts, setup):
    """Row ``s`` (row i) takes checked action ``a``, goes on to its next game if this one ended, is observed."""
    apply_checked(s, m, a, mask)
    end_row(s, m, mask, i, ends, starts, setup)
    observe_row(s, m, observe, out)


@njit
def step_rows(states, m, actions, masks, observe, out, ends, starts, setup):
    """:func:`step_row` for every row (``out``, one row per state, may have 0 columns unless ``observe``)."""
    for i in range(states.shape[0]):
        step_row(states[i], m, actions[i], masks[i], observe, out[i], i, ends, starts, setup)


@njit_parallel
def step_rows_parallel(states, m, actions, masks, observe, out, ends, starts, setup):
    """:func:`step_rows` on numba's pool."""
    for i in numba.prange(states.shape[0]):
        step_row(states[i], m, actions[i], masks[i], observe, out[i], i, ends, starts, setup)


@njit
def step_row_playing(
    s, m, a, mask, observe, out, i, ends, starts, setup,
    learner, kinds, params, model, rng, noise, pos_state, pos, plan, length, status,
):  # fmt: skip
    """Row ``s`` (row i) takes checked action ``a``, its opponents play to the learner's turn, then it is observed.

    A game that ends is followed by the row's next game (:func:`end_row`), whose opponents
    the caller seeds and plays up to the learner (Python: ``CompiledOpponents.new_game``)
    before observing the row again. The opponent arguments are one row of
    ``CompiledOpponents.arrays()`` (see ``strategy.players.play_row``); ``kinds``, ``params``
    and ``model`` are shared by every row.
    """
    apply_checked(s, m, a, mask)
    play_row(s, m, learner, mask, kinds, params, model, rng, noise, pos_state, pos, plan, length, status)
    end_row(s, m, mask, i, ends, starts, setup)
    observe_row(s, m, observe, out)


@njit
def step_rows_playing(
    states, m, actions, masks, observe, out, ends, starts, setup,
    learners, kinds, params, model, rng, noise, pos_state, pos, plan, length, status,
):  # fmt: skip
    """:func:`step_row_playing` for every row (the opponent arrays are ``CompiledOpponents.arrays()``)."""
    for i in range(states.shape[0]):
        step_row_playing(
            states[i], m, actions[i], masks[i], observe, out[i], i, ends, starts, setup, learners[i], kinds, params,
            model, rng[i], noise[i], pos_state[i], pos[i], plan[i], length[i], status[i],
        )  # fmt: skip


@njit_parallel
def step_rows_playing_parallel(
    states, m, actions, masks, observe, out, ends, starts, setup,
    learners, kinds, params, model, rng, noise, pos_state, pos, plan, length, status,
):  # fmt: skip
    """:func:`step_rows_playing` on numba's pool."""
    for i in numba.prange(states.shape[0]):
        step_row_playing(
            states[i], m, actions[i], masks[i], observe, out[i], i, ends, starts, setup, learners[i], kinds, params,
            model, rng[i], noise[i], pos_state[i], pos[i], plan[i], length[i], status[i],
        )  # fmt: skip


@njit
def step_row_turn(
    s, m, plan, length, mask, observe, out, i, ends, starts, setup,
    learner, kinds, params, model, rng, noise, pos_state, pos, actions, plan_len, status,
):  # fmt: skip
    """:func:`step_row_playing` where the learner plays ``plan[:length]`` (the options level's ``"turn"``).

    The learner takes the plan's actions while they are legal and its own decisions
    (:func:`~concordia_env.engine.rules.entry_points.play_plan`; the first one is checked by the
    caller), then its opponents play up to its next decision, as after a single action.
    """
    play_plan(s, m, learner, plan, length, mask)
    play_row(s, m, learner, mask, kinds, params, model, rng, noise, pos_state, pos, actions, plan_len, status)
    end_row(s, m, mask, i, ends, starts, setup)
    observe_row(s, m, observe, out)


@njit
def step_rows_turn(
    states, m, plans, lengths, masks, observe, out, ends, starts, setup,
    learners, kinds, params, model, rng, noise, pos_state, pos, plan, length, status,
):  # fmt: skip
    """:func:`step_row_turn` for every row (``plans[i, :lengths[i]]`` the learner's turn in row i)."""
    for i in range(states.shape[0]):
        step_row_turn(
            states[i], m, plans[i], lengths[i], masks[i], observe, out[i], i, ends, starts, setup, learners[i], kinds,
            params, model, rng[i], noise[i], pos_state[i], pos[i], plan[i], length[i], status[i],
        )  # fmt: skip


@njit_parallel
def step_rows_turn_parallel(
    states, m, plans, lengths, masks, observe, out, ends, starts, setup,
    learners, kinds, params, model, rng, noise, pos_state, pos, plan, length, status,
):  # fmt: skip
    """:func:`step_rows_turn` on numba's pool."""
    for i in numba.prange(states.shape[0]):
        step_row_turn(
            states[i], m, plans[i], lengths[i], masks[i], observe, out[i], i, ends, starts, setup, learners[i], kinds,
            params, model, rng[i], noise[i], pos_state[i], pos[i], plan[i], length[i], status[i],
        )  # fmt: skip


# --------------------------------------------------------------------------- the other batch operations
@njit_parallel
def legal_masks_parallel(states, m, out):
    """``rules.entry_points.legal_masks`` on numba's pool."""
    for i in numba.prange(states.shape[0]):
        legal_row(states[i], m, out[i])


@njit_parallel
def observe_batch_parallel(states, m, players, out):
    """``observation.observe_batch_into`` on numba's pool."""
    for i in numba.prange(states.shape[0]):
        fill_observation(states[i], m, players[i], out[i])


@njit_parallel
def scores_batch_parallel(states, m, out):
    """``observation.scores_batch_into`` on numba's pool."""
    for i in numba.prange(states.shape[0]):
        score_totals(states[i], m, out[i])


@njit_parallel
def sample_rows_parallel(masks, uniforms, out):
    """``rules.entry_points.sample_rows`` on numba's pool."""
    for i in numba.prange(masks.shape[0]):
        out[i] = sample_row(masks[i], uniforms[i])


@njit_parallel
def play_rows_parallel(
    states, m, learners, masks, kinds, params, model, rng, noise, pos_state, pos, plan, length, status
):
    """``strategy.players.play_rows`` on numba's pool."""
    for i in numba.prange(states.shape[0]):
        play_row(
            states[i], m, learners[i], masks[i], kinds, params, model, rng[i], noise[i],
            pos_state[i], pos[i], plan[i], length[i], status[i],
        )  # fmt: skip
