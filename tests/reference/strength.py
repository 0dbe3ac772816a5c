"""The compiled heuristic against the Python heuristic it replaced, through the tournament.

::

    python -m tests.reference.strength [--workers 1] [--seed 1919] [--db results/heuristic_old_vs_new.db]

The Python original is kept as the readable reference in ``tests/reference/heuristic.py``;
this script registers it as the agent ``heuristic-old`` and plays, with fresh seeds and the
seats rotated (:mod:`concordia_env.tools.tournament`):

* 400 games of 2-player Italia, ``heuristic`` against ``heuristic-old``;
* 200 games of 4-player Imperium, one ``heuristic-old`` against three ``heuristic``, and
  200 games of the reverse;
* 200 games of 4-player Imperium, ``heuristic`` against three ``random`` (the strength bar:
  at least 90%).

It prints each agent's win rate per seat played with its 95% Wilson interval. Equal
strength is 50% in the duel and 25% for the single agent of the 4-player games.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from concordia_env import agents
from concordia_env.tools.tournament import TournamentConfig, run_tournament

OLD = "heuristic-old"
MATCHES = (
    ("2p Italia, new vs old", ("heuristic", OLD), "italia", 2, 400),
    ("4p Imperium, one old vs three new", (OLD, "heuristic", "heuristic", "heuristic"), "imperium", 4, 200),
    ("4p Imperium, one new vs three old", ("heuristic", OLD, OLD, OLD), "imperium", 4, 200),
    ("4p Imperium, heuristic vs 3 random", ("heuristic", "random", "random", "random"), "imperium", 4, 200),
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1919, help="tournament seed (fresh seeds: not used before)")
    parser.add_argument("--db", default="results/heuristic_old_vs_new.db")
    parser.add_argument("--only", nargs="*", type=int, help="indices of the matches to play (default: all)")
    args = parser.parse_args(argv)
    agents.register(OLD, "tests.reference.heuristic:HeuristicAgent")
    for index, (title, entries, map_name, players, games) in enumerate(MATCHES):
        if args.only and index not in args.only:
            continue
        config = TournamentConfig(agents=entries, map=map_name, players=players, games=games, seed=args.seed)
        result = run_tournament(config, db=args.db, workers=args.workers, progress=False, keep_actions=False)
        print(f"## {title} ({len(result.records)} games, seed {args.seed})", flush=True)
        for stats in result.summary["agents"]:
            low, high = stats["win_ci95"]
            print(
                f"  {stats['agent']:14s} wins {stats['wins']:4d}/{stats['seats']:4d} seats = {stats['win_rate']:6.1%}"
                f"  (95% {low:6.1%} - {high:6.1%})  mean VP {stats['vp']['mean']:6.1f}"
                f"  {stats['ms_per_decision']:.2f} ms/decision",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
