"""The wheel works outside the checkout: build it, install it alone into a fresh venv elsewhere, run the README there.

``python .ci/wheel_check.py`` does all of it; ``make test`` runs it in two halves so that the tests need
not wait for the second: ``--build DIR`` (steps 1-2, beside ruff and mypy: the build compiles the package,
which the tests then load) and ``--install DIR`` (steps 3-7 on the wheel found in ``DIR``, beside the tests):

1. builds the wheel of this checkout (``pip wheel --no-deps``);
2. checks what it ships: the one package ``concordia_env`` (with ``py.typed``, its data, the
   shipped models and configs) and the ``concordia`` command, and no other top-level name;
3. makes a fresh virtual environment in a temporary folder and installs the wheel there with
   its core dependencies only (pip's cache is reused, so a second run downloads nothing);
4. times ``import concordia_env`` there (twice: the first import writes Python's bytecode
   cache) and ``concordia --help``, and prints the times: the installed package must not pay
   what a checkout does not (a cache-stamp walk that once parsed numpy's and numba's sources
   from ``site-packages`` made every import take 24-41 s);
5. runs, from a folder outside the checkout (so nothing of the checkout can be imported), every
   ``python`` block of README.md whose imports are the package, the standard library and the
   core dependencies;
6. runs ``concordia evaluate`` there (the core install evaluates), and ``concordia tournament``,
   whose extra the core install lacks: it must exit 1 with the one line that names its extra;
7. first use without waiting: the wheel ships its compiled code (``concordia_env/_compiled``, a
   platform wheel), and with an empty ``HOME`` and no numba cache the README's engine block,
   ``VectorGame(64)`` with observations, ``ConcordiaOptions-v1`` against the heuristic and
   ``concordia evaluate heuristic --vs random --games 2`` each run from a cold process without
   one compile (numba's compile event counted), each timed; then as a user who cannot write the
   install or ``HOME`` (``nobody`` when this runs as root), the engine block prints the same.

The README blocks that need an extra (Stable-Baselines3, say) are named in the output; the
check fails if fewer than two blocks ran. Exits non-zero on the first failure, with its output.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.compile_counting import COUNT_COMPILES  # noqa: E402  (the one compile counter: prepended to a script)

PACKAGE = "concordia_env"
#: a README block that runs longer than this has an endless loop
BLOCK_SECONDS = 600
#: the subcommands ``concordia --help`` must list
SUBCOMMANDS = ("play", "web", "replay", "tournament", "evaluate", "warmup", "train", "bench")
#: what ``concordia tournament`` prints without its extra
TOURNAMENT_EXTRA = 'pip install "concordia-env[tournament]"'


def run(cmd: list[str], cwd: Path, timeout: float = BLOCK_SECONDS) -> str:
    """Run ``cmd``; its output, or exit with it printed when it fails."""
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        print(f"FAILED ({done.returncode}): {' '.join(cmd)}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
        sys.exit(1)
    return done.stdout


def build_wheel(out: Path) -> Path:
    run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(ROOT)], ROOT)
    (wheel,) = out.glob("concordia_env-*.whl")
    return wheel


def check_contents(wheel: Path) -> list[str]:
    """The wheel's top-level names are the package and its metadata; returns its core requirements."""
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = z.read(metadata).decode()
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        scripts = z.read(entry_points).decode()
    top = {n.split("/", 1)[0] for n in names}
    extra = sorted(t for t in top if t != PACKAGE and not t.endswith(".dist-info"))
    if extra:
        sys.exit(f"FAILED: the wheel ships top-level names besides {PACKAGE}: {extra}")
    for needed in (f"{PACKAGE}/py.typed", f"{PACKAGE}/engine/data/cards.json", f"{PACKAGE}/views/html/assets/app.js"):
        if needed not in names:
            sys.exit(f"FAILED: the wheel lacks {needed}")
    if not any(n.startswith(f"{PACKAGE}/agents/models/") and n.endswith(".npz") for n in names):
        sys.exit("FAILED: the wheel lacks the shipped models")
    if not any(n.endswith("_compiled/manifest.json") for n in names) or "-none-any" in wheel.name:
        sys.exit(f"FAILED: {wheel.name} is not a platform wheel with the package's compiled code")
    if "concordia = concordia_env.tools.cli:main" not in scripts:
        sys.exit("FAILED: the wheel does not install the concordia command")
    if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
        sys.exit("FAILED: the wheel does not carry the LICENSE")
    core = [line.split(":", 1)[1].strip() for line in meta.splitlines() if line.startswith("Requires-Dist:")]
    return [r for r in core if "extra ==" not in r]


