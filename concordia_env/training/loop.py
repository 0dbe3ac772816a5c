"""The one training loop: advance, evaluate, checkpoint, time guard, report; methods plug in.

:class:`TrainingRun` is the loop and its run folder, whatever the method trains: a new run
folder locked from its first file (:meth:`TrainingRun.create`), ``--resume`` from the last
checkpoint with the resumable overrides (:meth:`TrainingRun.open`), the iterations
(:meth:`TrainingRun.train`: inside the method's **session**, each iteration **advances** the
run, **evaluates** it when due, applies the **time limit**, a guard, and writes the
**checkpoint** with a progress line), and the end (:meth:`TrainingRun.finish`: the final
evaluation, the learning curve, ``summary.json``, the report). :func:`run_command` is every
method's ``main``: one line for a person's mistake, Ctrl-C in one line with the command that
resumes (exit status 130). Four methods run it:

* afterstate value iteration (:mod:`.afterstate_learning`, ``concordia train afterstate``):
  targets from the games' outcomes and short rollouts;
* expert iteration (:mod:`.expert_iteration`, ``concordia train expert``): targets from the
  tree search's labels;
* self-play PPO (:mod:`.selfplay`, ``concordia train selfplay``): its
  :class:`~concordia_env.training.selfplay.SelfPlayRun` advances by one PPO update of
  MaskablePPO per iteration and checkpoints every ``checkpoint_every`` timesteps (its own
  files: see its module).
* PPO on the options level in one file (:mod:`.ppo_options`, ``concordia train
  ppo_options``): its :class:`~concordia_env.training.ppo_options.OptionsPPORun` advances by
  one CleanRL-style PPO update per iteration, checkpoints every ``save_every`` updates and
  keeps its own folder layout (``config.json``, ``progress.jsonl``, ``eval.json``: see its module).

The first two train the ``learned`` agent's network (:class:`.afterstate_net.AfterstateNet`)
in :class:`Run`, the loop's part for it; they differ only in how an iteration's games are
played and what the network is fitted to. One iteration (:meth:`Run.advance`): the method
**plays** the iteration's games in a pool (:meth:`Run.play`, writing ``data/iter_<k>.npz``)
and **fits** the network to the buffer of the last games (:meth:`Run.fit`); the loop then
**evaluates** the network in memory every ``eval_every`` iterations (:meth:`Run.evaluate`:
the project's one evaluation, fresh seeds, seats rotated, 95% Wilson intervals, every game
stored in ``evaluations.db``), writes the **checkpoint** and prints the progress. At the end
it plays the final evaluation and writes the **report** (:meth:`TrainingRun.finish`): the
loop's sections, and the method's own (:meth:`Run.report_sections`).

A method of the network is a subclass of :class:`Run` that names its config (a :class:`LoopConfig`, the keys
every method shares, with its own) and state classes, its command and its words for the
report, and supplies its games (``tasks`` from :meth:`Run.draw_games`, the ``worker`` that
plays one, ``iteration_data``), ``fit`` and ``report_sections`` (and, if it needs them,
``games_in``, ``count_play``, ``warm_up``, ``open_pool``, ``preflight`` and
``summary_extras``). Every ``fit`` has one skeleton: :meth:`Run.fit_start` (torch seeded for
the iteration, the buffer, its :class:`Decisions` with every ``HOLDOUT_EVERY``-th game held
out) and :meth:`Run.fit_epochs` (shuffled minibatches of whole decisions), the method
supplying the loss and what it measures after each epoch. :func:`run_command` holds the run
folder's lock (:class:`.run_folder.RunLock`) from the folder's first file to its end.

Reproducibility, the rule: **a resume reads only the checkpoint**. ``checkpoint.pt``
(network, optimizer and run state) is written in one atomic step at the end of every
iteration and once at the start (iteration 0); nothing a resume reads is written between a
fit and its checkpoint (the evaluations play the network in memory); ``model.npz`` and
``state.json`` are copies of the checkpoint, rewritten from it by ``--resume``. So a run
stopped anywhere (Ctrl-C in any phase, a lost worker) continues after its last finished
iteration exactly as an uninterrupted run would (``tests/test_training_faults.py``).

Run directory of the network's runs, ``<runs_dir>/<name>-<timestamp>/``::

    config.yaml         resolved config (a resume's overrides included)
    data/iter_<k>.npz   the decisions played in iteration k (the method's columns)
    checkpoint.pt       network, optimizer and run state (torch): what --resume reads
    state.json          run state: iteration, timings, evaluation history (a copy of the checkpoint's)
    model.npz           the current model (``agents.make("learned", path=...)``; the checkpoint's)
    evaluations.db      every evaluation game (``concordia replay <run>/evaluations.db [ID]``)
    evaluations.csv, learning_curve.png, report.md, summary.json
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, ClassVar, NoReturn, TypeVar

import numpy as np
import torch
from tqdm import tqdm

from concordia_env import Game, agents
from concordia_env.agents.learned import GreedyLearnedAgent
from concordia_env.agents.learned_model import FEATURE_COUNTS, AfterstateModel
from concordia_env.strategy import check_features_version
from concordia_env.tools.arguments import mistake_text
from concordia_env.tools.tournament import duel, run_tournament

from .afterstate_net import AfterstateNet
from .config import (
    ConfigBase,
    _f,
    add_override_arguments,
    check_positive,
    check_time_limit,
    overrides_from_args,
    resolve,
    resume_overrides,
)
from .run_evaluation import EVAL_DB, EvalHistory, EvalResult, eval_result, eval_seed, weights_digest
from .run_folder import (
    RunFolderBusyError,
    RunLock,
    interrupts_deferred,
    new_run_dir,
    save_npz_atomic,
    write_atomic,
    write_json_atomic,
)
from .run_report import (
    CURVE_FILE,
    config_section,
    cut_short_text,
    final_table,
    plot_learning_curve,
    report_opening,
    write_eval_csv,
)
from .workers import WorkerLostError, open_pool

#: the opponent share of games the learner plays against itself (every seat learns)
SELF = "self"
#: the name the learner's seats show in the evaluation games
LEARNER = "learned (learner)"
#: the final evaluation's seed index (periodic evaluations use the iteration number)
FINAL_EVAL_INDEX = 1_000_000
#: game seeds are drawn below this bound
SEED_BOUND = 2**31
#: every HOLDOUT_EVERY-th game (by its id) is held out of the fit for early stopping
HOLDOUT_EVERY = 10
#: config keys every method's config has that must be positive
POSITIVE_KEYS = (
    "num_players",
    "workers",
    "torch_threads",
    "iterations",
    "games_per_iteration",
    "batch_size",
    "epochs",
    "buffer_games",
    "eval_max_turns",
)
#: config keys a resume may change, in every method
RESUMABLE = ("iterations", "time_limit_minutes", "workers", "torch_threads", "progress", "eval_every", "eval_games",
             "eval_opponents", "final_eval_games", "eval_max_turns")  # fmt: skip


@dataclass
class LoopConfig(ConfigBase):
    """The keys every method of the loop has, declared once (a method's config adds its own, and may
    give some of these another default): the run, the game, the iterations, the exploration of the
    network's player (the learner, the student), the network and its fit, the evaluations."""

    name: str = _f("afterstate", "run name; the run directory is <runs_dir>/<name>-<timestamp>")
    runs_dir: str = _f("runs", "where run directories are created")
    seed: int = _f(0, "seed of the games, the exploration, the network and the evaluation")
    map: str = _f("italia", "map: imperium, italia, aegyptus or creta")
    num_players: int = _f(2, "players per game")
    workers: int = _f(2, "processes that play the games (and the evaluation games)")
    torch_threads: int = _f(1, "torch threads while fitting")
    progress: bool = _f(True, "show a progress bar")

    iterations: int = _f(10, "iterations of the loop (play, fit, evaluate)")
    time_limit_minutes: float | None = _f(None, "stop after the iteration that crosses this budget (null: none)")
    games_per_iteration: int = _f(200, "games played with the current network per iteration")
    opponent_shares: dict = field(
        default_factory=lambda: {SELF: 0.5, "heuristic": 0.5},
        metadata={"help": "share of training games against each opponent: 'self' (the network in every seat) "
                          "or an agent spec"},
    )  # fmt: skip
    temperature: float = _f(0.05, "exploration softmax temperature, in units of MARGIN_SCALE VP")
    epsilon: float = _f(0.3, "probability that a decision samples from the softmax instead of taking the best turn")
    replan: bool = _f(
        False,
        "the network's player decides at every decision (the learned agent's default) instead of "
        "following its chosen turn's plan (what the runs before played; false keeps them reproducible)",
    )

    hidden: list = field(default_factory=lambda: [64, 64], metadata={"help": "hidden layer sizes of the MLP"})
    features_version: int = _f(1, "the feature version the model reads (agents.learned_model.FEATURE_COUNTS)")
    init_model: str | None = _f(
        None,
        "start from this saved model (a warm start, e.g. the shipped "
        "concordia_env/agents/models/learned-italia-2p.npz for another map or player count); "
        "its layers must match 'hidden'; a model of an older features_version is widened",
    )
    learning_rate: float = _f(1e-3, "AdamW learning rate")
    weight_decay: float = _f(1e-4, "AdamW weight decay")
    batch_size: int = _f(512, "minibatch size in rows (whole decisions)")
    epochs: int = _f(4, "passes over the buffer per iteration (the best held-out epoch is kept)")
    buffer_games: int = _f(4000, "the fit uses the decisions of the last this many games")

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
        check_loop_config(self)


