"""numpy's default generator, compiled: ``Generator(PCG64).integers(0, n)`` over a state array.

Why a port: the Python agents draw from a seeded ``numpy.random.Generator`` (the random
agent its action, ``random.integers(len(legal))``; the learned agent the seed of each
determinization). Their compiled twins, which play inside a batched environment
(:mod:`.players`), must make the very same draws for a row's game to equal the game the
Python agent plays; numba's own ``Generator`` support takes one generator object per call,
not one per row of a batch. So the generator's whole state lives in a ``uint64`` array of
:data:`STATE_WORDS` entries that the batch keeps per row, and these functions advance it
exactly as numpy does:

* PCG64 (O'Neill's 128-bit LCG with the XSL-RR output, numpy's ``PCG64``, not ``PCG64DXSM``):
  ``state = state * MULTIPLIER + inc``, then the output of the new state; ``next32`` serves the
  two halves of one 64-bit output, low half first (numpy's ``has_uint32``/``uinteger``);
* ``integers(0, n)`` for the default int64 dtype (numpy's ``random_bounded_uint64_fill``):
  ``n == 1`` draws nothing; a range that fits 32 bits takes Lemire's method on ``next32``,
  a wider one Lemire's method on ``next64``, both rejecting the biased draws.

:func:`from_generator` reads a numpy generator's state into such an array (the generator
is not advanced); ``tests/strategy/test_pcg64.py`` draws from both and compares.
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.rules import njit

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
    st = generator.bit_generator.state
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
def next64(g):
    """The next 64 random bits (advances the state ``g``)."""
    high, low = mul_64x64(g[STATE_LO], _MUL_LO)
    high += g[STATE_HI] * _MUL_LO + g[STATE_LO] * _MUL_HI
    new_low = low + g[INC_LO]
    carry = _U1 if new_low < low else _U0
    g[STATE_HI] = high + g[INC_HI] + carry
    g[STATE_LO] = new_low
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
