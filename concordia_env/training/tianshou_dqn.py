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

Run ``concordia train tianshou --epochs 5`` (the defaults are a small, quick run).
After training it plays ``test_episodes`` test games (greedy, ``eps_test``) and prints the
learner's mean return against the random opponent (with ``reward="win"``: +1 a win, −1 a
loss). ``tests/test_tianshou.py`` runs a tiny version with ``illegal_action="raise"``.

With a single training env the replay buffer is a plain ``ReplayBuffer``; with several it
is Tianshou's ``VectorReplayBuffer``, whose numba helpers compile when it is built (a few
CPU seconds per process).
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import torch

import concordia_env

LEARNER = "player_0"


def make_env(map: str = "italia", max_cycles: int = 2000, illegal_action: str = "penalize") -> Any:
    """Tianshou's PettingZoo wrapper over the AEC env (2 players, the "win" reward)."""
    from tianshou.env.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(
        concordia_env.env(map=map, num_players=2, max_cycles=max_cycles, illegal_action=illegal_action, reward="win")
    )


def build(args: argparse.Namespace) -> tuple[Any, Any]:
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


def train(args: argparse.Namespace) -> dict[str, float]:
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

    result = algorithm.run_training(
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


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="concordia train tianshou", description=__doc__.split("\n", 1)[0])
    parser.add_argument("--map", default="italia")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max_cycles", type=int, default=2000, help="decisions per game before truncation")
    parser.add_argument("--illegal_action", default="penalize", help="'raise' makes any illegal action an error")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--epoch_steps", type=int, default=2000, help="env steps per epoch")
    parser.add_argument("--collect_steps", type=int, default=40, help="env steps per collection")
    parser.add_argument("--updates_per_step", type=float, default=0.1)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--buffer_size", type=int, default=20_000)
    parser.add_argument("--train_envs", type=int, default=4)
    parser.add_argument("--test_envs", type=int, default=2)
    parser.add_argument("--test_episodes", type=int, default=4)
    parser.add_argument("--hidden", type=int, nargs="*", default=[128, 128])
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--n_step", type=int, default=3)
    parser.add_argument("--target_update_freq", type=int, default=320)
    parser.add_argument("--eps_train", type=float, default=0.1)
    parser.add_argument("--eps_test", type=float, default=0.0)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    train(parse(argv))


if __name__ == "__main__":
    main()
