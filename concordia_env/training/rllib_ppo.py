"""Multi-agent PPO on Ray RLlib: one shared, action-masked policy in self-play, with fixed opponents.

Ray is the distributed engine here: RLlib's env runners play games in parallel processes,
on one machine or on a cluster, and its learner updates one policy shared by every seat.

Run
---
``concordia train rllib --config docs/configs/rllib.yaml`` starts a local Ray (``num_cpus`` CPUs, by default
one per env runner) and writes ``<runs_dir>/<name>-<timestamp>/`` with
``config.yaml``, ``checkpoints/iter_NNNN/`` (every ``checkpoint_every`` iterations and at
the end), ``progress.jsonl`` (one line per iteration), ``actor.npz`` (the shared policy's
actor, :class:`~concordia_env.training.policy_net.NumpyActor`) and ``eval.json``. The local Ray is shut
down when the run ends, also on an error or Ctrl-C: no Ray process outlives the script.
Options:

* ``--address auto`` (or ``ray://host:10001``, ``host:6379``): join a running Ray cluster
  instead. On the head machine ``ray start --head --port 6379``; on every other machine
  ``ray start --address HEAD_IP:6379``; then run this script on the head with
  ``--address auto`` and ``env_runners`` up to the cluster's CPUs minus one. Every machine
  needs the project installed (``pip install -e ".[rllib]"``) at the same path.
* ``--resume RUN_DIR``: continue a run from its last checkpoint (the policy, the optimizer
  and the iteration count) until ``iterations``.
* any config field, e.g. ``--iterations 5 --env_runners 2``.

Scaling: each env runner is one process (one CPU) stepping ``envs_per_env_runner`` games;
the learner runs in the driver. Sampling throughput grows with env runners while the
learner keeps up and the machine has a free core per runner: the samples per second
measured with 1 and 2 env runners are in ``docs/environments.md`` (RLlib section).

What is trained
---------------
* **Environment**: :func:`make_env`, registered with ``ray.tune.registry`` as ``"concordia"``:
  :func:`concordia_env.integrations.rllib.env`, the PettingZoo AEC env behind RLlib's
  ``PettingZooEnv`` with the observation keys RLlib's action-masking module expects,
  ``{"observations", "action_mask"}`` (plus ``"state"``, the engine state, when a heuristic
  opponent needs it). ``illegal_action="penalize"`` and ``max_cycles`` make a wrong action
  or an endless game a finished episode instead of a crash.
* **Policies**: ``"shared"``, RLlib's ``ActionMaskingTorchRLModule`` (PPO, illegal logits
  masked out), plays every seat not given to a fixed opponent: self-play with one set of
  weights. ``"random"`` (a uniformly random legal action) and ``"heuristic"`` (the project's
  heuristic agent, acting on the engine state) are fixed policies that are never trained
  (:func:`concordia_env.integrations.rllib.fixed_policy_spec`);
  ``opponents`` gives the probability that each non-learner seat of an episode is played
  by one of them. One seat per episode (drawn from the episode id) is always ``"shared"``.
* **The options level** (``level: options``): the env is the PettingZoo options level
  (:mod:`concordia_env.envs.options_level`: the agent picks one of the turn options) and
  ``"shared"`` is :class:`~concordia_env.training.options_rllib.OptionsRLModule`, the network
  of ``concordia_env.OptionsPolicy``; ``"random"`` picks a random option; ``"heuristic"``
  plays flat actions and is refused. It is evaluated as an agent
  (:func:`~concordia_env.training.options_rllib.options_agent`) and writes no ``actor.npz``.
* **Evaluation**: the shared policy's actor is copied into the project's
  :class:`~concordia_env.training.policy_net.NumpyActor` and played (masked argmax) by
  :func:`concordia_env.training.run_evaluation.evaluate` against ``eval_opponent`` on fresh seeds, seats rotated,
  with a 95% Wilson interval, exactly as the other training scripts are evaluated.
  :func:`checkpoint_actor` reads the same actor from any checkpoint, without Ray.

The numbers a tiny run reaches (``concordia_env/training/configs/rllib_tiny.yaml``, one iteration) mean
nothing about strength; the test suite runs it to keep the pipeline working. That config
also sets ``illegal_action: raise``, so a single unmasked action fails the run.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from gymnasium import spaces

from concordia_env.envs.options_level import check_level
from concordia_env.integrations.rllib import env as rllib_env
from concordia_env.integrations.rllib import fixed_policy_spec
from concordia_env.tools.arguments import mistake_text
from concordia_env.tools.report import Z_95

from .config import ConfigBase, _f, add_override_arguments, overrides_from_args, resolve
from .options_rllib import OptionsRLModule, options_agent
from .policy_net import NUMPY_ACTIVATIONS, NumpyActor
from .run_evaluation import EVAL_DB, evaluate, weights_digest
from .run_folder import RunFolderBusyError, RunLock, new_run_dir, write_atomic

#: the name under which make_env is registered with ray.tune.registry
ENV_NAME = "concordia"
#: the trained policy; the fixed ones are named like the project's agents
SHARED = "shared"
FIXED_POLICIES = ("random", "heuristic")


# =========================================================================== config
@dataclass
class RLlibConfig(ConfigBase):
    """One RLlib run; every field can be overridden on the command line (``--name value``, read as YAML)."""

    name: str = _f("rllib", "run name; the run directory is <runs_dir>/<name>-<timestamp>")
    runs_dir: str = _f("runs", "where run directories are created")
    seed: int = _f(0, "seed of the run")
    # game
    map: str = _f("italia", "map: imperium, italia, aegyptus or creta")
    num_players: int = _f(2, "players per game")
    level: str = _f(
        "flat",
        "'flat' (one of 769 actions, RLlib's ActionMaskingTorchRLModule) or 'options' (the turn options, "
        "OptionsRLModule; hidden and activation are the flat level's, the options network keeps its sizes)",
    )
    reward: str = _f("win", "the env's reward option")
    max_cycles: int = _f(3000, "decisions per game before truncation (random 2p Italia: ~400)")
    illegal_action: str = _f(
        "penalize",
        "'penalize': an illegal action ends the episode with -1 (an env runner never crashes); "
        "'raise': it is an error (the tests use it to prove that the masking holds)",
    )
    opponents: dict = field(
        default_factory=dict,
        metadata={"help": "probability that a non-learner seat is played by a fixed policy ('random', 'heuristic')"},
    )
    # scale
    iterations: int = _f(20, "training iterations")
    num_cpus: int | None = _f(
        None,
        "CPUs a local Ray may use (null: one per env runner, at least one: what a run asks of Ray, since the "
        "learner and the driver's own sampling run outside Ray's CPU count); ignored with --address",
    )
    env_runners: int = _f(1, "env runner processes (0: sample in the driver process)")
    envs_per_env_runner: int = _f(1, "envs per env runner")
    # PPO
    train_batch_size: int = _f(4000, "env steps per training iteration")
    minibatch_size: int = _f(500, "minibatch size")
    num_epochs: int = _f(4, "passes over each batch")
    lr: float = _f(3e-4, "learning rate")
    gamma: float = _f(0.997, "discount factor")
    lambda_: float = _f(0.95, "GAE lambda")
    entropy_coeff: float = _f(0.01, "entropy bonus coefficient")
    hidden: list = field(default_factory=lambda: [256, 256], metadata={"help": "hidden layer sizes (flat level)"})
    activation: str = _f("tanh", "activation (flat level): " + ", ".join(sorted(NUMPY_ACTIVATIONS)))
    # checkpoints and evaluation
    checkpoint_every: int = _f(5, "iterations between checkpoints")
    eval_games: int = _f(40, "games of the final evaluation")
    eval_opponent: str = _f("heuristic", "the final evaluation's opponent (an agent spec)")

    def validate(self) -> None:
        unknown = set(self.opponents) - set(FIXED_POLICIES)
        if unknown:
            raise ValueError(f"opponents: unknown fixed policies {sorted(unknown)}; known: {FIXED_POLICIES}")
        if sum(self.opponents.values()) > 1 or min(self.opponents.values(), default=0) < 0:
            raise ValueError(f"opponents: probabilities in [0, 1] summing to at most 1; got {self.opponents}")
        if self.illegal_action not in ("raise", "penalize"):
            raise ValueError(f"illegal_action must be 'raise' or 'penalize'; got {self.illegal_action!r}")
        if self.num_cpus is not None and self.num_cpus < max(1, self.env_runners):
            raise ValueError(f"num_cpus={self.num_cpus} leaves no CPU for each of the {self.env_runners} env runners")
        check_level(self.level)
        if self.level == "options" and "heuristic" in self.opponents:
            raise ValueError("the heuristic fixed policy plays the flat level's actions; at level 'options' use random")
        if self.activation not in NUMPY_ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(NUMPY_ACTIVATIONS)}; got {self.activation!r}")

    @classmethod
    def load(cls, path: str | Path | None, overrides: dict[str, Any] | None = None) -> RLlibConfig:
        """The config file's values (or the defaults) with ``overrides`` (:func:`.config.resolve`)."""
        config: RLlibConfig = resolve(path, overrides, cls)
        return config


