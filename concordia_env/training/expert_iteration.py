"""Expert iteration over turn options: a network that plays like the search, without searching.

Usage::

    concordia train expert --config expert_quick          # make run: from scratch, ~12 minutes on 2 cores
    concordia train expert --config expert_italia2l       # the shipped 2-player model's last run
    concordia train expert --config expert_quick --backend ray --address auto   # on a Ray cluster
    concordia train expert --config docs/reports/expert_italia2f/config.yaml   # a run kept in docs/reports
    concordia train expert --resume runs/expert_quick-20260101-120000 [--iterations 12]
    concordia train expert --help        # every config key is also an option

The method (``docs/training.md`` has the why and the numbers)
-------------------------------------------------------------
The student is the ``learned`` agent (:class:`concordia_env.agents.learned.LearnedAgent`): at
each decision it scores the afterstates of the pending decision's *turn options* with an
:class:`~concordia_env.agents.learned_model.AfterstateModel` and plays the best. The teacher is
the tree search over the same turn options (:mod:`concordia_env.agents.mcts`, compiled), by
default with the current network as its first estimate of every option
(:class:`~concordia_env.agents.learned.ModelGuidedSearch`), with MCTS's rollout and prior weight
unless ``teacher_options`` set them: what ``learned:simulations=N,rollout=heuristic,prior_visits=1``
plays (the ``learned`` agent's own search drops the rollout at 2 players,
:data:`~concordia_env.agents.learned.TWO_PLAYER_SEARCH`; ``teacher_options: {rollout: none,
prior_visits: 10}`` teaches with that search).
One *iteration*:

1. **Play.** ``games_per_iteration`` games in a pool of ``workers`` (local processes, or Ray
   tasks with ``--backend ray [--address ...]``: :mod:`.workers`). The student
   plays every move (its own greedy choice; with probability ``epsilon`` a sample from
   ``softmax(score / temperature)``), so the positions are the student's own (DAgger).
   **Playout-cap randomization** (KataGo): at a share ``label_share`` of the student's
   decisions the full search (``label_simulations``) labels *every* turn option of the pending
   decision with its root statistics for the chooser: mean value and visits. On the other
   decisions a cheap search (``cheap_simulations``, 0: none) may label them too, with the
   smaller weight ``cheap_weight``. Every decision also keeps the played option and, once the
   game is over, its outcome (the decider's final margin).
2. **Fit** the network to the labels of the last ``buffer_games`` games. A search value ``v``
   (``0.5 + 0.5·tanh(margin / value_scale)``, the search's squashing) is turned back into a
   margin in the network's units, ``t = value_scale·atanh(2v − 1) / MARGIN_SCALE``. The loss
   is **listwise**: per labelled decision, the cross-entropy between ``softmax(t / τ)`` and
   ``softmax(score / τ)`` over its options (``label_temperature`` τ), plus ``outcome_weight`` ×
   the squared error of every played option against its game's final margin.

   *Why listwise cross-entropy* rather than the group-centred squared error of
   :mod:`.afterstate_learning`: the search spends its visits on the options it rates best (UCB), so
   the mean values of the options it dismissed rest on a visit or two and are the least
   reliable numbers of a label; the squared error weighs every option's deviation the same,
   the cross-entropy weighs an option by how likely the search is to play it. It is
   minimised at ``score = t + constant``, so the scores stay margins (what the search needs
   of its first estimate), and the outcome term pins the constant to the real final margin.

   *The value term* (``value_weight`` > 0): the listwise loss leaves each decision's constant
   free and the outcome term pins it only on average, through one noisy final margin per
   played option. A search that reads the network at its leaves compares scores *across*
   positions, so it needs each score to be the margin itself. The value term asks for that
   directly: ``value_weight`` × the squared error of every labelled option's score against
   its search value ``t``, weighted (as the listwise term) by ``softmax(t / τ)``, so that the
   options the search rated on a visit or two count little.

   A tenth of the games (by id) is held out: each epoch is scored on them and the best kept;
   the **agreement** of the student's choice (the best score) with the search's (the best
   mean value) on the held-out labelled decisions is the report's measure of imitation,
   beside the heuristic's own agreement with the search on the same decisions.

   **The gate** (``gate_games`` > 0; AlphaGo Zero's evaluator): instead of the lowest held-out
   loss, the games choose. Every epoch's network plays a search-free match of ``gate_games``
   games, seats rotated, against the network that played the iteration, all on the same seeds;
   the one that won most is kept if it won at least ``gate_share``, else the network that
   played goes on. A strong student's held-out loss stopped saying which network plays better
   (``docs/training.md``: fits that lowered it made the model weaker).
3. **Evaluate** every ``eval_every`` iterations against ``eval_opponents`` (by default
   ``heuristic`` and ``mcts:150``, the yardstick of the old MCTS at 1 s per move): the
   project's one evaluation loop (fresh seeds, seats rotated, 95% Wilson intervals).

Runs that outgrow one machine
-----------------------------
The pool's tasks are batches of ``games_per_task`` games. A task carries the current model
as **data** (the bytes of its ``.npz`` and their hash), not a path: a worker on another
machine needs no shared disk, and it decodes a model once (a cache by hash). Every game's
seed and every random draw inside it come from ``SeedSequence([seed, tag, iteration,
game])``, the results are collected in task order, and the fit runs in the main process
with seeded torch: **the same seed gives the same run on either backend** (a test plays a
tiny run on both). Evaluations play in local processes (the tournament's own pool). A lost
worker (killed, out of memory) stops a local run with its ``--resume`` command; on Ray its
task is retried (:mod:`.workers`).
On a cluster: ``ray start --head`` on one machine, ``ray start --address <head>:6379`` on the
others (each with this package installed), then ``--backend ray --address auto`` on the head.

The run directory, checkpoints, ``--resume`` and the evaluations are the training loop's
(:mod:`.loop`; :class:`ExpertRun` is its :class:`~concordia_env.training.loop.Run` with this
play and fit, beside afterstate value iteration's): a run interrupted in the middle of an
iteration resumes at the start of that iteration and ends exactly as an uninterrupted run
(tested). Besides the loop's files, ``report.md`` shows
the curves against the heuristic and the search, the held-out agreement, labels per second,
games per hour and the compute spent (CPU-seconds of the workers, the fit and the
evaluations).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import math
import resource
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from concordia_env import Game, agents
from concordia_env.agents.base import Agent
from concordia_env.agents.learned import GreedyLearnedAgent, ModelGuidedSearch, RecordingAgent, SampledLearnedAgent
from concordia_env.agents.learned_model import MARGIN_SCALE, NUM_FEATURES, UTILITY_INDEX, AfterstateModel, Candidates
from concordia_env.agents.mcts import MCTSAgent
from concordia_env.tools.evaluate import play_duel
from concordia_env.tools.tournament import check_ray_address

from .config import _f, check_positive
from .loop import (
    RESUMABLE,
    SEED_BOUND,
    SELF,
    Decisions,
    LoopConfig,
    Run,
    RunState,
    check_loop_config,
    command_parser,
    run_command,
)
from .run_evaluation import EvalResult, eval_seed
from .workers import BACKENDS, open_pool

#: SeedSequence tag of the training games (evaluations are seeded by ``run_evaluation.eval_seed``)
EXPERT_TAG = 0xE1E7
#: the teachers: the search with the current network as its first estimate, or the plain search
TEACHERS = ("learned", "mcts")
#: a search value this close to 0 or 1 is a certain result: clipped before atanh (≈ 4.1 value_scale)
VALUE_CLIP = 0.9995
#: the gate's seats (:meth:`ExpertRun.gate`): a network from the fit, and the network that played the iteration
GATE_CANDIDATE, GATE_INCUMBENT = "candidate", "incumbent"
#: the gate's seed indices (``run_evaluation.eval_seed``): GATE_EVAL_INDEX + iteration, apart from the evaluations'
GATE_EVAL_INDEX = 2_000_000


# ---------------------------------------------------------------------- config
@dataclass
class ExpertConfig(LoopConfig):
    """Everything an expert-iteration run needs: the loop's keys (:class:`.loop.LoopConfig`, some with
    other defaults here), where the games are played, the teacher's labels and the gate."""

    name: str = _f("expert", "run name; the run directory is <runs_dir>/<name>-<timestamp>")
    workers: int = _f(2, "pool processes (Ray: tasks in flight) that play and label; also the evaluation's processes")
    opponent_shares: dict = field(
        default_factory=lambda: {SELF: 0.7, "heuristic": 0.3},
        metadata={"help": "share of games against each opponent: 'self' (the student in every seat) or an agent spec"},
    )
    hidden: list = field(default_factory=lambda: [128, 128], metadata={"help": "hidden layer sizes of the MLP"})
    learning_rate: float = _f(5e-4, "AdamW learning rate")
    buffer_games: int = _f(2000, "the fit uses the decisions of the last this many games")
    eval_opponents: list = field(
        default_factory=lambda: ["heuristic", "mcts:150"], metadata={"help": "agent specs to evaluate against"}
    )
    final_eval_games: dict = field(
        default_factory=lambda: {"heuristic": 400, "mcts:150": 200},
        metadata={"help": "games per opponent spec in the final evaluation"},
    )

    backend: str = _f("multiprocessing", "pool of the self-play and labelling: multiprocessing or ray")
    address: str | None = _f(None, "Ray cluster to join ('auto', 'host:6379'; null: a local Ray instance)")
    games_per_task: int = _f(4, "games per pool task (each task carries the model once)")
    teacher: str = _f("learned", "the labelling search: 'learned' (the current network as first estimate) or 'mcts'")
    teacher_options: dict = field(
        default_factory=dict,
        metadata={"help": "further options of the search (exploration, rollout_rounds, value_scale, ...)"},
    )
    label_share: float = _f(0.25, "share of the student's decisions labelled by the full search")
    label_simulations: int = _f(150, "simulations of the full search")
    cheap_simulations: int = _f(0, "simulations of the cheap search on the other decisions (0: none)")
    cheap_weight: float = _f(0.25, "weight of a cheap search's label in the loss (a full one weighs 1)")
    label_temperature: float = _f(0.1, "temperature of the listwise loss, in units of MARGIN_SCALE VP")
    outcome_weight: float = _f(0.2, "weight of the outcome loss (played options against the final margin)")
    value_weight: float = _f(
        0.0,
        "weight of the value loss: each labelled option's score against the search's value, weighted by the "
        "listwise target's probability (0: none; what the network's scores are worth to a search that reads them)",
    )
    gate_games: int = _f(
        0,
        "0: keep the epoch with the lowest held-out loss; N: every epoch's network plays a search-free match of N "
        "games (seats rotated) against the network that played the iteration, and the best is kept if it wins "
        "at least gate_share of them, else the network stays as it was",
    )
    gate_share: float = _f(0.55, "the share of the gate's games a new network must win (the equal share is 1/players)")

    def validate(self) -> None:
        check_positive(self, ("games_per_task", "label_simulations"))
        if self.backend not in BACKENDS:
            raise ValueError(f"backend must be one of {BACKENDS}, got {self.backend!r}")
        if self.address is not None and self.backend != "ray":
            raise ValueError("address joins a Ray cluster: it needs backend 'ray'")
        if self.teacher not in TEACHERS:
            raise ValueError(f"teacher must be one of {TEACHERS}, got {self.teacher!r}")
        if not 0.0 < self.label_share <= 1.0:
            raise ValueError(f"label_share must be in (0, 1], got {self.label_share}")
        if self.cheap_simulations < 0 or not 0.0 <= self.cheap_weight <= 1.0:
            raise ValueError("cheap_simulations must be >= 0 and cheap_weight in 0..1")
        if self.label_temperature <= 0 or self.outcome_weight < 0:
            raise ValueError("label_temperature must be positive and outcome_weight >= 0")
        if not (math.isfinite(self.value_weight) and self.value_weight >= 0):
            raise ValueError(f"value_weight must be a finite number >= 0, got {self.value_weight}")
        if self.gate_games < 0 or not 0.0 < self.gate_share <= 1.0:
            raise ValueError(
                f"gate_games must be >= 0 and gate_share in (0, 1], got {self.gate_games}, {self.gate_share}"
            )
        check_loop_config(self)
        make_teacher(self.teacher, self.teacher_options, AfterstateModel.heuristic_only((4,)), 1, 0)  # bad options


