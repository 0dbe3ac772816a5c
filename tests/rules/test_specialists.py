"""Specialists (docs/rules.md §4.9): every own house in a city of the card's good produces one unit."""

from __future__ import annotations

import pytest
from builders import (
    add_house,
    goods_of,
    marker_coin_side,
    new_game,
    play,
    set_city_good,
    set_goods,
    set_hand,
    set_praefectus_magnus,
)

from concordia_env import Game
from concordia_env.engine.cards import K_FARMER, K_MASON, K_SMITH, K_VINTNER, K_WEAVER

SPECIALISTS = {
    "Mason/I": (K_MASON, "brick"),
    "Farmer/I": (K_FARMER, "food"),
    "Smith/I": (K_SMITH, "tool"),
    "Vintner/II": (K_VINTNER, "wine"),
    "Weaver/II": (K_WEAVER, "cloth"),
}
EMPTY = {"brick": 0, "food": 0, "tool": 0, "wine": 0, "cloth": 0}
#: cities of one province each, so a specialist's production cannot be confused with a Prefect's
CITY_GOODS = {
    "Londinium": "brick",
    "Lutetia": "food",
    "Olisipo": "tool",
    "Vindobona": "wine",
    "Novaria": "cloth",
    "Carthago": "brick",
    "Napoca": "food",
    "Athenae": "tool",
    "Cyrene": "wine",
    "Sinope": "cloth",
}


def specialist_position(card: str) -> Game:
    """Player 0 holds ``card`` and owns a house in each of the ten cities above; others too."""
    game = new_game(4)
    set_hand(game, 0, [card, "Tribune"])
    for city, good in CITY_GOODS.items():
        set_city_good(game, city, good)
        add_house(game, 0, city)
    add_house(game, 1, "Londinium")
    add_house(game, 1, "Lutetia")
    add_house(game, 2, "Vindobona")
    for p in range(4):
        set_goods(game, p)
    return game


@pytest.mark.parametrize("card", SPECIALISTS)
def test_only_own_houses_of_that_good_produce_and_nobody_else_gets_anything(card: str) -> None:
    kind, good = SPECIALISTS[card]
    game = specialist_position(card)
    markers = [marker_coin_side(game, p) for p in game.map.provinces]
    play(game, kind)
    own = sum(1 for g in CITY_GOODS.values() if g == good)
    assert goods_of(game, 0) == {**EMPTY, good: own}
    for other in (1, 2, 3):
        assert goods_of(game, other) == EMPTY
    assert [marker_coin_side(game, p) for p in game.map.provinces] == markers, "no bonus marker is involved"
    assert game.turn_player == 1


def test_a_specialist_ignores_the_praefectus_magnus() -> None:
    game = specialist_position("Smith/I")
    set_praefectus_magnus(game, 0)
    play(game, K_SMITH)
    assert goods_of(game, 0)["tool"] == 2
    assert game.praefectus_magnus == 0


def test_a_specialist_with_no_matching_house_produces_nothing() -> None:
    game = new_game(4)
    set_hand(game, 0, ["Weaver/II"])
    set_city_good(game, "Massilia", "wine")
    add_house(game, 0, "Massilia")
    set_goods(game, 0)
    play(game, K_WEAVER)
    assert goods_of(game, 0) == EMPTY
    assert game.turn_player == 1