# =========================================================================== environment
def make_env(env_config: dict[str, Any]) -> Any:
    """The env of a run: :func:`concordia_env.integrations.rllib.env` (``env_config``: its options)."""
    return rllib_env(env_config)


def register() -> None:
    """Register :func:`make_env` with ``ray.tune.registry`` as :data:`ENV_NAME`."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, make_env)


# =========================================================================== fixed policies
def policy_mapping(opponents: dict[str, float], num_players: int, seed: int) -> Any:
    """``policy_mapping_fn``: one seat per episode is "shared"; the others are fixed with ``opponents``' odds."""
    names = [SHARED, *opponents]
    odds = np.array([1.0 - sum(opponents.values()), *opponents.values()])

    def mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
        # one generator per (episode, seat), so the draw does not depend on call order or process
        key = [seed, zlib.crc32(str(episode.id_).encode())]
        seat = int(agent_id.rsplit("_", 1)[1])
        learner = np.random.default_rng(key).integers(num_players)
        if seat == learner or not opponents:
            return SHARED
        return str(np.random.default_rng([*key, seat]).choice(names, p=odds))

    return mapping


# =========================================================================== algorithm
def build_config(config: RLlibConfig) -> Any:
    """The ``PPOConfig`` of a run (new API stack: RLModules, env runners, a learner)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    register()
    with_state = "heuristic" in config.opponents
    env_config = {
        "level": config.level,
        "map": config.map,
        "num_players": config.num_players,
        "reward": config.reward,
        "max_cycles": config.max_cycles,
        "illegal_action": config.illegal_action,
        "with_state": with_state,
    }
    probe = make_env(env_config)  # the spaces of one agent (every agent has the same)
    obs_space, act_space = probe.observation_spaces["player_0"], probe.action_spaces["player_0"]
    probe.close()
    if config.level == "options":
        shared = RLModuleSpec(
            module_class=OptionsRLModule, observation_space=obs_space, action_space=spaces.Discrete(int(act_space.n))
        )
    else:
        shared = RLModuleSpec(
            module_class=ActionMaskingTorchRLModule,
            observation_space=obs_space,
            action_space=spaces.Discrete(int(act_space.n)),
            model_config=DefaultModelConfig(
                fcnet_hiddens=list(config.hidden), fcnet_activation=config.activation, vf_share_layers=False
            ),
        )
    specs = {SHARED: shared}
    for name in config.opponents:
        specs[name] = fixed_policy_spec(
            name,
            map=config.map,
            seed=config.seed,
            observation_space=obs_space,
            action_space=spaces.Discrete(int(act_space.n)),
        )
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=False)
        .env_runners(
            num_env_runners=config.env_runners,
            num_envs_per_env_runner=config.envs_per_env_runner,
            num_cpus_per_env_runner=1,
            # wait for the runners however slow the machine: an iteration that times out has no samples
            sample_timeout_s=None,
        )
        .learners(num_learners=0)
        .multi_agent(
            policies={SHARED, *config.opponents},
            policy_mapping_fn=policy_mapping(config.opponents, config.num_players, config.seed),
            policies_to_train=[SHARED],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=config.train_batch_size,
            minibatch_size=config.minibatch_size,
            num_epochs=config.num_epochs,
            lr=config.lr,
            gamma=config.gamma,
            lambda_=config.lambda_,
            entropy_coeff=config.entropy_coeff,
        )
        .debugging(seed=config.seed)
    )


def numpy_actor(module: Any, activation: str) -> NumpyActor:
    """The shared module's actor (observation → logits) as the project's :class:`NumpyActor`.

    The module's actor is its actor encoder (an MLP) followed by the policy head; masking
    is applied outside, as for every project policy.
    """
    import torch

    encoder = module.encoder
    actor = getattr(encoder, "actor_encoder", None) or encoder.encoder
    linears = [m for part in (actor, module.pi) for m in part.modules() if isinstance(m, torch.nn.Linear)]
    weights = [m.weight.detach().cpu().numpy().T for m in linears]
    biases = [m.bias.detach().cpu().numpy() for m in linears]
    return NumpyActor(weights, biases, activation)


def checkpoint_actor(checkpoint: str | Path, activation: str) -> NumpyActor:
    """The shared policy's actor stored in an algorithm checkpoint (``checkpoints/iter_NNNN``); needs no Ray."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    path = Path(checkpoint).resolve() / "learner_group" / "learner" / "rl_module" / SHARED
    if not path.is_dir():
        raise FileNotFoundError(f"{checkpoint}: no {SHARED!r} module (expected {path})")
    return numpy_actor(RLModule.from_checkpoint(str(path)), activation)