# ---------------------------------------------------------------------- the teacher's labels
def make_teacher(kind: str, options: dict[str, Any], model: AfterstateModel, simulations: int, seed: int) -> MCTSAgent:
    """The labelling search: MCTS over whole turns, guided by ``model`` (``"learned"``) or plain (``"mcts"``)."""
    if kind == "learned":
        return ModelGuidedSearch(lambda game: model, seed=seed, simulations=simulations, **options)
    return MCTSAgent(seed=seed, simulations=simulations, **options)


def search_label(teacher: MCTSAgent, game: Game, cands: Candidates, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """The search's value of every candidate of the pending decision: (targets, visits), in the candidates' order.

    The teacher searches ``game`` afresh (reseeded with ``seed``); its root moves are matched
    to the student's candidates by their first actions. A target is the move's mean value for
    the chooser turned back into a margin in the network's units (``MARGIN_SCALE`` VP).
    A candidate the search does not have (or a move the student does not) is a bug: refused.
    """
    teacher.reset(seed)
    teacher.act(game)
    stats = teacher.last_search()
    where = {key: k for k, key in enumerate(stats.first)}
    keys = cands.keys()
    if sorted(keys) != sorted(where):
        raise RuntimeError(f"the search's root moves {sorted(where)} are not the student's options {sorted(keys)}")
    order = [where[key] for key in keys]
    means = np.clip(stats.means[order], 1 - VALUE_CLIP, VALUE_CLIP)
    targets = teacher.value_scale * np.arctanh(2 * means - 1) / MARGIN_SCALE
    return targets.astype(np.float32), stats.visits[order].astype(np.float32)


# ---------------------------------------------------------------------- playing (pool workers)
@dataclass
class GameSpec:
    """One training game: its seed, its id in the run, who sits where."""

    seed: int
    game_id: int
    opponent: str
    learner_seats: list[int]


@dataclass
class PlayTask:
    """A batch of games for one pool worker, with the model as data (its ``.npz`` bytes and their hash)."""

    games: list[GameSpec]
    model_bytes: bytes
    model_hash: str
    settings: dict[str, Any]


#: decoded models of this worker, by hash (a worker keeps the latest few)
_MODELS: dict[str, AfterstateModel] = {}
MODEL_CACHE_SIZE = 2


def model_from_bytes(data: bytes, digest: str) -> AfterstateModel:
    """The model in ``data``, decoded once per worker (cached by its hash)."""
    if digest not in _MODELS:
        while len(_MODELS) >= MODEL_CACHE_SIZE:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[digest] = AfterstateModel.load_bytes(data)
    return _MODELS[digest]


COLUMNS = ("features", "target", "visits", "weight", "chosen", "margin", "win", "player", "step", "game")


def play_task(task: PlayTask) -> dict[str, Any]:
    """Play a task's games; return their rows (see :func:`play_game`) and what they cost."""
    start_cpu, start = time.process_time(), time.perf_counter()
    model = model_from_bytes(task.model_bytes, task.model_hash)
    parts = [play_game(spec, task.settings, model) for spec in task.games]
    out: dict[str, Any] = {key: np.concatenate([p[key] for p in parts]) for key in COLUMNS}
    out["games"] = len(parts)
    out["decisions"] = sum(p["decisions"] for p in parts)
    out["label_seconds"] = sum(p["label_seconds"] for p in parts)
    out["cpu_seconds"] = time.process_time() - start_cpu
    out["seconds"] = time.perf_counter() - start
    return out


def play_game(spec: GameSpec, s: dict[str, Any], model: AfterstateModel) -> dict[str, Any]:
    """Play one game with the student in ``spec.learner_seats``; label some of its decisions.

    One group of consecutive rows per student decision: every candidate (``target`` and
    ``visits`` from the search, ``weight`` 1 for a full search, ``cheap_weight`` for a cheap
    one) when the decision was labelled, else only the played candidate (``weight`` 0,
    ``target`` NaN). Every row carries the decider's final margin (``margin``, in
    ``MARGIN_SCALE`` units) and win, ``chosen`` (the candidate played), ``player``, ``step``
    (the decider's decision number) and ``game``.
    """
    n = s["num_players"]
    seeds = np.random.SeedSequence([spec.seed, EXPERT_TAG]).generate_state(n + 3)
    game = Game.new(s["map"], n, int(seeds[0]))
    seats = seat_players(spec, s, model, seeds)
    full = make_teacher(s["teacher"], s["teacher_options"], model, s["label_simulations"], 0)
    cheap = None
    if s["cheap_simulations"]:
        cheap = make_teacher(s["teacher"], s["teacher_options"], model, s["cheap_simulations"], 0)
    rng = np.random.default_rng(int(seeds[n + 1]))
    labels: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, float]] = {}
    label_seconds = 0.0
    while not game.is_over():
        p = game.current_player
        seat = seats[p]
        before = len(seat.trace) if isinstance(seat, RecordingAgent) else 0
        action = seat.act(game)
        if isinstance(seat, RecordingAgent) and len(seat.trace) > before:
            # one draw and one search seed per decision, whether labelled or not: the labels of
            # a game do not depend on the label share of its other decisions
            draw, seed = rng.random(), int(rng.integers(SEED_BOUND))
            teacher, weight = (full, 1.0) if draw < s["label_share"] else (cheap, s["cheap_weight"])
            if teacher is not None:
                start = time.perf_counter()
                targets, visits = search_label(teacher, game, seat.trace[-1][1], seed)
                label_seconds += time.perf_counter() - start
                labels[(p, before)] = (targets, visits, weight)
        game.step(action)
    columns = decision_rows(spec, seats, labels, game)
    return {**columns, "decisions": game.decision_count, "label_seconds": label_seconds}


