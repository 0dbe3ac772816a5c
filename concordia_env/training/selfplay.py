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
* Between PPO updates (so that the network on disk is always a trained one) a callback
  takes snapshots, runs the periodic evaluation (:mod:`concordia_env.training.run_evaluation`), writes
  checkpoints and enforces ``time_limit_minutes``.
* At the end: a final evaluation with ``final_eval_games`` games per opponent, the final
  model, the learning curve and ``report.md`` (:mod:`concordia_env.training.run_report`).

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
checkpoint's timestep. What cannot be carried over is the inside of the environment
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
from collections.abc import Callable
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
from concordia_env.tools.arguments import mistake_text

from .config import TrainConfig, add_override_arguments, overrides_from_args, resolve, resume_overrides
from .policy_net import describe_architecture, disable_distribution_checks, policy_kwargs
from .pool import POOL_FILE, OpponentPool, PoolOpponent
from .run_evaluation import EVAL_DB, EvalHistory, EvalResult, evaluate, weights_digest
from .run_folder import RunFolderBusyError, RunLock, new_run_dir, write_json_atomic
from .run_report import CURVE_FILE, cut_short_text, plot_learning_curve, write_eval_csv, write_report

CONFIG_FILE = "config.yaml"
CHECKPOINT_DIR = "checkpoints"
STATE_FILE = "state.json"
LOG_DIR = "logs"
FINAL_MODEL = "final_model.zip"
SUMMARY_FILE = "summary.json"
#: HTML replays of the final evaluation's first games (one per learner seat and opponent)
REPLAY_DIR = "replays"
#: separates the environments' seeds from the evaluation's
ENV_TAG = 0xE4F
#: the final evaluation's seed index (periodic evaluations count 0, 1, 2, ...)
FINAL_EVAL_INDEX = 1_000_000
#: thread counts of the numerical libraries, pinned to 1 in the environment processes
BLAS_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: where the environment puts the legal mask of the next decision
MASK_KEY = "action_mask"
#: the heuristic's evaluation is the one the progress bar shows
PROGRESS_OPPONENT = "heuristic"


# ---------------------------------------------------------------------- run state
@dataclass
class RunState(EvalHistory):
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
    def load(cls, path: Path) -> RunState:
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


