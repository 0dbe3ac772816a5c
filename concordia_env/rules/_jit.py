"""The one place that decides how rule functions are compiled.

Rule functions are plain Python over numpy arrays, compiled with numba's ``njit`` (cached
on disk, so only the first import of a fresh checkout pays the compile time). Setting the
environment variable ``NUMBA_DISABLE_JIT=1`` runs the very same functions as Python, which
is how to step through them in a debugger or measure coverage.
"""

from __future__ import annotations

import numba


def njit(func):
    """Compile a rule function (nopython mode, cached, no exceptions inside)."""
    return numba.njit(cache=True, nogil=True)(func)
