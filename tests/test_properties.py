"""Property tests over random games: invariants that must hold in every reachable position.

Hypothesis draws the map, the player count, the setup seed and the seed of the random
player; the game is played to its end with uniformly random legal actions, checking the
invariants after every decision. Thousands of games run in all (see ``GAMES_PER_SETUP``).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from concordia_env import NUM_ACTIONS, Game, IllegalActionError
from concordia_env.engine.cards import (
    CARD_DECK,
    COLONISTS_PER_PLAYER,
    DISPLAY_SLOTS,
    HOUSES_PER_PLAYER,
    NUM_CARD_TYPES,
    NUM_GOODS,
    NUM_SALE_CARDS,
    NUM_START_TYPES,
    START_HAND_COUNTS,
    STOREHOUSE_SLOTS,
)
from concordia_env.engine.maps import MAX_CITIES
from concordia_env.engine.state import (
    CONCORDIA_HOLDER,
    DISPLAY,
    HOUSES,
    LOC_STOREHOUSE,
    P_COLONISTS,
    P_DISCARD,
    P_GOODS,
    P_HAND,
    P_MONEY,
    PHASE,
    PHASE_GAME_OVER,
    PLAYER_SIZE,
    PLAYERS,
    STACK,
    STACK_SIZE,
)

SETUPS = [
    ("imperium", 3),
    ("imperium", 4),
    ("imperium", 5),
    ("italia", 2),
    ("italia", 3),
    ("italia", 4),
    ("aegyptus", 2),
    ("aegyptus", 5),
    ("creta", 2),
    ("creta", 4),
]
#: random games per (map, players): 10 setups x 200 = 2000 games per test run
GAMES_PER_SETUP = 200
#: no random game comes close to this; it only turns a hang into a failure
MAX_DECISIONS = 5000
#: how often (1 in N decisions) the mask is checked against the engine's acceptance
MASK_CHECK_EVERY = 37
#: chance per decision of a JSON round trip (a few random moments per game, plus the end)
ROUND_TRIP_CHANCE = 1 / 150


def player_blocks(states: np.ndarray, n: int) -> np.ndarray:
    """The players' blocks of each state (a (T, STATE_SIZE) array) as a (T, n, PLAYER_SIZE) view."""
    return states[:, PLAYERS : PLAYERS + n * PLAYER_SIZE].reshape(len(states), n, PLAYER_SIZE)


def expected_sale_cards(players: int) -> np.ndarray:
    """1 for every sale card of the decks in use (I..players), 0 for the removed decks."""
    return (CARD_DECK[NUM_START_TYPES:] <= players).astype(np.int64)


EXPECTED_SALE_CARDS = {n: expected_sale_cards(n) for n in range(2, 6)}
assert P_GOODS == P_MONEY + 1, "money and goods are checked as one slice"


def placed_card_counts(states: np.ndarray) -> np.ndarray:
    """(T, NUM_CARD_TYPES): how many of each card type lie on each state's display and stack."""
    rows = np.arange(len(states))[:, None]
    counts = np.zeros((len(states), NUM_CARD_TYPES + 1), dtype=np.int64)  # column 0 counts empty places
    np.add.at(counts, (rows, states[:, DISPLAY : DISPLAY + DISPLAY_SLOTS] + 1), 1)
    stack = states[:, STACK : STACK + NUM_SALE_CARDS]
    in_stack = np.arange(NUM_SALE_CARDS)[None, :] < states[:, STACK_SIZE][:, None]
    np.add.at(counts, (rows, np.where(in_stack, stack + 1, 0)), 1)
    return counts[:, 1:]


def check_invariants(states: np.ndarray, has_legal: np.ndarray, game: Game) -> None:
    """The limits of docs/rules.md §1/§5 and conservation of cards, for every player, in every state of a game.

    ``states`` (T, STATE_SIZE) holds the position at each decision of ``game`` and its end,
    ``has_legal`` whether ``legal_mask()`` offered an action there; checked all at once (the
    same checks as one position at a time: a game checked in under half the time).
    """
    n, places = game.num_players, len(game.map.places)
    blocks = player_blocks(states, n)
    # money >= 0 and goods >= 0
    assert blocks[:, :, P_MONEY : P_GOODS + NUM_GOODS].min() >= 0
    stored_colonists = (blocks[:, :, P_COLONISTS : P_COLONISTS + COLONISTS_PER_PLAYER] == LOC_STOREHOUSE).sum(axis=2)
    assert (blocks[:, :, P_GOODS : P_GOODS + NUM_GOODS].sum(axis=2) + stored_colonists).max() <= STOREHOUSE_SLOTS
    houses = states[:, HOUSES : HOUSES + n * MAX_CITIES].reshape(len(states), n, MAX_CITIES)[:, :, :places] == 1
    assert houses.sum(axis=2).max() <= HOUSES_PER_PLAYER
    owned = blocks[:, :, P_HAND : P_HAND + NUM_CARD_TYPES] + blocks[:, :, P_DISCARD : P_DISCARD + NUM_CARD_TYPES]
    # every player keeps exactly their seven starting cards
    assert (owned[:, :, :NUM_START_TYPES] == START_HAND_COUNTS[:NUM_START_TYPES]).all()
    # every sale card of the decks in use exists exactly once (hands, discards, display, stack)
    sale_counts = owned.sum(axis=1) + placed_card_counts(states)
    assert (sale_counts[:, NUM_START_TYPES:] == EXPECTED_SALE_CARDS[n]).all()
    over = states[:, PHASE] == PHASE_GAME_OVER
    assert not over[:-1].any() and over[-1], "the game ends at its last state, and only there"
    assert 0 <= states[-1, CONCORDIA_HOLDER] < n
    assert not has_legal[-1], "a finished game offers an action"
    assert has_legal[:-1].all(), "a position without a legal action"


