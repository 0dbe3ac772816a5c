"""The strategy core's Python API: the checked entry points of the compiled strategy.

Everything below the functions of this module is compiled (numba, cached with the rules) and
works on raw arrays; these functions are the Python entry points. They take the state and
map tables of a :class:`~concordia_env.Game` (``game.state``, ``game.map.tables``), check
their shape and normalise their types (int32 and float64, contiguous and writable, so a
read-only ``game.state`` is copied; Python ints and floats), so that nothing reaches
compiled code in a type it was not compiled for (no recompilation at run time) or of a
size it would read past. The rollouts change a state
in place: they take a writable array (a copy, ``numpy.array(game.state)``, made back into a
game by ``game.with_state(state, check=False)``), never the read-only ``game.state``. They do
not check the *values* of the state (``Game(state, map)`` does): pass states of games. The package imports only the
engine (rules, state, cards, maps, actions, and the compiled observation, whose columns
are the learned scorer's features), never ``Game`` or an environment, so that a batched
environment can run compiled opponents inside its batch (:mod:`.players`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.maps import MAP_NAMES, load
from concordia_env.engine.state import MAP_ID, MAX_PLAYERS, NUM_PLAYERS, PHASE, PHASE_GAME_OVER, STATE_SIZE
from concordia_env.engine.state_check import check_bounds, field_bounds

from . import afterstate_scorer, determinization, evaluation, noise, planner, rollout, search, turn_enumeration
from .afterstate_scorer import NUM_FEATURES, OBSERVATION_COLUMNS, ModelArrays
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
from .search import ROLLOUT_NONE, ROLLOUT_POLICY, ROLLOUT_RANDOM, STOP_PAUSE, STOP_ROOM, Tree

__all__ = [
    "DEFAULT_PARAMS",
    "DEFAULT_PLANNER",
    "DEFAULT_WEIGHTS",
    "NO_NOISE",
    "ModelArrays",
    "PlannerSettings",
    "RolloutSettings",
    "SearchExpansion",
    "Tree",
    "TurnOptions",
    "Weights",
    "afterstate_features",
    "afterstate_scores",
    "best_option",
    "decide",
    "determinized",
    "evaluate",
    "expansion",
    "new_rng",
    "params_array",
    "plan_turn",
    "random_rollout",
    "remaining_fraction",
    "replay",
    "rollout_turns",
    "root_statistics",
    "score_estimate",
    "search_settings",
    "search_tree",
    "set_first_estimates",
    "simulate",
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
    """The state as compiled code takes it: int32, contiguous, writable (a read-only ``Game.state`` is copied),
    and every field within its bounds (:func:`~concordia_env.engine.state_check.check_bounds`: no index compiled
    code reads from it points outside its arrays; ``ValueError`` naming the first field that does)."""
    s = np.ascontiguousarray(state, dtype=np.int32)
    if s.shape != _STATE_SHAPE:
        raise ValueError(f"a state is an array of {STATE_SIZE} integers, got shape {s.shape}")
    check_bounds(s)
    return s if s.flags.writeable else s.copy()


def _own_state(state: np.ndarray) -> np.ndarray:
    """The state a rollout changes in place: a writable int32 array (never the read-only ``game.state``)."""
    s = state
    if not (
        isinstance(s, np.ndarray)
        and s.dtype == np.int32
        and s.flags.c_contiguous
        and s.flags.writeable
        and s.shape == _STATE_SHAPE
    ):
        raise TypeError("rollouts change the state in place: pass a game's own writable int32 state array")
    check_bounds(s)
    return s


def _tables(tables: np.ndarray, state: np.ndarray | None = None) -> np.ndarray:
    """A map's tables as the engine passes them: int32, contiguous and read-only (one compiled signature).

    They must be the tables of one of the maps (of the map of ``state``, when given): compiled
    code trusts the counts and indices they hold.
    """
    if state is not None:
        known = [load(MAP_NAMES[int(state[MAP_ID])]).tables]  # state is checked: MAP_ID is in range
    else:
        known = [load(name).tables for name in MAP_NAMES]
    if not any(tables is k for k in known):
        m = np.ascontiguousarray(tables, dtype=np.int32)
        if not any(m.shape == k.shape and np.array_equal(m, k) for k in known):
            where = "of the state's map" if state is not None else "of a map"
            raise ValueError(f"map tables must be the tables {where} (concordia_env.engine.load(name).tables)")
        tables = next(k for k in known if np.array_equal(m, k))
    return tables


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
    s = _state(state)
    return float(evaluation.remaining_fraction(s, _tables(tables, s)))


def evaluate(
    state: np.ndarray, tables: np.ndarray, params: np.ndarray | None = None, remaining: float | None = None
) -> np.ndarray:
    """Every player's estimated final VP (float64, one per player); ``remaining`` defaults to the position's."""
    s = _state(state)
    m = _tables(tables, s)
    out = np.zeros(int(s[NUM_PLAYERS]), dtype=np.float64)
    evaluation.values(s, m, _params(params), _remaining(remaining, s, m), out)
    return out


def utility(values: np.ndarray, player: int, opponent_weight: float = 1.0) -> float:
    """``values[player]`` minus ``opponent_weight`` times the opponents' mean value."""
    v = np.ascontiguousarray(values, dtype=np.float64)
    return float(evaluation.utility(v, int(player), len(v), float(opponent_weight)))


