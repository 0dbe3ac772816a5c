"""What a run leaves for a person: the learning-curve picture and ``report.md``.

The curve plots, for each evaluation opponent, the win rate of the masked argmax policy
against timesteps with its 95% Wilson interval as a band; the final evaluation (more
games) is drawn as a point with an error bar at the last timestep. A dotted line marks the
win rate of an equally strong player (``1 / num_players``).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")  # files only: no display on a training machine
import matplotlib.pyplot as plt

from .config import TrainConfig
from .run_evaluation import EvalResult
from .run_folder import write_atomic

CURVE_FILE = "learning_curve.png"
REPORT_FILE = "report.md"
#: every evaluation of a run, one row each (:func:`write_eval_csv`)
EVAL_CSV = "evaluations.csv"
PLOT_DPI = 120


def plot_learning_curve(
    history: Sequence[EvalResult],
    final: Sequence[EvalResult],
    num_players: int,
    path: Path,
    title: str = "",
    xlabel: str = "timesteps (learner decisions)",
) -> Path:
    """Win rate vs timesteps per opponent, with Wilson bands; returns ``path``."""
    fig, ax = plt.subplots(figsize=(10, 4.5))
    opponents = list(dict.fromkeys([r.opponent for r in history] + [r.opponent for r in final]))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, opponent in enumerate(opponents):
        colour = colours[k % len(colours)]
        points = sorted((r for r in history if r.opponent == opponent), key=lambda r: r.timesteps)
        if points:
            x = [r.timesteps for r in points]
            ax.plot(x, [r.win_rate for r in points], marker="o", color=colour, label=f"vs {opponent}")
            ax.fill_between(x, [r.ci_low for r in points], [r.ci_high for r in points], color=colour, alpha=0.2)
        for r in (r for r in final if r.opponent == opponent):
            err = [[max(0.0, r.win_rate - r.ci_low)], [max(0.0, r.ci_high - r.win_rate)]]
            ax.errorbar(
                [r.timesteps], [r.win_rate], yerr=err, fmt="s", color=colour, capsize=4, markersize=7,
                label=f"final vs {opponent} ({r.games} games)",
            )  # fmt: skip
    ax.axhline(1 / num_players, color="grey", linestyle=":", label="equal strength")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win rate (95% Wilson interval)")
    ax.set_title(title or "learning curve")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")  # outside: never over a curve
    fig.tight_layout()
    fig.savefig(path, dpi=PLOT_DPI)
    plt.close(fig)
    return path


def cut_short_text(limit_minutes: float, where: str, resume: str) -> str:
    """A run's stop reason when its time limit (a guard) stopped it ``where``; ``resume``: the command that goes on."""
    return (
        f"CUT SHORT by the time limit of {limit_minutes:g} minutes {where}: not the config's result "
        f"(a slow or busy machine); continue with {resume}"
    )


def write_eval_csv(run_dir: Path, history: Sequence[dict[str, Any]]) -> None:
    """``evaluations.csv`` in ``run_dir``: every evaluation so far (``EvalResult`` dicts), one row each, whole."""
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(EvalResult.__dataclass_fields__))
    writer.writeheader()
    writer.writerows(history)
    write_atomic(Path(run_dir) / EVAL_CSV, buffer.getvalue().encode())


def final_table(results: Sequence[EvalResult]) -> str:
    """The final evaluation as a Markdown table: games, wins, win rate and its interval, VP, capped games."""
    return _table(results)


def _table(results: Sequence[EvalResult]) -> str:
    rows = [
        "| opponent | games | wins | win rate | 95% interval | mean VP | opponents' mean VP | capped games |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: | ---: |",
    ]
    for r in results:
        rows.append(
            f"| {r.opponent} | {r.games} | {r.wins} | {r.win_rate:.1%} | {r.ci_low:.1%} – {r.ci_high:.1%} "
            f"| {r.mean_vp:.1f} | {r.mean_opponent_vp:.1f} | {r.truncated} |"
        )
    return "\n".join(rows)