def import_names(requirements: list[str]) -> set[str]:
    """The import names of the core requirements (each of them imports under its distribution name)."""
    return {re.split(r"[\s<>=!~;\[]", r, maxsplit=1)[0].lower().replace("-", "_") for r in requirements}


def top_level_imports(code: str) -> set[str]:
    tree = ast.parse(code)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def timed(cmd: list[str], cwd: Path) -> float:
    """Wall-clock seconds ``cmd`` takes (it must succeed)."""
    start = time.perf_counter()
    run(cmd, cwd, timeout=BLOCK_SECONDS)
    return time.perf_counter() - start


#: the first-use tasks timed beyond the README's engine block: (name, script)
FIRST_USE = {
    "VectorGame(64) with observations, 50 steps": (
        "from concordia_env import VectorGame\n"
        "vec = VectorGame(64, map='italia', num_players=2, seed=0)\n"
        "buffer = vec.observations()\n"
        "for _ in range(50):\n"
        "    vec.step(vec.sample_actions(), observe_into=buffer)\n"
        "print(float(buffer.sum()))\n"
    ),
    "ConcordiaOptions-v1 vs heuristic, 30 steps": (
        "import gymnasium, numpy as np, concordia_env\n"
        "env = gymnasium.make('ConcordiaOptions-v1', opponents='heuristic')\n"
        "env.reset(seed=0)\n"
        "for _ in range(30):\n"
        "    _, _, done, cut, _ = env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))\n"
        "    if done or cut:\n"
        "        env.reset()\n"
        "print('ok')\n"
    ),
}
#: runs "$@" with the folders $1 and $2 mounted read-only (root ignores file modes; a read-only mount binds it too)
READ_ONLY_MOUNTS = 'mount --bind -o ro "$1" "$1" && mount --bind -o ro "$2" "$2" && shift 2 && exec "$@"'


def read_only(cmd: list[str], folders: tuple[Path, Path]) -> tuple[list[str], bool]:
    """``cmd`` run with ``folders`` unwritable: read-only mounts in a mount namespace of its own when root,
    else the folders' write bits are taken away (the caller gives them back). Returns the command, and
    whether it used mounts."""
    if os.geteuid() == 0:
        shell = ["sh", "-c", READ_ONLY_MOUNTS, "sh", *map(str, folders)]
        return ["unshare", "--mount", "--propagation", "private", *shell, *cmd], True
    for folder in folders:
        subprocess.run(["chmod", "-R", "a-w", str(folder)], check=True)
    return cmd, False


def first_use(python: Path, concordia: Path, work: Path, engine_block: str) -> None:
    """Each first-use task from a cold process with an empty HOME: timed, and not one compile (step 7)."""
    home = work / "empty-home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CONCORDIA_"))}
    env["HOME"] = str(home)
    tasks = {"the README's engine block": engine_block, **FIRST_USE}
    for name, code in tasks.items():
        script = work / "first_use.py"
        script.write_text(COUNT_COMPILES + code)
        start = time.perf_counter()
        done = subprocess.run([str(python), str(script)], cwd=work, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode != 0 or "numba compiles: 0" not in done.stderr:
            sys.exit(f"FAILED: {name} from a cold process compiled or failed:\n{done.stderr[-3000:]}")
        print(f"first use, {name}: {seconds:.1f} s, nothing compiled")
    start = time.perf_counter()
    done = subprocess.run(
        [str(concordia), "evaluate", "heuristic", "--vs", "random", "--games", "2"],
        cwd=work, env=env, capture_output=True, text=True,
    )  # fmt: skip
    if done.returncode != 0 or "compiling" in done.stderr:
        sys.exit(f"FAILED: concordia evaluate from a cold process compiled or failed:\n{done.stderr[-3000:]}")
    print(f"first use, concordia evaluate heuristic --vs random --games 2: {time.perf_counter() - start:.1f} s")


def read_only_run(venv_dir: Path, python: Path, work: Path, engine_block: str) -> None:
    """The engine block with the install and HOME unwritable prints what a normal run prints."""
    script = work / "read_only.py"
    script.write_text(engine_block)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CONCORDIA_"))}
    normal = subprocess.run([str(python), str(script)], cwd=work, env=env, capture_output=True, text=True)
    home = work / "read-only-home"
    home.mkdir()
    env["HOME"] = str(home)
    cmd, mounted = read_only([str(python), str(script)], (venv_dir, home))
    try:
        done = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True)
    finally:
        if not mounted:
            for folder in (venv_dir, home):
                subprocess.run(["chmod", "-R", "u+w", str(folder)], check=True)
    if done.returncode != 0 or done.stdout != normal.stdout:
        sys.exit(f"FAILED: the engine block in a read-only install:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    how = "mounted read-only" if mounted else "without write permission"
    print(f"the install and HOME {how}: the engine block printed what a normal run prints")


def readme_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.DOTALL)


