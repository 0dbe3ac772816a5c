"""The vector env with compiled opponents inside: Gymnasium's vector API, SB3, and the games it plays.

A row's game must be the game ``SingleAgentEnv`` plays with the same agent, seat and seed,
decision for decision (the compiled players are the Python agents); bad actions change no
row; the thread count changes nothing.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode

from concordia_env import ConcordiaVectorEnv, IllegalActionError, SingleAgentEnv, VectorGame
from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.observation import OBS_SIZE


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([np.flatnonzero(m)[rng.integers(m.sum())] for m in masks])


# ---------------------------------------------------------------------- the games it plays
@pytest.mark.parametrize(
    ("opponents", "map_name", "players", "threads", "reward"),
    [
        ("random", "italia", 2, 1, "win"),
        ("random", "creta", 2, 2, "score_delta"),
        ("heuristic", "italia", 2, 2, "win"),
        ("learned", "italia", 2, 1, "rank"),
        (["learned", "random", "heuristic"], "imperium", 4, 2, "win"),
        (["heuristic:opponent_weight=0.5", "learned"], "aegyptus", 3, 1, "score_delta"),
        (["learned:replan=False", "learned"], "italia", 3, 2, "win"),  # following its plan, and deciding afresh
    ],
)
def test_each_row_plays_the_single_agent_env_s_game(
    opponents, map_name: str, players: int, threads: int, reward: str
) -> None:
    """Row i's k-th game is SingleAgentEnv(opponents, seat=(i + k) % n).reset(seed=game_seed(i, k)), move by move."""
    n = 3
    vec = VectorGame(n, map=map_name, num_players=players, seed=11, opponents=opponents, threads=threads, reward=reward)

    def single(row: int, k: int) -> SingleAgentEnv:
        env = SingleAgentEnv(
            opponents=opponents, seat=vec.learner_seat(row, k), map=map_name, num_players=players, reward=reward
        )
        env.reset(seed=vec.game_seed(row, k))
        return env

    envs = [single(i, 0) for i in range(n)]
    games = [0] * n
    rng = np.random.default_rng(0)
    for _ in range(3000):
        masks = vec.legal_masks()
        for i, env in enumerate(envs):
            assert np.array_equal(vec.states[i], env.game.state)
            assert np.array_equal(masks[i], env.action_masks())
            assert vec.current_players[i] == vec.learner_seats[i] == env.seat
        actions = random_actions(masks, rng)
        seats = vec.learner_seats
        rewards, dones, infos = vec.step(actions)
        for i, env in enumerate(envs):
            _, paid, terminated, _, info = env.step(int(actions[i]))
            assert paid == pytest.approx(rewards[i, seats[i]]) and terminated == dones[i]
            if terminated:
                assert infos["final_info"][i]["learner_seat"] == seats[i]
                assert infos["final_info"][i]["winner"] == info["winner"]
                games[i] += 1
                envs[i] = single(i, games[i])
        if min(games) >= 2:
            break
    assert min(games) >= 2, "every row finishes games and starts the next, the seat rotating"


def test_seats_rotate_across_rows_and_games() -> None:
    vec = VectorGame(4, map="italia", num_players=2, seed=0, opponents="random")
    assert vec.learner_seats.tolist() == [0, 1, 0, 1]
    assert [vec.learner_seat(0, k) for k in range(3)] == [0, 1, 0]
    assert VectorGame(2, map="italia", num_players=2, seed=0).learner_seats is None


# ---------------------------------------------------------------------- threads
@pytest.mark.parametrize("threads", [2, 3])
def test_threads_give_the_results_of_one_thread(threads: int) -> None:
    def play(k: int) -> list[np.ndarray]:
        env = ConcordiaVectorEnv(7, opponents=["heuristic", "learned"], map="aegyptus", num_players=3, threads=k)
        obs, _ = env.reset(seed=5)
        rng = np.random.default_rng(1)
        out = [obs]
        for _ in range(120):
            obs, rewards, terminated, _, _ = env.step(random_actions(env.action_masks(), rng))
            out += [obs, rewards, terminated, env.games.states.copy()]
        env.close()
        return out

    one, many = play(1), play(threads)
    assert all(np.array_equal(a, b) for a, b in zip(one, many, strict=True))


