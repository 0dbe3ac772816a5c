"""The table "The options level of the vector env" of docs/benchmarks.md: learner steps at the options level and flat.

Measures ``ConcordiaVectorEnv(--envs, opponents="heuristic")`` of 2-player Italia at the flat
level (a random legal action per row) and at the options level (a random kept option per
row: every row's turn options computed at every learner step), the two in turn and pooled
(``--rounds`` slices each, ``concordia_env.benchmarks.throughput.measure_interleaved``), once
for each of ``--threads``. For each thread count it prints learner steps per second of wall
clock and per CPU second of this process (the line a busy machine moves least), with the
options level's ratio to the flat. The same runners as the vector-env lines of ``concordia
bench throughput`` (``throughput.vector_env_runner``), whose 2-thread pair is this script's
``--threads 2 --seconds 6``.

Run it from the checkout::

    python benchmarks/options_level_speed.py                        # 8 s a level on 2, then 1 thread
    python benchmarks/options_level_speed.py --threads 1 --seconds 15 --rounds 5   # the CPU-time line

What it reaches (2 cores, docs/benchmarks.md): on one thread the options level makes about a
quarter of the flat vector env's learner steps (6,085 against 24,985 per CPU second,
2026-12-04); on two threads of a quiet machine 10,677 learner steps/s (2026-12-05; target
>= 5,000).
"""

from __future__ import annotations

import argparse
from functools import partial

from concordia_env.benchmarks import throughput

#: the vector env's two levels, in the table's column order
LEVELS = ("flat", "options")


def measure(envs: int, threads: int, seconds: float, rounds: int) -> list[throughput.Result]:
    """Both levels on ``threads`` threads, measured in turn for ``seconds`` each: the flat result, then the options."""
    lines = [
        (level, partial(throughput.vector_env_runner, envs, threads=threads, level=level), threads) for level in LEVELS
    ]
    return throughput.measure_interleaved(lines, seconds, rounds)


def rows(threads: int, flat: throughput.Result, options: throughput.Result) -> list[str]:
    """The table's two rows of one thread count: wall clock and CPU time, each level's steps and the ratio."""
    label = f"{threads} thread{'s' if threads > 1 else ''}"
    per_wall = (flat.steps / flat.seconds, options.steps / options.seconds)
    per_cpu = (flat.steps / flat.cpu_seconds, options.steps / options.cpu_seconds)
    return [
        f"| {label}, {kind} | {a:,.0f} | {b:,.0f} | {b / a:.2f} |"
        for kind, (a, b) in (("wall clock", per_wall), ("steps per **CPU** second", per_cpu))
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per level (the size of the run)")
    parser.add_argument("--rounds", type=int, default=throughput.ROUNDS, help="slices each level is measured in")
    parser.add_argument("--threads", type=int, nargs="+", default=[throughput.THREADS, 1], help="thread counts")
    parser.add_argument("--envs", type=int, default=64, help="the vector env's rows")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.rounds < 1 or args.envs < 1 or min(args.threads) < 1:
        parser.error("--seconds must be positive, --rounds, --envs and every --threads at least 1")
    print(f"| measurement (2-player Italia, {args.envs} rows, compiled `heuristic` inside) | flat | options "
          "| options ÷ flat |")  # fmt: skip
    print("| --- | ---: | ---: | ---: |")
    for threads in args.threads:
        flat, options = measure(args.envs, threads, args.seconds, args.rounds)
        print("\n".join(rows(threads, flat, options)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
