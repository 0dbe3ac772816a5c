"""A read-only install with an unwritable HOME compiles in memory instead of failing.

The package is copied into a temporary folder without any compiled code, and run from there
with that folder and ``HOME`` unwritable and no ``NUMBA_CACHE_DIR``: numba then has nowhere to
keep what it compiles (numba's own cache raises ``RuntimeError: cannot cache function ...: no
locator available`` there). As root, whom file modes do not stop, the folders are mounted
read-only in a mount namespace of the test's own (``unshare``); otherwise their write bits are
taken away. A game must end with the same scores as a normal run, with one line saying where
compiled code could not be kept; ``concordia warmup`` must exit 1 with its one line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import concordia_env

PACKAGE_DIR = Path(concordia_env.__file__).parent
ROOT = PACKAGE_DIR.parent
#: a whole 2-player game, printed move by move and scored: what a read-only run must print alike
GAME = """
import numpy as np
from concordia_env import Game
game = Game.new(map="italia", num_players=2, seed=3)
rng = np.random.default_rng(3)
while not game.is_over():
    game.step(int(rng.choice(game.legal_actions())))
print(game.decision_count, game.final_scores(), game.winner())
"""
#: mounts $1 and $2 read-only, then runs the rest
READ_ONLY_MOUNTS = 'mount --bind -o ro "$1" "$1" && mount --bind -o ro "$2" "$2" && shift 2 && exec "$@"'


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[tuple[Path, Path, list[str]]]:
    """(the install, HOME, the command prefix that makes both read-only); write bits given back after."""
    install, home = tmp_path / "install", tmp_path / "home"
    shutil.copytree(PACKAGE_DIR, install / "concordia_env", ignore=shutil.ignore_patterns("__pycache__", "_compiled"))
    home.mkdir()
    if os.geteuid() == 0:
        probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True)
        if probe.returncode != 0:
            pytest.skip("root here cannot make a folder read-only (no mount namespace): file modes do not stop root")
        prefix = ["unshare", "--mount", "--propagation", "private", "sh", "-c", READ_ONLY_MOUNTS, "sh"]
        yield install, home, [*prefix, str(install), str(home)]
        return
    for folder in (install, home):
        subprocess.run(["chmod", "-R", "a-w", str(folder)], check=True)
    try:
        yield install, home, []
    finally:
        for folder in (install, home):
            subprocess.run(["chmod", "-R", "u+w", str(folder)], check=True)


def _env(path: Path, home: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CONCORDIA_"))}
    env["PYTHONPATH"] = str(path)
    if home is not None:
        env["HOME"] = str(home)
    return env


def test_a_game_in_a_read_only_install_compiles_in_memory_with_the_same_scores(read_only) -> None:
    install, home, prefix = read_only
    normal = subprocess.run([sys.executable, "-c", GAME], cwd=ROOT, env=_env(ROOT), capture_output=True, text=True)
    assert normal.returncode == 0, normal.stderr
    done = subprocess.run(
        [*prefix, sys.executable, "-c", GAME], cwd=install, env=_env(install, home), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == normal.stdout
    assert "RuntimeError" not in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("nowhere to keep compiled code") == 1, done.stderr
    assert "NUMBA_CACHE_DIR" in done.stderr
    assert not list(install.rglob("*.nbi")) and not list(home.rglob("*"))


def test_warmup_in_a_read_only_install_says_it_has_nowhere_to_keep_and_exits_1(read_only) -> None:
    install, home, prefix = read_only
    done = subprocess.run(
        [*prefix, sys.executable, "-m", "concordia_env.tools.warmup"],
        cwd=install,
        env=_env(install, home),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "nowhere to keep compiled code" in lines[0] and "NUMBA_CACHE_DIR" in lines[0], lines
