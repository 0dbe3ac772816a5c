"""Turn options: every legal answer to the pending decision, followed to the end of the turn.

This is the one route of a decision through the strategy: **options → afterstates → values
→ choice**. :func:`turn_options` takes every legal action of the pending decision (a played
Diplomat gives one option per card it may copy), plays each out to the end of the turn with
the planner (:func:`.planner.play_out`) and evaluates the position reached, its
*afterstate*, for every player (:func:`.evaluation.values`). The heuristic plays the option of
the best utility (:func:`best_option`: own value minus the opponents' mean); tree search
uses the options as its moves and their values as first estimates; the learned agent scores
the afterstates with its model. All of them see the same options, computed once.

The caller determinizes first (:mod:`.hidden`): an afterstate past a card purchase shows a
card drawn from what could come up, never the real next card.
"""

from __future__ import annotations

import numpy as np

from ..actions import A_PLAY, NUM_ACTIONS
from ..cards import K_DIPLOMAT
from ..rules import njit
from ..rules.legal import fill_legal
from ..state import CURRENT_PLAYER, MAX_PLAYERS, NUM_PLAYERS, PHASE, PHASE_PLAY_CARD, STATE_SIZE, TURN_COUNT
from .evaluation import cached_values, new_value_cache, utility
from .params import P_OPPONENT_WEIGHT
from .planner import MAX_TURN_DECISIONS, apply, play_out

#: a plan's first actions (the option's identity): one, or two for a played Diplomat and its copy
MAX_FIRST = 2


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
        if s[PHASE] == PHASE_PLAY_CARD and a == A_PLAY + K_DIPLOMAT:
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
    starts = np.zeros((NUM_ACTIONS + MAX_PLAYERS, MAX_FIRST), dtype=np.int64)
    count = option_starts(s, m, starts)
    afterstates = np.empty((count, STATE_SIZE), dtype=np.int32)
    vals = np.zeros((count, MAX_PLAYERS))
    plans = np.zeros((count, MAX_TURN_DECISIONS), dtype=np.int64)
    lengths = np.zeros(count, dtype=np.int64)
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    keys, cached = new_value_cache()
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
        lengths[k] = play_out(sim, m, params, remaining, s[TURN_COUNT], plans[k], n, status, keys, cached)
        cached_values(sim, m, params, remaining, keys, cached, vals[k])
    return starts[:count].copy(), afterstates, vals, plans, lengths


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
def choose_turn(s, m, params, remaining, status, plan):
    """The heuristic's turn: the best option's plan into ``plan``; returns its length."""
    first, afterstates, vals, plans, lengths = turn_options(s, m, params, remaining, status)
    k = best_option(vals, s[CURRENT_PLAYER], s[NUM_PLAYERS], params[P_OPPONENT_WEIGHT])
    plan[: lengths[k]] = plans[k, : lengths[k]]
    return lengths[k]
