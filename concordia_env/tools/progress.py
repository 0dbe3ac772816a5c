"""The progress line of a long run of games: done out of the total, what they say so far, elapsed and left.

One line on stderr, rewritten in place with ``\\r``, that ``concordia evaluate`` (one line per
opponent), ``concordia tournament``, ``concordia bench ladder`` and the Python
``concordia_env.evaluate`` show while their games play::

    vs mcts:150: 37/200 games, 3m12s elapsed, ~14m left, won 24 = 64.9% [48.8%-78.2%], Elo +107 [-8, +221]

It is written here rather than by tqdm so that the core install (which has no tqdm) shows the
same line as the extras. The caller decides whether to show it at all: the commands show it
when stderr is a terminal and not with ``--quiet``, so a log or a ``--json`` run gets nothing
extra. A thread redraws the line every second, so the elapsed time moves during a long
game. Time left is the pace of the games played in this run times the games left (a run that
resumes stored games does not count them as fast ones).
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from types import TracebackType
from typing import TextIO

#: how often the line is redrawn while no game finishes (seconds)
REFRESH_SECONDS = 1.0


def show_progress(quiet: bool = False) -> bool:
    """Whether to show progress: stderr is a terminal and the run was not asked to be quiet (``--quiet``)."""
    return not quiet and sys.stderr.isatty()


def duration_text(seconds: float) -> str:
    """``42s``, ``3m12s``, ``1h05m``: short enough for a progress line."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Progress:
    """A progress line for ``total`` games, ``done`` of them already there (e.g. read back from a results file).

    ``update(done, status)`` after each game: ``status`` is what the games say so far (a win
    rate with its interval). ``capped``: ``total`` is a cap that the run may stop short of (a
    sequential test), so the time left is an upper bound. Use it as a context manager, or call
    :meth:`close`, which ends the line so that what is printed next starts on its own.
    """

    def __init__(
        self,
        label: str,
        total: int,
        *,
        done: int = 0,
        capped: bool = False,
        stream: TextIO | None = None,
        refresh_seconds: float = REFRESH_SECONDS,
    ) -> None:
        self.label = label
        self.total = total
        self.done = done
        self.capped = capped
        self.status = ""
        self.stream = stream if stream is not None else sys.stderr
        self._first = done
        self._start = time.perf_counter()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._width = 0
        self.draw()
        self._ticker = threading.Thread(target=self._tick, args=(refresh_seconds,), name="progress", daemon=True)
        self._ticker.start()

    def text(self) -> str:
        """The line as it reads now: the times first, so that a narrow terminal cuts the status, not them."""
        elapsed = time.perf_counter() - self._start
        parts = [f"{self.label}: {self.done}/{self.total} games", f"{duration_text(elapsed)} elapsed"]
        played = self.done - self._first
        if played > 0 and self.done < self.total:
            left = elapsed / played * (self.total - self.done)
            parts.append(f"{'at most ' if self.capped else ''}~{duration_text(left)} left")
        if self.status:
            parts.append(self.status)
        return ", ".join(parts)

    def update(self, done: int, status: str = "") -> None:
        """Show ``done`` games finished and what they say (``status``)."""
        with self._lock:
            self.done, self.status = done, status
        self.draw()

    def draw(self) -> None:
        """Rewrite the line (cut to the terminal's width, so that it never wraps and ``\\r`` can redraw it)."""
        with self._lock:
            if self._closed.is_set():
                return
            columns = shutil.get_terminal_size((120, 24)).columns - 1
            line = self.text()[:columns]
            self.stream.write("\r" + line + " " * max(0, self._width - len(line)))
            self.stream.flush()
            self._width = len(line)

    def close(self) -> None:
        """Draw the line a last time and end it; later calls do nothing."""
        if self._closed.is_set():
            return
        self.draw()
        with self._lock:
            self._closed.set()
            self.stream.write("\n")
            self.stream.flush()

    def _tick(self, seconds: float) -> None:
        while not self._closed.wait(seconds):
            self.draw()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
