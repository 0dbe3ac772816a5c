"""The PettingZoo AEC env: API and seed tests, turn order, rewards over whole games, illegal actions."""

from __future__ import annotations

import warnings
from collections import defaultdict

import numpy as np
import pytest
from builders import add_house, set_city_good, set_goods
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers

import concordia_env.engine.observation as O
from concordia_env import Game, IllegalActionError, env, raw_env
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_PREFECT
from concordia_env.engine.state import PHASE_OVERFLOW


def play_out(e, rng: np.random.Generator, check=None) -> dict[str, float]:
    """Play random legal actions until every agent is done; return each agent's summed rewards."""
    totals: dict[str, float] = defaultdict(float)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        totals[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        if check is not None:
            check(e, agent, obs, info)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return totals


def test_api_test_passes() -> None:
    # 2-player Creta: a random game lasts a few hundred decisions, so the test also plays through the end
    api_test(env(map="creta", num_players=2, seed=0), num_cycles=600)
    api_test(env(map="imperium", num_players=5, reward="score_delta", seed=1), num_cycles=60)


def test_seed_test_passes() -> None:
    seed_test(lambda: env(map="italia", num_players=3), num_cycles=200)


def test_wrapping_and_metadata() -> None:
    e = env()
    assert isinstance(e, wrappers.OrderEnforcingWrapper)
    assert isinstance(e.env, raw_env), "no AssertOutOfBoundsWrapper: raw_env checks every action itself"
    assert isinstance(e.unwrapped, raw_env)
    assert e.metadata["name"] == "concordia_v1" and e.metadata["is_parallelizable"] is False
    assert set(e.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
    assert e.possible_agents == ["player_0", "player_1"], "2-player Italia unless told, as every form"
    space = e.observation_space("player_0")
    assert space["observation"].shape == (O.OBS_SIZE,) and space["observation"].dtype == np.float32
    assert space["action_mask"].dtype == np.int8 and space["action_mask"].shape == (A.NUM_ACTIONS,)
    assert e.action_space("player_1").n == A.NUM_ACTIONS


def test_reset_seed_sets_up_that_game() -> None:
    e = env(map="aegyptus", num_players=3)
    e.reset(seed=123)
    assert e.unwrapped.game == Game.new("aegyptus", 3, seed=123)
    e.reset()
    first = e.unwrapped.game.state.copy()
    e.reset(seed=123)
    e.reset()
    assert np.array_equal(e.unwrapped.game.state, first), "reset() after reset(seed) is reproducible"
    seeded = env(map="aegyptus", num_players=3, seed=5)
    seeded.reset()
    again = env(map="aegyptus", num_players=3, seed=5)
    again.reset()
    assert seeded.unwrapped.game == again.unwrapped.game


def check_position(e, agent: str, obs: dict, info: dict) -> None:
    """Invariants at every decision: the selected agent is the engine's current player, masks agree."""
    game = e.unwrapped.game
    p = e.possible_agents.index(agent)
    assert game.current_player == p
    assert np.array_equal(obs["action_mask"].astype(bool), game.legal_mask())
    assert info["action_mask"] is obs["action_mask"] or np.array_equal(info["action_mask"], obs["action_mask"])
    assert info["phase"] == game.phase_name
    assert np.array_equal(obs["observation"], game.observation(p))
    for other in e.agents:
        if other != agent:
            assert not e.observe(other)["action_mask"].any()


@pytest.mark.parametrize(("reward", "map_name", "n"), [("win", "creta", 3), ("rank", "italia", 3), ("vp", "creta", 2)])
def test_terminal_rewards_sum_as_documented(reward: str, map_name: str, n: int) -> None:
    e = env(map=map_name, num_players=n, reward=reward)
    e.reset(seed=21)
    game = e.unwrapped.game
    infos_at_end: dict[str, dict] = {}

    totals: dict[str, float] = defaultdict(float)
    rng = np.random.default_rng(0)
    for agent in e.agent_iter():
        obs, r, terminated, truncated, info = e.last()
        totals[agent] += r
        if terminated or truncated:
            infos_at_end[agent] = info
            e.step(None)
            continue
        assert r == 0, "terminal rewards are 0 before the end"
        check_position(e, agent, obs, info)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))

    assert game.is_over() and not e.agents
    scores, ranking = game.final_scores(), game.ranking()
    agents = [f"player_{p}" for p in range(n)]
    if reward == "win":
        expected = {a: (1.0 if p == game.winner() else -1.0 / (n - 1)) for p, a in enumerate(agents)}
    elif reward == "rank":
        expected = {agents[p]: 1.0 - 2.0 * k / (n - 1) for k, p in enumerate(ranking)}
    else:
        expected = {a: (scores[p] - max(np.delete(scores, p))) / 100 for p, a in enumerate(agents)}
    assert totals == pytest.approx(expected)
    assert sum(totals.values()) == pytest.approx(0.0) or reward == "vp"
    for p, a in enumerate(agents):
        info = infos_at_end[a]
        assert info["winner"] == agents[game.winner()]
        assert info["final_scores"] == {b: int(scores[q]) for q, b in enumerate(agents)}
        assert info["score_breakdown"] == game.score_breakdown(p)
        assert info["score_breakdown"]["total"] == scores[p]


def test_score_delta_rewards_sum_to_final_vp() -> None:
    e = env(map="imperium", num_players=3, reward="score_delta")
    e.reset(seed=8)
    totals = play_out(e, np.random.default_rng(1), check_position)
    game = e.unwrapped.game
    assert game.is_over()
    final = game.final_scores()
    assert totals == pytest.approx({f"player_{p}": float(final[p]) for p in range(3)})
    assert max(final) > 0


