"""The strategy core: how to play Concordia well, compiled over the state array.

The engine (:mod:`concordia_env.engine.rules`) says what is legal and what an action does; this
package says what is *good*. It is the one home of the project's strategy: the heuristic
agent is a thin wrapper around it, tree search expands and rolls out with it, the learned
agent takes its candidates and their values from it. One route per decision:

    options → afterstates → values → choice

* :mod:`.evaluation`: every player's estimated final VP (the position evaluation);
* :mod:`.planner`: the rules of thumb for every decision of a turn, and the play-out of a turn;
* :mod:`.options`: every legal answer to the pending decision, played out to the end of the
  turn, with its afterstate and values (:func:`turn_options`);
* :mod:`.rollout`: the same planner with noise and cheaper settings, for tree search;
* :mod:`.hidden`: the determinization that keeps the hidden stack hidden;
* :mod:`.afterstate`: the learned agent's scorer (features of every option, the model's MLP);
* :mod:`.players`: the agents themselves (random, heuristic, learned), compiled, for batches;
* :mod:`.pcg64`: numpy's default generator, compiled, so that those agents draw as the Python ones do;
* :mod:`.params`: the weights and settings, checked, packed into one float64 array;
* :mod:`.noise`: the strategy's own small random generator.

Everything below the functions of this module is compiled (numba, cached with the rules) and
works on raw arrays; these functions are the Python entry points. They take the state and
map tables of a :class:`~concordia_env.Game` (``game.state``, ``game.map.tables``), check
their shape and normalise their types (int32 and float64, contiguous; Python ints and
floats), so that nothing reaches compiled code in a type it was not compiled for (no
recompilation at run time) or of a size it would read past. The package imports only the
engine (rules, state, cards, maps, actions, and the compiled observation, whose columns
are the learned scorer's features), never ``Game`` or an environment, so that a batched
environment can run compiled opponents inside its batch (:mod:`.players`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.maps import M_NUM_PROVINCES, MAX_PROVINCES
from concordia_env.engine.state import MAX_PLAYERS, NUM_PLAYERS, PHASE, PHASE_GAME_OVER, STATE_SIZE

from . import afterstate, evaluation, hidden, noise, options, planner, rollout
from .afterstate import NUM_FEATURES, OBSERVATION_COLUMNS, ModelArrays
from .params import (
    DEFAULT_PARAMS,
    DEFAULT_PLANNER,
    DEFAULT_WEIGHTS,
    NO_NOISE,
    NUM_PARAMS,
    PlannerSettings,
    RolloutSettings,
    Weights,
    params_array,
)

__all__ = [
    "DEFAULT_PARAMS",
    "DEFAULT_PLANNER",
    "DEFAULT_WEIGHTS",
    "NO_NOISE",
    "ModelArrays",
    "PlannerSettings",
    "RolloutSettings",
    "TurnOptions",
    "Weights",
    "afterstate_features",
    "afterstate_scores",
    "best_option",
    "decide",
    "determinized",
    "evaluate",
    "new_rng",
    "params_array",
    "plan_turn",
    "random_rollout",
    "remaining_fraction",
    "replay",
    "rollout_turns",
    "score_estimate",
    "turn_options",
    "utility",
]

#: the shape of one game's state
_STATE_SHAPE = (STATE_SIZE,)


class TurnOptions(NamedTuple):
    """The options of one decision (:func:`turn_options`), one row per option."""

    #: the option's first actions: one, or a played Diplomat and the card it copies (-1 padded)
    first: np.ndarray
    #: the state where the option's turn ends
    afterstates: np.ndarray
    #: every player's estimated final VP there, [option, player] (one column per player)
    values: np.ndarray
    #: every action of the turn from the decision on, [option, :lengths[option]]
    plans: np.ndarray
    lengths: np.ndarray
    #: rules of thumb that proposed an illegal action (a bug; the first legal action was played)
    illegal: int


# --------------------------------------------------------------------------- normalising inputs
def _state(state: np.ndarray) -> np.ndarray:
    s = np.ascontiguousarray(state, dtype=np.int32)
    if s.shape != _STATE_SHAPE:
        raise ValueError(f"a state is an array of {STATE_SIZE} integers, got shape {s.shape}")
    return s


def _tables(tables: np.ndarray) -> np.ndarray:
    """A map's tables as the engine passes them: int32, contiguous and read-only (one compiled signature)."""
    m = np.ascontiguousarray(tables, dtype=np.int32)
    if m.ndim != 1 or m.shape[0] <= M_NUM_PROVINCES or not 0 < m[M_NUM_PROVINCES] <= MAX_PROVINCES:
        raise ValueError("map tables are a map's ``tables`` array (concordia_env.engine.maps.load(name).tables)")
    if m.flags.writeable:
        m = m.copy()
        m.flags.writeable = False
    return m


def _params(params: np.ndarray | None) -> np.ndarray:
    """The params array as compiled code takes it: float64, contiguous, writable (one compiled signature)."""
    p = np.ascontiguousarray(DEFAULT_PARAMS if params is None else params, dtype=np.float64)
    if p.shape != (NUM_PARAMS,):
        raise ValueError(f"params are made by strategy.params_array() ({NUM_PARAMS} numbers), got shape {p.shape}")
    return p if p.flags.writeable else p.copy()


