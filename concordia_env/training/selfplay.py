"""Self-play training of a MaskablePPO policy on the Gymnasium wrapper.

Usage::

    concordia train selfplay --config quick
    concordia train selfplay --config quick --total_timesteps 20000 --n_envs 2
    concordia train selfplay --resume runs/quick-20250101-120000 [--total_timesteps 400000]
    concordia train selfplay --help        # every config key is also an option

How a run works
---------------
* ``n_envs`` environments (``SubprocVecEnv``; ``DummyVecEnv`` for one) each run a
  :class:`concordia_env.SingleAgentEnv` whose opponent seats are
  :class:`concordia_env.training.pool.PoolOpponent` objects: every episode they draw an opponent from
  the pool by ``opponent_shares`` (frozen snapshots of the learner, ``random``,
  ``heuristic``...). The learner takes a snapshot every ``snapshot_every`` timesteps
  (latest-vs-past self-play); see :mod:`concordia_env.training.pool` for how the pool reaches the
  environment processes.
* ``vector_env: true`` trains through :class:`concordia_env.envs.vector_env.ConcordiaVectorEnv`
  instead (:class:`concordia_env.envs.sb3.SB3VecEnv`): ``n_envs`` rows of one process, the
  opponent (the one agent ``opponent_shares`` names: ``random``, ``heuristic`` or ``learned``)
  compiled inside the batch on ``env_threads`` threads, seats rotating across rows and games.
  No snapshots then (a past network does not run in compiled code); the reward scale and the
  margin shaping are applied per row (:class:`VecScaleReward`, :class:`VecMarginShaping`).
  ``docs/reports/vector_heuristic/config.yaml`` is the 2-hour run of ``docs/training.md``.
* The run is the project's one training loop (:class:`concordia_env.training.loop.TrainingRun`,
  the loop of afterstate value iteration and expert iteration too; :class:`SelfPlayRun` is its
  selfplay part): one iteration is one PPO update, a ``learn()`` call of one rollout
  (``n_steps`` per environment, ``reset_num_timesteps=False``: the games go on across calls,
  and :class:`WholeRunPPO` keeps ``lr_schedule: linear`` decaying over the whole run). After
  every update (so that the network on disk is always a trained one) the run takes a
  snapshot when due, and the loop runs the periodic evaluation
  (:mod:`concordia_env.training.run_evaluation`), writes the checkpoint when due, prints a
  progress line after it and enforces ``time_limit_minutes``; Ctrl-C stops the command in
  one line with the ``--resume`` command (exit status 130).
* At the end (the loop's ``finish``): a final evaluation with ``final_eval_games`` games per
  opponent, the final model, the learning curve, ``summary.json`` and ``report.md``
  (:mod:`concordia_env.training.run_report`).

Rewards
-------
The environment pays ``reward`` (``win``, ``rank``, ``vp`` or the dense ``score_delta``:
the change of the learner's VP as if the game ended now), multiplied by ``reward_scale``.
``margin_shaping > 0`` adds potential-based shaping on the learner's margin (own VP minus the
opponents' mean VP, as if the game ended now; :class:`MarginShaping`):
``margin_shaping · (γ·Φ(s') − Φ(s))`` with ``Φ`` = the margin (0 once the game is over). It
gives every step credit for moving the margin, but it cannot change which policy is best:
its discounted sum over a game is zero.

Run directory ``<runs_dir>/<name>-<timestamp>/``::

    config.yaml             resolved config (updated by a resume's overrides)
    checkpoints/            model_<t>.zip (weights + Adam state + timestep count),
                            rng_<t>.pt (torch / numpy RNG), state.json (run state:
                            counters, pool, evaluation history; written last, names the files)
    pool.json, pool/        the opponent pool and its snapshot weights
    logs/                   SB3 CSV (progress.csv, progress_session<k>.csv after resumes), TensorBoard
    evaluations.csv         every evaluation (timesteps, opponent, win rate, interval, VP)
    evaluations.db          every evaluation game (``concordia replay <run>/evaluations.db [ID]``)
    final_model.zip         the trained MaskablePPO (``agents.make("policy", path=...)``)
    learning_curve.png, report.md, summary.json
    replays/                HTML replays of final-evaluation games, one per opponent and learner seat

Resuming (``--resume DIR``) loads ``checkpoints/state.json`` and what it names: model
weights, optimizer state and timestep count (SB3 ``save``/``load``), the opponent pool,
the evaluation history, counters and the learner's RNG state; training continues at the
checkpoint's timestep (a run stopped before its first checkpoint, ``checkpoint_every``
timesteps, has nothing to resume). What cannot be carried over is the inside of the environment
processes (games in progress are dropped); a resumed session seeds its environments
afresh (seeds derived from the run seed and the session number), so it does not replay
the games of the first session.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, SupportsFloat, cast

import gymnasium as gym
import numpy as np
import torch
from gymnasium.wrappers import TransformReward
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import Logger, make_output_format
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnv, VecEnvWrapper
from stable_baselines3.common.vec_env.base_vec_env import VecEnvObs
from tqdm import tqdm

from concordia_env.engine.observation import player_scores
from concordia_env.envs.gym_env import SingleAgentEnv

from .config import TrainConfig
from .loop import FINAL_EVAL_INDEX, TrainingRun, command_parser, run_command
from .policy_net import describe_architecture, disable_distribution_checks, policy_kwargs
from .pool import POOL_FILE, OpponentPool, PoolOpponent
from .run_evaluation import EvalHistory, EvalResult, evaluate, weights_digest
from .run_folder import write_json_atomic
from .run_report import write_report

CONFIG_FILE = TrainingRun.CONFIG
CHECKPOINT_DIR = "checkpoints"
STATE_FILE = "state.json"
LOG_DIR = "logs"
FINAL_MODEL = "final_model.zip"
SUMMARY_FILE = TrainingRun.SUMMARY
#: HTML replays of the final evaluation's first games (one per learner seat and opponent)
REPLAY_DIR = "replays"
#: separates the environments' seeds from the evaluation's
ENV_TAG = 0xE4F
#: thread counts of the numerical libraries, pinned to 1 in the environment processes
BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: where the environment puts the legal mask of the next decision
MASK_KEY = "action_mask"
#: the heuristic's evaluation is the one the progress bar shows
PROGRESS_OPPONENT = "heuristic"


# ---------------------------------------------------------------------- run state
@dataclass
class SelfPlayState(EvalHistory):
    """Counters and history that a checkpoint carries besides the model."""

    timesteps: int = 0
    games: int = 0
    sessions: int = 0
    train_seconds: float = 0.0
    last_snapshot: int | None = None
    last_eval: int | None = None
    last_checkpoint: int | None = None
    eval_index: int = 0
    pool: dict[str, Any] = field(default_factory=dict)
    model_file: str = ""
    rng_file: str = ""

    @classmethod
    def load(cls, path: Path) -> SelfPlayState:
        return cls(**json.loads(Path(path).read_text()))


class ScaleReward:
    """``reward * scale`` (a class rather than a lambda, so that the env stays picklable)."""

    def __init__(self, scale: float) -> None:
        self.scale = scale

    def __call__(self, reward: SupportsFloat) -> float:
        return float(reward) * self.scale


class MarginShaping(gym.Wrapper):
    """Potential-based shaping on the learner's VP margin: ``coef · (γ·Φ(s') − Φ(s))`` at every step.

    The potential ``Φ`` is the learner's VP margin over the opponents' mean, "as if the game
    ended now" (the engine's ``player_scores``), and 0 once the game is over. Shaping of this
    form (Ng, Harada & Russell 1999) leaves the optimal policy unchanged for any discount
    ``gamma`` (the PPO config's): it gives every step credit for how the margin moves, but its
    discounted sum over a whole game is ``−Φ(start) = 0``, so it pays nothing for merely being
    ahead in mid-game — a shaping without the ``γ`` factor (``coef·(Φ(s') − Φ(s))``) does,
    when ``γ < 1``, and then outweighs the win.
    """

    def __init__(self, env: gym.Env, coef: float, gamma: float = 1.0) -> None:
        super().__init__(env)
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        core = env.unwrapped
        if not isinstance(core, SingleAgentEnv):
            raise TypeError(f"MarginShaping shapes the learner's margin of a SingleAgentEnv, not of {core!r}")
        self.core = core
        self.coef = coef
        self.gamma = gamma
        self._potential = 0.0

    def _margin(self) -> float:
        core = self.core
        scores = player_scores(core.game).astype(np.float64)
        own = scores[core.seat]
        return float(own - np.delete(scores, core.seat).mean())

    def reset(self, **kwargs: Any) -> tuple[Any, dict]:
        obs, info = self.env.reset(**kwargs)
        self._potential = self._margin()
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        # a finished game's potential is 0; a truncated one keeps its margin (its future is cut off,
        # and PPO bootstraps from the value of that state)
        potential = 0.0 if terminated else self._margin()
        reward = float(reward) + self.coef * (self.gamma * potential - self._potential)
        self._potential = potential
        return obs, reward, terminated, truncated, info


class LinearDecay:
    """Learning rate decaying linearly to 0 over the run (a class, so SB3 can pickle it)."""

    def __init__(self, start: float) -> None:
        self.start = start

    def __call__(self, progress_remaining: float) -> float:
        return self.start * progress_remaining


# ---------------------------------------------------------------------- environments
def env_factory(config: TrainConfig, run_dir: Path, rank: int, session: int) -> Callable[[], gym.Env]:
    """A picklable thunk building environment ``rank`` (run in the worker process)."""

    def build() -> gym.Env:
        seq = np.random.SeedSequence([config.seed, ENV_TAG, session, rank])
        seeds = [int(s) for s in seq.generate_state(config.num_players)]
        opponents = [PoolOpponent(run_dir / POOL_FILE, seed=s) for s in seeds[1:]]
        env: gym.Env = SingleAgentEnv(
            opponents=opponents,
            seat="random",
            map=config.map,
            num_players=config.num_players,
            reward=config.reward,
            seed=seeds[0],
            **config.env_options,
        )
        if config.reward_scale != 1.0:
            env = TransformReward(env, ScaleReward(config.reward_scale))
        if config.margin_shaping > 0:
            env = MarginShaping(env, config.margin_shaping, config.gamma)
        return Monitor(env)

    return build


class InfoMaskVecEnv(VecEnvWrapper):
    """Answers MaskablePPO's ``env_method("action_masks")`` from the masks already in ``info``.

    The environment puts the legal mask of the next decision into every ``info`` (and the
    reset info after an automatic reset); serving it from there saves one inter-process
    round trip per step, which costs about as much as the step itself.
    """

    def __init__(self, venv: VecEnv) -> None:
        super().__init__(venv)
        self._masks: list[np.ndarray] = []

    def reset(self) -> VecEnvObs:
        obs = self.venv.reset()
        self._masks = [info[MASK_KEY] for info in self.venv.reset_infos]
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        resets = self.venv.reset_infos
        self._masks = [(resets[i] if done else infos[i])[MASK_KEY] for i, done in enumerate(dones)]
        return obs, rewards, dones, infos

    def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
        if method_name == "action_masks" and not args and not kwargs:
            return [self._masks[i] for i in self._get_indices(indices)]
        return self.venv.env_method(method_name, *args, indices=indices, **kwargs)


class VecScaleReward(VecEnvWrapper):
    """``reward * scale`` for every row (the vector env's counterpart of ``TransformReward(ScaleReward)``)."""

    def __init__(self, venv: VecEnv, scale: float) -> None:
        super().__init__(venv)
        self.scale = scale

    def reset(self) -> VecEnvObs:
        return self.venv.reset()

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        return obs, rewards * self.scale, dones, infos


class VecMarginShaping(VecEnvWrapper):
    """:class:`MarginShaping` for every row of the vector env: ``coef · (γ·Φ(s') − Φ(s))``.

    ``Φ`` is the learner's VP margin over the opponents' mean as if the game ended now
    (``VectorGame.scores``), 0 for a game that ended (a game cut by ``max_turns`` keeps its
    margin, as in the single env). A row that starts its next game starts from that game's
    own potential.
    """

    def __init__(self, venv: VecEnv, coef: float, gamma: float = 1.0) -> None:
        super().__init__(venv)
        if not 0.0 < gamma <= 1.0:
            raise ValueError(f"gamma must be in (0, 1], got {gamma}")
        self.coef = coef
        self.gamma = gamma
        self._potential = np.zeros(self.num_envs)

    def _margins(self) -> np.ndarray:
        games = cast(Any, self.venv.unwrapped).env.games  # an SB3VecEnv over a ConcordiaVectorEnv
        scores = games.scores()
        return np.array([margin(row, seat) for row, seat in zip(scores, games.learner_seats, strict=True)])

    def reset(self) -> VecEnvObs:
        obs = self.venv.reset()
        self._potential = self._margins()
        return obs

    def step_wait(self) -> Any:
        obs, rewards, dones, infos = self.venv.step_wait()
        margins = self._margins()  # rows that finished already hold their next game
        potential = margins.copy()
        for row in np.flatnonzero(dones):
            final = infos[row]["final_info"]
            # a game that ended is worth nothing more; one cut by max_turns keeps the margin it stood at
            potential[row] = margin(final["scores"], final["learner_seat"]) if final["truncated"] else 0.0
        shaped = rewards + self.coef * (self.gamma * potential - self._potential)
        self._potential = margins  # the next step starts from the rows' current games
        return obs, shaped.astype(np.float32), dones, infos


def margin(scores: np.ndarray, seat: int) -> float:
    """``seat``'s VP minus the mean VP of the other seats."""
    scores = np.asarray(scores, dtype=np.float64)
    return float(scores[seat] - (scores.sum() - scores[seat]) / (len(scores) - 1))


def make_vec_env(config: TrainConfig, run_dir: Path, session: int) -> VecEnv:
    if config.vector_env:
        return make_vector_env(config, session)
    # one thread per environment process (snapshots run small numpy products): set before the
    # first SubprocVecEnv starts the process server that the workers inherit it from
    for var in BLAS_THREAD_VARS:
        os.environ.setdefault(var, "1")
    fns = [env_factory(config, run_dir, rank, session) for rank in range(config.n_envs)]
    venv = DummyVecEnv(fns) if config.n_envs == 1 else SubprocVecEnv(fns)
    return InfoMaskVecEnv(venv)


def make_vector_env(config: TrainConfig, session: int) -> VecEnv:
    """``vector_env: true``: the rows of one :class:`~concordia_env.envs.sb3.SB3VecEnv`, opponents compiled inside.

    The batch's seed comes from the run seed and the session (a resumed session plays new
    games); ``VecMonitor`` records the episodes SB3 logs.
    """
    from stable_baselines3.common.vec_env import VecMonitor

    from concordia_env.envs.sb3 import SB3VecEnv

    seed = int(np.random.SeedSequence([config.seed, ENV_TAG, session]).generate_state(1)[0] >> 1)
    venv: VecEnv = SB3VecEnv(
        config.n_envs,
        opponents=config.vector_opponent(),
        map=config.map,
        num_players=config.num_players,
        reward=config.reward,
        seed=seed,
        threads=config.env_threads,
        **config.env_options,
    )
    if config.reward_scale != 1.0:
        venv = VecScaleReward(venv, config.reward_scale)
    if config.margin_shaping > 0:
        venv = VecMarginShaping(venv, config.margin_shaping, config.gamma)
    return VecMonitor(venv)


def make_logger(run_dir: Path, session: int) -> Logger:
    """CSV (one file per session, so a resume never truncates earlier rows) and TensorBoard."""
    folder = str(run_dir / LOG_DIR)
    os.makedirs(folder, exist_ok=True)
    suffix = "" if session == 0 else f"_session{session}"
    return Logger(folder, [make_output_format("csv", folder, suffix), make_output_format("tensorboard", folder)])


class WholeRunPPO(MaskablePPO):
    """MaskablePPO whose learning-rate schedule runs over the whole run, not over one ``learn()`` call.

    The loop advances a run one PPO update per ``learn()`` call, and SB3 computes the
    progress its schedules read (``lr_schedule: linear``) from the call's own length; here it
    is computed from ``run_timesteps`` (the config's ``total_timesteps``), as one ``learn()``
    over the whole run computes it.
    """

    #: the run's length in timesteps, set for every session (a resume may change it)
    run_timesteps: int = 0

    def _update_current_progress_remaining(self, num_timesteps: int, total_timesteps: int) -> None:
        super()._update_current_progress_remaining(num_timesteps, self.run_timesteps or total_timesteps)


def new_model(config: TrainConfig, env: VecEnv) -> WholeRunPPO:
    """A new MaskablePPO of the config's network and hyperparameters, seeded by the run's seed."""
    lr = LinearDecay(config.learning_rate) if config.lr_schedule == "linear" else config.learning_rate
    return WholeRunPPO(
        "MlpPolicy",
        env,
        learning_rate=lr,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        vf_coef=config.vf_coef,
        max_grad_norm=config.max_grad_norm,
        target_kl=config.target_kl,
        policy_kwargs=policy_kwargs(config),
        seed=config.seed,
        device=config.device,
        verbose=0,
    )


#: config keys a resume may change; the others are fixed by the saved network, optimizer and game
RESUMABLE = (
    "total_timesteps",
    "time_limit_minutes",
    "n_envs",
    "progress",
    "device",
    "torch_threads",
    "ent_coef",
    "vf_coef",
    "max_grad_norm",
    "n_epochs",
    "batch_size",
    "target_kl",
    "opponent_shares",
    "snapshot_every",
    "max_snapshots",
    "snapshot_deterministic",
    "eval_every",
    "eval_at_start",
    "eval_max_turns",
    "eval_games",
    "final_eval_games",
    "final_eval_games_per_opponent",
    "eval_opponents",
    "checkpoint_every",
)

#: ``env_options`` keys that ``Game.new`` takes (the evaluation builds its games with them)
GAME_OPTIONS = ("intermediate_scoring", "display_costs")


def rng_state() -> dict[str, Any]:
    """The learner process's random generators (torch, numpy, Python), as a checkpoint keeps them."""
    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}


def restore_rng(state: dict[str, Any]) -> None:
    """Set the random generators to a checkpoint's :func:`rng_state`."""
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])


# ---------------------------------------------------------------------- the run
class SelfPlayRun(TrainingRun):
    """A self-play run on the one training loop (:class:`.loop.TrainingRun`): an iteration is one PPO update.

    The loop's session (:meth:`session`) builds the environments and the model (new, or the
    checkpoint's), takes the pool's first snapshot and the baseline evaluation
    (``eval_at_start``); each iteration (:meth:`advance`) is one ``learn()`` of one rollout
    (``n_steps`` per environment) and a snapshot every ``snapshot_every`` timesteps; the loop
    then evaluates every ``eval_every`` timesteps, checkpoints every ``checkpoint_every``
    timesteps (and at the end, or when the time limit stops the run) and applies the time
    limit after every update.
    """

    CONFIG_CLASS = TrainConfig
    COMMAND = "concordia train selfplay"
    UNIT = "timestep"
    config: TrainConfig
    state: SelfPlayState

    def __init__(self, run_dir: Path, config: TrainConfig, state: SelfPlayState) -> None:
        super().__init__(run_dir, config, state)
        self.pool = OpponentPool(
            self.run_dir, config.opponent_shares, config.max_snapshots, config.snapshot_deterministic
        )
        self._model: WholeRunPPO | None = None
        self.counter = GameCounter(self)
        #: when the time not yet in ``state.train_seconds`` began (the session's start, or its last checkpoint)
        self.session_start = time.perf_counter()

    @property
    def model(self) -> WholeRunPPO:
        """The model the session trains (the last session's, at the end)."""
        if self._model is None:
            raise RuntimeError("the run has no model before its first session")
        return self._model

    @property
    def checkpoint_dir(self) -> Path:
        return self.run_dir / CHECKPOINT_DIR

    # ------------------------------------------------------------------ the run folder
    @classmethod
    def start(cls, run_dir: Path, config: TrainConfig) -> SelfPlayRun:
        """``checkpoints/`` and the pool file (the environments read it from their first reset on)."""
        (run_dir / CHECKPOINT_DIR).mkdir()
        run = cls(run_dir, config, SelfPlayState())
        run.pool.publish()
        return run

    @classmethod
    def checkpoint_file(cls, run_dir: Path) -> Path:
        return Path(run_dir) / CHECKPOINT_DIR / STATE_FILE

    @classmethod
    def restore(cls, run_dir: Path, config: TrainConfig) -> SelfPlayRun:
        """``checkpoints/state.json`` and the pool it names (the session loads the model and RNG files it names)."""
        path = cls.checkpoint_file(run_dir)
        try:
            state = SelfPlayState.load(path)
        except (ValueError, TypeError) as err:  # JSON errors are ValueErrors
            raise ValueError(f"{path} cannot be resumed: {type(err).__name__}: {err}") from err
        run = cls(run_dir, config, state)
        run.pool.restore(state.pool)
        return run

    @classmethod
    def resumable(cls) -> tuple[str, ...]:
        return RESUMABLE

    # ------------------------------------------------------------------ the loop's parts
    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        """The environments and the model, the first snapshot and the baseline evaluation; closed at the end."""
        config = self.config
        session = self.state.sessions
        self.state.sessions = session + 1  # counted from its start: a killed session's logs are kept apart
        torch.set_num_threads(config.torch_threads)
        disable_distribution_checks()
        env = make_vec_env(config, self.run_dir, session)
        try:
            self._model = self.load_model(env)
            self._model.set_logger(make_logger(self.run_dir, session))
            self.counter.open_bar()
            self.session_start = time.perf_counter()
            self.snapshot_when_due()  # the pool is never empty once the games start
            self.evaluate_when_due()
            yield
        finally:
            self.counter.close()
            env.close()

    def load_model(self, env: VecEnv) -> WholeRunPPO:
        """The checkpoint's model (weights, Adam state, timestep count) and RNG state, or a new model."""
        if self.state.model_file:
            path = self.checkpoint_dir / self.state.model_file
            model = WholeRunPPO.load(path, env=env, device=self.config.device)
            restore_rng(torch.load(self.checkpoint_dir / self.state.rng_file, weights_only=False))
            self._apply_overrides(model)
        else:
            model = new_model(self.config, env)
        model.run_timesteps = self.config.total_timesteps
        return model

    def _apply_overrides(self, model: MaskablePPO) -> None:
        """The PPO hyperparameters among ``RESUMABLE`` (SB3 ``load`` restores the saved values)."""
        config = self.config
        model.ent_coef = config.ent_coef
        model.vf_coef = config.vf_coef
        model.max_grad_norm = config.max_grad_norm
        model.n_epochs = config.n_epochs
        model.batch_size = config.batch_size
        model.target_kl = config.target_kl

    def advance(self) -> None:
        """One PPO update: ``learn()`` of one rollout (the games go on across calls), then a snapshot when due."""
        model = self.model
        model.learn(self.config.rollout_size, callback=self.counter, reset_num_timesteps=False)
        self.state.timesteps = model.num_timesteps
        self.state.games += self.counter.take_games()
        self.snapshot_when_due()

    def position(self) -> tuple[int, int]:
        return self.state.timesteps, self.config.total_timesteps

    def stopped_where(self) -> str:
        return f"at timestep {self.state.timesteps:,} of {self.config.total_timesteps:,}"

    def snapshot_when_due(self) -> None:
        """The learner's actor into the pool: at the start, then every ``snapshot_every`` timesteps (not at the end)."""
        last = self.state.last_snapshot
        if self.done() or (last is not None and self.state.timesteps - last < self.config.snapshot_every):
            return
        if not self.config.vector_env:  # the vector env's opponents are compiled agents, never snapshots
            self.pool.add_snapshot(self.model.policy, self.state.timesteps)
            self.model.logger.record("pool/snapshots", len(self.pool.snapshots))
        self.state.last_snapshot = self.state.timesteps

    def training_seconds(self) -> float:
        """The sessions' wall-clock time, evaluations included (what the time limit counts)."""
        return self.state.train_seconds + (time.perf_counter() - self.session_start)

    def checkpoint_due(self) -> bool:
        return self.state.timesteps - (self.state.last_checkpoint or 0) >= self.config.checkpoint_every

    def checkpoint(self) -> None:
        """Model, RNG and state, each file complete before ``state.json`` names it; then old files go."""
        self.state.train_seconds = self.training_seconds()
        self.session_start = time.perf_counter()  # the time so far is in train_seconds now
        timesteps = self.state.timesteps
        previous = (self.state.model_file, self.state.rng_file)
        model_file, rng_file = f"model_{timesteps:010d}.zip", f"rng_{timesteps:010d}.pt"
        self.model.save(self.checkpoint_dir / f"{model_file}.tmp.zip")
        os.replace(self.checkpoint_dir / f"{model_file}.tmp.zip", self.checkpoint_dir / model_file)
        torch.save(rng_state(), self.checkpoint_dir / f"{rng_file}.tmp")
        os.replace(self.checkpoint_dir / f"{rng_file}.tmp", self.checkpoint_dir / rng_file)
        self.state.last_checkpoint = timesteps
        self.state.model_file, self.state.rng_file = model_file, rng_file
        self.state.pool = self.pool.state()
        write_json_atomic(self.checkpoint_file(self.run_dir), asdict(self.state))
        for old in previous:
            if old and old not in (model_file, rng_file):
                (self.checkpoint_dir / old).unlink(missing_ok=True)
        self.pool.delete_evicted()

    # ------------------------------------------------------------------ evaluation
    def eval_due(self) -> bool:
        """Every ``eval_every`` timesteps, at the start with ``eval_at_start``; not at the end (the final one is)."""
        c, last, t = self.config, self.state.last_eval, self.state.timesteps
        if c.eval_games == 0 or self.done():
            return False
        if last is None:
            return c.eval_at_start or t >= c.eval_every
        return t - last >= c.eval_every

    def eval_index(self) -> int:
        return self.state.eval_index

    def evaluate(self, opponent: str, games: int, index: int) -> EvalResult:
        return self.play_evaluation(opponent, games, index)

    def evaluated(self, results: list[EvalResult]) -> None:
        """The next evaluation's number and timestep; the results in SB3's log and the progress bar."""
        self.state.eval_index += 1
        self.state.last_eval = self.state.timesteps
        for r in results:
            self.model.logger.record(f"eval/win_rate_{r.opponent}", r.win_rate)
            self.model.logger.record(f"eval/mean_vp_{r.opponent}", r.mean_vp)
        self.counter.show()

    def play_evaluation(self, opponent: str, games: int, index: int, replay_dir: Path | None = None) -> EvalResult:
        """The masked argmax policy against ``opponent`` (:func:`.run_evaluation.evaluate`), kept in the db."""
        policy = self.model.policy
        result = evaluate(
            policy,
            opponent,
            games,
            map=self.config.map,
            num_players=self.config.num_players,
            seed=self.config.seed,
            index=index,
            game_options=self.game_options(),
            max_turns=self.config.eval_max_turns,
            replay_dir=replay_dir,
            db=self.run_dir / self.EVAL_DB,
            given_version=weights_digest(p.detach().cpu().numpy() for p in policy.state_dict().values()),
        )
        result.timesteps = self.state.timesteps
        return result

    def game_options(self) -> dict[str, Any]:
        """The env options that are also ``Game.new`` options (the rest are the environment's own)."""
        return {k: v for k, v in self.config.env_options.items() if k in GAME_OPTIONS}

    # ------------------------------------------------------------------ the end
    def final_games(self) -> dict[str, int]:
        return {opponent: self.config.final_games(opponent) for opponent in self.config.eval_opponents}

    def evaluate_final(self, opponent: str, games: int) -> EvalResult:
        """As the periodic evaluations, and its first games as HTML replays (``replays/``)."""
        return self.play_evaluation(opponent, games, FINAL_EVAL_INDEX, self.run_dir / REPLAY_DIR)

    def save_final(self) -> None:
        self.model.save(self.model_path)

    @property
    def model_path(self) -> Path:
        return self.run_dir / FINAL_MODEL

    def summary_counts(self) -> dict[str, Any]:
        s = self.state
        return {"timesteps": s.timesteps, "games": s.games, "sessions": s.sessions, "train_seconds": s.train_seconds}

    def summary_extras(self) -> dict[str, Any]:
        return {"checkpoint_dir": str(self.checkpoint_dir), "pool": self.pool.describe()}

    def write_report(self, summary: dict[str, Any], final: list[EvalResult]) -> Path:
        architecture = describe_architecture(self.config, self.model.policy)
        return write_report(self.run_dir, self.config, summary, self.state.results(), final, architecture)

    def trained_line(self, summary: dict[str, Any]) -> str:
        minutes = summary["train_seconds"] / 60
        return f"trained {summary['timesteps']:,} timesteps in {minutes:.1f} min ({summary['stop_reason']})"


# ---------------------------------------------------------------------- inside learn()
class GameCounter(BaseCallback):
    """Inside ``learn()``, at every step: the finished games counted, SB3's log and the session's progress bar."""

    def __init__(self, run: SelfPlayRun) -> None:
        super().__init__()
        self.run = run
        #: games finished since the last :meth:`take_games`
        self.games = 0
        self.bar: tqdm | None = None

    def open_bar(self) -> None:
        """The session's progress bar (``progress``): timesteps, games, the win rate against the heuristic."""
        config = self.run.config
        if config.progress:
            self.bar = tqdm(total=config.total_timesteps, initial=self.run.state.timesteps, unit="step",
                            dynamic_ncols=True, mininterval=1.0, file=sys.stderr)  # fmt: skip
            self.show()

    def _on_step(self) -> bool:
        dones = self.locals.get("dones")
        finished = int(np.sum(dones)) if dones is not None else 0
        self.games += finished
        if self.bar is not None:
            self.bar.update(self.num_timesteps - self.bar.n)
            if finished:
                self.show()
        self.logger.record("train/games", self.run.state.games + self.games)
        return True

    def take_games(self) -> int:
        """The games finished since the last call."""
        games, self.games = self.games, 0
        return games

    def show(self) -> None:
        """The bar's postfix: games, the latest win rate against the heuristic, the time limit left."""
        if self.bar is None:
            return
        latest = self.run.state.latest(PROGRESS_OPPONENT)
        postfix: dict[str, Any] = {"games": self.run.state.games + self.games}
        postfix[f"win vs {PROGRESS_OPPONENT}"] = f"{latest.win_rate:.0%}" if latest else "-"
        limit = self.run.config.time_limit_minutes
        if limit is not None:
            left = max(0.0, limit * 60 - self.run.training_seconds())
            postfix["time limit left"] = f"{int(left // 60)}:{int(left % 60):02d}"
        self.bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


# ---------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    return command_parser(
        SelfPlayRun,
        "Self-play training of a MaskablePPO policy for Concordia (concordia_env/training/selfplay.py).",
        "quick.yaml",
        [
            "concordia train selfplay --config quick",
            "concordia train selfplay --config quick --total_timesteps 20000 --n_envs 2",
            "concordia train selfplay --resume runs/quick-20250101-120000 --total_timesteps 400000",
        ],
        values_example="--net_arch '[64, 64]' --opponent_shares '{snapshot: 0.8, random: 0.2}'",
    )


def main(argv: list[str] | None = None) -> Path:
    return run_command(build_parser(), argv, SelfPlayRun)


if __name__ == "__main__":
    main()
