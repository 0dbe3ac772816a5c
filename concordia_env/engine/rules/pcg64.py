"""numpy's default generator, compiled: ``integers(0, n)`` and ``permutation`` over a state array.

Why a port: a new game's setup shuffles with ``numpy.random.default_rng(seed)``
(:mod:`.setup`), a batch starts a new game in a row every few hundred decisions, and the
shuffles in compiled code cost a fraction of numpy's calls. And the Python agents draw from
a seeded ``numpy.random.Generator`` (the random agent its action,
``random.integers(len(legal))``; the learned agent the seed of each determinization). Their
compiled twins, which play inside a batched environment (``strategy.players``), must make
the very same draws for a row's game to equal the game the Python agent plays; numba's own
``Generator`` support takes one generator object per call, not one per row of a batch. So
the generator's whole state lives in a ``uint64`` array of :data:`STATE_WORDS` entries that
the batch keeps per row, and these functions advance it exactly as numpy does:

* PCG64 (O'Neill's 128-bit LCG with the XSL-RR output, numpy's ``PCG64``, not ``PCG64DXSM``):
  ``state = state * MULTIPLIER + inc``, then the output of the new state; ``next32`` serves the
  two halves of one 64-bit output, low half first (numpy's ``has_uint32``/``uinteger``);
* ``integers(0, n)`` for the default int64 dtype (numpy's ``random_bounded_uint64_fill``):
  ``n == 1`` draws nothing; a range that fits 32 bits takes Lemire's method on ``next32``,
  a wider one Lemire's method on ``next64``, both rejecting the biased draws;
* ``permutation(values)`` of a 1-D array (numpy's ``shuffle``, ``_shuffle_raw``): Fisher-Yates
  from the last entry down, entry ``i`` swapped with ``interval(i)``, numpy's
  ``random_interval``: a draw masked to the smallest ``2**k - 1 >= i``, rejected above ``i``.

:func:`from_generator` reads a numpy generator's state into such an array (the generator
is not advanced), :func:`seeded` the state ``default_rng(seed)`` starts from;
``tests/test_pcg64.py`` draws from both and compares.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._jit import njit

#: state words: 128-bit state (high, low), 128-bit increment (high, low), has_uint32, uinteger
STATE_HI, STATE_LO, INC_HI, INC_LO, HAS_UINT32, UINTEGER = range(6)
STATE_WORDS = 6

_MUL_HI = np.uint64(2549297995355413924)
_MUL_LO = np.uint64(4865540595714422341)
_MASK32 = np.uint64(0xFFFFFFFF)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_S32 = np.uint64(32)
_S58 = np.uint64(58)
_S63 = np.uint64(63)
_UMAX = np.uint64(0xFFFFFFFFFFFFFFFF)


def from_generator(generator: np.random.Generator) -> np.ndarray:
    """The state of a numpy ``Generator`` on ``PCG64`` as a state array (the generator is left as it is)."""
    if not isinstance(generator, np.random.Generator) or not isinstance(generator.bit_generator, np.random.PCG64):
        raise TypeError(f"a numpy Generator on PCG64 (numpy.random.default_rng) is needed, got {generator!r}")
    return state_words(generator.bit_generator.state)


def seeded(seed: int | None) -> np.ndarray:
    """The state array of ``numpy.random.default_rng(seed)`` for an integer ``seed >= 0`` (None: fresh entropy).

    Compiled (:func:`seed_into`): numpy's own seeding costs more than a whole compiled setup.
    """
    if seed is None:
        return state_words(np.random.PCG64().state)
    g = np.empty(STATE_WORDS, dtype=np.uint64)
    seed_into(seed_words(seed), g)
    return g


def state_words(st: Mapping[str, Any]) -> np.ndarray:
    """A ``PCG64.state`` dict as a state array."""
    state, inc = int(st["state"]["state"]), int(st["state"]["inc"])
    words = [state >> 64, state & (2**64 - 1), inc >> 64, inc & (2**64 - 1), int(st["has_uint32"]), int(st["uinteger"])]
    return np.array(words, dtype=np.uint64)


@njit
def mul_64x64(a, b):
    """The 128-bit product of two uint64 as (high, low)."""
    a_lo = a & _MASK32
    a_hi = a >> _S32
    b_lo = b & _MASK32
    b_hi = b >> _S32
    lo_lo = a_lo * b_lo
    hi_lo = a_hi * b_lo
    lo_hi = a_lo * b_hi
    hi_hi = a_hi * b_hi
    cross = (lo_lo >> _S32) + (hi_lo & _MASK32) + lo_hi
    high = hi_hi + (hi_lo >> _S32) + (cross >> _S32)
    low = (cross << _S32) | (lo_lo & _MASK32)
    return high, low


@njit
def add_128(a_high, a_low, b_high, b_low):
    """The sum of two 128-bit numbers given as (high, low) uint64 halves, modulo 2**128, as (high, low)."""
    low = a_low + b_low
    carry = _U1 if low < a_low else _U0
    return a_high + b_high + carry, low


@njit
def next64(g):
    """The next 64 random bits (advances the state ``g``)."""
    high, low = mul_64x64(g[STATE_LO], _MUL_LO)
    high += g[STATE_HI] * _MUL_LO + g[STATE_LO] * _MUL_HI
    g[STATE_HI], g[STATE_LO] = add_128(high, low, g[INC_HI], g[INC_LO])
    value = g[STATE_HI] ^ g[STATE_LO]
    rot = g[STATE_HI] >> _S58
    return (value >> rot) | (value << ((_U0 - rot) & _S63))


@njit
def next32(g):
    """The next 32 random bits: the low half of a fresh 64-bit output, the high half kept for the next call."""
    if g[HAS_UINT32] != _U0:
        g[HAS_UINT32] = _U0
        return g[UINTEGER]
    bits = next64(g)
    g[HAS_UINT32] = _U1
    g[UINTEGER] = bits >> _S32
    return bits & _MASK32


@njit
def integers(g, n):
    """``Generator.integers(0, n)`` for an int64 ``n >= 1``: a uniform integer in ``0..n-1``."""
    rng = np.uint64(n - 1)
    if rng == _U0:
        return 0
    excl = rng + _U1
    if rng <= _MASK32:
        m = next32(g) * excl
        leftover = m & _MASK32
        if leftover < excl:
            threshold = (_MASK32 - rng) % excl
            while leftover < threshold:
                m = next32(g) * excl
                leftover = m & _MASK32
        return np.int64(m >> _S32)
    high, low = mul_64x64(next64(g), excl)
    if low < excl:
        threshold = (_UMAX - rng) % excl
        while low < threshold:
            high, low = mul_64x64(next64(g), excl)
    return np.int64(high)


@njit
def interval(g, top):
    """numpy's ``random_interval(top)``: a uniform integer in ``0..top`` (int64 ``top >= 0``), by masked rejection."""
    if top == 0:
        return 0
    bound = np.uint64(top)
    mask = bound
    mask |= mask >> np.uint64(1)
    mask |= mask >> np.uint64(2)
    mask |= mask >> np.uint64(4)
    mask |= mask >> np.uint64(8)
    mask |= mask >> np.uint64(16)
    mask |= mask >> _S32
    if bound <= _MASK32:
        value = next32(g) & mask
        while value > bound:
            value = next32(g) & mask
    else:
        value = next64(g) & mask
        while value > bound:
            value = next64(g) & mask
    return np.int64(value)