def determinized(state: np.ndarray, rng: np.ndarray) -> np.ndarray:
    """A copy of ``state`` with the hidden stack reshuffled within each deck (:mod:`.determinization`)."""
    s = _state(state).copy()
    determinization.determinize(s, _rng(rng))
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
    s = _state(state)
    m = _tables(tables, s)
    if int(s[PHASE]) == PHASE_GAME_OVER:
        raise ValueError("the game is over: there is no decision to take")
    status = _status()
    action = planner.decide(s, m, _params(params), _remaining(remaining, s, m), status)
    return int(action), int(status[planner.STATUS_ILLEGAL])


def turn_options(
    state: np.ndarray, tables: np.ndarray, params: np.ndarray | None = None, remaining: float | None = None
) -> TurnOptions:
    """Every legal answer to the pending decision played out to the end of the turn (:mod:`.turn_enumeration`).

    The caller determinizes first if the position's hidden stack is the real one (an
    afterstate past a card purchase shows the card drawn).
    """
    s = _state(state)
    m = _tables(tables, s)
    if int(s[PHASE]) == PHASE_GAME_OVER:
        raise ValueError("the game is over: there is no decision to take")
    status = _status()
    first, afterstates, vals, plans, lengths = turn_enumeration.turn_options(
        s, m, _params(params), _remaining(remaining, s, m), status
    )
    n = int(s[NUM_PLAYERS])
    return TurnOptions(first, afterstates, vals[:, :n], plans, lengths, int(status[planner.STATUS_ILLEGAL]))


def best_option(opts: TurnOptions, player: int, opponent_weight: float = 1.0) -> int:
    """The index of the option of the best utility for ``player`` (the heuristic's choice)."""
    vals = np.ascontiguousarray(opts.values, dtype=np.float64)
    if not 0 <= int(player) < vals.shape[1]:
        raise ValueError(f"player {player} is not one of the {vals.shape[1]} players")
    return int(turn_enumeration.best_option(vals, int(player), vals.shape[1], float(opponent_weight)))


def plan_turn(
    state: np.ndarray,
    tables: np.ndarray,
    start: list[int],
    params: np.ndarray | None = None,
    remaining: float | None = None,
) -> tuple[np.ndarray, int]:
    """Take the legal actions ``start``, then play the turn out with the planner: (every action, illegal proposals)."""
    s = _state(state)
    m = _tables(tables, s)
    actions = np.asarray([int(a) for a in start], dtype=np.int64)
    if actions.size and (actions.min() < 0 or actions.max() >= NUM_ACTIONS):
        raise ValueError(f"the start {list(start)} holds a value that is no action index")
    plan = np.zeros(planner.MAX_TURN_DECISIONS, dtype=np.int64)
    status = _status()
    length = turn_enumeration.plan_from(s, m, _params(params), _remaining(remaining, s, m), actions, plan, status)
    if length < 0:
        raise ValueError(f"the start {list(start)} is not a sequence of legal actions in this position")
    return plan[:length].copy(), int(status[planner.STATUS_ILLEGAL])


