"""Rows of a batch on several threads: how ``VectorGame(n, threads=k)`` uses k cores.

Every compiled function of the engine and the strategy core releases the GIL (numba's
``nogil``, :mod:`concordia_env.engine.rules`), so k Python threads that each call one on a
contiguous chunk of the rows run at the same time. Why threads and chunks rather than
numba's ``prange``: the batch functions stay the serial ones that ``Game`` and the tests
use (one compiled version, no threading layer to configure), and a batch decides its own
thread count without touching numba's process-wide setting.

Results never depend on the thread count: a chunk is a set of whole rows, each row's work
reads and writes only that row (its state, its action, its mask, its observation, its own
random generator), and the split only decides which thread does a row, not what it
computes. ``tests/test_vector_threads.py`` checks ``threads=k`` against ``threads=1``.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from concordia_env.engine.errors import integer_argument

#: more threads than this is a mistake (a machine with more cores still gains nothing past the rows)
MAX_THREADS = 256


def check_threads(threads: int) -> int:
    """``threads`` as an int in 1..MAX_THREADS (``ArgumentTypeError``/``ValueError`` otherwise)."""
    k = integer_argument(threads, "threads")
    if not 1 <= k <= MAX_THREADS:
        raise ValueError(f"threads must be in 1..{MAX_THREADS}, got {k}")
    return k


class RowThreads:
    """Splits rows ``0..n-1`` into ``threads`` contiguous chunks and runs work on them at once.

    ``run(work)`` calls ``work(rows)`` once per chunk (``rows`` a ``slice``), the first chunk
    on the calling thread and the others on a pool of ``threads - 1`` workers, and returns
    when all are done; an exception in any chunk is raised in the caller. With one thread
    it is a plain call on all rows.
    """

    def __init__(self, n: int, threads: int = 1) -> None:
        self.threads = min(check_threads(threads), n)
        bounds = np.linspace(0, n, self.threads + 1).round().astype(int)
        self.chunks = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        self._pool: ThreadPoolExecutor | None = None
        if self.threads > 1:
            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="concordia-rows")
            weakref.finalize(self, self._pool.shutdown, wait=False)

    def run(self, work: Callable[[slice], object]) -> None:
        """``work(rows)`` for every chunk of rows, in parallel; returns once every chunk is done."""
        if self._pool is None:
            work(self.chunks[0])
            return
        futures: list[Future] = [self._pool.submit(work, rows) for rows in self.chunks[1:]]
        try:
            work(self.chunks[0])
        finally:
            for future in futures:
                future.result()

    def close(self) -> None:
        """Stop the worker threads (a later ``run`` then raises ``RuntimeError``)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
