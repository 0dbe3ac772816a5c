"""Render a position reached by seeded demo play: the text board, and a PNG if asked.

``python -m concordia_env.views.render --map imperium --players 4 --seed 0 --decisions 400 --png board.png``

The demo play is random, except that it builds a house whenever one is legal, so that a
mid-game position shows a populated board. It exists to look at the renderings (the
pictures in ``docs/images`` were made with it), not to play well.
"""

from __future__ import annotations

import argparse

import numpy as np

from concordia_env.engine import actions as A
from concordia_env.engine import defaults
from concordia_env.engine.game import Game

from .board_picture import DEFAULT_WIDTH, save_png
from .text import render_text


def demo_position(map_name: str, players: int, seed: int, decisions: int) -> Game:
    """The position after ``decisions`` decisions of seeded demo play (or the end, if sooner)."""
    game = Game.new(map_name, players, seed=seed)
    rng = np.random.default_rng(seed)
    while game.decision_count < decisions and not game.is_over():
        legal = game.legal_actions()
        builds = legal[[A.range_of(int(a)) == A.RANGE_BUILD for a in legal]]
        choices = builds if len(builds) else legal
        game.step(int(choices[rng.integers(len(choices))]))
    return game


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m concordia_env.views.render", description=__doc__.split("\n\n")[0])
    # the shared defaults (tools.arguments.add_table's, which this layer below the tools cannot import)
    parser.add_argument("--map", default=defaults.MAP, help=f"the map (default {defaults.MAP})")
    parser.add_argument("--players", type=int, default=defaults.NUM_PLAYERS, help="players at the table")
    parser.add_argument("--seed", type=int, default=defaults.COMMAND_SEED, help="the setup and demo-play seed")
    parser.add_argument("--decisions", type=int, default=0, help="decisions of demo play before rendering")
    parser.add_argument("--png", help="also write the board picture to this file")
    parser.add_argument("--width", type=int, default=DEFAULT_WIDTH, help="picture width in pixels")
    parser.add_argument("--color", action="store_true", help="ANSI colours in the text board")
    args = parser.parse_args(argv)
    try:  # a map, player count or seed the rules do not take: one line
        game = demo_position(args.map, args.players, args.seed, args.decisions)
    except ValueError as err:
        parser.error(str(err))
    print(render_text(game, color=args.color), end="")
    if args.png:
        save_png(game, args.png, width=args.width)
        print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
