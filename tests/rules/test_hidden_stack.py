"""The hidden stack's one rule (``rules.hidden.shuffle_hidden_stack``), as the engine and the strategy use it."""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import Game, strategy
from concordia_env.engine.cards import CARD_DECK
from concordia_env.engine.rules.hidden import shuffle_hidden_stack
from concordia_env.engine.state import STACK, STACK_SIZE
from concordia_env.strategy import noise


def stack_of(state: np.ndarray) -> np.ndarray:
    return state[STACK : STACK + int(state[STACK_SIZE])].copy()


@pytest.mark.parametrize(("map_name", "players"), [("italia", 2), ("imperium", 5)])
def test_each_deck_is_shuffled_among_its_own_positions(map_name: str, players: int) -> None:
    game = Game.new(map_name, players, seed=players)
    before = stack_of(game.state)
    rng = np.random.default_rng(0)
    orders = set()
    for _ in range(6):
        state = game.state.copy()
        shuffle_hidden_stack(state, rng.random(len(before)))
        after = stack_of(state)
        assert np.array_equal(CARD_DECK[after], CARD_DECK[before]) and sorted(after) == sorted(before)
        rest = np.ones(len(state), dtype=bool)
        rest[STACK : STACK + len(before)] = False
        assert np.array_equal(state[rest], game.state[rest])
        orders.add(tuple(after))
    assert len(orders) > 1


def test_the_result_does_not_depend_on_the_hidden_order() -> None:
    """The same random numbers give the same stack whatever order the decks were in: nothing to peek through."""
    game = Game.new("italia", 3, seed=4)
    other = game.with_hidden_stack_shuffled(np.random.default_rng(9))
    assert not np.array_equal(stack_of(other.state), stack_of(game.state))
    uniforms = np.random.default_rng(1).random(int(game.state[STACK_SIZE]))
    first, second = game.state.copy(), other.state.copy()
    shuffle_hidden_stack(first, uniforms)
    shuffle_hidden_stack(second, uniforms)
    assert np.array_equal(first, second)


def test_the_engine_and_the_strategy_use_the_same_rule() -> None:
    """``Game.with_hidden_stack_shuffled`` draws numpy's uniforms, ``strategy.determinized`` its own generator's."""
    game = Game.new("creta", 4, seed=2)
    size = int(game.state[STACK_SIZE])
    expected = game.state.copy()
    shuffle_hidden_stack(expected, np.random.default_rng(5).random(size))
    assert np.array_equal(game.with_hidden_stack_shuffled(np.random.default_rng(5)).state, expected)
    rng = strategy.new_rng(8)
    uniforms = np.array([noise.uniform(rng) for _ in range(size)])
    expected = game.state.copy()
    shuffle_hidden_stack(expected, uniforms)
    assert np.array_equal(strategy.determinized(game.state, strategy.new_rng(8)), expected)
