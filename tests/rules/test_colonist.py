"""Colonist (docs/rules.md §4.8): settle new colonists in the capital or own-house cities, or tax."""

from __future__ import annotations

import pytest
from builders import (
    add_house,
    clear_colonists,
    colonist_at,
    expect_illegal,
    goods_of,
    legal,
    new_game,
    play,
    put_colonist,
    set_goods,
    set_hand,
    set_money,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_COLONIST
from concordia_env.engine.state import PHASE_COLONIST_SETTLE

LAND, SEA = 0, 1
TAX_BASE = 5


def colonist_position(map_name: str = "imperium", houses: tuple[str, ...] = (), **goods: int) -> Game:
    """Player 0 holds a Colonist card, houses in ``houses``, and these goods."""
    game = new_game(4 if map_name == "imperium" else 3, map=map_name)
    set_hand(game, 0, ["Colonist/I", "Tribune"])
    for city in houses:
        add_house(game, 0, city)
    set_goods(game, 0, **goods)
    return game


def settle(game: Game, kind: int, city: str) -> int:
    return A.settle(kind, game.map.place_index(city))


def settle_targets(game: Game, kind: int) -> set[str]:
    mask = game.legal_mask()
    return {c for c in game.map.places if mask[settle(game, kind, c)]}


def test_settle_in_the_capital_or_a_city_with_an_own_house() -> None:
    game = colonist_position(houses=("Massilia", "Aquileia"), food=2, tool=2)
    add_house(game, 1, "Novaria")  # another player's house does not count
    play(game, K_COLONIST)
    assert settle_targets(game, LAND) == {"Roma", "Massilia", "Aquileia"}
    assert settle_targets(game, SEA) == {"Roma", "Massilia", "Aquileia"}
    expect_illegal(game, settle(game, LAND, "Novaria"))


def test_each_colonist_costs_one_food_and_one_tool() -> None:
    game = colonist_position(houses=("Massilia",), food=2, tool=3, wine=1)
    play(game, K_COLONIST)
    game.step(settle(game, SEA, "Roma"))
    assert game.phase == PHASE_COLONIST_SETTLE
    game.step(settle(game, LAND, "Massilia"))
    assert goods_of(game, 0) == {"brick": 0, "food": 0, "tool": 1, "wine": 1, "cloth": 0}
    assert colonist_at(game, 0, 4) == "Roma" and colonist_at(game, 0, 1) == "Massilia"
    assert game.turn_player == 1, "no food left: the settling ends by itself"


def test_no_settling_without_food_and_tool() -> None:
    game = colonist_position(houses=("Massilia",), food=0, tool=3)
    play(game, K_COLONIST)
    assert not settle_targets(game, LAND) and not settle_targets(game, SEA)
    assert legal(game, A.A_TAX)


def test_several_colonists_incl_two_in_one_city() -> None:
    game = colonist_position(houses=("Massilia",), food=4, tool=4)
    play(game, K_COLONIST)
    game.step(settle(game, LAND, "Massilia"))
    game.step(settle(game, LAND, "Massilia"))
    game.step(settle(game, SEA, "Massilia"))
    assert [colonist_at(game, 0, s) for s in (1, 2, 4)] == ["Massilia"] * 3
    assert goods_of(game, 0)["food"] == 1
    game.step(A.A_DONE)
    assert game.turn_player == 1


def test_a_sea_colonist_needs_a_sea_path_and_a_land_colonist_a_land_path() -> None:
    game = colonist_position(houses=("Novaria",), food=2, tool=2)  # Novaria: land paths only
    play(game, K_COLONIST)
    assert "Novaria" in settle_targets(game, LAND)
    assert "Novaria" not in settle_targets(game, SEA)
    expect_illegal(game, settle(game, SEA, "Novaria"))


def test_a_land_colonist_cannot_go_to_an_island_city() -> None:
    game = colonist_position("italia", houses=("Olbia",), food=2, tool=2)  # Olbia: sea paths only
    play(game, K_COLONIST)
    assert "Olbia" in settle_targets(game, SEA)
    assert "Olbia" not in settle_targets(game, LAND)


def test_no_settling_of_a_kind_with_no_colonist_left_in_the_storehouse() -> None:
    game = colonist_position(food=3, tool=3)
    for slot in (1, 2):
        put_colonist(game, 0, slot, "Roma")
    play(game, K_COLONIST)
    assert not settle_targets(game, LAND)
    assert settle_targets(game, SEA) == {"Roma"}


@pytest.mark.parametrize("on_board", [0, 1, 2, 4, 6])
def test_tax_is_five_plus_one_per_colonist_on_the_board(on_board: int) -> None:
    game = colonist_position(food=1, tool=1)
    clear_colonists(game, 0)
    for slot in range(on_board):
        put_colonist(game, 0, slot, "Roma")
    set_money(game, 0, 3)
    play(game, K_COLONIST)
    game.step(A.A_TAX)
    assert game.money(0) == 3 + TAX_BASE + on_board
    assert game.turn_player == 1


def test_settling_and_tax_exclude_each_other() -> None:
    game = colonist_position(food=2, tool=2)
    play(game, K_COLONIST)
    game.step(settle(game, LAND, "Roma"))
    expect_illegal(game, A.A_TAX)
