"""Tournament statistics and their reports: a terminal table, JSON/CSV files and PNG plots.

Statistics are per agent spec and per *seat played* (an agent in two seats of one game
counts two results), which keeps them comparable with the ``1/players`` win rate of
equal agents whatever the seating. The 95% interval of a win rate is Wilson's score
interval, which stays inside [0, 1] and behaves at rates near 0 or 1 (e.g. a strong
agent winning 98%), where the normal approximation does not. Seats of one game are not
independent (only one wins), so the interval is a little narrow when an agent fills
several seats of a game. The Elo difference a win rate implies, with its interval, is
:func:`elo_interval` (the evaluations' reports).

Ratings are OpenSkill's Plackett-Luce model, updated game by game in game-index order
(so they are reproducible). An agent that fills several seats of a game enters that
game's update once, placed at its best seat.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from concordia_env.tools.store import GameRecord

if TYPE_CHECKING:
    from rich.console import Console

#: z of a two-sided 95% interval
Z_95 = 1.959963984540054
SUMMARY_FILE = "summary.json"
GAMES_FILE = "games.csv"
RATINGS_FILE = "ratings.csv"
PLOT_DPI = 120
#: width of the printed tables when stdout is not a terminal
REPORT_WIDTH = 140


# ---------------------------------------------------------------------- statistics
def wilson_interval(successes: int, trials: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion; ``(0, 1)`` without trials.

    The one interval helper of the project (tournaments, strength bars, training
    evaluations). The clamps only absorb rounding: the interval always contains the
    observed rate and stays inside [0, 1].
    """
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def elo_difference(win_rate: float, num_players: int = 2) -> float:
    """The Elo difference a win rate implies against ``num_players - 1`` equal opponents; +-inf at 1 and 0.

    At two players it is cutechess-cli's and fishtest's ``-400 log10(1/p - 1)``. At a larger
    table it is the difference ``D`` at which Luce's choice model (Plackett-Luce's first
    place, the Elo logistic at two players) gives the agent the win share ``p`` against
    ``n - 1`` opponents of equal rating: ``p = 10^(D/400) / (10^(D/400) + n - 1)``, so
    ``D = 400 log10((n - 1) p / (1 - p))``. 0 is the equal share ``1/n`` at every table size.
    """
    if win_rate <= 0:
        return -math.inf
    if win_rate >= 1:
        return math.inf
    return 400 * math.log10((num_players - 1) * win_rate / (1 - win_rate))


def win_rate_of_elo(elo: float, num_players: int = 2) -> float:
    """The win share an Elo difference gives against ``num_players - 1`` equal opponents.

    The inverse of :func:`elo_difference`: how a sequential test's bounds in Elo become win shares.
    """
    return 1 / (1 + (num_players - 1) * 10 ** (-elo / 400))


def elo_interval(successes: int, trials: int, num_players: int = 2) -> tuple[float, float, float]:
    """The Elo difference of ``successes / trials`` wins and its 95% interval: the Wilson interval's ends in Elo.

    As cutechess-cli and fishtest give it; the interval is infinite on a side where the win
    rate's interval reaches 0 or 1 (no game won, or none lost).
    """
    low, high = wilson_interval(successes, trials)
    rate = successes / trials if trials else 1 / num_players
    return elo_difference(rate, num_players), elo_difference(low, num_players), elo_difference(high, num_players)


def elo_text(elo: float) -> str:
    """An Elo difference as the reports print it: ``+70``, ``-12``, ``+inf``."""
    return f"{elo:+.0f}" if math.isfinite(elo) else ("+inf" if elo > 0 else "-inf")


def spread(values: Sequence[float]) -> dict[str, float]:
    """Mean, standard deviation and five-number summary."""
    if not values:
        return {k: float("nan") for k in ("mean", "std", "min", "q1", "median", "q3", "max")}
    v = np.asarray(values, dtype=float)
    q1, median, q3 = np.percentile(v, [25, 50, 75])
    return {
        "mean": float(v.mean()),
        "std": float(v.std(ddof=1)) if len(v) > 1 else 0.0,
        "min": float(v.min()),
        "q1": float(q1),
        "median": float(median),
        "q3": float(q3),
        "max": float(v.max()),
    }


