"""The agents, compiled: ``random``, ``heuristic`` and the greedy ``learned`` playing rows of a batch.

A batched environment with opponents inside (:mod:`concordia_env.envs.vector_env`) lets the
other seats of every row play in compiled code until the learner must decide again, on as
many threads as the batch has (:mod:`concordia_env.envs.threads`). The players here are the
Python agents of :mod:`concordia_env.agents` decision for decision, not look-alikes: given
the same seed they take the same actions, which ``tests/test_vector_env.py`` checks by
playing rows against the same games through ``SingleAgentEnv``.

* ``random`` (:data:`RANDOM`): the k-th legal action for ``k = rng.integers(count)``, with
  numpy's generator compiled (:mod:`concordia_env.engine.rules.pcg64`), the draw ``RandomAgent`` makes.
* ``heuristic`` (:data:`HEURISTIC`): ``HeuristicAgent.act``. A forced decision is played
  at once; a decision its planned turn foresaw (the game in one of the states the plan
  expects, :func:`planned_action`) follows the plan; otherwise it determinizes a copy of
  the game with its own noise generator (:mod:`.determinization`, :mod:`.noise`) and either chooses
  the best turn option (:mod:`.turn_enumeration`; the decisions that look ahead) and follows that
  turn on the real game (:func:`follow`), or takes the planner's answer (:mod:`.planner`).
* ``learned`` (:data:`LEARNED`): ``LearnedAgent.act`` without search or sampling. At every
  decision that is not forced it draws a seed from its numpy generator, determinizes with
  it, takes every turn option of the pending decision, scores every afterstate with the
  model (:mod:`.afterstate_scorer`) and plays the best-scored turn's first action (the agent's
  ``replan``, its default). :data:`LEARNED_PLANNED` is ``replan=False``: a decision its
  chosen turn foresaw follows the plan, as the heuristic does.

What a player keeps between decisions lives in arrays the batch owns, one entry per row
and opponent slot: the numpy generator's state (``rng``, :data:`~concordia_env.engine.rules.pcg64.STATE_WORDS`
words), the noise generator's (``noise``), and the planned turn: its actions
(``plan_actions``), how many (``plan_len``, 0 for none) and a cursor on it. The Python
agent keeps every state the plan expects; here one state is kept, the expected state before
action ``plan_pos`` (``plan_state``), and moved along the plan as the game goes
(:func:`planned_action`): ``MAX_TURN_DECISIONS`` times less memory per row, and each
planned action is replayed once.

A player that proposes an action the rules do not allow is a bug, as in the Python agents'
strict mode: :func:`play_rows` stops that row and counts it in ``status[row, STATUS_ILLEGAL]``,
and the caller raises.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.rules import njit
from concordia_env.engine.rules.effects import apply_action
from concordia_env.engine.rules.entry_points import advance, nth_legal, same_state
from concordia_env.engine.rules.legal import fill_legal
from concordia_env.engine.rules.pcg64 import integers
from concordia_env.engine.state import (
    CURRENT_PLAYER,
    DECISION_COUNT,
    NUM_PLAYERS,
    PHASE,
    PHASE_GAME_OVER,
    STATE_SIZE,
)

from .afterstate_scorer import OBSERVATION_COLUMNS, ModelArrays, no_model, score_options
from .determinization import determinize
from .evaluation import remaining_fraction
from .params import P_OPPONENT_WEIGHT
from .planner import MAX_TURN_DECISIONS, STATUS_ILLEGAL, STATUS_SIZE, apply, decide, is_lookahead_phase
from .turn_enumeration import best_option, turn_options

#: the compiled players, by kind number
RANDOM, HEURISTIC, LEARNED, LEARNED_PLANNED = 0, 1, 2, 3
KINDS = {"random": RANDOM, "heuristic": HEURISTIC, "learned": LEARNED, "learned-planned": LEARNED_PLANNED}
#: the kinds that play with a learned model
LEARNED_KINDS = (LEARNED, LEARNED_PLANNED)
#: the bound of ``agents.base.draw_seed``: ``rng.integers(SEED_BOUND)``
SEED_BOUND = 2**63 - 1


class CompiledPlayer(NamedTuple):
    """What a compiled player is made of: an agent's answer to ``compiled_player(num_players, map_name)``.

    ``kind`` is one of :data:`KINDS`; ``params`` the strategy's numbers
    (:func:`~concordia_env.strategy.params_array`, for ``heuristic`` and ``learned``);
    ``model`` the learned scorer's arrays (``learned`` only). ``model`` inside compiled code
    is the tuple ``(flat, shapes, ab, columns)``: the :class:`~.afterstate_scorer.ModelArrays` and
    the observation columns of the features.
    """

    kind: int
    params: np.ndarray
    model: ModelArrays | None = None


def compiled_model(model: ModelArrays | None) -> tuple:
    """The model tuple compiled players take: a learned scorer's arrays (or none) and the features' columns."""
    return (*(model if model is not None else no_model()), OBSERVATION_COLUMNS)


class SeatPlayer:
    """One compiled player deciding for one seat of a Python game: what an agent's ``act()`` asks once.

    The arrays a batch keeps per row and opponent slot (generator states, the planned turn),
    for one seat: ``act`` is :func:`strategy_act` on the game's state, so a Python agent that
    asks it decides exactly as its compiled twin in a batch does. ``rng`` and ``noise`` are
    the agent's ``compiled_state()``; the player owns them from then on.
    """

    __slots__ = ("actions", "cursor", "kind", "model", "noise", "params", "plan_len", "pos", "rng", "status")

    def __init__(self, player: CompiledPlayer, rng: np.ndarray, noise: np.ndarray) -> None:
        self.kind = player.kind
        self.params = np.array(player.params, dtype=np.float64)  # a writable copy: the compiled signature's
        self.model = compiled_model(player.model)
        self.rng = np.array(rng, dtype=np.uint64)
        self.noise = np.array(noise, dtype=np.uint64)
        self.cursor = np.zeros(STATE_SIZE, dtype=np.int32)
        self.pos = np.zeros(1, dtype=np.int64)
        self.actions = np.zeros(MAX_TURN_DECISIONS, dtype=np.int64)
        self.plan_len = np.zeros(1, dtype=np.int64)
        self.status = np.zeros(STATUS_SIZE, dtype=np.int64)

    def act(self, state: np.ndarray, tables: np.ndarray, mask: np.ndarray, count: int = -1) -> tuple[int, int]:
        """The action for the seat to move in ``state`` (legal ``mask``), and how many illegal actions were planned.

        ``count`` is how many actions ``mask`` allows, where the caller knows it (-1: counted
        here). An action of -1 is a plan the rules refused (a bug the caller reports).
        """
        self.status[:] = 0
        action = strategy_act(
            state,
            tables,
            self.kind,
            mask,
            int(mask.sum()) if count < 0 else count,
            self.params,
            self.model,
            self.rng,
            self.noise,
            self.cursor,
            self.pos,
            self.actions,
            self.plan_len,
            self.status,
        )
        return int(action), int(self.status[STATUS_ILLEGAL])

    def planned_actions(self) -> list[int]:
        """The actions of the turn the seat follows (from the real game's state where it planned), or none."""
        return self.actions[: self.plan_len[0]].tolist()


# --------------------------------------------------------------------------- plans
@njit
def follow(s, m, plan, length, cursor, pos, actions, sim):
    """Keep the actions of ``plan[:length]`` that are legal in turn from the real ``s``: the plan to follow.

    ``actions`` gets the legal prefix (its length is returned), ``cursor`` the state before
    its first action (``s``) and ``pos[0]`` 0. This is ``agents.heuristic.follow``: a turn
    planned on a determinized copy fits the real game (the rest of a turn never depends on
    the hidden stack), and should an action not be legal there the plan stops before it.
    """
    cursor[:] = s
    pos[0] = 0
    sim[:] = s
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    fill_legal(sim, m, mask)  # then each action leaves the next position's mask (planner.apply)
    kept = 0
    for i in range(length):
        if sim[PHASE] == PHASE_GAME_OVER:
            break
        if not mask[plan[i]]:
            break
        actions[i] = plan[i]
        kept += 1
        apply(sim, m, plan[i], mask)
    return kept


@njit
def planned_action(s, m, cursor, pos, actions, length, scratch):
    """The planned action if ``s`` is one of the states the plan expects (before one of its actions), else -1.

    ``TurnPlan.next_action``. The plan's expected states are replayed lazily: ``cursor`` is
    the state before action ``pos[0]``. Every action raises ``DECISION_COUNT`` by one, so the
    only expected state that can equal ``s`` is the one ``s[DECISION_COUNT] - cursor[DECISION_COUNT]``
    actions on; the cursor moves there (never back: the game's count only grows) and the
    states are compared. Following a turn of k actions replays k actions in all.
    """
    target = pos[0] + s[DECISION_COUNT] - cursor[DECISION_COUNT]
    if target < pos[0] or target >= length:
        return -1
    while pos[0] < target:
        apply(cursor, m, actions[pos[0]], scratch)
        pos[0] += 1
    if same_state(cursor, s):
        return actions[pos[0]]
    return -1


# --------------------------------------------------------------------------- the players
@njit
def random_act(mask, count, rng):
    """``RandomAgent.act``: ``legal[rng.integers(len(legal))]``."""
    return nth_legal(mask, integers(rng, count))


@njit
def choose_and_follow(s, m, sim, kind, params, remaining, player, model, cursor, pos, actions, plan_len, status):
    """Take every turn option of the determinized ``sim``, pick one, and plan to follow it on ``s``.

    The heuristic picks the best utility, the learned players the best score; returns the
    chosen turn's first action (-1 if not even that is legal on ``s``).
    """
    _, afterstates, vals, plans, lengths = turn_options(sim, m, params, remaining, status)
    if is_learned(kind):
        flat, shapes, ab, columns = model
        scores = score_options(afterstates, m, vals, player, remaining, columns, flat, shapes, ab)
        choice = np.argmax(scores)
    else:
        choice = best_option(vals, player, s[NUM_PLAYERS], params[P_OPPONENT_WEIGHT])
    kept = follow(s, m, plans[choice], lengths[choice], cursor, pos, actions, sim)
    plan_len[0] = kept
    return actions[0] if kept > 0 else -1


@njit
def is_learned(kind):
    """Whether a compiled player of ``kind`` plays with a learned model (:data:`LEARNED_KINDS`)."""
    return kind in LEARNED_KINDS


@njit
def strategy_act(s, m, kind, mask, count, params, model, rng, noise, cursor, pos, actions, plan_len, status):
    """``HeuristicAgent.act`` or ``LearnedAgent.act`` (see the module docstring); -1 for a failed plan."""
    if count == 1:
        return nth_legal(mask, 0)
    sim = np.empty_like(s)
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    if plan_len[0] > 0 and kind != LEARNED:  # the replanning learned player decides every time
        planned = planned_action(s, m, cursor, pos, actions, plan_len[0], scratch)
        if planned >= 0:
            return planned
    plan_len[0] = 0
    player = s[CURRENT_PLAYER]
    sim[:] = s
    if is_learned(kind):
        own_noise = np.empty(1, dtype=np.uint64)
        own_noise[0] = np.uint64(integers(rng, SEED_BOUND))  # strategy.new_rng(draw_seed(rng))
        determinize(sim, own_noise)
        remaining = remaining_fraction(sim, m)
        return choose_and_follow(
            s, m, sim, kind, params, remaining, player, model, cursor, pos, actions, plan_len, status
        )
    remaining = remaining_fraction(s, m)
    determinize(sim, noise)
    if is_lookahead_phase(s[PHASE]):
        return choose_and_follow(
            s, m, sim, kind, params, remaining, player, model, cursor, pos, actions, plan_len, status
        )
    return decide(sim, m, params, remaining, status)


@njit
def play_row(s, m, learner, mask, kinds, params, model, rng, noise, cursor, pos, actions, plan_len, status):
    """Let the players of row ``s`` decide until seat ``learner`` must (or the game is over).

    ``mask`` holds the legal mask of ``s`` on entry and of the position reached on return
    (all False once the game is over). Opponent slot j plays the j-th seat other than the
    learner's. Returns the decisions taken; a proposal the rules refuse stops the row with
    ``status[STATUS_ILLEGAL]`` raised.
    """
    taken = 0
    while s[PHASE] != PHASE_GAME_OVER and s[CURRENT_PLAYER] != learner:
        seat = s[CURRENT_PLAYER]
        j = seat if seat < learner else seat - 1
        count = mask.sum()
        kind = kinds[j]
        if kind == RANDOM:
            a = random_act(mask, count, rng[j])
        else:
            a = strategy_act(
                s,
                m,
                kind,
                mask,
                count,
                params[j],
                model,
                rng[j],
                noise[j],
                cursor[j],
                pos[j:],
                actions[j],
                plan_len[j:],
                status,
            )
        if status[STATUS_ILLEGAL] > 0 or a < 0 or a >= NUM_ACTIONS or not mask[a]:
            status[STATUS_ILLEGAL] += 1
            return taken
        apply_action(s, m, a)
        advance(s, m, mask)
        taken += 1
    if s[PHASE] == PHASE_GAME_OVER:
        mask[:] = False
    return taken


@njit
def play_rows(
    states, m, learners, masks, kinds, params, model, rng, noise, plan_state, plan_pos, plan_actions, plan_len, status
):
    """:func:`play_row` for every row of a batch (one row's arrays at index i of each batch array)."""
    for i in range(states.shape[0]):
        play_row(
            states[i],
            m,
            learners[i],
            masks[i],
            kinds,
            params,
            model,
            rng[i],
            noise[i],
            plan_state[i],
            plan_pos[i],
            plan_actions[i],
            plan_len[i],
            status[i],
        )
