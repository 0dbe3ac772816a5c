"""The environments against the RL libraries' conventions: PettingZoo's test suite on every map,
the Parallel API, episode caps, lifecycle, any action value, stable infos, errors across processes."""

from __future__ import annotations

import pickle
import warnings
from functools import partial

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test, state_test
from pettingzoo.utils.env_logger import EnvLogger

import concordia_env
from concordia_env import Game, IllegalActionError, ResetNeededError, SingleAgentEnv, raw_env
from concordia_env.engine import actions as A
from concordia_env.engine import maps
from concordia_env.engine.position import PositionError

#: the smallest player count of each map, so that every map's games stay short
SMALL = {name: min(maps.load(name).players) for name in maps.MAP_NAMES}
#: action values of every kind that are never legal
BAD_ACTIONS = [
    2**63,
    -(2**63) - 1,
    10**40,
    -1,
    A.NUM_ACTIONS,
    None,
    1.5,
    np.float32(2.0),
    "3",
    True,
    [1],
    np.array([1, 2]),
]


# --------------------------------------------------------------------------- PettingZoo's tests
@pytest.mark.parametrize("map_name", maps.MAP_NAMES)
def test_pettingzoo_test_suite_on_every_map(map_name: str) -> None:
    n = SMALL[map_name]
    make = partial(concordia_env.env, map=map_name, num_players=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the Dict observation's two expected warnings
        api_test(make(seed=0), num_cycles=60)
        parallel_api_test(concordia_env.parallel_env(map=map_name, num_players=n, seed=1), num_cycles=60)
        seed_test(make, num_cycles=40)
        state_test(make(seed=2), concordia_env.parallel_env(map=map_name, num_players=n), num_cycles=20)
        render_test(partial(make, seed=3))


def test_parallel_env_is_turn_based() -> None:
    par = concordia_env.parallel_env(map="italia", num_players=2, seed=0)
    observations, infos = par.reset(seed=4)
    game = par.unwrapped.game
    assert np.array_equal(game.state, Game.new("italia", 2, seed=4).state)
    decider = f"player_{game.current_player}"
    assert set(observations) == {"player_0", "player_1"}
    assert observations[decider]["action_mask"].any()
    assert not any(observations[a]["action_mask"].any() for a in observations if a != decider)
    legal = np.flatnonzero(observations[decider]["action_mask"])
    actions = {a: int(legal[0]) if a == decider else 0 for a in par.agents}
    _, _, _, _, infos = par.step(actions)
    assert par.unwrapped.game.decision_count == 1
    assert infos[f"player_{par.unwrapped.game.current_player}"]["active_agent"] == par.aec_env.agent_selection


# --------------------------------------------------------------------------- caps
def test_max_cycles_truncates_the_parallel_env_after_that_many_steps() -> None:
    """The parallel half of pettingzoo.test.max_cycles_test, as written there."""
    max_cycles = 4
    par = concordia_env.parallel_env(max_cycles=max_cycles)
    par.reset()
    terminations = dict.fromkeys(par.agents, False)
    truncations = dict.fromkeys(par.agents, False)
    for step in range(max_cycles + 10):  # noqa: B007 (used after the loop)
        actions = {a: par.action_space(a).sample() for a in par.agents if not (terminations[a] or truncations[a])}
        _, _, terminations, truncations, _ = par.step(actions)
        if all(x or y for x, y in zip(terminations.values(), truncations.values(), strict=True)):
            break
    assert step + 1 == max_cycles
    assert all(truncations.values()) and not any(terminations.values())


@pytest.mark.parametrize("cap", ["max_cycles", "max_turns"])
def test_caps_truncate_every_agent_without_a_winner(cap: str) -> None:
    e = concordia_env.env(map="italia", num_players=2, reward="score_delta", **{cap: 9})
    e.reset(seed=1)
    rng = np.random.default_rng(0)
    seen: dict[str, tuple] = {}
    for agent in e.agent_iter():
        obs, _, terminated, truncated, info = e.last()
        if terminated or truncated:
            seen[agent] = (terminated, truncated, info)
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game = e.unwrapped.game
    assert not game.is_over()
    assert (game.decision_count if cap == "max_cycles" else game.turn_count) == 9
    assert set(seen) == {"player_0", "player_1"}
    for terminated, truncated, info in seen.values():
        assert truncated and not terminated
        assert info["winner"] == "" and set(info["final_scores"].values()) == {0}
    assert not e.agents


def test_only_tribune_policy_ends_by_the_cap() -> None:
    """A policy that repeats one card never ends a game by the rules; the caps end its episodes."""
    e = concordia_env.env(map="imperium", num_players=3, max_turns=60)
    e.reset(seed=0)
    decisions = 0
    for _agent in e.agent_iter(10_000):
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[0]))  # always the first legal action: "play the Tribune" or "done"
        decisions += 1
    assert not e.agents and decisions < 10_000
    env = gymnasium.make("Concordia-v1", map="italia", num_players=2)
    assert env.spec.max_episode_steps == concordia_env.MAX_EPISODE_STEPS