def openskill_ratings(records: Sequence[GameRecord], names: Sequence[str]) -> dict[str, dict[str, float]]:
    """Plackett-Luce ``mu``, ``sigma`` and ``ordinal`` (mu - 3 sigma) per agent spec."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in names}
    for record in records:
        best: dict[str, int] = {}
        for seat, rank in enumerate(record.ranks()):
            spec = record.seats[seat]
            best[spec] = min(rank, best.get(spec, rank))
        if len(best) < 2:
            continue
        order = list(best)
        updated = model.rate([[ratings[s]] for s in order], ranks=[best[s] for s in order])
        for spec, team in zip(order, updated, strict=True):
            ratings[spec] = team[0]
    return {
        name: {"mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal())} for name, r in ratings.items()
    }


def _agent_stats(name: str, records: Sequence[GameRecord], players: int) -> dict[str, Any]:
    vp: list[int] = []
    rank_counts = [0] * players
    wins = seats = games = decisions = 0
    think = 0.0
    parts: dict[str, float] = {}
    seat_counts = [0] * players
    for record in records:
        mine = [s for s, spec in enumerate(record.seats) if spec == name]
        games += bool(mine)
        ranks = record.ranks()
        for seat in mine:
            seats += 1
            seat_counts[seat] += 1
            wins += record.winner == seat
            vp.append(record.scores[seat])
            rank_counts[ranks[seat] - 1] += 1
            think += record.think_seconds[seat]
            decisions += record.decisions[seat]
            for key, value in record.breakdowns[seat].items():
                if key != "total":
                    parts[key] = parts.get(key, 0.0) + value
    low, high = wilson_interval(wins, seats)
    return {
        "agent": name,
        "games": games,
        "seats": seats,
        "seat_counts": seat_counts,
        "wins": wins,
        "win_rate": wins / seats if seats else float("nan"),
        "win_ci95": [low, high],
        "vp": spread(vp),
        "vp_values": vp,
        "rank_counts": rank_counts,
        "rank_fractions": [c / seats if seats else 0.0 for c in rank_counts],
        "score_breakdown": {k: v / seats for k, v in parts.items()} if seats else {},
        "ms_per_decision": 1000 * think / decisions if decisions else float("nan"),
    }


def _seat_stats(records: Sequence[GameRecord], players: int) -> list[dict[str, Any]]:
    """Win rate and VP per seat over all agents.

    A seat is a place at the table (P0, P1, ...), not a place in the turn order: each game's
    seed draws its start player, so over many games every seat starts equally often and
    this table shows no turn-order advantage, only how the seeds fell.
    """
    out = []
    for seat in range(players):
        wins = sum(r.winner == seat for r in records)
        low, high = wilson_interval(wins, len(records))
        out.append(
            {
                "seat": seat,
                "wins": wins,
                "win_rate": wins / len(records) if records else float("nan"),
                "win_ci95": [low, high],
                "mean_vp": float(np.mean([r.scores[seat] for r in records])) if records else float("nan"),
            }
        )
    return out


class TournamentSetup(Protocol):
    """What a summary reads of a tournament's config (:class:`concordia_env.tools.tournament.TournamentConfig`).

    A protocol rather than an import: the tournament module imports this one, and the
    package graph has no cycles (``tests/test_layering.py``).
    """

    @property
    def players(self) -> int: ...

    @property
    def games(self) -> int: ...

    @property
    def tournament_id(self) -> str: ...

    @property
    def name(self) -> str: ...

    def agent_names(self) -> list[str]: ...

    def identity(self) -> dict[str, Any]: ...


def summarize(config: TournamentSetup, records: Sequence[GameRecord], ratings: bool = True) -> dict[str, Any]:
    """All statistics of a tournament as plain JSON-ready data.

    ``ratings=False`` leaves out the OpenSkill ratings (``"rating"``), which need the
    ``openskill`` package: an evaluation reports win rates only and runs on the core install.
    """
    names = config.agent_names()
    rated = openskill_ratings(records, names) if ratings else {}
    per_agent = []
    for name in names:
        stats = _agent_stats(name, records, config.players)
        if ratings:
            stats["rating"] = rated[name]
        per_agent.append(stats)
    return {
        "tournament_id": config.tournament_id,
        "name": config.name,
        "config": {**config.identity(), "games": config.games},
        "games_finished": len(records),
        "players": config.players,
        "agents": per_agent,
        "seats": _seat_stats(records, config.players),
        "mean_actions": float(np.mean([r.num_actions for r in records])) if records else float("nan"),
        "mean_game_seconds": float(np.mean([r.duration for r in records])) if records else float("nan"),
    }


# ---------------------------------------------------------------------- files
def write_reports(
    summary: dict[str, Any], records: Sequence[GameRecord], out_dir: str | Path, plots: bool = True
) -> list[Path]:
    """Write ``summary.json``, ``games.csv``, ``ratings.csv`` and (with ``plots``) the PNGs; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    files = [_write_summary(summary, out / SUMMARY_FILE), _write_games(records, out / GAMES_FILE)]
    files.append(_write_ratings(summary, out / RATINGS_FILE))
    if plots and records:
        files += write_plots(summary, out)
    return files


