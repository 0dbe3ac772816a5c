"""Rollouts for tree search: the planner with cheaper settings and noise, and what scores where they stop.

A rollout plays a position on for a few turns (or to the end) so that what a hand and a
storehouse are about to do is cashed in before the position is scored. Its policy is the
heuristic's own planner (:mod:`.planner`, :mod:`.turn_enumeration`), not a second set of rules of
thumb, made cheaper and varied by the :class:`~.params.RolloutSettings` in the params array:

* **card choice with noise**: every card's turn is played out and scored as the heuristic
  does, and ``temperature`` (VP) times a Gumbel draw is added to each utility before the
  best is taken: a softmax draw over the cards, so that playouts differ;
* **cheaper play-outs**: with ``nested_lookahead`` off, the decisions inside a card's turn that
  the heuristic takes by lookahead (whom a Diplomat copies, where a Prefect produces, the
  Gavdos good) are taken by the position right after them instead;
* **fewer options**: with ``options`` > 0 the card choice plays out and weighs only that
  many of the turn options, drawn uniformly at random (the rest are never looked at): the
  cost of a rollout turn falls in proportion, and the draw adds noise of its own;
* **random sub-decisions**: a share ``epsilon`` of the other decisions are uniformly random
  legal actions (the card choice keeps its own noise). Without it the chosen card's
  play-out is the turn.

Everything random comes from the caller's generator state (:mod:`.noise`), so a rollout is
a pure function of the position, the settings and that state. :func:`random_rollout` plays
uniformly random legal actions instead, and :func:`score_estimate` is the cheap score where a
rollout stops ("VP if the game ended now", plus a tenth of the wealth still to spend).
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.rules import njit
from concordia_env.engine.rules.entry_points import nth_legal
from concordia_env.engine.rules.facts import goods_value
from concordia_env.engine.rules.legal import fill_legal
from concordia_env.engine.rules.scoring import score_totals
from concordia_env.engine.state import (
    CURRENT_PLAYER,
    NUM_PLAYERS,
    P_MONEY,
    PHASE,
    PHASE_GAME_OVER,
    PHASE_PLAY_CARD,
    PLAYER_SIZE,
    PLAYERS,
    TURN_COUNT,
)

from .evaluation import remaining_fraction, utility
from .noise import below, gumbel, uniform
from .params import P_OPPONENT_WEIGHT, R_EPSILON, R_OPTIONS, R_TEMPERATURE
from .planner import apply, decide_legal
from .turn_enumeration import MAX_FIRST, MAX_OPTIONS, option_starts, play_options

#: "VP if the game ended now" counts a sestertius of wealth still to spend as this many VP
WEALTH_VP = 0.1


@njit
def random_legal(mask, count, rng):
    """A uniformly random legal action (``count`` legal actions in ``mask``)."""
    return nth_legal(mask, below(rng, count))


@njit
def sampled_options(s, m, params, remaining, rng, status):
    """The turn options the rollout's card choice weighs: all of them, or ``options`` drawn at random.

    The draw is a partial Fisher-Yates shuffle of the options' first actions; only the drawn
    options are played out (:func:`.turn_enumeration.play_options`), which is what makes it cheaper.
    """
    starts = np.zeros((MAX_OPTIONS, MAX_FIRST), dtype=np.int64)
    count = option_starts(s, m, starts)
    limit = int(params[R_OPTIONS])
    k = count if limit <= 0 else min(limit, count)
    if k < count:
        for i in range(k):
            j = i + below(rng, count - i)
            for c in range(MAX_FIRST):
                starts[i, c], starts[j, c] = starts[j, c], starts[i, c]
    return play_options(s, m, params, remaining, starts[:k].copy(), status)


@njit
def noisy_turn(s, m, params, remaining, rng, status):
    """Choose a card by its turn's utility plus ``temperature`` x Gumbel noise; play the whole turn.

    The card is chosen among the options of :func:`sampled_options`. Returns the decisions
    taken. Without ``epsilon`` the chosen option's play-out is adopted; with it the card is
    played and the rest decided one by one (:func:`rollout`).
    """
    first, afterstates, vals, _, lengths = sampled_options(s, m, params, remaining, rng, status)
    p = s[CURRENT_PLAYER]
    n = s[NUM_PLAYERS]
    temperature = params[R_TEMPERATURE]
    best = 0
    best_value = -np.inf
    for k in range(first.shape[0]):
        value = utility(vals[k], p, n, params[P_OPPONENT_WEIGHT])
        if temperature > 0:
            value += temperature * gumbel(rng)
        if value > best_value:
            best = k
            best_value = value
    if params[R_EPSILON] == 0:
        s[:] = afterstates[best]
        return lengths[best]
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    apply(s, m, first[best, 0], scratch)
    return 1


@njit
def policy_action(s, m, params, remaining, mask, rng, status):
    """One decision of the rollout policy other than the card choice (``mask``: the legal mask of ``s``)."""
    count = 0
    for a in range(NUM_ACTIONS):
        if mask[a]:
            count += 1
    if count == 1 or uniform(rng) < params[R_EPSILON]:
        return random_legal(mask, count, rng)
    return decide_legal(s, m, params, remaining, mask, count, status)


@njit
def rollout(s, m, params, max_turns, rng, status):
    """Play the rollout policy on ``s`` (in place) for at most ``max_turns`` turns; returns decisions taken.

    Each turn's ``remaining`` is the share of the game left when it starts. A decision right
    after an action reads the legal mask the action left (:func:`.planner.apply`).
    """
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    mask_known = False  # whether mask holds the legal mask of s
    start = s[TURN_COUNT]
    decisions = 0
    remaining = remaining_fraction(s, m)
    while s[PHASE] != PHASE_GAME_OVER and s[TURN_COUNT] - start < max_turns:
        if s[PHASE] == PHASE_PLAY_CARD:
            remaining = remaining_fraction(s, m)
            decisions += noisy_turn(s, m, params, remaining, rng, status)
            mask_known = False
            continue
        if not mask_known:
            fill_legal(s, m, mask)
        apply(s, m, policy_action(s, m, params, remaining, mask, rng, status), mask)
        mask_known = True
        decisions += 1
    return decisions


@njit
def random_rollout(s, m, max_turns, rng):
    """Uniformly random legal actions on ``s`` (in place) for at most ``max_turns`` turns; returns decisions."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    fill_legal(s, m, mask)  # then each action leaves the next position's mask (:func:`.planner.apply`)
    start = s[TURN_COUNT]
    decisions = 0
    while s[PHASE] != PHASE_GAME_OVER and s[TURN_COUNT] - start < max_turns:
        count = 0
        for a in range(NUM_ACTIONS):
            if mask[a]:
                count += 1
        apply(s, m, random_legal(mask, count, rng), mask)
        decisions += 1
    return decisions


@njit
def score_estimate(s, m, out):
    """Per player: VP if the game ended now, plus ``WEALTH_VP`` per sestertius of money and goods still to spend."""
    score_totals(s, m, out)
    if s[PHASE] != PHASE_GAME_OVER:
        for p in range(s[NUM_PLAYERS]):
            b = PLAYERS + p * PLAYER_SIZE
            out[p] += WEALTH_VP * (s[b + P_MONEY] + goods_value(s, p))


__all__ = ["random_rollout", "rollout", "score_estimate"]
