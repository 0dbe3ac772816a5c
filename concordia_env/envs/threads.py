"""Rows of a batch on several threads: how ``VectorGame(n, threads=k)`` uses k cores.

Every compiled function of the engine and the strategy core releases the GIL (numba's
``nogil``, :mod:`concordia_env.engine.rules`), so k Python threads that each call one on a
contiguous piece of the rows run at the same time. Why threads and chunks rather than
numba's ``prange``: the batch functions stay the serial ones that ``Game`` and the tests
use (one compiled version, no threading layer to configure), and a batch decides its own
thread count without touching numba's process-wide setting.

Results never depend on the thread count: a piece is a set of whole rows, each row's work
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


#: pieces the rows are cut into per thread: the threads take pieces until none is left
PIECES_PER_THREAD = 4


class RowThreads:
    """Runs work on the rows ``0..n-1`` with ``threads`` threads, in contiguous pieces.

    ``run(work)`` calls ``work(rows)`` once per piece (``rows`` a ``slice``) and returns when
    every piece is done; an exception in any piece is raised in the caller. The rows are cut
    into ``PIECES_PER_THREAD`` pieces per thread, and the calling thread and ``threads - 1``
    workers take the next piece until none is left: on a machine whose cores are busy with
    other work a worker may start late, and the caller then simply does more of the pieces
    itself (never slower than one thread, which a fixed split would be). With one thread it
    is a plain call on all rows.
    """

    def __init__(self, n: int, threads: int = 1) -> None:
        self.threads = min(check_threads(threads), n)
        pieces = min(n, self.threads * PIECES_PER_THREAD) if self.threads > 1 else 1
        bounds = np.linspace(0, n, pieces + 1).round().astype(int)
        self.chunks = [slice(int(a), int(b)) for a, b in itertools.pairwise(bounds)]
        self._pool: ThreadPoolExecutor | None = None
        if self.threads > 1:
            self._pool = ThreadPoolExecutor(self.threads - 1, thread_name_prefix="concordia-rows")
            weakref.finalize(self, self._pool.shutdown, wait=False)

    def run(self, work: Callable[[slice], object]) -> None:
        """``work(rows)`` for every piece of rows, on all threads; returns once every piece is done."""
        if self._pool is None:
            work(self.chunks[0])
            return
        chunks = self.chunks
        taken = itertools.count()  # next() on a count is atomic under the GIL: each piece is taken once

        def take_pieces() -> None:
            while (k := next(taken)) < len(chunks):
                work(chunks[k])

        futures: list[Future] = [self._pool.submit(take_pieces) for _ in range(self.threads - 1)]
        try:
            take_pieces()
        finally:
            for future in futures:
                future.result()

    def close(self) -> None:
        """Stop the worker threads (a later ``run`` then raises ``RuntimeError``)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
