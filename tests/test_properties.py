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
    NUM_START_TYPES,
    START_HAND_COUNTS,
    STOREHOUSE_SLOTS,
)
from concordia_env.engine.state import (
    CONCORDIA_HOLDER,
    DISPLAY,
    LOC_STOREHOUSE,
    P_COLONISTS,
    P_DISCARD,
    P_GOODS,
    P_HAND,
    P_MONEY,
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


def player_blocks(game: Game) -> np.ndarray:
    """The players' blocks of the state as an (n, PLAYER_SIZE) view."""
    n = game.num_players
    return game.state[PLAYERS : PLAYERS + n * PLAYER_SIZE].reshape(n, PLAYER_SIZE)


def expected_sale_cards(players: int) -> np.ndarray:
    """1 for every sale card of the decks in use (I..players), 0 for the removed decks."""
    return (CARD_DECK[NUM_START_TYPES:] <= players).astype(np.int64)


EXPECTED_SALE_CARDS = {n: expected_sale_cards(n) for n in range(2, 6)}
assert P_GOODS == P_MONEY + 1, "money and goods are checked as one slice"


def check_invariants(game: Game) -> None:
    """The limits of docs/rules.md §1/§5 and conservation of cards, for every player at once."""
    s = game.state
    n = game.num_players
    blocks = player_blocks(game)
    # money >= 0 and goods >= 0
    assert blocks[:, P_MONEY : P_GOODS + NUM_GOODS].min() >= 0
    stored_colonists = (blocks[:, P_COLONISTS : P_COLONISTS + COLONISTS_PER_PLAYER] == LOC_STOREHOUSE).sum(axis=1)
    assert (blocks[:, P_GOODS : P_GOODS + NUM_GOODS].sum(axis=1) + stored_colonists).max() <= STOREHOUSE_SLOTS
    assert game.houses().sum(axis=1).max() <= HOUSES_PER_PLAYER
    owned = blocks[:, P_HAND : P_HAND + NUM_CARD_TYPES] + blocks[:, P_DISCARD : P_DISCARD + NUM_CARD_TYPES]
    # every player keeps exactly their seven starting cards
    assert (owned[:, :NUM_START_TYPES] == START_HAND_COUNTS[:NUM_START_TYPES]).all()
    # every sale card of the decks in use exists exactly once (hands, discards, display, stack)
    display = s[DISPLAY : DISPLAY + DISPLAY_SLOTS]
    placed = np.concatenate((display[display >= 0], s[STACK : STACK + s[STACK_SIZE]]))
    sale_counts = owned.sum(axis=0) + np.bincount(placed, minlength=NUM_CARD_TYPES)
    assert np.array_equal(sale_counts[NUM_START_TYPES:], EXPECTED_SALE_CARDS[n])
    if game.is_over():
        assert 0 <= s[CONCORDIA_HOLDER] < n
        assert not game.legal_mask().any()
    else:
        assert game.legal_mask().any(), "a position without a legal action"


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
    game = Game.new(map_name, players, seed=seed)
    rng = np.random.default_rng(policy_seed)
    for decision in range(MAX_DECISIONS):
        check_invariants(game)
        if game.is_over():
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
