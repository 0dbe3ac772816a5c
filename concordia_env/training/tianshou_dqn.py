"""Masked DQN with Tianshou: one learner seat against a masked random opponent, through ``tianshou.env.PettingZooEnv``.

Tianshou (``pip install -e ".[tianshou]"``, 2.0) drives PettingZoo AEC envs with its
multi-agent algorithm manager: each agent id maps to one algorithm, and the action mask
reaches the policies as ``obs.mask``. Here ``player_0`` learns with DQN (the Q-values of
illegal actions are masked out by Tianshou's discrete Q-learning policy) and ``player_1``
is Tianshou's masked random policy.

Two things of the env make it work with Tianshou's replay buffer: every ``infos[agent]`` has
the same keys with the same types at every step (Tianshou stacks infos into arrays and
refused the old end-of-game-only keys with ``MalformedBufferError``), and ``max_cycles``
bounds an episode of an untrained policy.

Run ``concordia train tianshou --epochs 5`` (the defaults are a small, quick run;
``--help`` lists every option with its default). It prints one line per epoch (env steps
and games so far, update rounds, the learner's loss, time); after training it plays
``test_episodes`` test games (greedy, ``eps_test``) and prints the learner's mean return
against the random opponent (with ``reward="win"``: +1 a win, −1 a loss).
``tests/test_tianshou.py`` runs a tiny version with ``illegal_action="raise"``.

With a single training env the replay buffer is a plain ``ReplayBuffer``; with several it
is Tianshou's ``VectorReplayBuffer``, whose numba helpers compile when it is built (a few
CPU seconds per process).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

import concordia_env
from concordia_env.tools.arguments import mistake_text

from .config import ConfigBase, _f, add_override_arguments, overrides_from_args, resolve

LEARNER = "player_0"


def make_env(map: str = "italia", max_cycles: int = 2000, illegal_action: str = "penalize") -> Any:
    """Tianshou's PettingZoo wrapper over the AEC env (2 players, the "win" reward)."""
    from tianshou.env.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(
        concordia_env.env(map=map, num_players=2, max_cycles=max_cycles, illegal_action=illegal_action, reward="win")
    )


def build(args: DQNConfig) -> tuple[Any, Any]:
    """The multi-agent algorithm (DQN learner + masked random opponent) and one env to read spaces from."""
    from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.utils.net.common import Net

    env = make_env(args.map, args.max_cycles, args.illegal_action)
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=int(env.action_space.n), hidden_sizes=args.hidden)
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=args.eps_train, eps_inference=args.eps_test
    )
    learner = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=args.lr),
        gamma=args.gamma,
        n_step_return_horizon=args.n_step,
        target_update_freq=args.target_update_freq,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    return MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env), env


def train(args: DQNConfig) -> dict[str, float]:
    """Train, then play ``test_episodes`` test games; returns the learner's mean test return and counts.

    Everything random (the envs' games, exploration, the random opponent, the network's
    initialisation) comes from ``args.seed``: the same arguments give the same summary.
    """
    from tianshou.data import Collector, CollectStats, ReplayBuffer, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams

    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    def env_fn() -> Any:
        return make_env(args.map, args.max_cycles, args.illegal_action)

    def buffer(envs: Any, size: int) -> Any:
        return ReplayBuffer(size) if len(envs) == 1 else VectorReplayBuffer(size, len(envs))

    train_envs = DummyVectorEnv([env_fn] * args.train_envs)
    test_envs = DummyVectorEnv([env_fn] * args.test_envs)
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    algorithm, _ = build(args)
    q_net = algorithm.get_algorithm(LEARNER).policy.model  # the DQN learner's Q-network
    initial = [p.detach().clone() for p in q_net.parameters()]
    train_collector = Collector[CollectStats](
        algorithm, train_envs, buffer(train_envs, args.buffer_size), exploration_noise=True
    )
    # the test games' transitions are not learned from: a buffer the size of one game per env
    test_collector = Collector[CollectStats](
        algorithm, test_envs, buffer(test_envs, args.max_cycles * len(test_envs)), exploration_noise=False
    )
    train_collector.reset()
    train_collector.collect(n_step=args.batch_size * args.train_envs)
    learner_index = 0  # player_0: the first algorithm

    trainer = algorithm.create_trainer(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=None,  # tested once, after training (below)
            max_epochs=args.epochs,
            epoch_num_steps=args.epoch_steps,
            collection_step_num_env_steps=args.collect_steps,
            batch_size=args.batch_size,
            update_step_num_gradient_steps_per_sample=args.updates_per_step,
            test_in_training=False,
            show_progress=False,
            multi_agent_return_reduction=lambda returns: returns[:, learner_index],
        )
    )
    trainer.reset()  # as Tianshou's run_training does: the collectors start new games
    start = time.perf_counter()
    for _ in range(args.epochs):  # the trainer's own loop, one epoch at a time, to say how far it got
        epoch = trainer.execute_epoch()
        print(progress_line(epoch, args.epochs, time.perf_counter() - start), flush=True)
    result = epoch.info_stat
    test = test_collector.collect(n_episode=args.test_episodes, reset_before_collect=True)
    summary = {
        "train_steps": float(result.train_step),
        "update_steps": float(result.update_step),  # collect-then-update rounds of the trainer
        # the learner's optimizer steps (Adam counts them): round(updates_per_step * collect_steps) a round
        "gradient_steps": float(algorithm.get_algorithm(LEARNER).optim.state_dict()["state"][0]["step"]),
        "test_episodes": float(test.n_collected_episodes),
        "test_return_mean": float(np.mean(test.returns[:, learner_index])),
        # how far training moved the learner's Q-network (L2 norm over all its parameters)
        "weight_change": float(
            torch.sqrt(sum(((p.detach() - q) ** 2).sum() for p, q in zip(q_net.parameters(), initial, strict=True)))
        ),
    }
    print(
        f"{summary['train_steps']:.0f} training steps, {summary['gradient_steps']:.0f} gradient steps; "
        f"learner ({LEARNER}) vs masked random over "
        f"{summary['test_episodes']:.0f} test games: mean return {summary['test_return_mean']:+.2f}"
    )
    return summary


