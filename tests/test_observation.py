"""The observation vector: fixed size, rotated seats, hidden stack order, values that match the game."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from gymnasium.spaces import Box
from gymnasium.utils.passive_env_checker import _check_box_observation_space

import concordia_env.engine.observation as O
from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine import maps
from concordia_env.engine.cards import (
    CARD_KIND,
    GODS,
    NUM_GOODS,
    NUM_KINDS,
    NUM_SALE_CARDS,
    NUM_START_TYPES,
    STOREHOUSE_SLOTS,
)
from concordia_env.engine.state import (
    COLONISTS_PER_PLAYER,
    INCOMING,
    LOC_STOREHOUSE,
    MAX_CITIES,
    MAX_PLAYERS,
    NUM_PHASES,
    NUM_PLAYERS,
    P_INTERMEDIATE_VP,
    P_MONEY,
    PATH_LOC_BASE,
    PHASE_ARCHITECT_MOVE,
    STACK,
    STACK_SIZE,
    TURN_COUNT,
    player_base,
)
from concordia_env.engine.state_check import COUNTER_LIMIT, MAX_INCOMING


def played(map: str = "imperium", num_players: int = 4, seed: int = 0, decisions: int = 150) -> Game:
    """A game after ``decisions`` random legal decisions (a position with some of everything)."""
    game = Game.new(map, num_players, seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        if game.is_over():
            break
        legal = game.legal_actions()
        game.step(int(legal[rng.integers(len(legal))]))
    return game


def block(obs: np.ndarray, k: int) -> np.ndarray:
    """Relative seat k's player block."""
    start = O.O_PLAYERS + k * O.PLAYER_OBS_SIZE
    return obs[start : start + O.PLAYER_OBS_SIZE]


def field(obs: np.ndarray, offset: int, length: int = 1) -> np.ndarray:
    return obs[offset : offset + length]