def new_model(config: TrainConfig, env: VecEnv) -> MaskablePPO:
    lr = LinearDecay(config.learning_rate) if config.lr_schedule == "linear" else config.learning_rate
    return MaskablePPO(
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


# ---------------------------------------------------------------------- the run
class Run:
    """One run directory: its config, pool, state, checkpoints and the training session in progress."""

    def __init__(self, run_dir: Path, config: TrainConfig, state: RunState) -> None:
        self.run_dir = Path(run_dir)
        self.config = config
        self.state = state
        self.pool = OpponentPool(
            self.run_dir, config.opponent_shares, config.max_snapshots, config.snapshot_deterministic
        )
        self.session_start = time.perf_counter()
        self.wall_start = time.perf_counter()
        self.stop_reason = ""

    # ------------------------------------------------------------------ creation
    @classmethod
    def create(cls, config: TrainConfig, held: contextlib.ExitStack | None = None) -> Run:
        """A new run in a new run directory; ``held``: the command's stack, where the folder's lock goes at once."""
        run_dir = new_run_dir(config.runs_dir, config.name)
        if held is not None:
            held.enter_context(RunLock(run_dir))
        (run_dir / CHECKPOINT_DIR).mkdir()
        config.save(run_dir / CONFIG_FILE)
        run = cls(run_dir, config, RunState())
        run.pool.publish()  # the environments read the pool file from their first reset on
        return run

    @classmethod
    def open(cls, run_dir: Path, overrides: dict[str, Any], held: contextlib.ExitStack | None = None) -> Run:
        """Reopen a run from its last checkpoint; ``overrides`` change its config (e.g. total_timesteps).

        ``held`` (as for :meth:`create`): the folder's lock is taken there before anything is read.
        """
        run_dir = Path(run_dir)
        if held is not None and run_dir.is_dir():
            held.enter_context(RunLock(run_dir))
        state_path = run_dir / CHECKPOINT_DIR / STATE_FILE
        if not state_path.exists():
            raise FileNotFoundError(f"{run_dir} has no checkpoint ({state_path} is missing): nothing to resume")
        overrides = resume_overrides(run_dir / CONFIG_FILE, overrides, RESUMABLE)
        config = resolve(run_dir / CONFIG_FILE, overrides)
        config.save(run_dir / CONFIG_FILE)
        run = cls(run_dir, config, RunState.load(state_path))
        run.pool.restore(run.state.pool)
        return run

    @property
    def checkpoint_dir(self) -> Path:
        return self.run_dir / CHECKPOINT_DIR

    # ------------------------------------------------------------------ periodic work
    def take_snapshot(self, model: MaskablePPO, timesteps: int) -> None:
        if not self.config.vector_env:  # the vector env's opponents are compiled agents, never snapshots
            self.pool.add_snapshot(model.policy, timesteps)
        self.state.last_snapshot = timesteps

    def run_evaluation(self, model: MaskablePPO, timesteps: int) -> list[EvalResult]:
        results = []
        for opponent in self.config.eval_opponents:
            result = self._evaluate(model, opponent, self.config.eval_games, self.state.eval_index)
            result.timesteps = timesteps
            results.append(result)
            self.state.history.append(result.to_dict())
        self.state.eval_index += 1
        self.state.last_eval = timesteps
        write_eval_csv(self.run_dir, self.state.history)
        return results

    def _evaluate(
        self, model: MaskablePPO, opponent: str, games: int, index: int, replay_dir: Path | None = None
    ) -> EvalResult:
        return evaluate(
            model.policy,
            opponent,
            games,
            map=self.config.map,
            num_players=self.config.num_players,
            seed=self.config.seed,
            index=index,
            game_options=self.game_options(),
            max_turns=self.config.eval_max_turns,
            replay_dir=replay_dir,
            db=self.run_dir / EVAL_DB,
            given_version=weights_digest(p.detach().cpu().numpy() for p in model.policy.state_dict().values()),
        )

    def game_options(self) -> dict[str, Any]:
        """The env options that are also ``Game.new`` options (the rest are the environment's own)."""
        return {k: v for k, v in self.config.env_options.items() if k in GAME_OPTIONS}

    def elapsed_train_seconds(self) -> float:
        return self.state.train_seconds + (time.perf_counter() - self.session_start)

    def save_checkpoint(self, model: MaskablePPO, timesteps: int) -> None:
        """Model, RNG and state, each file complete before ``state.json`` names it; then old files go."""
        previous = (self.state.model_file, self.state.rng_file)
        model_file, rng_file = f"model_{timesteps:010d}.zip", f"rng_{timesteps:010d}.pt"
        model.save(self.checkpoint_dir / f"{model_file}.tmp.zip")
        os.replace(self.checkpoint_dir / f"{model_file}.tmp.zip", self.checkpoint_dir / model_file)
        torch.save(rng_state(), self.checkpoint_dir / f"{rng_file}.tmp")
        os.replace(self.checkpoint_dir / f"{rng_file}.tmp", self.checkpoint_dir / rng_file)
        self.state.timesteps = timesteps
        self.state.last_checkpoint = timesteps
        self.state.model_file, self.state.rng_file = model_file, rng_file
        self.state.pool = self.pool.state()
        snapshot = asdict(self.state)
        snapshot["train_seconds"] = self.elapsed_train_seconds()
        write_json_atomic(self.checkpoint_dir / STATE_FILE, snapshot)
        for old in previous:
            if old and old not in (model_file, rng_file):
                (self.checkpoint_dir / old).unlink(missing_ok=True)
        self.pool.delete_evicted()

    # ------------------------------------------------------------------ training
    def train(self) -> MaskablePPO:
        """Train from the current state to ``total_timesteps`` (or the time limit); returns the model."""
        config = self.config
        session = self.state.sessions
        self.state.sessions = session + 1  # counted from its start: a killed session's logs are kept apart
        torch.set_num_threads(config.torch_threads)
        disable_distribution_checks()
        env = make_vec_env(config, self.run_dir, session)
        try:
            if self.state.model_file:
                model = MaskablePPO.load(self.checkpoint_dir / self.state.model_file, env=env, device=config.device)
                restore_rng(torch.load(self.checkpoint_dir / self.state.rng_file, weights_only=False))
                self._apply_overrides(model)
            else:
                model = new_model(config, env)
            model.set_logger(make_logger(self.run_dir, session))
            if self.state.last_snapshot is None:  # the pool is never empty once the games start
                self.take_snapshot(model, model.num_timesteps)
            self.session_start = time.perf_counter()
            callback = SelfPlayCallback(self)
            remaining = config.total_timesteps - model.num_timesteps
            if remaining > 0:
                model.learn(remaining, callback=callback, reset_num_timesteps=False)
            callback.close()
            model.num_timesteps = callback.trained_timesteps(model)
            self.state.games += callback.session_games
            self.save_checkpoint(model, model.num_timesteps)
            self.state.train_seconds = self.elapsed_train_seconds()
            self.session_start = time.perf_counter()  # the session's time is in train_seconds now
            self.stop_reason = callback.stop_reason or "completed"
        finally:
            env.close()
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

    # ------------------------------------------------------------------ the end
    def finish(self, model: MaskablePPO) -> Path:
        """Final evaluation, final model, learning curve, report; returns the report's path."""
        timesteps = model.num_timesteps
        final = []
        for opponent in self.config.eval_opponents:
            games = self.config.final_games(opponent)
            result = self._evaluate(model, opponent, games, FINAL_EVAL_INDEX, self.run_dir / REPLAY_DIR)
            result.timesteps = timesteps
            final.append(result)
        model.save(self.run_dir / FINAL_MODEL)
        title = f"{self.config.name}: {self.config.num_players}-player {self.config.map}"
        plot_learning_curve(self.state.results(), final, self.config.num_players, self.run_dir / CURVE_FILE, title)
        summary = {
            "timesteps": timesteps,
            "games": self.state.games,
            "sessions": self.state.sessions,
            "train_seconds": self.state.train_seconds,
            "wall_seconds": time.perf_counter() - self.wall_start,
            "stop_reason": self.stop_reason or "completed",
            "model_path": str(self.run_dir / FINAL_MODEL),
            "checkpoint_dir": str(self.checkpoint_dir),
            "pool": self.pool.describe(),
            "final": [r.to_dict() for r in final],
        }
        architecture = describe_architecture(self.config, model.policy)
        report = write_report(self.run_dir, self.config, summary, self.state.results(), final, architecture)
        summary["wall_seconds"] = time.perf_counter() - self.wall_start
        write_json_atomic(self.run_dir / SUMMARY_FILE, summary)
        return report


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
    return {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}


def restore_rng(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])


