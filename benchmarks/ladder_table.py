"""The ladder tables of docs/benchmarks.md ("The ladder", "The 4-player ladder"): every agent against every other.

Plays the round-robin of ``--agents`` (default: the eight reference agents, from ``random``
to the learned search at 1 s a move) at tables of ``--players``: every set of agents a table
holds, in each seat rotation, ``--rounds`` times. Then rates them (OpenSkill, Plackett-Luce,
mu +- 2 sigma), counts wins per seat with 95% intervals and the head-to-head matrix, and prints
both tables as markdown; the games are stored in ``<out>/ladder.db`` (a rerun with the same
arguments resumes them) and the report goes to ``<out>/``. The same run as ``concordia bench
ladder`` (``concordia_env.benchmarks.ladder``).

Run it from the checkout (needs the ``tournament`` extra: ``pip install "concordia-env[tournament]"``)::

    python benchmarks/ladder_table.py --rounds 3 --seed 2026 --workers 2                 # 2p Italia: 27 minutes
    python benchmarks/ladder_table.py --players 4 --map imperium --rounds 1 --seed 2026  # 4p: 1 h 18 min
    python benchmarks/ladder_table.py --agents random heuristic mcts:150 --rounds 10

What it reaches (2026-12-06, the models shipped then): in 2-player Italia the learned search at
1 s a move first (40/42), the search-free ``learned`` third (31/42, ahead of every plain
``mcts``); in 4-player Imperium the search-free ``learned`` first (67/140 against an equal
share of 25%).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=None, help="agent specs (default: the eight)")
    parser.add_argument("--rounds", type=int, default=3, help="times each table is played (the size of the run)")
    parser.add_argument("--map", default="italia")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default="results/ladder_table", help="the games and the report")
    args = parser.parse_args(argv)
    try:
        from concordia_env.benchmarks import ladder
    except ImportError as error:
        sys.exit(f"{parser.prog} needs the tournament extra: pip install 'concordia-env[tournament]' ({error.name})")
    agents = args.agents or list(ladder.REFERENCE_AGENTS)
    out = Path(args.out)
    return ladder.main(
        ["--agents", *agents, "--rounds", str(args.rounds), "--map", args.map, "--players", str(args.players),
         "--seed", str(args.seed), "--workers", str(args.workers), "--db", str(out / "ladder.db"),
         "--out", str(out), "--quiet"]
    )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