def _write_summary(summary: dict[str, Any], path: Path) -> Path:
    # the per-seat VP lists belong in games.csv, not in the summary
    slim = {**summary, "agents": [{k: v for k, v in a.items() if k != "vp_values"} for a in summary["agents"]]}
    path.write_text(json.dumps(slim, indent=2, allow_nan=True) + "\n")
    return path


def _write_games(records: Sequence[GameRecord], path: Path) -> Path:
    players = max((r.players for r in records), default=0)
    header = ["game_id", "game_index", "seed", "map", "players", "num_actions", "duration_s", "winner_seat"]
    header += ["winner_agent"] + [f"seat{s}_{k}" for s in range(players) for k in ("agent", "vp", "rank")]
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        for r in records:
            row: list[Any] = [r.game_id, r.game_index, r.seed, r.map, r.players, r.num_actions]
            row += [f"{r.duration:.4f}", r.winner, r.seats[r.winner]]
            ranks = r.ranks()
            for s in range(r.players):
                row += [r.seats[s], r.scores[s], ranks[s]]
            writer.writerow(row)
    return path


def _write_ratings(summary: dict[str, Any], path: Path) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["agent", "mu", "sigma", "ordinal", "seats", "win_rate", "win_ci95_low", "win_ci95_high"])
        for a in sorted(summary["agents"], key=lambda a: -a["rating"]["ordinal"]):
            r = a["rating"]
            low, high = a["win_ci95"]
            rating = [f"{r['mu']:.3f}", f"{r['sigma']:.3f}", f"{r['ordinal']:.3f}"]
            writer.writerow([a["agent"], *rating, a["seats"], f"{a['win_rate']:.4f}", f"{low:.4f}", f"{high:.4f}"])
    return path


