"""Masked DQN with Tianshou: ``player_0`` learns against a masked random player through ``PettingZooEnv``.

Tianshou 2 drives PettingZoo AEC games with its multi-agent algorithm manager: each agent id
maps to one algorithm, and the action mask reaches the policies as ``obs.mask``. Here
``player_0`` learns with DQN (Tianshou's discrete Q-learning policy masks the Q-values of
illegal actions) and ``player_1`` is Tianshou's masked random policy. The env is
``concordia_env.env(..., reward="win")`` (+1 a won game, -1 a lost one) with
``max_cycles`` bounding an untrained policy's games. Training runs in epochs of
``EPOCH_STEPS`` env steps (one line each); then the greedy learner plays ``--test-games``
games and the script prints its mean return and saves the Q-network's weights.

Run it from the checkout (needs the ``tianshou`` extra: ``pip install "concordia-env[tianshou]"``)::

    python training/tianshou_dqn_masked.py                 # 100,000 env steps
    python training/tianshou_dqn_masked.py --steps 20000 --seed 1 --out runs/dqn.pt

What it reaches: not measured to a win rate. A DQN from scratch over the 769 flat actions
needs far more games than this default to beat even a random player at Concordia; the
script shows the wiring (masks, multi-agent manager, seeding: the same arguments give the
same run). ``concordia train tianshou`` is the project's version with every option.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

EPOCH_STEPS = 2000  # env steps per epoch (fewer if --steps is smaller)
COLLECT_STEPS = 40  # env steps per collection, then round(UPDATES_PER_STEP * 40) gradient steps
UPDATES_PER_STEP = 0.1
BATCH_SIZE, BUFFER_SIZE = 64, 20_000
HIDDEN = [128, 128]
LEARNING_RATE, GAMMA, N_STEP, TARGET_UPDATE = 1e-4, 0.99, 3, 320
EPS_TRAIN = 0.1  # exploration while training; the test games are greedy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=100_000, help="env steps of training, both seats together")
    parser.add_argument("--seed", type=int, default=0, help="seeds the games, exploration, the opponent, the network")
    parser.add_argument("--out", default="runs/tianshou_dqn.pt", help="where the Q-network's weights are saved")
    parser.add_argument("--test-games", type=int, default=10, help="greedy games after training")
    parser.add_argument("--max-cycles", type=int, default=2000, help="decisions before a game is cut")
    args = parser.parse_args(argv)
    if min(args.steps, args.test_games, args.max_cycles) < 1:
        parser.error("--steps, --test-games and --max-cycles must be at least 1")
    try:
        import torch
        from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
        from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
        from tianshou.algorithm.optim import AdamOptimizerFactory
        from tianshou.data import Collector, CollectStats, ReplayBuffer
        from tianshou.env import DummyVectorEnv
        from tianshou.env.pettingzoo_env import PettingZooEnv
        from tianshou.trainer import OffPolicyTrainerParams
        from tianshou.utils.net.common import Net
    except ImportError as error:
        sys.exit(f"{parser.prog} needs the tianshou extra: pip install 'concordia-env[tianshou]' ({error.name})")
    import concordia_env

    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    def make_env() -> PettingZooEnv:
        return PettingZooEnv(concordia_env.env(map="italia", num_players=2, max_cycles=args.max_cycles, reward="win"))

    env = make_env()
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=int(env.action_space.n),
              hidden_sizes=HIDDEN)  # fmt: skip
    policy = DiscreteQLearningPolicy(
        model=net, action_space=env.action_space, eps_training=EPS_TRAIN, eps_inference=0.0
    )
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=LEARNING_RATE), gamma=GAMMA,
                  n_step_return_horizon=N_STEP, target_update_freq=TARGET_UPDATE)  # fmt: skip
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)  # player_0, player_1

    train_envs, test_envs = DummyVectorEnv([make_env]), DummyVectorEnv([make_env])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    train_collector = Collector[CollectStats](algorithm, train_envs, ReplayBuffer(BUFFER_SIZE), exploration_noise=True)
    test_collector = Collector[CollectStats](algorithm, test_envs, ReplayBuffer(args.max_cycles))
    train_collector.reset()
    train_collector.collect(n_step=BATCH_SIZE)  # a first batch in the buffer before any update
    epoch_steps = min(EPOCH_STEPS, args.steps)
    epochs = max(1, args.steps // epoch_steps)
    trainer = algorithm.create_trainer(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=None,  # tested once, after training (below)
            max_epochs=epochs,
            epoch_num_steps=epoch_steps,
            collection_step_num_env_steps=min(COLLECT_STEPS, epoch_steps),
            batch_size=BATCH_SIZE,
            update_step_num_gradient_steps_per_sample=UPDATES_PER_STEP,
            test_in_training=False,
            show_progress=False,
            multi_agent_return_reduction=lambda returns: returns[:, 0],  # player_0's return
        )
    )
    trainer.reset()
    for _ in range(epochs):
        epoch = trainer.execute_epoch()
        info = epoch.info_stat
        print(f"epoch {epoch.epoch}/{epochs}: {info.train_step} env steps, {info.train_episode} games", flush=True)
    test = test_collector.collect(n_episode=args.test_games, reset_before_collect=True)
    returns = test.returns[:, 0]
    print(f"player_0 vs masked random, {len(returns)} greedy games: mean return {float(np.mean(returns)):+.2f}")
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    torch.save(net.state_dict(), args.out)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
