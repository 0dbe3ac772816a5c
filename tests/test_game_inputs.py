"""Bad input to ``Game`` and ``VectorGame`` is refused before compiled code sees it.

* any action value of any type: ``IllegalActionError``, state unchanged;
* options typed strictly (a string is not a bool, a float is not a count; numpy integers
  are counts), ``ArgumentTypeError`` being both a ``TypeError`` and a ``ValueError``;
* every accessor checks its index;
* the raw constructor checks every index-like field of the array;
* ``VectorGame`` takes any integer array layout and refuses floats, bools and wrapping values.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from concordia_env import NUM_ACTIONS, Game, IllegalActionError, VectorGame
from concordia_env.engine.errors import ArgumentTypeError, short_repr
from concordia_env.engine.state import (
    CURRENT_PLAYER,
    DISPLAY,
    MAP_ID,
    NUM_PLAYERS,
    P_COLONISTS,
    P_MONEY,
    PHASE,
    STACK,
    STACK_SIZE,
    STATE_SIZE,
    player_base,
)
from concordia_env.engine.state_check import COUNTER_LIMIT, check_state, field_name


@pytest.fixture
def game() -> Game:
    g = Game.new("italia", 2, seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        g.step(int(rng.choice(g.legal_actions())))
    return g


# =========================================================================== actions
ODD_ACTIONS = [
    2**63,
    2**63 - 1,
    -(2**63) - 1,
    10**5000,
    NUM_ACTIONS,
    -1,
    np.uint64(2**63),
    np.int64(-1),
    1.0,
    float("nan"),
    True,
    np.True_,
    None,
    "3",
    b"3",
    [3],
    np.array([3, 4]),
    np.array(3.0),
    3 + 0j,
]


@pytest.mark.parametrize("action", ODD_ACTIONS, ids=short_repr)
def test_any_action_value_is_illegal_not_a_crash(game: Game, action: object) -> None:
    before = game.state.copy()
    with pytest.raises(IllegalActionError) as info:
        game.step(action)  # type: ignore[arg-type]
    assert np.array_equal(game.state, before)
    assert len(str(info.value)) < 300


def test_integer_types_of_a_legal_action_are_all_accepted(game: Game) -> None:
    a = int(game.legal_actions()[0])
    for value in (a, np.int16(a), np.uint64(a), np.array(a), np.array(a, dtype=np.uint32)):
        trial = game.clone()
        trial.step(value)  # type: ignore[arg-type]
        assert trial.decision_count == game.decision_count + 1


# =========================================================================== options
def test_options_are_typed_strictly() -> None:
    with pytest.raises(TypeError, match="intermediate_scoring must be True or False, got 'false'"):
        Game.new("italia", 2, intermediate_scoring="false")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="intermediate_scoring"):  # the same error is a ValueError too
        Game.new("italia", 2, intermediate_scoring=1)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"start_player must be an integer, got 1\.5"):
        Game.new("imperium", 4, start_player=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"start_player must be in 0\.\.3"):
        Game.new("imperium", 4, start_player=4)
    with pytest.raises(ArgumentTypeError, match="display_costs"):
        Game.new("imperium", 4, display_costs=1)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="seed"):
        Game.new("imperium", 4, seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed"):
        Game.new("imperium", 4, seed=-1)
    with pytest.raises(ArgumentTypeError, match="map"):
        Game.new(4)  # type: ignore[arg-type]
    assert isinstance(ArgumentTypeError("x"), TypeError) and isinstance(ArgumentTypeError("x"), ValueError)
    assert str(pickle.loads(pickle.dumps(ArgumentTypeError("why")))) == "why"


def test_numpy_integers_and_bools_are_accepted_as_options() -> None:
    """np.uint64(4) players once raised OverflowError."""
    expected = Game.new("imperium", 4, seed=5, intermediate_scoring=True, start_player=2)
    same = Game.new("imperium", np.uint64(4), seed=np.int64(5), intermediate_scoring=np.True_, start_player=np.int8(2))
    assert same == expected


# =========================================================================== accessors
@pytest.mark.parametrize(
    "call",
    [
        lambda g: g.money(-1),
        lambda g: g.money(2),
        lambda g: g.hand(-3),
        lambda g: g.goods(7),
        lambda g: g.discard(-1),
        lambda g: g.discard_top(5),
        lambda g: g.colonist_locations(-1),
        lambda g: g.hand_kinds(2),
        lambda g: g.incoming_goods(5),
        lambda g: g.display_price(-1),
        lambda g: g.display_price(7),
        lambda g: g.score_breakdown(True),
        lambda g: g.score_breakdown(2),
        lambda g: g.observation(1.0),
        lambda g: g.observation(-1),
        lambda g: g.describe_action(NUM_ACTIONS),
        lambda g: g.describe_action("3"),
    ],
)
def test_accessors_check_their_index(game: Game, call) -> None:
    """Negative and too large indices once read other fields of the state."""
    before = game.state.copy()
    with pytest.raises(ValueError):
        call(game)
    assert np.array_equal(game.state, before)


def test_accessors_take_numpy_integers(game: Game) -> None:
    assert game.money(np.int64(1)) == game.money(1)
    assert np.array_equal(game.hand(np.array(0)), game.hand(0))
    assert game.score_breakdown(np.uint8(1)) == game.score_breakdown(1)


# =========================================================================== the raw constructor
def _corrupt(game: Game, index: int, value: int) -> np.ndarray:
    state = game.state.copy()
    state[index] = value
    return state


@pytest.mark.parametrize(
    ("index", "value", "field"),
    [
        (MAP_ID, 9, "MAP_ID"),
        (NUM_PLAYERS, 7, "NUM_PLAYERS"),
        (PHASE, 99, "PHASE"),
        (CURRENT_PLAYER, 7, "CURRENT_PLAYER"),
        (DISPLAY, -5, r"DISPLAY\[0\]"),
        (DISPLAY, 2, r"DISPLAY\[0\]"),
        (STACK_SIZE, 1000, "STACK_SIZE"),
        (STACK, 10_000, r"STACK\[0\]"),
        (player_base(1) + P_COLONISTS, 999, r"PLAYERS\[1\].COLONISTS\[0\]"),
        (player_base(0) + P_MONEY, -1, r"PLAYERS\[0\].MONEY"),
        (player_base(0) + P_MONEY, COUNTER_LIMIT + 1, r"PLAYERS\[0\].MONEY"),
        (player_base(3) + P_MONEY, 5, r"PLAYERS\[3\].MONEY"),  # a seat a 2-player game does not have
    ],
)
def test_the_raw_constructor_refuses_fields_out_of_range(game: Game, index: int, value: int, field: str) -> None:
    """Single-field corruptions once crashed the process (segmentation faults)."""
    with pytest.raises(ValueError, match=rf"state {field} \(entry {index}\) is {value}"):
        Game(_corrupt(game, index, value), game.map)


def test_the_raw_constructor_accepts_engine_states_and_normalises_the_array(game: Game) -> None:
    assert Game(game.state.copy(), "italia") == game
    read_only = game.state.copy()
    read_only.setflags(write=False)
    wrapped = Game(read_only, game.map)
    assert wrapped._state.flags.writeable and wrapped == game  # copied: the compiled code writes it
    assert not wrapped.state.flags.writeable  # ...and nobody else (test_state_ownership.py)
    assert Game(game.state.astype(np.int64), game.map) == game
    assert Game(game.state.tolist(), game.map) == game


@pytest.mark.parametrize(
    ("state", "error"),
    [
        (lambda g: g.state.astype(np.float64), ArgumentTypeError),
        (lambda g: g.state.astype(bool), ArgumentTypeError),
        (lambda g: np.append(g.state, 0), ValueError),
        (lambda g: np.where(np.arange(STATE_SIZE) == 0, 2**40, g.state.astype(np.int64)), ValueError),
        (lambda g: "a state", ArgumentTypeError),
    ],
    ids=["floats", "bools", "too long", "beyond int32", "a string"],
)
def test_the_raw_constructor_refuses_arrays_that_are_no_state(game: Game, state, error) -> None:
    with pytest.raises(error):
        Game(state(game), game.map)


def test_field_names_cover_the_layout() -> None:
    assert field_name(PHASE) == "PHASE"
    assert field_name(player_base(2) + P_MONEY) == "PLAYERS[2].MONEY"
    check_state(Game.new("aegyptus", 5, seed=1).state, Game.new("aegyptus", 5, seed=1).map)


# =========================================================================== VectorGame
@pytest.fixture
def vec() -> VectorGame:
    return VectorGame(3, "italia", 2, seed=4)


def _legal(vec: VectorGame) -> np.ndarray:
    return vec.sample_actions(np.random.default_rng(1))


@pytest.mark.parametrize(
    "layout",
    ["int8", "uint16", "uint64", ">i8", "read-only", "strided", "list"],
)
def test_vector_steps_with_any_integer_layout(vec: VectorGame, layout: str) -> None:
    actions = _legal(vec)
    expected = VectorGame(3, "italia", 2, seed=4)
    expected.step(actions)
    if layout == "read-only":
        given: object = actions.copy()
        given.setflags(write=False)  # type: ignore[attr-defined]
    elif layout == "strided":
        given = np.repeat(actions, 2)[::2]
    elif layout == "list":
        given = actions.tolist()
    else:
        given = actions.astype(layout)
    vec.step(given)  # type: ignore[arg-type]
    assert np.array_equal(vec.states, expected.states)


@pytest.mark.parametrize(
    "bad",
    [
        lambda a: a.astype(np.float64),
        lambda a: a.astype(bool),
        lambda a: np.where(np.arange(3) == 0, np.uint64(2**63), a.astype(np.uint64)),  # wraps to a legal index
        lambda a: [2**70, *a[1:].tolist()],
        lambda a: [[1, 2], [3]],
        lambda a: a.astype(object).astype(str),
    ],
    ids=["floats", "bools", "uint64 2**63", "beyond int64", "ragged", "strings"],
)
def test_vector_refuses_non_integer_or_wrapping_actions(vec: VectorGame, bad) -> None:
    before = vec.states.copy()
    with pytest.raises(IllegalActionError):
        vec.step(bad(_legal(vec)))
    assert np.array_equal(vec.states, before)


def test_vector_observations_refuse_float_seats(vec: VectorGame) -> None:
    """[0.9, 1.5] was once truncated to seats 0 and 1."""
    with pytest.raises(TypeError):
        vec.observations([0.9, 1.5, 0.0])
    with pytest.raises(ValueError):
        vec.observations([0, 1])
    assert vec.observations(np.array([0, 1, 1], dtype=np.uint8)).shape[0] == 3


def test_vector_refuses_odd_sizes_and_seeds() -> None:
    with pytest.raises(TypeError):
        VectorGame(True, "italia", 2)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        VectorGame(0, "italia", 2)
    with pytest.raises(TypeError):
        VectorGame(2, "italia", 2, seed=1.5)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        VectorGame(2, "italia", 2, intermediate_scoring="yes")
    vec = VectorGame(np.int64(2), "italia", np.uint8(2), seed=np.uint32(9))
    assert vec.n == 2 and vec.num_players == 2 and vec.game(1) == Game.new("italia", 2, seed=10)


# =========================================================================== observe_batch
def test_observe_batch_checks_states_seats_and_tables(game: Game) -> None:
    from concordia_env.engine.observation import observe_batch

    states = np.stack([game.state, game.state])
    assert observe_batch(states, game.map.tables, np.array([0, 1])).shape[0] == 2
    bad = states.copy()
    bad[1, PHASE] = 99
    with pytest.raises(ValueError, match="PHASE"):
        observe_batch(bad, game.map.tables, np.array([0, 1]))
    with pytest.raises(ValueError, match="seat"):
        observe_batch(states, game.map.tables, np.array([0, 2]))
    with pytest.raises(TypeError):
        observe_batch(states, game.map.tables, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match="tables"):
        observe_batch(states, np.zeros_like(game.map.tables), np.array([0, 1]))


def test_with_state_builds_a_game_of_the_same_map_from_a_state_array() -> None:
    import numpy as np
    import pytest

    from concordia_env import Game

    game = Game.new("italia", 2, seed=1)
    game.step(int(game.legal_actions()[0]))
    state = np.array(game.state)
    for copy in (game.with_state(state), game.with_state(state, check=False)):
        assert copy == game and copy.map is game.map
        assert not np.shares_memory(copy.state, state)  # the copy owns its array
    broken = state.copy()
    broken[:] = -7
    with pytest.raises(ValueError):
        game.with_state(broken)
    with pytest.raises(ValueError, match="shape"):
        game.with_state(state[:5], check=False)
