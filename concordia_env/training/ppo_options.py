"""PPO on the options level in one file, CleanRL style: the config at the top, the loop in plain sight.

``concordia train ppo_options`` trains :class:`~concordia_env.agents.options_net.OptionsNet`
(one shared MLP scores every turn option; the value reads the pooled options and the flat
observation) with PPO against fixed opponents, in ``num_envs`` games stepped together by
``ConcordiaVectorEnv(level="options")`` (the options and the compiled opponents computed on
its ``threads``; the learner's seat rotates across rows and games; autoreset in the same
step). Every ``--field value`` of :class:`Config` overrides its default, read as YAML as in
every training command (:mod:`.config`), e.g. ``concordia train ppo_options --total_steps
200000 --minutes 60 --seed 0 --option_hidden '[128, 64]'``; ``--config FILE.yaml`` gives many
(a run's own ``config.json`` repeats that run).

The defaults are the README's ``MaskablePPO`` recipe (SB3's PPO settings: 2,048 steps a
rollout in minibatches of 256, 10 epochs, no entropy bonus, the value loss weighed as SB3
weighs it; a constant learning rate of 1e-4) with ``utility_prior`` 0: the policy starts
uniform and learns from the options' features alone, which measured stronger against the
search than starting from the heuristic's ranking (docs/training.md, "The options level").
The value loss here is CleanRL's, half the squared error, so ``vf_coef`` 1.0 is SB3's 0.5 on
the whole squared error; with 0.5 the value head learnt at half SB3's pace, and the run
measured weaker against the search (46.0% against 55.5% at 2 M steps).

The run is a :class:`OptionsPPORun` on the one training loop (:class:`.loop.TrainingRun`,
as afterstate, expert iteration and self-play): one iteration is one PPO update (a rollout
of ``num_steps`` in every env, then ``update_epochs`` passes over it); the loop checkpoints,
applies the time guard, prints its progress after each checkpoint and ends with the final
evaluation, ``summary.json`` and the report; :func:`.loop.run_command` is its command.

The run writes ``<runs_dir>/<name>-<seed>-<timestamp>/``: ``config.json``,
``progress.jsonl`` (one line per update, also on stdout: steps, games, the learner's win rate
over the games finished since the last line, losses, steps/s), ``checkpoint.pt`` at the
start, every ``save_every`` updates and at the end of training (the network, Adam's state,
torch's generator, the counts and the learner's actions so far), ``model.pt`` beside it (the
network's ``state_dict`` and its sizes: :func:`load` rebuilds it), and at the end
``eval.json``: the greedy policy against ``eval_opponent`` over ``eval_games`` games with
every seat equally often and a 95% Wilson interval
(:func:`concordia_env.training.run_evaluation.evaluate`, the project's one evaluation), with
the loop's ``summary.json`` (the counts, why the run stopped, the final evaluation),
``report.md``, ``evaluations.csv`` and ``learning_curve.png``. ``minutes`` is the time guard:
the run stops after the update that passes it and says so, on stdout, in ``eval.json``
(``"cut_short"``) and in ``summary.json``'s ``stop_reason``. The numbers it reaches are in
``docs/training.md`` ("The options level").

Ctrl-C stops the run in one line (exit status 130) that says how to continue it;
``--resume RUN_DIR`` continues from the last checkpoint exactly as the uninterrupted run
would have gone on (the same updates, weights and evaluation for the same seed): the games
in progress are rebuilt by playing the learner's recorded actions again from the seed (the
envs are deterministic for their seed and those actions; this costs the envs' time of the
steps so far, not the network's), and ``progress.jsonl`` is cut back to the checkpoint. A
resume may change only :data:`RESUMABLE` (``--minutes 120`` continues a run the time guard
cut short). One process writes a run folder at a time (:class:`.run_folder.RunLock`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import io
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
import torch as th

from concordia_env.agents.options_net import OptionsNet
from concordia_env.envs.vector_env import ConcordiaVectorEnv
from concordia_env.strategy import features_version

from .config import ConfigBase, _f, check_positive
from .loop import TrainingRun, command_parser, run_command
from .run_evaluation import EvalHistory, EvalResult, OptionsAgent, evaluate
from .run_folder import write_atomic, write_json_atomic
from .run_report import config_section, cut_short_text, final_table, report_opening

COMMAND = "concordia train ppo_options"
#: the run folder's files: the config, one line per update, the checkpoint a resume reads, the network
CONFIG, PROGRESS, CHECKPOINT, MODEL = "config.json", "progress.jsonl", "checkpoint.pt", "model.pt"
#: the final evaluation (with the steps, the training time and whether the time guard cut the run short), the report
EVAL, REPORT = "eval.json", "report.md"
#: the final evaluation's seed index (:func:`.run_evaluation.eval_seed`): 0, as before the script ran on the loop
FINAL_EVAL_SEEDS = 0


@dataclass
class Config(ConfigBase):
    """One run; every field is also a command-line option (``--total_steps 100000``), read as YAML."""

    name: str = _f("ppo_options", "run name; the run directory is <runs_dir>/<name>-<seed>-<timestamp>")
    runs_dir: str = _f("runs", "where run directories are created")
    seed: int = _f(0, "seed of the network, the envs' games and the sampling")
    # the game and the env
    map: str = _f("italia", "map: imperium, italia, aegyptus or creta")
    num_players: int = _f(2, "players per game; the learner plays one seat")
    opponents: str = _f("heuristic", "an agent spec for every other seat (one with a compiled twin)")
    reward: str = _f("vp", "the final VP margin / 100: a lost game still says by how much ('win': +-1)")
    max_options: int = _f(32, "K: 95% of the decisions whole, the update 2.2x cheaper than the env's default 96")
    num_envs: int = _f(8, "games stepped together")
    threads: int = _f(2, "the vector env's threads (torch_threads is the network's)")
    # the run's length: whichever comes first
    total_steps: int = _f(1_000_000, "learner decisions, all envs together")
    minutes: float = _f(60.0, "the time guard (training only; the evaluation comes after)")
    # PPO: the README's MaskablePPO recipe (SB3's defaults, lr 1e-4), the strongest measured (docs/training.md)
    num_steps: int = _f(256, "steps per env per rollout")
    learning_rate: float = _f(1e-4, "Adam learning rate")
    anneal_lr: bool = _f(False, "the learning rate falls linearly to 0 over the run")
    gamma: float = _f(0.99, "discount factor")
    gae_lambda: float = _f(0.95, "GAE lambda")
    num_minibatches: int = _f(8, "minibatches per rollout")
    update_epochs: int = _f(10, "passes over each rollout")
    clip_coef: float = _f(0.2, "PPO clip range")
    ent_coef: float = _f(0.0, "entropy bonus coefficient")
    vf_coef: float = _f(1.0, "value loss coefficient, on half the squared error: SB3's 0.5 on the whole")
    max_grad_norm: float = _f(0.5, "gradient clipping norm")
    # the network (OptionsNet)
    option_hidden: list = field(
        default_factory=lambda: [128, 64], metadata={"help": "hidden layer sizes of the options' MLP"}
    )
    observation_hidden: list = field(
        default_factory=lambda: [64], metadata={"help": "hidden layer sizes of the flat observation's MLP"}
    )
    utility_prior: float = _f(0.0, "the heuristic's utility in the first logits (0: uniform: the features alone)")
    torch_threads: int = _f(1, "torch threads of the network")
    # checkpoints and the final evaluation
    save_every: int = _f(50, "updates between checkpoints")
    eval_games: int = _f(200, "games of the final evaluation")
    eval_opponent: str = _f("heuristic", "the final evaluation's opponent (an agent spec)")

    def validate(self) -> None:
        check(self)


POSITIVE = ("num_envs", "threads", "total_steps", "num_steps", "learning_rate", "num_minibatches",
            "update_epochs", "clip_coef", "max_grad_norm", "torch_threads", "save_every", "max_options")  # fmt: skip


def check(config: Config) -> None:
    """Refuse a config PPO cannot run (``ValueError``, one line), before anything is written."""
    check_positive(config, POSITIVE)
    for name in ("gamma", "gae_lambda"):
        if not 0.0 <= getattr(config, name) <= 1.0:
            raise ValueError(f"{name} must be in 0..1, got {getattr(config, name)}")
    if not all(v >= 0 for v in (config.minutes, config.ent_coef, config.vf_coef, config.eval_games)):  # NaN too
        raise ValueError("minutes, ent_coef, vf_coef and eval_games must be >= 0")
    if config.num_minibatches > config.num_steps * config.num_envs:
        raise ValueError(f"num_minibatches ({config.num_minibatches}) exceeds a rollout's {config.num_steps} x "
                         f"{config.num_envs} steps")  # fmt: skip
    if (
        not config.option_hidden
        or not config.observation_hidden
        or min([*config.option_hidden, *config.observation_hidden]) <= 0
    ):
        raise ValueError("option_hidden and observation_hidden must be positive layer sizes")


def make_envs(config: Config) -> ConcordiaVectorEnv:
    """``num_envs`` options-level games against ``opponents``, reset in the step that ends a game."""
    return ConcordiaVectorEnv(
        config.num_envs,
        opponents=config.opponents,
        map=config.map,
        num_players=config.num_players,
        reward=config.reward,
        threads=config.threads,
        level="options",
        max_options=config.max_options,
    )


def tensors(obs: dict[str, np.ndarray]) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
    return th.as_tensor(obs["observation"]), th.as_tensor(obs["options"]), th.as_tensor(obs["action_mask"])


@dataclass
class Progress:
    """Where a run is (what ``checkpoint.pt`` carries beside the network, the optimizer and torch's generator)."""

    update: int = 0  # updates done
    steps: int = 0  # learner decisions, all envs together
    games: int = 0
    wins: int = 0
    seconds: float = 0.0  # training time, all sessions together (what ``minutes`` counts)
    cut_short: bool = False


class Rollout:
    """One rollout's storage, ``(num_steps, num_envs, ...)`` each, and the games' state between rollouts."""

    def __init__(self, config: Config, obs: dict[str, np.ndarray]) -> None:
        shape = (config.num_steps, config.num_envs)
        n_obs, (k, n_features) = obs["observation"].shape[1], obs["options"].shape[1:]
        self.observation, self.options = th.zeros((*shape, n_obs)), th.zeros((*shape, k, n_features))
        self.mask = th.zeros((*shape, k))
        self.actions, self.logprobs, self.rewards, self.dones, self.values = (th.zeros(shape) for _ in range(5))
        self.obs: Any = obs  # the current observation: a dict of batched arrays
        self.next_done = th.zeros(config.num_envs)


@dataclass
class Learner:
    """The network, its optimizer and its sizes (what ``model.pt`` keeps to rebuild it)."""

    net: OptionsNet
    optimizer: th.optim.Optimizer
    sizes: dict[str, Any]
    max_options: int  # K, the options the env shows (``model.pt`` says it, so that ``policy:model.pt`` plays it)


def network_sizes(config: Config, obs: dict[str, np.ndarray]) -> dict[str, Any]:
    """The :class:`OptionsNet` of ``config`` for the env's observations (what ``model.pt`` keeps to rebuild it)."""
    n_obs, (_, n_features) = obs["observation"].shape[1], obs["options"].shape[1:]
    sizes: dict[str, Any] = {"observation_size": n_obs, "num_features": n_features}
    sizes.update(option_hidden=list(config.option_hidden), observation_hidden=list(config.observation_hidden))
    sizes.update(utility_prior=config.utility_prior)
    return sizes


def collect(config: Config, envs: ConcordiaVectorEnv, net: OptionsNet, rollout: Rollout, progress: Progress) -> None:
    """One rollout of ``num_steps`` steps in every env: the policy samples, the envs step (a finished game resets)."""
    r = rollout
    for t in range(config.num_steps):
        r.observation[t], r.options[t], r.mask[t] = tensors(r.obs)
        r.dones[t] = r.next_done
        with th.no_grad():
            logits, value = net(r.observation[t], r.options[t], r.mask[t])
            dist = th.distributions.Categorical(logits=logits)
            action = dist.sample()
        r.actions[t], r.logprobs[t], r.values[t] = action, dist.log_prob(action), value
        reward, finished, infos = step(envs, rollout, action.numpy())
        r.rewards[t] = th.as_tensor(reward, dtype=th.float32)
        progress.steps += config.num_envs
        for i in np.flatnonzero(finished):
            progress.games += 1
            progress.wins += int(infos["final_info"]["winner"][i] == infos["final_info"]["learner_seat"][i])


def step(envs: ConcordiaVectorEnv, rollout: Rollout, action: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
    """Every env steps; the rollout's observation and ``next_done`` move on; the reward, finished rows, infos."""
    result: tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]] = envs.step(action)
    rollout.obs, reward, terminated, truncated, infos = result
    rollout.next_done = th.as_tensor(terminated | truncated, dtype=th.float32)
    return reward, terminated | truncated, infos


