"""Tianshou trains a masked DQN through ``tianshou.env.PettingZooEnv`` (the ``tianshou`` extra)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")

from training import tianshou_dqn


def test_masked_dqn_trains_against_random_without_illegal_actions() -> None:
    # illegal_action="raise": a single unmasked action of either policy would fail the run
    sizes = ["--epochs", "1", "--epoch_steps", "200", "--train_envs", "2", "--test_envs", "2", "--test_episodes", "2"]
    args = tianshou_dqn.parse([*sizes, "--max_cycles", "300", "--batch_size", "32", "--hidden", "32"])
    args.illegal_action = "raise"
    summary = tianshou_dqn.train(args)
    assert summary["train_steps"] >= 300
    assert summary["test_episodes"] == 2
    assert np.isfinite(summary["test_return_mean"])


def test_wrapper_sees_the_mask() -> None:
    env = tianshou_dqn.make_env(max_cycles=50)
    obs, _ = env.reset(seed=0)
    game = env.env.unwrapped.game
    assert np.array_equal(np.asarray(obs["mask"]), game.legal_mask())
    assert obs["agent_id"] == f"player_{game.current_player}"
