"""Afterstate value iteration: learn which whole turn to play, from the games' outcomes.

Usage::

    concordia train afterstate --config afterstate_quick     # 11 minutes (make run before expert_quick)
    concordia train afterstate --config docs/reports/afterstate_long/config.yaml      # the first shipped 2-player model
    concordia train afterstate --resume runs/afterstate_quick-20260101-120000 [--iterations 20]
    concordia train afterstate --help        # every config key is also an option

The method (``docs/training.md`` has the why and the numbers)
-------------------------------------------------------------
The learner is :class:`concordia_env.agents.learned.LearnedAgent`: at each decision it scores the
heuristic generator's *turn options* by the position each leads to (its afterstate) with an
:class:`concordia_env.agents.learned_model.AfterstateModel`, ``score = a·u + b + MLP(x)``, and plays the best.
``u`` is the heuristic's own utility, so the untrained model (MLP output zero) plays like the
heuristic; everything the MLP learns is a correction of the heuristic's judgement.

Generalised policy iteration, one *iteration* at a time:

1. **Play** ``games_per_iteration`` games in ``workers`` processes with the current model:
   the learner against itself (both seats learn) or against a fixed agent, by
   ``opponent_shares``. With probability ``epsilon`` a decision samples a turn from
   ``softmax(score / temperature)`` instead of the best one, so that turns the model rates
   a little lower are tried too. Every decision leaves the chosen afterstate's features and,
   once the game is over, its outcome: the decider's final VP margin (own VP minus the
   opponents' mean) in units of ``MARGIN_SCALE`` VP.
2. **Fit** the model to the decisions of the last ``buffer_games`` games: squared error
   against the λ-return of each player's sequence of afterstates (``td_lambda`` = 1: the
   final margin itself; below 1, a mix with the model's own estimates of the player's later
   afterstates, which lowers the variance of a target that a whole game of chance and
   opponents' choices separates from the decision). A tenth of the games (by seed) is held
   out; every epoch is scored on them and the best epoch's weights are kept (early stopping:
   a few thousand games are easily memorised).
3. **Evaluate** every ``eval_every`` iterations against ``eval_opponents`` (fresh seeds, seats
   rotated, 95% Wilson intervals): the curve of the report. The games are played by the
   project's one evaluation loop (:func:`concordia_env.training.run_evaluation.evaluate`'s: a
   tournament ``duel`` seeded ``eval_seed(seed, iteration)``) and stored in
   ``evaluations.db``, so each can be replayed by its id (``concordia replay``).

Acting greedily on the value of the current policy's afterstates is a policy improvement
step; iterating is policy iteration with sampled returns. The final evaluation plays
``final_eval_games`` games per opponent (200 by default).

The loop around play and fit (checkpoints, ``--resume``, evaluations, the report, the run
directory) is :mod:`.loop`'s, shared with expert iteration (:mod:`.expert_iteration`).

Reproducibility: every game's seed and every exploration draw come from
``SeedSequence([seed, tag, iteration, game])``; the network's initialisation and minibatch
order from ``torch.manual_seed(seed + iteration)``. A run is deterministic for its seed
(the ``time_limit_minutes`` cap aside, which stops after a whole iteration), and
``--resume`` continues after the last finished iteration exactly as an uninterrupted run
would (:mod:`.loop`: a resume reads only the checkpoint).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from concordia_env import Game, agents
from concordia_env.agents.base import Agent
from concordia_env.agents.learned import RecordingAgent, SampledLearnedAgent
from concordia_env.agents.learned_model import MARGIN_SCALE, NUM_FEATURES, AfterstateModel, rollout_value

from .config import _f
from .loop import LoopConfig, Run, check_loop_config, command_parser, run_command

#: SeedSequence tag of the training games (evaluations are seeded by ``run_evaluation.eval_seed``)
TRAIN_TAG = 0xAF7E


# ---------------------------------------------------------------------- config
@dataclass
class AfterstateConfig(LoopConfig):
    """Everything an afterstate run needs: the loop's keys (:class:`.loop.LoopConfig`) and the targets'."""

    rollout_samples: int = _f(8, "rollouts per candidate for the dense targets (0: outcomes only)")
    rollout_rounds: int = _f(1, "rounds each target rollout plays before the position is scored")
    outcome_weight: float = _f(1.0, "weight of the outcome (lambda-return) loss beside the rollout loss")
    td_lambda: float = _f(1.0, "lambda of the lambda-return targets (1: the final margin)")

    def validate(self) -> None:
        if self.rollout_samples < 0 or self.rollout_rounds <= 0 or self.outcome_weight < 0:
            raise ValueError("rollout_samples and outcome_weight must be >= 0, rollout_rounds positive")
        if self.rollout_samples == 0 and self.outcome_weight == 0:
            raise ValueError("with rollout_samples 0 the outcome is the only target: outcome_weight must be positive")
        if not 0.0 <= self.td_lambda <= 1.0:
            raise ValueError(f"td_lambda must be in 0..1, got {self.td_lambda}")
        check_loop_config(self)


# ---------------------------------------------------------------------- playing (worker processes)
@dataclass
class GameTask:
    """One training game: its seed, who sits where, and the model file the learner seats load."""

    seed: int
    index: int
    opponent: str
    learner_seats: list[int]
    model_path: str
    temperature: float
    epsilon: float
    rollout_samples: int
    rollout_rounds: int
    map: str
    num_players: int
    replan: bool = False


_MODELS: dict[tuple[str, int], AfterstateModel] = {}


def _model(path: str) -> AfterstateModel:
    """The model in ``path``, loaded once per version of the file (the run rewrites it every iteration)."""
    key = (path, os.stat(path).st_mtime_ns)
    if key not in _MODELS:
        _MODELS.clear()
        _MODELS[key] = AfterstateModel.load(path)
    return _MODELS[key]


def play_training_game(task: GameTask) -> dict[str, np.ndarray]:
    """Play one game; return one row per candidate of every learner decision, with its targets.

    With ``rollout_samples`` 0 only the played candidates have a target, and only they are kept.

    Columns: ``features``; ``rollout`` (the candidate's rollout value, NaN when not
    computed); ``chosen`` (the candidate played); ``margin`` and ``win`` (the decider's final
    margin in MARGIN_SCALE units and whether they won); ``player``, ``step`` (the decider's
    decision number) and ``game``.
    """
    seeds = np.random.SeedSequence([task.seed, TRAIN_TAG]).generate_state(task.num_players + 2)
    game = Game.new(task.map, task.num_players, int(seeds[0]))
    seats: list[Agent] = []
    for p in range(task.num_players):
        if p in task.learner_seats:
            seats.append(
                RecordingAgent(SampledLearnedAgent(int(seeds[p + 1]), model=_model(task.model_path),
                                                   temperature=task.temperature, epsilon=task.epsilon,
                                                   replan=task.replan))
            )  # fmt: skip
        else:
            agent = agents.from_spec(task.opponent)
            agent.reset(int(seeds[p + 1]))
            seats.append(agent)
    while not game.is_over():
        game.step(seats[game.current_player].act(game))
    scores = game.final_scores().astype(np.float64)
    winner = game.winner()
    rng = np.random.default_rng(int(seeds[-1]))
    columns: dict[str, list] = {k: [] for k in ("features", "rollout", "chosen", "margin", "win", "player", "step")}
    for p in task.learner_seats:
        margin = (scores[p] - np.delete(scores, p).mean()) / MARGIN_SCALE
        for step, (_, cands, choice) in enumerate(seats[p].trace):  # type: ignore[attr-defined]
            # common random numbers: every candidate of a decision is rolled out with the same
            # draws, so that their differences (what the fit learns) carry little rollout noise
            draws = int(rng.integers(2**63))
            for j, option in enumerate(cands.options):
                if not task.rollout_samples and j != choice:
                    continue  # outcomes only: the played candidate is the only row with a target
                value = np.nan
                if task.rollout_samples:
                    crn = np.random.default_rng(draws)
                    value = rollout_value(option.game, p, task.rollout_rounds, task.rollout_samples, crn)
                columns["features"].append(cands.features[j])
                columns["rollout"].append(value)
                columns["chosen"].append(j == choice)
                columns["margin"].append(margin)
                columns["win"].append(float(p == winner))
                columns["player"].append(p)
                columns["step"].append(step)
    rows = len(columns["chosen"])
    return {
        "features": np.asarray(columns["features"], dtype=np.float16).reshape(rows, NUM_FEATURES),
        "rollout": np.asarray(columns["rollout"], dtype=np.float32),
        "chosen": np.asarray(columns["chosen"], dtype=bool),
        "margin": np.asarray(columns["margin"], dtype=np.float32),
        "win": np.asarray(columns["win"], dtype=np.float32),
        "player": np.asarray(columns["player"], dtype=np.int8),
        "step": np.asarray(columns["step"], dtype=np.int16),
        "game": np.full(rows, task.index, dtype=np.int32),
        "decisions": np.int64(game.decision_count),
    }


# ---------------------------------------------------------------------- targets
def lambda_returns(model_values: np.ndarray, final: np.ndarray, trajectory: np.ndarray, lam: float) -> np.ndarray:
    """λ-returns along each player's afterstates (rows of one trajectory are consecutive, in order).

    ``G_t = (1 − λ)·V(x_{t+1}) + λ·G_{t+1}``, and ``G_T`` = the final margin.
    """
    out = np.array(final, dtype=np.float32)
    if lam >= 1.0:
        return out
    for i in range(len(out) - 2, -1, -1):
        if trajectory[i] == trajectory[i + 1]:
            out[i] = (1.0 - lam) * model_values[i + 1] + lam * out[i + 1]
    return out


def predict(net: torch.nn.Module, x: torch.Tensor, rows: np.ndarray) -> np.ndarray:
    """The network's scores of the feature rows ``rows`` of ``x``, in chunks, without gradients."""
    out = []
    with torch.no_grad():
        for b in range(0, len(rows), 8192):
            out.append(net(x[torch.as_tensor(rows[b : b + 8192])].float()).numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def group_centred(values: torch.Tensor, group: torch.Tensor, groups: int) -> torch.Tensor:
    """``values`` less the mean of their group (a decision's candidates): what ranks the candidates."""
    sums = torch.zeros(groups).index_add(0, group, values)
    counts = torch.zeros(groups).index_add(0, group, torch.ones_like(values))
    return values - (sums / counts)[group]


# ---------------------------------------------------------------------- the run
class AfterstateRun(Run):
    """The loop's run (:mod:`.loop`) with afterstate value iteration's play and fit."""

    CONFIG_CLASS = AfterstateConfig
    COMMAND = "concordia train afterstate"
    TITLE = "afterstate value iteration"
    config: AfterstateConfig

    # ------------------------------------------------------------------ one iteration
    def tasks(self, iteration: int) -> list[GameTask]:
        """One task per game of the iteration (:meth:`draw_games`); the workers load the model from its file."""
        c = self.config
        return [
            GameTask(seed, i, opponent, seats, str(self.model_path), c.temperature, c.epsilon, c.rollout_samples,
                     c.rollout_rounds, c.map, c.num_players, c.replan)
            for i, (seed, opponent, seats) in enumerate(self.draw_games(TRAIN_TAG, iteration))
        ]  # fmt: skip

    def worker(self) -> Callable[[GameTask], dict[str, np.ndarray]]:
        return play_training_game

    def iteration_data(self, parts: list[dict[str, Any]], iteration: int) -> dict[str, Any]:
        data = {key: np.concatenate([p[key] for p in parts]) for key in parts[0] if key != "decisions"}
        data["game"] = data["game"] + iteration * self.config.games_per_iteration  # unique across iterations
        return data

    def fit(self, iteration: int) -> dict[str, Any]:
        """Fit the model to the buffer; keep the epoch with the lowest held-out error.

        Minibatches hold whole decisions. The loss has two parts:

        * **ranking**: for every decision with rollout values, the squared error between the
          model's and the rollout values' deviations from their decision's mean. Only
          differences between the candidates of one decision choose a turn, and they are a
          few percent of the targets' variance: fitting absolute values would spend the
          network on what all candidates share;
        * **outcome**: ``outcome_weight`` x the squared error of the played candidates against
          their lambda-returns (this anchors the model's level to the real final margin).
        """
        c = self.config
        start = time.perf_counter()
        data, decisions, rng = self.fit_start(iteration)
        x = torch.as_tensor(data["features"])  # float16; rows are converted per minibatch
        chosen = np.flatnonzero(data["chosen"])  # in trajectory order: game, player, step
        trajectory = data["game"][chosen].astype(np.int64) * 8 + data["player"][chosen]
        rollout = np.nan_to_num(data["rollout"], nan=0.0).astype(np.float32)
        has_rollout = torch.as_tensor(~np.isnan(data["rollout"]))
        played = torch.as_tensor(data["chosen"])
        ranking = bool(has_rollout.any())  # outcome targets only (rollout_samples 0): no ranking term to compute

        def outcome_targets() -> torch.Tensor:
            """lambda-returns of the played candidates, scattered to all rows (0 elsewhere)."""
            returns = lambda_returns(predict(self.net, x, chosen), data["margin"][chosen], trajectory, c.td_lambda)
            out = torch.zeros(len(played))
            out[torch.as_tensor(chosen)] = torch.as_tensor(returns)
            return out

        def loss_of(batch: np.ndarray) -> torch.Tensor:
            rows_np, group_np, _ = decisions.rows(batch)
            rows, group = torch.as_tensor(rows_np), torch.as_tensor(group_np)
            pred = self.net(x[rows].float())
            loss = torch.zeros(())
            if ranking:
                target = torch.as_tensor(rollout[rows_np])
                err = group_centred(pred, group, len(batch)) - group_centred(target, group, len(batch))
                loss = (err**2 * has_rollout[rows]).sum() / len(batch)
            if c.outcome_weight > 0:
                loss = loss + c.outcome_weight * ((pred - outcome[rows]) ** 2 * played[rows]).sum() / len(batch)
            return loss

        def held_error() -> float:
            with torch.no_grad():
                return float(loss_of(decisions.held_out)) if len(decisions.held_out) else 0.0

        outcome = outcome_targets()
        best = (held_error(), 0, self.weights())
        errors = [best[0]]

        def after_epoch() -> None:
            nonlocal outcome, best
            outcome = outcome_targets()
            errors.append(held_error())
            if errors[-1] < best[0]:
                best = (errors[-1], len(errors) - 1, self.weights())

        self.fit_epochs(decisions, rng, loss_of, after_epoch)
        self.net.load_state_dict(best[2])
        seconds = time.perf_counter() - start
        self.state.fit_seconds += seconds
        return {
            "iteration": iteration,
            "rows": int(decisions.lengths[decisions.train].sum()),
            "held_rows": int(decisions.lengths[decisions.held_out].sum()),
            "held_error": errors,
            "best_epoch": best[1],
            "a": float(self.net.a.detach()),
            "seconds": seconds,
        }

    def summary_extras(self) -> dict[str, Any]:
        return {"learner_decisions_per_second": self.state.learner_decisions / max(self.state.play_seconds, 1e-9)}

    def report_sections(self, summary: dict[str, Any]) -> list[str]:
        """Throughput, and every fit's held-out error by epoch."""
        c, s = self.config, self.state
        lines = [
            "## Throughput",
            "",
            f"- iterations: {s.iteration}, training games: {s.games:,}, "
            f"learner decisions: {s.learner_decisions:,} (all decisions: {s.decisions:,})",
            f"- playing: {s.play_seconds / 60:.1f} min with {c.workers} workers = "
            f"**{summary['games_per_hour']:,.0f} games/hour**, "
            f"**{summary['learner_decisions_per_second']:.1f} learner decisions/s**",
            f"- fitting: {s.fit_seconds / 60:.1f} min; evaluating: {s.eval_seconds / 60:.1f} min; "
            f"wall clock of the last session: {summary['wall_seconds'] / 60:.1f} min ({summary['stop_reason']})",
            "",
            "## Fits",
            "",
            "| iteration | rows | held-out rows | held-out error by epoch | best epoch | a |",
            "| ---: | ---: | ---: | --- | ---: | ---: |",
        ]
        for f in s.fits:
            errors = ", ".join(f"{e:.4f}" for e in f["held_error"])
            lines.append(f"| {f['iteration'] + 1} | {f['rows']:,} | {f['held_rows']:,} | {errors} | "
                         f"{f['best_epoch']} | {f['a']:.3f} |")  # fmt: skip
        return [*lines, ""]


# ---------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    return command_parser(
        AfterstateRun,
        "Afterstate value iteration for Concordia (docs/training.md).",
        "afterstate_*.yaml",
        [
            "concordia train afterstate --config afterstate_quick",
            "concordia train afterstate --resume runs/afterstate_quick-20260101-120000 --iterations 12",
        ],
    )


def main(argv: list[str] | None = None) -> Path:
    return run_command(build_parser(), argv, AfterstateRun)


if __name__ == "__main__":
    main()
