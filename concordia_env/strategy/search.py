"""Tree search over whole turns, compiled: the tree as arrays, every simulation in numba.

The moves of this tree are whole *turns*, the turn options of :mod:`.turn_enumeration` (every legal
answer to the pending decision, played out to the end of the turn by the planner): a
Concordia turn is a card plus a handful of sub-decisions, and searching each of those would
spread the budget over hundreds of near-identical branches. :mod:`concordia_env.agents.mcts`
is the Python agent around it (budgets, determinizations, following the chosen turn);
this module is the search itself.

One simulation (:func:`simulate`):

1. **Selection.** From the root, UCB1 for the player to move on their own value
   (max-n: every node keeps the summed value of every player), down to a node not yet
   expanded (or a finished game).
2. **Expansion and comparable leaves.** A position right after someone's turn flatters
   that player, so a simulation is scored where the searching player is about to play
   again: from the selected node it follows every player's best move (by first estimate)
   round to them, expanding each node on the way. Expanding a node asks the core for its
   turn options (:func:`.turn_enumeration.turn_options`); every option becomes a child whose first
   estimate, worth ``settings[S_PRIOR_VISITS]`` visits (``PRIOR_VISITS`` by default), is the
   evaluation of its afterstate (or the learned model's, below).
3. **Rollout.** From that leaf the rollout policy (:mod:`.rollout`: the heuristic's own
   planner with noise on the card choice and cheaper settings) or uniformly random play
   goes on for a number of turns; the position reached is scored by the evaluation, by
   "VP if the game ended now" (:func:`.rollout.score_estimate`), or by the final scores if
   the game ended. Without a rollout the leaf's first estimate is its value.
4. **Backup.** Every node from the leaf to the root adds one visit and the value.

A player's value is their margin over the best opponent squashed into 0..1,
``0.5 + 0.5·tanh(margin / value_scale)`` (:func:`squash`): it rewards winning by more and
means the same for any number of players; a finished game counts its final scores, the
tie-break winner half a point ahead.

**The tree** is a :class:`Tree` of flat arrays, one row per node: parent, player to move,
visits, summed values, where its children start and how many there are, and the actions
of the turn that leads to it (in one shared buffer). A node's position is kept only once
it is expanded (its children are then replayed from it when they are expanded in turn,
:func:`node_state`), so that a search of thousands of simulations holds a few thousand
positions rather than every child's. An expansion that does not fit stops :func:`simulate`,
which goes on where it stopped once the caller has grown the arrays (:func:`grown`); an
agent keeps its tree from one search to the next (:func:`set_root`), so arrays are
allocated only while a search outgrows every earlier one.

**Chance.** The tree searches one determinization of the hidden stack (the caller shuffles
the root's stack first, :mod:`.determinization`): card draws inside the tree follow that one
order. The agent pools several trees, each with its own shuffle.

**Learned first estimates.** Given a learned model (the ``model`` tuple of :func:`simulate`,
the arrays of :mod:`.afterstate_scorer`), an expansion scores its options with it
(:func:`.afterstate_scorer.score_options`, compiled like everything else here): the chooser's first
estimate of an option is the model's predicted margin squashed like every value, and in a
2-player game the opponent's is its complement; with more players the others keep the
heuristic's estimates, and an option that ends the game keeps its result. This is the
``learned`` agent's search, at about the speed of the plain one (:func:`guided_estimates`).

**Estimates from the caller.** With ``settings[S_PAUSE]`` the simulation stops right after
each expansion (``STOP_PAUSE``), with the node's afterstates and values in
``tree.after`` and ``tree.after_values``, so that the caller may replace the children's
first estimates (any Python estimate: :meth:`concordia_env.agents.mcts.MCTSAgent.first_estimates`)
before :func:`simulate` goes on where it stopped.

Everything random comes from the caller's generator state (:mod:`.noise`): a search with a
fixed number of simulations is a pure function of the root, the settings and that state.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from concordia_env.engine.actions import A_DIPLOMAT, A_MOVE, NUM_ACTIONS
from concordia_env.engine.layout import Layout
from concordia_env.engine.rules import njit
from concordia_env.engine.rules.scoring import score_totals, winner
from concordia_env.engine.state import CURRENT_PLAYER, MAX_PLAYERS, NUM_PLAYERS, PHASE, PHASE_GAME_OVER, STATE_SIZE

from .afterstate_scorer import MARGIN_SCALE, score_options
from .evaluation import remaining_fraction, values
from .planner import apply
from .rollout import random_rollout, rollout, score_estimate
from .turn_enumeration import turn_options

#: the first estimate of a child counts as this many visits, by default (``settings[S_PRIOR_VISITS]``)
PRIOR_VISITS = 1.0
#: turns played by a rollout "to the end of the game" (far more than any game lasts)
UNLIMITED_TURNS = 1_000_000
#: ties in the final scores go to the tie-break winner (docs/rules.md §7): half a point
WINNER_BONUS = 0.5

# --------------------------------------------------------------------------- settings
_S = Layout()
S_EXPLORATION = _S.field("EXPLORATION", doc="the UCB1 constant, on values in 0..1")
S_VALUE_SCALE = _S.field("VALUE_SCALE", doc="VP of margin that count as a clear lead (tanh scale)")
S_ROLLOUT = _S.field("ROLLOUT", doc="ROLLOUT_NONE, ROLLOUT_POLICY or ROLLOUT_RANDOM")
S_ROLLOUT_TURNS = _S.field("ROLLOUT_TURNS", doc="turns a rollout plays (every player's)")
S_EVALUATION = _S.field("EVALUATION", doc="EVALUATION_HEURISTIC or EVALUATION_SCORE, where a rollout stops")
S_PAUSE = _S.field("PAUSE", doc="1: stop after every expansion (guided first estimates)")
S_PRIOR_VISITS = _S.field("PRIOR_VISITS", doc="visits a child's first estimate counts as (> 0)")
NUM_SETTINGS = _S.size
SETTINGS_LAYOUT = _S
ROLLOUT_NONE, ROLLOUT_POLICY, ROLLOUT_RANDOM = 0, 1, 2
EVALUATION_HEURISTIC, EVALUATION_SCORE = 0, 1

# --------------------------------------------------------------------------- counters and cursor
#: ``tree.counts``: rows in use of the node arrays, of ``states``, and entries of ``plans``
C_NODES, C_STATES, C_PLAN = 0, 1, 2
NUM_COUNTS = 3
#: ``tree.cursor``: where the current simulation stands (so that it can stop and go on) and why
#: :func:`simulate` returned
K_PHASE, K_NODE, K_EXPANDED, K_STOP = 0, 1, 2, 3
CURSOR_SIZE = 4
#: cursor phases: no simulation under way; walking round to the searcher from K_NODE (expanding
#: it first if it has no children); K_NODE was just expanded, the walk goes on from its best child
CURSOR_IDLE, CURSOR_WALK, CURSOR_CHOOSE = 0, 1, 2
#: why :func:`simulate` returned: the budget is spent; an expansion did not fit (grow the tree,
#: :func:`grown`, and call again); paused after an expansion (``S_PAUSE``)
STOP_BUDGET, STOP_ROOM, STOP_PAUSE = 0, 1, 2


class Tree(NamedTuple):
    """The search tree as arrays; node 0 is the root. See the module docstring."""

    #: the node's parent (-1: the root)
    parent: np.ndarray
    #: the player to move at the node (-1: the game is over)
    player: np.ndarray
    #: visits, first estimate included
    visits: np.ndarray
    #: the summed values of every player, [node, player]
    value: np.ndarray
    #: the first child (-1: not expanded) and the number of children (consecutive rows)
    first_child: np.ndarray
    num_children: np.ndarray
    #: the row of ``states`` holding the node's position (-1: not kept; replayed from the parent)
    slot: np.ndarray
    #: the actions of the turn from the parent to the node: ``plans[plan_start : plan_start + plan_len]``
    plan_start: np.ndarray
    plan_len: np.ndarray
    plans: np.ndarray
    #: the positions of the expanded nodes
    states: np.ndarray
    #: the afterstates of the last expansion and every player's estimated final VP there
    after: np.ndarray
    after_values: np.ndarray
    counts: np.ndarray
    cursor: np.ndarray


def new_tree(nodes: int = 4096, states: int = 256, plan_entries: int = 65536, after: int = 64) -> Tree:
    """An empty tree with room for this many rows; :func:`set_root` puts a position at its root."""
    return Tree(
        parent=np.full(nodes, -1, dtype=np.int32),
        player=np.full(nodes, -1, dtype=np.int32),
        visits=np.zeros(nodes),
        value=np.zeros((nodes, MAX_PLAYERS)),
        first_child=np.full(nodes, -1, dtype=np.int32),
        num_children=np.zeros(nodes, dtype=np.int32),
        slot=np.full(nodes, -1, dtype=np.int32),
        plan_start=np.zeros(nodes, dtype=np.int64),
        plan_len=np.zeros(nodes, dtype=np.int32),
        plans=np.zeros(plan_entries, dtype=np.int16),
        states=np.zeros((states, STATE_SIZE), dtype=np.int32),
        after=np.zeros((after, STATE_SIZE), dtype=np.int32),
        after_values=np.zeros((after, MAX_PLAYERS)),
        counts=np.zeros(NUM_COUNTS, dtype=np.int64),
        cursor=np.zeros(CURSOR_SIZE, dtype=np.int64),
    )


def grown(tree: Tree) -> Tree:
    """The same tree with twice the room in every array that grows (the rows in use are kept)."""

    def bigger(a: np.ndarray, fill: float) -> np.ndarray:
        out = np.full((2 * a.shape[0], *a.shape[1:]), fill, dtype=a.dtype)
        out[: a.shape[0]] = a
        return out

    return tree._replace(
        parent=bigger(tree.parent, -1),
        player=bigger(tree.player, -1),
        visits=bigger(tree.visits, 0),
        value=bigger(tree.value, 0),
        first_child=bigger(tree.first_child, -1),
        num_children=bigger(tree.num_children, 0),
        slot=bigger(tree.slot, -1),
        plan_start=bigger(tree.plan_start, 0),
        plan_len=bigger(tree.plan_len, 0),
        plans=bigger(tree.plans, 0),
        states=bigger(tree.states, 0),
        after=bigger(tree.after, 0),
        after_values=bigger(tree.after_values, 0),
    )


@njit
def set_root(tree, s):
    """Empty the tree (its arrays are reused) and put position ``s`` at its root."""
    tree.counts[:] = 0
    tree.cursor[:] = 0
    tree.states[0] = s
    tree.parent[0] = -1
    tree.player[0] = s[CURRENT_PLAYER] if s[PHASE] != PHASE_GAME_OVER else -1
    tree.visits[0] = 0.0
    tree.value[0] = 0.0
    tree.first_child[0] = -1
    tree.num_children[0] = 0
    tree.slot[0] = 0
    tree.plan_start[0] = 0
    tree.plan_len[0] = 0
    tree.counts[C_NODES] = 1
    tree.counts[C_STATES] = 1


# --------------------------------------------------------------------------- values
@njit
def squash(points, n, scale, out):
    """Each player's margin over the best opponent, mapped into 0..1, into ``out[:n]``."""
    top = 0
    for p in range(1, n):
        if points[p] > points[top]:
            top = p
    runner_up = -np.inf
    for p in range(n):
        if p != top and points[p] > runner_up:
            runner_up = points[p]
    for p in range(n):
        best_other = runner_up if p == top else points[top]  # the leader's best opponent is the runner-up
        out[p] = 0.5 + 0.5 * math.tanh((points[p] - best_other) / scale)


