"""The compiled evaluation gives the numbers of the Python evaluation it replaced.

The learned agent's shipped models take the evaluation's values among their features, so
the port must be faithful: on random positions of every map and player count, every
player's value, the share of the game left, the house gains and net values and the needs
equal those of the reference (``tests/reference/evaluation.py``) up to float rounding.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.evaluation import DEFAULT_WEIGHTS as REFERENCE_WEIGHTS
from reference.evaluation import Evaluator, Weights, remaining_fraction

from concordia_env import Game, strategy
from concordia_env.engine.maps import MAX_CITIES
from concordia_env.engine.rules.facts import house_prices
from concordia_env.strategy import evaluation as ev
from concordia_env.strategy.params import params_array

GAMES = [
    ("imperium", 3),
    ("imperium", 4),
    ("imperium", 5),
    ("italia", 2),
    ("italia", 3),
    ("italia", 4),
    ("aegyptus", 2),
    ("aegyptus", 5),
    ("creta", 3),
    ("creta", 5),
]
TOLERANCE = 1e-6


def positions(map_name: str, players: int, seed: int, every: int = 4):
    """Positions of a game of random play, every ``every`` decisions."""
    game = Game.new(map_name, players, seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not game.is_over():
        if k % every == 0:
            yield game.clone()
        game.step(int(rng.choice(game.legal_actions())))
        k += 1


def per_player_parts(game: Game, player: int, remaining: float, params: np.ndarray) -> dict[str, np.ndarray]:
    """Gains, net values and needs of one player from the compiled evaluation."""
    s, m = game._state, game.map.tables  # compiled functions take the writable array (one signature)
    facts = np.zeros(ev.NUM_FACTS)
    gains = np.zeros(MAX_CITIES)
    nets = np.zeros(MAX_CITIES)
    money = np.zeros(MAX_CITIES, dtype=np.int64)
    goods = np.zeros((MAX_CITIES, 5), dtype=np.int64)
    needs = np.zeros((2, 5), dtype=np.int64)
    ev.player_facts(s, m, params, player, facts)
    ev.house_gains(s, m, params, player, facts, remaining, gains)
    house_prices(s, m, money, goods)
    ev.house_net_values(s, m, params, player, facts, remaining, gains, money, goods, nets)
    ev.need(s, m, params, player, facts, remaining, gains, goods, needs)
    places = len(game.map.places)
    return {"gains": gains[:places], "nets": nets[:places], "needs": needs}


@pytest.mark.parametrize(("map_name", "players"), GAMES)
def test_values_equal_the_reference(map_name: str, players: int) -> None:
    rng = np.random.default_rng(players)
    checked = 0
    for game in positions(map_name, players, seed=players + 11):
        assert strategy.remaining_fraction(game.state, game.map.tables) == pytest.approx(
            remaining_fraction(game), abs=1e-12
        )
        for remaining in (remaining_fraction(game), float(rng.uniform())):
            reference = Evaluator(game, remaining)
            compiled = strategy.evaluate(game.state, game.map.tables, remaining=remaining)
            np.testing.assert_allclose(compiled, reference.values(), rtol=0, atol=TOLERANCE)
            checked += 1
    assert checked > 40


@pytest.mark.parametrize(("map_name", "players"), GAMES[::3])
def test_gains_net_values_and_needs_equal_the_reference(map_name: str, players: int) -> None:
    params = params_array()
    for game in positions(map_name, players, seed=players, every=9):
        remaining = remaining_fraction(game)
        reference = Evaluator(game, remaining)
        for p in range(players):
            parts = per_player_parts(game, p, remaining, params)
            np.testing.assert_allclose(parts["gains"], reference.house_gains(p), rtol=0, atol=TOLERANCE)
            np.testing.assert_allclose(parts["nets"], reference.house_net_values(p), rtol=0, atol=TOLERANCE)
            assert parts["needs"].tolist() == reference._compute_need(p).tolist()


def test_other_weights_equal_the_reference_too() -> None:
    changes = {"money": 0.7, "economy_fade": 0.2, "future_houses": 8.0, "discard_cost": tuple([0.4] * 14)}
    params = params_array(strategy.Weights(**changes))
    for game in positions("italia", 3, seed=5, every=11):
        for remaining in (0.9, 0.3, 0.05):
            reference = Evaluator(game, remaining, Weights(**changes))
            compiled = strategy.evaluate(game.state, game.map.tables, params, remaining)
            np.testing.assert_allclose(compiled, reference.values(), rtol=0, atol=TOLERANCE)


def test_the_default_weights_are_the_reference_s() -> None:
    assert strategy.DEFAULT_WEIGHTS.__dict__ == REFERENCE_WEIGHTS.__dict__