def test_vector_game_threads_give_the_results_of_one_thread() -> None:
    def play(k: int) -> list[np.ndarray]:
        vec = VectorGame(9, map="imperium", num_players=4, seed=2, reward="score_delta", threads=k)
        out = []
        for _ in range(300):
            rewards, dones, _ = vec.step(vec.sample_actions())
            out += [rewards, dones, vec.observations(), vec.legal_masks().copy()]
        vec.close()
        return out

    assert all(np.array_equal(a, b) for a, b in zip(play(1), play(4), strict=True))


# ---------------------------------------------------------------------- bad actions
def test_illegal_actions_are_refused_and_change_no_row() -> None:
    env = ConcordiaVectorEnv(4, opponents="heuristic", seed=3)
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(10):
        env.step(random_actions(env.action_masks(), rng))
    games = env.games
    opponents = games._opponents
    before = [games.states.copy(), games.legal_masks().copy(), opponents.rng.copy(), opponents.plan_len.copy()]
    actions = random_actions(env.action_masks(), rng)
    bad = actions.copy()
    bad[2] = int(np.flatnonzero(~env.action_masks()[2])[0])
    for wrong in (bad, np.full(4, NUM_ACTIONS), np.full(4, -1), np.full(4, 0.5), [None] * 4):
        with pytest.raises(IllegalActionError):
            env.step(wrong)
        after = [games.states, games.legal_masks(), opponents.rng, opponents.plan_len]
        assert all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))
    with pytest.raises(IllegalActionError) as err:
        env.step(bad)
    assert err.value.row == 2
    with pytest.raises(ValueError):
        env.step(actions[:3])
    env.step(actions)  # the batch goes on as if nothing had happened


def test_only_compiled_agents_play_inside_a_batch() -> None:
    with pytest.raises(ValueError, match="inside a batch"):
        VectorGame(2, map="italia", num_players=2, opponents="mcts:simulations=4")
    with pytest.raises(ValueError, match="greedy"):
        VectorGame(2, map="italia", num_players=2, opponents="learned:temperature=1")
    with pytest.raises(ValueError, match="one opponent or 3"):
        VectorGame(2, map="imperium", num_players=4, opponents=["random", "heuristic"])
    with pytest.raises(ValueError, match="unknown agent"):
        ConcordiaVectorEnv(2, opponents="nobody")
    with pytest.raises(ValueError, match="opponents"):
        ConcordiaVectorEnv(2, opponents=None)
    with pytest.raises(TypeError):
        ConcordiaVectorEnv(2, opponents="random", copy="yes")
    env = ConcordiaVectorEnv(2, opponents="random")
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"start_player": 1})
    with pytest.raises(ValueError):
        env.reset(seed=-1)


# ---------------------------------------------------------------------- Gymnasium's vector API
def test_gymnasium_make_of_the_vector_id_says_to_use_make_vec() -> None:
    with pytest.raises(gymnasium.error.Error, match=r"gymnasium\.make_vec\(\"ConcordiaVector-v1\""):
        gymnasium.make("ConcordiaVector-v1")
    env = gymnasium.make_vec("ConcordiaVector-v1", num_envs=2)  # the vector entry point is still the default
    assert isinstance(env.unwrapped, ConcordiaVectorEnv)
    env.close()


def test_gymnasium_vector_env_contract() -> None:
    env = gymnasium.make_vec("ConcordiaVector-v1", num_envs=5, opponents="heuristic", max_turns=40)
    assert isinstance(env, gymnasium.vector.VectorEnv) and env.num_envs == 5
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_observation_space.shape == (OBS_SIZE,)
    assert env.observation_space == gymnasium.vector.utils.batch_space(env.single_observation_space, 5)
    assert env.single_action_space == gymnasium.spaces.Discrete(NUM_ACTIONS)
    obs, infos = env.reset(seed=9)
    assert obs in env.observation_space and obs.dtype == np.float32
    assert infos["action_mask"].shape == (5, NUM_ACTIONS) and infos["learner_seat"].tolist() == [0, 1, 0, 1, 0]
    ended = 0
    for _ in range(150):
        actions = env.action_space.sample()  # legal for every row
        assert actions in env.action_space
        obs, rewards, terminated, truncated, infos = env.step(actions)
        assert obs in env.observation_space
        assert rewards.shape == (5,) and terminated.dtype == truncated.dtype == np.bool_
        assert np.array_equal(infos["action_mask"], env.action_masks())
        if (terminated | truncated).any():
            rows = terminated | truncated
            assert np.array_equal(infos["_final_obs"], rows) and np.array_equal(infos["_final_info"], rows)
            for row in np.flatnonzero(rows):
                assert infos["final_obs"][row] in env.single_observation_space
                assert infos["final_info"]["truncated"][row] == truncated[row]
            ended += int(rows.sum())
        assert not any(np.any(m) for m in ~infos["action_mask"].any(axis=1)), "every row has a decision"
    assert ended > 0
    env.close()


