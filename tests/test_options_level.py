"""The options level (``level="options"``, :mod:`concordia_env.envs.options_level`) of the single-game forms.

The options are the ``learned`` agent's candidates (same determinization, same features),
the spaces hold every observation, a seed fixes an episode, the hidden stack does not
show, refused options change nothing, and every form starts from a given position.
"""

from __future__ import annotations

import copy
from typing import Any

import gymnasium
import numpy as np
import pytest

from concordia_env import Game, IllegalActionError, SingleAgentEnv, env, parallel_env, raw_env
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.agents.learned_model import candidates
from concordia_env.engine.position import PositionError
from concordia_env.engine.state import STACK, STACK_SIZE
from concordia_env.envs.options_level import DEFAULT_MAX_OPTIONS
from concordia_env.strategy import utility
from concordia_env.strategy.afterstate_scorer import FEATURE_COUNTS, FEATURES_VERSION
from tests.every_bit import every_bit

KEYS = {"observation", "options", "action_mask"}


def options_env(**kwargs: Any) -> SingleAgentEnv:
    return SingleAgentEnv(**{"opponents": "heuristic", "level": "options", **kwargs})


def position(seed: int = 5, decisions: int = 12) -> Game:
    """A game some heuristic decisions in (a position with cards bought and a stack to hide)."""
    game = Game.new("italia", 2, seed=seed)
    agent = HeuristicAgent(seed=seed)
    for _ in range(decisions):
        game.step(agent.act(game))
    return game


def learned_order(values: np.ndarray, player: int) -> np.ndarray:
    """The documented order of the kept options: utility for the chooser, best first, ties in the core's order."""
    utilities = np.array([utility(v, player) for v in values])
    return np.argsort(-utilities, kind="stable")


def check_observation(env: SingleAgentEnv, obs: dict, info: dict) -> None:
    """The observation fits the space and agrees with the env's mask and infos."""
    assert set(obs) == KEYS
    assert env.observation_space.contains(obs)
    mask = env.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (env.max_options,)
    assert np.array_equal(obs["action_mask"].astype(bool), mask)
    assert np.array_equal(info["action_mask"], mask)
    count = int(mask.sum())
    assert mask[:count].all() and not mask[count:].any(), "the kept options come first"
    assert not obs["options"][count:].any(), "rows past the count are zeros"
    assert (info["option_actions"][:count, 0] >= 0).all() and (info["option_actions"][count:] == -1).all()


@pytest.mark.parametrize("max_options", [DEFAULT_MAX_OPTIONS, 4])
def test_the_options_are_the_learned_agent_s_candidates(max_options: int) -> None:
    """Same generator draw, same determinization: the learned agent's candidates, their features, best first."""
    env = options_env(seat=0, max_options=max_options)
    rng = np.random.default_rng(0)
    obs, info = env.reset(seed=11)
    checked = 0
    for _ in range(40):
        before = copy.deepcopy(env.np_random)
        k = int(rng.choice(np.flatnonzero(env.action_masks())))
        obs, _, terminated, truncated, info = env.step(k)
        if terminated or truncated:
            break
        game = env.game
        if len(game.legal_actions()) == 1:
            continue
        cands = candidates(game, HeuristicAgent(), before)  # draws the seed the env drew after this step
        order = learned_order(cands.raw.values, game.current_player)[:max_options]
        count = len(order)
        assert int(obs["action_mask"].sum()) == count == min(len(cands), max_options)
        assert np.array_equal(info["option_actions"][:count], cands.first[order])
        assert np.allclose(obs["options"][:count], cands.features[order], rtol=0, atol=1e-6)
        assert env.features_version == FEATURES_VERSION
        assert obs["options"].shape == (max_options, FEATURE_COUNTS[FEATURES_VERSION])
        # a "decision" step plays the option's first action: what the learned agent plays
        assert env.options is not None and env.options.first_action(0) == int(cands.plan(int(order[0]))[0])
        checked += 1
    assert checked >= 10


def test_gymnasium_id_and_checkers() -> None:
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("ConcordiaOptions-v1", illegal_action="penalize", opponents="heuristic")
    assert env.unwrapped.level == "options"
    check_env(env.unwrapped, skip_render_check=True)
    obs, _ = env.reset(seed=2)
    assert set(obs) == KEYS
    assert env.get_wrapper_attr("action_masks")().shape == (DEFAULT_MAX_OPTIONS,)
    assert isinstance(env.action_space, gymnasium.spaces.Discrete) and env.action_space.n == DEFAULT_MAX_OPTIONS


