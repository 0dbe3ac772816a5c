"""Each step's work is done once: Game's cached legal mask, one action check per decision, infos updated in place."""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import Game, IllegalActionError, SingleAgentEnv, env
from concordia_env.engine import game as game_module
from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.maps import MAP_NAMES
from concordia_env.engine.rules.legal import fill_legal
from concordia_env.engine.state import PHASE, PRAEFECTUS_MAGNUS


def fresh_mask(game: Game) -> np.ndarray:
    """The legal mask computed from scratch, the way Game did before it kept one."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    if not game.is_over():
        fill_legal(game.state.copy(), game.map.tables, mask)
    return mask


@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_the_cached_mask_is_always_the_position_s(map_name: str) -> None:
    game = Game.new(map_name, 3 if map_name != "creta" else 2, seed=4)
    rng = np.random.default_rng(0)
    while not game.is_over():
        mask = game.legal_mask()
        assert np.array_equal(mask, fresh_mask(game))
        assert np.array_equal(game.legal_actions(), np.flatnonzero(mask))
        game.step(int(rng.choice(np.flatnonzero(mask))))
    assert not game.legal_mask().any() and game.legal_actions().size == 0


def test_legal_mask_is_a_fresh_array_the_caller_owns() -> None:
    game = Game.new("italia", 2, seed=1)
    first = game.legal_mask()
    first[:] = True  # changes nothing in the game
    second = game.legal_mask()
    assert second is not first and np.array_equal(second, fresh_mask(game))
    game.step(int(game.legal_actions()[0]))
    assert np.array_equal(second, fresh_mask(Game.new("italia", 2, seed=1))), "an earlier mask does not move on"


def test_a_state_written_into_directly_is_never_given_a_stale_mask() -> None:
    game = Game.new("imperium", 4, seed=2)
    for _ in range(12):
        game.step(int(game.legal_actions()[-1]))
    game.legal_mask()  # cached for this position
    game._state[PRAEFECTUS_MAGNUS] = (game._state[PRAEFECTUS_MAGNUS] + 1) % 4
    assert np.array_equal(game.legal_mask(), fresh_mask(game))
    clone = game.clone()
    clone._state[PHASE] = game.state[PHASE]
    assert np.array_equal(clone.legal_mask(), fresh_mask(clone))


def test_an_illegal_action_leaves_state_and_mask_as_they_were() -> None:
    game = Game.new("italia", 2, seed=3)
    before, mask = game.state.copy(), game.legal_mask()
    illegal = int(np.flatnonzero(~mask)[0])
    with pytest.raises(IllegalActionError):
        game.step(illegal)
    assert np.array_equal(game.state, before) and np.array_equal(game.legal_mask(), mask)


@pytest.fixture
def counted_checks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every call of the engine's action check, recorded."""
    calls: list[object] = []
    original = game_module.action_index

    def counting(action: object) -> int:
        calls.append(action)
        return original(action)

    monkeypatch.setattr(game_module, "action_index", counting)
    return calls


def test_one_action_check_per_aec_step(counted_checks: list[object]) -> None:
    aec = env(map="italia", num_players=2)
    aec.reset(seed=0)
    for _ in range(50):
        obs, *_ = aec.last()
        counted_checks.clear()
        aec.step(int(np.flatnonzero(obs["action_mask"])[0]))
        assert len(counted_checks) == 1


def test_one_action_check_per_decision_of_a_gym_step(counted_checks: list[object]) -> None:
    """The learner's action and each opponent decision inside the step are checked once each."""
    single = SingleAgentEnv(opponents="random", map="italia")
    single.reset(seed=0)
    for _ in range(30):
        action = int(np.flatnonzero(single.action_masks())[0])
        decisions = single.game.decision_count
        counted_checks.clear()
        single.step(action)
        assert counted_checks[0] == action
        assert len(counted_checks) == single.game.decision_count - decisions


def test_aec_infos_are_kept_for_the_game_and_updated_where_they_change() -> None:
    aec = env(map="imperium", num_players=4).unwrapped
    aec.reset(seed=1)
    infos = {agent: aec.infos[agent] for agent in aec.agents}
    rng = np.random.default_rng(0)
    for _ in range(200):
        selected = aec.agent_selection
        mask = aec.observe(selected)["action_mask"]
        for agent, info in aec.infos.items():
            assert info is infos[agent], "one info dict per agent for the whole game"
            assert info["phase"] == aec.game.phase_name
            expected = aec.game.legal_mask() if agent == selected else np.zeros(NUM_ACTIONS, dtype=bool)
            assert info["action_mask"].dtype == np.int8 and np.array_equal(info["action_mask"], expected)
        aec.step(int(rng.choice(np.flatnonzero(mask))))


def test_mask_indices_are_flatnonzero_for_any_mask() -> None:
    """The word-wise scan behind ``legal_actions`` on masks of every density, the last entries included."""
    from concordia_env.engine.rules.entry_points import CACHE_LEGAL, cache_mask, mask_indices_into, new_cache

    rng = np.random.default_rng(5)
    cache = new_cache()
    mask, out = cache_mask(cache), cache[CACHE_LEGAL:].view(np.int64)
    for density in (0.0, 0.01, 0.1, 0.5, 1.0):
        for _ in range(20):
            mask[:] = rng.random(NUM_ACTIONS) < density
            mask[-1] = rng.random() < 0.5
            n = mask_indices_into(mask, out)
            assert np.array_equal(out[:n], np.flatnonzero(mask))