def progress_line(epoch: Any, epochs: int, seconds: float) -> str:
    """One line per epoch: env steps and games so far, gradient rounds, the learner's loss, time."""
    info, stats = epoch.info_stat, epoch.training_stat
    losses = stats.get_loss_stats_dict() if stats is not None else {}
    loss = next((value for key, value in sorted(losses.items()) if key.endswith("loss")), None)
    shown = f", loss {loss:.4f}" if loss is not None else ""
    return (
        f"epoch {epoch.epoch}/{epochs}: {info.train_step} env steps, {info.train_episode} games, "
        f"{info.update_step} update rounds{shown}, {seconds:.1f} s"
    )


@dataclass
class DQNConfig(ConfigBase):
    """One run; every field is also a command-line option (``--epochs 5``, read as YAML), its default in ``--help``."""

    map: str = _f("italia", "the board (2 players)")
    seed: int = _f(0, "seeds the games, exploration, the random opponent and the network")
    max_cycles: int = _f(2000, "decisions per game before truncation")
    illegal_action: str = _f("penalize", "'raise' makes any illegal action an error")
    epochs: int = _f(2, "training epochs (one progress line each)")
    epoch_steps: int = _f(2000, "env steps per epoch")
    collect_steps: int = _f(40, "env steps per collection")
    updates_per_step: float = _f(0.1, "gradient steps per collected env step")
    batch_size: int = _f(64, "transitions per gradient step")
    buffer_size: int = _f(20_000, "replay buffer size (transitions)")
    train_envs: int = _f(4, "envs collecting training games")
    test_envs: int = _f(2, "envs playing the test games")
    test_episodes: int = _f(4, "greedy test games after training")
    hidden: list = field(default_factory=lambda: [128, 128], metadata={"help": "hidden layer sizes of the Q-network"})
    lr: float = _f(1e-4, "Adam's learning rate")
    gamma: float = _f(0.99, "discount")
    n_step: int = _f(3, "n-step return horizon")
    target_update_freq: int = _f(320, "gradient steps between target-network updates")
    eps_train: float = _f(0.1, "exploration while training (epsilon-greedy)")
    eps_test: float = _f(0.0, "exploration in the test games")


def parse(argv: list[str] | None = None) -> DQNConfig:
    """The run's config from the command line; a mistake is one line and exit status 2."""
    parser = argparse.ArgumentParser(prog="concordia train tianshou", description=__doc__.split("\n", 1)[0])
    add_override_arguments(parser, DQNConfig)
    args = parser.parse_args(argv)
    try:
        config: DQNConfig = resolve(None, overrides_from_args(args, DQNConfig), DQNConfig)
    except (ValueError, TypeError) as err:
        parser.error(mistake_text(err))
    return config


def main(argv: list[str] | None = None) -> None:
    train(parse(argv))


if __name__ == "__main__":
    main()
