"""RLlib on Ray: the env factory RLlib's masking module expects, and one tiny PPO iteration with resume."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from training import rllib


def test_env_factory_gives_rllib_keys_and_plays_legal_games() -> None:
    env = rllib.make_env({"map": "italia", "num_players": 2, "max_cycles": 60, "with_state": True})
    obs, _ = env.reset(seed=3)
    ((agent, first),) = obs.items()
    assert set(first) == {"observations", "action_mask", "state"}
    assert env.observation_spaces[agent].contains(first)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        agent, o = next(iter(obs.items()))
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, _, terminated, truncated, _ = env.step({agent: action})
        done = terminated["__all__"] or truncated["__all__"]
    assert truncated["__all__"], "max_cycles ends the episode"


def test_policy_mapping_keeps_one_learner_seat() -> None:
    mapping = rllib.policy_mapping({"random": 0.5, "heuristic": 0.5}, 4, seed=0)

    class Episode:
        def __init__(self, i: int) -> None:
            self.id_ = f"episode-{i}"

    for i in range(20):
        names = [mapping(f"player_{k}", Episode(i)) for k in range(4)]
        assert names.count(rllib.SHARED) == 1
        assert names == [mapping(f"player_{k}", Episode(i)) for k in range(4)], "one draw per episode"
    assert rllib.policy_mapping({}, 3, seed=0)("player_2", Episode(0)) == rllib.SHARED
    with pytest.raises(ValueError, match="opponents"):
        rllib.RLlibConfig(opponents={"mcts": 0.5})


@pytest.mark.slow
def test_tiny_iteration_checkpoints_resumes_and_evaluates(tmp_path) -> None:
    config = rllib.RLlibConfig.load("training/configs/rllib_tiny.yaml", {"runs_dir": str(tmp_path)})
    run = tmp_path / "run"
    summary = rllib.train(config, run)
    assert (run / "checkpoints" / "iter_0001").is_dir()
    assert summary["eval"]["games"] == config.eval_games and summary["eval"]["opponent"] == "heuristic"
    lines = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [1] and lines[0]["env_steps_lifetime"] >= config.train_batch_size
    resumed = rllib.RLlibConfig.load(run / "config.yaml", {"iterations": 2, "eval_games": 0})
    rllib.train(resumed, run, resume=True)
    lines = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [1, 2]
    assert lines[1]["env_steps_lifetime"] > lines[0]["env_steps_lifetime"], "resumed, not restarted"