def test_bad_caps_are_refused() -> None:
    with pytest.raises(ValueError, match="max_cycles"):
        concordia_env.env(max_cycles=0)
    with pytest.raises(TypeError, match="max_turns"):
        concordia_env.env(max_turns="10")
    with pytest.raises(TypeError, match="max_turns"):
        SingleAgentEnv(max_turns=2.5)


# --------------------------------------------------------------------------- lifecycle
def test_step_before_reset_raises_and_changes_nothing() -> None:
    for e in (raw_env(map="italia", num_players=2), concordia_env.env(map="italia", num_players=2)):
        before = e.unwrapped.game.state.copy()
        with pytest.raises(ResetNeededError, match="reset"):
            e.step(int(e.unwrapped.game.legal_actions()[0]))
        assert np.array_equal(e.unwrapped.game.state, before)
    env = SingleAgentEnv(map="italia", num_players=2)
    before = env.game.state.copy()
    with pytest.raises(ResetNeededError, match="reset"):
        env.step(int(env.game.legal_actions()[0]))
    assert np.array_equal(env.game.state, before)
    assert isinstance(ResetNeededError("x"), RuntimeError)
    assert isinstance(ResetNeededError("x"), gymnasium.error.ResetNeeded)


def test_step_after_the_end_follows_pettingzoo() -> None:
    """After every agent's dead step, raw_env.step(None) warns and does nothing (as OrderEnforcingWrapper)."""
    e = raw_env(map="italia", num_players=2, max_cycles=5)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    while e.agents:
        obs, _, terminated, truncated, _ = e.last()
        e.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    state = e.game.state.copy()
    EnvLogger.flush()
    e.step(None)
    assert any("all agents are terminated or truncated" in m for m in EnvLogger.mqueue)
    assert np.array_equal(e.game.state, state) and e.agents == []
    env = SingleAgentEnv(map="italia", num_players=2, max_turns=3)
    env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    with pytest.raises(ResetNeededError, match="over"):
        env.step(0)


# --------------------------------------------------------------------------- any action value
@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_any_action_value_raises_illegal_action_and_changes_nothing(action) -> None:
    raw = raw_env(map="italia", num_players=2)
    wrapped = concordia_env.env(map="italia", num_players=2)  # no AssertionError from a wrapper first
    par = concordia_env.parallel_env(map="italia", num_players=2)
    single = SingleAgentEnv(map="italia", num_players=2, seed=3)
    for e in (raw, wrapped, par, single):
        e.reset(seed=3)
    steps = [
        (raw.game, raw.step),
        (wrapped.unwrapped.game, wrapped.step),
        (par.unwrapped.game, lambda a: par.step(dict.fromkeys(par.agents, a))),
        (single.game, single.step),
    ]
    for game, step in steps:
        before = game.state.copy()
        with pytest.raises(IllegalActionError) as info:
            step(action)
        assert np.array_equal(game.state, before)
        assert len(str(info.value)) < 200


@pytest.mark.parametrize("illegal_action", ["raise", "penalize"])
def test_a_done_agents_only_action_is_none(illegal_action: str) -> None:
    e = concordia_env.env(map="italia", num_players=2, max_cycles=3, illegal_action=illegal_action)
    e.reset(seed=0)
    while not e.terminations[e.agent_selection] and not e.truncations[e.agent_selection]:
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    done, agents = e.agent_selection, list(e.agents)
    for action in (0, 2**63, 1.5):
        with pytest.raises(IllegalActionError):
            e.step(action)
        assert e.agents == agents and e.agent_selection == done, "refused: nothing changed"
    e.step(None)
    assert done not in e.agents


@pytest.mark.parametrize("action", [2**63, A.NUM_ACTIONS, None, 1.5, "3"], ids=repr)
def test_any_action_value_is_penalized(action) -> None:
    for e in (
        raw_env(map="italia", num_players=2, illegal_action="penalize"),
        concordia_env.env(map="italia", num_players=2, illegal_action="penalize"),
    ):
        e.reset(seed=3)
        offender = e.agent_selection
        e.step(action)
        assert all(e.terminations.values()) and all(e.truncations.values())
        assert e.rewards[offender] == -1.0
        assert "illegal action" in e.infos[offender]["illegal_action"]
    env = SingleAgentEnv(map="italia", num_players=2, illegal_action="penalize")
    env.reset(seed=3)
    _, reward, terminated, truncated, info = env.step(action)
    assert reward == -1.0 and terminated and not truncated and "illegal action" in info["illegal_action"]


