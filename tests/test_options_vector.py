"""The options level of the vector env (``ConcordiaVectorEnv``/``SB3VecEnv`` with ``level="options"``).

A row's options, computed in compiled code inside the batch (on any number of threads), are
the ones ``SingleAgentEnv(level="options")`` shows for the same game, seat and seed; the
spaces hold every observation; refused options change nothing; ``reset`` takes a position.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from concordia_env import ConcordiaVectorEnv, Game, IllegalActionError, SingleAgentEnv
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.engine.position import PositionError
from tests.every_bit import every_bit

ROWS = 3
K = 24


def vector(**kwargs: Any) -> ConcordiaVectorEnv:
    return ConcordiaVectorEnv(
        **{"num_envs": ROWS, "opponents": "heuristic", "level": "options", "max_options": K, **kwargs}
    )


@pytest.mark.slow
@pytest.mark.parametrize("granularity", ["decision", "turn"])
def test_rows_show_the_single_agent_env_s_options_move_by_move(granularity: str) -> None:
    """Row i's k-th game is SingleAgentEnv's with seat (i + k) % 2 and seed s + i + k·n; threads change nothing."""
    envs = [vector(granularity=granularity, threads=t) for t in (1, 2)]
    obs = [e.reset(seed=40)[0] for e in envs]

    def single(seat: int) -> SingleAgentEnv:
        return SingleAgentEnv(opponents="heuristic", level="options", max_options=K, granularity=granularity, seat=seat)

    singles = [single(i % 2) for i in range(ROWS)]
    single_obs = [s.reset(seed=40 + i)[0] for i, s in enumerate(singles)]
    rng = np.random.default_rng(3)
    finished = 0
    for step in range(120):
        assert every_bit(obs[0]) == every_bit(obs[1]), f"threads differ at step {step}"
        for i in range(ROWS):
            for key in ("observation", "options", "action_mask"):
                assert np.array_equal(obs[0][key][i], single_obs[i][key]), (step, i, key)
        assert envs[0].observation_space.contains(obs[0])
        masks = envs[0].action_masks()
        assert masks.dtype == np.bool_ and masks.shape == (ROWS, K)
        assert np.array_equal(masks, obs[0]["action_mask"].astype(bool))
        actions = np.array([int(rng.choice(np.flatnonzero(m))) for m in masks])
        results = [e.step(actions) for e in envs]
        obs = [r[0] for r in results]
        _, rewards, terminated, _, infos = results[0]
        masks = envs[0].action_masks()
        assert np.array_equal(infos["option_actions"][:, :, 0] >= 0, masks)
        assert masks.any(axis=1).all(), "every row waits for the learner's decision"
        for i in range(ROWS):
            single_obs[i], reward, done, _, _ = singles[i].step(int(actions[i]))
            assert reward == rewards[i]
            assert done == terminated[i]
            if done:
                final = infos["final_obs"][i]
                assert set(final) == {"observation", "options", "action_mask"} and not final["action_mask"].any()
                finished += 1
                k = int(envs[0].games.game_counts[i])
                singles[i] = single((i + k) % 2)
                single_obs[i], _ = singles[i].reset(seed=40 + i + k * ROWS)
    assert finished >= 1 or granularity == "decision"


def test_refused_options_change_nothing() -> None:
    env = vector()
    obs, _ = env.reset(seed=2)
    states = env.games.states.copy()
    counts = obs["action_mask"].sum(axis=1)
    good = np.zeros(ROWS, dtype=np.int64)
    for bad_row, bad in ((1, int(counts[1])), (2, K), (0, -1)):
        actions = good.copy()
        actions[bad_row] = bad
        with pytest.raises(IllegalActionError) as caught:
            env.step(actions)
        assert caught.value.row == bad_row
        assert np.array_equal(env.games.states, states)
        assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))
    with pytest.raises(IllegalActionError):
        env.step(np.full(ROWS, 0.5))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(ROWS + 1, dtype=np.int64))
    assert np.array_equal(env.games.states, states)
    assert (env.action_space.sample() < counts).all()


@pytest.mark.parametrize("level", ["flat", "options"])
def test_reset_from_a_position(level: str) -> None:
    game = Game.new("italia", 2, seed=9)
    agent = HeuristicAgent(seed=1)
    for _ in range(10):
        game.step(agent.act(game))
    env = vector(level=level)
    for given in (game, game.to_json()):
        env.reset(seed=5, options={"position": given})
        for row in range(ROWS):
            if env.games.learner_seats[row] == game.current_player:
                assert env.games.game(row) == game  # the learner decides first: the row is the position itself
            else:
                assert env.games.game(row).decision_count > game.decision_count  # the opponent played from it
    states = env.games.states.copy()
    for bad in (Game.new("imperium", 3, seed=0), Game.new("italia", 4, seed=0)):
        with pytest.raises(PositionError, match="this env plays 2-player italia"):
            env.reset(seed=5, options={"position": bad})
        assert np.array_equal(env.games.states, states)
    with pytest.raises(ValueError, match="takes no options"):
        env.reset(options={"map": "creta"})


def test_sb3_vec_env_serves_the_options_to_maskable_ppo() -> None:
    from sb3_contrib.common.maskable.utils import get_action_masks

    from concordia_env.envs.sb3 import SB3VecEnv

    venv = SB3VecEnv(ROWS, opponents="heuristic", level="options", max_options=K, seed=4)
    obs = venv.reset()
    assert set(obs) == {"observation", "options", "action_mask"}
    assert venv.observation_space.contains({key: value[0] for key, value in obs.items()})
    assert venv.action_space.n == K
    rng = np.random.default_rng(0)
    for _ in range(300):
        masks = get_action_masks(venv)
        assert masks.shape == (ROWS, K) and np.array_equal(masks, obs["action_mask"].astype(bool))
        obs, _, dones, infos = venv.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in masks]))
        for row in np.flatnonzero(dones):
            terminal = infos[row]["terminal_observation"]
            assert set(terminal) == {"observation", "options", "action_mask"}
            assert infos[row]["final_info"]["winner"] >= 0
        if dones.any():
            break
    assert dones.any()


def test_throughput_benchmark_has_an_options_line(tmp_path) -> None:
    import json

    from concordia_env.benchmarks import throughput

    out = tmp_path / "throughput.json"
    args = ["--seconds", "0.05", "--maps", "creta", "--batch", "8", "--envs", "4", "--json", str(out)]
    assert throughput.main(args) == 0
    rows = {r["name"]: r for r in json.loads(out.read_text())["results"]}
    line = rows["vector env(4) heuristic italia 2p, options"]
    assert line["steps"] > 0 and line["target"] == throughput.OPTIONS_TARGET
    assert line["versus"] == "vector env(4) heuristic italia 2p" and line["versus_ratio"] > 0