def _iteration_line(result: dict[str, Any], seconds: float) -> dict[str, Any]:
    """One line of ``progress.jsonl``: what was sampled, how fast, and what the learner did with it.

    RLlib reports a metric nothing fed in this iteration as NaN (no episode ended, say): a
    count is then 0 and a mean ``null``.
    """
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(SHARED, {})
    steps = _count(runners.get("num_env_steps_sampled"))
    return {
        "iteration": int(result["training_iteration"]),
        "env_steps": steps,
        "env_steps_lifetime": _count(runners.get("num_env_steps_sampled_lifetime")),
        "seconds": round(seconds, 2),
        # the whole iteration (sampling and the PPO update): env steps per wall-clock second
        "samples_per_second": round(steps / seconds, 1) if seconds > 0 else 0.0,
        "episodes": _count(runners.get("num_episodes")),
        "episode_len_mean": _mean(runners.get("episode_len_mean")),
        "module_steps_trained": _count(learner.get("num_module_steps_trained")),
        "policy_loss": _mean(learner.get("policy_loss")),
        "vf_loss": _mean(learner.get("vf_loss")),
        "entropy": _mean(learner.get("entropy")),
    }


def _count(value: Any) -> int:
    return 0 if value is None or not np.isfinite(value) else int(value)


def _mean(value: Any) -> float | None:
    return None if value is None or not np.isfinite(value) else round(float(value), 4)


