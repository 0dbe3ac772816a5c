"""``concordia warmup``: compile every compiled part ahead of time, so that no first use waits for numba.

::

    concordia warmup                   # each part with its seconds; nothing to compile when all is cached or shipped
    concordia warmup --jobs 1          # one process (default: one per core)
    concordia warmup --portable DIR    # build the compiled code a platform wheel ships (generic CPU), into DIR

The rules, the strategy core and the batched environments are compiled by numba on their
first call. A platform wheel ships them compiled (``concordia_env/_compiled``, see
:mod:`concordia_env.engine.rules.compiled_cache`), so an install from it has nothing left to
compile and this command only checks that, in seconds. Otherwise (an install from source,
another numba or Python, another architecture) every part pays its compile on first use: this
command pays them all at once. The parts (:data:`~concordia_env.tools.compile_coverage.PARTS`)
run in stages (:func:`schedule`): the rules here first (every other part calls them; when they
compiled nothing the cache is warm and the rest runs here too), then the parts that need only
the rules (the heuristic, ``VectorGame``), then the parts that need those, each stage shared
out among processes, one per core, which load the earlier stages' code from the cache. Each
process keeps what it compiles in a folder of its own (two processes writing one function's
cache index at once could lose an entry); the folders are merged into the user's cache after
each stage, and a last pass here runs the parts again: it loads everything, and compiles (and
keeps) anything a worker missed.

Run it after installing (``make run`` and CI do). Where nothing can be written (a read-only
install and ``HOME``, no ``NUMBA_CACHE_DIR``) it says so in one line and exits 1: the code it
would compile could not be kept for the next process.

``--portable DIR`` builds the shipped compiled code: the same parts, compiled for the generic
CPU of this architecture in fresh processes that read no cache, merged into ``DIR`` with its
manifest (numba, Python, architecture). The wheel build runs it (``setup.py``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numba
from numba.core import event as numba_event

from concordia_env.engine.rules import compiled_cache as compiled
from concordia_env.engine.rules import stamps_record
from concordia_env.tools import arguments
from concordia_env.tools.compile_coverage import PARTS


class CompileCount(numba_event.Listener):
    """Counts the package's real compiles (numba raises ``numba:compile`` for those only, never for a cache hit)."""

    def __init__(self) -> None:
        self.count = 0

    def on_start(self, event: numba_event.Event) -> None:
        data = event.data if isinstance(event.data, dict) else {}
        if getattr(getattr(data.get("dispatcher"), "py_func", None), "__concordia_compiled__", False):
            self.count += 1

    def on_end(self, event: numba_event.Event) -> None:
        pass


def run_parts(indices: Sequence[int], out: Callable[[str], object] = print) -> int:
    """Run the parts ``indices`` here, reporting each with its seconds; returns how many functions compiled."""
    counter = CompileCount()
    numba_event.register("numba:compile", counter)
    try:
        for index in indices:
            part = PARTS[index]
            start, before = time.perf_counter(), counter.count
            part.run()
            out(f"  {part.name}: {time.perf_counter() - start:.1f} s, {counter.count - before} compiled")
    finally:
        numba_event.unregister("numba:compile", counter)
    return counter.count


def schedule(jobs: int) -> list[list[list[int]]]:
    """The parts' indices in stages, each stage's parts dealt among at most ``jobs`` processes.

    A part runs in the stage after the last of the parts it needs, so that it loads their
    compiled code instead of compiling its own copy; within a stage the parts go, longest first,
    to the process with the least work so far (by their measured seconds).
    """
    stage_of: list[int] = []
    for part in PARTS:
        stage_of.append(1 + max((stage_of[need] for need in part.needs), default=-1))
    stages = []
    for stage in range(max(stage_of) + 1):
        members = sorted((i for i, s in enumerate(stage_of) if s == stage), key=lambda i: -PARTS[i].seconds)
        groups: list[list[int]] = [[] for _ in range(min(jobs, len(members)))]
        loads = [0.0] * len(groups)
        for index in members:
            least = loads.index(min(loads))
            groups[least].append(index)
            loads[least] += PARTS[index].seconds
        stages.append([sorted(group) for group in groups])
    return stages


def _worker_env(into: Path, portable: bool, scratch: Path, shipped: Path | None = None) -> dict[str, str]:
    """A worker's environment: compiles kept in ``into``; for the portable build the generic CPU, no user cache
    (``NUMBA_CACHE_DIR`` an empty folder) and, as the shipped code, only the ``shipped`` folder (or none)."""
    env = {**os.environ, compiled.COMPILE_INTO_ENV: str(into), "CONCORDIA_COMPILE_NOTICE": "0"}
    if portable:
        env.update(NUMBA_CPU_NAME=compiled.PORTABLE_CPU, NUMBA_CPU_FEATURES="", NUMBA_CACHE_DIR=str(scratch))
        env[compiled.SHIPPED_ENV] = str(shipped) if shipped is not None else "0"
    return env