@njit
def permute_into(g, values, out):
    """``out[:len(values)]`` = ``Generator.permutation(values)`` of a 1-D array (Fisher-Yates, last entry first)."""
    n = len(values)
    for i in range(n):
        out[i] = values[i]
    for i in range(n - 1, 0, -1):
        j = interval(g, i)
        out[i], out[j] = out[j], out[i]


# ---------------------------------------------------------------------------- seeding (numpy's SeedSequence)
#: numpy's ``SeedSequence`` constants (``numpy/random/bit_generator.pyx``): its pool holds 4 words.
#: The arithmetic is on 32-bit words, done here in uint64 and cut to 32 bits (numba widens uint32).
_POOL_SIZE = 4
_INIT_A = np.uint64(0x43B0D7E5)
_MULT_A = np.uint64(0x931E8875)
_INIT_B = np.uint64(0x8B51F9DD)
_MULT_B = np.uint64(0x58F38DED)
_MIX_MULT_L = np.uint64(0xCA01F9DD)
_MIX_MULT_R = np.uint64(0x4973F715)
_XSHIFT = np.uint64(16)


def seed_words(seed: int) -> np.ndarray:
    """An integer seed >= 0 as numpy's ``SeedSequence`` reads it: 32-bit words, least significant first."""
    words = [seed & 0xFFFFFFFF]
    seed >>= 32
    while seed:
        words.append(seed & 0xFFFFFFFF)
        seed >>= 32
    return np.array(words, dtype=np.uint64)