def _remaining(remaining: float | None, s: np.ndarray, m: np.ndarray) -> float:
    if remaining is None:
        return float(evaluation.remaining_fraction(s, m))
    value = float(remaining)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"remaining is a share of the game in 0..1, got {remaining!r}")
    return value


def _status() -> np.ndarray:
    return np.zeros(planner.STATUS_SIZE, dtype=np.int64)


def new_rng(seed: int) -> np.ndarray:
    """The strategy's generator state from a seed (see :mod:`.noise`); draw the seed from the agent's generator."""
    return noise.new_state(seed)


# --------------------------------------------------------------------------- entry points
def remaining_fraction(state: np.ndarray, tables: np.ndarray) -> float:
    """How much of the game is left, 1 at the start, 0 once the end is triggered (:mod:`.evaluation`)."""
    return float(evaluation.remaining_fraction(_state(state), _tables(tables)))


def evaluate(
    state: np.ndarray, tables: np.ndarray, params: np.ndarray | None = None, remaining: float | None = None
) -> np.ndarray:
    """Every player's estimated final VP (float64, one per player); ``remaining`` defaults to the position's."""
    s, m = _state(state), _tables(tables)
    out = np.zeros(int(s[NUM_PLAYERS]), dtype=np.float64)
    evaluation.values(s, m, _params(params), _remaining(remaining, s, m), out)
    return out


def utility(values: np.ndarray, player: int, opponent_weight: float = 1.0) -> float:
    """``values[player]`` minus ``opponent_weight`` times the opponents' mean value."""
    v = np.ascontiguousarray(values, dtype=np.float64)
    return float(evaluation.utility(v, int(player), len(v), float(opponent_weight)))