def check_mask_is_exact(game: Game, rng: np.random.Generator) -> None:
    """A sampled legal action is accepted; sampled illegal ones are refused with the state unchanged."""
    mask = game.legal_mask()
    legal = np.flatnonzero(mask)
    trial = game.clone()
    trial.step(int(rng.choice(legal)))
    illegal = np.flatnonzero(~mask)
    before = game.state.copy()
    for a in rng.choice(illegal, size=min(8, len(illegal)), replace=False):
        with pytest.raises(IllegalActionError):
            game.step(int(a))
        assert np.array_equal(game.state, before)


def check_round_trip(game: Game) -> None:
    assert Game.from_json(game.to_json()) == game


def play_checked(map_name: str, players: int, seed: int, policy_seed: int) -> Game:
    """A random game to its end, its invariants checked in the position of every decision and at the end."""
    game = Game.new(map_name, players, seed=seed)
    rng = np.random.default_rng(policy_seed)
    states, has_legal = [], []
    for decision in range(MAX_DECISIONS):
        states.append(game.state.copy())
        has_legal.append(game.legal_mask().any())
        if game.is_over():
            check_invariants(np.array(states), np.array(has_legal), game)
            return game
        if decision % MASK_CHECK_EVERY == 0:
            check_mask_is_exact(game, rng)
        if rng.random() < ROUND_TRIP_CHANCE:
            check_round_trip(game)
        legal = game.legal_actions()
        game.step(int(legal[rng.integers(len(legal))]))
    raise AssertionError(f"game did not end within {MAX_DECISIONS} decisions")


@pytest.mark.slow
@pytest.mark.parametrize(("map_name", "players"), SETUPS)
@settings(max_examples=GAMES_PER_SETUP)
@given(seed=st.integers(0, 2**31 - 1), policy_seed=st.integers(0, 2**31 - 1))
def test_random_games_keep_invariants(map_name: str, players: int, seed: int, policy_seed: int) -> None:
    game = play_checked(map_name, players, seed, policy_seed)
    scores = game.final_scores()
    assert len(scores) == players and (scores >= 0).all()
    assert game.winner() in range(players)
    check_round_trip(game)


def test_the_invariant_check_finds_a_broken_position_anywhere_in_a_game() -> None:
    """Checked all at once, a game's states still fail on one bad position, wherever it lies."""
    game = Game.new("italia", 3, seed=5)
    rng = np.random.default_rng(5)
    states = [game.state.copy()]
    while not game.is_over():
        legal = game.legal_actions()
        game.step(int(legal[rng.integers(len(legal))]))
        states.append(game.state.copy())
    good, has_legal = np.array(states), np.array([True] * (len(states) - 1) + [False])
    check_invariants(good, has_legal, game)
    money = PLAYERS + PLAYER_SIZE + P_MONEY  # player 1's money
    last_stacked = int(np.flatnonzero(good[:, STACK_SIZE] > 0)[-1])  # the last position with a card in the stack
    breakages = {  # (what, where) -> the breakage
        ("negative money", len(states) // 2): lambda s, row: s.__setitem__((row, money), -1),
        ("a house too many", len(states) - 2): lambda s, row: s.__setitem__((row, slice(HOUSES, HOUSES + 16)), 1),
        ("a card lost from the stack", 0): lambda s, row: s.__setitem__((row, STACK_SIZE), s[row, STACK_SIZE] - 1),
        ("a card lost from the stack", last_stacked): lambda s, row: s.__setitem__(
            (row, STACK_SIZE), s[row, STACK_SIZE] - 1
        ),
    }
    for (_, row), broken in breakages.items():
        bad = good.copy()
        broken(bad, row)
        with pytest.raises(AssertionError):
            check_invariants(bad, has_legal, game)
    with pytest.raises(AssertionError, match="without a legal action"):
        check_invariants(good, np.r_[has_legal[:5], False, has_legal[6:]], game)


@pytest.mark.parametrize(("map_name", "players"), [("imperium", 4), ("italia", 2), ("aegyptus", 3), ("creta", 5)])
def test_same_seed_and_actions_give_identical_states(map_name: str, players: int) -> None:
    """Determinism: replaying a game's actions from the same seed reproduces every state."""
    rng = np.random.default_rng(7)
    first = Game.new(map_name, players, seed=11)
    actions, states = [], [first.state.copy()]
    while not first.is_over():
        legal = first.legal_actions()
        a = int(legal[rng.integers(len(legal))])
        first.step(a)
        actions.append(a)
        states.append(first.state.copy())
    second = Game.new(map_name, players, seed=11)
    assert np.array_equal(second.state, states[0])
    for a, expected in zip(actions, states[1:], strict=True):
        second.step(a)
        assert np.array_equal(second.state, expected)


def test_different_seeds_give_different_setups() -> None:
    assert Game.new("imperium", 4, seed=1) != Game.new("imperium", 4, seed=2)


def test_action_space_is_one_size() -> None:
    for map_name, players in SETUPS:
        assert len(Game.new(map_name, players, seed=0).legal_mask()) == NUM_ACTIONS