# ---------------------------------------------------------------------- plots
def write_plots(summary: dict[str, Any], out: Path) -> list[Path]:
    """Win rates with intervals, VP distributions, rank distributions and VP by god, one PNG each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    title = f"{summary['name']}  ({summary['games_finished']} games)"
    paths = []
    for name, draw in (
        ("win_rates.png", _plot_win_rates),
        ("vp_distribution.png", _plot_vp),
        ("rank_distribution.png", _plot_ranks),
        ("score_breakdown.png", _plot_breakdown),
    ):
        fig = draw(plt, summary)
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
        path = out / name
        fig.savefig(path, dpi=PLOT_DPI)
        plt.close(fig)
        paths.append(path)
    return paths


def _figure_width(n_agents: int) -> float:
    return max(5.0, 1.3 * n_agents + 2.5)


def _plot_win_rates(plt: Any, summary: dict[str, Any]) -> Any:
    agents = summary["agents"]
    names = [a["agent"] for a in agents]
    rates = np.array([a["win_rate"] for a in agents])
    # clipped: at a rate of 0 or 1 the interval's end equals the rate up to rounding
    low = np.clip(rates - np.array([a["win_ci95"][0] for a in agents]), 0.0, None)
    high = np.clip(np.array([a["win_ci95"][1] for a in agents]) - rates, 0.0, None)
    fig, ax = plt.subplots(figsize=(_figure_width(len(names)), 4.2))
    x = np.arange(len(names))
    colors = plt.cm.tab10(x % 10)
    ax.bar(x, rates, color=colors, alpha=0.85, yerr=[low, high], capsize=6, ecolor="black")
    chance = 1 / summary["players"]
    ax.axhline(chance, color="grey", linestyle="--", linewidth=1)
    ax.annotate(
        f"equal agents: 1/{summary['players']}",
        (0, chance),
        xycoords=("axes fraction", "data"),
        xytext=(4, 3),
        textcoords="offset points",
        fontsize=8,
        color="grey",
    )
    for xi, rate, a in zip(x, rates, agents, strict=True):
        ax.annotate(
            f"{rate:.1%}\n[{a['win_ci95'][0]:.0%}, {a['win_ci95'][1]:.0%}]",
            (xi, a["win_ci95"][1]),
            xytext=(0, 4),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=8,
        )
    ax.set_xticks(x, names)
    ax.set_ylim(0, 1.15)
    ax.set_ylabel("win rate per seat played (95% Wilson interval)")
    ax.grid(axis="y", alpha=0.3)
    return fig


def _plot_vp(plt: Any, summary: dict[str, Any]) -> Any:
    agents = summary["agents"]
    names = [a["agent"] for a in agents]
    data = [a["vp_values"] or [0] for a in agents]
    fig, ax = plt.subplots(figsize=(_figure_width(len(names)), 4.2))
    positions = np.arange(1, len(names) + 1)
    violins = ax.violinplot(data, positions=positions, showextrema=False, widths=0.8)
    for body, color in zip(violins["bodies"], plt.cm.tab10(np.arange(len(names)) % 10), strict=True):
        body.set_facecolor(color)
        body.set_alpha(0.35)
    ax.boxplot(data, positions=positions, widths=0.18, showfliers=False, medianprops={"color": "black"})
    ax.scatter(positions, [a["vp"]["mean"] for a in agents], marker="D", color="white", edgecolor="black", zorder=3)
    ax.set_xticks(positions, names)
    ax.set_ylabel("final VP per seat (box: quartiles, diamond: mean)")
    ax.grid(axis="y", alpha=0.3)
    return fig


def _plot_ranks(plt: Any, summary: dict[str, Any]) -> Any:
    agents = summary["agents"]
    names = [a["agent"] for a in agents]
    players = summary["players"]
    fig, ax = plt.subplots(figsize=(7.5, 0.55 * len(names) + 1.8))
    left = np.zeros(len(names))
    cmap = plt.cm.RdYlGn_r(np.linspace(0.1, 0.9, players))
    for rank in range(players):
        widths = np.array([a["rank_fractions"][rank] for a in agents])
        ax.barh(names, widths, left=left, color=cmap[rank], label=_ordinal(rank + 1), edgecolor="white")
        for y, (w, l0) in enumerate(zip(widths, left, strict=True)):
            if w >= 0.06:
                ax.text(l0 + w / 2, y, f"{w:.0%}", ha="center", va="center", fontsize=8)
        left += widths
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_xlabel("share of seats finishing in each place")
    ax.legend(ncol=players, loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8, frameon=False)
    return fig


def _plot_breakdown(plt: Any, summary: dict[str, Any]) -> Any:
    agents = summary["agents"]
    names = [a["agent"] for a in agents]
    keys = list(dict.fromkeys(k for a in agents for k in a["score_breakdown"]))
    fig, ax = plt.subplots(figsize=(8, 0.55 * len(names) + 1.8))
    left = np.zeros(len(names))
    colors = plt.cm.tab10(np.arange(len(keys)) % 10)
    for key, color in zip(keys, colors, strict=True):
        widths = np.array([a["score_breakdown"].get(key, 0.0) for a in agents])
        ax.barh(names, widths, left=left, color=color, label=key, edgecolor="white")
        left += widths
    ax.invert_yaxis()
    ax.set_xlabel("mean VP per seat, by god")
    ax.legend(ncol=min(len(keys), 4), loc="lower center", bbox_to_anchor=(0.5, 1.0), fontsize=8, frameon=False)
    return fig


def _ordinal(n: int) -> str:
    return f"{n}{'st' if n == 1 else 'nd' if n == 2 else 'rd' if n == 3 else 'th'}"


# ---------------------------------------------------------------------- terminal
def report_console() -> Console:
    """A rich console; piped or logged output gets wide tables instead of rich's default 80 columns."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=REPORT_WIDTH)


