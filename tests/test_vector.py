"""VectorGame: the batch plays exactly like n single games, resets itself, refuses illegal actions whole."""

from __future__ import annotations

import time

import numpy as np
import pytest

from concordia_env import Game, IllegalActionError, VectorGame
from concordia_env.engine import actions as A
from concordia_env.engine.observation import OBS_SIZE
from concordia_env.envs.rewards import Rewarder
from concordia_env.envs.vector_game import MAX_SEED


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row, chosen vectorised."""
    return np.argmax(np.where(masks, rng.random(masks.shape), -1.0), axis=1)


@pytest.mark.parametrize("reward", ["win", "score_delta", "rank"])
def test_batch_matches_single_games(reward: str) -> None:
    n, seed = 3, 40
    vec = VectorGame(n, map="creta", num_players=2, seed=seed, reward=reward)
    games = [Game.new("creta", 2, seed=seed + i) for i in range(n)]
    rewarders = [Rewarder(reward) for _ in range(n)]
    for r in rewarders:
        r.reset(2)
    game_number = [0] * n
    finished = 0
    rng = np.random.default_rng(0)
    for _ in range(1400):
        masks = vec.legal_masks()
        assert np.array_equal(masks, np.stack([g.legal_mask() for g in games]))
        assert vec.current_players.tolist() == [g.current_player for g in games]
        actions = random_legal(masks, rng)
        rewards, dones, infos = vec.step(actions)
        for i, game in enumerate(games):
            game.step(int(actions[i]))
            assert np.allclose(rewards[i], rewarders[i].after(game))
            assert dones[i] == game.is_over()
            if game.is_over():
                finished += 1
                assert infos["_final"][i]
                assert infos["final_scores"][i].tolist() == game.final_scores().tolist()
                info = infos["final_info"][i]
                assert info["winner"] == game.winner() and info["ranking"] == game.ranking()
                assert np.array_equal(info["state"], game.state)
                assert info["seed"] == seed + i + game_number[i] * n
                final_obs = infos["final_observation"][i]
                assert final_obs.shape == (2, OBS_SIZE)
                assert all(np.array_equal(final_obs[p], game.observation(p)) for p in range(2))
                # autoreset: the row's next game uses the documented seed
                game_number[i] += 1
                games[i] = Game.new("creta", 2, seed=vec.game_seed(i, game_number[i]))
                assert vec.game_seed(i, game_number[i]) == seed + i + game_number[i] * n
                rewarders[i].reset(2)
            else:
                assert infos["_final"][i] == False  # noqa: E712 (numpy bool)
        assert np.array_equal(vec.states, np.stack([g.state for g in games]))
    assert finished >= 2, "the test should see games finish and reset"
    assert vec.game_counts.tolist() == game_number


def test_observations_are_from_each_current_players_view() -> None:
    vec = VectorGame(4, map="imperium", num_players=4, seed=3)
    rng = np.random.default_rng(1)
    for _ in range(25):
        vec.step(random_legal(vec.legal_masks(), rng))
    obs = vec.observations()
    assert obs.shape == (4, OBS_SIZE) and obs.dtype == np.float32
    for i in range(4):
        game = vec.game(i)
        assert np.array_equal(obs[i], game.observation(game.current_player))
    seat0 = vec.observations(np.zeros(4, dtype=np.int64))
    assert all(np.array_equal(seat0[i], vec.game(i).observation(0)) for i in range(4))
    with pytest.raises(ValueError):
        vec.observations(np.full(4, 4))


def test_illegal_action_names_the_row_and_changes_nothing() -> None:
    vec = VectorGame(5, map="italia", num_players=3, seed=7)
    rng = np.random.default_rng(2)
    for _ in range(10):
        vec.step(random_legal(vec.legal_masks(), rng))
    before = vec.states.copy()
    actions = random_legal(vec.legal_masks(), rng)
    bad_row = 3
    actions[bad_row] = int(np.flatnonzero(~vec.legal_masks()[bad_row])[0])
    with pytest.raises(IllegalActionError) as info:
        vec.step(actions)
    assert info.value.row == bad_row and "row 3" in str(info.value)
    assert info.value.action == actions[bad_row]
    assert np.array_equal(vec.states, before)
    actions[bad_row] = A.NUM_ACTIONS + 5  # out of range is illegal too
    with pytest.raises(IllegalActionError):
        vec.step(actions)
    assert np.array_equal(vec.states, before)
    with pytest.raises(ValueError):
        vec.step(actions[:2])


def test_reset_and_seeds() -> None:
    vec = VectorGame(2, map="aegyptus", num_players=3, seed=100)
    assert vec.game(1) == Game.new("aegyptus", 3, seed=101)
    vec.step(random_legal(vec.legal_masks(), np.random.default_rng(0)))
    vec.reset(seed=5)
    assert vec.game(0) == Game.new("aegyptus", 3, seed=5) and vec.game_counts.tolist() == [0, 0]
    other = VectorGame(2, map="aegyptus", num_players=3, seed=None)
    assert other.game(0) == Game.new("aegyptus", 3, seed=other.seed)
    with pytest.raises(ValueError):
        VectorGame(2, map="italia", num_players=5)
    big = VectorGame(2, map="italia", num_players=2, seed=MAX_SEED)  # the rows' seeds are int64 in the compiled step
    assert big.game(1) == Game.new("italia", 2, seed=MAX_SEED + 1)
    for bad in (MAX_SEED + 1, 2**64, -1):
        with pytest.raises(ValueError, match="seed"):
            VectorGame(2, map="italia", num_players=2, seed=bad)
        with pytest.raises(ValueError, match="seed"):
            big.reset(seed=bad)
    assert big.game(1) == Game.new("italia", 2, seed=MAX_SEED + 1), "a refused reset changes nothing"


def test_a_finished_row_goes_on_in_the_step_itself() -> None:
    """The compiled step keeps a finished game's result and sets up the row's next game (one pass, any thread count)."""
    for threads in (1, 2):
        vec = VectorGame(3, map="creta", num_players=2, seed=2**33, threads=threads)  # two-word seeds
        rng = np.random.default_rng(1)
        shadow = [vec.game(i) for i in range(3)]
        finished = 0
        while finished < 4:
            actions = random_legal(vec.legal_masks(), rng)
            _, dones, infos = vec.step(actions)
            for i in range(3):
                shadow[i].step(int(actions[i]))
                assert dones[i] == shadow[i].is_over()
                if dones[i]:
                    finished += 1
                    info = infos["final_info"][i]
                    assert info["final_scores"].tolist() == shadow[i].final_scores().tolist()
                    assert info["ranking"] == list(shadow[i].ranking()) and info["winner"] == info["ranking"][0]
                    assert np.array_equal(info["state"], shadow[i].state)
                    assert info["seed"] == vec.game_seed(i, int(vec.game_counts[i]) - 1)
                    shadow[i] = Game.new("creta", 2, seed=vec.game_seed(i, int(vec.game_counts[i])))
                assert vec.game(i) == shadow[i]
                assert np.array_equal(vec.legal_masks()[i], shadow[i].legal_mask())


def test_throughput_benchmark_runs(tmp_path) -> None:
    import json

    from concordia_env.benchmarks import throughput

    out = tmp_path / "throughput.json"
    assert throughput.main(["--seconds", "0.05", "--maps", "creta", "--batch", "8", "--json", str(out)]) == 0
    rows = {r["name"]: r for r in json.loads(out.read_text())["results"]}
    assert rows["connect_four_v3 (AEC)"]["ratio"] == 1.0
    assert all(r["steps"] > 0 and r["steps_per_second"] > 0 for r in rows.values())
    assert {"engine creta 4p", "engine, all maps", "VectorGame(8) creta 4p", "AEC env creta 4p"} <= set(rows)
    assert all(r["cpu_seconds"] > 0 for r in rows.values() if r["threads"])


def test_a_throughput_run_on_a_busy_machine_says_the_load_is_the_likely_cause() -> None:
    """A line that got a small share of its CPUs, or a load average above the CPU count, gives the note."""
    from concordia_env.benchmarks.throughput import Result, busy_note, measure

    def idle(seconds: float) -> tuple[int, int, float]:  # waits instead of computing: what a starved line sees
        time.sleep(seconds)
        return 1, 0, seconds

    starved = measure("two threads", idle, 0.05, threads=2)
    assert starved.cpu_share is not None and starved.cpu_share < 0.5
    quiet = Result("engine", steps=10, seconds=1.0, cpu_seconds=0.98)
    elsewhere = Result("SubprocVecEnv(2)", steps=10, seconds=1.0, threads=0)  # its work is in other processes
    assert busy_note([quiet, elsewhere], load=0.5, cpus=2) is None
    note = busy_note([quiet, starved, elsewhere], load=0.5, cpus=2)
    assert note is not None and "likely the load" in note and "two threads" in note and "MISS" in note
    note = busy_note([quiet], load=3.7, cpus=2)
    assert note is not None and "load average 3.7 on 2 CPUs" in note


def test_sample_actions_are_legal_and_reproducible() -> None:
    vecs = [VectorGame(16, map="aegyptus", num_players=3, seed=5) for _ in range(2)]
    for _ in range(300):
        picks = [vec.sample_actions() for vec in vecs]
        assert np.array_equal(picks[0], picks[1]), "same seed, same samples"
        masks = vecs[0].legal_masks()
        assert masks[np.arange(16), picks[0]].all()
        for vec, actions in zip(vecs, picks, strict=True):
            vec.step(actions)


def test_sample_rows_is_uniform_over_the_legal_actions() -> None:
    from concordia_env.engine.rules.entry_points import sample_rows

    mask = np.zeros((1, A.NUM_ACTIONS), dtype=np.bool_)
    legal = np.array([0, 3, 100, 500, A.NUM_ACTIONS - 1])
    mask[0, legal] = True
    draws = 20_000
    uniforms = np.random.default_rng(1).random(draws)
    out = np.empty(1, dtype=np.int64)
    picked = []
    for u in uniforms:
        sample_rows(mask, np.array([u]), out)
        picked.append(int(out[0]))
    counts = np.array([picked.count(a) for a in legal])
    assert counts.sum() == draws, "only legal actions are picked"
    expected = draws / len(legal)
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected)), counts
    sample_rows(np.zeros_like(mask), np.array([0.5]), out)
    assert out[0] == -1, "a row with no legal action gets -1"


def test_nth_legal_is_the_kth_true_index_for_any_mask() -> None:
    """nth_legal skips whole blocks of the mask by their count: the answer is still flatnonzero's k-th."""
    from concordia_env.engine.rules.entry_points import NTH_BLOCK, nth_legal

    rng = np.random.default_rng(5)
    for size in (1, NTH_BLOCK - 1, NTH_BLOCK, NTH_BLOCK + 1, 3 * NTH_BLOCK, A.NUM_ACTIONS):
        for density in (0.0, 0.01, 0.1, 0.5, 1.0):
            mask = rng.random(size) < density
            legal = np.flatnonzero(mask)
            for k in [-1, 0, 1, len(legal) - 1, len(legal), len(legal) + 1, *rng.integers(0, len(legal) + 1, 5)]:
                expected = int(legal[k]) if 0 <= k < len(legal) else -1
                assert nth_legal(mask, k) == expected, (size, density, k)