def _latest_checkpoint(run_dir: Path) -> Path | None:
    found = sorted((run_dir / "checkpoints").glob("iter_*"))
    return found[-1] if found else None


def local_cpus(config: RLlibConfig) -> int:
    """CPUs of a local Ray for this run: ``num_cpus``, else one per env runner (at least one).

    Each env runner is an actor asking for one CPU; the learner (``num_learners=0``) and the
    driver's own sampling run in the driver, outside Ray's count. So ``--env_runners 2`` asks
    for two, and fits a 2-core machine.
    """
    return config.num_cpus if config.num_cpus is not None else max(1, config.env_runners)


@contextlib.contextmanager
def _ray(config: RLlibConfig, address: str | None) -> Iterator[None]:
    """Ray for one run: a local one of ``config.num_cpus`` CPUs, or the cluster at ``address``.

    Nothing is started if the caller already initialised Ray; only a Ray started here is
    shut down on the way out, whatever happens (an error, Ctrl-C).
    """
    import ray

    started = not ray.is_initialized()
    if started:
        cpus = local_cpus(config) if address is None else None
        ray.init(address=address, num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        if started:
            ray.shutdown()


#: two-sided 95% quantiles of Student's t for 1..10 degrees of freedom (more rounds: the normal's)
T_95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


def sampling_throughput(config: RLlibConfig, rounds: int = 5, address: str | None = None) -> dict[str, Any]:
    """Env steps per second that the env runners sample, without the learner: ``rounds`` timed batches.

    Builds the run's algorithm (``config.env_runners`` runners, 0: the driver samples),
    samples one untimed batch of ``train_batch_size`` env steps (workers start, modules
    build), then times ``rounds`` more, each exactly as a PPO iteration collects its batch
    (``synchronous_parallel_sample``). An env step is one decision of one player.

    Two rates per round: env steps per wall-clock second (what this machine gives now,
    however loaded), and env steps per CPU second of the sampling processes (summed over
    the runners; what one free core per runner gives, independent of other jobs). Returns
    both per round and their means with a 95% t-interval.
    """
    if rounds < 2:
        raise ValueError(f"rounds must be at least 2 (an interval needs two); got {rounds}")
    from ray.rllib.env.multi_agent_episode import MultiAgentEpisode
    from ray.rllib.env.single_agent_episode import SingleAgentEpisode
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    def episode_steps(episodes: Any) -> int:
        """Env steps in what the new env runners sampled: a list of episodes."""
        if not isinstance(episodes, list) or not all(
            isinstance(e, SingleAgentEpisode | MultiAgentEpisode) for e in episodes
        ):
            raise TypeError(f"RLlib's env runners returned {type(episodes).__name__}, not a list of episodes")
        return sum(e.env_steps() for e in episodes)

    def runner_cpu_seconds() -> float:
        # process_time() of every sampling process (the driver's own runner when there are no remote ones)
        times = algo.env_runner_group.foreach_env_runner(
            lambda _runner: time.process_time(), local_env_runner=config.env_runners == 0
        )
        return float(sum(times))

    def batch() -> tuple[int, float, float]:
        cpu, start = runner_cpu_seconds(), time.perf_counter()
        episodes = synchronous_parallel_sample(
            worker_set=algo.env_runner_group,
            max_env_steps=config.train_batch_size,
            sample_timeout_s=None,
            concat=True,
            _uses_new_env_runners=True,
        )
        wall = time.perf_counter() - start
        return episode_steps(episodes), wall, runner_cpu_seconds() - cpu

    with _ray(config, address):
        algo = build_config(config).build_algo()
        try:
            batch()
            timed = [batch() for _ in range(rounds)]
        finally:
            algo.stop()

    def summary(rates: np.ndarray) -> dict[str, Any]:
        t = T_95[rounds - 2] if rounds - 1 <= len(T_95) else Z_95
        half = t * rates.std(ddof=1) / np.sqrt(rounds)
        return {
            "per_round": [round(float(r), 1) for r in rates],
            "mean": round(float(rates.mean()), 1),
            "ci95": [round(float(rates.mean() - half), 1), round(float(rates.mean() + half), 1)],
        }

    return {
        "env_runners": config.env_runners,
        "envs_per_env_runner": config.envs_per_env_runner,
        "steps_per_round": [steps for steps, _, _ in timed],
        "steps_per_wall_second": summary(np.array([steps / wall for steps, wall, _ in timed])),
        "steps_per_runner_cpu_second": summary(np.array([steps / cpu for steps, _, cpu in timed])),
    }


def _keep_progress_to(path: Path, iteration: int) -> None:
    """``progress.jsonl`` cut back to the lines of iterations up to ``iteration`` (the checkpoint a run resumes
    from): the iterations after it are trained again, and their lines written again."""
    if not path.exists():
        return
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    kept = [line for line in lines if json.loads(line)["iteration"] <= iteration]
    if len(kept) < len(lines):
        write_atomic(path, "".join(f"{line}\n" for line in kept).encode())


def train(config: RLlibConfig, run_dir: Path, resume: bool = False, address: str | None = None) -> dict[str, Any]:
    """Train (or resume) a run in ``run_dir``; returns the summary written to ``eval.json``.

    Starts Ray (a local one limited to ``config.num_cpus``, or joins ``address``) unless
    the caller already did, and then shuts down only the Ray it started, whatever happens.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(config), sort_keys=False))
    with _ray(config, address):
        algo = build_config(config).build_algo()
        checkpoint = _latest_checkpoint(run_dir) if resume else None
        if checkpoint is not None:
            algo.restore_from_path(str(checkpoint.resolve()))
            print(f"resumed from {checkpoint} at iteration {algo.iteration}")
        _keep_progress_to(run_dir / "progress.jsonl", algo.iteration if resume else 0)
        progress = (run_dir / "progress.jsonl").open("a")
        while algo.iteration < config.iterations:
            start = time.perf_counter()
            result = algo.train()
            line = _iteration_line(result, time.perf_counter() - start)
            if algo.iteration % config.checkpoint_every == 0 or algo.iteration == config.iterations:
                algo.save_to_path(str((run_dir / "checkpoints" / f"iter_{algo.iteration:04d}").resolve()))
            progress.write(json.dumps(line) + "\n")  # after its checkpoint (a line says its iteration is kept)
            progress.flush()
            print(json.dumps(line))
        progress.close()
        if config.level == "options":  # the options network plays as an agent (its checkpoints keep it)
            player: Any = options_agent(algo.get_module(SHARED))
            version = weights_digest(p.detach().cpu().numpy() for p in algo.get_module(SHARED).parameters())
        else:
            player = numpy_actor(algo.get_module(SHARED), config.activation)
            player.save(run_dir / "actor.npz")
            version = weights_digest([*player.weights, *player.biases])
        algo.stop()
    summary: dict[str, Any] = {"iterations": config.iterations}
    if config.eval_games > 0:
        result = evaluate(
            player,
            config.eval_opponent,
            config.eval_games,
            map=config.map,
            num_players=config.num_players,
            seed=config.seed,
            index=config.iterations,
            db=run_dir / EVAL_DB,
            given_version=version,  # another model's games are not read back
        )
        summary["eval"] = dataclasses.asdict(result)
        print(
            f"vs {result.opponent}: {result.wins}/{result.games} = {result.win_rate:.1%} "
            f"(95% CI {result.ci_low:.1%}-{result.ci_high:.1%}), mean VP {result.mean_vp:.1f} "
            f"vs {result.mean_opponent_vp:.1f}"
        )
    (run_dir / "eval.json").write_text(json.dumps(summary, indent=1))
    return summary


# =========================================================================== command line
def build_parser() -> argparse.ArgumentParser:
    """``--config``, ``--address``, ``--resume``, ``--measure_sampling`` and the config's scalar fields."""
    parser = argparse.ArgumentParser(prog="concordia train rllib", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--config", help="YAML file of RLlibConfig fields")
    parser.add_argument("--address", default=None, help="Ray cluster to join (e.g. 'auto'); default: a local Ray")
    parser.add_argument("--resume", default=None, help="run directory to continue from its last checkpoint")
    parser.add_argument(
        "--measure_sampling",
        type=int,
        default=None,
        metavar="ROUNDS",
        help="print the env runners' sampling rate (env steps/s) over ROUNDS batches of train_batch_size; no training",
    )
    add_override_arguments(parser, RLlibConfig)
    return parser


def _parse(argv: list[str] | None) -> tuple[RLlibConfig, Path | None, argparse.Namespace]:
    """The config, the run folder to resume (None: a new run) and the arguments; a mistake exits 2 in one line."""
    parser = build_parser()
    args = parser.parse_args(argv)
    overrides = overrides_from_args(args, RLlibConfig)
    try:  # a config or argument mistake (a missing config, a bad value): one line, exit 2
        if args.resume:
            run_dir = Path(args.resume)
            config = RLlibConfig.load(run_dir / "config.yaml", overrides)
        else:
            config = RLlibConfig.load(args.config, overrides)
            run_dir = None  # made when the run starts (measure_sampling writes none)
    except (OSError, ValueError, TypeError) as err:
        parser.error(mistake_text(err))
    return config, run_dir, args


def main(argv: list[str] | None = None) -> None:
    """The command: a mistake is one line and exit status 2; Ctrl-C one line (status 130) that says how to go on."""
    config, run_dir, args = _parse(argv)
    if args.measure_sampling is not None:
        print(json.dumps(sampling_throughput(config, args.measure_sampling, address=args.address)))
        return
    resume = run_dir is not None
    try:  # one writer per run folder: a second one is refused in one line naming the first
        lock = RunLock(new_run_dir(config.runs_dir, config.name) if run_dir is None else run_dir)
        lock.acquire()
    except (OSError, RunFolderBusyError) as err:
        print(f"concordia train rllib: error: {mistake_text(err)}", file=sys.stderr)
        raise SystemExit(2) from None
    with lock:
        print(f"run directory: {lock.run_dir}")
        try:
            train(config, lock.run_dir, resume=resume, address=args.address)
        except KeyboardInterrupt:  # the Ray it started is shut down on the way out (train's _ray)
            print(
                f"\ninterrupted; its checkpoints are kept: continue with concordia train rllib --resume {lock.run_dir}",
                file=sys.stderr,
            )
            raise SystemExit(130) from None


if __name__ == "__main__":
    main()