def print_summary(summary: dict[str, Any], console: Console) -> None:
    """The summary as rich tables: results and ratings per agent, VP by god, and seat advantage."""
    from rich.table import Table

    results = Table(title=f"{summary['name']}: {summary['games_finished']} games", title_justify="left")
    results.add_column("agent", no_wrap=True)
    for col in ("seats", "win rate [95% CI]", "VP mean±std", "VP median \\[q1,q3]"):
        results.add_column(col, justify="right", no_wrap=True)
    results.add_column("places 1st..last", no_wrap=True)
    for col in ("μ±σ", "ordinal", "ms/decision"):
        results.add_column(col, justify="right", no_wrap=True)
    for a in sorted(summary["agents"], key=lambda a: -a["rating"]["ordinal"]):
        vp, r = a["vp"], a["rating"]
        results.add_row(
            a["agent"],
            str(a["seats"]),
            f"{a['win_rate']:.1%} [{a['win_ci95'][0]:.1%},{a['win_ci95'][1]:.1%}]",
            f"{vp['mean']:.1f}±{vp['std']:.1f}",
            f"{vp['median']:.0f} [{vp['q1']:.0f},{vp['q3']:.0f}]",
            " ".join(f"{f:.0%}" for f in a["rank_fractions"]),
            f"{r['mu']:.1f}±{r['sigma']:.1f}",
            f"{r['ordinal']:.1f}",
            f"{a['ms_per_decision']:.3g}",
        )
    console.print(results)

    keys = list(dict.fromkeys(k for a in summary["agents"] for k in a["score_breakdown"]))
    gods = Table(title="mean VP per seat by god", title_justify="left")
    gods.add_column("agent")
    for key in keys:
        gods.add_column(key, justify="right")
    for a in summary["agents"]:
        gods.add_row(a["agent"], *(f"{a['score_breakdown'].get(k, 0.0):.1f}" for k in keys))
    console.print(gods)

    title = "by seat (all agents; seat = place at the table, the seed draws who starts)"
    seats = Table(title=title, title_justify="left")
    for col in ("seat", "win rate [95% CI]", "mean VP"):
        seats.add_column(col, justify="right")
    for s in summary["seats"]:
        seats.add_row(
            str(s["seat"]),
            f"{s['win_rate']:.1%} [{s['win_ci95'][0]:.1%}, {s['win_ci95'][1]:.1%}]",
            f"{s['mean_vp']:.1f}",
        )
    console.print(seats)
    console.print(
        f"mean game: {summary['mean_actions']:.0f} decisions, {summary['mean_game_seconds']:.2f} s of compute"
    )