# ---------------------------------------------------------------------- callback
class SelfPlayCallback(BaseCallback):
    """Between updates: snapshot, evaluate, checkpoint, time limit; every step: games and progress.

    Everything periodic runs in ``_on_rollout_start``: at that moment every collected
    timestep has been trained on, so a checkpoint taken there loses nothing.
    """

    @property
    def ppo(self) -> MaskablePPO:
        """The model being trained (``BaseCallback`` types it as any algorithm; this run trains MaskablePPO)."""
        return cast(MaskablePPO, self.model)

    def __init__(self, run: Run) -> None:
        super().__init__()
        self.run = run
        self.session_games = 0
        self.stop_reason = ""
        self._stop = False
        self._rollout_start_timesteps = 0
        self.bar: tqdm | None = None

    # ------------------------------------------------------------------ hooks
    def _on_training_start(self) -> None:
        config = self.run.config
        if config.progress:
            self.bar = tqdm(
                total=config.total_timesteps,
                initial=self.num_timesteps,
                unit="step",
                dynamic_ncols=True,
                mininterval=1.0,
                file=sys.stderr,
            )
            self._update_postfix()

    def _on_rollout_start(self) -> None:
        config, state, t = self.run.config, self.run.state, self.num_timesteps
        self._rollout_start_timesteps = t
        if state.last_snapshot is None or t - state.last_snapshot >= config.snapshot_every:
            self.run.take_snapshot(self.ppo, t)
            self.logger.record("pool/snapshots", len(self.run.pool.snapshots))
        if config.eval_games > 0 and self._eval_due(t):
            for r in self.run.run_evaluation(self.ppo, t):
                self.logger.record(f"eval/win_rate_{r.opponent}", r.win_rate)
                self.logger.record(f"eval/mean_vp_{r.opponent}", r.mean_vp)
            self._update_postfix()
        if t - (state.last_checkpoint or 0) >= config.checkpoint_every:  # nothing to save at 0
            self.run.state.games += self.session_games
            self.session_games = 0
            self.run.save_checkpoint(self.ppo, t)
        limit = config.time_limit_minutes
        if limit is not None and self.run.elapsed_train_seconds() >= limit * 60:
            self._stop = True
            where = f"at timestep {t:,} of {config.total_timesteps:,}"
            self.stop_reason = cut_short_text(limit, where, f"concordia train selfplay --resume {self.run.run_dir}")

    def _eval_due(self, t: int) -> bool:
        last = self.run.state.last_eval
        if last is None:
            return self.run.config.eval_at_start or t >= self.run.config.eval_every
        return t - last >= self.run.config.eval_every

    def _on_step(self) -> bool:
        if self._stop:
            return False  # this step's transitions are dropped; trained_timesteps() accounts for it
        dones = self.locals.get("dones")
        finished = int(np.sum(dones)) if dones is not None else 0
        self.session_games += finished
        if self.bar is not None:
            self.bar.update(self.num_timesteps - self.bar.n)
            if finished:
                self._update_postfix()
        self.logger.record("train/games", self.run.state.games + self.session_games)
        return True

    def trained_timesteps(self, model: MaskablePPO) -> int:
        """Timesteps the network was trained on (a stop drops the rollout it interrupted)."""
        return self._rollout_start_timesteps if self._stop else model.num_timesteps

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    # ------------------------------------------------------------------ display
    def _update_postfix(self) -> None:
        if self.bar is None:
            return
        latest = self.run.state.latest(PROGRESS_OPPONENT)
        postfix: dict[str, Any] = {"games": self.run.state.games + self.session_games}
        postfix[f"win vs {PROGRESS_OPPONENT}"] = f"{latest.win_rate:.0%}" if latest else "-"
        limit = self.run.config.time_limit_minutes
        if limit is not None:
            left = max(0.0, limit * 60 - self.run.elapsed_train_seconds())
            postfix["time limit left"] = f"{int(left // 60)}:{int(left % 60):02d}"
        self.bar.set_postfix(postfix, refresh=False)


