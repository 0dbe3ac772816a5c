"""A training run's folder: a fresh one per run, one writer at a time, files written whole.

Every training command (``concordia train afterstate | expert | selfplay | ppo_options |
rllib``) writes its run through these three:

* :func:`new_run_dir`: ``<runs_dir>/<name>-<timestamp>[-<k>]``, created by this process and
  no other (two runs started in the same second get two folders);
* :class:`RunLock`: the folder's one writer. A second process that would write the same
  folder (a new run, or ``--resume``) is refused with :class:`RunFolderBusyError`, one line that
  names the running process; a lock left by a process that no longer runs (killed, a lost
  machine) is recognised as stale and taken over, with a line that says so;
* :func:`write_atomic` (and :func:`save_npz_atomic`, :func:`write_json_atomic`): a file that is
  the old one or the new one, whole, whenever the run stops.

The lock is the file :data:`LOCK_FILE` in the run folder, created exclusively
(``O_CREAT | O_EXCL``) and holding the writer's pid, host, command and start time; it is
removed when the writer releases it (a normal end, an error, Ctrl-C). A process killed
outright leaves it behind: the next writer on the same host sees that its pid has no live
process (or a process started at another time: the pid was reused) and takes the folder
over. A lock written on another host cannot be checked from here and is refused; its line
says which host and how to clear it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

#: the lock file in a run folder while a process writes it
LOCK_FILE = "writer.lock"


class RunFolderBusyError(RuntimeError):
    """Another live process writes this run folder (its pid is in the message)."""


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file is the old one or the new one, whole, whenever the run stops."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@contextlib.contextmanager
def interrupts_deferred() -> Iterator[None]:
    """Ctrl-C waits for the block to end: a checkpoint is written whole, then the interrupt is raised.

    A SIGINT during the block (a terminal's Ctrl-C) is remembered and raised as
    ``KeyboardInterrupt`` once the block has ended normally, so the run stops after the
    checkpoint it was writing, not inside a library's file writer (torch's zip writer,
    interrupted, raises its own ``RuntimeError`` on the way out, and the run ended in a
    traceback). Only where Ctrl-C raises ``KeyboardInterrupt`` (Python's own handler, in the
    main thread): an ignored SIGINT, or another handler, is left as it is.
    """
    main = threading.current_thread() is threading.main_thread()
    if not main or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if caught:
        raise KeyboardInterrupt


def save_npz_atomic(path: Path, arrays: dict[str, Any]) -> None:
    """``np.savez`` of ``arrays`` to ``path``, atomically (:func:`write_atomic`)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_atomic(path, buffer.getvalue())


def write_json_atomic(path: Path, data: Any) -> None:
    """``data`` as indented JSON in ``path``, atomically (:func:`write_atomic`)."""
    write_atomic(path, json.dumps(data, indent=1).encode())


def new_run_dir(runs_dir: str | Path, name: str) -> Path:
    """A new, empty run folder ``<runs_dir>/<name>-<YYYYmmdd-HHMMSS>``, with ``-1``, ``-2``... if that is taken.

    ``mkdir`` without ``exist_ok`` decides: of two processes that reach the same name, one
    gets it and the other the next suffix.
    """
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    Path(runs_dir).mkdir(parents=True, exist_ok=True)
    suffix = 0
    while True:
        run_dir = Path(runs_dir) / (f"{name}-{stamp}" if suffix == 0 else f"{name}-{stamp}-{suffix}")
        try:
            run_dir.mkdir()
        except FileExistsError:
            suffix += 1
            continue
        return run_dir


def _start_time(pid: int) -> str | None:
    """When process ``pid`` started (Linux: ``/proc/<pid>/stat``'s start time), or None where that is not known."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rsplit(")", 1)[-1].split()  # after the command name, which may hold spaces
    return fields[19] if len(fields) > 19 else None


def _is_running(pid: int, started: str | None) -> bool:
    """Whether process ``pid`` still runs on this host and is the one that wrote the lock (not a reused pid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except (OSError, IndexError):
        state = ""
    if state == "Z":  # killed, not yet reaped by its parent
        return False
    now = _start_time(pid)
    return started is None or now is None or now == started


class RunLock:
    """The one writer of a run folder, as a context manager (``with RunLock(run_dir):``) or ``acquire``/``release``."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / LOCK_FILE
        self.held = False

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self.release()

    def _record(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": _start_time(os.getpid()),
            "since": datetime.now().isoformat(timespec="seconds"),
            "command": " ".join(sys.argv),
        }

    def acquire(self) -> None:
        """Make this process the folder's writer (a stale lock is taken over); ``RunFolderBusyError`` if a live one is.

        ``FileNotFoundError`` if the folder does not exist. Acquiring a lock this object holds does nothing
        (``acquire()`` to refuse early, then ``with lock:`` around the work).
        """
        if self.held:
            return
        if not self.run_dir.is_dir():
            raise FileNotFoundError(f"{self.run_dir} is not a run directory")
        for _ in range(10):  # a stale lock removed under us by another process: try again
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                self._take_over_if_stale()
                continue
            with os.fdopen(fd, "w") as f:
                json.dump(self._record(), f)
            self.held = True
            return
        raise RunFolderBusyError(f"{self.run_dir} could not be locked: {self.path} keeps coming back")

    def _take_over_if_stale(self) -> None:
        """The lock in the folder is someone's: refuse if they still run, else remove it (the caller then retries)."""
        try:
            text = self.path.read_text()
        except FileNotFoundError:
            return  # released meanwhile
        try:
            holder = json.loads(text)
            pid, host = int(holder["pid"]), str(holder["host"])
        except (ValueError, KeyError, TypeError):
            if time.time() - self.path.stat().st_mtime < 5:  # being written right now by its creator
                time.sleep(0.2)
                return
            holder, pid, host = {}, -1, socket.gethostname()  # unreadable and old: no one holds it
        if host != socket.gethostname():
            raise RunFolderBusyError(
                f"{self.run_dir} is being written by process {pid} on host {host} (since {holder.get('since')}); "
                f"if that process is gone, delete {self.path}"
            )
        if pid >= 0 and _is_running(pid, holder.get("started")):
            raise RunFolderBusyError(
                f"{self.run_dir} is being written by process {pid} (since {holder.get('since')}: "
                f"{holder.get('command', '?')}); wait for it to end or stop it, then --resume"
            )
        # stale: move it aside (one process wins the rename), check it is the one judged, then drop it
        aside = self.path.with_name(f".{LOCK_FILE}.stale.{os.getpid()}")
        try:
            os.replace(self.path, aside)
        except FileNotFoundError:
            return
        if aside.read_text() != text:  # a new writer's lock, created after our read: put it back
            os.replace(aside, self.path)
            return
        aside.unlink()
        print(f"{self.run_dir}: taking over the lock of process {pid}, which no longer runs", file=sys.stderr)

    def release(self) -> None:
        """No longer the writer: the lock file goes (if it is still this process's)."""
        if not self.held:
            return
        self.held = False
        try:
            if int(json.loads(self.path.read_text())["pid"]) == os.getpid():
                self.path.unlink()
        except (OSError, ValueError, KeyError, TypeError):
            pass
