"""The ladder: every reference agent rated by one round-robin tournament.

::

    concordia bench ladder                        # 2-player Italia, the reference agents below
    concordia bench ladder --players 4 --map imperium   # the 4-player ladder
    concordia bench ladder --rounds 2 --workers 2 # a quicker look (56 games a round)
    concordia bench ladder --agents random heuristic learned mcts:150
    concordia bench ladder --players 3 --map imperium --rounds 100 \
        --agents learned learned:path=docs/reports/afterstate_imperium3/model.npz   # two models head to head

The agents (``--agents`` to change them) are the project's reference agents, each search
named by its simulation count or its time per move so that a faster search does not move a
rung: ``random``, ``heuristic``, ``learned`` (search-free), ``learned:simulations=150`` and
``learned:time_per_move=1.0`` (the learned agent with search), ``mcts:150`` (the old MCTS's
budget at 1 s/move, the yardstick of ``docs/agents.md``), ``mcts:1000`` and
``mcts:time_per_move=1.0``.

**One tournament, every table.** With ``k`` agents at a table of ``n`` players the
tournament's schedule (:mod:`concordia_env.tools.tournament`) plays every set of ``n``
different agents once in each of its ``n`` rotations per *round*: ``k (k - 1)`` games at 2
players, ``4 C(k, 4)`` at 4 (280 for the 8 reference agents). So every agent meets every
other equally often and in every seat order, with fresh seeds from the tournament's
sequence. With fewer agents than seats (two models head to head at 3 players) the tables
rotate the agents through the seats, ``k`` games a round. The games are stored (``--db``):
an interrupted ladder resumes, and more ``--rounds`` extend a finished one.

**Ratings with intervals.** The rating is the tournament's OpenSkill rating (Plackett-Luce
over the table's finishing order, updated game by game in game order,
:func:`concordia_env.tools.report.openskill_ratings`): ``mu`` with the interval
``mu ± 2 sigma`` (about 95%), ranked by the ordinal ``mu - 3 sigma``. Beside it, each agent's
wins per seat it took (the equal share is ``1/n``) and the head-to-head matrix: how often the
row finished ahead of the column, over every pair of their seats at a table (at 2 players,
the row's wins against the column; 95% Wilson intervals; 50% is equal strength), because a
rating condenses the matrix and the matrix shows where it does not fit (a rock-paper-scissors
pair).

The ladder is written to ``<out>/ladder.md`` (the README's table comes from it) and
``<out>/ladder.json``, with the tournament's own report beside them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env.engine import maps
from concordia_env.engine.rules.setup import check_setup
from concordia_env.tools import arguments
from concordia_env.tools.progress import show_progress
from concordia_env.tools.report import wilson_interval
from concordia_env.tools.store import GameRecord
from concordia_env.tools.tournament import TournamentConfig, refuse_unplayable, run_for_command, schedule_block

#: the reference agents, weakest first (the order only decides the seating schedule)
REFERENCE_AGENTS = (
    "random",
    "heuristic",
    "learned",
    "mcts:150",
    "learned:simulations=150",
    "mcts:1000",
    "mcts:time_per_move=1.0",
    "learned:time_per_move=1.0",
)
DEFAULT_DB = "results/ladder.db"
DEFAULT_OUT = "results/ladder"
#: the interval around a rating's mu, in sigmas (about 95%)
RATING_SIGMAS = 2.0


def ladder_config(
    agents: Sequence[str], rounds: int, seed: int, map: str = "italia", players: int = 2
) -> TournamentConfig:
    """The round-robin tournament of ``agents`` at ``players``-seat tables: ``rounds`` × every table, every rotation."""
    check_setup(maps.load(map), players)  # the map's player counts (docs/rules.md §2.1)
    if len(agents) < 2:
        raise ValueError(f"a ladder needs at least 2 agents, got {list(agents)}")
    if len(set(agents)) != len(agents):
        raise ValueError(f"every agent of a ladder is listed once, got {list(agents)}")
    if rounds < 1:
        raise ValueError(f"rounds must be at least 1, got {rounds}")
    games = rounds * len(schedule_block(len(agents), players))
    return TournamentConfig(agents=tuple(agents), map=map, players=players, games=games, seed=seed)


def head_to_head(records: Sequence[GameRecord], agents: Sequence[str]) -> dict[str, dict[str, dict[str, Any]]]:
    """``[row][column]``: how often the row agent finished ahead of the column agent, with its Wilson 95% interval.

    Every pair of a row seat and a column seat at the same table counts once (``games``),
    and ``wins`` when the row's seat placed ahead. At a 2-player table that is the games they
    played and the row's wins; with fewer agents than seats an agent sits at a table more
    than once, and each of its seats meets each of the other's.
    """
    table: dict[str, dict[str, dict[str, Any]]] = {a: {} for a in agents}
    places = [record.ranks() for record in records]
    for a in agents:
        for b in agents:
            if a == b:
                continue
            wins = games = 0
            for record, place in zip(records, places, strict=True):
                for row in (s for s, spec in enumerate(record.seats) if spec == a):
                    for column in (s for s, spec in enumerate(record.seats) if spec == b):
                        games += 1
                        wins += place[row] < place[column]
            low, high = wilson_interval(wins, games)
            rate = wins / games if games else float("nan")
            table[a][b] = {"wins": wins, "games": games, "win_rate": rate, "win_ci95": [low, high]}
    return table


def median_ms_per_decision(records: Sequence[GameRecord], agent: str) -> float:
    """The median over ``agent``'s games of its thinking time per decision, in milliseconds.

    A median rather than the tournament's mean: the first search in a fresh worker process
    compiles (or loads) the compiled search, and that one game's time would move a mean.
    """
    rates = [
        1000 * r.think_seconds[seat] / r.decisions[seat]
        for r in records
        for seat, spec in enumerate(r.seats)
        if spec == agent and r.decisions[seat] > 0
    ]
    return float(np.median(rates)) if rates else float("nan")


def ladder(summary: dict[str, Any], records: Sequence[GameRecord]) -> dict[str, Any]:
    """The ladder of a finished tournament: its agents ranked by rating, with the head-to-head matrix."""
    rungs = []
    for a in sorted(summary["agents"], key=lambda a: -a["rating"]["ordinal"]):
        r = a["rating"]
        rungs.append(
            {
                "agent": a["agent"],
                "mu": r["mu"],
                "sigma": r["sigma"],
                "interval": [r["mu"] - RATING_SIGMAS * r["sigma"], r["mu"] + RATING_SIGMAS * r["sigma"]],
                "ordinal": r["ordinal"],
                "games": a["games"],
                "seats": a["seats"],
                "wins": a["wins"],
                "win_rate": a["win_rate"],
                "win_ci95": a["win_ci95"],
                "mean_vp": a["vp"]["mean"],
                "ms_per_decision": median_ms_per_decision(records, a["agent"]),
            }
        )
    order = [r["agent"] for r in rungs]
    return {"games": summary["games_finished"], "rungs": rungs, "head_to_head": head_to_head(records, order)}


def ladder_command(config: TournamentConfig) -> str:
    """The command line that plays ``config`` again (and reads back its stored games)."""
    rounds = config.games // len(schedule_block(len(config.agents), config.players))
    words = ["concordia bench ladder"]
    if config.players != 2:
        words.append(f"--players {config.players}")
    if config.map != "italia":
        words.append(f"--map {config.map}")
    words += [f"--rounds {rounds}", f"--seed {config.seed}"]
    if tuple(config.agents) != REFERENCE_AGENTS:
        words.append("--agents " + " ".join(shlex.quote(a) for a in config.agents))
    return " ".join(words)


def ladder_markdown(result: dict[str, Any], title: str, reproduce: str | None = None) -> str:
    """The ladder as Markdown: ``reproduce`` (how to play it again), the rated table, the head-to-head matrix."""
    lines = [f"### {title}", ""]
    if reproduce is not None:
        lines += [reproduce, ""]
    lines += [
        "| rank | agent | rating μ (μ ± 2σ) | games | wins per seat (95% interval) | mean VP "
        "| ms per decision (median) |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for i, r in enumerate(result["rungs"], 1):
        low, high = r["interval"]
        wlow, whigh = r["win_ci95"]
        lines.append(
            f"| {i} | `{r['agent']}` | {r['mu']:.1f} ({low:.1f} – {high:.1f}) | {r['games']} | "
            f"{r['wins']}/{r['seats']} = {r['win_rate']:.1%} ({wlow:.1%} – {whigh:.1%}) | {r['mean_vp']:.1f} | "
            f"{r['ms_per_decision']:.3g} |"
        )
    order = [r["agent"] for r in result["rungs"]]
    short = {a: f"{i}" for i, a in enumerate(order, 1)}
    lines += ["", "Head to head: the games the row finished ahead of the column (columns by rank).", ""]
    lines.append("| | " + " | ".join(short[a] for a in order) + " |")
    lines.append("| --- |" + " --- |" * len(order))
    for a in order:
        cells = []
        for b in order:
            cell = result["head_to_head"][a].get(b) if a != b else None
            cells.append("–" if cell is None else f"{cell['wins']}/{cell['games']}")
        lines.append(f"| {short[a]} `{a}` | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    from concordia_env.tools.report import print_summary, report_console, write_reports

    parser = argparse.ArgumentParser(prog="concordia bench ladder", description=__doc__.split("\n\n")[0])
    parser.add_argument("--agents", nargs="+", default=list(REFERENCE_AGENTS), help="agent specs, each once")
    parser.add_argument(
        "--rounds", type=arguments.count, default=4, help="times every table is played in each rotation (default 4)"
    )
    arguments.add_table(parser)
    parser.add_argument("--workers", type=arguments.count, default=os.cpu_count() or 1)
    parser.add_argument("--db", default=DEFAULT_DB)
    parser.add_argument("--out", default=DEFAULT_OUT)
    parser.add_argument(
        "--reset",
        action="store_true",
        help="start a new results file: an existing --db is renamed to <db>.old-<time>, not deleted "
        "(as `concordia tournament --reset`)",
    )
    arguments.add_quiet(parser)
    args = parser.parse_args(argv)

    try:
        config = ladder_config(args.agents, args.rounds, args.seed, args.map, args.players)
    except ValueError as error:
        parser.error(str(error))
    refuse_unplayable(parser, config)
    out = Path(args.out)
    arguments.refuse_unwritable(parser, "--out", out, folder=True)  # before the games, not after them
    console = report_console()
    result = run_for_command(
        config, console, db=args.db, workers=args.workers, progress=show_progress(args.quiet), reset=args.reset
    )
    if isinstance(result, int):
        return result
    write_reports(result.summary, result.records, out / config.name)
    print_summary(result.summary, console)
    rated = ladder(result.summary, result.records)
    title = f"Ladder, {config.map} {config.players} players: {rated['games']} games, seed {config.seed}"
    rated["command"] = ladder_command(config)
    rated["reported"] = datetime.date.today().isoformat()
    reproduce = f"Reported {rated['reported']}; reproduced by `{rated['command']}`."
    text = ladder_markdown(rated, title, reproduce)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ladder.md").write_text(text)
    (out / "ladder.json").write_text(json.dumps(rated, indent=2))
    console.print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