@njit
def outcome_points(s, m, out):
    """A finished game's result as points: the final scores, the tie-break winner half a point ahead."""
    totals = np.zeros(s[NUM_PLAYERS], dtype=np.int64)
    score_totals(s, m, totals)
    for p in range(s[NUM_PLAYERS]):
        out[p] = totals[p]
    out[winner(s, m)] += WINNER_BONUS


@njit
def position_value(s, m, params, settings, out):
    """The squashed value of a position where a simulation stops (``out[:n]``).

    A finished game counts its result; otherwise the evaluation of the settings: the
    heuristic's (with the position's own ``remaining``) or "VP if the game ended now".
    """
    n = s[NUM_PLAYERS]
    points = np.zeros(MAX_PLAYERS)
    if s[PHASE] == PHASE_GAME_OVER:
        outcome_points(s, m, points)
    elif settings[S_EVALUATION] == EVALUATION_HEURISTIC:
        values(s, m, params, remaining_fraction(s, m), points)
    else:
        score_estimate(s, m, points)
    squash(points, n, settings[S_VALUE_SCALE], out)


# --------------------------------------------------------------------------- the tree
@njit
def node_state(tree, m, node, out):
    """The position of ``node`` into ``out``: its kept state, or its parent's with its turn replayed."""
    if tree.slot[node] >= 0:
        out[:] = tree.states[tree.slot[node]]
        return
    out[:] = tree.states[tree.slot[tree.parent[node]]]
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    start = tree.plan_start[node]
    for i in range(tree.plan_len[node]):
        apply(out, m, tree.plans[start + i], scratch)