def seat_players(spec: GameSpec, s: dict[str, Any], model: AfterstateModel, seeds: np.ndarray) -> list[Agent]:
    """The game's players: the recording student in ``spec.learner_seats``, ``spec.opponent`` elsewhere."""
    seats: list[Agent] = []
    for p in range(s["num_players"]):
        if p in spec.learner_seats:
            seats.append(
                RecordingAgent(
                    SampledLearnedAgent(
                        int(seeds[p + 1]),
                        model=model,
                        temperature=s["temperature"],
                        epsilon=s["epsilon"],
                        replan=s["replan"],
                    )
                )
            )
        else:
            seats.append(agents.from_spec(spec.opponent))
            seats[p].reset(int(seeds[p + 1]))
    return seats


def decision_rows(
    spec: GameSpec,
    seats: list[Agent],
    labels: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, float]],
    game: Game,
) -> dict[str, np.ndarray]:
    """The finished game's rows (:func:`play_game`'s columns): the student's decisions, labelled or not."""
    scores = game.final_scores().astype(np.float64)
    winner = game.winner()
    rows: dict[str, list] = {key: [] for key in COLUMNS}
    for p in spec.learner_seats:
        margin = (scores[p] - np.delete(scores, p).mean()) / MARGIN_SCALE
        for step, (_, cands, choice) in enumerate(seats[p].trace):  # type: ignore[attr-defined]
            label = labels.get((p, step))
            picked = range(len(cands.options)) if label is not None else [choice]
            for j in picked:
                rows["features"].append(cands.features[j])
                rows["target"].append(np.nan if label is None else label[0][j])
                rows["visits"].append(0.0 if label is None else label[1][j])
                rows["weight"].append(0.0 if label is None else label[2])
                rows["chosen"].append(j == choice)
                rows["margin"].append(margin)
                rows["win"].append(float(p == winner))
                rows["player"].append(p)
                rows["step"].append(step)
    count = len(rows["chosen"])
    return {
        "features": np.asarray(rows["features"], dtype=np.float16).reshape(count, NUM_FEATURES),
        "target": np.asarray(rows["target"], dtype=np.float32),
        "visits": np.asarray(rows["visits"], dtype=np.float32),
        "weight": np.asarray(rows["weight"], dtype=np.float32),
        "chosen": np.asarray(rows["chosen"], dtype=bool),
        "margin": np.asarray(rows["margin"], dtype=np.float32),
        "win": np.asarray(rows["win"], dtype=np.float32),
        "player": np.asarray(rows["player"], dtype=np.int8),
        "step": np.asarray(rows["step"], dtype=np.int16),
        "game": np.full(count, spec.game_id, dtype=np.int32),
    }