def replay(state: np.ndarray, tables: np.ndarray, actions: np.ndarray) -> np.ndarray:
    """The states before each of ``actions`` taken in turn from ``state`` (as many rows as were legal)."""
    s = _state(state)
    m = _tables(tables, s)
    acts = np.ascontiguousarray(actions, dtype=np.int64)
    if acts.ndim != 1 or (acts.size and (acts.min() < 0 or acts.max() >= NUM_ACTIONS)):
        raise ValueError("actions are a 1-D array of action indices")
    out = np.empty((len(acts), STATE_SIZE), dtype=np.int32)
    count = turn_enumeration.replay(s.copy(), m, acts, out)
    return out[:count]


def rollout_turns(state: np.ndarray, tables: np.ndarray, params: np.ndarray, turns: int, rng: np.ndarray) -> int:
    """Play the rollout policy (:mod:`.rollout`) on ``state`` in place for ``turns`` turns; returns decisions taken."""
    s = _own_state(state)
    status = _status()
    n = rollout.rollout(s, _tables(tables, s), _params(params), int(turns), _rng(rng), status)
    if status[planner.STATUS_ILLEGAL]:
        raise RuntimeError("the rollout policy proposed an illegal action (a bug in concordia_env.strategy)")
    return int(n)


def random_rollout(state: np.ndarray, tables: np.ndarray, turns: int, rng: np.ndarray) -> int:
    """Uniformly random legal actions on ``state`` in place for ``turns`` turns; returns decisions taken."""
    s = _own_state(state)
    return int(rollout.random_rollout(s, _tables(tables, s), int(turns), _rng(rng)))


def score_estimate(state: np.ndarray, tables: np.ndarray) -> np.ndarray:
    """VP per player if the game ended now, plus a tenth of the wealth still to spend (float64)."""
    s = _state(state)
    out = np.zeros(int(s[NUM_PLAYERS]), dtype=np.float64)
    rollout.score_estimate(s, _tables(tables, s), out)
    return out


# --------------------------------------------------------------------------- tree search
#: the rollouts of :func:`search_settings`, by name
SEARCH_ROLLOUTS = {"none": ROLLOUT_NONE, "heuristic": ROLLOUT_POLICY, "random": ROLLOUT_RANDOM}
#: what scores a position where a rollout stops, by name
SEARCH_EVALUATIONS = {"heuristic": search.EVALUATION_HEURISTIC, "score": search.EVALUATION_SCORE}
#: rollout turns of :func:`search_settings` with ``rollout_turns=None`` (to the end of the game)
UNLIMITED_TURNS = search.UNLIMITED_TURNS


class SearchExpansion(NamedTuple):
    """The node a paused search (:func:`simulate` with ``pause=True``) has just expanded."""

    #: the node's position
    state: np.ndarray
    #: its turn options' afterstates and every player's estimated final VP there, one row each
    afterstates: np.ndarray
    values: np.ndarray
    #: the children's first estimates (every player's value in 0..1), one row each: change them
    #: and pass them to :func:`set_first_estimates`
    estimates: np.ndarray