@pytest.mark.parametrize("granularity", ["decision", "turn"])
def test_every_observation_fits_and_a_seed_fixes_the_episode(granularity: str) -> None:
    def episode() -> list[Any]:
        env = options_env(granularity=granularity, features_version=1, max_options=16)
        rng = np.random.default_rng(4)
        obs, info = env.reset(seed=21)
        seen = [obs]
        done = False
        while not done:
            check_observation(env, obs, info)
            assert env.game.current_player == env.seat
            assert env.action_masks()[env.action_space.sample()], "sample() draws a kept option"
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            seen.append((obs, reward))
            done = terminated or truncated
        assert info["winner"] >= 0 and not env.action_masks().any()
        return seen

    first, second = episode(), episode()
    assert len(first) == len(second)
    for a, b in zip(first, second, strict=True):
        assert every_bit(a) == every_bit(b)


def test_turn_granularity_plays_the_whole_option() -> None:
    env = options_env(granularity="turn", seat=0)
    env.reset(seed=8)
    turns = env.game.turn_count
    env.step(0)
    assert env.game.turn_count > turns or env.game.is_over()
    assert env.game.current_player == env.seat


@pytest.mark.parametrize("level", ["flat", "options"])
def test_no_hidden_stack_information_leaks(level: str) -> None:
    """Two games that differ only in the hidden order give the same observations (options, features, order)."""
    game = position()
    other = game.with_hidden_stack_shuffled(np.random.default_rng(1))
    size = game.stack_size
    assert size > 1 and not np.array_equal(game.state[STACK : STACK + size], other.state[STACK : STACK + size])
    assert game.state[STACK_SIZE] == other.state[STACK_SIZE]
    seen = []
    for start in (game, other):
        env = SingleAgentEnv(opponents="heuristic", level=level, seat=game.current_player)
        obs, _ = env.reset(seed=3, options={"position": start})
        views = [obs]
        while env.game.turn_count == game.turn_count and env.game.current_player == game.current_player:
            obs, *_ = env.step(0 if level == "options" else int(np.flatnonzero(env.action_masks())[0]))
            if env.game.turn_count == game.turn_count:
                views.append(obs)
        seen.append(views)
    assert len(seen[0]) == len(seen[1])
    for a, b in zip(*seen, strict=True):
        assert every_bit(a) == every_bit(b)


@pytest.mark.parametrize("illegal_action", ["raise", "penalize"])
def test_refused_options_change_nothing(illegal_action: str) -> None:
    env = options_env(max_options=8, illegal_action=illegal_action, seat=0)
    obs, _ = env.reset(seed=5)
    count = int(env.action_masks().sum())
    state = env.game.state.copy()
    for bad in (count if count < 8 else None, 8, -1, 2**63, None, 1.5, "3", np.array([0, 1]), True):
        if illegal_action == "penalize":
            env.reset(seed=5)
            _, reward, terminated, _, info = env.step(bad)
            assert reward == -1.0 and terminated and info["illegal_action"]
            assert np.array_equal(env.game.state, state) and not env.action_masks().any()
            continue
        with pytest.raises(IllegalActionError):
            env.step(bad)
        assert np.array_equal(env.game.state, state)
        assert np.array_equal(env.action_masks(), obs["action_mask"].astype(bool))


@pytest.mark.parametrize("level", ["flat", "options"])
def test_reset_from_a_position(level: str) -> None:
    game = position(decisions=7)
    env = SingleAgentEnv(opponents="random", level=level, seat=game.current_player)
    for given in (game, game.to_json(), game.to_dict()):
        obs, _ = env.reset(seed=1, options={"position": given})
        assert env.game == game and env.game is not game
        flat = obs if level == "flat" else obs["observation"]
        assert np.array_equal(flat, game.observation(game.current_player))
    env.step(0 if level == "options" else int(np.flatnonzero(env.action_masks())[0]))
    assert game.decision_count == 7, "the given game is copied, never played"


@pytest.mark.parametrize("level", ["flat", "options"])
def test_a_position_of_another_map_or_player_count_is_refused(level: str) -> None:
    env = SingleAgentEnv(opponents="random", level=level, seat=0)
    env.reset(seed=1)
    state = env.game.state.copy()
    over = Game.new("italia", 2, seed=0)
    agent = HeuristicAgent(seed=0)
    while not over.is_over():
        over.step(agent.act(over))
    for bad, match in (
        (Game.new("imperium", 3, seed=0), "3-player game of imperium; this env plays 2-player italia"),
        (Game.new("italia", 4, seed=0), "4-player game of italia"),
        (Game.new("creta", 2, seed=0).to_json(), "game of creta"),
        (over, "game is over"),
        ("{not json", "JSON"),
        (42, "a Game, a position's JSON text or its dict"),
    ):
        with pytest.raises(PositionError, match=match):
            env.reset(seed=2, options={"position": bad})
        assert np.array_equal(env.game.state, state)


def test_no_options_warn_nothing() -> None:
    import warnings

    env = options_env()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=0)
        env.reset(seed=0, options={})
        env.reset(seed=0, options=None)
    with pytest.warns(UserWarning, match="ignores 'x'"):
        env.reset(seed=0, options={"x": 1})


