"""The compiled entry points: check and apply one action, batches, random playouts.

These are the only rule functions the Python classes call. Each returns a status code
instead of raising (compiled code cannot raise informative errors cheaply); the
:class:`~concordia_env.engine.game.Game` turns a refusal into ``IllegalActionError``.
"""

from __future__ import annotations

import numpy as np

from ..actions import NUM_ACTIONS
from ..state import PHASE, PHASE_GAME_OVER
from ._jit import njit
from .effects import apply_action, end_action
from .legal import fill_legal, only_done_is_legal

STEP_OK = 0
STEP_OUT_OF_RANGE = 1
STEP_GAME_OVER = 2
STEP_ILLEGAL = 3


@njit
def advance(s, m, mask):
    """Close decisions that offer nothing but "done" (e.g. a Mercator with nothing to trade)."""
    while s[PHASE] != PHASE_GAME_OVER and only_done_is_legal(s, m, mask):
        end_action(s, m)


@njit
def step(s, m, a, mask):
    """Apply action ``a`` if legal; return a STEP_* code. ``mask`` is scratch space."""
    if a < 0 or a >= NUM_ACTIONS:
        return STEP_OUT_OF_RANGE
    if s[PHASE] == PHASE_GAME_OVER:
        return STEP_GAME_OVER
    fill_legal(s, m, mask)
    if not mask[a]:
        return STEP_ILLEGAL
    apply_action(s, m, a)
    advance(s, m, mask)
    return STEP_OK


@njit
def same_state(s, key):
    """Whether ``s`` and ``key`` hold the same state (elementwise)."""
    for i in range(s.shape[0]):
        if s[i] != key[i]:
            return False
    return True


@njit
def cached_legal(s, m, mask, key):
    """Make ``mask`` the legal mask of ``s`` (all False once the game is over).

    ``key`` is the state ``mask`` was last computed for: when ``s`` still equals it the mask
    is kept, else it is computed and ``key`` set to ``s``. A caller that keeps a mask
    between decisions (``Game``) thereby computes each position's mask once, and a state
    changed behind its back (a test writing into ``game.state``) can never be answered
    with a stale mask.
    """
    if same_state(s, key):
        return
    if s[PHASE] == PHASE_GAME_OVER:
        mask[:] = False
    else:
        fill_legal(s, m, mask)
    key[:] = s


@njit
def step_cached(s, m, a, mask, key):
    """``step`` for a caller that keeps the mask: the check reuses it, and it is left as the new position's.

    ``mask``/``key`` as in :func:`cached_legal`. The legality check is the same as
    ``step``'s (the mask of ``s``, computed unless ``key`` shows it is at hand); after a
    legal action ``mask`` holds the legal mask of the position reached, which ``advance``
    computes anyway (all False when the game is over), and ``key`` that position.
    """
    if a < 0 or a >= NUM_ACTIONS:
        return STEP_OUT_OF_RANGE
    if s[PHASE] == PHASE_GAME_OVER:
        return STEP_GAME_OVER
    cached_legal(s, m, mask, key)
    if not mask[a]:
        return STEP_ILLEGAL
    apply_action(s, m, a)
    advance(s, m, mask)
    if s[PHASE] == PHASE_GAME_OVER:
        mask[:] = False
    key[:] = s
    return STEP_OK


@njit
def cached_legal_actions(s, m, mask, key):
    """The legal action indices of ``s``, ascending (int64), through the cached mask of :func:`cached_legal`."""
    cached_legal(s, m, mask, key)
    return mask_indices(mask)


@njit
def mask_indices(mask):
    """The indices where ``mask`` is True, ascending (int64): ``np.flatnonzero`` in one compiled call."""
    out = np.empty(mask.sum(), dtype=np.int64)
    k = 0
    for a in range(mask.shape[0]):
        if mask[a]:
            out[k] = a
            k += 1
    return out


@njit
def legal_masks(states, m, out):
    """Legal masks of a batch of states (one row each)."""
    for i in range(states.shape[0]):
        if states[i, PHASE] == PHASE_GAME_OVER:
            out[i, :] = False
        else:
            fill_legal(states[i], m, out[i])


@njit
def apply_batch(states, m, actions, masks):
    """Apply one action per row that the caller has already checked against the row's mask.

    ``VectorGame`` checks the whole batch against its cached masks before changing any row
    (so that an illegal action changes nothing), which makes ``step``'s own check redundant.
    ``masks[i]`` is left as the legal mask of the position row i reaches (computed by
    ``advance`` anyway; all False when the game is over), so the next step needs no
    separate ``legal_masks`` call.
    """
    for i in range(states.shape[0]):
        apply_action(states[i], m, actions[i])
        advance(states[i], m, masks[i])
        if states[i, PHASE] == PHASE_GAME_OVER:
            masks[i, :] = False


@njit
def first_illegal_row(masks, actions):
    """The first row whose action (already within ``0..NUM_ACTIONS-1``) is not legal in its mask, or -1."""
    for i in range(actions.shape[0]):
        if not masks[i, actions[i]]:
            return i
    return -1


@njit
def nth_legal(mask, k):
    """The k-th index (counting from 0) where ``mask`` is True, or -1 if there are fewer."""
    for a in range(mask.shape[0]):
        if mask[a]:
            if k == 0:
                return a
            k -= 1
    return -1


@njit
def sample_rows(masks, uniforms, out):
    """out[i] = the legal action of row i picked by ``uniforms[i]`` in [0, 1), or -1 if none.

    The k-th legal action (in index order) for k = floor(uniforms[i] * count): uniform over
    the legal actions when the uniforms are.
    """
    for i in range(masks.shape[0]):
        count = masks[i].sum()
        out[i] = -1 if count == 0 else nth_legal(masks[i], min(int(uniforms[i] * count), count - 1))


@njit
def random_choice(mask):
    """A uniformly random index where ``mask`` is True (numba's global RNG; see ``seed_rng``)."""
    return nth_legal(mask, np.random.randint(mask.sum()))


@njit
def random_legal_action(s, m, mask):
    """A uniformly random legal action (``mask`` is scratch space)."""
    fill_legal(s, m, mask)
    return random_choice(mask)


@njit
def seed_rng(seed):
    np.random.seed(seed)


@njit
def random_playout(s, m, max_decisions):
    """Play uniformly random legal actions until the game ends; return decisions made."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    n = 0
    while s[PHASE] != PHASE_GAME_OVER and n < max_decisions:
        step(s, m, random_legal_action(s, m, mask), mask)
        n += 1
    return n
