"""Turn options: every legal answer to the pending decision, followed to the end of the turn.

This is the one route of a decision through the strategy: **options → afterstates → values
→ choice**. :func:`turn_options` takes every legal action of the pending decision (a played
Diplomat gives one option per card it may copy), plays each out to the end of the turn with
the planner (:func:`.planner.play_out`) and evaluates the position reached, its
*afterstate*, for every player (:func:`.evaluation.values`). The heuristic plays the option of
the best utility (:func:`best_option`: own value minus the opponents' mean); tree search
uses the options as its moves and their values as first estimates; the learned agent scores
the afterstates with its model. All of them see the same options, computed once.

The caller determinizes first (:mod:`.determinization`): an afterstate past a card purchase shows a
card drawn from what could come up, never the real next card.
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.actions import NUM_ACTIONS, play
from concordia_env.engine.cards import K_DIPLOMAT
from concordia_env.engine.rules import njit
from concordia_env.engine.rules.legal import fill_legal
from concordia_env.engine.state import MAX_PLAYERS, PHASE, PHASE_GAME_OVER, PHASE_PLAY_CARD, STATE_SIZE, TURN_COUNT

from .evaluation import cached_values, utility
from .planner import MAX_TURN_DECISIONS, apply, new_frames, new_plan_cache, play_out

#: a plan's first actions (the option's identity): one, or two for a played Diplomat and its copy
MAX_FIRST = 2
#: options of one decision at most: every action, plus a Diplomat's copies beyond its own action
MAX_OPTIONS = NUM_ACTIONS + MAX_PLAYERS


@njit
def option_starts(s, m, out):
    """The first actions of every option into ``out[k, :2]`` (-1 where there is no second); returns the count."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    copies = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    after = np.empty(STATE_SIZE, dtype=np.int32)
    fill_legal(s, m, mask)
    k = 0
    for a in range(NUM_ACTIONS):
        if not mask[a]:
            continue
        if s[PHASE] == PHASE_PLAY_CARD and a == play(K_DIPLOMAT):
            after[:] = s
            apply(after, m, a, scratch)
            fill_legal(after, m, copies)
            for d in range(NUM_ACTIONS):
                if copies[d]:
                    out[k, 0] = a
                    out[k, 1] = d
                    k += 1
        else:
            out[k, 0] = a
            out[k, 1] = -1
            k += 1
    return k


@njit
def turn_options(s, m, params, remaining, status):
    """Every option of the pending decision of ``s``, each played out to the end of the turn.

    Returns ``(first, afterstates, vals, plans, plan_lengths)``, one row per option:
    ``first[k]`` the option's first actions (-1 padded), ``afterstates[k]`` the state where its
    turn ends, ``vals[k, p]`` every player's estimated final VP there, ``plans[k, :plan_lengths[k]]``
    every action of the turn from ``s`` on. ``remaining`` is the decision's share of the game
    left (one scale for every afterstate); ``status`` counts illegal proposals (:mod:`.planner`).
    """
    starts = np.zeros((MAX_OPTIONS, MAX_FIRST), dtype=np.int64)
    count = option_starts(s, m, starts)
    return play_options(s, m, params, remaining, starts[:count].copy(), status)


@njit
def play_options(s, m, params, remaining, starts, status):
    """The options that begin with the rows of ``starts`` (first actions, -1 padded), played out and evaluated.

    Returns ``(starts, afterstates, vals, plans, plan_lengths)`` as :func:`turn_options` does,
    one row per row of ``starts`` (a caller may play out only some of the options).
    """
    count = starts.shape[0]
    afterstates = np.empty((count, STATE_SIZE), dtype=np.int32)
    vals = np.zeros((count, MAX_PLAYERS))
    plans = np.zeros((count, MAX_TURN_DECISIONS), dtype=np.int64)
    lengths = np.zeros(count, dtype=np.int64)
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    cache = new_plan_cache()
    frames = new_frames()
    for k in range(count):
        sim = afterstates[k]
        sim[:] = s
        n = 0
        for i in range(MAX_FIRST):
            a = starts[k, i]
            if a >= 0:
                apply(sim, m, a, scratch)
                plans[k, n] = a
                n += 1
        if n == 0:
            fill_legal(sim, m, scratch)  # no first action: play_out wants the mask apply would have left
        lengths[k] = play_out(sim, m, params, remaining, s[TURN_COUNT], plans[k], n, status, cache, scratch, frames)
        cached_values(sim, m, params, remaining, cache[0], cache[1], vals[k])
    return starts, afterstates, vals, plans, lengths


@njit
def best_option(vals, player, n, opponent_weight):
    """The option of the best utility for ``player`` (the first of equals)."""
    best = 0
    best_value = -np.inf
    for k in range(vals.shape[0]):
        value = utility(vals[k], player, n, opponent_weight)
        if value > best_value:
            best = k
            best_value = value
    return best


@njit
def plan_from(s, m, params, remaining, start, plan, status):
    """Take the actions ``start`` on a copy of ``s``, then play the turn out: the plan into ``plan``.

    Returns the plan's length, or -1 if an action of ``start`` is not legal where it comes.
    This is how an agent that chose a turn on a determinized copy plans its rest on the real
    game (the rest of a turn never depends on the hidden stack: cards are drawn as it ends).
    """
    sim = s.copy()
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    n = 0
    for i in range(start.shape[0]):
        a = start[i]
        if sim[PHASE] == PHASE_GAME_OVER:
            return -1
        fill_legal(sim, m, mask)
        if not mask[a]:
            return -1
        apply(sim, m, a, scratch)
        plan[n] = a
        n += 1
    if n == 0:
        fill_legal(sim, m, scratch)  # no first action: play_out wants the mask apply would have left
    return play_out(sim, m, params, remaining, s[TURN_COUNT], plan, n, status, new_plan_cache(), scratch, new_frames())


@njit
def replay(s, m, actions, out):
    """Take ``actions`` on ``s`` (in place) while they are legal, the state before each into ``out[i]``.

    Returns how many were taken (the plan's expected states, for following it).
    """
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    fill_legal(s, m, mask)  # then each action leaves the next position's mask (planner.apply)
    for i in range(actions.shape[0]):
        if s[PHASE] == PHASE_GAME_OVER:
            return i
        if not mask[actions[i]]:
            return i
        out[i] = s
        apply(s, m, actions[i], mask)
    return actions.shape[0]