def optimize(config: Config, learner: Learner, rollout: Rollout) -> dict[str, float]:
    """The PPO update on one rollout: GAE advantages (a truncated game treated as ended), clipped epochs."""
    r, batch_size, net, optimizer = rollout, config.num_steps * config.num_envs, learner.net, learner.optimizer
    with th.no_grad():
        next_value = net(*tensors(r.obs))[1]
    advantages, last = th.zeros_like(r.rewards), th.zeros(config.num_envs)
    for t in reversed(range(config.num_steps)):
        not_done = 1.0 - (r.next_done if t == config.num_steps - 1 else r.dones[t + 1])
        following = next_value if t == config.num_steps - 1 else r.values[t + 1]
        delta = r.rewards[t] + config.gamma * following * not_done - r.values[t]
        advantages[t] = last = delta + config.gamma * config.gae_lambda * not_done * last
    returns = advantages + r.values
    flat = [x.reshape(batch_size, *x.shape[2:]) for x in (r.observation, r.options, r.mask)]
    f_actions, f_logprobs, f_adv, f_returns = (x.reshape(-1) for x in (r.actions, r.logprobs, advantages, returns))
    for _ in range(config.update_epochs):
        for idx in th.randperm(batch_size).split(batch_size // config.num_minibatches):
            logits, new_value = net(*(x[idx] for x in flat))
            dist = th.distributions.Categorical(logits=logits)
            ratio = (dist.log_prob(f_actions[idx]) - f_logprobs[idx]).exp()
            adv = (f_adv[idx] - f_adv[idx].mean()) / (f_adv[idx].std() + 1e-8)
            pg_loss = th.max(-adv * ratio, -adv * ratio.clamp(1 - config.clip_coef, 1 + config.clip_coef)).mean()
            v_loss = 0.5 * ((new_value - f_returns[idx]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = pg_loss - config.ent_coef * entropy + config.vf_coef * v_loss
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
            optimizer.step()
    return {"pg_loss": pg_loss.item(), "v_loss": v_loss.item(), "entropy": entropy.item()}


# ---------------------------------------------------------------------- checkpoint and resume
def checkpoint(run_dir: Path, learner: Learner, progress: Progress, actions: list[np.ndarray]) -> None:
    """``checkpoint.pt`` in one atomic step (network, optimizer, torch's generator, progress, the learner's
    actions so far), then ``model.pt`` from it; ``progress.jsonl`` holds no line past it."""
    saved = {"net": learner.net.state_dict(), "optimizer": learner.optimizer.state_dict(), "rng": th.get_rng_state()}
    played = np.concatenate(actions) if actions else np.zeros((0, 0), dtype=np.int16)
    saved.update(progress=dataclasses.asdict(progress), actions=played)
    buffer = io.BytesIO()
    th.save(saved, buffer)
    write_atomic(run_dir / CHECKPOINT, buffer.getvalue())
    save(learner, run_dir / MODEL)


def restore(run_dir: Path, learner: Learner) -> tuple[Progress, list[np.ndarray]]:
    """The run's state as ``checkpoint.pt`` left it: the network, the optimizer and torch's generator restored,
    ``progress.jsonl`` cut back to the checkpoint; returns the progress and the learner's actions so far."""
    try:
        saved = th.load(run_dir / CHECKPOINT, weights_only=False)
        learner.net.load_state_dict(saved["net"])
        learner.optimizer.load_state_dict(saved["optimizer"])
        progress = Progress(**saved["progress"])
    except Exception as err:  # torch, pickle and zip errors alike: the checkpoint is not usable
        raise ValueError(f"{run_dir / CHECKPOINT} cannot be resumed: {type(err).__name__}: {err}") from err
    th.set_rng_state(saved["rng"])
    lines = (run_dir / PROGRESS).read_text().splitlines() if (run_dir / PROGRESS).is_file() else []
    kept = [line for line in lines if json.loads(line)["update"] <= progress.update]
    write_atomic(run_dir / PROGRESS, "".join(f"{line}\n" for line in kept).encode())
    save(learner, run_dir / MODEL)  # a model.pt newer than the checkpoint goes
    return progress, [saved["actions"]] if progress.update else []


def replay(envs: ConcordiaVectorEnv, rollout: Rollout, actions: np.ndarray) -> None:
    """The games as the checkpoint left them: the learner's recorded actions played again from the seed.

    The envs are deterministic for their seed and the learner's actions, so this rebuilds
    every row's game, its opponents and its generators exactly, without the network (the
    cost: the envs' time of the steps so far, not the network's or the updates').
    """
    for action in actions:
        step(envs, rollout, action.astype(np.int64))


def options_agent(net: OptionsNet, max_options: int, num_features: int) -> OptionsAgent:
    """The network's greedy choice (the most probable valid option) as an agent."""

    def choose(obs: dict[str, np.ndarray]) -> int:
        with th.no_grad():
            logits, _ = net(*(x.unsqueeze(0) for x in tensors(obs)))
        return int(logits.argmax())

    return OptionsAgent(choose, max_options, features_version(num_features))


def save(learner: Learner, path: Path) -> None:
    """``model.pt``: the network's sizes, weights and K (:func:`load`; ``policy:model.pt`` plays it), atomically."""
    buffer = io.BytesIO()
    saved = {"sizes": learner.sizes, "state_dict": learner.net.state_dict(), "max_options": learner.max_options}
    th.save(saved, buffer)
    write_atomic(path, buffer.getvalue())


def load(path: str | Path) -> OptionsNet:
    """The network a run saved in ``model.pt``."""
    saved = th.load(path, weights_only=True)
    net = OptionsNet(**saved["sizes"])
    net.load_state_dict(saved["state_dict"])
    return net


# ---------------------------------------------------------------------- the run on the loop
class OptionsPPORun(TrainingRun):
    """A ``ppo_options`` run on the one training loop (:class:`.loop.TrainingRun`): an iteration is one PPO update.

    The run holds the envs, the network and its optimizer from its start (:meth:`start`, a new
    run: update 0 checkpointed) or its checkpoint (:meth:`restore`); the loop's session
    (:meth:`session`) rebuilds the games in progress and opens ``progress.jsonl``; each
    iteration (:meth:`advance`) is one rollout and its update, one line in ``progress.jsonl``
    and on stdout; the loop checkpoints every ``save_every`` updates, at the end and when the
    time guard (``minutes``) stops the run. No periodic evaluation: the final one
    (:meth:`evaluate`, seeds of index 0 as before the loop) writes ``eval.json`` beside the
    loop's ``summary.json``, ``report.md``, ``evaluations.csv`` and ``learning_curve.png``.
    """

    CONFIG = CONFIG
    CONFIG_CLASS = Config
    COMMAND = COMMAND
    UNIT = "update"
    config: Config
    #: the session's rollout storage and ``progress.jsonl`` (:meth:`session`)
    rollout: Rollout
    log: IO[str]

    def __init__(self, run_dir: Path, config: Config, learner: Learner, envs: ConcordiaVectorEnv, obs: Any) -> None:
        super().__init__(run_dir, config, EvalHistory())
        self.learner, self.envs, self.obs = learner, envs, obs
        self.progress, self.actions = Progress(), list[np.ndarray]()
        #: the updates of the run (its length), and ``perf_counter()`` less the time trained before this session
        self.updates = max(1, config.total_steps // (config.num_steps * config.num_envs))
        self.clock_start = 0.0

    # ------------------------------------------------------------------ the run folder
    @classmethod
    def build(cls, run_dir: Path, config: Config) -> OptionsPPORun:
        """The run with its envs reset to the seed and a new network: torch seeded first, as every run starts."""
        th.manual_seed(config.seed)
        th.set_num_threads(config.torch_threads)
        envs = make_envs(config)
        obs: Any  # a dict of batched arrays: "observation", "options", "action_mask"
        obs, _ = envs.reset(seed=config.seed)
        sizes = network_sizes(config, obs)
        net = OptionsNet(**sizes)
        optimizer = th.optim.Adam(net.parameters(), lr=config.learning_rate, eps=1e-5)
        learner = Learner(net, optimizer, sizes, config.max_options)
        return cls(run_dir, config, learner, envs, obs)

    @classmethod
    def check_new(cls, config: Config) -> None:
        """The envs of ``config`` are made once and closed: an unknown opponent or map is refused before the folder."""
        make_envs(config).close()

    @classmethod
    def run_name(cls, config: Config) -> str:
        return f"{config.name}-{config.seed}"

    @classmethod
    def start(cls, run_dir: Path, config: Config) -> OptionsPPORun:
        """The new run, checkpointed at update 0: a run stopped in its first updates resumes."""
        run = cls.build(run_dir, config)
        run.write_checkpoint()
        return run

    @classmethod
    def checkpoint_file(cls, run_dir: Path) -> Path:
        return Path(run_dir) / CHECKPOINT

    @classmethod
    def restore(cls, run_dir: Path, config: Config) -> OptionsPPORun:
        """The run as ``checkpoint.pt`` left it (:func:`restore`); a time guard given more minutes goes on."""
        run = cls.build(run_dir, config)
        try:
            run.progress, run.actions = restore(run_dir, run.learner)
        except ValueError:  # an unusable checkpoint: refused in one line, the envs closed first
            run.envs.close()
            raise
        run.progress.cut_short = run.progress.cut_short and run.progress.seconds >= 60 * config.minutes
        return run

    @classmethod
    def resumable(cls) -> tuple[str, ...]:
        return RESUMABLE

    # ------------------------------------------------------------------ the loop's parts
    def train(self) -> str:
        """The loop's iterations (none for a resumed run its time guard still stops); the envs closed after."""
        try:
            if self.progress.cut_short:
                return cut_short_text(self.config.minutes, self.stopped_where(), f"{COMMAND} --resume {self.run_dir}")
            return super().train()
        finally:
            self.envs.close()

    @contextlib.contextmanager
    def session(self) -> Iterator[None]:
        """The rollout's storage, the games in progress rebuilt from the learner's actions, ``progress.jsonl``."""
        self.rollout = Rollout(self.config, self.obs)
        if self.actions:
            replay(self.envs, self.rollout, np.concatenate(self.actions))
        self.clock_start = time.perf_counter() - self.progress.seconds
        with (self.run_dir / PROGRESS).open("a") as self.log:
            yield

    def advance(self) -> None:
        """One PPO update: the learning rate annealed, a rollout collected and optimized, its progress line."""
        config, progress, learner = self.config, self.progress, self.learner
        update = progress.update + 1
        if config.anneal_lr:
            learner.optimizer.param_groups[0]["lr"] = config.learning_rate * (1.0 - (update - 1.0) / self.updates)
        won_before, games_before = progress.wins, progress.games
        collect(config, self.envs, learner.net, self.rollout, progress)
        self.actions.append(self.rollout.actions.numpy().astype(np.int16))
        losses = optimize(config, learner, self.rollout)
        progress.update, progress.seconds = update, time.perf_counter() - self.clock_start
        finished = progress.games - games_before
        line: dict[str, Any] = {"update": update, "steps": progress.steps, "games": progress.games}
        line.update(seconds=round(progress.seconds, 1))
        line.update(win_rate=(progress.wins - won_before) / finished if finished else None)
        line.update(steps_per_s=round(progress.steps / progress.seconds), **losses)
        self.log.write(json.dumps(line) + "\n")
        self.log.flush()
        print(json.dumps(line), flush=True)

    def position(self) -> tuple[int, int]:
        return self.progress.update, self.updates

    def training_seconds(self) -> float:
        return self.progress.seconds

    def time_limit_minutes(self) -> float | None:
        return self.config.minutes

    def time_guard(self) -> str:
        """The loop's guard on ``minutes``; a stopped run says so in its checkpoint, ``eval.json`` and on stdout."""
        reason = super().time_guard()
        if reason:
            self.progress.cut_short = True
            steps = f"{self.progress.steps} of {self.config.total_steps} steps"
            print(f"time guard: stopped after {self.config.minutes:g} minutes, {steps}")
        return reason

    def checkpoint_due(self) -> bool:
        return self.progress.update % self.config.save_every == 0

    def checkpoint(self) -> None:
        checkpoint(self.run_dir, self.learner, self.progress, self.actions)

    # ------------------------------------------------------------------ evaluation and the end
    def eval_due(self) -> bool:
        """Never: the run is evaluated once, at its end."""
        return False

    def evaluate(self, opponent: str, games: int, index: int) -> EvalResult:
        """The greedy policy against ``opponent``, every seat equally often (:func:`.run_evaluation.evaluate`)."""
        learner, config = self.learner, self.config
        agent = options_agent(learner.net, config.max_options, learner.sizes["num_features"])
        result = evaluate(agent, opponent, games, map=config.map, num_players=config.num_players,
                          seed=config.seed, index=index)  # fmt: skip
        result.timesteps = self.progress.steps
        return result

    def final_games(self) -> dict[str, int]:
        return {self.config.eval_opponent: self.config.eval_games}

    def evaluate_final(self, opponent: str, games: int) -> EvalResult:
        """The seeds of index 0 (the final evaluation's since the script's first version: its numbers stand)."""
        return self.evaluate(opponent, games, FINAL_EVAL_SEEDS)

    @property
    def model_path(self) -> Path:
        return self.run_dir / MODEL

    def summary_counts(self) -> dict[str, Any]:
        p = self.progress
        return {"updates": p.update, "timesteps": p.steps, "games": p.games, "train_seconds": round(p.seconds, 1)}

    def write_report(self, summary: dict[str, Any], final: list[EvalResult]) -> Path:
        """``eval.json`` (the final evaluation, the steps, the training time, ``cut_short``) and ``report.md``."""
        (result,) = final
        report = {**result.to_dict(), "train_seconds": round(self.progress.seconds, 1)}
        report["cut_short"] = self.progress.cut_short
        write_json_atomic(self.run_dir / EVAL, report)
        return write_options_report(self, summary, final)

    def trained_line(self, summary: dict[str, Any]) -> str:
        minutes = summary["train_seconds"] / 60
        return f"trained {summary['updates']:,} updates, {summary['timesteps']:,} steps in {minutes:.1f} min " \
               f"({summary['stop_reason']})"  # fmt: skip


def write_options_report(run: OptionsPPORun, summary: dict[str, Any], final: list[EvalResult]) -> Path:
    """``report.md``: what was trained, why it stopped, the final evaluation, the progress, the config."""
    c = run.config
    title = f"{c.name}: PPO on the options level, {c.num_players}-player {c.map} against {c.opponents}"
    lines = [
        *report_opening(title, c.seed, run.run_dir / CONFIG, COMMAND, "; the envs' threads do not change it"),
        f"{run.trained_line(summary)}.",
        "",
        "## Final evaluation",
        "",
        "The greedy policy (`ppo_options.load`) against the opponent; fresh seeds, seats rotated, 95% Wilson interval.",
        "",
        final_table(final),
        "",
        "![learning curve](learning_curve.png)",
        "",
        f"One line per update (steps, games, the learner's win rate, losses, steps/s): `{PROGRESS}`.",
        "",
        *config_section(c.to_yaml()),
    ]
    path = run.run_dir / REPORT
    path.write_text("\n".join(lines))
    return path


#: what a resume may change: the time guard, the final evaluation, the env's threads (rows are independent)
RESUMABLE = ("minutes", "eval_games", "eval_opponent", "threads")


def build_parser() -> argparse.ArgumentParser:
    """``--config``, ``--resume`` and every field of :class:`Config` as ``--field value`` (read as YAML)."""
    return command_parser(
        OptionsPPORun,
        __doc__.split("\n", 1)[0],
        "",  # no config ships: the defaults are the measured run's
        [
            f"{COMMAND} --minutes 60 --seed 0",
            f"{COMMAND} --total_steps 200000 --num_envs 16 --threads 4",
            f"{COMMAND} --resume runs/ppo_options-0-20250101-120000 --minutes 120",
        ],
        values_example="--option_hidden '[128, 64]' --anneal_lr false",
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """The command (:func:`.loop.run_command`): a config, env or run-folder mistake is one line and exit status 2,
    before any file is written; Ctrl-C ends it in one line (status 130) that says how to continue.

    Returns ``eval.json``'s report with the run's folder (``run_dir``).
    """
    report = run_command(build_parser(), argv, OptionsPPORun)
    return {**json.loads((report.parent / EVAL).read_text()), "run_dir": str(report.parent)}


if __name__ == "__main__":
    main()