@njit
def is_guided(model):
    """Whether ``model`` (see :func:`simulate`) holds a learned model (``afterstate_scorer.no_model()`` does not)."""
    return model[1].shape[0] > 0


@njit
def guided_estimates(afterstates, m, vals, mover, remaining, scale, model, out):
    """The learned model's first estimate of every option for the player choosing it, into ``out[k, :n]``.

    ``out`` holds the heuristic's squashed estimates and is changed only where an option
    leaves the game running: the chooser's estimate becomes the model's predicted margin
    (in units of ``MARGIN_SCALE`` VP) squashed by ``scale``; in a 2-player game the opponent's
    is its complement, with more players the others keep the heuristic's.
    """
    flat, shapes, ab, columns = model
    scores = score_options(afterstates, m, vals, mover, remaining, columns, flat, shapes, ab)
    n = afterstates[0][NUM_PLAYERS]
    for k in range(afterstates.shape[0]):
        if afterstates[k][PHASE] == PHASE_GAME_OVER:
            continue
        mine = 0.5 + 0.5 * math.tanh(np.float64(scores[k]) * MARGIN_SCALE / scale)
        out[k, mover] = mine
        if n == 2:
            out[k, 1 - mover] = 1.0 - mine


@njit
def expand(tree, m, params, settings, node, s, status, model):
    """Give ``node`` (position ``s``) its children: the turn options, first estimates worth ``S_PRIOR_VISITS`` visits.

    The first estimates are the heuristic's, or the learned ``model``'s where one is given
    (:func:`guided_estimates`). The node's position is kept (its children replay from it);
    the options' afterstates and values stay in ``tree.after`` / ``tree.after_values`` until
    the next expansion. Returns False, changing nothing, if the tree has no room for them.
    """
    remaining = remaining_fraction(s, m)
    _, afterstates, vals, plans, lengths = turn_options(s, m, params, remaining, status)
    count = afterstates.shape[0]
    first = tree.counts[C_NODES]
    keep = tree.slot[node] < 0  # the root's position is kept from the start
    if (
        first + count > tree.parent.shape[0]
        or (keep and tree.counts[C_STATES] >= tree.states.shape[0])
        or tree.counts[C_PLAN] + lengths.sum() > tree.plans.shape[0]
        or count > tree.after.shape[0]
    ):
        return False
    if keep:
        slot = tree.counts[C_STATES]
        tree.states[slot] = s
        tree.slot[node] = slot
        tree.counts[C_STATES] += 1
    n = s[NUM_PLAYERS]
    estimates = np.zeros((count, MAX_PLAYERS))
    for k in range(count):
        if afterstates[k][PHASE] == PHASE_GAME_OVER:
            position_value(afterstates[k], m, params, settings, estimates[k])
        else:
            squash(vals[k], n, settings[S_VALUE_SCALE], estimates[k])
    if is_guided(model):
        guided_estimates(afterstates, m, vals, s[CURRENT_PLAYER], remaining, settings[S_VALUE_SCALE], model, estimates)
    prior = settings[S_PRIOR_VISITS]
    for k in range(count):
        child = first + k
        after = afterstates[k]
        tree.after[k] = after
        tree.after_values[k] = vals[k]
        tree.parent[child] = node
        tree.player[child] = after[CURRENT_PLAYER] if after[PHASE] != PHASE_GAME_OVER else -1
        tree.first_child[child] = -1
        tree.num_children[child] = 0
        tree.slot[child] = -1
        tree.visits[child] = prior
        for p in range(MAX_PLAYERS):
            tree.value[child, p] = prior * estimates[k, p] if p < n else 0.0
        # the turn from the node's position: the option's plan, its first actions included
        start = tree.counts[C_PLAN]
        tree.plan_start[child] = start
        tree.plan_len[child] = lengths[k]
        for i in range(lengths[k]):
            tree.plans[start + i] = plans[k, i]
        tree.counts[C_PLAN] += lengths[k]
    tree.first_child[node] = first
    tree.num_children[node] = count
    tree.counts[C_NODES] += count
    return True


