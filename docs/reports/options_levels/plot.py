"""The table of levels' learning curves: win rate against the heuristic over training time, flat and options level.

    python docs/reports/options_levels/plot.py

Reads the reports beside this folder (``vector_heuristic``: flat MaskablePPO through the vector
env; ``options_maskableppo``: MaskablePPO + OptionsPolicy; ``options_ppo_script``: ``concordia
train ppo_options``) and writes ``levels.png``: for each run the sampled policy's training win
rate (a rolling window of its last 200 training games, thin line) and the greedy policy's
evaluations against the heuristic (points with their 95% Wilson intervals).
"""

import json
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from concordia_env.tools.report import wilson_interval

HERE = Path(__file__).resolve().parent
REPORTS = HERE.parent


def flat_points() -> list[tuple[float, int, int]]:
    """(minutes, wins, games) of the flat run's evaluations against the heuristic (steps -> minutes, linear)."""
    text = (REPORTS / "vector_heuristic" / "report.md").read_text()
    total = re.search(r"Timesteps trained: \*\*([\d,]+)\*\*", text)
    steps_total = int(total.group(1).replace(",", "")) if total else 6_602_752
    points = []
    for steps, games, rate in re.findall(r"\| (\d+) \| heuristic \| (\d+) \| ([\d.]+)% \|", text):
        n = int(games)
        points.append((120 * int(steps) / steps_total, round(float(rate) / 100 * n), n))
    final = re.search(r"\| heuristic \| (\d+) \| (\d+) \| [\d.]+% \|", text)
    if final:
        points.append((120.0, int(final.group(2)), int(final.group(1))))
    return points


def main() -> None:
    fig, ax = plt.subplots(figsize=(8, 4.5))
    flat = flat_points()
    flat_label = "flat: MaskablePPO(MlpPolicy), vector env: 40 / 200 games"
    ax.errorbar(*_bars(flat), fmt="o-", color="tab:gray", label=flat_label)
    mppo = HERE.parent / "options_maskableppo"
    for folder, colour, label in ((mppo, "tab:blue", "lr 3e-4 (SB3's)"), (mppo / "lr1e-4", "tab:green", "lr 1e-4")):
        curve = [json.loads(line) for line in (folder / "curve.jsonl").read_text().splitlines()]
        minutes_at = {c["steps"]: c["minutes"] for c in curve}
        ax.plot([c["minutes"] for c in curve], [c.get("train_win_rate_last100", np.nan) for c in curve],
                color=colour, lw=0.8, alpha=0.4)  # fmt: skip
        points = [(minutes_at.get(c["steps"], 0.0), c["wins"], c["games"])
                  for c in json.loads((folder / "curve_eval.json").read_text())]  # fmt: skip
        ax.errorbar(*_bars(points), fmt="s-", color=colour, ms=4, lw=1, alpha=0.8,
                    label=f"options: MaskablePPO(OptionsPolicy), {label}: 50 / 200 games (star)")  # fmt: skip
        final = json.loads((folder / "eval.json").read_text())
        ax.errorbar(*_bars([(float(final["train_minutes"]), final["wins"], final["games"])]), fmt="*", ms=12,
                    color=colour)  # fmt: skip
    script = HERE.parent / "options_ppo_script"
    progress = [json.loads(line) for line in (script / "progress.jsonl").read_text().splitlines()]
    games = np.array([p["games"] for p in progress])
    won = np.cumsum(
        [(p["win_rate"] or 0.0) * (g - g0) for p, g, g0 in zip(progress, games, np.r_[0, games[:-1]], strict=True)]
    )
    window = np.array([np.searchsorted(games, g - 200) for g in games])
    rate = (won - np.where(window > 0, won[np.maximum(window - 1, 0)], 0.0)) / np.maximum(
        games - np.where(window > 0, games[np.maximum(window - 1, 0)], 0), 1
    )
    ax.plot([p["seconds"] / 60 for p in progress], rate, color="tab:orange", lw=0.8, alpha=0.5)
    result = json.loads((script / "eval.json").read_text())
    minutes = result["train_seconds"] / 60
    ax.errorbar(*_bars([(minutes, result["wins"], result["games"])]), fmt="*", ms=12, color="tab:orange",
                label="options: concordia train ppo_options: 200 games (star)")  # fmt: skip
    ax.axhline(0.5, color="black", lw=0.5, ls=":")
    ax.axhline(0.6, color="tab:red", lw=0.5, ls="--", label="target: 60% within 60 minutes")
    ax.set(xlabel="training minutes (2-core machine)", ylabel="win rate against heuristic", ylim=(0, 1), xlim=(0, 122))
    ax.set_title("2-player Italia: greedy evaluations (points, 95% CI) and training games (thin lines)")
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 0.2), fontsize=6.5)
    fig.tight_layout()
    fig.savefig(HERE / "levels.png", dpi=110)


def _bars(points: list[tuple[float, int, int]]) -> tuple[list[float], list[float], np.ndarray]:
    xs = [m for m, _, _ in points]
    ys = [w / n for _, w, n in points]
    intervals = [wilson_interval(w, n) for _, w, n in points]
    err = np.array(
        [
            [y - lo for y, (lo, _) in zip(ys, intervals, strict=True)],
            [hi - y for y, (_, hi) in zip(ys, intervals, strict=True)],
        ]
    )
    return xs, ys, err


if __name__ == "__main__":
    main()
