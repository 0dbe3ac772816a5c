"""The pools that play a training iteration's games: local processes, or tasks on Ray.

Both have one method, ``imap(fn, tasks)``: the results in the tasks' order, so a run is the
same on either backend. :func:`open_pool` picks one by name (``multiprocessing`` or ``ray``).

What happens when a worker is lost (the out-of-memory killer, ``kill -9``, a node gone):

* **local processes** (a forked ``concurrent.futures.ProcessPoolExecutor``): a worker that
  dies breaks the pool; ``imap`` raises :class:`WorkerLostError` at once (within the second it
  takes the pool to notice), the other workers are stopped and the run ends with one line
  naming its ``--resume`` command. What the last checkpoint holds is untouched: the resumed
  run replays the lost iteration from its start.
* **Ray** (one remote task per task): a task whose worker process dies is run again by Ray,
  up to :data:`RAY_TASK_RETRIES` times (the same task, so the same result); only when every
  try was lost does ``imap`` raise :class:`WorkerLostError`. An error raised by the task's own
  code is not retried: it is the task's error, raised here as it is.

Ctrl-C: the workers ignore SIGINT, so only the main process is interrupted; leaving the
pool on an exception stops it (local workers are killed, Ray tasks cancelled), and no worker
outlives the run (local workers also exit within a second of a main process killed with
``kill -9``: :func:`~concordia_env.tools.tournament.exit_with_parent`).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import signal
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from concordia_env.tools.tournament import exit_with_parent, init_ray, one_torch_thread

#: the backends :func:`open_pool` knows
BACKENDS = ("multiprocessing", "ray")
#: how often Ray runs a task again whose worker process died (Ray's own default for tasks is 3)
RAY_TASK_RETRIES = 3


class WorkerLostError(RuntimeError):
    """A pool worker died (killed, out of memory) and its task was not finished."""


def _ignore_sigint_and_exit_with_parent() -> None:
    """Run in each local worker: Ctrl-C is the main process's to handle; end with the main process; torch on
    one thread (:func:`~concordia_env.tools.tournament.one_torch_thread`: a forked torch hangs otherwise)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    exit_with_parent()
    one_torch_thread()


class LocalPool:
    """``workers`` forked processes; a worker that dies ends ``imap`` with :class:`WorkerLostError`."""

    def __init__(self, workers: int) -> None:
        self.executor = ProcessPoolExecutor(
            max_workers=workers, mp_context=mp.get_context("fork"), initializer=_ignore_sigint_and_exit_with_parent
        )

    def imap(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        futures: list[Future[Any]] = [self.executor.submit(fn, task) for task in tasks]
        try:
            for future in futures:
                yield future.result()
        except BrokenProcessPool as err:
            raise WorkerLostError(
                "a worker process died (killed, or out of memory?) before its games were finished"
            ) from err
        finally:
            for future in futures:
                future.cancel()

    def close(self, failed: bool) -> None:
        """Wait for the workers to exit; after a failure (Ctrl-C included) kill them first."""
        if not failed:
            self.executor.shutdown(wait=True)
            return
        processes = list((getattr(self.executor, "_processes", None) or {}).values())
        self.executor.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(timeout=5)


class RayPool:
    """Ray remote tasks, at most ``workers`` in flight; a task whose worker died is retried."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.in_flight: dict[Any, int] = {}
        self._remote: dict[Callable[[Any], Any], Any] = {}

    def imap(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        import ray

        if fn not in self._remote:
            self._remote[fn] = ray.remote(num_cpus=1, max_retries=RAY_TASK_RETRIES, retry_exceptions=False)(fn)
        remote = self._remote[fn]
        queue = list(tasks)
        lost = tuple(
            getattr(ray.exceptions, name)
            for name in ("WorkerCrashedError", "NodeDiedError", "OutOfMemoryError", "LocalRayletDiedError")
            if hasattr(ray.exceptions, name)
        )
        submitted, wanted = 0, 0
        done: dict[int, Any] = {}
        self.in_flight = {}
        while wanted < len(queue):
            while submitted < len(queue) and len(self.in_flight) < self.workers:
                self.in_flight[remote.remote(queue[submitted])] = submitted
                submitted += 1
            ready, _ = ray.wait(list(self.in_flight), num_returns=1)
            for ref in ready:
                index = self.in_flight.pop(ref)
                try:
                    done[index] = ray.get(ref)
                except lost as err:
                    raise WorkerLostError(
                        f"a Ray worker died (killed, out of memory, or its node lost) and its task failed "
                        f"{RAY_TASK_RETRIES + 1} times: {type(err).__name__}"
                    ) from err
            while wanted in done:
                yield done.pop(wanted)
                wanted += 1

    def close(self, failed: bool) -> None:
        """Cancel the tasks still in flight (after a failure or Ctrl-C; none are left otherwise)."""
        if not self.in_flight:
            return
        import ray

        for ref in list(self.in_flight):
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        self.in_flight = {}


@contextlib.contextmanager
def open_pool(backend: str, workers: int, address: str | None = None) -> Iterator[LocalPool | RayPool]:
    """The pool that plays a run's games: ``multiprocessing`` (local processes) or ``ray``.

    With Ray, a running Ray instance is used as it is (a test's ``ray.init(num_cpus=2)``);
    otherwise this joins the cluster at ``address`` or starts a local instance of ``workers``
    CPUs (:func:`~concordia_env.tools.tournament.init_ray`), and shuts down what it started.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "multiprocessing":
        local = LocalPool(workers)
        try:
            yield local
        except BaseException:
            local.close(failed=True)
            raise
        local.close(failed=False)
        return
    import ray

    started = not ray.is_initialized()
    if started:
        init_ray(address, workers)
    pool = RayPool(workers)
    try:
        yield pool
    except BaseException:
        pool.close(failed=True)
        raise
    finally:
        if started:
            ray.shutdown()
