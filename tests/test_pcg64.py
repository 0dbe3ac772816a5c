"""rules.pcg64 draws exactly what numpy's default generator draws, and keeps its state in step."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from concordia_env.engine.rules import pcg64


@numba.njit
def _draws(g: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    out = np.empty(len(bounds), dtype=np.int64)
    for i in range(len(bounds)):
        out[i] = pcg64.integers(g, bounds[i])
    return out


@pytest.mark.parametrize("seed", [0, 1, 42, 2**40 + 7])
def test_integers_match_numpy_for_every_kind_of_bound(seed: int) -> None:
    bounds_rng = np.random.default_rng(seed + 1)
    special = [1, 1, 2, 3, 7, 768, 769, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**62 + 3, 2**63 - 1]
    bounds = np.concatenate(
        [bounds_rng.integers(1, 800, 400), special * 3, bounds_rng.integers(1, 2**63 - 1, 60)]
    ).astype(np.int64)
    generator = np.random.default_rng(seed)
    state = pcg64.from_generator(generator)
    compiled = _draws(state, bounds)
    expected = np.array([generator.integers(int(b)) for b in bounds])
    assert np.array_equal(compiled, expected)
    assert np.array_equal(state, pcg64.from_generator(generator)), "both generators end in the same state"


def test_a_generator_that_already_drew_continues_where_it_is() -> None:
    generator = np.random.default_rng(5)
    generator.integers(10)  # leaves half a 64-bit output buffered (has_uint32)
    state = pcg64.from_generator(generator)
    assert state[pcg64.HAS_UINT32] == 1
    assert _draws(state, np.array([9, 2**40, 5], dtype=np.int64)).tolist() == [
        int(generator.integers(9)),
        int(generator.integers(2**40)),
        int(generator.integers(5)),
    ]


def test_only_pcg64_generators_are_read() -> None:
    with pytest.raises(TypeError):
        pcg64.from_generator(np.random.Generator(np.random.MT19937(0)))
    with pytest.raises(TypeError):
        pcg64.from_generator(np.random.RandomState(0))  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**32 - 1, 2**32, 2**63 - 1, 2**64, 2**128 + 5, 2**200 + 17])
def test_seeding_is_numpys_seed_sequence(seed: int) -> None:
    expected = pcg64.from_generator(np.random.default_rng(seed))
    assert np.array_equal(pcg64.seeded(seed), expected)


def test_seeding_many_small_seeds() -> None:
    for seed in range(0, 5000, 3):
        assert np.array_equal(pcg64.seeded(seed), pcg64.from_generator(np.random.default_rng(seed))), seed
    assert pcg64.seeded(None).shape == (pcg64.STATE_WORDS,)