def expert_loss(
    net: torch.nn.Module,
    x: torch.Tensor,
    data: dict[str, np.ndarray],
    decisions: Decisions,
    batch: np.ndarray,
    c: ExpertConfig,
) -> tuple[torch.Tensor, torch.Tensor]:
    """The fit's loss per decision over the decisions ``batch`` (the module docstring's), and the sum of its value term.

    ``x``: the buffer's feature rows; ``data``: its columns.
    """
    tau = c.label_temperature
    rows, group, slot = decisions.rows(batch)
    pred = net(x[torch.as_tensor(rows)].float())
    target = torch.as_tensor(np.nan_to_num(data["target"][rows]))
    weight = torch.as_tensor(data["weight"][decisions.first[batch]])
    size = (len(batch), int(slot.max()) + 1)
    g, k = torch.as_tensor(group), torch.as_tensor(slot)
    scores = torch.full(size, -torch.inf).index_put((g, k), pred / tau)
    wanted = torch.full(size, -torch.inf).index_put((g, k), target / tau)
    log_q = torch.log_softmax(scores, dim=1)[g, k]
    p = torch.softmax(wanted, dim=1)[g, k]
    listwise = -(p * log_q * weight[g]).sum()
    played = torch.as_tensor(data["chosen"][rows])
    outcome = ((pred - torch.as_tensor(data["margin"][rows])) ** 2 * played).sum()
    value = (p * (pred - target) ** 2 * weight[g]).sum()
    loss = listwise + c.outcome_weight * outcome
    if c.value_weight:  # zero: the loss of the runs before, bit for bit
        loss = loss + c.value_weight * value
    return loss / len(batch), value