def check_loop_config(config: Any) -> None:
    """The checks every method's config shares (sizes, exploration, evaluation, network, opponents, game).

    Called by each config's ``validate`` after its own checks; an unknown agent or a map and
    player count the rules refuse fails here, not after an hour of training.
    """
    check_positive(config, POSITIVE_KEYS)
    check_time_limit(config)
    if config.eval_every < 0 or config.eval_games < 0:
        raise ValueError("eval_every and eval_games must be >= 0")
    if not 0.0 <= config.epsilon <= 1.0 or config.temperature < 0:
        raise ValueError(f"epsilon must be in 0..1 and temperature >= 0, got {config.epsilon}, {config.temperature}")
    if not config.hidden or any(int(n) <= 0 for n in config.hidden):
        raise ValueError(f"hidden must be a non-empty list of positive sizes, got {config.hidden}")
    check_features_version(config.features_version)
    shares = config.opponent_shares
    if not shares or any(v < 0 for v in shares.values()) or sum(shares.values()) <= 0:
        raise ValueError(f"opponent_shares must be non-negative weights, not all zero, got {shares}")
    for spec in [*shares, *config.eval_opponents, *config.final_eval_games]:
        if spec != SELF and agents.parse_spec(spec)[0] not in agents.names():
            raise ValueError(f"unknown agent {spec!r}; known agents: {', '.join(agents.names())}")
    Game.new(config.map, config.num_players, 0)