# ---------------------------------------------------------------------- command line
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="concordia train selfplay",
        description="Self-play training of a MaskablePPO policy for Concordia (concordia_env/training/selfplay.py).",
        epilog=(
            "examples:\n"
            "  concordia train selfplay --config quick\n"
            "  concordia train selfplay --config quick --total_timesteps 20000 --n_envs 2\n"
            "  concordia train selfplay --resume runs/quick-20250101-120000 --total_timesteps 400000\n"
            "values are read as YAML: --net_arch '[64, 64]' --opponent_shares '{snapshot: 0.8, random: 0.2}'"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--config", help="YAML config file (concordia_env/training/configs/*.yaml); defaults for missing keys"
    )
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint")
    add_override_arguments(parser)
    return parser


def main(argv: list[str] | None = None) -> Path:
    parser = build_parser()
    args = parser.parse_args(argv)
    with contextlib.ExitStack() as held:  # the run folder's lock, from its first file to the command's end
        return _run_locked(parser, args, held)


def _run_locked(parser: argparse.ArgumentParser, args: argparse.Namespace, held: contextlib.ExitStack) -> Path:
    """:func:`main` with the run folder's lock entered in ``held``."""
    try:  # a config or argument mistake (a missing config, a bad value, no checkpoint, a busy folder): one line
        overrides = overrides_from_args(args)
        if args.resume:
            if args.config:
                parser.error("--resume takes the run's own config.yaml; give changes as --key value options")
            run = Run.open(Path(args.resume), overrides, held)
            print(f"resuming {run.run_dir} at timestep {run.state.timesteps:,}", file=sys.stderr)
        else:
            run = Run.create(resolve(args.config, overrides), held)
            print(f"run directory: {run.run_dir}", file=sys.stderr)
    except (OSError, ValueError, TypeError, RunFolderBusyError) as err:
        parser.error(mistake_text(err))
    try:
        model = run.train()
        report = run.finish(model)
    except KeyboardInterrupt:
        print(
            f"\ninterrupted; continue with: concordia train selfplay --resume {run.run_dir}",
            file=sys.stderr,
        )
        raise SystemExit(130) from None
    for line in _final_lines(run, report):
        print(line)
    return report


def _final_lines(run: Run, report: Path) -> list[str]:
    summary = json.loads((run.run_dir / SUMMARY_FILE).read_text())
    lines = [f"trained {summary['timesteps']:,} timesteps in {summary['train_seconds'] / 60:.1f} min"]
    lines += [EvalResult.from_dict(r).summary() for r in summary["final"]]
    lines.append(f"report: {report}")
    return lines


if __name__ == "__main__":
    main()
