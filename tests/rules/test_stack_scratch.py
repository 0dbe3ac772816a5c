"""``stack_zeros``: the scratch arrays of functions compiled without reference counting."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from concordia_env.engine.maps import MAX_PATHS
from concordia_env.engine.rules import stack_zeros

ROWS, COLUMNS = 3, 5


@numba.njit(_nrt=False)
def _borrowing_counts(values, out):
    """Counts of ``values % MAX_PATHS`` into ``out`` through a stack array (no allocation allowed here)."""
    counts = stack_zeros(MAX_PATHS, np.int32)
    for v in values:
        counts[v % MAX_PATHS] += 1
    for i in range(MAX_PATHS):
        out[i] = counts[i]


@numba.njit(_nrt=False)
def _borrowing_table(out):
    """A 2-D stack array, written then copied out: its zeros, shape and C order."""
    table = stack_zeros((ROWS, COLUMNS), np.float64)
    for r in range(ROWS):
        table[r, r] = r + 1.0
    for r in range(ROWS):
        for c in range(COLUMNS):
            out[r, c] = table[r, c]
    return table.shape[0] * 100 + table.shape[1]


@numba.njit(_nrt=False)
def _twice(values, out):
    """Two calls in a row: each call's scratch starts at zero, whatever the last one left."""
    _borrowing_counts(values, out)
    _borrowing_counts(values, out)


def test_a_stack_array_starts_at_zero_and_counts_like_numpy() -> None:
    values = np.arange(3 * MAX_PATHS + 7, dtype=np.int64)
    out = np.full(MAX_PATHS, -1, dtype=np.int32)
    _twice(values, out)
    expected = np.bincount(values % MAX_PATHS, minlength=MAX_PATHS)
    assert out.tolist() == expected.tolist()


def test_a_two_dimensional_stack_array_has_its_shape_and_zeros() -> None:
    out = np.full((ROWS, COLUMNS), np.nan)
    assert _borrowing_table(out) == ROWS * 100 + COLUMNS
    expected = np.zeros((ROWS, COLUMNS))
    for r in range(ROWS):
        expected[r, r] = r + 1.0
    assert np.array_equal(out, expected)


def test_a_shape_known_only_at_run_time_is_refused_when_compiling() -> None:
    @numba.njit(_nrt=False)
    def dynamic(n):
        return stack_zeros(n, np.int32)[0]

    with pytest.raises(numba.core.errors.TypingError):
        dynamic(4)
