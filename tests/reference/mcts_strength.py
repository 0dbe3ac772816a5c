"""The compiled MCTS against the MCTS it replaced and against the heuristic.

::

    python -m tests.reference.mcts_strength budget [--seconds 1.0] [--games 4]
    python -m tests.reference.mcts_strength match {old,yardstick,heuristic} [--games N] [--simulations N]
                                              [--workers 1] [--seed 1920] [--db results/mcts_strength.db] [--status]

The MCTS of commit 4b6e3e5 (Python turn options and evaluation, the old compiled greedy
rollouts) is kept as the slow reference in :mod:`tests.reference.mcts`; this script is the
only place that registers it, as the agent ``mcts-old``.

* ``budget``: how many simulations the old MCTS runs per decision at ``--seconds`` per move
  on this machine: it searches every third card choice of ``--games`` games between
  heuristics (2-player Italia) and prints the median, quartiles and mean, and the same for a
  whole core (simulations per CPU second of the search: the budget is wall time, and on a
  busy machine a search gets less than a core). The median names the yardstick ``mcts:N`` ≈
  "the old 1 s/move" (the mean is pulled up by the last turns of a game, where most
  simulations end the game at once).
* ``match old``: the new ``mcts`` at 1 s/move against ``mcts-old`` at 1 s/move, 2-player
  Italia (200 games; the target is at least 75% for the new one).
* ``match yardstick``: the new ``mcts:N`` (``--simulations``, the budget's median) against
  ``heuristic`` (100 games).
* ``match heuristic``: the new ``mcts`` at 1 s/move against ``heuristic`` (100 games; the
  strength bar is at least 60%).

Matches go through :mod:`concordia_env.tools.tournament`: fresh seeds, seats rotated, every
game stored as it ends in ``--db``, so a run that is stopped resumes where it stopped when
started again with the same arguments; ``--status`` prints the games stored so far (those of
the first indices without a gap: with several workers a few later ones may be stored too)
without playing. Each line gives an agent's wins per seat played with the 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Sequence

import numpy as np

from concordia_env import Game, agents
from concordia_env.agents.base import agent_seed
from concordia_env.engine.state import PHASE, PHASE_PLAY_CARD
from concordia_env.tools.store import Store
from concordia_env.tools.tournament import TournamentConfig, run_tournament

OLD = "mcts-old"
#: the simulations of the yardstick ``mcts:N``: the median of ``budget`` on the project's machine
YARDSTICK_SIMULATIONS = 150
NEW_1S = "mcts:time_per_move=1.0"
OLD_1S = f"{OLD}:time_per_move=1.0"


def register_old() -> None:
    agents.register(OLD, "tests.reference.mcts:MCTSAgent", spec_option=("simulations", int))


def budget(seconds: float, games: int, seed: int = 100) -> tuple[list[int], list[float]]:
    """The old MCTS's simulations per search at ``seconds`` per move, on card choices of heuristic games.

    Returns the simulations of every search and the CPU seconds it got: its budget is wall
    time, so on a busy machine it gets less than a core; simulations per CPU second say what
    a whole core buys.
    """
    from tests.reference.mcts import MCTSAgent as OldMCTS

    counts: list[int] = []
    cpu: list[float] = []
    for g in range(games):
        game = Game.new("italia", 2, seed + g)
        players = [agents.make("heuristic") for _ in range(2)]
        for seat, agent in enumerate(players):
            agent.reset(agent_seed(seed + g, seat))
        old = OldMCTS(seed=g, time_per_move=seconds)
        old.act(game.clone())  # compiled code loads outside the count
        card_choices = 0
        while not game.is_over():
            if int(game.state[PHASE]) == PHASE_PLAY_CARD and len(game.legal_actions()) > 1:
                if card_choices % 3 == 0:
                    old.reset(card_choices)
                    start = time.process_time()
                    old.act(game)
                    cpu.append(time.process_time() - start)
                    counts.append(old.last_simulations)
                    print(
                        f"  game {g} card choice {card_choices}: {old.last_simulations} simulations,"
                        f" {cpu[-1]:.2f} CPU s",
                        flush=True,
                    )
                card_choices += 1
            game.step(players[game.current_player].act(game))
    return counts, cpu


def match_config(which: str, games: int | None, simulations: int, seed: int) -> tuple[str, TournamentConfig]:
    if which == "old":
        title, entries, default_games = "new mcts 1 s/move vs old mcts 1 s/move", (NEW_1S, OLD_1S), 200
    elif which == "yardstick":
        title, entries, default_games = (
            f"new mcts:{simulations} vs heuristic",
            (f"mcts:{simulations}", "heuristic"),
            100,
        )
    else:
        title, entries, default_games = "new mcts 1 s/move vs heuristic", (NEW_1S, "heuristic"), 100
    n = default_games if games is None else games
    return title, TournamentConfig(agents=entries, map="italia", players=2, games=n, seed=seed)


def print_summary(title: str, result) -> None:
    print(f"## {title} ({len(result.records)} games)", flush=True)
    for stats in result.summary["agents"]:
        low, high = stats["win_ci95"]
        print(
            f"  {stats['agent']:26s} wins {stats['wins']:4d}/{stats['seats']:4d} seats = {stats['win_rate']:6.1%}"
            f"  (95% {low:6.1%} - {high:6.1%})  mean VP {stats['vp']['mean']:6.1f}"
            f"  {stats['ms_per_decision']:.1f} ms/decision",
            flush=True,
        )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("budget", help="the old MCTS's simulations per decision at a time per move")
    b.add_argument("--seconds", type=float, default=1.0)
    b.add_argument("--games", type=int, default=4)
    m = sub.add_parser("match", help="play (or resume) a match")
    m.add_argument("which", choices=("old", "yardstick", "heuristic"))
    m.add_argument("--games", type=int, default=None)
    m.add_argument("--simulations", type=int, default=YARDSTICK_SIMULATIONS, help="N of the yardstick mcts:N")
    m.add_argument("--workers", type=int, default=1)
    m.add_argument("--seed", type=int, default=1920, help="tournament seed (fresh seeds: not used before)")
    m.add_argument("--db", default="results/mcts_strength.db")
    m.add_argument("--status", action="store_true", help="print the games stored so far; play nothing")
    args = parser.parse_args(argv)
    register_old()
    if args.command == "budget":
        start = time.perf_counter()
        found, cpu = budget(args.seconds, args.games)
        counts = np.array(found)
        per_core = counts / np.maximum(np.array(cpu), 1e-9) * args.seconds
        q1, median, q3 = np.percentile(counts, [25, 50, 75])
        c1, core_median, c3 = np.percentile(per_core, [25, 50, 75])
        print(
            f"old mcts at {args.seconds} s/move: {len(counts)} searches, median {median:.0f} simulations"
            f" (quartiles {q1:.0f}-{q3:.0f}), mean {counts.mean():.0f}; with a whole core ({args.seconds} CPU s):"
            f" median {core_median:.0f} (quartiles {c1:.0f}-{c3:.0f}); the searches got"
            f" {np.sum(cpu) / (len(cpu) * args.seconds):.0%} of a core; {time.perf_counter() - start:.0f} s",
            flush=True,
        )
        return 0
    title, config = match_config(args.which, args.games, args.simulations, args.seed)
    if args.status:
        with Store(args.db) as store:
            finished = store.finished_indices(config.tournament_id)
        done = 0
        while done in finished:
            done += 1
        config = dataclasses.replace(config, games=done)
    result = run_tournament(config, db=args.db, workers=args.workers, progress=False, keep_actions=False)
    print_summary(title, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
