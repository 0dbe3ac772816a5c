"""The single-agent Gymnasium env: checkers, opponents, learner decisions, rewards, MaskablePPO."""

from __future__ import annotations

import pickle
from functools import partial

import gymnasium
import numpy as np
import pytest
from builders import add_house, set_city_good, set_goods

from concordia_env import Game, IllegalActionError, SingleAgentEnv, agents
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_MERCATOR, K_PREFECT
from concordia_env.engine.observation import O_OBSERVER_DECIDES, OBS_SIZE, OBS_SIZE_V0, OBS_SIZE_V1
from concordia_env.engine.state import PHASE_MERCATOR, PHASE_OVERFLOW, PHASE_PLAY_CARD, PHASE_PREFECT


def play_episode(env: SingleAgentEnv, seed: int, rng: np.random.Generator) -> tuple[float, dict, int]:
    """Random legal learner actions until the episode ends; (summed reward, last info, learner decisions)."""
    obs, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        game = env.unwrapped.game
        assert game.current_player == env.unwrapped.seat, "step() returns only at the learner's decisions"
        assert np.array_equal(obs, game.observation(env.unwrapped.seat))
        assert np.array_equal(info["action_mask"], env.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += reward
        steps += 1
        done = terminated or truncated
    return total, info, steps


def test_gymnasium_env_checker_passes() -> None:
    from gymnasium.utils.env_checker import check_env

    for env_id in ("Concordia-v0", "Concordia-v1"):  # through gymnasium.make, as a user runs it
        check_env(gymnasium.make(env_id, illegal_action="penalize"), skip_render_check=True)

    # penalize: the checker samples an action before a seeded reset (see the module docstring)
    check_env(SingleAgentEnv(illegal_action="penalize").unwrapped, skip_render_check=True)


def test_sb3_env_checker_passes() -> None:
    from stable_baselines3.common.env_checker import check_env

    check_env(SingleAgentEnv(seed=3), warn=True)


def test_registered_and_made_with_options() -> None:
    env = gymnasium.make("Concordia-v1", opponents=["random", "random"], map="creta", num_players=3, seat=2)
    obs, info = env.reset(seed=4)
    assert obs.shape == (OBS_SIZE,) and obs.dtype == np.float32
    assert info["learner_seat"] == 2 and env.unwrapped.seat == 2
    assert env.unwrapped.game.map.name == "creta" and env.unwrapped.game.num_players == 3
    assert env.get_wrapper_attr("action_masks")().dtype == np.bool_


@pytest.mark.parametrize(("env_id", "size"), [("Concordia-v0", OBS_SIZE_V0), ("Concordia-v1", OBS_SIZE_V1)])
def test_each_registered_version_has_its_observation(env_id: str, size: int) -> None:
    env = gymnasium.make(env_id, illegal_action="penalize")
    assert env.observation_space.shape == (size,)
    obs, _ = env.reset(seed=1)
    assert obs.shape == (size,) and env.observation_space.contains(obs)
    game = env.unwrapped.game
    assert np.array_equal(obs, game.observation(env.unwrapped.seat)[:size])
    assert SingleAgentEnv().observation_space.shape == (OBS_SIZE,) == (OBS_SIZE_V1,), "the default is current"


def test_action_space_samples_legal_actions() -> None:
    env = SingleAgentEnv(seed=0)
    env.reset()
    env.action_space.seed(1)
    for _ in range(30):
        action = env.action_space.sample()
        assert env.action_masks()[action]
        _, _, terminated, _, _ = env.step(action)
        assert not terminated
    assert type(pickle.loads(pickle.dumps(env.action_space))) is gymnasium.spaces.Discrete


@pytest.mark.parametrize("reward", ["win", "score_delta"])
def test_rewards_over_whole_episodes(reward: str) -> None:
    env = SingleAgentEnv(opponents="random", map="creta", num_players=3, reward=reward)
    rng = np.random.default_rng(0)
    total, info, steps = play_episode(env, seed=6, rng=rng)
    game = env.unwrapped.game
    seat = env.unwrapped.seat
    assert game.is_over() and steps > 20
    assert info["final_scores"].tolist() == game.final_scores().tolist()
    assert info["winner"] == game.winner() and info["score_breakdown"] == game.score_breakdown(seat)
    if reward == "win":
        assert total == pytest.approx(1.0 if game.winner() == seat else -0.5)
    else:
        assert total == pytest.approx(game.final_scores()[seat])


def test_seeded_reset_is_reproducible() -> None:
    a, b = SingleAgentEnv(map="aegyptus", num_players=4), SingleAgentEnv(map="aegyptus", num_players=4)
    obs_a, _ = a.reset(seed=9)
    obs_b, _ = b.reset(seed=9)
    assert np.array_equal(obs_a, obs_b) and a.seat == b.seat
    assert a.game == b.game
    for _ in range(40):
        action = int(np.flatnonzero(a.action_masks())[0])
        assert np.array_equal(a.step(action)[0], b.step(action)[0])
    assert a.game == b.game, "seeded opponents play the same moves"
    c = SingleAgentEnv(map="aegyptus", num_players=4, seed=9)
    c.reset()
    d = SingleAgentEnv(map="aegyptus", num_players=4)
    d.reset(seed=9)
    assert c.game == d.game, "the constructor's seed starts the first episode"


def test_opponent_forms_and_their_seats() -> None:
    called: list[int] = []

    def first_legal(game: Game) -> int:
        called.append(game.current_player)
        return int(game.legal_actions()[0])

    env = SingleAgentEnv(
        opponents=[agents.make("random"), first_legal, "random"], map="imperium", num_players=4, seat=1
    )
    env.reset(seed=0)
    for _ in range(200):
        env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert called and set(called) == {2}, "the second opponent plays the second other seat (seat 2)"
    with pytest.raises(ValueError):
        SingleAgentEnv(opponents=["random"], num_players=3)
    with pytest.raises(TypeError):
        SingleAgentEnv(opponents=[42])
    with pytest.raises(ValueError):
        SingleAgentEnv(seat=2, num_players=2)


def test_learner_chooses_overflow_during_an_opponents_turn() -> None:
    """Player 0's Prefect overflows the learner's (seat 1) storehouse: step() returns mid-turn."""

    def prefect_player(game: Game) -> int:
        if game.phase == PHASE_PLAY_CARD:
            return A.A_PLAY + K_PREFECT
        if game.phase == PHASE_PREFECT:
            return A.A_PRODUCE + province
        return int(game.legal_actions()[0])

    env = SingleAgentEnv(opponents=prefect_player, seat=1, map="italia", num_players=2, start_player=1)
    env.reset(seed=2)
    game = env.game
    name, cities = next((n, c) for n, c in game.map.provinces.items() if len(c) >= 2)
    province = game.map.province_index(name)
    set_city_good(game, cities[0], "brick")
    set_city_good(game, cities[1], "food")
    add_house(game, 1, cities[0])
    add_house(game, 1, cities[1])
    set_goods(game, 1, tool=4, wine=3)  # one free storehouse slot for goods
    env.step(A.A_PLAY + K_MERCATOR)
    assert game.phase == PHASE_MERCATOR
    obs, _, _, _, info = env.step(A.A_DONE)  # the learner's turn ends; player 0 produces
    assert game.phase == PHASE_OVERFLOW and game.turn_player == 0 and game.current_player == 1
    assert obs[O_OBSERVER_DECIDES] == 1 and info["phase"] == game.phase_name
    assert env.action_masks()[A.A_GOOD + 0] and env.action_masks()[A.A_GOOD + 1]
    env.step(A.A_GOOD + 1)
    assert game.turn_player == 1 and game.goods(1).tolist() == [0, 1, 4, 3, 0]


def test_render_modes() -> None:
    from concordia_env.views.render import render_text

    env = SingleAgentEnv(render_mode="ansi", seed=0)
    env.reset()
    assert env.render() == render_text(env.game)
    env = SingleAgentEnv(render_mode="rgb_array", seed=0)
    env.reset()
    assert env.render().shape[2] == 3


def test_illegal_learner_action() -> None:
    env = SingleAgentEnv(seed=1)
    env.reset()
    before = env.game.state.copy()
    with pytest.raises(IllegalActionError):
        env.step(A.A_DONE)
    assert np.array_equal(env.game.state, before)
    penalized = SingleAgentEnv(seed=1, illegal_action="penalize")
    penalized.reset()
    _, reward, terminated, truncated, info = penalized.step(A.A_DONE)
    assert reward == -1.0 and terminated and not truncated and "illegal_action" in info
    assert not penalized.action_masks().any()
    with pytest.raises(RuntimeError):
        penalized.step(A.A_DONE)


def test_max_turns_truncates() -> None:
    env = SingleAgentEnv(seed=0, max_turns=6)
    env.reset()
    env.action_space.seed(0)
    truncated = False
    for _ in range(100):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if truncated:
            break
    assert truncated and not terminated and env.game.turn_count >= 6
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError):
        env.step(0)