def overflow_position(e) -> None:
    """Turn the env's fresh 2-player Italia game into one where player 0's Prefect overflows player 1.

    Player 1 has houses in two cities of one province (brick and food) and one free
    storehouse slot; player 0 will produce there.
    """
    game = e.unwrapped.game
    province, cities = next((name, c) for name, c in game.map.provinces.items() if len(c) >= 2)
    set_city_good(game, cities[0], "brick")
    set_city_good(game, cities[1], "food")
    add_house(game, 1, cities[0])
    add_house(game, 1, cities[1])
    set_goods(game, 1, tool=4, wine=3)  # 8 slots for goods (4 colonists stored): one stays free
    e.province = game.map.province_index(province)


def test_overflow_choice_selects_the_other_player() -> None:
    e = env(map="italia", num_players=2, start_player=0)
    e.reset(seed=2)
    overflow_position(e)
    game = e.unwrapped.game
    assert e.agent_selection == "player_0"
    e.step(A.A_PLAY + K_PREFECT)
    e.step(A.A_PRODUCE + e.province)
    assert game.phase == PHASE_OVERFLOW and game.turn_player == 0
    assert e.agent_selection == "player_1", "the storehouse owner chooses, during player 0's turn"
    obs, *_, info = e.last()
    assert obs["observation"][O.O_OBSERVER_DECIDES] == 1
    assert info["phase"] == game.phase_name
    keep = A.A_GOOD + 1  # keep the food
    assert obs["action_mask"][keep] == 1
    e.step(keep)
    assert e.agent_selection == "player_1" and game.turn_player == 1, "then it is player 1's own turn"
    assert game.goods(1).tolist() == [0, 1, 4, 3, 0]


def test_illegal_action_raises_and_changes_nothing() -> None:
    e = env(map="italia", num_players=2)
    e.reset(seed=3)
    before = e.unwrapped.game.state.copy()
    rewards = dict(e.unwrapped._cumulative_rewards)
    selected = e.agent_selection
    with pytest.raises(IllegalActionError):
        e.step(A.A_DONE)  # nothing to finish at the start of a turn
    assert np.array_equal(e.unwrapped.game.state, before)
    assert e.agent_selection == selected and e.unwrapped._cumulative_rewards == rewards
    with pytest.raises(IllegalActionError, match="outside the action space"):
        e.step(A.NUM_ACTIONS)
    assert np.array_equal(e.unwrapped.game.state, before) and e.agent_selection == selected


def test_illegal_action_penalize_ends_the_game() -> None:
    e = env(map="italia", num_players=3, illegal_action="penalize", reward="score_delta")
    e.reset(seed=3)
    offender = e.agent_selection
    e.step(A.A_DONE)
    assert all(e.terminations.values()) and all(e.truncations.values())
    assert e.rewards == {a: (-1.0 if a == offender else 0.0) for a in e.possible_agents}
    assert "illegal" in e.infos[offender]["illegal_action"]
    seen = {}
    for agent in e.agent_iter():
        _, reward, terminated, truncated, _ = e.last()
        assert terminated and truncated
        seen[agent] = reward
        e.step(None)
    assert seen[offender] == -1.0
    assert set(seen) == set(e.possible_agents)


def test_render_modes() -> None:
    from concordia_env.views.render import render_rgb, render_text

    e = env(map="italia", num_players=2, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert isinstance(text, str) and text == render_text(e.unwrapped.game)
    e = env(map="italia", num_players=2, render_mode="rgb_array")
    e.reset(seed=0)
    picture = e.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
    assert np.array_equal(picture, render_rgb(e.unwrapped.game))


def test_render_human_runs_headless() -> None:
    e = env(map="creta", num_players=2, render_mode="human")
    e.reset(seed=0)
    with warnings.catch_warnings():  # headless: the viewer warns (once per process) and shows nothing
        warnings.simplefilter("ignore", RuntimeWarning)
        assert e.render() is None
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))  # human mode renders after each step
    assert e.unwrapped._viewer is not None
    e.close()
    assert e.unwrapped._viewer is None


def test_bad_options_fail_at_construction() -> None:
    with pytest.raises(ValueError):
        env(map="italia", num_players=5)
    with pytest.raises(ValueError):
        env(reward="money")
    with pytest.raises(ValueError):
        env(illegal_action="ignore")
    with pytest.raises(ValueError):
        env(render_mode="pixels")


def test_observation_versions() -> None:
    """v1 (default) shows the colonist slots; observation_version=0 gives the v0 prefix of it."""
    current, old = env(map="italia", num_players=2), env(map="italia", num_players=2, observation_version=0)
    assert current.metadata["name"] == "concordia_v1" and old.metadata["name"] == "concordia_v0"
    assert raw_env.metadata["name"] == "concordia_v1", "the class keeps the current version's name"
    assert current.observation_space("player_0")["observation"].shape == (O.OBS_SIZE_V1,)
    assert old.observation_space("player_1")["observation"].shape == (O.OBS_SIZE_V0,)
    current.reset(seed=5)
    old.reset(seed=5)
    for agent in current.possible_agents:
        v1, v0 = current.observe(agent)["observation"], old.observe(agent)["observation"]
        assert old.observation_space(agent)["observation"].contains(v0)
        assert current.observation_space(agent)["observation"].contains(v1)
        assert np.array_equal(v0, v1[: O.OBS_SIZE_V0])
    with pytest.raises(ValueError, match="observation_version"):
        env(observation_version=2)