# ---------------------------------------------------------------------- the run
@dataclass
class ExpertState(RunState):
    """What ``state.json`` carries between sessions (afterstate's, and the labels and their cost)."""

    labels: int = 0
    labelled_decisions: int = 0
    label_seconds: float = 0.0
    play_cpu_seconds: float = 0.0
    fit_cpu_seconds: float = 0.0
    eval_cpu_seconds: float = 0.0
    gate_seconds: float = 0.0


#: config keys a resume may change: the loop's, and where the games are played
EXPERT_RESUMABLE = (*RESUMABLE, "backend", "address", "games_per_task")


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the evaluations' worker processes)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


class ExpertRun(Run):
    """The loop's run (:mod:`.loop`: directory, checkpoints, resume, evaluation); play, labels and fit as above."""

    CONFIG_CLASS = ExpertConfig
    STATE_CLASS = ExpertState
    COMMAND = "concordia train expert"
    TITLE = "expert iteration"
    LEARNER_WORD = "student"
    EVALUATED = "Greedy search-free student"
    DETERMINISM = ", on either backend"
    config: ExpertConfig
    state: ExpertState

    @classmethod
    def resumable(cls) -> tuple[str, ...]:
        return EXPERT_RESUMABLE

    @classmethod
    def preflight(cls, config: ExpertConfig) -> None:
        """A Ray ``address`` must answer within seconds (``ConnectionError``), before the run directory is made."""
        if config.backend == "ray" and config.address is not None:
            check_ray_address(config.address)

    # ------------------------------------------------------------------ play and label
    def tasks(self, iteration: int) -> list[PlayTask]:
        """The games of one iteration in tasks of ``games_per_task``, decided by the seed alone."""
        c = self.config
        specs = [
            GameSpec(seed, iteration * c.games_per_iteration + i, opponent, seats)
            for i, (seed, opponent, seats) in enumerate(self.draw_games(EXPERT_TAG, iteration))
        ]
        data = self.current_model().to_bytes()  # the network in memory: the checkpoint's (Run.open)
        digest = hashlib.sha256(data).hexdigest()
        settings = {
            key: getattr(c, key)
            for key in (
                "map",
                "num_players",
                "temperature",
                "epsilon",
                "replan",
                "teacher",
                "teacher_options",
                "label_share",
                "label_simulations",
                "cheap_simulations",
                "cheap_weight",
            )
        }
        step = c.games_per_task
        return [PlayTask(specs[k : k + step], data, digest, settings) for k in range(0, len(specs), step)]

    def worker(self) -> Callable[[PlayTask], dict[str, Any]]:
        return play_task  # looked up when the iteration starts (a test replaces it)

    def games_in(self, part: dict[str, Any]) -> int:
        return int(part["games"])

    def iteration_data(self, parts: list[dict[str, Any]], iteration: int) -> dict[str, Any]:
        return {key: np.concatenate([p[key] for p in parts]) for key in COLUMNS}

    def count_play(self, parts: list[dict[str, Any]], data: dict[str, Any]) -> None:
        """The labels and what they cost."""
        labelled = data["weight"] > 0
        self.state.labels += int(labelled.sum())
        self.state.labelled_decisions += int((labelled & data["chosen"]).sum())
        self.state.label_seconds += sum(p["label_seconds"] for p in parts)
        self.state.play_cpu_seconds += sum(p["cpu_seconds"] for p in parts)

    # ------------------------------------------------------------------ fit
    def fit(self, iteration: int) -> dict[str, Any]:
        """Fit the network to the buffer's labels and outcomes; keep the epoch with the lowest held-out loss.

        Minibatches hold whole decisions; the loss is the module docstring's (listwise
        cross-entropy over each labelled decision's options, weighted by its label's weight,
        plus ``outcome_weight`` x the squared error of the played options, plus
        ``value_weight`` x the squared error of the labelled options against the search's
        values, each weighted by its listwise target probability).
        """
        c = self.config
        start, start_cpu = time.perf_counter(), cpu_seconds()
        data, decisions, rng = self.fit_start(iteration)
        train, held_out = decisions.train, decisions.held_out
        graded = held_out[data["weight"][decisions.first[held_out]] >= 1.0]  # full labels: the agreement's decisions
        x = torch.as_tensor(data["features"])  # float16; rows are converted per minibatch
        labelled_held = int((data["weight"][decisions.first[held_out]] > 0).sum())  # the value error's decisions

        def loss_of(batch: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
            return expert_loss(self.net, x, data, decisions, batch, c)

        def held_scores() -> tuple[float, float]:
            """The held-out loss, and the value error: the value term per labelled held-out decision."""
            if not len(held_out):
                return 0.0, float("nan")
            with torch.no_grad():
                loss, value = loss_of(held_out)
            return float(loss), float(value) / labelled_held if labelled_held else float("nan")

        def agreement() -> float:
            """Share of the held-out fully labelled decisions where the best score is the search's best option."""
            if not len(graded):
                return float("nan")
            with torch.no_grad():
                rows, _, _ = decisions.rows(graded)
                pred = self.net(x[torch.as_tensor(rows)].float()).numpy()
            return decisions.agreement(graded, pred, data["target"][rows])

        def after_epoch() -> None:
            held_loss, error = held_scores()
            losses.append(held_loss)
            value_errors.append(error)
            agreements.append(agreement())
            snapshots.append(self.weights())

        self.net.eval()
        heuristic = self.heuristic_agreement(decisions, data, graded)
        snapshots = [self.weights()]  # epoch 0: the network that played
        held_loss, error = held_scores()
        losses, value_errors, agreements = [held_loss], [error], [agreement()]
        self.fit_epochs(decisions, rng, lambda batch: loss_of(batch)[0], after_epoch)
        lowest = int(np.argmin(losses))  # the first of equal losses: epoch 0 unless an epoch lowers the loss
        gate = self.gate(iteration, snapshots) if c.gate_games else []
        kept = lowest if not gate else pick_gated(gate, c.gate_share)
        self.net.load_state_dict(snapshots[kept])
        seconds = time.perf_counter() - start
        self.state.fit_seconds += seconds
        self.state.fit_cpu_seconds += cpu_seconds() - start_cpu
        labelled = data["weight"][decisions.first] > 0
        return {
            "iteration": iteration,
            "decisions": len(train),
            "labelled": int(labelled[train].sum()),
            "held_labelled": len(graded),
            "held_loss": losses,
            "agreement": agreements,
            "value_error": value_errors,
            "heuristic_agreement": heuristic,
            "best_epoch": kept,
            "lowest_loss_epoch": lowest,
            "gate": [result.to_dict() for result in gate],
            "a": float(self.net.a.detach()),
            "seconds": seconds,
        }

    def gate(self, iteration: int, snapshots: list[dict[str, torch.Tensor]]) -> list[EvalResult]:
        """Each epoch's network (``snapshots[1:]``) against the one that played (``snapshots[0]``), search-free.

        AlphaGo Zero's evaluator: the held-out loss on the search's labels stopped saying which
        network plays better (docs/training.md), so the games decide. Every candidate plays the
        same ``gate_games`` seeds (a paired comparison), seats rotated, greedy and deciding as the
        student does (``replan``); the games are not stored. Leaves ``self.net`` at the last snapshot.
        """
        c = self.config
        start = time.perf_counter()
        self.net.load_state_dict(snapshots[0])
        incumbent = GreedyLearnedAgent(model=self.current_model(), replan=c.replan)
        results = []
        for epoch in range(1, len(snapshots)):
            self.net.load_state_dict(snapshots[epoch])
            candidate = GreedyLearnedAgent(model=self.current_model(), replan=c.replan)
            result, _ = play_duel(
                candidate,
                GATE_CANDIDATE,
                GATE_INCUMBENT,
                c.gate_games,
                map=c.map,
                num_players=c.num_players,
                seed=eval_seed(c.seed, GATE_EVAL_INDEX + iteration),
                max_turns=c.eval_max_turns,
                workers=c.workers,
                opponent_agent=incumbent,
            )
            # the wall time is gate_seconds': the fit's record stays the same for the same seed
            results.append(dataclasses.replace(result, opponent=f"epoch {epoch} vs epoch 0", seconds=0.0))
        self.state.gate_seconds += time.perf_counter() - start
        return results

    @staticmethod
    def heuristic_agreement(decisions: Decisions, data: dict[str, np.ndarray], graded: np.ndarray) -> float:
        """The heuristic's agreement with the search on the same decisions (its choice: the best ``u``)."""
        if not len(graded):
            return float("nan")
        rows, _, _ = decisions.rows(graded)
        return decisions.agreement(
            graded, data["features"][rows, UTILITY_INDEX].astype(np.float32), data["target"][rows]
        )

    # ------------------------------------------------------------------ evaluation and the loop
    def evaluate(self, opponent: str, games: int, index: int) -> EvalResult:
        start = cpu_seconds()
        result = super().evaluate(opponent, games, index)
        self.state.eval_cpu_seconds += cpu_seconds() - start
        return result

    def warm_up(self) -> None:
        """Label one decision here, so that forked workers inherit the compiled search instead of each compiling it."""
        c = self.config
        game = Game.new(c.map, c.num_players, 0)
        model = self.current_model()
        student = RecordingAgent(SampledLearnedAgent(0, model=model))
        student.act(game)
        teacher = make_teacher(c.teacher, c.teacher_options, model, 2, 0)
        search_label(teacher, game, student.trace[-1][1], 0)

    def open_pool(self) -> contextlib.AbstractContextManager[Any]:
        """Local processes, or Ray tasks (``backend``, ``address``): :func:`.workers.open_pool`."""
        c = self.config
        return open_pool(c.backend, c.workers, c.address)

    def report_fit(self, iteration: int, fit: dict[str, Any]) -> None:
        print(
            f"iteration {iteration + 1}: held-out agreement with the search "
            f"{fit['agreement'][fit['best_epoch']]:.1%} (heuristic {fit['heuristic_agreement']:.1%})",
            file=sys.stderr,
        )
        if fit.get("gate"):
            print(f"iteration {iteration + 1}: gate {gate_line(fit)}", file=sys.stderr)

    def summary_extras(self) -> dict[str, Any]:
        s = self.state
        return {
            "labelled_decisions": s.labelled_decisions,
            "labels": s.labels,
            "labelled_decisions_per_second": s.labelled_decisions / max(s.play_seconds, 1e-9),
            "cpu_seconds": {"play": s.play_cpu_seconds, "fit": s.fit_cpu_seconds, "eval": s.eval_cpu_seconds},
        }

    def report_sections(self, summary: dict[str, Any]) -> list[str]:
        """The imitation (held-out agreement with the search by epoch) and the throughput and compute."""
        c, s = self.config, self.state
        cpu = summary["cpu_seconds"]
        total_cpu = sum(cpu.values())
        lines = [
            "## Imitation: agreement with the search on held-out decisions",
            "",
            "The student's choice (its best score) against the search's (its best mean value) on the fully labelled "
            "decisions of the held-out games (every tenth game of the buffer); the heuristic's choice (its best "
            "utility) on the same decisions for comparison. Epoch 0 is the model that played the iteration. "
            "The value error is the value term per labelled held-out decision: the squared error of the scores "
            "against the search's values (in MARGIN_SCALE units², each option weighted by its listwise target and "
            "its label's weight), what value_weight lowers.",
            "",
            "| iteration | labelled decisions (train) | held-out | agreement by epoch | best epoch | heuristic | "
            "held-out loss by epoch | value error by epoch |",
            "| ---: | ---: | ---: | --- | ---: | ---: | --- | --- |",
        ]
        for f in s.fits:
            agree = ", ".join(f"{a:.1%}" for a in f["agreement"])
            loss = ", ".join(f"{e:.4f}" for e in f["held_loss"])
            value = ", ".join(f"{e:.4f}" for e in f.get("value_error", []))  # not recorded before value_weight
            lines.append(
                f"| {f['iteration'] + 1} | {f['labelled']:,} | {f['held_labelled']:,} | {agree} | "
                f"{f['best_epoch']} | {f['heuristic_agreement']:.1%} | {loss} | {value or '–'} |"
            )
        if any(f.get("gate") for f in s.fits):
            lines += [
                "",
                "## The gate: each epoch's network against the one that played",
                "",
                f"Search-free matches of {c.gate_games} games, seats rotated, the same seeds for every epoch; an "
                f"epoch's network is kept if it is the one that won most and won at least {c.gate_share:.0%} "
                "(else the network that played goes on). The lowest held-out loss is the epoch the fit would have "
                "kept without the gate.",
                "",
                "| iteration | wins of epochs 1, 2, ... | kept epoch | lowest held-out loss |",
                "| ---: | --- | ---: | ---: |",
            ]
            for f in s.fits:
                if f.get("gate"):
                    lines.append(
                        f"| {f['iteration'] + 1} | {gate_line(f)} | {f['best_epoch']} | {f['lowest_loss_epoch']} |"
                    )
        label_rate = s.labelled_decisions / max(s.play_seconds, 1e-9)
        lines += [
            "",
            "## Throughput and compute",
            "",
            f"- iterations: {summary['iterations']}, training games: {summary['games']:,}, student decisions: "
            f"{summary['learner_decisions']:,}, labelled decisions: {s.labelled_decisions:,} "
            f"({s.labels:,} option values)",
            f"- playing and labelling: {s.play_seconds / 60:.1f} min with {c.workers} {c.backend} workers = "
            f"**{summary['games_per_hour']:,.0f} games/hour**, **{label_rate:.1f} labelled decisions/s** "
            f"(the searches took {s.label_seconds / max(s.labelled_decisions, 1) * 1000:.0f} ms each, "
            f"{s.label_seconds / max(s.play_seconds * c.workers, 1e-9):.0%} of the workers' time)",
            f"- compute: **{total_cpu / 3600:.2f} CPU-hours** = play and label {cpu['play'] / 60:.1f} CPU-min, fit "
            f"{cpu['fit'] / 60:.1f} CPU-min (the gate's matches included), evaluations {cpu['eval'] / 60:.1f} "
            "CPU-min (all sessions)",
            f"- wall clock: fitting {s.fit_seconds / 60:.1f} min (the gate {s.gate_seconds / 60:.1f} min), "
            f"evaluating {s.eval_seconds / 60:.1f} min; the last "
            f"session {summary['wall_seconds'] / 60:.1f} min ({summary['stop_reason']})",
            "",
        ]
        return lines


def gate_line(fit: dict[str, Any]) -> str:
    """A fit's gate results in a line: each epoch's wins out of its games."""
    return ", ".join(f"{g['wins']}/{g['games']}" for g in fit["gate"])


def pick_gated(gate: list[EvalResult], share: float) -> int:
    """The epoch to keep after a gate: the candidate that won most (the earliest of equals) if it won at least
    ``share`` of its games, else 0 (the network that played the iteration)."""
    rates = [result.win_rate for result in gate]
    best = int(np.argmax(rates))
    return best + 1 if rates[best] >= share else 0


# ---------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    return command_parser(
        ExpertRun,
        "Expert iteration over turn options for Concordia (docs/training.md).",
        "expert_*.yaml",
        [
            "concordia train expert --config expert_quick",
            "concordia train expert --config expert_quick --backend ray --address auto",
            "concordia train expert --config docs/reports/expert_italia2f/config.yaml",
            "concordia train expert --resume runs/expert_quick-20260101-120000 --iterations 12",
        ],
    )


def main(argv: list[str] | None = None) -> Path:
    return run_command(build_parser(), argv, ExpertRun)


if __name__ == "__main__":
    main()