def test_pickles_and_runs_in_subprocesses() -> None:
    from stable_baselines3.common.vec_env import SubprocVecEnv

    env = pickle.loads(pickle.dumps(SingleAgentEnv(opponents="random", seed=3)))
    assert env.reset()[0].shape == (OBS_SIZE,)
    # spec-string opponents: each worker builds its env from the constructor arguments
    vec = SubprocVecEnv([partial(SingleAgentEnv, opponents="random", seed=s) for s in (1, 2)], start_method="fork")
    try:
        obs = vec.reset()
        assert obs.shape == (2, OBS_SIZE)
        masks = np.stack(vec.env_method("action_masks"))
        actions = np.array([np.flatnonzero(m)[0] for m in masks])
        obs, rewards, _, _ = vec.step(actions)
        assert obs.shape == (2, OBS_SIZE) and rewards.shape == (2,)
    finally:
        vec.close()


class RecordActions(gymnasium.Wrapper):
    """Records every learner action and whether it was legal when taken."""

    def __init__(self, env: gymnasium.Env) -> None:
        super().__init__(env)
        self.legal: list[bool] = []

    def step(self, action):
        self.legal.append(bool(self.env.unwrapped.action_masks()[int(action)]))
        return self.env.step(action)

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()


def test_maskable_ppo_takes_only_legal_actions(tmp_path) -> None:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    torch.set_num_threads(1)
    env = RecordActions(SingleAgentEnv(opponents="random", map="italia", num_players=2, seed=0))
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=1, seed=0, policy_kwargs={"net_arch": [32, 32]}
    )
    model.set_logger(configure(str(tmp_path), []))  # SB3's default logger leaves a folder in /tmp
    model.learn(total_timesteps=2048)
    assert len(env.legal) >= 2048
    assert all(env.legal)