def test_observation_version_zero_is_the_v0_prefix() -> None:
    from concordia_env.engine.observation import OBS_SIZE_V0

    current = VectorGame(3, map="italia", num_players=2, seed=4)
    old = VectorGame(3, map="italia", num_players=2, seed=4, observation_version=0)
    assert old.obs_size == OBS_SIZE_V0 and current.obs_size == OBS_SIZE
    assert np.array_equal(old.observations(), current.observations()[:, :OBS_SIZE_V0])
    with pytest.raises(ValueError, match="observation_version"):
        VectorGame(1, observation_version=7)


def test_observations_fill_a_kept_buffer_and_refuse_a_wrong_one() -> None:
    vec = VectorGame(3, map="italia", num_players=2, seed=4)
    out = np.empty((3, OBS_SIZE), dtype=np.float32)
    assert vec.observations(out=out) is out and np.array_equal(out, vec.observations())
    for bad in (np.empty((3, OBS_SIZE)), np.empty((2, OBS_SIZE), np.float32), np.empty((OBS_SIZE, 3), np.float32).T):
        with pytest.raises(ValueError, match="out must be"):
            vec.observations(out=bad)
    frozen = np.empty((3, OBS_SIZE), dtype=np.float32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError):
        vec.observations(out=frozen)


