"""The strength bars of the agents, measured through the tournament.

::

    concordia bench strength_bars [--only KEY ...] [--games-heuristic 200] [--games-mcts 40]
    concordia bench strength_bars --only learned-heuristic learned-random --learned-spec learned:runs/…/model.npz

1. ``heuristic`` — **heuristic vs 3 × random**, 4-player Imperium: ``heuristic`` must win at
   least 90% of the games (it sits in every seat equally often).
2. ``mcts`` — **mcts vs heuristic**, 2-player Italia, MCTS at a budget of at most 1 s per move
   (``mcts:time_per_move=1.0`` by default; ``--mcts-spec`` to change): ``mcts`` must win
   at least 60% of the games, and its measured thinking time must stay within the budget.

The trained agent (``learned``, the model shipped in the package; ``--learned-spec`` for
another), the targets of the learning issue (``docs/training.md``):

3. ``learned-random`` — vs ``random``, 2-player Italia, 200 games: at least 95%;
4. ``learned-heuristic`` — vs ``heuristic``, 2-player Italia, 400 games: at least 80%;
5. ``learned-mcts`` — vs ``mcts`` at 1 s per move, 2-player Italia, 100 games: at least 50%;
   ``learned-mcts150`` — vs ``mcts:150``, the fixed budget equal to the 1 s per move of the
   MCTS before the compiled core (118–156 simulations, docs/benchmarks.md), 200 games: at
   least 50%;
6. ``learned-imperium3``, ``learned-imperium``, ``learned-imperium5`` — vs (n − 1) ×
   ``heuristic`` in n-player Imperium (the shipped model of that player count), 200 games
   each: at least 80%, 75% and 65% (the targets of the models taught by search; 1/n is equal
   strength);
7. ``learned-aegyptus``, ``learned-creta`` (2 players) and ``learned-aegyptus4``,
   ``learned-creta4`` (4 players) — the shipped models on the maps they were not trained on,
   vs heuristics, 200 games each: better than equal strength (1/n).

Every bar is a tournament, played by the project's one evaluation loop
(:mod:`concordia_env.tools.tournament`, as the training evaluations are): every game has fresh
seeds (the tournament's seed sequence), the agents rotate through the seats, and every game
is stored (``--db``), so any of them is replayed by its id (``concordia replay``).

A bar passes on the measured win rate; the 95% Wilson interval is printed beside it so a
pass on few games can be judged. The games are stored (``--db``), so an interrupted run
resumes, and a later run with more games adds to the earlier ones. Exit status 0 when every
bar measured passes.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from concordia_env.tools import arguments, tournament
from concordia_env.tools.progress import show_progress
from concordia_env.tools.tournament import TournamentConfig, refuse_unplayable, run_for_command

DEFAULT_DB = "results/strength_bars.db"
DEFAULT_OUT = "results/strength_bars"
HEURISTIC_MIN_WIN_RATE = 0.90
MCTS_MIN_WIN_RATE = 0.60
#: the learning issue's targets for the trained agent
LEARNED_MIN_VS_RANDOM = 0.95
LEARNED_MIN_VS_HEURISTIC = 0.80
LEARNED_MIN_VS_MCTS = 0.50
#: vs (n - 1) heuristics in n-player Imperium, by n
LEARNED_MIN_IMPERIUM = {3: 0.80, 4: 0.75, 5: 0.65}
#: the maps no shipped model was trained on, and the player counts their bars use
OTHER_MAPS = {"aegyptus": (2, 4), "creta": (2, 4)}
DEFAULT_LEARNED_SPEC = "learned"


def imperium_key(players: int) -> str:
    """The bar of the ``players``-player Imperium model (``learned-imperium`` is the 4-player one)."""
    return "learned-imperium" if players == 4 else f"learned-imperium{players}"


def other_map_key(map: str, players: int) -> str:
    """The bar of ``map`` at ``players`` (``learned-creta`` is 2 players, ``learned-creta4`` 4)."""
    return f"learned-{map}" if players == 2 else f"learned-{map}{players}"


#: games of the learned agent's bars (``--games-learned`` scales them all)
LEARNED_GAMES = {
    "learned-random": 200,
    "learned-heuristic": 400,
    "learned-mcts": 100,
    "learned-mcts150": 200,
    **{imperium_key(n): 200 for n in LEARNED_MIN_IMPERIUM},
    **{other_map_key(map, n): 200 for map, counts in OTHER_MAPS.items() for n in counts},
}
#: the MCTS budget: seconds of thinking per move
MCTS_SECONDS_PER_MOVE = 1.0
DEFAULT_MCTS_SPEC = f"mcts:time_per_move={MCTS_SECONDS_PER_MOVE}"
#: the fixed-budget yardstick: the simulations the MCTS before the compiled core ran in 1 s per move
YARDSTICK_MCTS_SPEC = "mcts:150"


@dataclass(frozen=True)
class Bar:
    """One measurement: whose win rate, in which tournament, must reach what."""

    key: str
    title: str
    config: TournamentConfig
    agent: str
    min_win_rate: float
    #: a cap on the agent's mean thinking time per decision, in milliseconds
    max_ms_per_decision: float | None = None


def strength_bars(
    games_heuristic: int,
    games_mcts: int,
    mcts_spec: str,
    seed: int,
    learned_spec: str = DEFAULT_LEARNED_SPEC,
    learned_games: dict[str, int] | None = None,
) -> list[Bar]:
    learned_games = {**LEARNED_GAMES, **(learned_games or {})}

    def duel(key: str, opponent: str, title: str, min_rate: float, map: str = "italia", players: int = 2) -> Bar:
        return Bar(
            key=key,
            title=f"{learned_spec} {title}",
            config=tournament.duel(
                learned_spec, opponent, map=map, players=players, games=learned_games[key], seed=seed
            ),
            agent=learned_spec,
            min_win_rate=min_rate,
        )

    return [
        Bar(
            key="heuristic",
            title="heuristic vs 3 × random, Imperium 4 players",
            config=TournamentConfig(
                agents=("heuristic", "random", "random", "random"),
                map="imperium",
                players=4,
                games=games_heuristic,
                seed=seed,
            ),
            agent="heuristic",
            min_win_rate=HEURISTIC_MIN_WIN_RATE,
        ),
        Bar(
            key="mcts",
            title=f"{mcts_spec} vs heuristic, Italia 2 players",
            config=TournamentConfig(
                agents=(mcts_spec, "heuristic"), map="italia", players=2, games=games_mcts, seed=seed
            ),
            agent=mcts_spec,
            min_win_rate=MCTS_MIN_WIN_RATE,
            max_ms_per_decision=1000 * MCTS_SECONDS_PER_MOVE,
        ),
        duel("learned-random", "random", "vs random, Italia 2 players", LEARNED_MIN_VS_RANDOM),
        duel("learned-heuristic", "heuristic", "vs heuristic, Italia 2 players", LEARNED_MIN_VS_HEURISTIC),
        duel("learned-mcts", mcts_spec, f"vs {mcts_spec}, Italia 2 players", LEARNED_MIN_VS_MCTS),
        duel(
            "learned-mcts150",
            YARDSTICK_MCTS_SPEC,
            f"vs {YARDSTICK_MCTS_SPEC}, Italia 2 players",
            LEARNED_MIN_VS_MCTS,
        ),
        *(
            duel(
                imperium_key(n),
                "heuristic",
                f"vs {n - 1} × heuristic, Imperium {n} players",
                rate,
                map="imperium",
                players=n,
            )
            for n, rate in LEARNED_MIN_IMPERIUM.items()
        ),
        *(
            duel(
                other_map_key(map, n),
                "heuristic",
                f"vs {n - 1} × heuristic, {map.capitalize()} {n} players",
                1 / n,
                map=map,
                players=n,
            )
            for map, counts in OTHER_MAPS.items()
            for n in counts
        ),
    ]


def judge(bar: Bar, summary: dict[str, Any]) -> tuple[bool, str]:
    """Pass/fail of one bar and the line that says why."""
    stats = next(a for a in summary["agents"] if a["agent"] == bar.agent)
    low, high = stats["win_ci95"]
    passed = stats["win_rate"] >= bar.min_win_rate
    line = (
        f"{bar.agent} wins {stats['wins']}/{stats['seats']} = {stats['win_rate']:.1%} "
        f"[95% CI {low:.1%}, {high:.1%}] (needs >= {bar.min_win_rate:.0%})"
    )
    if bar.max_ms_per_decision is not None:
        within = stats["ms_per_decision"] <= bar.max_ms_per_decision
        passed = passed and within
        line += (
            f"; thinks {stats['ms_per_decision']:.0f} ms per decision on average "
            f"({'within' if within else 'OVER'} the {bar.max_ms_per_decision:.0f} ms budget)"
        )
    return passed, line


def main(argv: Sequence[str] | None = None) -> int:
    """Every bar asked for, each a stored tournament; exit status 0 if all pass.

    Bad input (a count, a spec, a map the rules refuse, an ``--out`` that cannot be written)
    is one usage line before any game; a results file that is not one, an interrupt or a
    dead worker is one line too, the finished games kept for the same command to resume.
    """
    from concordia_env.tools.report import print_summary, report_console, write_reports

    parser = argparse.ArgumentParser(prog="concordia bench strength_bars", description=__doc__.split("\n\n")[0])
    keys = ("heuristic", "mcts", *LEARNED_GAMES)
    parser.add_argument("--only", nargs="+", choices=keys, default=None, metavar="KEY", help=f"bars to measure: {keys}")
    parser.add_argument("--games-heuristic", type=arguments.count, default=200, help="games of bar 1 (a multiple of 4)")
    parser.add_argument(
        "--games-mcts", type=arguments.count, default=40, help="games of bar 2 (even: both seats equally)"
    )
    parser.add_argument("--mcts-spec", default=DEFAULT_MCTS_SPEC, help="the MCTS agent at <= 1 s per move")
    parser.add_argument("--learned-spec", default=DEFAULT_LEARNED_SPEC, help="the trained agent (default: shipped)")
    parser.add_argument(
        "--games-learned",
        type=arguments.positive_number,
        default=1.0,
        help="multiply the learned bars' games (e.g. 0.25 for a quick look)",
    )
    parser.add_argument("--seed", type=arguments.seed, default=0)
    parser.add_argument("--workers", type=arguments.count, default=os.cpu_count() or 1)
    parser.add_argument("--db", default=DEFAULT_DB)
    parser.add_argument("--out", default=DEFAULT_OUT, help="a report folder per bar goes under this one")
    parser.add_argument(
        "--reset",
        action="store_true",
        help="start a new results file: an existing --db is renamed to <db>.old-<time>, not deleted "
        "(as `concordia tournament --reset`)",
    )
    args = parser.parse_args(argv)

    scaled = {key: max(4, round(games * args.games_learned / 4) * 4) for key, games in LEARNED_GAMES.items()}
    bars = strength_bars(args.games_heuristic, args.games_mcts, args.mcts_spec, args.seed, args.learned_spec, scaled)
    bars = [bar for bar in bars if args.only is None or bar.key in args.only]
    for bar in bars:  # before the first game, not when its bar comes
        refuse_unplayable(parser, bar.config)
    arguments.refuse_unwritable(parser, "--out", args.out, folder=True)
    console = report_console()
    verdicts = []
    for k, bar in enumerate(bars):
        console.rule(bar.title)
        reset = args.reset and k == 0  # the first bar moves the old file aside; the others add to the new one
        result = run_for_command(
            bar.config, console, db=args.db, workers=args.workers, progress=show_progress(), reset=reset
        )
        if isinstance(result, int):
            return result
        write_reports(result.summary, result.records, Path(args.out) / bar.config.name)
        print_summary(result.summary, console)
        passed, line = judge(bar, result.summary)
        verdicts.append(passed)
        console.print(f"[{'green' if passed else 'red'}]{'PASS' if passed else 'FAIL'}[/]: {bar.title}: {line}")
    return 0 if all(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
