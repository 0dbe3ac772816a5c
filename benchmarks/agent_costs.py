"""The table "Agent costs on the bare engine" of docs/benchmarks.md: what each agent costs per decision.

Times each agent's decisions in games where it plays every seat, and the bare engine's
(``legal_actions`` and ``step`` with random choices drawn in batches) before and after them,
and prints microseconds per decision and the multiple of the engine's cost; for ``learned``
also the floor of its turn options alone. The same measurement as ``concordia bench
agent_speed`` (``concordia_env.benchmarks.agent_speed``).

Run it from the checkout::

    python benchmarks/agent_costs.py                        # 5 s per agent, 2-player Italia
    python benchmarks/agent_costs.py --agents heuristic mcts:150 --seconds 2

What it reaches (2 cores, 2026-12-05, docs/agents.md): ``heuristic`` about 11x the bare
engine's ~3.7 us per decision, ``learned`` 46-49x, ``mcts`` about 35x per simulation.
"""

from __future__ import annotations

import argparse

from concordia_env.benchmarks import agent_speed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=list(agent_speed.DEFAULT_AGENTS), help="agent specs")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per agent (the size of the run)")
    parser.add_argument("--map", default="italia")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error(f"--seconds must be positive, got {args.seconds}")
    results = agent_speed.run(args.agents, args.map, args.players, args.seconds, progress=False)
    print(agent_speed.table(results, args.map, args.players))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