def test_bad_options_level_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="level must be one of"):
        SingleAgentEnv(level="turns")
    with pytest.raises(ValueError, match="granularity must be one of"):
        SingleAgentEnv(level="options", granularity="game")
    with pytest.raises(ValueError, match="max_options must be"):
        SingleAgentEnv(level="options", max_options=0)
    with pytest.raises(TypeError, match="max_options must be"):
        SingleAgentEnv(level="options", max_options=2.5)
    with pytest.raises(ValueError, match="features_version must be one of"):
        SingleAgentEnv(level="options", features_version=3)
    with pytest.raises(ValueError, match="reset\\(\\) takes no options"):
        options_env().reset(options={"level": "flat"})


# --------------------------------------------------------------------------- PettingZoo
def test_pettingzoo_api_tests_pass_at_the_options_level() -> None:
    from pettingzoo.test import api_test, parallel_api_test

    api_test(env(map="italia", num_players=2, level="options", max_options=16), num_cycles=60)
    parallel_api_test(parallel_env(map="italia", num_players=2, level="options", max_options=16), num_cycles=60)


def play_aec(e: Any, seed: int, moves: int, rng: np.random.Generator, check: bool = True) -> list[Any]:
    """Random kept options for ``moves`` decisions; every observation checked against the spaces and masks."""
    e.reset(seed=seed)
    seen = []
    for _ in range(moves):
        agent = e.agent_selection
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            break
        for other in e.agents:
            o = e.observe(other)
            assert set(o) == KEYS and e.observation_space(other).contains(o)
            assert np.array_equal(o["action_mask"], e.infos[other]["action_mask"])
            if other != agent:
                assert not o["action_mask"].any() and not o["options"].any()
                assert (e.infos[other]["option_actions"] == -1).all()
        count = int(obs["action_mask"].sum())
        assert count >= 1 and obs["action_mask"][:count].all() and not obs["options"][count:].any()
        seen.append((agent, obs, reward))
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


def test_pettingzoo_options_are_the_learned_candidates_and_a_seed_fixes_the_game() -> None:
    e = raw_env(map="italia", num_players=2, level="options")
    e.reset(seed=6)
    rng = np.random.default_rng(1)
    checked = 0
    for _ in range(30):
        before = copy.deepcopy(e._option_rng)
        obs = e.observe(e.agent_selection)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        game = e.game
        if game.is_over() or len(game.legal_actions()) == 1:
            continue
        cands = candidates(game, HeuristicAgent(), before)
        order = learned_order(cands.raw.values, game.current_player)[: e.max_options]
        obs = e.observe(e.agent_selection)
        assert np.array_equal(e.infos[e.agent_selection]["option_actions"][: len(order)], cands.first[order])
        assert np.allclose(obs["options"][: len(order)], cands.features[order], rtol=0, atol=1e-6)
        checked += 1
    assert checked >= 5
    runs = [
        play_aec(raw_env(map="italia", num_players=2, level="options", granularity=g), 3, 80, np.random.default_rng(2))
        for g in ("decision", "decision", "turn")
    ]
    assert every_bit(runs[0]) == every_bit(runs[1])
    assert len(runs[2]) < 80 or every_bit(runs[2]) != every_bit(runs[0])


@pytest.mark.parametrize("level", ["flat", "options"])
def test_pettingzoo_no_leak_and_start_from_a_position(level: str) -> None:
    game = position()
    other = game.with_hidden_stack_shuffled(np.random.default_rng(1))
    seen = []
    for start in (game, other, game.to_json()):
        e = env(map="italia", num_players=2, level=level)
        e.reset(seed=4, options={"position": start})
        assert e.unwrapped.game == (other if start is other else game)
        agent = e.agent_selection
        seen.append(every_bit(e.observe(agent)))
    assert seen[0] == seen[1] == seen[2]
    p = parallel_env(map="italia", num_players=2, level=level)
    observations, _ = p.reset(seed=4, options={"position": game.to_dict()})
    assert every_bit(observations[f"player_{game.current_player}"]) == seen[0]
    for bad in (Game.new("italia", 3, seed=0), Game.new("creta", 2, seed=0)):
        with pytest.raises(PositionError, match="this env plays 2-player italia"):
            p.reset(seed=4, options={"position": bad})


@pytest.mark.parametrize("illegal_action", ["raise", "penalize"])
def test_pettingzoo_refused_options_change_nothing(illegal_action: str) -> None:
    e = raw_env(map="italia", num_players=2, level="options", max_options=8, illegal_action=illegal_action)
    for bad in (8, -1, 2**63, None, 1.5, "3"):
        e.reset(seed=5)
        state = e.game.state.copy()
        agent = e.agent_selection
        if illegal_action == "raise":
            with pytest.raises(IllegalActionError):
                e.step(bad)
            assert np.array_equal(e.game.state, state) and e.agent_selection == agent
            assert e.observe(agent)["action_mask"].any()
        else:
            e.step(bad)
            assert np.array_equal(e.game.state, state)
            assert e.rewards[agent] == -1.0 and e.terminations[agent] and e.infos[agent]["illegal_action"]