def search_settings(
    exploration: float,
    value_scale: float,
    rollout: str,
    rollout_turns: int | None,
    evaluation: str,
    pause: bool = False,
    prior_visits: float = search.PRIOR_VISITS,
) -> np.ndarray:
    """The settings array of :func:`simulate` (:mod:`.search`), checked.

    ``rollout``: ``"heuristic"`` (the rollout policy), ``"random"`` or ``"none"``;
    ``rollout_turns``: turns a rollout plays (None: to the end of the game); ``evaluation``:
    ``"heuristic"`` or ``"score"``; ``pause``: stop after every expansion (guided estimates);
    ``prior_visits``: how many visits a new child's first estimate counts as (> 0): how long
    the search trusts it against its own simulations.
    """
    if rollout not in SEARCH_ROLLOUTS:
        raise ValueError(f"rollout must be one of {sorted(SEARCH_ROLLOUTS)}, got {rollout!r}")
    if evaluation not in SEARCH_EVALUATIONS:
        raise ValueError(f"evaluation must be one of {sorted(SEARCH_EVALUATIONS)}, got {evaluation!r}")
    exploration, value_scale = float(exploration), float(value_scale)
    if not (np.isfinite(exploration) and exploration >= 0):
        raise ValueError(f"exploration must be a finite number >= 0, got {exploration!r}")
    if not (np.isfinite(value_scale) and value_scale > 0):
        raise ValueError(f"value_scale must be a finite number > 0, got {value_scale!r}")
    turns = UNLIMITED_TURNS if rollout_turns is None else int(rollout_turns)
    if not 1 <= turns <= UNLIMITED_TURNS:
        raise ValueError(f"rollout_turns must be in 1..{UNLIMITED_TURNS} (or None: to the end), got {rollout_turns!r}")
    prior_visits = float(prior_visits)
    if not (np.isfinite(prior_visits) and prior_visits > 0):
        raise ValueError(f"prior_visits must be a finite number > 0, got {prior_visits!r}")
    out = np.zeros(search.NUM_SETTINGS, dtype=np.float64)
    out[search.S_EXPLORATION] = exploration
    out[search.S_VALUE_SCALE] = value_scale
    out[search.S_ROLLOUT] = SEARCH_ROLLOUTS[rollout]
    out[search.S_ROLLOUT_TURNS] = turns
    out[search.S_EVALUATION] = SEARCH_EVALUATIONS[evaluation]
    out[search.S_PAUSE] = float(bool(pause))
    out[search.S_PRIOR_VISITS] = prior_visits
    return out


#: every array of a search tree: its dtype and its shape past the row count (None: rows of the node arrays)
_TREE_FIELDS = {
    "parent": (np.int32, ()),
    "player": (np.int32, ()),
    "visits": (np.float64, ()),
    "value": (np.float64, (MAX_PLAYERS,)),
    "first_child": (np.int32, ()),
    "num_children": (np.int32, ()),
    "slot": (np.int32, ()),
    "plan_start": (np.int64, ()),
    "plan_len": (np.int32, ()),
    "plans": (np.int16, ()),
    "states": (np.int32, (STATE_SIZE,)),
    "after": (np.int32, (STATE_SIZE,)),
    "after_values": (np.float64, (MAX_PLAYERS,)),
    "counts": (np.int64, ()),
    "cursor": (np.int64, ()),
}
_NODE_FIELDS = ("parent", "player", "visits", "value", "first_child", "num_children", "slot", "plan_start", "plan_len")


def _tree(tree: Tree, rooted: bool = True) -> Tree:
    """A tree as :func:`search_tree` and :func:`simulate` made it: the arrays' types and sizes checked.

    ``rooted``: the tree must hold a root (:func:`search_tree` put a position there).
    """
    if not isinstance(tree, Tree):
        raise TypeError(f"tree must be a strategy.Tree made by search_tree(), got {type(tree).__name__}")
    for name, (dtype, rest) in _TREE_FIELDS.items():
        a = getattr(tree, name)
        if not (isinstance(a, np.ndarray) and a.dtype == dtype and a.shape[1:] == rest and a.flags.c_contiguous):
            raise TypeError(f"tree.{name} is not the array search_tree() made (a {np.dtype(dtype)} array)")
        if not a.flags.writeable:
            raise ValueError(f"tree.{name} is read-only")
    rows = tree.parent.shape[0]
    counts = tree.counts
    if (
        any(getattr(tree, name).shape[0] != rows for name in _NODE_FIELDS)
        or counts.shape != (search.NUM_COUNTS,)
        or tree.cursor.shape != (search.CURSOR_SIZE,)
        or tree.after.shape[0] != tree.after_values.shape[0]
        or not 0 <= counts[search.C_NODES] <= rows
        or not 0 <= counts[search.C_STATES] <= tree.states.shape[0]
        or not 0 <= counts[search.C_PLAN] <= tree.plans.shape[0]
        or rows == 0
        or tree.states.shape[0] == 0
    ):
        raise ValueError("the tree's arrays do not fit together: make trees with search_tree()")
    if rooted and counts[search.C_NODES] == 0:
        raise ValueError("the tree has no root: make it with search_tree()")
    return tree


