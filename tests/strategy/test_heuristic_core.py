"""The heuristic on the compiled strategy core: legal play everywhere, reproducible, blind to the hidden stack."""

from __future__ import annotations

import math

import numpy as np
import pytest

from concordia_env import Game, agents, strategy
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.engine.state import PHASE_PLAY_CARD, STACK, STACK_SIZE

#: every map with every player count it allows
SETUPS = [
    ("imperium", 3),
    ("imperium", 4),
    ("imperium", 5),
    ("italia", 2),
    ("italia", 3),
    ("italia", 4),
    ("aegyptus", 2),
    ("aegyptus", 3),
    ("aegyptus", 4),
    ("aegyptus", 5),
    ("creta", 2),
    ("creta", 3),
    ("creta", 4),
    ("creta", 5),
]


def play(map_name: str, players: int, seed: int, agent_seed: int = 0) -> list[int]:
    """A whole game of heuristics (strict: an illegal plan raises); the actions taken."""
    game = Game.new(map_name, players, seed)
    seats = [HeuristicAgent(agent_seed + p, strict=True) for p in range(players)]
    actions = []
    while not game.is_over():
        action = seats[game.current_player].act(game)
        game.step(action)
        actions.append(action)
    assert all(agent.fallbacks == 0 for agent in seats)
    return actions


@pytest.mark.parametrize(("map_name", "players"), SETUPS)
def test_plays_only_legal_actions_to_the_end(map_name: str, players: int) -> None:
    assert len(play(map_name, players, seed=players)) > 50


def test_the_same_seed_plays_the_same_game() -> None:
    assert play("creta", 3, seed=1, agent_seed=4) == play("creta", 3, seed=1, agent_seed=4)


def with_other_hidden_order(game: Game, seed: int) -> Game | None:
    """The same position with the hidden stack in another order (each deck's cards in their segment).

    None when no other order is possible (every deck left has one card).
    """
    size = int(game.state[STACK_SIZE])
    for attempt in range(20):
        other = game.with_hidden_stack_shuffled(np.random.default_rng([seed, attempt]))
        if not np.array_equal(other.state[STACK : STACK + size], game.state[STACK : STACK + size]):
            return other
    return None


@pytest.mark.parametrize(("map_name", "players"), [("italia", 2), ("imperium", 4), ("creta", 5)])
def test_decisions_do_not_depend_on_the_hidden_order(map_name: str, players: int) -> None:
    game = Game.new(map_name, players, seed=3)
    driver = HeuristicAgent(0)
    checked = 0
    while not game.is_over():
        other = with_other_hidden_order(game, seed=checked)
        if len(game.legal_actions()) > 1 and other is not None:
            first, second = HeuristicAgent(9), HeuristicAgent(9)
            assert first.act(game) == second.act(other)
            if game.phase == PHASE_PLAY_CARD:  # the whole planned turn, too
                assert first._seat is not None and second._seat is not None
                assert first._seat.planned_actions() == second._seat.planned_actions() != []
                for a, b in zip(first.turn_options(game), second.turn_options(other), strict=True):
                    assert a.plan.actions == b.plan.actions
                    assert a.values.tolist() == b.values.tolist()
            checked += 1
        game.step(driver.act(game))
    assert checked > 30


def test_turn_options_afterstates_show_no_real_card() -> None:
    """Determinized with the same seed, two games that differ only in the hidden order give the same afterstates."""
    game = Game.new("italia", 2, seed=8)
    other = with_other_hidden_order(game, seed=1)
    assert other is not None
    first = strategy.determinized(game.state, strategy.new_rng(5))
    second = strategy.determinized(other.state, strategy.new_rng(5))
    assert np.array_equal(first, second)
    a = strategy.turn_options(first, game.map.tables)
    b = strategy.turn_options(second, game.map.tables)
    assert np.array_equal(a.afterstates, b.afterstates)


def test_determinizing_keeps_each_deck_in_its_segment() -> None:
    game = Game.new("imperium", 5, seed=2)
    size = game.stack_size
    before = game.state[STACK : STACK + size]
    from concordia_env.engine.cards import CARD_DECK

    changed = False
    for seed in range(5):
        after = strategy.determinized(game.state, strategy.new_rng(seed))
        cards = after[STACK : STACK + size]
        assert np.array_equal(CARD_DECK[cards], CARD_DECK[before])
        assert sorted(cards) == sorted(before)
        assert np.array_equal(
            np.delete(after, np.arange(STACK, STACK + size)), np.delete(game.state, np.arange(STACK, STACK + size))
        )
        changed |= not np.array_equal(cards, before)
    assert changed


# --------------------------------------------------------------------------- options
def test_weights_are_checked_when_the_agent_is_made() -> None:
    assert agents.make("heuristic", weights={"money": 0.5}).weights.money == 0.5
    with pytest.raises(ValueError, match="unknown weights"):
        agents.make("heuristic", weights={"monney": 0.5})
    with pytest.raises(ValueError, match="finite"):
        agents.make("heuristic", weights={"money": math.nan})
    with pytest.raises(ValueError, match="finite"):
        agents.make("heuristic", weights={"production": math.inf})
    with pytest.raises(TypeError, match="number"):
        agents.make("heuristic", weights={"money": "0.5"})
    with pytest.raises(TypeError, match="number"):
        agents.make("heuristic", weights={"money": True})
    with pytest.raises(TypeError):
        agents.make("heuristic", weights={"discard_cost": (0.1, 0.2)})
    with pytest.raises(TypeError):
        agents.make("heuristic", weights=[0.4])
    with pytest.raises(ValueError, match="finite"):
        agents.make("heuristic", opponent_weight=math.inf)
    with pytest.raises(TypeError, match="number"):
        agents.make("heuristic", opponent_weight="1")


def test_other_weights_change_the_play() -> None:
    game = Game.new("italia", 2, seed=0)
    greedy = HeuristicAgent(0, weights={"money": 3.0, "need_premium": 2.0}, opponent_weight=0.0)
    plain = HeuristicAgent(0)
    differ = 0
    for _ in range(60):
        if game.is_over():
            break
        differ += greedy.act(game.clone()) != plain.act(game.clone())
        game.step(plain.act(game))
    assert differ > 0