@njit
def select_child(tree, node, exploration):
    """UCB1 for the player to move at ``node``, on their own value (the first of equals)."""
    p = tree.player[node]
    log_n = math.log(max(1.0, tree.visits[node]))
    best = -1
    best_score = -np.inf
    for child in range(tree.first_child[node], tree.first_child[node] + tree.num_children[node]):
        score = tree.value[child, p] / tree.visits[child] + exploration * math.sqrt(log_n / tree.visits[child])
        if score > best_score:
            best = child
            best_score = score
    return best


@njit
def best_child(tree, node):
    """The child of the best mean value for the player to move at ``node`` (the first of equals)."""
    p = tree.player[node]
    best = -1
    best_mean = -np.inf
    for child in range(tree.first_child[node], tree.first_child[node] + tree.num_children[node]):
        mean = tree.value[child, p] / tree.visits[child]
        if mean > best_mean:
            best = child
            best_mean = mean
    return best


@njit
def descend(tree, exploration):
    """Selection: from the root by UCB1 down to a node without children (unexpanded, or a finished game)."""
    node = 0
    while tree.num_children[node] > 0:
        node = select_child(tree, node, exploration)
    return node


@njit
def leaf_value(tree, m, params, rollout_params, settings, leaf, s, rng, status, out):
    """The value of a leaf (position ``s``, unused for a finished game): its first estimate, or a rollout's outcome."""
    n = tree.states[0][NUM_PLAYERS]
    kind = settings[S_ROLLOUT]
    if tree.player[leaf] < 0 or kind == ROLLOUT_NONE:
        for p in range(n):
            out[p] = tree.value[leaf, p] / tree.visits[leaf]
        return
    sim = s.copy()
    turns = int(settings[S_ROLLOUT_TURNS])
    if kind == ROLLOUT_RANDOM:
        random_rollout(sim, m, turns, rng)
    else:
        rollout(sim, m, rollout_params, turns, rng, status)
    position_value(sim, m, params, settings, out)