def search_tree(state: np.ndarray, tree: Tree | None = None) -> Tree:
    """A search tree with ``state`` at its root: ``tree`` emptied and reused, or a new one.

    The caller determinizes first if the position's hidden stack is the real one.
    """
    s = _state(state)
    if int(s[PHASE]) == PHASE_GAME_OVER:
        raise ValueError("the game is over: there is no decision to search")
    if tree is None:
        tree = search.new_tree()
    else:
        tree = _tree(tree, rooted=False)
    search.set_root(tree, s)
    return tree


def simulate(
    tree: Tree,
    tables: np.ndarray,
    params: np.ndarray | None,
    rollout_params: np.ndarray,
    settings: np.ndarray,
    rng: np.ndarray,
    budget: int,
    status: np.ndarray | None = None,
    model: ModelArrays | None = None,
) -> tuple[Tree, int, bool]:
    """Run up to ``budget`` simulations of the search (:mod:`.search`); the tree grows as needed.

    Returns ``(tree, simulations completed, paused)``: keep the returned tree (it may have new,
    bigger arrays). ``paused`` is True when the settings ask to pause after every expansion and
    one just happened (:func:`expansion`, :func:`set_first_estimates`, then call again to go on).
    ``status`` (``planner.STATUS_SIZE`` int64 counters, optional) adds up the planner's illegal
    proposals (``status[planner.STATUS_ILLEGAL]``, 0 unless a bug). ``model`` (the arrays of a
    learned model, ``AfterstateModel.compiled``): every expansion's first estimates for the
    player choosing are the model's (the ``learned`` agent's search); None: the heuristic's.
    """
    tree = _tree(tree)
    guide = _model(model)
    sets = np.ascontiguousarray(settings, dtype=np.float64)
    if sets.shape != (search.NUM_SETTINGS,) or not sets[search.S_PRIOR_VISITS] > 0:
        raise ValueError("settings are made by strategy.search_settings()")
    m, p, r, g = _tables(tables), _params(params), _params(rollout_params), _rng(rng)
    if status is None:
        status = _status()
    elif not (isinstance(status, np.ndarray) and status.dtype == np.int64 and status.shape == (planner.STATUS_SIZE,)):
        raise TypeError(f"status is an int64 array of {planner.STATUS_SIZE} counters")
    budget = int(budget)
    done = 0
    while done < budget:
        done += int(search.simulate(tree, m, p, r, sets, g, status, budget - done, guide))
        stop = int(tree.cursor[search.K_STOP])
        if stop == STOP_ROOM:
            tree = search.grown(tree)
        elif stop == STOP_PAUSE:
            return tree, done, True
    return tree, done, False