def test_masks_are_read_only_and_kept_from_the_step() -> None:
    vec = VectorGame(4, map="imperium", num_players=4, seed=1)
    masks = vec.legal_masks()
    with pytest.raises(ValueError):
        masks[0, 0] = True
    vec.step(vec.sample_actions())
    assert np.array_equal(vec.legal_masks(), np.stack([vec.game(i).legal_mask() for i in range(4)]))


def test_scores_restart_and_thread_options() -> None:
    vec = VectorGame(3, map="creta", num_players=2, seed=8, threads=2)
    for _ in range(40):
        vec.step(vec.sample_actions())
    assert vec.scores().tolist() == [vec.game(i).scores().tolist() for i in range(3)]
    vec.restart([1])
    assert vec.game_counts.tolist() == [0, 1, 0] and vec.game(1) == Game.new("creta", 2, seed=vec.game_seed(1, 1))
    with pytest.raises(ValueError):
        vec.restart([3])
    assert VectorGame(2, map="creta", num_players=2, threads=8).threads == 2, "no more threads than rows"
    with pytest.raises(ValueError):
        VectorGame(2, map="creta", num_players=2, threads=0)
    with pytest.raises(TypeError):
        VectorGame(2, map="creta", num_players=2, threads=1.5)
    vec.close()


def test_step_observes_into_a_buffer_what_observations_would_return() -> None:
    vec = VectorGame(6, map="creta", num_players=2, seed=3, threads=2)
    out = np.empty((6, OBS_SIZE), dtype=np.float32)
    finished = 0
    for _ in range(400):
        _, dones, _ = vec.step(vec.sample_actions(), observe_into=out)
        assert np.array_equal(out, vec.observations()), "finished rows show their next game"
        finished += int(dones.sum())
    assert finished > 0
    with pytest.raises(ValueError):
        vec.step(vec.sample_actions(), observe_into=np.empty((6, OBS_SIZE)))
