"""The table "The OpenSpiel bridge" of docs/benchmarks.md: OpenSpiel's MCTS and the project's against the heuristic.

Each contender plays ``--games`` games of 2-player Italia against ``heuristic`` through the
OpenSpiel bridge and OpenSpiel's ``evaluate_bots``, seats rotated, fresh seeds, with
``--time-per-move`` seconds of wall time per decision: OpenSpiel's ``MCTSBot`` with random
rollouts, the same with the bridge's standing evaluator, and the project's ``mcts``. Before
them it measures what the bridge costs against ``Game`` (random games through each, and
``clone``). Prints the markdown table. The same run as ``concordia bench openspiel_mcts``
(``concordia_env.benchmarks.openspiel_mcts``), without its JSON file.

Run it from the checkout (needs the ``openspiel`` extra: ``pip install "concordia-env[openspiel]"``)::

    python benchmarks/openspiel_bridge.py                   # 100 games each at 0.1 s a move: hours
    python benchmarks/openspiel_bridge.py --games 10 --only mcts

What it reaches (2026-12-02): OpenSpiel's MCTS 0/100 with either evaluator (a handful of
simulations a decision), the project's ``mcts`` 52/100; a random game 4.1x slower per decision
through the bridge than through ``Game``, ``clone`` 14x.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per contender (the size of the run)")
    parser.add_argument("--time-per-move", type=float, default=0.1, help="seconds per decision")
    parser.add_argument("--only", nargs="+", help="contenders (default: all three)")
    parser.add_argument("--overhead-games", type=int, default=20, help="random games for the bridge's cost (0: skip)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        from concordia_env.benchmarks import openspiel_mcts as bench
    except ImportError as error:
        sys.exit(f"{parser.prog} needs the openspiel extra: pip install 'concordia-env[openspiel]' ({error.name})")
    names = tuple(args.only or bench.CONTENDERS)
    if not set(names) <= set(bench.CONTENDERS):
        parser.error(f"--only takes {', '.join(bench.CONTENDERS)}, got {', '.join(names)}")
    if args.games < 1 or args.time_per_move <= 0 or args.overhead_games < 0:
        parser.error("--games and --time-per-move must be positive, --overhead-games at least 0")
    overhead = bench.bridge_overhead("italia", 2, args.overhead_games, args.seed) if args.overhead_games else None
    tallies = bench.run_matches(names, args.games, args.time_per_move, "italia", 2, args.seed, print)
    shown = argparse.Namespace(map="italia", players=2, time_per_move=args.time_per_move)
    print(bench.report([tallies[name].summary() for name in names], overhead, shown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