def _model(model: ModelArrays | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A learned model as compiled code takes it, ``(flat, shapes, ab, columns)``, checked
    (:func:`.afterstate_scorer.checked_arrays`); None: no model."""
    arrays = afterstate_scorer.no_model() if model is None else afterstate_scorer.checked_arrays(model)
    return (*arrays, OBSERVATION_COLUMNS)


def expansion(tree: Tree) -> SearchExpansion:
    """What a paused search has just expanded (see :func:`simulate`); the arrays are copies."""
    if int(tree.cursor[search.K_STOP]) != STOP_PAUSE or int(tree.cursor[search.K_PHASE]) != search.CURSOR_CHOOSE:
        raise ValueError("the search is not paused after an expansion")
    node = int(tree.cursor[search.K_NODE])
    first, count = int(tree.first_child[node]), int(tree.num_children[node])
    state = tree.states[tree.slot[node]].copy()
    n = int(state[NUM_PLAYERS])
    estimates = tree.value[first : first + count, :n] / tree.visits[first : first + count, None]
    return SearchExpansion(state, tree.after[:count].copy(), tree.after_values[:count, :n].copy(), estimates)


def set_first_estimates(tree: Tree, estimates: np.ndarray) -> None:
    """Replace the first estimates of the children of the node a paused search has just expanded."""
    current = expansion(tree).estimates
    est = np.asarray(estimates, dtype=np.float64)
    if est.shape != current.shape:
        raise ValueError(f"estimates are one row per child and one column per player {current.shape}, got {est.shape}")
    if not (np.isfinite(est).all() and (est >= 0).all() and (est <= 1).all()):
        raise ValueError("first estimates are values in 0..1")
    node = int(tree.cursor[search.K_NODE])
    first, count = int(tree.first_child[node]), int(tree.num_children[node])
    tree.value[first : first + count, : est.shape[1]] = est * tree.visits[first : first + count, None]


def root_statistics(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per root move: its first actions (a Diplomat: and the copy, else -1), visits, summed value of the mover."""
    count = int(_tree(tree).num_children[0])
    first = np.full((count, 2), -1, dtype=np.int64)
    visits = np.zeros(count)
    values = np.zeros(count)
    search.root_statistics(tree, int(tree.player[0]), first, visits, values)
    return first, visits, values


def afterstate_features(
    afterstates: np.ndarray,
    tables: np.ndarray,
    values: np.ndarray,
    player: int,
    remaining: float,
    width: int = NUM_FEATURES,
) -> np.ndarray:
    """The learned agent's feature vectors of the afterstates of one decision (float32, one row each), compiled.

    ``afterstates`` are engine states of the map whose ``tables`` are given (the rows of
    :func:`turn_options`), ``values[k]`` every player's estimated final VP in row k;
    ``width`` one of ``afterstate_scorer.FEATURE_COUNTS`` (the newest version's by default; see
    :mod:`.afterstate_scorer`).
    """
    afterstate_scorer.features_version(width)  # ValueError for a width no version has
    states, m, vals, player = _afterstate_inputs(afterstates, tables, values, player, remaining)
    out = np.empty((len(states), width), dtype=np.float32)
    afterstate_scorer.option_features(states, m, vals, player, float(remaining), OBSERVATION_COLUMNS, out)
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
    flat, shapes, ab = afterstate_scorer.checked_arrays(model)
    return afterstate_scorer.score_options(
        states, m, vals, player, float(remaining), OBSERVATION_COLUMNS, flat, shapes, ab
    )


def _afterstate_inputs(
    afterstates: np.ndarray, tables: np.ndarray, values: np.ndarray, player: int, remaining: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The inputs as compiled code takes them, or ``ValueError``: the compiled code does not bounds-check."""
    states = _states(afterstates)
    n = int(states[0, NUM_PLAYERS])
    given = np.asarray(values, dtype=np.float64)
    if given.shape != (len(states), n):
        raise ValueError(f"values hold one estimate per player of every afterstate: shape {(len(states), n)}")
    vals = np.zeros((len(states), MAX_PLAYERS), dtype=np.float64)
    vals[:, :n] = given
    if not 0 <= int(player) < n:
        raise ValueError(f"player {player} is not one of the {n} players")
    if not 0.0 <= float(remaining) <= 1.0:
        raise ValueError(f"remaining is a share of the game in 0..1, got {remaining!r}")
    return states, _tables(tables, states[0]), vals, int(player)


def _states(states: np.ndarray) -> np.ndarray:
    """Rows of states as compiled code takes them (see :func:`_state`): every row within its
    bounds, and all of one map and player count (the bounds of the first row hold for all)."""
    rows = np.ascontiguousarray(states, dtype=np.int32)
    if rows.ndim != 2 or rows.shape[1] != STATE_SIZE or len(rows) == 0:
        raise ValueError(f"afterstates are engine states, one per row ({STATE_SIZE} integers each)")
    m = check_bounds(rows[0])
    low, high = field_bounds(m.name, int(rows[0, NUM_PLAYERS]))
    out = ((rows < low) | (rows > high)).any(axis=1)
    if out.any():
        check_bounds(rows[int(np.flatnonzero(out)[0])])  # raises, naming the field
        raise ValueError("afterstates are states of one game (one map and player count)")
    return rows if rows.flags.writeable else rows.copy()