def determinized(state: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """A copy of ``state`` with the hidden stack reshuffled within each deck (:mod:`.hidden`)."""
    s = _state(state).copy()
    hidden.determinize(s, _rng(rng))
    return s


def _rng(rng: np.ndarray) -> np.ndarray:
    if not isinstance(rng, np.ndarray) or rng.dtype != np.uint64 or rng.shape != (1,):
        raise TypeError("a strategy generator state is made by strategy.new_rng(seed)")
    return rng


def decide(
    state: np.ndarray, tables: np.ndarray, params: np.ndarray | None = None, remaining: float | None = None
) -> tuple[int, int]:
    """The planner's answer to the pending decision, and how many illegal proposals it replaced (0 unless a bug).

    The caller determinizes first if the position's hidden stack is the real one.
    """
    s, m = _state(state), _tables(tables)
    if int(s[PHASE]) == PHASE_GAME_OVER:
        raise ValueError("the game is over: there is no decision to take")
    status = _status()
    action = planner.decide(s, m, _params(params), _remaining(remaining, s, m), status)
    return int(action), int(status[planner.STATUS_ILLEGAL])


def turn_options(
    state: np.ndarray, tables: np.ndarray, params: np.ndarray | None = None, remaining: float | None = None
) -> TurnOptions:
    """Every legal answer to the pending decision played out to the end of the turn (:mod:`.options`).

    The caller determinizes first if the position's hidden stack is the real one (an
    afterstate past a card purchase shows the card drawn).
    """
    s, m = _state(state), _tables(tables)
    if int(s[PHASE]) == PHASE_GAME_OVER:
        raise ValueError("the game is over: there is no decision to take")
    status = _status()
    first, afterstates, vals, plans, lengths = options.turn_options(
        s, m, _params(params), _remaining(remaining, s, m), status
    )
    n = int(s[NUM_PLAYERS])
    return TurnOptions(first, afterstates, vals[:, :n], plans, lengths, int(status[planner.STATUS_ILLEGAL]))


def best_option(opts: TurnOptions, player: int, opponent_weight: float = 1.0) -> int:
    """The index of the option of the best utility for ``player`` (the heuristic's choice)."""
    vals = np.ascontiguousarray(opts.values, dtype=np.float64)
    if not 0 <= int(player) < vals.shape[1]:
        raise ValueError(f"player {player} is not one of the {vals.shape[1]} players")
    return int(options.best_option(vals, int(player), vals.shape[1], float(opponent_weight)))


def plan_turn(
    state: np.ndarray,
    tables: np.ndarray,
    start: list[int],
    params: np.ndarray | None = None,
    remaining: float | None = None,
) -> tuple[np.ndarray, int]:
    """Take the legal actions ``start``, then play the turn out with the planner: (every action, illegal proposals)."""
    s, m = _state(state), _tables(tables)
    actions = np.asarray([int(a) for a in start], dtype=np.int64)
    if actions.size and (actions.min() < 0 or actions.max() >= NUM_ACTIONS):
        raise ValueError(f"the start {list(start)} holds a value that is no action index")
    plan = np.zeros(planner.MAX_TURN_DECISIONS, dtype=np.int64)
    status = _status()
    length = options.plan_from(s, m, _params(params), _remaining(remaining, s, m), actions, plan, status)
    if length < 0:
        raise ValueError(f"the start {list(start)} is not a sequence of legal actions in this position")
    return plan[:length].copy(), int(status[planner.STATUS_ILLEGAL])


def replay(state: np.ndarray, tables: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The states before each of ``actions`` taken in turn from ``state`` (as many rows as were legal)."""
    s, m = _state(state), _tables(tables)
    acts = np.ascontiguousarray(actions, dtype=np.int64)
    if acts.ndim != 1 or (acts.size and (acts.min() < 0 or acts.max() >= NUM_ACTIONS)):
        raise ValueError("actions are a 1-D array of action indices")
    out = np.empty((len(acts), STATE_SIZE), dtype=np.int32)
    count = options.replay(s.copy(), m, acts, out)
    return out[:count]


def rollout_turns(state: np.ndarray, tables: np.ndarray, params: np.ndarray, turns: int, rng: np.ndarray) -> int:
    """Play the rollout policy (:mod:`.rollout`) on ``state`` in place for ``turns`` turns; returns decisions taken."""
    s = state
    if not (isinstance(s, np.ndarray) and s.dtype == np.int32 and s.flags.c_contiguous and s.shape == _STATE_SHAPE):
        raise TypeError("rollouts change the state in place: pass a game's own int32 state array")
    status = _status()
    n = rollout.rollout(s, _tables(tables), _params(params), int(turns), _rng(rng), status)
    if status[planner.STATUS_ILLEGAL]:
        raise RuntimeError("the rollout policy proposed an illegal action (a bug in concordia_env.strategy)")
    return int(n)


def random_rollout(state: np.ndarray, tables: np.ndarray, turns: int, rng: np.ndarray) -> int:
    """Uniformly random legal actions on ``state`` in place for ``turns`` turns; returns decisions taken."""
    s = state
    if not (isinstance(s, np.ndarray) and s.dtype == np.int32 and s.flags.c_contiguous and s.shape == _STATE_SHAPE):
        raise TypeError("rollouts change the state in place: pass a game's own int32 state array")
    return int(rollout.random_rollout(s, _tables(tables), int(turns), _rng(rng)))


def score_estimate(state: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """VP per player if the game ended now, plus a tenth of the wealth still to spend (float64)."""
    s = _state(state)
    out = np.zeros(int(s[NUM_PLAYERS]), dtype=np.float64)
    rollout.score_estimate(s, _tables(tables), out)
    return out


def afterstate_features(
    afterstates: np.ndarray, tables: np.ndarray, values: np.ndarray, player: int, remaining: float
) -> np.ndarray:
    """The learned agent's feature vectors of the afterstates of one decision (float32, one row each), compiled.

    ``afterstates`` are engine states of the map whose ``tables`` are given (the rows of
    :func:`turn_options`), ``values[k]`` every player's estimated final VP in row k (see
    :mod:`.afterstate`).
    """
    states, m, vals, player = _afterstate_inputs(afterstates, tables, values, player, remaining)
    out = np.empty((len(states), NUM_FEATURES), dtype=np.float32)
    afterstate.option_features(states, m, vals, player, float(remaining), OBSERVATION_COLUMNS, out)
    return out


def afterstate_scores(
    afterstates: np.ndarray,
    tables: np.ndarray,
    values: np.ndarray,
    player: int,
    remaining: float,
    model: ModelArrays,
) -> np.ndarray:
    """A learned model's score of every afterstate (float32), as compiled code computes it inside a batch."""
    states, m, vals, player = _afterstate_inputs(afterstates, tables, values, player, remaining)
    if not isinstance(model, ModelArrays) or len(model.shapes) == 0:
        raise ValueError("model must be the arrays of a model (strategy.afterstate.pack_model)")
    return afterstate.score_options(states, m, vals, player, float(remaining), OBSERVATION_COLUMNS, *model)


def _afterstate_inputs(
    afterstates: np.ndarray, tables: np.ndarray, values: np.ndarray, player: int, remaining: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The inputs as compiled code takes them, or ``ValueError``: the compiled code does not bounds-check."""
    states = np.ascontiguousarray(afterstates, dtype=np.int32)
    if states.ndim != 2 or states.shape[1] != STATE_SIZE or len(states) == 0:
        raise ValueError(f"afterstates are engine states, one per row ({STATE_SIZE} integers each)")
    n = int(states[0, NUM_PLAYERS])
    if not 2 <= n <= MAX_PLAYERS or np.any(states[:, NUM_PLAYERS] != n):
        raise ValueError("afterstates are states of one game")
    given = np.asarray(values, dtype=np.float64)
    if given.shape != (len(states), n):
        raise ValueError(f"values hold one estimate per player of every afterstate: shape {(len(states), n)}")
    vals = np.zeros((len(states), MAX_PLAYERS), dtype=np.float64)
    vals[:, :n] = given
    if not 0 <= int(player) < n:
        raise ValueError(f"player {player} is not one of the {n} players")
    if not 0.0 <= float(remaining) <= 1.0:
        raise ValueError(f"remaining is a share of the game in 0..1, got {remaining!r}")
    return states, _tables(tables), vals, int(player)
