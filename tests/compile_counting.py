"""Run code in a fresh process that counts numba's compiles: the check that something compiles nothing.

numba raises its ``numba:compile`` event only for a real compile, never for a cache hit, so
a process that counted none loaded everything it ran. ``COUNT_COMPILES`` is prepended to the
code; the count is printed last, on stderr.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COUNT_COMPILES = """
import atexit as _atexit, sys as _sys
from numba.core import event as _event
class _Compiles(_event.Listener):
    count = 0
    def on_start(self, event): _Compiles.count += 1
    def on_end(self, event): pass
_event.register("numba:compile", _Compiles())
_atexit.register(lambda: _sys.stderr.write(f"numba compiles: {_Compiles.count}\\n"))
"""


def checkout_env() -> dict[str, str]:
    """This process's environment with the checkout importable and the compile notice on."""
    env = {k: v for k, v in os.environ.items() if k not in ("CONCORDIA_COMPILE_NOTICE", "CONCORDIA_SHIPPED_CODE")}
    return {**env, "PYTHONPATH": str(ROOT)}


def run_counted(code: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh process that prints how many functions numba compiled."""
    return subprocess.run(
        [sys.executable, "-c", COUNT_COMPILES + code],
        cwd=cwd,
        env=checkout_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_nothing_compiled(done: subprocess.CompletedProcess[str]) -> None:
    """The process succeeded, counted no compile and printed no compile notice (its workers' included)."""
    assert done.returncode == 0, done.stderr[-3000:]
    assert "numba compiles: 0" in done.stderr, done.stderr[-3000:]
    assert "compiling" not in done.stderr, done.stderr[-3000:]


def warm_up() -> None:
    """``concordia warmup`` (seconds when everything is kept already, as after ``make test``'s own)."""
    command = [sys.executable, "-m", "concordia_env.tools.warmup"]
    done = subprocess.run(command, cwd=ROOT, env=checkout_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-3000:]