def build(dist: Path) -> Path:
    """Steps 1-2: the wheel, built into ``dist`` and its contents checked."""
    start = time.perf_counter()
    wheel = build_wheel(dist)
    core = check_contents(wheel)
    size = wheel.stat().st_size / 2**20
    print(f"built {wheel.name} ({size:.1f} MB) in {time.perf_counter() - start:.0f} s: ships {PACKAGE}, its "
          f"compiled code and the concordia command; core requirements {core}")  # fmt: skip
    return wheel


def install_and_run(wheel: Path) -> None:
    """Steps 3-7: ``wheel`` installed alone into a fresh venv outside the checkout, and used there."""
    start = time.perf_counter()
    core = check_contents(wheel)
    with tempfile.TemporaryDirectory(prefix="concordia-wheel-") as tmp:
        tmp_dir = Path(tmp)
        venv.create(tmp_dir / "venv", with_pip=True)
        python, concordia = tmp_dir / "venv" / "bin" / "python", tmp_dir / "venv" / "bin" / "concordia"
        run([str(python), "-m", "pip", "install", "--quiet", str(wheel)], tmp_dir)
        work = tmp_dir / "work"
        work.mkdir()
        first_import = timed([str(python), "-c", f"import {PACKAGE}"], work)
        second_import = timed([str(python), "-c", f"import {PACKAGE}"], work)
        print(
            f"import {PACKAGE} in the fresh venv: {first_import:.1f} s the first time, {second_import:.1f} s the second"
        )
        allowed = import_names(core) | {PACKAGE} | set(sys.stdlib_module_names)
        ran, skipped = 0, []
        for index, block in enumerate(readme_blocks()):
            needs = sorted(top_level_imports(block) - allowed)
            if needs:
                skipped.append(f"block {index} (needs {', '.join(needs)})")
                continue
            script = work / f"readme_block_{index}.py"
            script.write_text(block)
            out = run([str(python), str(script)], work)
            if not out.strip():
                sys.exit(f"FAILED: README block {index} printed nothing")
            ran += 1
        start_help = time.perf_counter()
        helped = run([str(concordia), "--help"], work, timeout=120)
        print(f"concordia --help in the fresh venv: {time.perf_counter() - start_help:.1f} s")
        missing = [name for name in SUBCOMMANDS if name not in helped]
        if missing:
            sys.exit(f"FAILED: concordia --help does not list {missing}")
        evaluated = run([str(concordia), "evaluate", "random", "--vs", "random", "--games", "2"], work)
        if "vs random: won" not in evaluated:
            sys.exit(f"FAILED: concordia evaluate printed no result:\n{evaluated}")
        refused = subprocess.run(
            [str(concordia), "tournament", "--agents", "random", "--games", "1"],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=120,
        )
        if refused.returncode != 1 or TOURNAMENT_EXTRA not in refused.stderr or len(refused.stderr.splitlines()) != 1:
            sys.exit(f"FAILED: concordia tournament without its extra should name it in one line:\n{refused.stderr}")
        print(f"concordia tournament without its extra: {refused.stderr.strip()}")
        engine_block = next(b for b in readme_blocks() if "Game.new" in b)
        first_use(python, concordia, work, engine_block)
        read_only_run(tmp_dir / "venv", python, work, engine_block)
        if ran < 2:
            sys.exit(f"FAILED: only {ran} README blocks need the core alone; expected the engine and PettingZoo ones")
    print(
        f"wheel check passed in {time.perf_counter() - start:.0f} s after the build: {ran} README blocks and "
        f"concordia --help ran in a fresh venv outside the checkout; left to the test suite (extras): "
        f"{', '.join(skipped) or 'none'}"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    half = parser.add_mutually_exclusive_group()
    half.add_argument("--build", type=Path, metavar="DIR", help="steps 1-2 only: build the wheel into DIR")
    half.add_argument("--install", type=Path, metavar="DIR", help="steps 3-7 only, on the wheel built into DIR")
    args = parser.parse_args(argv)
    if args.build:
        args.build = args.build.resolve()
        if args.build.exists():
            shutil.rmtree(args.build)
        build(args.build)
    elif args.install:
        wheels = sorted(args.install.glob("concordia_env-*.whl"))
        if len(wheels) != 1:
            parser.error(f"{args.install} holds {len(wheels)} concordia_env wheels, not one: run --build first")
        install_and_run(wheels[0].resolve())  # the install runs in a folder of its own
    else:
        with tempfile.TemporaryDirectory(prefix="concordia-dist-") as dist:
            install_and_run(build(Path(dist)))


if __name__ == "__main__":
    main()
