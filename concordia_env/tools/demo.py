"""Play one full game between random agents and print it with the final score breakdown.

``concordia demo --map italia --players 2 --seed 0 [--verbose]``
"""

from __future__ import annotations

import argparse

import numpy as np

from concordia_env.engine.cards import GODS
from concordia_env.engine.game import Game
from concordia_env.tools import arguments


def play_random_game(map_name: str, players: int, seed: int, verbose: bool = False) -> Game:
    """A game where every decision is a uniformly random legal action (seeded)."""
    game = Game.new(map_name, players, seed=seed)
    rng = np.random.default_rng(seed)
    while not game.is_over():
        legal = game.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        if verbose:
            print(f"turn {game.turn_count:3d}  player {game.current_player}: {game.describe_action(action)}")
        game.step(action)
    return game


def breakdown_table(game: Game) -> str:
    """The final scores, one row per player, one column per god."""
    columns = [*GODS, *(["special_squares"] if game.map.special_squares else []), "concordia", "total"]
    header = "player  " + "  ".join(f"{c[:9]:>9}" for c in columns)
    rows = [header, "-" * len(header)]
    for p in range(game.num_players):
        parts = game.score_breakdown(p)
        rows.append(f"{p:>6}  " + "  ".join(f"{parts[c]:>9}" for c in columns))
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="concordia demo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    arguments.add_table(parser)
    parser.add_argument("--verbose", action="store_true", help="print every decision")
    args = parser.parse_args(argv)
    try:  # an unknown map or a player count it is not played by
        Game.new(args.map, args.players, args.seed)
    except ValueError as e:
        parser.error(str(e))
    game = play_random_game(args.map, args.players, args.seed, args.verbose)
    print(
        f"{game.map.title}, {game.num_players} players, seed {args.seed}: {game.turn_count} turns, "
        f"{game.decision_count} decisions"
    )
    print(breakdown_table(game))
    print(f"winner: player {game.winner()} (Concordia card: player {game.concordia_holder})")


if __name__ == "__main__":
    main()
