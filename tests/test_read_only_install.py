"""A read-only install with an unwritable HOME plays as a normal install does, and compiles in memory.

The package is copied into a temporary folder and run from there with that folder and
``HOME`` unwritable and no ``NUMBA_CACHE_DIR``: numba then has nowhere to keep what it
compiles (numba's own cache raises ``RuntimeError: cannot cache function ...: no locator
available`` there). As root, whom file modes do not stop, the folders are mounted read-only
in a mount namespace of the test's own (``unshare``); otherwise their write bits are taken
away. With the package's compiled code (the checkout's, as a wheel ships it) the README's
engine block, ``VectorGame`` and ``concordia evaluate`` print what a normal run prints; without
it a compile is kept in memory with one line saying where it could not be kept; ``concordia
warmup`` exits 1 with its one line.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import concordia_env

PACKAGE_DIR = Path(concordia_env.__file__).parent
ROOT = PACKAGE_DIR.parent
README = ROOT / "README.md"
#: what a read-only run must print as a normal run does: the README's engine block, a VectorGame, an evaluation
RUNS = {
    "engine block": next(b for b in re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
                         if "Game.new" in b),
    "VectorGame": "from concordia_env import VectorGame\nvec = VectorGame(16, map='italia', num_players=2, seed=0)\n"
                  "for _ in range(300):\n    vec.step(vec.sample_actions())\nprint(vec.scores().tolist())\n",
    "concordia evaluate": "from concordia_env.tools.cli import main\n"
                          "main(['evaluate', 'heuristic', '--vs', 'random', '--games', '2', '--seed', '5'])\n",
}  # fmt: skip
#: one small compiled function, compiled in a read-only install: kept in memory
COUNT_BITS = "from concordia_env.engine.rules.state_helpers import count_bits\nprint(count_bits(7))\n"
#: mounts $1 and $2 read-only, then runs the rest
READ_ONLY_MOUNTS = 'mount --bind -o ro "$1" "$1" && mount --bind -o ro "$2" "$2" && shift 2 && exec "$@"'


def _read_only(tmp_path: Path, with_compiled_code: bool) -> Iterator[tuple[Path, Path, list[str]]]:
    """(the install, HOME, the command prefix that makes both read-only); write bits given back after."""
    install, home = tmp_path / "install", tmp_path / "home"
    shutil.copytree(PACKAGE_DIR, install / "concordia_env", ignore=shutil.ignore_patterns("__pycache__", "_compiled"))
    if with_compiled_code and (PACKAGE_DIR / "_compiled").is_dir():
        shutil.copytree(PACKAGE_DIR / "_compiled", install / "concordia_env" / "_compiled")
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


@pytest.fixture
def read_only(tmp_path: Path) -> Iterator[tuple[Path, Path, list[str]]]:
    """A read-only install with the package's compiled code, as a wheel ships it."""
    yield from _read_only(tmp_path, with_compiled_code=True)


@pytest.fixture
def read_only_source(tmp_path: Path) -> Iterator[tuple[Path, Path, list[str]]]:
    """A read-only install without compiled code (a source install, or another numba)."""
    yield from _read_only(tmp_path, with_compiled_code=False)


def _env(path: Path, home: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CONCORDIA_"))}
    env["PYTHONPATH"] = str(path)
    if home is not None:
        env["HOME"] = str(home)
    return env


@pytest.mark.parametrize("name", RUNS)
def test_a_read_only_install_prints_what_a_normal_one_prints(read_only, name: str) -> None:
    install, home, prefix = read_only
    code = RUNS[name]
    normal = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=_env(ROOT), capture_output=True, text=True)
    assert normal.returncode == 0, normal.stderr
    done = subprocess.run(
        [*prefix, sys.executable, "-c", code], cwd=install, env=_env(install, home), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == normal.stdout
    assert "RuntimeError" not in done.stderr and "Traceback" not in done.stderr
    assert not list(install.rglob("__pycache__")) and not list(home.rglob("*"))  # nothing written


def test_a_compile_in_a_read_only_install_is_kept_in_memory_with_one_line(read_only_source) -> None:
    install, home, prefix = read_only_source
    command = [*prefix, sys.executable, "-c", COUNT_BITS]
    done = subprocess.run(command, cwd=install, env=_env(install, home), capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "3\n", done.stderr
    assert "RuntimeError" not in done.stderr and "Traceback" not in done.stderr
    assert done.stderr.count("nowhere to keep compiled code") == 1, done.stderr
    assert "NUMBA_CACHE_DIR" in done.stderr and "compiling in memory" in done.stderr
    assert not list(install.rglob("__pycache__")) and not list(home.rglob("*"))  # nothing written


def test_warmup_in_a_read_only_install_says_it_has_nowhere_to_keep_and_exits_1(read_only_source) -> None:
    install, home, prefix = read_only_source
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
