"""Afterstate value iteration: learn which whole turn to play, from the games' outcomes.

Usage::

    concordia train afterstate --config afterstate_quick     # 11 minutes (make run before expert_quick)
    concordia train afterstate --config afterstate_long      # the first shipped 2-player model
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

Reproducibility: every game's seed and every exploration draw come from
``SeedSequence([seed, tag, iteration, game])``; the network's initialisation and minibatch
order from ``torch.manual_seed(seed + iteration)``. A run is deterministic for its seed
(the ``time_limit_minutes`` cap aside, which stops after a whole iteration), and
``--resume`` continues after the last finished iteration exactly as an uninterrupted run
would, wherever the run was stopped (Ctrl-C in any phase, a lost worker: tested in
``tests/test_training_faults.py``). The rule that makes it so: **a resume reads only the
checkpoint**. ``checkpoint.pt`` is written in one atomic step at the end of every iteration
(and once at the start: iteration 0); nothing a resume reads is written between a fit and
its checkpoint (the evaluations play the network in memory); ``model.npz`` and
``state.json`` are copies of the checkpoint, rewritten from it by ``--resume``.

Run directory ``<runs_dir>/<name>-<timestamp>/``::

    config.yaml         resolved config (a resume's overrides included)
    data/iter_<k>.npz   the decisions played in iteration k (features, targets, game ids)
    checkpoint.pt       network, optimizer and run state (torch): what --resume reads
    state.json          run state: iteration, timings, evaluation history (a copy of the checkpoint's)
    model.npz           the current model (``agents.make("learned", path=...)``; the checkpoint's)
    evaluations.db      every evaluation game (``concordia replay <run>/evaluations.db [ID]``)
    evaluations.csv, learning_curve.png, report.md, summary.json
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import io
import itertools
import json
import os
import sys
import time
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, NoReturn

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from concordia_env import Game, agents
from concordia_env.agents.base import Agent
from concordia_env.agents.learned import LearnedAgent
from concordia_env.agents.learned_model import (
    FEATURE_COUNTS,
    MARGIN_SCALE,
    NUM_FEATURES,
    UTILITY_INDEX,
    AfterstateModel,
    rollout_value,
)
from concordia_env.strategy.afterstate_scorer import check_features_version, features_version
from concordia_env.tools.arguments import mistake_text
from concordia_env.tools.tournament import duel, run_tournament

from .config import ConfigBase, _f, add_override_arguments, overrides_from_args, resolve
from .run_evaluation import EvalResult, eval_result, eval_seed, weights_digest
from .run_report import plot_learning_curve
from .workers import WorkerLostError, open_pool

SELF = "self"
#: SeedSequence tag of the training games (evaluations are seeded by ``run_evaluation.eval_seed``)
TRAIN_TAG = 0xAF7E
#: the name the learner's seats show in the evaluation games
LEARNER = "learned (learner)"
#: the final evaluation's seed index (periodic evaluations use the iteration number)
FINAL_EVAL_INDEX = 1_000_000
#: game seeds are drawn below this bound
SEED_BOUND = 2**31
#: every HOLDOUT_EVERY-th game (by its index in the iteration) is held out for early stopping
HOLDOUT_EVERY = 10


# ---------------------------------------------------------------------- config
@dataclass
class AfterstateConfig(ConfigBase):
    """Everything an afterstate run needs; see each field's help text."""

    name: str = _f("afterstate", "run name; the run directory is <runs_dir>/<name>-<timestamp>")
    runs_dir: str = _f("runs", "where run directories are created")
    seed: int = _f(0, "seed of the games, the exploration, the network and the evaluation")
    map: str = _f("italia", "map: imperium, italia, aegyptus or creta")
    num_players: int = _f(2, "players per game")
    workers: int = _f(2, "processes that play the games (and the evaluation games)")
    torch_threads: int = _f(1, "torch threads while fitting")
    progress: bool = _f(True, "show a progress bar")

    iterations: int = _f(10, "play-and-fit iterations")
    time_limit_minutes: float | None = _f(None, "stop after the iteration that crosses this budget (null: none)")
    games_per_iteration: int = _f(200, "games played with the current model per iteration")
    opponent_shares: dict = field(
        default_factory=lambda: {SELF: 0.5, "heuristic": 0.5},
        metadata={"help": "share of training games against each opponent: 'self' (the learner) or an agent spec"},
    )
    temperature: float = _f(0.05, "exploration softmax temperature, in units of MARGIN_SCALE VP")
    rollout_samples: int = _f(8, "rollouts per candidate for the dense targets (0: outcomes only)")
    rollout_rounds: int = _f(1, "rounds each target rollout plays before the position is scored")
    outcome_weight: float = _f(1.0, "weight of the outcome (lambda-return) loss beside the rollout loss")
    epsilon: float = _f(0.3, "probability that a decision samples from the softmax instead of taking the best turn")
    replan: bool = _f(
        False,
        "the learner decides at every decision (the learned agent's default) instead of "
        "following its chosen turn's plan (what the runs before played; false keeps them reproducible)",
    )

    hidden: list = field(default_factory=lambda: [64, 64], metadata={"help": "hidden layer sizes of the MLP"})
    features_version: int = _f(1, "the feature version the model reads (agents.learned_model.FEATURE_COUNTS)")
    init_model: str | None = _f(
        None,
        "start from this saved model instead of the heuristic's ranking (a warm start, e.g. the shipped "
        "concordia_env/agents/models/learned-italia-2p.npz for another map or player count; "
        "its layers must match 'hidden'; a model of an older features_version is widened)",
    )
    learning_rate: float = _f(1e-3, "AdamW learning rate")
    weight_decay: float = _f(1e-4, "AdamW weight decay")
    batch_size: int = _f(512, "minibatch size")
    epochs: int = _f(4, "passes over the buffer per iteration (the best held-out epoch is kept)")
    buffer_games: int = _f(4000, "the fit uses the decisions of the last this many games")
    td_lambda: float = _f(1.0, "lambda of the lambda-return targets (1: the final margin)")

    eval_every: int = _f(1, "iterations between evaluations (0: none)")
    eval_games: int = _f(100, "games per opponent in each periodic evaluation")
    eval_opponents: list = field(
        default_factory=lambda: ["heuristic"], metadata={"help": "agent specs to evaluate against"}
    )
    final_eval_games: dict = field(
        default_factory=lambda: {"random": 200, "heuristic": 200},
        metadata={"help": "games per opponent spec in the final evaluation"},
    )
    eval_max_turns: int = _f(1000, "evaluation games still running after this many turns are scored as they stand")

    def validate(self) -> None:
        for name in ("num_players", "workers", "iterations", "games_per_iteration", "batch_size", "epochs"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.rollout_samples < 0 or self.rollout_rounds <= 0 or self.outcome_weight < 0:
            raise ValueError("rollout_samples and outcome_weight must be >= 0, rollout_rounds positive")
        if self.rollout_samples == 0 and self.outcome_weight == 0:
            raise ValueError("with rollout_samples 0 the outcome is the only target: outcome_weight must be positive")
        for name in ("buffer_games", "eval_max_turns", "torch_threads"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.eval_every < 0 or self.eval_games < 0:
            raise ValueError("eval_every and eval_games must be >= 0")
        if not 0.0 <= self.epsilon <= 1.0 or self.temperature < 0:
            raise ValueError(f"epsilon must be in 0..1 and temperature >= 0, got {self.epsilon}, {self.temperature}")
        if not 0.0 <= self.td_lambda <= 1.0:
            raise ValueError(f"td_lambda must be in 0..1, got {self.td_lambda}")
        if not self.hidden or any(int(n) <= 0 for n in self.hidden):
            raise ValueError(f"hidden must be a non-empty list of positive sizes, got {self.hidden}")
        check_features_version(self.features_version)
        shares = self.opponent_shares
        if not shares or any(v < 0 for v in shares.values()) or sum(shares.values()) <= 0:
            raise ValueError(f"opponent_shares must be non-negative weights, not all zero, got {shares}")
        for spec in [*shares, *self.eval_opponents, *self.final_eval_games]:
            # an unknown agent fails now, not after an hour of training
            if spec != SELF and agents.parse_spec(spec)[0] not in agents.names():
                raise ValueError(f"unknown agent {spec!r}; known agents: {', '.join(agents.names())}")
        Game.new(self.map, self.num_players, 0)  # a map / player count the rules refuse fails now


# ---------------------------------------------------------------------- the network (torch twin of the numpy model)
class AfterstateNet(nn.Module):
    """``a·u + b + MLP(x)``, trained here and exported to :class:`AfterstateModel` for play.

    The rows it is given hold the newest version's features (what the buffers store); the
    MLP reads the first ``num_features`` of them, its version's.
    """

    def __init__(self, hidden: list[int], num_features: int = NUM_FEATURES) -> None:
        super().__init__()
        self.num_features = num_features
        sizes = [num_features, *[int(h) for h in hidden]]
        layers: list[nn.Module] = []
        for i, o in itertools.pairwise(sizes):
            layers += [nn.Linear(i, o), nn.ReLU()]
        head = nn.Linear(sizes[-1], 1)
        self.mlp = nn.Sequential(*layers, head)
        nn.init.zeros_(head.weight)  # untrained: the heuristic's ranking
        nn.init.zeros_(head.bias)
        self.a = nn.Parameter(torch.tensor(1.0))
        self.b = nn.Parameter(torch.tensor(0.0))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.a * x[:, UTILITY_INDEX] + self.b + self.mlp(x[:, : self.num_features]).squeeze(-1)

    def load_model(self, model: AfterstateModel) -> None:
        """Take the weights of a saved model (a warm start); its layer sizes must be this net's.

        A model of an older feature version is widened first (zero weights on the new
        features: it starts out scoring as it did).
        """
        if model.num_features < self.num_features:
            model = model.widened(features_version(self.num_features))
        linears = [m for m in self.mlp if isinstance(m, nn.Linear)]
        shapes = [tuple(m.weight.shape[::-1]) for m in linears]
        given = [tuple(w.shape) for w in model.weights]
        if shapes != given:
            raise ValueError(f"the model's layers {given} do not match this config's {shapes} (see 'hidden')")
        with torch.no_grad():
            for m, w, b in zip(linears, model.weights, model.biases, strict=True):
                m.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
                m.bias.copy_(torch.from_numpy(b))
            self.a.fill_(model.a)
            self.b.fill_(model.b)

    def export(self, metadata: dict[str, Any]) -> AfterstateModel:
        linears = [m for m in self.mlp if isinstance(m, nn.Linear)]
        return AfterstateModel(
            [m.weight.detach().numpy().T for m in linears],
            [m.bias.detach().numpy() for m in linears],
            float(self.a.detach()),
            float(self.b.detach()),
            metadata,
        )


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
                LearnedAgent(int(seeds[p + 1]), model=_model(task.model_path), temperature=task.temperature,
                             epsilon=task.epsilon, record=True, replan=task.replan)
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


# ---------------------------------------------------------------------- the run
def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that the file is the old one or the new one, whole, whenever the run stops."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def save_npz_atomic(path: Path, arrays: dict[str, Any]) -> None:
    """``np.savez`` of ``arrays`` to ``path``, atomically (:func:`write_atomic`)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    write_atomic(path, buffer.getvalue())


@dataclass
class RunState:
    """What ``state.json`` carries between sessions."""

    iteration: int = 0
    games: int = 0
    decisions: int = 0
    learner_decisions: int = 0
    play_seconds: float = 0.0
    fit_seconds: float = 0.0
    eval_seconds: float = 0.0
    sessions: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    fits: list[dict[str, Any]] = field(default_factory=list)

    def results(self) -> list[EvalResult]:
        return [EvalResult.from_dict(r) for r in self.history]


class Run:
    """One run directory: config, data, model, state.

    Another training script reuses it by subclassing: the class attributes below name its
    config and state classes, the keys a resume may change and the command that makes it.
    """

    CONFIG, STATE, CHECKPOINT, MODEL = "config.yaml", "state.json", "checkpoint.pt", "model.npz"
    #: every evaluation game, replayable by its id (``concordia replay``)
    EVAL_DB = "evaluations.db"
    CONFIG_CLASS: type[ConfigBase] = AfterstateConfig
    STATE_CLASS: type[RunState] = RunState
    #: the command that trains a run of this kind (the models' metadata and the messages)
    COMMAND = "concordia train afterstate"

    def __init__(self, run_dir: Path, config: Any, state: RunState) -> None:
        self.run_dir = Path(run_dir)
        self.config = config
        self.state = state
        self.net = AfterstateNet(config.hidden, FEATURE_COUNTS[config.features_version])
        self.optimizer = torch.optim.AdamW(
            self.net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        self.wall_start = time.perf_counter()

    @classmethod
    def create(cls, config: Any) -> Run:
        # a missing or mismatched warm-start model is refused before anything is written
        init = None if config.init_model is None else AfterstateModel.load(config.init_model)
        if init is not None:
            AfterstateNet(config.hidden, FEATURE_COUNTS[config.features_version]).load_model(init)
        stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
        run_dir = Path(config.runs_dir) / f"{config.name}-{stamp}"
        suffix = 1
        while run_dir.exists():
            run_dir = Path(config.runs_dir) / f"{config.name}-{stamp}-{suffix}"
            suffix += 1
        (run_dir / "data").mkdir(parents=True)
        config.save(run_dir / cls.CONFIG)
        torch.manual_seed(config.seed)
        run = cls(run_dir, config, cls.STATE_CLASS())
        if init is not None:
            run.net.load_model(init)
        run.checkpoint()  # iteration 0: a run interrupted in its first iteration resumes from here
        return run

    @classmethod
    def open(cls, run_dir: Path, overrides: dict[str, Any]) -> Run:
        """The run in ``run_dir`` as its last checkpoint left it, with ``overrides`` (resumable keys).

        Everything is read from the checkpoint (``checkpoint.pt``: network, optimizer and run
        state, written in one step), never from a file written after it: ``model.npz`` and
        ``state.json`` are rewritten from it, so a run interrupted between its fit and its
        checkpoint replays that iteration with the model that began it. A refused resume
        (a missing or damaged checkpoint, a key that cannot change) changes no file.
        """
        run_dir = Path(run_dir)
        if not run_dir.is_dir():
            raise FileNotFoundError(f"{run_dir} is not a run directory: nothing to resume")
        if not (run_dir / cls.CHECKPOINT).is_file():
            raise FileNotFoundError(
                f"{run_dir} has no {cls.CHECKPOINT}: not a run directory, or one stopped before its first "
                "checkpoint; nothing to resume"
            )
        fixed = sorted(set(overrides) - set(cls.resumable()))
        if fixed:
            changeable = ", ".join(cls.resumable())
            raise ValueError(f"{', '.join(fixed)} cannot change when resuming; changeable: {changeable}")
        config = resolve(run_dir / cls.CONFIG, overrides, cls.CONFIG_CLASS)
        try:
            checkpoint = torch.load(run_dir / cls.CHECKPOINT, weights_only=False)
            # runs checkpointed before the state moved into checkpoint.pt kept it in state.json only
            saved = checkpoint["state"] if "state" in checkpoint else json.loads((run_dir / cls.STATE).read_text())
            state = cls.STATE_CLASS(**saved)
            run = cls(run_dir, config, state)
            run.net.load_state_dict(checkpoint["net"])
            run.optimizer.load_state_dict(checkpoint["optimizer"])
        except Exception as err:  # torch, pickle, JSON and zip errors alike: the checkpoint is not usable
            raise ValueError(f"{run_dir / cls.CHECKPOINT} cannot be resumed: {type(err).__name__}: {err}") from err
        config.save(run_dir / cls.CONFIG)
        run.write_checkpoint_copies()  # a model.npz newer than the checkpoint is replaced by the checkpoint's
        return run

    @classmethod
    def resumable(cls) -> tuple[str, ...]:
        """The config keys a resume may change."""
        return RESUMABLE

    @classmethod
    def preflight(cls, config: Any) -> None:
        """Checks of the world outside the config (a cluster's address), before the run starts: none here."""

    # ------------------------------------------------------------------ files
    @property
    def model_path(self) -> Path:
        return self.run_dir / self.MODEL

    def metadata(self) -> dict[str, Any]:
        return {
            "map": self.config.map,
            "num_players": self.config.num_players,
            "iteration": self.state.iteration,
            "games": self.state.games,
            "config": self.config.to_dict(),
            "command": f"{self.COMMAND} --config <config> (run {self.run_dir.name})",
        }

    def current_model(self) -> AfterstateModel:
        """The network as it is now, as a model (exactly what ``model.npz`` holds once checkpointed)."""
        return AfterstateModel.load_bytes(self.net.export(self.metadata()).to_bytes())

    def save_model(self) -> None:
        write_atomic(self.model_path, self.net.export(self.metadata()).to_bytes())

    def checkpoint(self) -> None:
        """The end of an iteration: network, optimizer and run state in ``checkpoint.pt``, in one step.

        ``checkpoint.pt`` is replaced atomically (a temporary file, then ``os.replace``): a
        run stopped at any moment has the old checkpoint or the new one, whole. Only then are
        ``model.npz`` and ``state.json`` written, copies of it (each atomically): the current
        model for people and agents, the state for people. ``--resume`` reads the checkpoint
        alone (:meth:`open`).
        """
        buffer = io.BytesIO()
        state = {"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict(), "state": asdict(self.state)}
        torch.save(state, buffer)
        write_atomic(self.run_dir / self.CHECKPOINT, buffer.getvalue())
        self.write_checkpoint_copies()

    def write_checkpoint_copies(self) -> None:
        """``model.npz`` and ``state.json`` from the checkpoint in memory (see :meth:`checkpoint`)."""
        self.save_model()
        write_atomic(self.run_dir / self.STATE, json.dumps(asdict(self.state), indent=1).encode())

    # ------------------------------------------------------------------ one iteration
    def tasks(self, iteration: int) -> list[GameTask]:
        """The games of one iteration, decided by the seed alone."""
        c = self.config
        seq = np.random.SeedSequence([c.seed, TRAIN_TAG, iteration])
        seeds = seq.generate_state(c.games_per_iteration, dtype=np.uint64) % SEED_BOUND
        rng = np.random.default_rng(seq.spawn(1)[0])
        kinds = list(c.opponent_shares)
        shares = np.array([c.opponent_shares[k] for k in kinds], dtype=np.float64)
        out = []
        for i, seed in enumerate(seeds):
            opponent = kinds[int(rng.choice(len(kinds), p=shares / shares.sum()))]
            seats = list(range(c.num_players)) if opponent == SELF else [i % c.num_players]
            out.append(GameTask(int(seed), i, opponent, seats, str(self.model_path), c.temperature, c.epsilon,
                                c.rollout_samples, c.rollout_rounds, c.map, c.num_players, c.replan))  # fmt: skip
        return out

    def play(self, pool: Any, iteration: int, bar: tqdm | None) -> None:
        start = time.perf_counter()
        parts = []
        for part in pool.imap(play_training_game, self.tasks(iteration)):
            parts.append(part)
            if bar is not None:
                bar.update(1)
        data: dict[str, Any] = {key: np.concatenate([p[key] for p in parts]) for key in parts[0] if key != "decisions"}
        data["game"] = data["game"] + iteration * self.config.games_per_iteration  # unique across iterations
        save_npz_atomic(self.run_dir / "data" / f"iter_{iteration:04d}.npz", data)
        self.state.games += len(parts)
        self.state.decisions += int(sum(int(p["decisions"]) for p in parts))
        self.state.learner_decisions += int(data["chosen"].sum())
        self.state.play_seconds += time.perf_counter() - start

    def buffer(self, iteration: int) -> dict[str, np.ndarray]:
        """The decisions of the last ``buffer_games`` games, up to and including ``iteration``."""
        per_iteration = self.config.games_per_iteration
        first = max(0, iteration + 1 - -(-self.config.buffer_games // per_iteration))
        files = [self.run_dir / "data" / f"iter_{k:04d}.npz" for k in range(first, iteration + 1)]
        parts = [dict(np.load(f)) for f in files]
        return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}

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
        torch.manual_seed(c.seed * 1_000_003 + iteration)
        rng = np.random.default_rng([c.seed, iteration])
        data = self.buffer(iteration)
        x = torch.as_tensor(data["features"])  # float16; rows are converted per minibatch
        key = (data["game"].astype(np.int64) * 8 + data["player"]) * 100_000 + data["step"]
        first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])  # rows of a decision are consecutive
        lengths = np.diff(np.r_[first, len(key)])
        chosen = np.flatnonzero(data["chosen"])  # in trajectory order: game, player, step
        trajectory = data["game"][chosen].astype(np.int64) * 8 + data["player"][chosen]
        rollout = np.nan_to_num(data["rollout"], nan=0.0).astype(np.float32)
        has_rollout = torch.as_tensor(~np.isnan(data["rollout"]))
        played = torch.as_tensor(data["chosen"])
        held = data["game"][first] % HOLDOUT_EVERY == 0
        train_decisions, held_decisions = np.flatnonzero(~held), np.flatnonzero(held)

        def rows_of(decisions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            """The rows of these decisions and, for each row, its decision's position in the batch."""
            lens = lengths[decisions]
            offsets = np.repeat(np.cumsum(lens) - lens, lens)
            rows = np.repeat(first[decisions], lens) + np.arange(lens.sum()) - offsets
            return rows, np.repeat(np.arange(len(decisions)), lens)

        def predict(rows: np.ndarray) -> np.ndarray:
            out = []
            with torch.no_grad():
                for b in range(0, len(rows), 8192):
                    out.append(self.net(x[torch.as_tensor(rows[b : b + 8192])].float()).numpy())
            return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

        def outcome_targets() -> torch.Tensor:
            """lambda-returns of the played candidates, scattered to all rows (0 elsewhere)."""
            returns = lambda_returns(predict(chosen), data["margin"][chosen], trajectory, c.td_lambda)
            out = torch.zeros(len(key))
            out[torch.as_tensor(chosen)] = torch.as_tensor(returns)
            return out

        def group_centred(values: torch.Tensor, group: torch.Tensor, groups: int) -> torch.Tensor:
            sums = torch.zeros(groups).index_add(0, group, values)
            counts = torch.zeros(groups).index_add(0, group, torch.ones_like(values))
            return values - (sums / counts)[group]

        ranking = bool(has_rollout.any())  # outcome targets only (rollout_samples 0): no ranking term to compute

        def loss_of(decisions: np.ndarray, outcome: torch.Tensor) -> torch.Tensor:
            rows_np, group_np = rows_of(decisions)
            rows, group = torch.as_tensor(rows_np), torch.as_tensor(group_np)
            pred = self.net(x[rows].float())
            loss = torch.zeros(())
            if ranking:
                target = torch.as_tensor(rollout[rows_np])
                err = group_centred(pred, group, len(decisions)) - group_centred(target, group, len(decisions))
                loss = (err**2 * has_rollout[rows]).sum() / len(decisions)
            if c.outcome_weight > 0:
                mine = played[rows]
                loss = loss + c.outcome_weight * ((pred - outcome[rows]) ** 2 * mine).sum() / len(decisions)
            return loss

        def held_error(outcome: torch.Tensor) -> float:
            with torch.no_grad():
                return float(loss_of(held_decisions, outcome)) if len(held_decisions) else 0.0

        outcome = outcome_targets()
        best = (held_error(outcome), 0, {k: v.clone() for k, v in self.net.state_dict().items()})
        errors = [best[0]]
        decisions_per_batch = max(1, c.batch_size // max(1, int(lengths.mean())))
        for epoch in range(1, c.epochs + 1):
            self.net.train()
            order = rng.permutation(train_decisions)
            for b in range(0, len(order), decisions_per_batch):
                loss = loss_of(order[b : b + decisions_per_batch], outcome)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.net.eval()
            outcome = outcome_targets()
            error = held_error(outcome)
            errors.append(error)
            if error < best[0]:
                best = (error, epoch, {k: v.clone() for k, v in self.net.state_dict().items()})
        self.net.load_state_dict(best[2])
        seconds = time.perf_counter() - start
        self.state.fit_seconds += seconds
        return {
            "iteration": iteration,
            "rows": int(lengths[train_decisions].sum()),
            "held_rows": int(lengths[held_decisions].sum()),
            "held_error": errors,
            "best_epoch": best[1],
            "a": float(self.net.a.detach()),
            "seconds": seconds,
        }

    def evaluate(self, opponent: str, games: int, index: int) -> EvalResult:
        """The greedy learner against ``opponent`` in every other seat: evaluation number ``index``.

        The current network (:meth:`current_model`) plays as an agent object in the seats named
        ``LEARNER``; the games go to ``evaluations.db``, in a tournament named by the model's
        weights (``given_version``): an interrupted evaluation goes on where it stopped, and
        the final evaluation of a run resumed for more iterations plays the new model.
        """
        start = time.perf_counter()
        c = self.config
        model = self.current_model()
        config = duel(
            LEARNER,
            opponent,
            map=c.map,
            players=c.num_players,
            games=games,
            seed=eval_seed(c.seed, index),
            max_turns=c.eval_max_turns,
            given_version=weights_digest(model.compiled),  # games of another model are not read back
        )
        learner = LearnedAgent(model=model, replan=c.replan)
        played = run_tournament(config, db=self.run_dir / self.EVAL_DB, workers=c.workers, given={LEARNER: learner})
        seconds = time.perf_counter() - start
        self.state.eval_seconds += seconds
        result = eval_result(opponent, played.records, LEARNER, seconds)
        result.timesteps = self.state.learner_decisions
        return result

    # ------------------------------------------------------------------ the loop
    def train(self) -> str:
        c = self.config
        torch.set_num_threads(c.torch_threads)
        self.state.sessions += 1
        reason = "completed"
        self.warm_up()
        with self.open_pool() as pool:
            while self.state.iteration < c.iterations:
                k = self.state.iteration
                bar = tqdm(total=c.games_per_iteration, desc=f"iteration {k + 1}/{c.iterations}", unit="game",
                           disable=not c.progress, file=sys.stderr, dynamic_ncols=True)  # fmt: skip
                self.play(pool, k, bar)
                bar.close()
                fit = self.fit(k)
                self.state.fits.append(fit)
                self.report_fit(k, fit)
                self.state.iteration = k + 1
                # nothing is written between the fit and the checkpoint that a resume would read:
                # the evaluation plays the network in memory, model.npz is the checkpoint's
                if c.eval_every and c.eval_games and (k + 1) % c.eval_every == 0:
                    for opponent in c.eval_opponents:
                        result = self.evaluate(opponent, c.eval_games, k)
                        self.state.history.append(result.to_dict())
                        print(f"iteration {k + 1}: {result.summary()}", file=sys.stderr)
                self.checkpoint()
                self.write_eval_csv()
                print(self.progress_line(), file=sys.stderr)
                limit = c.time_limit_minutes
                if limit is not None and self.training_seconds() >= 60 * limit and self.state.iteration < c.iterations:
                    reason = (
                        f"CUT SHORT by the time limit of {limit:g} minutes after iteration {k + 1} of "
                        f"{c.iterations}: not the config's result (a slow or busy machine); "
                        f"continue with --resume {self.run_dir}"
                    )
                    break
        return reason

    def progress_line(self) -> str:
        """After an iteration: how far the run is, the time so far, and the time left at this pace."""
        done, total = self.state.iteration, self.config.iterations
        spent = self.training_seconds()
        left = spent / max(done, 1) * (total - done)
        return f"iteration {done}/{total} done: {spent / 60:.1f} min so far, about {left / 60:.1f} min left (this pace)"

    def warm_up(self) -> None:
        """Before the pool starts (its forked workers inherit what this compiles): nothing here."""

    def open_pool(self) -> contextlib.AbstractContextManager[Any]:
        """The pool the iterations play in: ``workers`` forked processes (:func:`.workers.open_pool`)."""
        return open_pool("multiprocessing", self.config.workers)

    def report_fit(self, iteration: int, fit: dict[str, Any]) -> None:
        """What to print after a fit (the report has every fit): nothing here."""

    def training_seconds(self) -> float:
        """Time spent playing, fitting and evaluating, all sessions together (what the time limit counts)."""
        return self.state.play_seconds + self.state.fit_seconds + self.state.eval_seconds

    def write_eval_csv(self) -> None:
        keys = list(EvalResult.__dataclass_fields__)
        with (self.run_dir / "evaluations.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=keys)
            writer.writeheader()
            writer.writerows(self.state.history)

    def finish(self, stop_reason: str) -> Path:
        """Final evaluation, curve, report and summary; returns the report's path."""
        c = self.config
        final = [self.evaluate(opponent, int(n), FINAL_EVAL_INDEX) for opponent, n in c.final_eval_games.items()]
        plot_learning_curve(self.state.results(), final, c.num_players, self.run_dir / "learning_curve.png",
                            f"{c.name}: {c.num_players}-player {c.map}", xlabel="learner decisions")  # fmt: skip
        summary = {
            "iterations": self.state.iteration,
            "games": self.state.games,
            "decisions": self.state.decisions,
            "learner_decisions": self.state.learner_decisions,
            "play_seconds": self.state.play_seconds,
            "fit_seconds": self.state.fit_seconds,
            "eval_seconds": self.state.eval_seconds,
            "games_per_hour": 3600 * self.state.games / max(self.state.play_seconds, 1e-9),
            "learner_decisions_per_second": self.state.learner_decisions / max(self.state.play_seconds, 1e-9),
            "wall_seconds": time.perf_counter() - self.wall_start,
            "stop_reason": stop_reason,
            "model_path": str(self.model_path),
            "final": [r.to_dict() for r in final],
        }
        (self.run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
        report = write_report(self, summary, final)
        return report


#: config keys a resume may change
RESUMABLE = ("iterations", "time_limit_minutes", "workers", "torch_threads", "progress", "eval_every", "eval_games",
             "eval_opponents", "final_eval_games", "eval_max_turns")  # fmt: skip


def write_report(run: Run, summary: dict[str, Any], final: list[EvalResult]) -> Path:
    c = run.config
    lines = [
        f"# {c.name}: afterstate value iteration, {c.num_players}-player {c.map}",
        "",
        f"Seed **{c.seed}**; config `{run.run_dir / Run.CONFIG}`; reproduce with "
        f"`concordia train afterstate --config <that file>` (the run is deterministic for its seed).",
        "",
        "## Final evaluation",
        "",
        "Greedy learner (`agents.make('learned', path=...)`) against each opponent; fresh seeds, seats rotated, "
        "95% Wilson intervals.",
        "",
        "| opponent | games | wins | win rate | 95% CI | mean VP | opponents' mean VP |",
        "| --- | ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for r in final:
        lines.append(
            f"| {r.opponent} | {r.games} | {r.wins} | {r.win_rate:.1%} | {r.ci_low:.1%} – {r.ci_high:.1%} | "
            f"{r.mean_vp:.1f} | {r.mean_opponent_vp:.1f} |"
        )
    lines += [
        "",
        "## Learning curve",
        "",
        "![learning curve](learning_curve.png)",
        "",
        "| evaluation | learner decisions so far | opponent | games | win rate | 95% CI |",
        "| ---: | ---: | --- | ---: | ---: | --- |",
    ]
    per_eval = max(1, len(c.eval_opponents))
    for k, r in enumerate(run.state.results()):
        lines.append(f"| {k // per_eval + 1} | {r.timesteps:,} | {r.opponent} | {r.games} | {r.win_rate:.1%} | "
                     f"{r.ci_low:.1%} – {r.ci_high:.1%} |")  # fmt: skip
    lines += [
        "",
        "## Throughput",
        "",
        f"- iterations: {summary['iterations']}, training games: {summary['games']:,}, "
        f"learner decisions: {summary['learner_decisions']:,} (all decisions: {summary['decisions']:,})",
        f"- playing: {summary['play_seconds'] / 60:.1f} min with {c.workers} workers = "
        f"**{summary['games_per_hour']:,.0f} games/hour**, "
        f"**{summary['learner_decisions_per_second']:.1f} learner decisions/s**",
        f"- fitting: {summary['fit_seconds'] / 60:.1f} min; evaluating: {summary['eval_seconds'] / 60:.1f} min; "
        f"wall clock of the last session: {summary['wall_seconds'] / 60:.1f} min ({summary['stop_reason']})",
        "",
        "## Fits",
        "",
        "| iteration | rows | held-out rows | held-out error by epoch | best epoch | a |",
        "| ---: | ---: | ---: | --- | ---: | ---: |",
    ]
    for f in run.state.fits:
        errors = ", ".join(f"{e:.4f}" for e in f["held_error"])
        lines.append(f"| {f['iteration'] + 1} | {f['rows']:,} | {f['held_rows']:,} | {errors} | "
                     f"{f['best_epoch']} | {f['a']:.3f} |")  # fmt: skip
    lines += ["", "## Config", "", "```yaml", c.to_yaml().rstrip(), "```", ""]
    path = run.run_dir / "report.md"
    path.write_text("\n".join(lines))
    return path


# ---------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="concordia train afterstate",
        description="Afterstate value iteration for Concordia (docs/training.md).",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=(
            "examples:\n"
            "  concordia train afterstate --config afterstate_quick\n"
            "  concordia train afterstate --resume runs/afterstate_quick-20260101-120000 --iterations 12\n"
            "values are read as YAML: --hidden '[128, 128]' --opponent_shares '{self: 1}'"
        ),
    )
    parser.add_argument("--config", help="YAML config file (concordia_env/training/configs/afterstate_*.yaml)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR after its last iteration")
    add_override_arguments(parser, AfterstateConfig)
    return parser


def main(argv: list[str] | None = None) -> Path:
    return run_command(build_parser(), argv, Run)


def run_command(parser: argparse.ArgumentParser, argv: list[str] | None, run_class: type[Run]) -> Path:
    """A training command's main: create (or ``--resume``) the run, train, finish; returns the report's path.

    Shared by every command whose run is a :class:`Run` (``concordia train afterstate``,
    ``concordia train expert``): its config class and command name come from ``run_class``.

    A person's mistake ends the command with one line on stderr and no traceback, before
    any training: a config file or run directory that is missing or unreadable, a value the
    config refuses, a ``--runs_dir`` that cannot be written (exit status 2). Ctrl-C (status
    130) and a lost worker (status 1) end it with the ``--resume`` command that continues it
    from its last checkpoint; every run has one from its start (iteration 0).
    """
    config_class = run_class.CONFIG_CLASS
    args = parser.parse_args(argv)

    def refuse(message: str) -> NoReturn:
        print(f"{parser.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)

    try:
        overrides = overrides_from_args(args, config_class)
        if args.resume:
            if args.config:
                refuse("--resume takes the run's own config.yaml; give changes as --key value options")
            saved = Path(args.resume) / run_class.CONFIG
            if saved.is_file():  # before open() rewrites the run's files with the overrides
                run_class.preflight(resolve(saved, overrides, config_class))
            run = run_class.open(Path(args.resume), overrides)
            print(f"resuming {run.run_dir} after iteration {run.state.iteration}", file=sys.stderr)
        else:
            config = resolve(args.config, overrides, config_class)
            run_class.preflight(config)
            run = run_class.create(config)
            print(f"run directory: {run.run_dir}", file=sys.stderr)
    except KeyboardInterrupt:
        if args.resume:
            print(f"\ninterrupted; continue with: {run_class.COMMAND} --resume {args.resume}", file=sys.stderr)
        else:
            print("\ninterrupted before the run's first checkpoint: there is nothing to resume", file=sys.stderr)
        raise SystemExit(130) from None
    except (OSError, ValueError, TypeError) as err:
        refuse(mistake_text(err))
    resume = f"{run_class.COMMAND} --resume {run.run_dir}"
    try:
        reason = run.train()
        report = run.finish(reason)
    except KeyboardInterrupt:
        print(f"\ninterrupted; continue with: {resume}", file=sys.stderr)
        raise SystemExit(130) from None
    except (WorkerLostError, BrokenProcessPool) as err:
        lost = str(err) if isinstance(err, WorkerLostError) else "a worker process died (killed, or out of memory?)"
        print(f"{parser.prog}: {lost}; the run stops at its last checkpoint: continue with: {resume}", file=sys.stderr)
        raise SystemExit(1) from None
    summary = json.loads((run.run_dir / "summary.json").read_text())
    print(f"trained {summary['iterations']} iterations, {summary['games']:,} games ({reason})")
    for r in summary["final"]:
        print(EvalResult.from_dict(r).summary())
    print(f"model: {run.model_path}")
    print(f"report: {report}")
    return report


if __name__ == "__main__":
    main()