def test_integer_kinds_that_policies_return_are_accepted() -> None:
    env = SingleAgentEnv(map="italia", num_players=2)
    env.reset(seed=0)
    action = np.flatnonzero(env.action_masks())[0]
    for value in (np.array(action), np.int32(action)):
        env.reset(seed=0)
        env.step(value)


# --------------------------------------------------------------------------- stable infos
def _schema(info: dict) -> dict:
    """Each key's type (and a nested dict's keys): what must stay the same at every step."""
    return {k: (type(v), tuple(v) if isinstance(v, dict) else getattr(v, "shape", None)) for k, v in info.items()}


@pytest.mark.parametrize("how", ["rules", "cap", "illegal"])
def test_pettingzoo_infos_have_one_schema(how: str) -> None:
    options = {"rules": {}, "cap": {"max_cycles": 50}, "illegal": {"illegal_action": "penalize"}}[how]
    e = raw_env(map="creta", num_players=2, **options)
    e.reset(seed=5)
    expected = _schema(e.infos["player_0"])
    assert set(expected) == {"action_mask", "phase", "score_breakdown", "final_scores", "winner", "illegal_action"}
    rng = np.random.default_rng(1)
    while e.agents:
        for info in e.infos.values():
            assert _schema(info) == expected
        obs, _, terminated, truncated, _ = e.last()
        if terminated or truncated:
            e.step(None)
        elif how == "illegal" and e.game.decision_count == 20:
            e.step(A.NUM_ACTIONS - 1 if not obs["action_mask"][-1] else 0)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_gymnasium_infos_have_one_schema() -> None:
    env = SingleAgentEnv(map="italia", num_players=2, seed=0)
    _, info = env.reset(seed=0)
    expected = _schema(info)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[-1]))
        assert _schema(info) == expected
        done = terminated or truncated
    assert info["winner"] in (0, 1) and info["final_scores"].sum() > 0


def test_vector_infos_have_one_schema() -> None:
    vec = concordia_env.VectorGame(4, map="creta", num_players=2, seed=0)
    keys = set(vec.last_infos)
    finished = 0
    for _ in range(600):
        _, dones, infos = vec.step(vec.sample_actions())
        assert set(infos) == keys == {"_final", "final_scores", "final_observation", "final_info"}
        finished += int(dones.sum())
    assert finished > 0


# --------------------------------------------------------------------------- errors across processes
def test_public_exceptions_pickle_with_their_message() -> None:
    err = IllegalActionError(5, "not now", "play the Tribune")
    err.row = 3
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is IllegalActionError and str(back) == str(err)
    assert (back.action, back.reason, back.description, back.row) == (5, "not now", "play the Tribune", 3)
    assert str(type(err)(err)) == str(err), "the copy form in which Gymnasium's AsyncVectorEnv re-raises"
    for other in (ResetNeededError("call reset() first"), PositionError("money: must be >= 0")):
        assert str(pickle.loads(pickle.dumps(other))) == str(other)
    with pytest.raises(TypeError, match="reason"):
        IllegalActionError(5)


def test_async_vector_env_reports_the_real_illegal_action() -> None:
    envs = gymnasium.make_vec("Concordia-v1", num_envs=2, vectorization_mode="async", map="italia", num_players=2)
    try:
        envs.reset(seed=0)
        masks = np.stack(envs.call("action_masks"))
        illegal = np.array([np.flatnonzero(~m)[0] for m in masks])
        with pytest.raises(IllegalActionError, match="illegal action"):
            envs.step(illegal)
    finally:
        envs.close(terminate=True)


# --------------------------------------------------------------------------- seats and turn order
def test_seat_is_a_place_at_the_table_and_the_seed_draws_the_start_player() -> None:
    """Decision: seats are fixed places; the seed draws who starts unless start_player fixes it."""
    starts = {Game.new("italia", 2, seed=s).turn_player for s in range(20)}
    assert starts == {0, 1}
    assert {Game.new("italia", 2, seed=s, start_player=0).turn_player for s in range(5)} == {0}
    e = raw_env(map="italia", num_players=2, start_player=1)
    e.reset(seed=5)
    assert e.agent_selection == "player_1"


def test_play_help_says_seat_is_not_turn_order(capsys: pytest.CaptureFixture[str]) -> None:
    from concordia_env.tools.play import main as play_main

    with pytest.raises(SystemExit):
        play_main(["--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "not the turn order" in help_text and "seed draws who starts" in help_text
