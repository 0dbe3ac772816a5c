"""The compiled entry points: check and apply one action, batches, random playouts.

These are the only rule functions the Python classes call. Each returns a status code
instead of raising (compiled code cannot raise informative errors cheaply); the
:class:`~concordia_env.engine.game.Game` turns a refusal into ``IllegalActionError``.
"""

from __future__ import annotations

import numpy as np

from ..actions import NUM_ACTIONS
from ..state import CURRENT_PLAYER, PHASE, PHASE_GAME_OVER, STATE_SIZE
from ._jit import njit, njit_borrowing, njit_holding_gil
from .effects import apply_action, end_action
from .legal import fill_legal, only_done_is_legal

STEP_OK = 0
STEP_OUT_OF_RANGE = 1
STEP_GAME_OVER = 2
STEP_ILLEGAL = 3
#: a locked call of another thread is under way: take the lock and call again (``Game``'s fast path)
STEP_BUSY = 4


@njit_borrowing
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
    """Whether ``s`` and ``key`` hold the same state (elementwise).

    No early exit: an OR of the XORs of all entries is a loop the compiler vectorizes,
    several times faster over a whole state than stopping at the first difference (and
    the answer asked most often, from a cached mask, is "the same", which reads it all).
    """
    diff = 0
    for i in range(s.shape[0]):
        diff |= s[i] ^ key[i]
    return diff == 0


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
def step_and_cache(s, m, a, mask, key):
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


# --------------------------------------------------------------------------- a game's decision cache
# What ``Game`` keeps between decisions, in one byte buffer so that a compiled call takes one
# array for it rather than three (numba's dispatch costs about 0.07 µs per array argument, a
# tenth of what the Python side of a decision costs):
#   CACHE_MASK   bool[NUM_ACTIONS]   the legal mask of the state below (:func:`cached_legal`);
#                                    first, so that it starts on an 8-byte boundary
#                                    (:func:`mask_indices_into` reads it 8 bytes at a time)
#   CACHE_KEY    int32[STATE_SIZE]   the state the mask was computed for (all zeros: none yet,
#                                    no valid state is all zeros)
#   CACHE_LEGAL  int64[NUM_ACTIONS]  where :func:`legal_indices` writes the legal indices
#   CACHE_BUSY   int64[1]            how many locked calls are under way on the game (``engine.serial``):
#                                    the lock-free calls below refuse to run while it is above what
#                                    their caller allows
CACHE_MASK = 0
CACHE_KEY = (NUM_ACTIONS + 7) // 8 * 8
CACHE_LEGAL = (CACHE_KEY + 4 * STATE_SIZE + 7) // 8 * 8  # 8-byte aligned for the int64 view
CACHE_BUSY = CACHE_LEGAL + 8 * NUM_ACTIONS
CACHE_BYTES = CACHE_BUSY + 8
#: the length of what :func:`legal_actions_unless_busy` returns when the game is busy (no list of legal actions is)
BUSY_LEGAL_LENGTH = NUM_ACTIONS + 1
#: whole 8-byte words of a mask (the rest, NUM_ACTIONS % 8 entries, is read one by one)
MASK_WORDS = NUM_ACTIONS // 8


def new_cache() -> np.ndarray:
    """An empty decision cache (uint8, CACHE_BYTES): no mask computed yet."""
    return np.zeros(CACHE_BYTES, dtype=np.uint8)


@njit
def cache_key(cache):
    """The CACHE_KEY part of a decision cache, as the int32 state it is."""
    return cache[CACHE_KEY : CACHE_KEY + 4 * STATE_SIZE].view(np.int32)


@njit
def cache_mask(cache):
    """The CACHE_MASK part of a decision cache, as the bool mask it is."""
    return cache[CACHE_MASK : CACHE_MASK + NUM_ACTIONS].view(np.bool_)


@njit
def cache_legal(cache):
    """The CACHE_LEGAL part of a decision cache, as int64 indices."""
    return cache[CACHE_LEGAL:CACHE_BUSY].view(np.int64)


@njit
def cache_busy(cache):
    """The CACHE_BUSY part of a decision cache: the count of locked calls under way."""
    return cache[CACHE_BUSY : CACHE_BUSY + 8].view(np.int64)


@njit
def legal_into_cache(s, m, cache):
    """:func:`cached_legal` with the mask and key of a decision cache."""
    cached_legal(s, m, cache_mask(cache), cache_key(cache))


@njit
def step_cached(s, m, a, cache):
    """:func:`step_and_cache` with the mask and key of a decision cache (what ``Game.step`` calls)."""
    return step_and_cache(s, m, a, cache_mask(cache), cache_key(cache))


@njit
def mask_indices_into(mask, out):
    """Write the indices where ``mask`` (8-byte aligned) is True into ``out``, ascending; return how many.

    A mask holds a few dozen True among NUM_ACTIONS entries: reading it as 8-byte words and
    skipping the zero words is about three times faster than testing every entry.
    """
    words = mask[: 8 * MASK_WORDS].view(np.uint64)
    n = 0
    for w in range(MASK_WORDS):
        if words[w] != 0:
            for a in range(8 * w, 8 * w + 8):
                if mask[a]:
                    out[n] = a
                    n += 1
    for a in range(8 * MASK_WORDS, mask.shape[0]):
        if mask[a]:
            out[n] = a
            n += 1
    return n


@njit
def legal_indices(s, m, cache):
    """Write the legal action indices of ``s`` ascending into CACHE_LEGAL; return how many.

    Through the cached mask. ``Game.legal_actions`` takes a copy of the first entries in the
    same compiled call (:func:`legal_actions_unless_busy`): a copy taken in numpy after the
    call returned could see another thread's call overwrite them in between.
    """
    mask = cache_mask(cache)
    cached_legal(s, m, mask, cache_key(cache))
    return mask_indices_into(mask, cache_legal(cache))