@njit
def backup(tree, leaf, value, n):
    """One visit and ``value`` for every node from ``leaf`` up to the root."""
    node = leaf
    while node >= 0:
        tree.visits[node] += 1.0
        for p in range(n):
            tree.value[node, p] += value[p]
        node = tree.parent[node]


@njit
def simulate(tree, m, params, rollout_params, settings, rng, status, budget, model):
    """Run up to ``budget`` simulations (see the module docstring); returns how many were completed.

    ``params`` are the planner's and the evaluation's, ``rollout_params`` the rollout policy's;
    ``model`` the learned first estimates' ``(flat, shapes, ab, columns)`` (the
    :class:`~.afterstate_scorer.ModelArrays` and :data:`~.afterstate_scorer.OBSERVATION_COLUMNS`; the arrays
    of ``afterstate_scorer.no_model()``: the heuristic's estimates);
    ``status`` counts the planner's illegal proposals (:mod:`.planner`). ``tree.cursor[K_STOP]``
    says why it returned: the budget is spent (``STOP_BUDGET``); an expansion did not fit
    (``STOP_ROOM``: grow the tree and call again, the simulation goes on where it stopped);
    or, with ``settings[S_PAUSE]``, a node was just expanded (``STOP_PAUSE``: its children's
    first estimates may be changed before the call that goes on).
    """
    root_player = tree.player[0]
    n = tree.states[0][NUM_PLAYERS]
    exploration = settings[S_EXPLORATION]
    pause = settings[S_PAUSE] != 0
    s = np.empty(STATE_SIZE, dtype=np.int32)
    value = np.zeros(MAX_PLAYERS)
    cursor = tree.cursor
    done = 0
    while done < budget:
        if cursor[K_PHASE] == CURSOR_IDLE:
            cursor[K_NODE] = descend(tree, exploration)
            cursor[K_PHASE] = CURSOR_WALK
            cursor[K_EXPANDED] = 0
        node = cursor[K_NODE]
        # walk round to the searcher's turn, expanding on the way (positions at different points
        # of the round are not comparable: whoever just played looks ahead)
        while tree.player[node] >= 0:
            if cursor[K_PHASE] == CURSOR_WALK and tree.num_children[node] == 0:
                if cursor[K_EXPANDED]:  # a child of the last expansion: its afterstate is at hand
                    s[:] = tree.after[node - tree.first_child[tree.parent[node]]]
                else:
                    node_state(tree, m, node, s)
                if not expand(tree, m, params, settings, node, s, status, model):
                    cursor[K_NODE] = node
                    cursor[K_STOP] = STOP_ROOM
                    return done
                cursor[K_EXPANDED] = 1
                if pause:
                    cursor[K_NODE] = node
                    cursor[K_PHASE] = CURSOR_CHOOSE
                    cursor[K_STOP] = STOP_PAUSE
                    return done
            cursor[K_PHASE] = CURSOR_WALK
            node = best_child(tree, node)
            if tree.player[node] == root_player:
                break
        # the leaf is a finished game or a child of this simulation's last expansion
        if tree.player[node] >= 0:
            s[:] = tree.after[node - tree.first_child[tree.parent[node]]]
        leaf_value(tree, m, params, rollout_params, settings, node, s, rng, status, value)
        backup(tree, node, value, n)
        cursor[K_PHASE] = CURSOR_IDLE
        done += 1
    cursor[K_STOP] = STOP_BUDGET
    return done


@njit
def root_statistics(tree, player, first_actions, visits, values):
    """Per root child: what identifies it across determinizations, its visits and summed value for ``player``.

    A root move is identified by its first action, and for a played Diplomat by the card it
    copies too (``first_actions[k] = (action, copy or -1)``): the rest of the turn is replanned
    on the real game.
    """
    first = tree.first_child[0]
    for k in range(tree.num_children[0]):
        child = first + k
        start = tree.plan_start[child]
        first_actions[k, 0] = tree.plans[start]
        first_actions[k, 1] = -1
        if tree.plan_len[child] > 1 and A_DIPLOMAT <= tree.plans[start + 1] < A_MOVE:
            first_actions[k, 1] = tree.plans[start + 1]
        visits[k] = tree.visits[child]
        values[k] = tree.value[child, player]
    return tree.num_children[0]


__all__ = [
    "PRIOR_VISITS",
    "STOP_BUDGET",
    "STOP_PAUSE",
    "STOP_ROOM",
    "Tree",
    "grown",
    "new_tree",
    "root_statistics",
    "set_root",
    "simulate",
]