class Decisions:
    """The decisions of a buffer: each one's consecutive rows (a decision's key is game, player and step)."""

    def __init__(self, data: dict[str, np.ndarray]) -> None:
        key = (data["game"].astype(np.int64) * 8 + data["player"]) * 100_000 + data["step"]
        #: the first row and the number of rows of every decision
        self.first = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
        self.lengths = np.diff(np.r_[self.first, len(key)])
        #: the decisions fitted and those held out to choose the epoch (every HOLDOUT_EVERY-th game)
        held = data["game"][self.first] % HOLDOUT_EVERY == 0
        self.train, self.held_out = np.flatnonzero(~held), np.flatnonzero(held)

    def rows(self, decisions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The rows of these decisions; for each row its decision's place in ``decisions`` and its place in it."""
        lens = self.lengths[decisions]
        offsets = np.repeat(np.cumsum(lens) - lens, lens)
        slot = np.arange(lens.sum()) - offsets
        return np.repeat(self.first[decisions], lens) + slot, np.repeat(np.arange(len(decisions)), lens), slot

    def agreement(self, decisions: np.ndarray, scores: np.ndarray, targets: np.ndarray) -> float:
        """Share of ``decisions`` whose best score (rows in :meth:`rows` order) is the best target."""
        lens = self.lengths[decisions]
        starts = np.cumsum(lens) - lens
        same = [
            np.argmax(scores[a : a + n]) == np.argmax(targets[a : a + n]) for a, n in zip(starts, lens, strict=True)
        ]
        return float(np.mean(same))


@dataclass
class RunState(EvalHistory):
    """What ``state.json`` carries between sessions (a method's state class may add fields)."""

    iteration: int = 0
    games: int = 0
    decisions: int = 0
    learner_decisions: int = 0
    play_seconds: float = 0.0
    fit_seconds: float = 0.0
    eval_seconds: float = 0.0
    sessions: int = 0
    fits: list[dict[str, Any]] = field(default_factory=list)


#: a training run's class, as its class methods return it
R = TypeVar("R", bound="TrainingRun")
RunT = TypeVar("RunT", bound="Run")


class TrainingRun:
    """A run folder and the one loop over its iterations, whatever the method trains.

    The loop (:meth:`train`) is the method's **session** (:meth:`session`: what it holds while
    it trains, a pool of game workers or of environments) around iterations that each
    **advance** the run (:meth:`advance`), **evaluate** it when due (:meth:`evaluate_when_due`),
    apply the **time limit** (:meth:`time_guard`, a guard) and **checkpoint** it (every
    iteration, or when :meth:`checkpoint_due` says) with a progress line; :meth:`finish` then
    plays the final evaluation and writes the learning curve, ``summary.json`` and the report.
    The folder: :meth:`create` (a new one, locked from its first file) and :meth:`open`
    (``--resume``: locked, the last checkpoint, the resumable overrides). :func:`run_command`
    is every method's ``main``.

    Its subclasses: :class:`Run`, the ``learned`` agent's network (afterstate value
    iteration, expert iteration), :class:`~concordia_env.training.selfplay.SelfPlayRun`
    (MaskablePPO, one iteration a PPO update) and
    :class:`~concordia_env.training.ppo_options.OptionsPPORun` (PPO on the options level, one
    iteration a PPO update). The methods marked "the method's" are theirs.
    """

    CONFIG = "config.yaml"
    #: every evaluation game, replayable by its id (``concordia replay``)
    EVAL_DB = EVAL_DB
    SUMMARY = "summary.json"
    CONFIG_CLASS: ClassVar[type[ConfigBase]]
    #: the command that trains a run of this kind (the models' metadata and the messages)
    COMMAND: ClassVar[str]
    #: what the run counts its progress in (its iterations, or the timesteps of its updates)
    UNIT: ClassVar[str] = "iteration"
    state: EvalHistory

    def __init__(self, run_dir: Path, config: Any, state: EvalHistory) -> None:
        self.run_dir = Path(run_dir)
        self.config = config
        self.state = state
        self.wall_start = time.perf_counter()

    # ------------------------------------------------------------------ the run folder
    @classmethod
    def create(cls: type[R], config: Any, held: contextlib.ExitStack | None = None) -> R:
        """A new run of ``config`` in a new run directory (``<runs_dir>/<name>-<timestamp>``).

        ``held``: the command's stack of what it holds for the run's life; the new folder's
        :class:`.run_folder.RunLock` enters it as soon as the folder exists, before any file.
        The method refuses what it must before the folder exists (:meth:`check_new`) and
        writes its first files (:meth:`start`).
        """
        cls.check_new(config)
        run_dir = new_run_dir(config.runs_dir, cls.run_name(config))
        if held is not None:
            held.enter_context(RunLock(run_dir))
        config.save(run_dir / cls.CONFIG)
        return cls.start(run_dir, config)

    @classmethod
    def open(cls: type[R], run_dir: Path, overrides: dict[str, Any], held: contextlib.ExitStack | None = None) -> R:
        """The run in ``run_dir`` as its last checkpoint left it, with ``overrides`` (resumable keys).

        ``held`` (as for :meth:`create`): the folder's lock is taken there before anything is
        read or written, so a second writer is refused (:class:`.run_folder.RunFolderBusyError`).
        A refused resume (no checkpoint, a damaged one, a key that cannot change) changes no
        file; the config is saved with the overrides once the checkpoint has been read.
        """
        run_dir = Path(run_dir)
        if not run_dir.is_dir():
            raise FileNotFoundError(f"{run_dir} is not a run directory: nothing to resume")
        if held is not None:
            held.enter_context(RunLock(run_dir))
        checkpoint = cls.checkpoint_file(run_dir)
        if not checkpoint.is_file():
            raise FileNotFoundError(
                f"{run_dir} has no {checkpoint.relative_to(run_dir)}: not a run directory, or one stopped before "
                "its first checkpoint; nothing to resume"
            )
        overrides = resume_overrides(run_dir / cls.CONFIG, overrides, cls.resumable(), cls.CONFIG_CLASS)
        config = resolve(run_dir / cls.CONFIG, overrides, cls.CONFIG_CLASS)
        run = cls.restore(run_dir, config)
        config.save(run_dir / cls.CONFIG)
        run.resumed()
        return run

    @classmethod
    def check_new(cls, config: Any) -> None:
        """What the method refuses before a new run's folder exists: nothing unless it says."""

    @classmethod
    def run_name(cls, config: Any) -> str:
        """The new run folder's name before its timestamp: the config's ``name`` unless the method says."""
        return str(config.name)

    @classmethod
    def start(cls: type[R], run_dir: Path, config: Any) -> R:
        """The method's: the new run in its fresh folder (``config.yaml`` is there), with its first files."""
        raise NotImplementedError

    @classmethod
    def checkpoint_file(cls, run_dir: Path) -> Path:
        """The method's: the file a checkpoint writes last; a run folder without it has nothing to resume."""
        raise NotImplementedError

    @classmethod
    def restore(cls: type[R], run_dir: Path, config: Any) -> R:
        """The method's: the run as its last checkpoint left it (``ValueError`` if the checkpoint is unusable)."""
        raise NotImplementedError

    def resumed(self) -> None:
        """After a resume has saved the config: nothing unless the method says."""

    @classmethod
    def resumable(cls) -> tuple[str, ...]:
        """The method's: the config keys a resume may change."""
        raise NotImplementedError

    @classmethod
    def preflight(cls, config: Any) -> None:
        """Checks of the world outside the config (a cluster's address), before the run starts: none here."""

    # ------------------------------------------------------------------ the loop
    def train(self) -> str:
        """Iterations until the run is done (or the time limit, a guard, stops it); returns why it stopped."""
        with self.session():
            while not self.done():
                self.advance()
                # nothing is written between the advance and the checkpoint that a resume would read:
                # the evaluation plays the model in memory
                self.evaluate_when_due()
                reason = self.time_guard()
                if reason or self.done() or self.checkpoint_due():
                    self.write_checkpoint()
                    say(self.progress_line())
                if reason:
                    return reason
        return "completed"

    def write_checkpoint(self) -> None:
        """:meth:`checkpoint`, whole: a Ctrl-C meanwhile stops the run after it (`run_folder.interrupts_deferred`)."""
        with interrupts_deferred():
            self.checkpoint()

    def session(self) -> contextlib.AbstractContextManager[Any]:
        """The method's: what it holds while it trains (a pool, environments), entered around the iterations."""
        raise NotImplementedError

    def advance(self) -> None:
        """The method's: one iteration (play and fit, or a PPO update), counted in the run's state."""
        raise NotImplementedError

    def done(self) -> bool:
        """Whether the run has reached its length."""
        done, total = self.position()
        return done >= total

    def position(self) -> tuple[int, int]:
        """The method's: how far the run is and its length, in ``UNIT``\\ s."""
        raise NotImplementedError

    def checkpoint_due(self) -> bool:
        """Whether this iteration ends with a checkpoint (the last one and a stopped one always do): every one here."""
        return True

    def checkpoint(self) -> None:
        """The method's: everything a resume reads, each file whole, :meth:`checkpoint_file` last."""
        raise NotImplementedError

    def training_seconds(self) -> float:
        """The method's: the time the run has trained, all sessions together (what the time limit counts)."""
        raise NotImplementedError

    def time_guard(self) -> str:
        """After an iteration that crosses ``time_limit_minutes`` (the run not done): why it stops; else ``""``."""
        limit = self.time_limit_minutes()
        if limit is None or self.done() or self.training_seconds() < 60 * limit:
            return ""
        return cut_short_text(limit, self.stopped_where(), f"{self.COMMAND} --resume {self.run_dir}")

    def time_limit_minutes(self) -> float | None:
        """The time limit (a guard), in minutes of :meth:`training_seconds`: the config's ``time_limit_minutes``."""
        limit: float | None = self.config.time_limit_minutes
        return limit

    def where(self) -> str:
        """How far the run is, in words (``iteration 3``)."""
        return f"{self.UNIT} {self.position()[0]:,}"

    def stopped_where(self) -> str:
        """Where a run stopped by its time limit stands, in words (``after iteration 3 of 10``)."""
        done, total = self.position()
        return f"after {self.UNIT} {done:,} of {total:,}"

    def progress_line(self) -> str:
        """After a checkpoint: how far the run is, the time so far, and the time left at this pace."""
        done, total = self.position()
        spent = self.training_seconds()
        left = spent / max(done, 1) * max(total - done, 0)
        return (
            f"{self.UNIT} {done:,}/{total:,} done: {spent / 60:.1f} min so far, "
            f"about {left / 60:.1f} min left (this pace)"
        )

    # ------------------------------------------------------------------ evaluation
    def evaluate_when_due(self) -> None:
        """When :meth:`eval_due`: ``eval_games`` games against each of ``eval_opponents``, kept in the history."""
        if not self.eval_due():
            return
        index, results = self.eval_index(), []
        for opponent in self.config.eval_opponents:
            result = self.evaluate(opponent, self.config.eval_games, index)
            self.state.history.append(result.to_dict())
            say(f"{self.where()}: {result.summary()}")
            results.append(result)
        write_eval_csv(self.run_dir, self.state.history)
        self.evaluated(results)

    def eval_due(self) -> bool:
        """The method's: whether the run is evaluated now."""
        raise NotImplementedError

    def eval_index(self) -> int:
        """The method's: the number of this evaluation (its seeds: :func:`.run_evaluation.eval_seed`)."""
        raise NotImplementedError

    def evaluate(self, opponent: str, games: int, index: int) -> EvalResult:
        """The method's: its model against ``opponent`` in every other seat, evaluation number ``index``."""
        raise NotImplementedError

    def evaluated(self, results: list[EvalResult]) -> None:
        """After a periodic evaluation: nothing unless the method says."""

    # ------------------------------------------------------------------ the end
    def finish(self, stop_reason: str) -> Path:
        """Final evaluation, curve, ``summary.json`` and the report; returns the report's path."""
        c = self.config
        final = [self.evaluate_final(opponent, games) for opponent, games in self.final_games().items()]
        self.save_final()
        write_eval_csv(self.run_dir, self.state.history)
        plot_learning_curve(self.state.results(), final, c.num_players, self.run_dir / CURVE_FILE,
                            f"{c.name}: {c.num_players}-player {c.map}", xlabel=self.curve_xlabel())  # fmt: skip
        summary = {
            **self.summary_counts(),
            **self.summary_extras(),
            "wall_seconds": time.perf_counter() - self.wall_start,
            "stop_reason": stop_reason,
            "model_path": str(self.model_path),
            "final": [r.to_dict() for r in final],
        }
        write_json_atomic(self.run_dir / self.SUMMARY, summary)
        return self.write_report(summary, final)

    def final_games(self) -> dict[str, int]:
        """The method's: games per opponent of the final evaluation."""
        raise NotImplementedError

    def evaluate_final(self, opponent: str, games: int) -> EvalResult:
        """One opponent's final evaluation (its seeds: ``FINAL_EVAL_INDEX``)."""
        return self.evaluate(opponent, games, FINAL_EVAL_INDEX)

    def save_final(self) -> None:
        """The final model, where the checkpoint's is not it: nothing unless the method says."""

    @property
    def model_path(self) -> Path:
        """The method's: the file of the trained model (what an agent loads)."""
        raise NotImplementedError

    def curve_xlabel(self) -> str:
        """The learning curve's x axis."""
        return "timesteps (learner decisions)"

    def summary_counts(self) -> dict[str, Any]:
        """The method's: what the run did (iterations or timesteps, games, seconds), first in ``summary.json``."""
        raise NotImplementedError

    def summary_extras(self) -> dict[str, Any]:
        """The method's further entries of ``summary.json``: none unless it says."""
        return {}

    def write_report(self, summary: dict[str, Any], final: list[EvalResult]) -> Path:
        """The method's: ``report.md``; returns its path."""
        raise NotImplementedError

    def trained_line(self, summary: dict[str, Any]) -> str:
        """The method's: the first line the command prints at the end (what was trained, why it stopped)."""
        raise NotImplementedError


def say(line: str) -> None:
    """A line for the person on stderr, above any progress bar."""
    tqdm.write(line, file=sys.stderr)


class Run(TrainingRun):
    """The ``learned`` agent's run: its network, iterations of play (games in a pool) and fit.

    A training method subclasses it: the class attributes name its config and state
    classes, its command and its words in the report; the methods marked "the method's"
    below are its part of an iteration.

    Files: ``data/iter_<k>.npz`` (each iteration's decisions), ``checkpoint.pt`` (network,
    optimizer and run state, one atomic write at the end of every iteration and at iteration
    0), its copies ``model.npz`` and ``state.json``, ``evaluations.db``.
    """

    STATE, CHECKPOINT, MODEL = "state.json", "checkpoint.pt", "model.npz"
    STATE_CLASS: ClassVar[type[RunState]] = RunState
    #: the method's name in the report's title
    TITLE: ClassVar[str]
    #: what the report calls the network's player ("learner", "student") and how it evaluates it
    LEARNER_WORD: ClassVar[str] = "learner"
    EVALUATED: ClassVar[str] = "Greedy learner"
    #: what the report says after "the run is deterministic for its seed"
    DETERMINISM: ClassVar[str] = ""
    state: RunState

    def __init__(self, run_dir: Path, config: Any, state: RunState) -> None:
        super().__init__(run_dir, config, state)
        self.net = AfterstateNet(config.hidden, FEATURE_COUNTS[config.features_version])
        self.optimizer = torch.optim.AdamW(
            self.net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay
        )
        #: the pool the session's iterations play in (:meth:`open_pool`)
        self.game_pool: Any = None

    @classmethod
    def check_new(cls, config: Any) -> None:
        """A missing or mismatched warm-start model (``init_model``) is refused before anything is written."""
        init = warm_start_model(config)
        if init is not None:
            AfterstateNet(config.hidden, FEATURE_COUNTS[config.features_version]).load_model(init)

    @classmethod
    def start(cls: type[RunT], run_dir: Path, config: Any) -> RunT:
        """``data/`` and the network (seeded, or the warm start), checkpointed at iteration 0.

        A run interrupted in its first iteration resumes from that checkpoint.
        """
        init = warm_start_model(config)
        (run_dir / "data").mkdir()
        torch.manual_seed(config.seed)
        run = cls(run_dir, config, cls.STATE_CLASS())
        if init is not None:
            run.net.load_model(init)
        run.write_checkpoint()
        return run

    @classmethod
    def checkpoint_file(cls, run_dir: Path) -> Path:
        return Path(run_dir) / cls.CHECKPOINT

    @classmethod
    def restore(cls: type[RunT], run_dir: Path, config: Any) -> RunT:
        """Everything from ``checkpoint.pt`` (network, optimizer and run state, written in one step).

        Never from a file written after it: ``model.npz`` and ``state.json`` are rewritten from
        it (:meth:`resumed`), so a run interrupted between its fit and its checkpoint replays
        that iteration with the model that began it.
        """
        try:
            checkpoint = torch.load(run_dir / cls.CHECKPOINT, weights_only=False)
            # runs checkpointed before the state moved into checkpoint.pt kept it in state.json only
            saved = checkpoint["state"] if "state" in checkpoint else json.loads((run_dir / cls.STATE).read_text())
            run = cls(run_dir, config, cls.STATE_CLASS(**saved))
            run.net.load_state_dict(checkpoint["net"])
            run.optimizer.load_state_dict(checkpoint["optimizer"])
        except Exception as err:  # torch, pickle, JSON and zip errors alike: the checkpoint is not usable
            raise ValueError(f"{run_dir / cls.CHECKPOINT} cannot be resumed: {type(err).__name__}: {err}") from err
        return run

    def resumed(self) -> None:
        """A ``model.npz`` newer than the checkpoint is replaced by the checkpoint's."""
        self.write_checkpoint_copies()

    @classmethod
    def resumable(cls) -> tuple[str, ...]:
        return RESUMABLE

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

    def save_iteration_data(self, iteration: int, data: dict[str, Any]) -> None:
        """``data/iter_<k>.npz``: the decisions of iteration ``k`` (what :meth:`buffer` reads back)."""
        save_npz_atomic(self.run_dir / "data" / f"iter_{iteration:04d}.npz", data)

    def buffer(self, iteration: int) -> dict[str, np.ndarray]:
        """The decisions of the last ``buffer_games`` games, up to and including ``iteration``."""
        per_iteration = self.config.games_per_iteration
        first = max(0, iteration + 1 - -(-self.config.buffer_games // per_iteration))
        files = [self.run_dir / "data" / f"iter_{k:04d}.npz" for k in range(first, iteration + 1)]
        parts = [dict(np.load(f)) for f in files]
        return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}

    # ------------------------------------------------------------------ playing an iteration
    def draw_games(self, tag: int, iteration: int) -> list[tuple[int, str, list[int]]]:
        """The iteration's games, decided by the seed alone: ``(game seed, opponent, learner seats)`` each.

        ``tag`` is the method's ``SeedSequence`` tag. ``opponent_shares`` draws each game's
        opponent; against ``self`` the learner sits in every seat, otherwise in seat
        ``i mod num_players`` (game ``i`` of the iteration).
        """
        c = self.config
        seq = np.random.SeedSequence([c.seed, tag, iteration])
        seeds = seq.generate_state(c.games_per_iteration, dtype=np.uint64) % SEED_BOUND
        rng = np.random.default_rng(seq.spawn(1)[0])
        kinds = list(c.opponent_shares)
        shares = np.array([c.opponent_shares[k] for k in kinds], dtype=np.float64)
        games = []
        for i, seed in enumerate(seeds):
            opponent = kinds[int(rng.choice(len(kinds), p=shares / shares.sum()))]
            seats = list(range(c.num_players)) if opponent == SELF else [i % c.num_players]
            games.append((int(seed), opponent, seats))
        return games

    def play(self, pool: Any, iteration: int, bar: tqdm | None) -> None:
        """Play iteration ``iteration``'s tasks in ``pool``, save their decisions, count them in the state.

        The method supplies the tasks (:meth:`tasks`), the function a worker runs on one
        (:meth:`worker`), how many games a task's result holds (:meth:`games_in`) and its
        columns (:meth:`iteration_data`); every result carries its ``decisions``.
        """
        start = time.perf_counter()
        parts = []
        for part in pool.imap(self.worker(), self.tasks(iteration)):
            parts.append(part)
            if bar is not None:
                bar.update(self.games_in(part))
        data = self.iteration_data(parts, iteration)
        self.save_iteration_data(iteration, data)
        self.state.games += sum(self.games_in(p) for p in parts)
        self.state.decisions += sum(int(p["decisions"]) for p in parts)
        self.state.learner_decisions += int(data["chosen"].sum())
        self.count_play(parts, data)
        self.state.play_seconds += time.perf_counter() - start

    # ------------------------------------------------------------------ the method's part of an iteration
    def tasks(self, iteration: int) -> list[Any]:
        """The method's: the pool tasks of iteration ``iteration`` (from :meth:`draw_games`)."""
        raise NotImplementedError

    def worker(self) -> Callable[[Any], dict[str, Any]]:
        """The method's: the module-level function a pool worker runs on one task."""
        raise NotImplementedError

    def games_in(self, part: dict[str, Any]) -> int:
        """How many games one task's result holds: one unless the method batches games."""
        return 1

    def iteration_data(self, parts: list[dict[str, Any]], iteration: int) -> dict[str, Any]:
        """The method's: the iteration's decision columns (``data/iter_<k>.npz``) from the tasks' results."""
        raise NotImplementedError

    def count_play(self, parts: list[dict[str, Any]], data: dict[str, Any]) -> None:
        """The method's own counters of a played iteration (beside games and decisions): none unless it says."""

    def fit(self, iteration: int) -> dict[str, Any]:
        """The method's: fit the network to :meth:`buffer`; returns the fit's record (the report's row)."""
        raise NotImplementedError

    # the fit's skeleton, the same in every method: the buffer's whole decisions, held-out games, epochs
    def fit_start(self, iteration: int) -> tuple[dict[str, np.ndarray], Decisions, np.random.Generator]:
        """A fit's first steps: torch seeded for the iteration; the buffer, its decisions, the shuffling generator."""
        torch.manual_seed(self.config.seed * 1_000_003 + iteration)
        rng = np.random.default_rng([self.config.seed, iteration])
        data = self.buffer(iteration)
        return data, Decisions(data), rng

    def fit_epochs(
        self,
        decisions: Decisions,
        rng: np.random.Generator,
        batch_loss: Callable[[np.ndarray], torch.Tensor],
        after_epoch: Callable[[], None],
    ) -> None:
        """``epochs`` passes over the training decisions, shuffled, in minibatches of whole decisions.

        A minibatch holds about ``batch_size`` rows (as many decisions as the mean decision's
        rows allow); ``batch_loss`` is the loss of a minibatch's decisions; ``after_epoch``
        measures the network (in eval mode) after each pass.
        """
        per_batch = max(1, self.config.batch_size // max(1, int(decisions.lengths.mean())))
        for _ in range(self.config.epochs):
            self.net.train()
            order = rng.permutation(decisions.train)
            for b in range(0, len(order), per_batch):
                loss = batch_loss(order[b : b + per_batch])
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.net.eval()
            after_epoch()

    def weights(self) -> dict[str, torch.Tensor]:
        """A copy of the network's weights (an epoch's, to keep the best)."""
        return {k: v.clone() for k, v in self.net.state_dict().items()}

    def report_fit(self, iteration: int, fit: dict[str, Any]) -> None:
        """What to print after a fit (the report has every fit): nothing unless the method says."""

    def warm_up(self) -> None:
        """Before the pool starts (its forked workers inherit what this compiles): nothing unless the method says."""

    def open_pool(self) -> contextlib.AbstractContextManager[Any]:
        """The pool the iterations play in: ``workers`` forked processes (:func:`.workers.open_pool`)."""
        return open_pool("multiprocessing", self.config.workers)

    def summary_extras(self) -> dict[str, Any]:
        """The method's entries of ``summary.json`` (beside the loop's)."""
        return {}

    def report_sections(self, summary: dict[str, Any]) -> list[str]:
        """The method's sections of ``report.md`` (between the learning curve and the config), as lines."""
        return []

    # ------------------------------------------------------------------ evaluation
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
        learner = GreedyLearnedAgent(model=model, replan=c.replan)
        played = run_tournament(config, db=self.run_dir / self.EVAL_DB, workers=c.workers, given={LEARNER: learner})
        seconds = time.perf_counter() - start
        self.state.eval_seconds += seconds
        result = eval_result(opponent, played.records, LEARNER, seconds)
        result.timesteps = self.state.learner_decisions
        return result

    # ------------------------------------------------------------------ the loop's parts
    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        """Torch's threads, the session counted, the method's warm-up, then the pool the iterations play in."""
        torch.set_num_threads(self.config.torch_threads)
        self.state.sessions += 1
        self.warm_up()
        with self.open_pool() as pool:
            self.game_pool = pool
            yield

    def advance(self) -> None:
        """One iteration: play its games in the pool (a progress bar), fit the network to the buffer."""
        c = self.config
        k = self.state.iteration
        bar = tqdm(total=c.games_per_iteration, desc=f"iteration {k + 1}/{c.iterations}", unit="game",
                   disable=not c.progress, file=sys.stderr, dynamic_ncols=True)  # fmt: skip
        self.play(self.game_pool, k, bar)
        bar.close()
        fit = self.fit(k)
        self.state.fits.append(fit)
        self.report_fit(k, fit)
        self.state.iteration = k + 1

    def position(self) -> tuple[int, int]:
        return self.state.iteration, self.config.iterations

    def eval_due(self) -> bool:
        """Every ``eval_every`` iterations (none when it or ``eval_games`` is 0)."""
        c = self.config
        return bool(c.eval_every and c.eval_games and self.state.iteration % c.eval_every == 0)

    def eval_index(self) -> int:
        """The iteration just played (0-based): evaluation ``k`` follows iteration ``k``."""
        return self.state.iteration - 1

    def training_seconds(self) -> float:
        """Time spent playing, fitting and evaluating, all sessions together (what the time limit counts)."""
        return self.state.play_seconds + self.state.fit_seconds + self.state.eval_seconds

    # ------------------------------------------------------------------ the end
    def final_games(self) -> dict[str, int]:
        return {opponent: int(games) for opponent, games in self.config.final_eval_games.items()}

    def curve_xlabel(self) -> str:
        return f"{self.LEARNER_WORD} decisions"

    def summary_counts(self) -> dict[str, Any]:
        s = self.state
        return {
            "iterations": s.iteration,
            "games": s.games,
            "decisions": s.decisions,
            "learner_decisions": s.learner_decisions,
            "play_seconds": s.play_seconds,
            "fit_seconds": s.fit_seconds,
            "eval_seconds": s.eval_seconds,
            "games_per_hour": 3600 * s.games / max(s.play_seconds, 1e-9),
        }

    def write_report(self, summary: dict[str, Any], final: list[EvalResult]) -> Path:
        return write_run_report(self, summary, final)

    def trained_line(self, summary: dict[str, Any]) -> str:
        return f"trained {summary['iterations']} iterations, {summary['games']:,} games ({summary['stop_reason']})"


def warm_start_model(config: Any) -> AfterstateModel | None:
    """The model ``init_model`` names (a warm start), or None."""
    return None if config.init_model is None else AfterstateModel.load(config.init_model)


def write_run_report(run: Run, summary: dict[str, Any], final: list[EvalResult]) -> Path:
    """``report.md``: the final evaluation, the learning curve, the method's sections, the config."""
    c = run.config
    title = f"{c.name}: {run.TITLE}, {c.num_players}-player {c.map}"
    lines = [
        *report_opening(title, c.seed, run.run_dir / Run.CONFIG, run.COMMAND, run.DETERMINISM),
        "## Final evaluation",
        "",
        f"{run.EVALUATED} (`agents.make('learned', path=...)`) against each opponent; fresh seeds, seats rotated, "
        "95% Wilson intervals.",
        "",
        final_table(final),
    ]
    lines += [
        "",
        "## Learning curve",
        "",
        "![learning curve](learning_curve.png)",
        "",
        f"| evaluation | {run.LEARNER_WORD} decisions so far | opponent | games | win rate | 95% CI |",
        "| ---: | ---: | --- | ---: | ---: | --- |",
    ]
    per_eval = max(1, len(c.eval_opponents))
    for k, r in enumerate(run.state.results()):
        lines.append(f"| {k // per_eval + 1} | {r.timesteps:,} | {r.opponent} | {r.games} | {r.win_rate:.1%} | "
                     f"{r.ci_low:.1%} – {r.ci_high:.1%} |")  # fmt: skip
    lines += ["", *run.report_sections(summary)]
    lines += config_section(c.to_yaml())
    path = run.run_dir / "report.md"
    path.write_text("\n".join(lines))
    return path


# ---------------------------------------------------------------------- command line
def command_parser(
    run_class: type[TrainingRun],
    description: str,
    config_glob: str,
    examples: list[str],
    values_example: str = "--hidden '[128, 128]' --opponent_shares '{self: 1}'",
) -> argparse.ArgumentParser:
    """A method's command line: ``--config``, ``--resume`` and every config key as ``--key value``.

    ``config_glob``: the method's configs in the package (``""``: none ship); ``values_example``:
    options of the method's config that show values read as YAML.
    """
    parser = argparse.ArgumentParser(
        prog=run_class.COMMAND,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="examples:\n"
        + "".join(f"  {line}\n" for line in examples)
        + f"values are read as YAML: {values_example}",
    )
    shipped = f" (concordia_env/training/configs/{config_glob})" if config_glob else " of config keys"
    parser.add_argument("--config", help=f"YAML config file{shipped}")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint")
    add_override_arguments(parser, run_class.CONFIG_CLASS)
    return parser


def run_command(parser: argparse.ArgumentParser, argv: list[str] | None, run_class: type[TrainingRun]) -> Path:
    """A training command's main: create (or ``--resume``) the run, train, finish; returns the report's path.

    Shared by every method of the loop (``concordia train afterstate``, ``expert``,
    ``selfplay``, ``ppo_options``): its config class and command name come from ``run_class``.

    A person's mistake ends the command with one line on stderr and no traceback, before
    any training: a config file or run directory that is missing or unreadable, a value the
    config refuses, a ``--runs_dir`` that cannot be written, a run directory another live
    process writes (its lock, :class:`.run_folder.RunLock`; exit status 2). Ctrl-C (status
    130) and a lost worker (status 1) end it with the ``--resume`` command that continues it
    from its last checkpoint (the network's runs have one from their start, iteration 0; a
    run stopped before its first checkpoint says there is nothing to resume).
    """
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as held:  # the run folder's lock, from its first file to the command's end
        return _run_locked(parser, args, run_class, held)


def _run_locked(
    parser: argparse.ArgumentParser,
    args: argparse.Namespace,
    run_class: type[TrainingRun],
    held: contextlib.ExitStack,
) -> Path:
    """:func:`run_command` with the run folder's lock entered in ``held``."""
    config_class = run_class.CONFIG_CLASS

    def refuse(message: str) -> NoReturn:
        print(f"{parser.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(2)

    try:
        overrides = overrides_from_args(args, config_class)
        if args.resume:
            if args.config:
                refuse(f"--resume takes the run's own {run_class.CONFIG}; give changes as --key value options")
            saved = Path(args.resume) / run_class.CONFIG
            if saved.is_file():  # before open() rewrites the run's files with the overrides
                run_class.preflight(resolve(saved, overrides, config_class))
            run = run_class.open(Path(args.resume), overrides, held)
            print(f"resuming {run.run_dir} after {run.where()}", file=sys.stderr)
        else:
            config = resolve(args.config, overrides, config_class)
            run_class.preflight(config)
            run = run_class.create(config, held)
            print(f"run directory: {run.run_dir}", file=sys.stderr)
    except KeyboardInterrupt:
        interrupted(run_class, Path(args.resume) if args.resume else None)
    except (OSError, ValueError, TypeError, RunFolderBusyError) as err:
        refuse(mistake_text(err))
    resume = f"{run_class.COMMAND} --resume {run.run_dir}"
    try:
        reason = run.train()
        report = run.finish(reason)
    except KeyboardInterrupt:
        interrupted(run_class, run.run_dir)
    except (WorkerLostError, BrokenProcessPool) as err:
        lost = str(err) if isinstance(err, WorkerLostError) else "a worker process died (killed, or out of memory?)"
        print(f"{parser.prog}: {lost}; the run stops at its last checkpoint: continue with: {resume}", file=sys.stderr)
        raise SystemExit(1) from None
    summary = json.loads((run.run_dir / run.SUMMARY).read_text())
    print(run.trained_line(summary))
    for r in summary["final"]:
        print(EvalResult.from_dict(r).summary())
    print(f"model: {run.model_path}")
    print(f"report: {report}")
    return report


def interrupted(run_class: type[TrainingRun], run_dir: Path | None) -> NoReturn:
    """Ctrl-C: one line, the command that continues the run (if it has a checkpoint), exit status 130."""
    if run_dir is not None and run_class.checkpoint_file(run_dir).is_file():
        print(f"\ninterrupted; continue with: {run_class.COMMAND} --resume {run_dir}", file=sys.stderr)
    else:
        print("\ninterrupted before the run's first checkpoint: there is nothing to resume", file=sys.stderr)
    raise SystemExit(130) from None
