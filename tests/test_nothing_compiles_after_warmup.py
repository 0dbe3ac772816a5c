"""After ``concordia warmup`` (or with the package's compiled code), the README's commands compile nothing.

Each command of the README's table that runs unattended runs at a small size in a fresh
process that counts numba's compile events (numba raises one only for a real compile, never
for a cache hit): none may be counted, and no compile notice may appear (the notice also
covers the worker processes of a training run). The README's ``python`` blocks are checked
alike by ``tests/test_readme.py``. ``make test`` and CI run ``concordia warmup`` before the
tests; the module runs it again (it only loads what is kept) so that the check holds however
the tests are started.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.compile_counting import assert_nothing_compiled, run_counted, warm_up

#: the README table's commands that run unattended, at a small size
COMMANDS = {
    "evaluate": ["evaluate", "heuristic", "--vs", "random", "--games", "2"],
    "replay": ["replay", "--play", "heuristic", "random", "--map", "italia", "--html", "{tmp}/game.html"],
    "tournament": ["tournament", "--agents", "random", "heuristic", "mcts:20", "--games", "3", "--map", "italia",
                   "--players", "2", "--db", "{tmp}/t.db", "--out", "{tmp}/report"],
    "train expert (make run's path)": ["train", "expert", "--config", "expert_tiny", "--runs_dir", "{tmp}/runs"],
    "bench throughput": ["bench", "throughput", "--seconds", "0.05", "--maps", "italia", "--batch", "8"],
}  # fmt: skip


@pytest.fixture(scope="module", autouse=True)
def warmed_up() -> None:
    warm_up()


@pytest.mark.parametrize("name", COMMANDS)
def test_a_readme_command_compiles_nothing(name: str, tmp_path: Path) -> None:
    argv = [arg.format(tmp=tmp_path) for arg in COMMANDS[name]]
    code = f"from concordia_env.tools.cli import main\nraise SystemExit(main({argv!r}))\n"
    assert_nothing_compiled(run_counted(code, tmp_path))
