"""After ``concordia warmup`` (or with the package's compiled code), nothing the README's commands run compiles.

Each README ``python`` block and each command of the README's table that runs unattended runs
in a fresh process that counts numba's compile events (numba raises one only for a real
compile, never for a cache hit) and prints the count last; it must be 0, and no compile
notice may appear (the notice also covers the worker processes of a training run). ``make
test`` and CI run ``concordia warmup`` before the tests; the module runs it again (it only
loads when everything is kept) so that the check holds however the tests are started.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
#: prepended to the code a process runs: counts numba's compiles and prints the count last, on stderr
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
#: the README table's commands that run unattended, at a small size
COMMANDS = {
    "evaluate": ["evaluate", "heuristic", "--vs", "random", "--games", "2"],
    "replay": ["replay", "--play", "heuristic", "random", "--map", "italia", "--html", "{tmp}/game.html"],
    "tournament": [
        "tournament",
        "--agents",
        "random",
        "heuristic",
        "mcts:20",
        "--games",
        "3",
        "--map",
        "italia",
        "--players",
        "2",
        "--db",
        "{tmp}/t.db",
        "--out",
        "{tmp}/report",
    ],
    "train expert (make run's path)": ["train", "expert", "--config", "expert_tiny", "--runs_dir", "{tmp}/runs"],
    "bench throughput": ["bench", "throughput", "--seconds", "0.05", "--maps", "italia", "--batch", "8"],
}


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CONCORDIA_COMPILE_NOTICE", "CONCORDIA_SHIPPED_CODE")}
    return {**env, "PYTHONPATH": str(ROOT)}


def run_counted(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh process that prints how many functions numba compiled."""
    return subprocess.run(
        [sys.executable, "-c", COUNT_COMPILES + code], cwd=cwd, env=_env(), capture_output=True, text=True, timeout=900
    )


def assert_nothing_compiled(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    assert "numba compiles: 0" in done.stderr, done.stderr[-3000:]
    assert "compiling" not in done.stderr, done.stderr[-3000:]


@pytest.fixture(scope="module", autouse=True)
def warmed_up() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "concordia_env.tools.warmup"], cwd=ROOT, env=_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_a_readme_block_compiles_nothing(index: int, tmp_path: Path) -> None:
    assert_nothing_compiled(run_counted(BLOCKS[index], tmp_path))


@pytest.mark.parametrize("name", COMMANDS)
def test_a_readme_command_compiles_nothing(name: str, tmp_path: Path) -> None:
    argv = [arg.format(tmp=tmp_path) for arg in COMMANDS[name]]
    code = f"from concordia_env.tools.cli import main\nraise SystemExit(main({argv!r}))\n"
    assert_nothing_compiled(run_counted(code, tmp_path))