def compile_in_workers(
    groups: Sequence[Sequence[int]],
    folder: Path,
    portable: bool,
    out: Callable[[str], object],
    shipped: Path | None = None,
    name: str = "worker",
) -> list[Path]:
    """Run each group of parts in a process of its own, each keeping its compiles in its own folder under ``folder``."""
    into = [folder / f"{name}-{k}" for k in range(len(groups))]
    procs = []
    for group, target in zip(groups, into, strict=True):
        cmd = [sys.executable, "-m", "concordia_env.tools.warmup", "--parts", ",".join(map(str, group))]
        env = _worker_env(target, portable, folder / "empty-user-cache", shipped)
        procs.append(subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    lock = threading.Lock()
    errors: list[list[str]] = [[] for _ in procs]

    def relay(stream: Any, keep: list[str] | None) -> None:  # each part's line as its worker finishes it
        for line in stream:
            if keep is not None:
                keep.append(line)
                continue
            with lock:
                out(line.rstrip("\n"))

    relays = [threading.Thread(target=relay, args=(proc.stdout, None), daemon=True) for proc in procs]
    for proc, kept in zip(procs, errors, strict=True):  # kept whole: its last line says why a worker failed
        relays.append(threading.Thread(target=relay, args=(proc.stderr, kept), daemon=True))
    for thread in relays:
        thread.start()
    for proc in procs:
        proc.wait()
    for thread in relays:
        thread.join()
    failed = [
        ("".join(kept).strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        for proc, kept in zip(procs, errors, strict=True)
        if proc.returncode != 0
    ]
    if failed:
        raise RuntimeError(f"a warm-up process failed: {failed[0]}")
    return into


def index_files(folder: Path) -> Iterator[Path]:
    """The cache index files under ``folder`` (laid out as the shipped code: one folder per package folder)."""
    yield from sorted(folder.rglob("*.nbi"))


def merge(source: Path, destination_of: Callable[[Path, Any], Any]) -> int:
    """Copy every entry of the cache under ``source`` into the cache file ``destination_of(index, stamp)`` names.

    ``index`` is an index file's path relative to ``source``. numba's index file is its version,
    then a pickle of (stamp, {key: data file}); indexes of another numba version, and those
    ``destination_of`` answers None for, are skipped. Returns the entries copied.
    """
    copied = 0
    for index in index_files(source):
        with open(index, "rb") as f:
            if pickle.load(f) != numba.__version__:
                continue
            stamp, overloads = pickle.loads(f.read())
        target = destination_of(index.relative_to(source), stamp)
        if target is None:
            continue
        Path(target._cache_path).mkdir(parents=True, exist_ok=True)
        kept = target._load_index()
        for key, name in overloads.items():
            if key not in kept:
                taken = set(kept.values())
                kept[key] = next(n for n in map(target._data_name, itertools.count(1)) if n not in taken)
            shutil.copyfile(index.parent / name, target._data_path(kept[key]))
            copied += 1
        target._save_index(kept)
    return copied


def _into_user_cache() -> Callable[[Path, Any], Any]:
    """Where a worker's entry goes: the function's file in the user's cache, when its stamp is today's."""
    files: dict[Path, Any] = {}
    for dispatcher in compiled.package_dispatchers():
        cache = dispatcher._cache
        if isinstance(cache, compiled.CompiledCache) and cache.user_file is not None and cache.relative_index:
            files[cache.relative_index] = cache.user_file

    def destination(relative: Path, stamp: Any) -> Any:
        file = files.get(relative)
        return file if file is not None and file._source_stamp == stamp else None

    return destination


def _into_folder(folder: Path) -> Callable[[Path, Any], Any]:
    """Where a worker's entry goes when building the shipped code: the same place under ``folder``."""
    return lambda relative, stamp: compiled.cache_file(folder / relative.parent, relative.name[: -len(".nbi")], stamp)


def nowhere_to_keep() -> str | None:
    """Why compiled code cannot be kept for the next process, or None when it can."""
    from concordia_env.engine.rules.entry_points import step

    cache = step._cache
    if isinstance(cache, compiled.CompiledCache) and cache.user_file is None:
        return compiled.unwritable_places(step.py_func.__code__.co_filename)
    return None


def warm_up(jobs: int = 1, out: Callable[[str], object] = print) -> tuple[float, int]:
    """Compile (or load) every part into the user's cache; returns the seconds and how many functions compiled.

    The first stage (the rules) runs here: every other part calls it. When it compiled nothing
    the cache is warm, and the rest runs here too (loading is quicker than starting processes);
    else each later stage runs in processes (:func:`schedule`), merged into the user's cache
    before the next, and every part then runs here once more, from the cache.
    """
    start = time.perf_counter()
    first, *later = schedule(jobs)
    compiled_count = run_parts([i for group in first for i in group], out)
    rest = sorted(i for stage in later for group in stage for i in group)
    if jobs > 1 and compiled_count:
        with tempfile.TemporaryDirectory(prefix="concordia-warmup-") as tmp:
            for number, groups in enumerate(later, start=1):
                folders = compile_in_workers(groups, Path(tmp), False, out, name=f"stage{number}")
                destination = _into_user_cache()
                for folder in folders:
                    compiled_count += merge(folder, destination)
        out("  the other parts again in this process, from the cache:")
    compiled_count += run_parts(rest, out)
    return time.perf_counter() - start, compiled_count


def _write_manifest(folder: Path) -> None:
    """The manifest of the compiled code in ``folder``: what it was built for, its entries, and every file's stamp.

    The stamps (:func:`~concordia_env.engine.rules.stamps_record`) spare each
    later process the parse of the package's imports.
    """
    manifest = {
        **compiled.build_facts(),
        "entries": sum(1 for _ in folder.rglob("*.nbc")),
        compiled.STAMPS_ENTRY: stamps_record(),
    }
    (folder / compiled.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")


def build_portable(folder: Path, jobs: int, out: Callable[[str], object] = print) -> float:
    """Build the shipped compiled code into ``folder`` (replaced): every part for the generic CPU, and the manifest.

    In fresh processes that read no cache, stage by stage (:func:`schedule`): each stage's
    processes read what the earlier stages compiled as their shipped code, and what they compile
    is merged into it; then every part runs once more from the merged code (anything missing is
    compiled into it).
    """
    start = time.perf_counter()
    folder = folder.resolve()
    with tempfile.TemporaryDirectory(prefix="concordia-portable-") as tmp:
        staging = Path(tmp) / "compiled"
        staging.mkdir()
        for number, groups in enumerate(schedule(max(1, jobs))):
            read = staging if number else None
            for worker in compile_in_workers(groups, Path(tmp), True, out, shipped=read, name=f"stage{number}"):
                merge(worker, _into_folder(staging))
            _write_manifest(staging)
        out("  every part again, from the merged code:")
        check = subprocess.run(
            [sys.executable, "-m", "concordia_env.tools.warmup", "--parts", ",".join(map(str, range(len(PARTS))))],
            env=_worker_env(staging, True, Path(tmp) / "empty-user-cache"),
            capture_output=True,
            text=True,
        )
        if check.returncode != 0:
            raise RuntimeError(f"the check pass failed: {check.stderr.strip()[-2000:]}")
        for line in check.stdout.splitlines():
            out(line)
        _write_manifest(staging)
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(staging, folder)
    return time.perf_counter() - start


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="concordia warmup",
        description="Compile the rules, the agents' strategy core, MCTS, the learned scorer and the batched "
        "environments ahead of time (numba, kept in the user's cache), one process per core. An install "
        "that ships its compiled code has nothing to compile.",
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="processes (default: one per core)")
    parser.add_argument(
        "--portable",
        type=Path,
        metavar="DIR",
        help="build the compiled code a platform wheel ships (generic CPU, with its manifest) into DIR",
    )
    parser.add_argument("--parts", help=argparse.SUPPRESS)  # a worker: run these parts here
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {args.jobs}")
    arguments.refuse_unwritable(parser, "--portable", args.portable, folder=True)  # before minutes of compiling
    if args.parts is not None:
        run_parts([int(k) for k in args.parts.split(",") if k], lambda line: print(line, flush=True))
        return 0
    if args.portable is not None:
        print(f"building the portable compiled code into {args.portable} ({args.jobs} processes):", flush=True)
        seconds = build_portable(args.portable, args.jobs, lambda line: print(line, flush=True))
        print(f"built in {seconds:.0f} s")
        return 0
    why = nowhere_to_keep()
    if why is not None:
        print(
            f"concordia warmup: nowhere to keep compiled code ({why}): set NUMBA_CACHE_DIR to a writable folder",
            file=sys.stderr,
        )
        return 1
    try:  # from the first line on, Ctrl-C is the one line below
        print(f"compiling every part ({args.jobs} processes; a part compiled before only loads):", flush=True)
        seconds, count = warm_up(args.jobs, lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print("concordia warmup: interrupted; what it compiled is kept, run it again to finish", file=sys.stderr)
        return 130
    if count:
        print(f"ready in {seconds:.0f} s ({count} compiled)")
    else:
        print(f"ready in {seconds:.0f} s: nothing to compile, every part loads from the cache")
    return 0


if __name__ == "__main__":
    sys.exit(main())
