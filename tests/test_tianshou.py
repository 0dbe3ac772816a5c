"""Tianshou trains a masked DQN through ``tianshou.env.PettingZooEnv`` (the ``tianshou`` extra)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")

from concordia_env.training import tianshou_dqn

#: 150 env steps in rounds of 10 (one gradient step each), one env each for training and
#: testing (no numba-compiled VectorReplayBuffer), games cut at 100 decisions
TINY = [
    *["--epochs", "1", "--epoch_steps", "150", "--collect_steps", "10", "--updates_per_step", "0.1"],
    *["--batch_size", "16", "--hidden", "[16]", "--max_cycles", "100"],
    *["--train_envs", "1", "--test_envs", "1", "--test_episodes", "2"],
    # one unmasked action of the exploring learner, its greedy test play or the random
    # opponent would fail the run
    *["--illegal_action", "raise"],
]


@pytest.mark.slow
def test_masked_dqn_trains_against_random_without_illegal_actions(capsys: pytest.CaptureFixture[str]) -> None:
    """Counts that follow from the arguments alone, a learner that moved, and a seeded run that repeats.

    Whether 150 steps make a better player is not asked: a DQN from scratch needs far more
    games than a test can play to beat a random player in Concordia, and a threshold on a
    return that small would be noise. What can be checked exactly is checked exactly.
    """
    summary = tianshou_dqn.train(tianshou_dqn.parse([*TINY, "--seed", "0"]))
    progress = [line for line in capsys.readouterr().out.splitlines() if line.startswith("epoch ")]
    assert progress and progress[-1].startswith("epoch 1/1: 150 env steps"), "one progress line per epoch"
    # one env collects exactly collect_steps per round: 15 rounds of 10 env steps, 1 gradient step each
    assert summary["train_steps"] == 150
    assert summary["update_steps"] == 15
    assert summary["gradient_steps"] == 15, "the learner's optimizer stepped once per round"
    assert summary["weight_change"] > 0, "the gradient steps changed the Q-network"
    assert summary["test_episodes"] == 2
    # "win" reward, 2 players: +1 or -1 for a finished game, 0 for one cut at max_cycles
    assert summary["test_return_mean"] in (-1.0, -0.5, 0.0, 0.5, 1.0)

    # every random choice comes from --seed: the same seed repeats the run, another changes it
    assert tianshou_dqn.train(tianshou_dqn.parse([*TINY, "--seed", "0"])) == summary
    other = tianshou_dqn.train(tianshou_dqn.parse([*TINY, "--seed", "1"]))
    assert other["weight_change"] != summary["weight_change"]


def test_wrapper_sees_the_mask() -> None:
    env = tianshou_dqn.make_env(max_cycles=50)
    obs, _ = env.reset(seed=0)
    game = env.env.unwrapped.game
    assert np.array_equal(np.asarray(obs["mask"]), game.legal_mask())
    assert obs["agent_id"] == f"player_{game.current_player}"


def test_help_shows_every_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        tianshou_dqn.parse(["--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    pieces = text.split("(default: ")  # each option's help ends with its default
    assert len(pieces) > 20, "every option shows a default"
    expected = {"--epochs": "2", "--epoch_steps": "2000", "--lr": "0.0001", "--hidden": "[128, 128]"}
    for option, default in expected.items():
        own = max(i for i, piece in enumerate(pieces) if f"{option} " in piece)  # its help line, not the usage
        assert pieces[own + 1].startswith(f"{default})"), option