@njit
def _hashmix(value, hash_const):
    """SeedSequence's ``hashmix`` of a 32-bit word; ``hash_const[0]`` steps on."""
    value = (value ^ hash_const[0]) & _MASK32
    hash_const[0] = (hash_const[0] * _MULT_A) & _MASK32
    value = (value * hash_const[0]) & _MASK32
    return value ^ (value >> _XSHIFT)


@njit
def _mix(x, y):
    """SeedSequence's ``mix`` of two 32-bit pool words."""
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> _XSHIFT)


@njit
def seed_into(words, g):
    """``g`` = the state of ``PCG64(SeedSequence(seed))`` for the seed's 32-bit ``words`` (:func:`seed_words`).

    SeedSequence mixes the words into a pool of 4 and draws 8 words from it; PCG64 takes
    them as two 128-bit numbers (initial state, stream) and seeds O'Neill's way: state 0,
    increment ``2 * stream + 1``, a step, add the initial state, a step.
    """
    pool = np.zeros(_POOL_SIZE, dtype=np.uint64)
    hash_const = np.full(1, _INIT_A, dtype=np.uint64)
    for i in range(_POOL_SIZE):
        pool[i] = _hashmix(words[i] if i < len(words) else _U0, hash_const)
    for i_src in range(_POOL_SIZE):
        for i_dst in range(_POOL_SIZE):
            if i_src != i_dst:
                pool[i_dst] = _mix(pool[i_dst], _hashmix(pool[i_src], hash_const))
    for i_src in range(_POOL_SIZE, len(words)):
        for i_dst in range(_POOL_SIZE):
            pool[i_dst] = _mix(pool[i_dst], _hashmix(words[i_src], hash_const))
    drawn = np.zeros(8, dtype=np.uint64)
    mult = _INIT_B
    for i in range(8):
        value = (pool[i % _POOL_SIZE] ^ mult) & _MASK32
        mult = (mult * _MULT_B) & _MASK32
        value = (value * mult) & _MASK32
        drawn[i] = value ^ (value >> _XSHIFT)
    # the 32-bit words pair up into uint64 little-endian: the initial state, then the stream
    seed_hi = drawn[0] | (drawn[1] << _S32)
    seed_lo = drawn[2] | (drawn[3] << _S32)
    stream_hi = drawn[4] | (drawn[5] << _S32)
    stream_lo = drawn[6] | (drawn[7] << _S32)
    g[STATE_HI] = _U0
    g[STATE_LO] = _U0
    g[INC_HI] = (stream_hi << _U1) | (stream_lo >> _S63)
    g[INC_LO] = (stream_lo << _U1) | _U1
    g[HAS_UINT32] = _U0
    g[UINTEGER] = _U0
    next64(g)
    g[STATE_HI], g[STATE_LO] = add_128(g[STATE_HI], g[STATE_LO], seed_hi, seed_lo)
    next64(g)


@njit
def seed_int64_into(seed, g):
    """:func:`seed_into` for an int64 ``seed >= 0``: its words (as :func:`seed_words` splits it) worked out here.

    What a compiled batch uses to start a row's next game without a Python call.
    """
    value = np.uint64(seed)
    high = value >> _S32
    words = np.empty(1 if high == _U0 else 2, dtype=np.uint64)
    words[0] = value & _MASK32
    if high != _U0:
        words[1] = high
    seed_into(words, g)