def _history_table(history: Sequence[EvalResult]) -> str:
    rows = [
        "| timesteps | opponent | games | win rate | 95% interval | mean VP |",
        "| ---: | --- | ---: | ---: | --- | ---: |",
    ]
    for r in sorted(history, key=lambda r: (r.timesteps, r.opponent)):
        rows.append(
            f"| {r.timesteps} | {r.opponent} | {r.games} | {r.win_rate:.1%} | {r.ci_low:.1%} – {r.ci_high:.1%} "
            f"| {r.mean_vp:.1f} |"
        )
    return "\n".join(rows)


def _reward_text(config: TrainConfig) -> str:
    text = f"`{config.reward}`" + (f" x {config.reward_scale:g}" if config.reward_scale != 1 else "")
    if config.margin_shaping > 0:
        text += f" + {config.margin_shaping:g} x change of (own VP - opponents' mean VP) per step"
    return text


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m {secs:02d}s" if hours else f"{minutes}m {secs:02d}s"


def report_opening(title: str, seed: int, config_file: Path, command: str, determinism: str = "") -> list[str]:
    """The opening lines of a run's ``report.md``: its title and how to make it again (seed, config, command).

    ``determinism`` completes "the run is deterministic for its seed" (e.g. what does not change it).
    """
    return [
        f"# {title}",
        "",
        f"Seed **{seed}**; config `{config_file}`; reproduce with `{command} --config <that file>` "
        f"(the run is deterministic for its seed{determinism}).",
        "",
    ]


def config_section(config_yaml: str) -> list[str]:
    """The closing ``## Config`` section of a run's ``report.md``: the resolved config as YAML."""
    return ["## Config", "", "```yaml", config_yaml.rstrip(), "```", ""]


def write_report(
    run_dir: Path,
    config: TrainConfig,
    summary: dict[str, Any],
    history: Sequence[EvalResult],
    final: Sequence[EvalResult],
    architecture: str,
) -> Path:
    """Write ``report.md`` into ``run_dir`` (the learning curve must already be there)."""
    run_dir = Path(run_dir)
    model = summary["model_path"]
    config_text = "\n".join(config_section(config.to_yaml()))
    text = f"""# Self-play training report: {config.name}

Run directory: `{run_dir}`

## Summary

- Game: {config.num_players}-player **{config.map}**, options {config.env_options or "none"}
- Reward: {_reward_text(config)}
- Timesteps trained: **{summary["timesteps"]:,}** of {config.total_timesteps:,} planned \
({summary["stop_reason"]}; updates take whole rollouts of {config.rollout_size:,}); \
{summary["games"]:,} training games
- Training time: {_duration(summary["train_seconds"])} (learning loop, {summary["sessions"]} session(s)); \
whole run incl. evaluations and report: {_duration(summary["wall_seconds"])}
- Environments: {config.n_envs} in parallel

## Final evaluation

Masked argmax policy, fresh seeds, learner seats rotated equally; games still running after
{config.eval_max_turns} turns are scored as they stand ("capped games").

{_table(final)}

![learning curve]({CURVE_FILE})

## Play against the policy

```python
from concordia_env import Game, agents

policy = agents.make("policy", path="{model}")
game = Game.new("{config.map}", {config.num_players}, seed=0)
while not game.is_over():
    game.step(policy.act(game))  # or let a person / another agent play some seats
print(game.final_scores())
```

Resume or extend the run: `concordia train selfplay --resume {run_dir} [--total_timesteps N]`

## Files

- final model (MaskablePPO zip): `{model}`
- latest checkpoint (model + optimizer, pool, evaluation history, RNG): `{summary["checkpoint_dir"]}`
- opponent pool: `pool.json`, snapshots in `pool/` ({summary["pool"]})
- logs: `logs/` (SB3 CSV `progress*.csv` one per session, TensorBoard events), evaluations `evaluations.csv`
- resolved config: `config.yaml`

## Network

{architecture}

## Evaluation history

{_history_table(history)}

{config_text}"""
    path = run_dir / REPORT_FILE
    path.write_text(text)
    return path