# --------------------------------------------------------------------------- Game's lock-free calls
# Each is one compiled call that keeps the GIL, so no other Python thread runs while it does:
# two of them on one game never interleave. They refuse (STEP_BUSY, an empty mask, a list of
# BUSY_LEGAL_LENGTH) while more locked calls are under way than ``allowed`` (a locked call
# runs several compiled calls, each releasing the GIL); the caller then takes the game's lock,
# which waits for them, and calls again allowing its own (``Game.step``, ``engine.serial``).
@njit_holding_gil
def step_unless_busy(s, m, a, cache, allowed):
    """:func:`step_cached`, or STEP_BUSY while more than ``allowed`` locked calls are under way."""
    if cache_busy(cache)[0] > allowed:
        return STEP_BUSY
    return step_cached(s, m, a, cache)


@njit_holding_gil
def legal_actions_unless_busy(s, m, cache, allowed):
    """A new array of the legal action indices (:func:`legal_indices`), or one of BUSY_LEGAL_LENGTH when busy."""
    if cache_busy(cache)[0] > allowed:
        return np.empty(BUSY_LEGAL_LENGTH, dtype=np.int64)
    n = legal_indices(s, m, cache)
    return cache_legal(cache)[:n].copy()


@njit_holding_gil
def legal_mask_unless_busy(s, m, cache, allowed):
    """A copy of the legal mask (:func:`legal_into_cache`), or an empty array when busy."""
    if cache_busy(cache)[0] > allowed:
        return np.empty(0, dtype=np.bool_)
    legal_into_cache(s, m, cache)
    return cache_mask(cache).copy()


@njit
def legal_row(s, m, mask):
    """The legal mask of one row of a batch (all False once its game is over)."""
    if s[PHASE] == PHASE_GAME_OVER:
        mask[:] = False
    else:
        fill_legal(s, m, mask)


@njit
def legal_masks(states, m, out):
    """Legal masks of a batch of states (one row each)."""
    for i in range(states.shape[0]):
        legal_row(states[i], m, out[i])


@njit
def apply_checked(s, m, a, mask):
    """Apply action ``a``, already checked against ``mask``, the legal mask of ``s``.

    ``mask`` is left as the legal mask of the position reached (computed by ``advance``
    anyway; all False when the game is over).
    """
    apply_action(s, m, a)
    advance(s, m, mask)
    if s[PHASE] == PHASE_GAME_OVER:
        mask[:] = False


@njit
def apply_batch(states, m, actions, masks):
    """Apply one action per row that the caller has already checked against the row's mask.

    ``VectorGame`` checks the whole batch against its cached masks before changing any row
    (so that an illegal action changes nothing), which makes ``step``'s own check redundant.
    ``masks[i]`` is left as the legal mask of the position row i reaches, so the next step
    needs no separate ``legal_masks`` call.
    """
    for i in range(states.shape[0]):
        apply_checked(states[i], m, actions[i], masks[i])


@njit
def play_plan(s, m, player, plan, length, mask):
    """Take ``plan[:length]`` on ``s`` while each action is legal and ``player``'s decision; returns how many.

    A turn plan of the strategy core names one player's decisions to the end of the turn;
    the game may stop it sooner (the turn ends, another player chooses what to keep of an
    overflowing storehouse, the game ends). ``mask`` holds the legal mask of ``s`` on entry
    and of the position reached on return (:func:`apply_checked`). ``Game.play_plan`` calls
    it on a game, a batched environment on its rows.
    """
    taken = 0
    for i in range(length):
        a = plan[i]
        if s[PHASE] == PHASE_GAME_OVER or s[CURRENT_PLAYER] != player or not mask[a]:
            break
        apply_checked(s, m, a, mask)
        taken += 1
    return taken


@njit
def first_illegal_row(masks, actions):
    """The first row whose action is not an index of its mask or not legal there, or -1."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or not masks[i, a]:
            return i
    return -1


#: entries of a mask that :func:`nth_legal` counts at once to skip them
NTH_BLOCK = 64


@njit
def nth_legal(mask, k):
    """The k-th index (counting from 0) where ``mask`` is True, or -1 if there are fewer (or k < 0).

    Whole blocks of NTH_BLOCK entries are counted (a loop the compiler vectorizes) and
    skipped while the k-th True lies beyond them; the block that holds it is then read
    entry by entry, counting down without a branch per True entry (which mispredicts).
    About twice as fast as testing every entry on the masks of a random game.
    """
    if k < 0:
        return -1
    n = mask.shape[0]
    start = 0
    while start + NTH_BLOCK <= n:
        count = 0
        for a in range(start, start + NTH_BLOCK):
            count += mask[a]
        if k < count:
            break
        k -= count
        start += NTH_BLOCK
    for a in range(start, n):
        k -= mask[a]
        if k < 0:
            return a
    return -1


@njit
def sample_row(mask, uniform):
    """The legal action of ``mask`` picked by ``uniform`` in [0, 1), or -1 if none.

    The k-th legal action (in index order) for k = floor(uniform * count): uniform over
    the legal actions when ``uniform`` is.
    """
    count = mask.sum()
    return -1 if count == 0 else nth_legal(mask, min(int(uniform * count), count - 1))


@njit
def sample_rows(masks, uniforms, out):
    """out[i] = :func:`sample_row` of row i's mask and ``uniforms[i]``."""
    for i in range(masks.shape[0]):
        out[i] = sample_row(masks[i], uniforms[i])


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
