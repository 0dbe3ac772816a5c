"""The strategy's randomness: a small generator whose whole state is one number the caller owns.

Compiled code draws from a ``uint64[1]`` array (SplitMix64, Steele et al. 2014), seeded by
the Python agent from its own seeded ``numpy.random.Generator``: a decision, a rollout or a
determinization is then a pure function of its inputs and that seed, whatever else runs in
the process (numba's global ``np.random`` state is not used).
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.rules import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
#: 2 ** -53: a 53-bit integer times this is a float in [0, 1)
_UNIT = 1.0 / 9007199254740992.0


def new_state(seed: int) -> np.ndarray:
    """A generator state from a seed (an integer, taken modulo 2**64)."""
    return np.array([int(seed) % 2**64], dtype=np.uint64)


@njit
def next_bits(state):
    """The next 64 random bits (advances ``state``)."""
    state[0] += _GOLDEN
    z = state[0]
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit
def uniform(state):
    """A float in [0, 1)."""
    return (next_bits(state) >> _S11) * _UNIT


@njit
def below(state, n):
    """An integer in 0..n-1 (n >= 1)."""
    return min(int(uniform(state) * n), n - 1)


@njit
def gumbel(state):
    """A standard Gumbel draw: adding ``t *`` one to each score and taking the best samples a softmax."""
    return -np.log(-np.log(uniform(state) + 1e-12) + 1e-12)
