"""``concordia bench compiled_code``: the shipped (generic-CPU) compiled code against a native compile, in one run.

::

    concordia bench compiled_code                  # 5 rounds of 200,000 engine decisions and 20,000 heuristic ones
    concordia bench compiled_code --rounds 9 --json compiled.json

A platform wheel ships the package compiled for the generic CPU of its architecture
(:mod:`concordia_env.engine.rules.compiled_cache`), which runs on every machine of it but may
lose instructions a native compile would use. This measures what that costs: the same fixed
work in fresh processes, alternately with the shipped code (an empty user cache) and with a
native compile of the same sources (compiled first, untimed, into a cache of its own), each
process timing itself in CPU time after one untimed chunk. The work: the bare engine's
decisions (``legal_actions()`` + ``step()``, random draws batched:
:func:`~concordia_env.benchmarks.throughput.engine_chunk`, the one denominator of the engine's
cost) and the heuristic's decisions in self-play. Reported per line: decisions per CPU second
of each, their ratio per round, and the median ratio (the target: at least 0.85).

It needs the shipped code, matching this numba, Python and architecture: a checkout has it
after a wheel build (``make test``, ``pip wheel .``); elsewhere it says so and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from concordia_env.engine.rules import compiled_cache as compiled
from concordia_env.tools import arguments

#: the least ratio of the shipped code's decisions/s to a native compile's that counts as no slower
TARGET = 0.85
#: one process's work: (line, the code it times), the result printed as JSON
WORK = """
import json, time
import numpy as np
from concordia_env.benchmarks.throughput import engine_chunk
from concordia_env import agents, Game
chunk = engine_chunk("italia", 2, seed=1)
chunk()
start, decisions = time.process_time(), 0
while decisions < {engine}:
    decisions += chunk()[0]
engine = (decisions, time.process_time() - start)
seats = [agents.from_spec("heuristic:seed=1"), agents.from_spec("heuristic:seed=2")]
game, seed, decisions = Game.new("italia", 2, seed=1), 1, 0
for seat in seats:
    seat.reset(seed)
game.step(seats[game.current_player].act(game))
start = time.process_time()
while decisions < {heuristic}:
    if game.is_over():
        seed += 1
        game = Game.new("italia", 2, seed=seed)
    game.step(seats[game.current_player].act(game))
    decisions += 1
heuristic = (decisions, time.process_time() - start)
print(json.dumps({{"engine": engine, "heuristic": heuristic}}))
"""


def _process(code: str, native_cache: Path | None) -> dict[str, tuple[int, float]]:
    """Run ``code`` in a fresh process: the shipped code (``native_cache`` None) or the native compile kept there."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "CONCORDIA_"))}
    env["CONCORDIA_COMPILE_NOTICE"] = "0"
    with tempfile.TemporaryDirectory(prefix="concordia-empty-cache-") as empty:
        env["NUMBA_CACHE_DIR"] = str(native_cache or empty)
        if native_cache is not None:
            env[compiled.SHIPPED_ENV] = "0"
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "the process failed")
    return {name: (int(n), float(s)) for name, (n, s) in json.loads(done.stdout.splitlines()[-1]).items()}


def measure(rounds: int, engine: int, heuristic: int, out=print) -> dict[str, list[dict[str, float]]]:
    """``rounds`` alternating pairs of processes; per line, each round's decisions/s of both and their ratio."""
    code = WORK.format(engine=engine, heuristic=heuristic)
    results: dict[str, list[dict[str, float]]] = {"engine": [], "heuristic": []}
    with tempfile.TemporaryDirectory(prefix="concordia-native-cache-") as native:
        out("compiling natively (untimed)...")
        _process(WORK.format(engine=64, heuristic=10), Path(native))
        for k in range(rounds):
            if k % 2:  # alternate which goes first
                native_run = _process(code, Path(native))
                shipped = _process(code, None)
            else:
                shipped = _process(code, None)
                native_run = _process(code, Path(native))
            for line in results:
                s, n = shipped[line][0] / shipped[line][1], native_run[line][0] / native_run[line][1]
                results[line].append({"shipped": s, "native": n, "ratio": s / n})
                out(f"  round {k + 1}, {line}: shipped {s:,.0f}/s, native {n:,.0f}/s, ratio {s / n:.3f}")
    return results


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="concordia bench compiled_code",
        description="The shipped (generic-CPU) compiled code's speed against a native compile's, in CPU time.",
    )
    count = arguments.integer_in(1)
    parser.add_argument("--rounds", type=count, default=5, help="pairs of processes (default 5)")
    parser.add_argument("--engine", type=count, default=200_000, help="engine decisions per process (default 200,000)")
    parser.add_argument("--heuristic", type=count, default=20_000, help="heuristic decisions per process (20,000)")
    parser.add_argument("--json", type=Path, metavar="PATH", help="also write the rounds as JSON")
    args = parser.parse_args(argv)
    arguments.refuse_unwritable(parser, "--json", args.json)
    if compiled.SHIPPED.folder is None:
        print(
            f"concordia bench compiled_code: no shipped code to measure ({compiled.SHIPPED.why_not})", file=sys.stderr
        )
        return 1
    results = measure(args.rounds, args.engine, args.heuristic)
    for line, rounds in results.items():
        median = statistics.median(r["ratio"] for r in rounds)
        verdict = "✓" if median >= TARGET else "MISS"
        print(f"{line}: shipped / native decisions per CPU second, median of {len(rounds)}: {median:.3f} "
              f"(target ≥ {TARGET}) {verdict}")  # fmt: skip
    if args.json is not None:
        args.json.write_text(json.dumps({"facts": compiled.build_facts(), "rounds": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
