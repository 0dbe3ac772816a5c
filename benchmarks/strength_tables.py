"""The win-rate tables of docs/benchmarks.md that ``concordia evaluate`` measures: one agent against another.

Each table is a list of matches (an agent spec against an opponent spec on a map and table
size, a number of games and a seed); every match is played with ``concordia_env.evaluate``
(each seat equally often, game ``i`` seeded as in every tournament) and printed as a markdown
row: wins, the win rate with its 95% Wilson interval and the Elo difference it implies.

``--table``:

* ``strength``: "Agents' strength" (the bars of ``concordia bench strength_bars``): the
  heuristic against three ``random`` in 4-player Imperium, ``mcts`` at 1 s a move, 30 and 150
  simulations against the heuristic in 2-player Italia;
* ``search-settings``: "The learned search's settings": the learned search at 150 simulations
  with each rollout and prior weight against ``mcts:150`` (seed 8801), with the model of the
  table (``expert_italia2c``), then its last row with the model taught by that search
  (``expert_italia2d``);
* ``model``: "The 2-player model expert_italia2l": the shipped 2-player model against the
  heuristic, ``mcts:150`` and ``mcts:1000``, and both searching 0.25 s a move against the
  ``expert_italia2d`` model;
* ``curve``: the learned search's curve against ``mcts`` at 1 s a move, under "The 2-player
  model expert_italia2l": its search at 0.05, 0.25 and 1 s a move (40 games each, seed 700).

The models other than the shipped one are read from docs/reports/: run it from the checkout.

Run it from the checkout::

    python benchmarks/strength_tables.py --table strength --workers 2   # the games of the doc: hours
    python benchmarks/strength_tables.py --table model --games 40       # every match 40 games
    python benchmarks/strength_tables.py --table strength --rows 1 3    # the first and third match

What it reaches (docs/benchmarks.md, each row dated there): the heuristic 200/200 against
three ``random``; ``mcts:150`` 94/100 and ``mcts:30`` 90/100 against the heuristic; the learned
search 82.0% against ``mcts:150`` without rollout and with 10 prior visits; the shipped
``learned`` 82.5% against ``mcts:150`` and 61.0% at 0.25 s a move against ``expert_italia2d``;
its search 60.0%, 70.0% and 72.5% against ``mcts`` at 1 s a move with 0.05, 0.25 and 1 s a move.
"""

from __future__ import annotations

import argparse
import os
from typing import NamedTuple

from concordia_env import evaluate


class Match(NamedTuple):
    """One row: ``agent`` against ``opponent`` in every other seat."""

    agent: str
    opponent: str
    map: str = "italia"
    players: int = 2
    games: int = 200
    seed: int = 0


#: a model of docs/reports/ as a ``learned`` spec (its options follow, comma first)
_REPORT_MODEL = "learned:path=docs/reports/{}/model.npz"
_SEARCH = _REPORT_MODEL.format("expert_italia2c") + ",simulations=150,rollout={},prior_visits={}"
_2D = _REPORT_MODEL.format("expert_italia2d") + ",time_per_move=0.25"
_MCTS_1S = "mcts:time_per_move=1.0"
TABLES: dict[str, list[Match]] = {
    "strength": [
        Match("heuristic", "random", map="imperium", players=4, games=200),
        Match(_MCTS_1S, "heuristic", games=40),
        Match("mcts:30", "heuristic", games=100),
        Match("mcts:150", "heuristic", games=100),
    ],
    "search-settings": [
        *(Match(_SEARCH.format("heuristic", p), "mcts:150", seed=8801) for p in (1, 3, 10, 30, 100)),
        *(Match(_SEARCH.format("none", p), "mcts:150", seed=8801) for p in (1, 10)),
        Match("mcts:simulations=150,prior_visits=10", "mcts:150", seed=8801),
        Match(_REPORT_MODEL.format("expert_italia2d") + ",simulations=150", "mcts:150", seed=8801),
    ],
    "model": [
        Match("learned", "heuristic", games=400),
        Match("learned", "mcts:150"),
        Match("learned", "mcts:1000"),
        Match("learned:time_per_move=0.25", _2D),
    ],
    "curve": [Match(f"learned:time_per_move={t}", _MCTS_1S, games=40, seed=700) for t in (0.05, 0.25, 1.0)],
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", choices=sorted(TABLES), default="strength")
    parser.add_argument("--rows", type=int, nargs="+", help="the matches to play, counted from 1 (default: all)")
    parser.add_argument("--games", type=int, help="games of every match (the size of the run; default: the doc's)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    table = TABLES[args.table]
    rows = args.rows or list(range(1, len(table) + 1))
    if not all(1 <= r <= len(table) for r in rows):
        parser.error(f"--rows of the {args.table} table are 1..{len(table)}, got {rows}")
    if args.games is not None and args.games < 1:
        parser.error(f"--games must be at least 1, got {args.games}")
    print("| match | map, players | wins | 95% interval | Elo |")
    print("| --- | --- | --- | --- | --- |")
    for r in rows:
        match = table[r - 1]
        games = match.games if args.games is None else args.games
        result = evaluate(match.agent, match.opponent, games, map=match.map, num_players=match.players,
                          seed=match.seed, workers=args.workers)[match.opponent]  # fmt: skip
        print(f"| `{match.agent}` vs `{match.opponent}` | {match.map} {match.players}p "
              f"| {result.wins}/{result.games} = {result.win_rate:.1%} | {result.ci_low:.1%} – {result.ci_high:.1%} "
              f"| {result.elo_summary(match.players)} |", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
