"""The turn options at fixed work: every decision with a choice of games between default ``learned`` agents.

Plays ``--games`` games of 2-player Italia between default ``learned`` agents (seeds 0, 1,
...), keeps every position with more than one legal action, determinized as the agent does,
then computes the turn options of all of them (:func:`concordia_env.strategy.turn_options`)
``--passes`` times and prints the CPU time of the fastest pass per decision, for all
decisions and for the Architect's move decisions alone. ``--features`` also counts the
options a decision has and how many of them have the same learned features
(:func:`concordia_env.strategy.afterstate_features`) as an earlier option of the decision:
the learned scorer computes their score once. The work is the same whatever the
code's speed (the options are bit-identical, ``tests/strategy/test_recorded_options.py``),
so two checkouts compare by their CPU times: run it from each with ``PYTHONPATH`` set to it.

    python benchmarks/turn_options_speed.py                 # 10 games, 3 passes
    python benchmarks/turn_options_speed.py --games 4 --passes 5
    python benchmarks/turn_options_speed.py --games 4 --passes 5 --features

What it reaches is in docs/benchmarks.md ("Cheaper turn options").
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from concordia_env import Game, agents, strategy
from concordia_env.engine.state import CURRENT_PLAYER, PHASE, PHASE_ARCHITECT_MOVE


def positions(games: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(determinized state, map tables) of every decision with a choice of ``games`` games between ``learned``."""
    found = []
    for seed in range(games):
        game = Game.new("italia", 2, seed=seed)
        seats = [agents.make("learned", seed=10 * seed + p) for p in range(2)]
        rng = strategy.new_rng(seed)
        while not game.is_over():
            if len(game.legal_actions()) > 1:
                found.append((strategy.determinized(game.state, rng), game.map.tables))
            game.step(seats[game.current_player].act(game))
    return found


def pass_seconds(found: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """CPU seconds of the turn options of every position in ``found``, once."""
    start = time.process_time()
    for state, tables in found:
        strategy.turn_options(state, tables)
    return time.process_time() - start


def features_line(found: list[tuple[np.ndarray, np.ndarray]]) -> str:
    """The ``--features`` line: options a decision, and the share with the features of an earlier option."""
    options = repeated = 0
    for state, tables in found:
        opts = strategy.turn_options(state, tables)
        player, remaining = int(state[CURRENT_PLAYER]), strategy.remaining_fraction(state, tables)
        features = strategy.afterstate_features(opts.afterstates, tables, opts.values, player, remaining)
        options += len(features)
        repeated += len(features) - len(np.unique(features, axis=0))
    return (
        f"options: {options / len(found):.1f} a decision, {100 * repeated / max(options, 1):.0f}% of them "
        "with the features of an earlier option"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10, help="games whose decisions are measured")
    parser.add_argument("--passes", type=int, default=3, help="passes over the decisions (the fastest counts)")
    parser.add_argument("--features", action="store_true", help="also count the options with repeated features")
    args = parser.parse_args(argv)
    found = positions(args.games)
    architect = [(s, m) for s, m in found if int(s[PHASE]) == PHASE_ARCHITECT_MOVE]
    pass_seconds(found[:50])  # compiled code loaded before the clock
    every = min(pass_seconds(found) for _ in range(args.passes))
    moves = min(pass_seconds(architect) for _ in range(args.passes))
    print(f"decisions {len(found)}: {1e6 * every / len(found):.1f} us a decision (fastest of {args.passes} passes)")
    print(f"Architect moves {len(architect)}: {1e6 * moves / max(len(architect), 1):.1f} us a decision")
    if args.features:
        print(features_line(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