def test_every_bound_is_finite_and_holds_the_counters_at_their_limit() -> None:
    """No infinite upper bound (Gymnasium's check_env warns of them); a state at COUNTER_LIMIT still fits."""
    for version in O.OBSERVATION_VERSIONS:
        low, high = O.observation_bounds(version)
        assert np.all(np.isfinite(high)) and np.all(high > 0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _check_box_observation_space(Box(low, high, dtype=np.float32))
    game = played("imperium", 4, seed=2, decisions=60)
    state = game.state.copy()
    state[TURN_COUNT] = COUNTER_LIMIT
    state[INCOMING : INCOMING + int(state[NUM_PLAYERS]) * NUM_GOODS] = MAX_INCOMING
    for p in range(int(state[NUM_PLAYERS])):
        base = player_base(p)
        state[base + P_MONEY] = state[base + P_INTERMEDIATE_VP] = COUNTER_LIMIT
    rich = Game(state, game.map)
    for p in range(4):
        obs = rich.observation(p)
        assert np.all(obs <= O.OBS_HIGH) and block(obs, 0)[O.Q_MONEY] > 1e6


@pytest.mark.parametrize("map_name", maps.MAP_NAMES)
def test_length_dtype_and_bounds_on_every_map_and_player_count(map_name: str) -> None:
    for n in maps.load(map_name).players:
        game = played(map_name, n, seed=n, decisions=120)
        for p in range(n):
            obs = game.observation(p)
            assert obs.shape == (O.OBS_SIZE,) and obs.dtype == np.float32
            assert np.all(np.isfinite(obs))
            assert np.all(obs >= O.OBS_LOW) and np.all(obs <= O.OBS_HIGH)
            assert field(obs, O.O_PLAYER_COUNT, 4).tolist() == [float(n == k) for k in range(2, 6)]
            assert field(obs, O.O_MAP, O.NUM_MAPS).tolist() == [float(m == map_name) for m in maps.MAP_NAMES]
            for k in range(MAX_PLAYERS):  # seats beyond the player count are empty
                assert block(obs, k)[O.Q_PRESENT] == float(k < n)
                if k >= n:
                    assert not block(obs, k).any()


def test_layout_is_contiguous_and_documented() -> None:
    for layout in (O.OBS_LAYOUT, O.PLAYER_OBS_LAYOUT):
        expected = 0
        for name, offset, length, doc in layout.fields:
            assert offset == expected and length > 0 and doc, name
            expected += length
        assert expected == layout.size
    assert O.OBS_SIZE_V0 == O.O_PLAYERS + MAX_PLAYERS * O.PLAYER_OBS_SIZE
    assert O.OBS_SIZE_V1 == O.OBS_SIZE_V0 + COLONISTS_PER_PLAYER * O.SLOT_LOCATIONS
    assert O.OBS_SIZE == O.OBS_SIZES[O.OBSERVATION_VERSION] == O.OBS_SIZE_V1
    versions = [O.OBS_LAYOUT.versions[name] for name, *_ in O.OBS_LAYOUT.fields]
    assert versions == sorted(versions), "fields are only ever appended"
    # the field tables are published where the module docstring points (it is not rewritten at import)
    assert O.describe_observation() in O.observation_md() and "docs/observation.md" in O.__doc__
    assert "| `MONEY` |" in O.describe_observation()


def test_docs_file_is_current() -> None:
    from pathlib import Path

    docs = Path(O.__file__).resolve().parents[2] / "docs" / "observation.md"
    assert docs.read_text() == O.observation_md(), "run `python -m concordia_env.tools.docgen` to refresh it"


@pytest.mark.parametrize(("map_name", "n"), [("italia", 2), ("imperium", 4), ("aegyptus", 5)])
def test_rotation_swaps_the_player_blocks(map_name: str, n: int) -> None:
    game = played(map_name, n, seed=3, decisions=200)
    obs = [game.observation(p) for p in range(n)]
    board = slice(O.O_CITY_GOOD, O.O_PLAYERS)
    for p in range(n):
        assert np.array_equal(obs[p][board], obs[0][board]), "the board looks the same to everyone"
        for q in range(n):
            for k in range(n):
                # relative seat k of p is player (p + k) % n, which is relative seat (p + k - q) % n of q
                assert np.array_equal(block(obs[p], k), block(obs[q], (p + k - q) % n))
    if n == 2:  # the plain statement: two observers see each other's data swapped
        assert np.array_equal(block(obs[0], 0), block(obs[1], 1))
        assert np.array_equal(block(obs[0], 1), block(obs[1], 0))
    assert not np.array_equal(block(obs[0], 0), block(obs[0], 1)), "the position should tell players apart"


def test_seat_references_are_relative() -> None:
    game = played("imperium", 4, seed=5, decisions=37)
    turn, decider = game.turn_player, game.current_player
    for p in range(4):
        obs = game.observation(p)
        assert np.flatnonzero(field(obs, O.O_TURN_SEAT, MAX_PLAYERS)).tolist() == [(turn - p) % 4]
        assert np.flatnonzero(field(obs, O.O_DECIDER_SEAT, MAX_PLAYERS)).tolist() == [(decider - p) % 4]
        assert obs[O.O_OBSERVER_DECIDES] == float(p == decider)


def test_stack_order_is_hidden() -> None:
    game = Game.new("imperium", 4, seed=11)
    size = int(game.state[STACK_SIZE])
    assert size > 2
    edited = game.state.copy()
    rng = np.random.default_rng(0)
    edited[STACK : STACK + size] = rng.permutation(game.state[STACK : STACK + size])
    shuffled = Game(edited, game.map)
    assert not np.array_equal(shuffled.state, game.state)
    for p in range(4):
        assert np.array_equal(game.observation(p), shuffled.observation(p))
    # the composition is shown: removing a card from the stack changes the observation
    edited = game.state.copy()
    edited[STACK_SIZE] -= 1
    edited[STACK + size - 1] = -1  # the stack holds one card fewer (Game checks that entries past the size are -1)
    fewer = Game(edited, game.map)
    assert not np.array_equal(game.observation(0), fewer.observation(0))
    in_stack = field(game.observation(0), O.O_STACK_CARDS, NUM_SALE_CARDS)
    expected = np.zeros(NUM_SALE_CARDS)
    expected[game.state[STACK : STACK + size] - NUM_START_TYPES] = 1
    assert np.array_equal(in_stack, expected)
    assert game.observation(0)[O.O_STACK_SIZE] == pytest.approx(size / NUM_SALE_CARDS)


def test_values_match_the_game_accessors() -> None:
    game = played("imperium", 4, seed=7, decisions=300)
    assert not game.is_over()
    p = 2
    obs = game.observation(p)
    assert np.flatnonzero(field(obs, O.O_PHASE, NUM_PHASES)).tolist() == [game.phase]
    for k in range(4):
        q = (p + k) % 4
        b = block(obs, k)
        assert b[O.Q_MONEY] == pytest.approx(game.money(q) / 50)
        assert np.allclose(b[O.Q_GOODS : O.Q_GOODS + NUM_GOODS], game.goods(q) / STOREHOUSE_SLOTS)
        houses = np.zeros(MAX_CITIES)
        houses[: game.houses().shape[1]] = game.houses()[q]
        assert np.array_equal(b[O.Q_HOUSES : O.Q_HOUSES + MAX_CITIES], houses)
        assert np.allclose(b[O.Q_HAND : O.Q_HAND + NUM_KINDS] * O.KIND_MAX, game.hand_kinds(q))
        breakdown = game.score_breakdown(q)
        assert b[O.Q_SCORE_TOTAL] * 100 == pytest.approx(breakdown["total"])
        gods = b[O.Q_SCORE_PARTS : O.Q_SCORE_PARTS + len(GODS)] * 50
        assert np.allclose(gods, [breakdown[g] for g in GODS])
        assert b[O.Q_PRAEFECTUS_MAGNUS] == float(game.praefectus_magnus == q)
        top = game.discard_top(q)
        top_kind = np.flatnonzero(b[O.Q_DISCARD_TOP : O.Q_DISCARD_TOP + NUM_KINDS]).tolist()
        assert top_kind == ([] if top < 0 else [int(CARD_KIND[top])])
    city_goods = game.city_goods()
    one_hot = field(obs, O.O_CITY_GOOD, MAX_CITIES * NUM_GOODS).reshape(MAX_CITIES, NUM_GOODS)
    for c, g in enumerate(city_goods):
        assert one_hot[c].tolist() == [float(g == k) for k in range(NUM_GOODS)]
    kinds = field(obs, O.O_DISPLAY_KIND, 7 * NUM_KINDS).reshape(7, NUM_KINDS)
    for slot, card in enumerate(game.display()):
        assert np.flatnonzero(kinds[slot]).tolist() == ([] if card < 0 else [int(CARD_KIND[card])])


def test_colonists_are_counted_where_they_stand() -> None:
    game = played("italia", 3, seed=1, decisions=250)
    capital = game.map.place_index(game.map.capital)
    for p in range(3):
        b = block(game.observation(p), 0)
        total = (
            b[O.Q_COLONISTS_STOREHOUSE : O.Q_COLONISTS_STOREHOUSE + 2].sum()
            + b[O.Q_COLONISTS_PLACE : O.Q_COLONISTS_PLACE + 2 * MAX_CITIES].sum()
            + b[O.Q_COLONISTS_PATH : O.Q_COLONISTS_PATH + maps.MAX_PATHS].sum()
        )
        assert total * 3 == pytest.approx(6)
        locations = game.colonist_locations(p)
        in_capital = b[O.Q_COLONISTS_PLACE + 2 * capital : O.Q_COLONISTS_PLACE + 2 * capital + 2] * 3
        assert in_capital.tolist() == pytest.approx(
            [np.sum(locations[:3] == capital), np.sum(locations[3:] == capital)]
        )


def test_batch_equals_single_observations() -> None:
    games = [played("creta", 3, seed=s, decisions=40 + 30 * s) for s in range(5)]
    states = np.stack([g.state for g in games])
    players = np.array([s % 3 for s in range(5)])
    batch = O.observe_batch(states, games[0].map.tables, players)
    for i, game in enumerate(games):
        assert np.array_equal(batch[i], game.observation(int(players[i])))


def test_finished_game_has_no_decider_and_scores_match() -> None:
    game = played("creta", 2, seed=4, decisions=5000)
    assert game.is_over()
    obs = game.observation(0)
    assert not field(obs, O.O_DECIDER_SEAT, MAX_PLAYERS).any() and obs[O.O_OBSERVER_DECIDES] == 0
    assert obs[O.O_END_TRIGGERED] == 1
    assert np.array_equal(O.player_scores(game), game.final_scores())


# --------------------------------------------------------------------------- versions
def slot_locations(obs: np.ndarray) -> np.ndarray:
    """The v1 COLONIST_SLOTS block as (slot, location) rows."""
    return field(obs, O.O_COLONIST_SLOTS, COLONISTS_PER_PLAYER * O.SLOT_LOCATIONS).reshape(
        COLONISTS_PER_PLAYER, O.SLOT_LOCATIONS
    )


@pytest.mark.parametrize("map_name", maps.MAP_NAMES)
def test_v0_is_the_first_entries_of_v1(map_name: str) -> None:
    for n in maps.load(map_name).players:
        game = played(map_name, n, seed=10 + n, decisions=90)
        for p in range(n):
            v1 = O.observe(game, p, version=1)
            v0 = O.observe(game, p, version=0)
            assert v1.shape == (O.OBS_SIZE_V1,) and v0.shape == (O.OBS_SIZE_V0,)
            assert np.array_equal(v0, v1[: O.OBS_SIZE_V0])
            assert np.array_equal(v1, game.observation(p)), "Game.observation gives the current version"
            low, high = O.observation_bounds(0)
            assert np.all(v0 >= low) and np.all(v0 <= high) and low.shape == (O.OBS_SIZE_V0,)
    states = np.stack([game.state, game.state])
    batch0 = O.observe_batch(states, game.map.tables, np.array([0, 1]), version=0)
    assert np.array_equal(batch0[1], O.observe(game, 1, version=0))


@pytest.mark.parametrize(("map_name", "n"), [("italia", 2), ("imperium", 4), ("creta", 5)])
def test_colonist_slots_show_where_each_slot_stands(map_name: str, n: int) -> None:
    game = played(map_name, n, seed=21, decisions=260)
    for p in range(n):
        slots = slot_locations(game.observation(p))
        assert np.array_equal(slots.sum(axis=1), np.ones(COLONISTS_PER_PLAYER)), "exactly one location per slot"
        locations = game.colonist_locations(p)
        assert np.flatnonzero(slots).tolist() == [
            i * O.SLOT_LOCATIONS + int(loc) - LOC_STOREHOUSE for i, loc in enumerate(locations)
        ]
    # the block is the observer's own: another observer sees its own slots there
    if not np.array_equal(game.colonist_locations(0), game.colonist_locations(1)):
        assert not np.array_equal(slot_locations(game.observation(0)), slot_locations(game.observation(1)))


def test_colonist_slots_tell_which_colonist_a_move_moves() -> None:
    """Two MOVE actions of one kind that v0 cannot tell apart are told apart by v1's slot block."""
    found = 0
    for seed in range(40):
        game = Game.new("italia", 2, seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(400):
            if game.is_over():
                break
            legal = game.legal_actions()
            moves = [a for a in legal if A.decode(int(a))[0] == "MOVE"]
            if game.phase == PHASE_ARCHITECT_MOVE and moves:
                p = game.current_player
                for action in moves:
                    slot, path = divmod(int(action) - A.A_MOVE, maps.MAX_PATHS)
                    after = game.clone()
                    after.step(int(action))
                    moved = slot_locations(after.observation(p))[slot]
                    assert np.flatnonzero(moved).tolist() == [PATH_LOC_BASE + path - LOC_STOREHOUSE]
                    found += 1
            game.step(int(legal[rng.integers(len(legal))]))
        if found >= 30:
            break
    assert found >= 30


def test_bad_observation_versions_are_refused() -> None:
    game = Game.new("italia", 2, seed=0)
    with pytest.raises(ValueError, match="observation_version"):
        O.observe(game, 0, version=2)
    with pytest.raises(TypeError, match="observation_version"):
        O.observe(game, 0, version="1")
    with pytest.raises(TypeError, match="observation_version"):
        O.check_observation_version(True)
    assert O.check_observation_version(np.int64(0)) == 0


def test_observe_refuses_a_seat_the_game_does_not_have() -> None:
    """The compiled observation would read past the player arrays: the seat is checked first."""
    from concordia_env.engine.errors import ArgumentTypeError

    game = Game.new("italia", 3, seed=0)
    for bad in (3, -1, 2**40):
        with pytest.raises(ValueError, match=r"player must be in 0\.\.2"):
            O.observe(game, bad)
        with pytest.raises(ValueError, match=r"player must be in 0\.\.2"):
            game.observation(bad)
    for bad in (1.0, True, "1", None):
        with pytest.raises(ArgumentTypeError, match="player must be an integer"):
            O.observe(game, bad)
    assert np.array_equal(O.observe(game, np.int64(2)), game.observation(2))
