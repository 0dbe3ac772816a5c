"""The learned agent's features as they were computed before (one ``Game.observation`` per option): the reference.

``concordia_env.agents.learned_model.batch_features`` observes every afterstate of a decision in one compiled
call; ``tests/test_afterstate.py`` checks that it gives these numbers.
"""

from __future__ import annotations

import numpy as np

from concordia_env import Game
from concordia_env.agents.learned_model import MARGIN_SCALE, NUM_FEATURES, OBSERVATION_COLUMNS, VALUE_SCALE, utility
from concordia_env.engine.cards import GOOD_PRICE, NUM_GOODS
from concordia_env.engine.state import MAX_PLAYERS
from concordia_env.strategy.afterstate_scorer import (
    BOARD_INDEX,
    BOARD_SEAT_SIZE,
    HOUSES_SCALE,
    PRODUCTION_SCALE,
    REACH_SCALE,
)


def afterstate_features(game: Game, values: np.ndarray, player: int, remaining: float) -> np.ndarray:
    """The feature vector of the position ``game`` for ``player`` (see ``agents/learned_model.py``)."""
    n = game.num_players
    out = np.zeros(NUM_FEATURES, dtype=np.float32)
    k = len(OBSERVATION_COLUMNS)
    out[:k] = game.observation(player)[OBSERVATION_COLUMNS]
    rotated = np.roll(np.asarray(values, dtype=np.float64), -player)  # relative seats, observer first
    out[k : k + n] = rotated / VALUE_SCALE
    others = rotated[1:]
    out[k + MAX_PLAYERS] = utility(values, player) / MARGIN_SCALE
    out[k + MAX_PLAYERS + 1] = (rotated[0] - others.max()) / MARGIN_SCALE if n > 1 else 0.0
    out[k + MAX_PLAYERS + 2] = remaining
    for j in range(n):
        at = BOARD_INDEX + j * BOARD_SEAT_SIZE
        out[at : at + BOARD_SEAT_SIZE] = seat_board(game, (player + j) % n)
    return out


def seat_board(game: Game, seat: int) -> np.ndarray:
    """One seat's board summary from the game's public queries: houses per good, places per good
    an Architect could build in now, the best production of a province on its goods side."""
    goods = game.city_goods()
    own = game.houses()[seat]
    reach = game.reachable_places(seat)
    names = game.map.places
    province_of = {city: v for v, name in enumerate(game.map.province_names) for city in game.map.provinces[name]}
    houses = np.zeros(NUM_GOODS)
    places = np.zeros(NUM_GOODS)
    production = np.zeros(len(game.map.province_names))
    for c, name in enumerate(names):
        if name not in province_of or goods[c] < 0:  # the capital, special squares
            continue
        if own[c]:
            houses[goods[c]] += 1
            production[province_of[name]] += GOOD_PRICE[goods[c]]
        elif reach[c]:
            places[goods[c]] += 1
    goods_side = [v for v, (_, coin_side) in enumerate(game.bonus_markers()) if not coin_side]
    best = max([production[v] for v in goods_side], default=0.0)
    return np.concatenate([houses / HOUSES_SCALE, places / REACH_SCALE, [best / PRODUCTION_SCALE]])
