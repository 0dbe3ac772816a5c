"""The table "Engine and environment speed" of docs/benchmarks.md: steps per second beside ``connect_four_v3``.

Plays random legal games through each interface for ``--seconds`` each and prints steps per
second and the ratio to PettingZoo's ``connect_four_v3`` played with the same AEC loop in the
same run (the machine's speed cancels out of the ratio): the bare engine (``Game``) on each
map, the PettingZoo AEC env, Gymnasium's ``SingleAgentEnv``, ``VectorGame`` with and without
observations and on two threads, a ``SubprocVecEnv`` of single envs against ``heuristic``,
and ``ConcordiaVectorEnv`` with the compiled heuristic inside, flat and at the options level.
The same measurement as ``concordia bench throughput`` (``concordia_env.benchmarks.throughput``,
whose docstring says what each line counts), without its JSON file and checks: each line as
it is measured, with its set-up (compiling or loading, warm-up) apart, then the table.

Run it from the checkout (needs the ``bench`` extra for the ``SubprocVecEnv`` line)::

    python benchmarks/engine_speed.py                      # 3 s a line, all four maps: about 2 minutes
    python benchmarks/engine_speed.py --seconds 1 --maps italia --envs 0   # no vector env lines

What it reaches (2 cores, quiet, 2026-12-05): the engine 18-22x ``connect_four_v3``, the AEC
env 3.6-3.8x, ``VectorGame(256)`` with observations 33x, the vector env with the heuristic
inside 17x a ``SubprocVecEnv``, its options level 10,677 learner steps/s (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse

from concordia_env.benchmarks import throughput
from concordia_env.engine.maps import MAP_NAMES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per line (the size of the run)")
    parser.add_argument("--maps", nargs="+", default=list(MAP_NAMES), choices=MAP_NAMES, help="the engine's maps")
    parser.add_argument("--batch", type=int, default=256, help="VectorGame's rows")
    parser.add_argument("--envs", type=int, default=64, help="the vector env's rows (0: skip its lines)")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.batch < 1 or args.envs < 0:
        parser.error("--seconds and --batch must be positive, --envs at least 0")

    def show(result: throughput.Result) -> None:  # each line as it is measured, its set-up apart
        print(throughput.progress_line(result), flush=True)

    print(throughput.PROGRESS_HEADER, flush=True)
    results = throughput.run(args.seconds, args.maps, args.batch, args.envs, report=show)
    print()
    print(throughput.table(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