def test_seeded_resets_replay_the_same_episodes() -> None:
    def episode(env: ConcordiaVectorEnv, seed: int) -> list:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = [obs]
        for _ in range(60):
            out.append(env.step(random_actions(env.action_masks(), rng))[:4])
        return out

    env = ConcordiaVectorEnv(3, opponents="random")
    first = episode(env, 4)
    assert data_equivalence(first, episode(env, 4), exact=True)
    assert data_equivalence(first, episode(ConcordiaVectorEnv(3, opponents="random"), 4), exact=True)
    assert not data_equivalence(first, episode(env, 5))
    obs, _ = env.reset(seed=[4, 5, 6])  # Gymnasium's list of per-row seeds: the consecutive ones
    assert np.array_equal(obs, first[0])
    with pytest.raises(ValueError, match="consecutive"):
        env.reset(seed=[4, 4, 4])


def test_copy_false_writes_one_buffer_and_record_episode_statistics_wraps() -> None:
    env = ConcordiaVectorEnv(2, opponents="random", seed=1, copy=False)
    obs, _ = env.reset()
    obs2, *_ = env.step(random_actions(env.action_masks(), np.random.default_rng(0)))
    assert obs2 is obs
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(ConcordiaVectorEnv(2, opponents="random"))
    wrapped.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(600):
        _, _, terminated, _, infos = wrapped.step(random_actions(wrapped.env.action_masks(), rng))
        if terminated.any():
            assert "episode" in infos and infos["_episode"].any()
            break
    else:
        pytest.fail("no game ended")


# ---------------------------------------------------------------------- Stable-Baselines3
def test_sb3_vec_env_serves_maskable_ppo() -> None:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported

    from concordia_env.envs.sb3 import SB3VecEnv

    venv = SB3VecEnv(4, opponents="random", seed=0, max_turns=30)
    assert is_masking_supported(venv)
    obs = venv.reset()
    assert obs.shape == (4, OBS_SIZE) and len(venv.reset_infos) == 4
    masks = get_action_masks(venv)
    assert masks.shape == (4, NUM_ACTIONS) and masks.any(axis=1).all()
    ended = 0
    rng = np.random.default_rng(0)
    for _ in range(100):
        obs, rewards, dones, infos = venv.step(random_actions(get_action_masks(venv), rng))
        assert rewards.dtype == np.float32 and len(infos) == 4
        for row in np.flatnonzero(dones):
            assert infos[row]["terminal_observation"].shape == (OBS_SIZE,)
            assert infos[row]["TimeLimit.truncated"] == infos[row]["final_info"]["truncated"]
            ended += 1
    assert ended > 0
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, policy_kwargs={"net_arch": [16]})
    model.learn(64)
    venv.close()


def test_an_illegal_proposal_of_a_compiled_opponent_is_a_loud_bug() -> None:
    from concordia_env.envs.opponents import CompiledOpponents
    from concordia_env.strategy.planner import STATUS_ILLEGAL

    opponents = CompiledOpponents("heuristic", 3, 2)
    opponents.check()  # nothing proposed yet
    opponents.status[1, STATUS_ILLEGAL] = 1
    with pytest.raises(RuntimeError, match="row 1"):
        opponents.check()

    class Pretender:
        def act(self, game):  # pragma: no cover - never asked
            return 0

        def reset(self, seed=None):
            pass

        def compiled_player(self, num_players, map_name=None):
            return "heuristic"

        def compiled_state(self):  # pragma: no cover - never asked
            return np.zeros(6, np.uint64), np.zeros(1, np.uint64)

    with pytest.raises(TypeError, match="CompiledPlayer"):
        CompiledOpponents(Pretender(), 2, 2)
