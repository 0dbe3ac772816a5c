"""Mercator (docs/rules.md §4.4): 3 or 5 sestertii, then trade up to two kinds within money and space."""

from __future__ import annotations

import pytest
from builders import expect_illegal, free_slots, goods_of, legal, new_game, play, set_goods, set_hand, set_money

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import BRICK, CLOTH, FOOD, GOODS, K_MERCATOR, K_MERCATOR_BOUGHT, TOOL, WINE
from concordia_env.engine.state import PHASE_MERCATOR

#: docs/rules.md §1: the fixed bank price of each good
PRICE = {BRICK: 3, FOOD: 4, TOOL: 5, WINE: 6, CLOTH: 7}


def mercator_position(money: int = 20, **goods: int) -> Game:
    """Player 0 holds both Mercators; 4 colonists in the storehouse, so 8 - goods slots are free."""
    game = new_game(4)
    set_hand(game, 0, ["Mercator", "Mercator/I", "Architect"])
    set_money(game, 0, money)
    set_goods(game, 0, **goods)
    return game


def test_starting_mercator_pays_three() -> None:
    game = mercator_position(money=1, wine=1)
    play(game, K_MERCATOR)
    assert game.money(0) == 4
    assert game.phase == PHASE_MERCATOR


def test_bought_mercator_pays_five() -> None:
    game = mercator_position(money=1, wine=1)
    play(game, K_MERCATOR_BOUGHT)
    assert game.money(0) == 6


def test_done_without_trading_keeps_only_the_money() -> None:
    game = mercator_position(money=0, wine=1)
    play(game, K_MERCATOR)
    game.step(A.A_DONE)
    assert game.money(0) == 3 and goods_of(game, 0)["wine"] == 1
    assert game.turn_player == 1


@pytest.mark.parametrize("good", list(PRICE))
def test_sell_and_buy_at_the_fixed_price(good: int) -> None:
    game = mercator_position(money=0, **{GOODS[good]: 2})
    play(game, K_MERCATOR)
    game.step(A.sell(good, 2))
    assert game.money(0) == 3 + 2 * PRICE[good]
    assert game.goods(0)[good] == 0
    other = BRICK if good != BRICK else FOOD
    game.step(A.buy(other, 1))
    assert game.money(0) == 3 + 2 * PRICE[good] - PRICE[other]
    assert game.goods(0)[other] == 1


def test_two_kinds_sold_then_the_action_ends() -> None:
    game = mercator_position(money=0, wine=2, cloth=1, food=1)
    play(game, K_MERCATOR)
    game.step(A.sell(WINE, 2))
    game.step(A.sell(CLOTH, 1))
    assert game.money(0) == 3 + 12 + 7
    assert game.turn_player == 1, "two kinds traded: no third"
    assert goods_of(game, 0)["food"] == 1


def test_two_kinds_bought() -> None:
    game = mercator_position(money=20)
    play(game, K_MERCATOR)
    game.step(A.buy(BRICK, 2))
    game.step(A.buy(TOOL, 1))
    assert goods_of(game, 0) == {"brick": 2, "food": 0, "tool": 1, "wine": 0, "cloth": 0}
    assert game.money(0) == 23 - 6 - 5
    assert game.turn_player == 1


def test_a_third_kind_is_never_offered() -> None:
    game = mercator_position(money=10, wine=1, food=1, cloth=1)
    play(game, K_MERCATOR)
    game.step(A.sell(WINE, 1))
    assert legal(game, A.sell(FOOD, 1)) and legal(game, A.buy(BRICK, 1))
    game.step(A.sell(FOOD, 1))
    assert game.turn_player == 1
    assert goods_of(game, 0)["cloth"] == 1


def test_no_buying_and_selling_the_same_kind() -> None:
    game = mercator_position(money=10, wine=3)
    play(game, K_MERCATOR)
    game.step(A.sell(WINE, 1))
    expect_illegal(game, A.buy(WINE, 1))
    expect_illegal(game, A.sell(WINE, 1))
    assert not any(legal(game, A.buy(WINE, q)) for q in range(1, 13))


def test_no_selling_a_kind_just_bought() -> None:
    game = mercator_position(money=10)
    play(game, K_MERCATOR)
    game.step(A.buy(BRICK, 1))
    expect_illegal(game, A.sell(BRICK, 1))


def test_selling_is_limited_by_the_goods_held() -> None:
    game = mercator_position(money=0, tool=3)
    play(game, K_MERCATOR)
    assert legal(game, A.sell(TOOL, 3))
    expect_illegal(game, A.sell(TOOL, 4), "holds only 3")
    expect_illegal(game, A.sell(FOOD, 1))


def test_buying_is_limited_by_storehouse_space() -> None:
    game = mercator_position(money=100, wine=5)  # 4 colonists + 5 wine: 3 free slots
    assert free_slots(game, 0) == 3
    play(game, K_MERCATOR)
    assert legal(game, A.buy(BRICK, 3))
    expect_illegal(game, A.buy(BRICK, 4))


def test_buying_is_limited_by_money() -> None:
    game = mercator_position(money=11)  # 14 after the Mercator: 2 cloth cost 14, 3 cost 21
    play(game, K_MERCATOR)
    assert legal(game, A.buy(CLOTH, 2))
    expect_illegal(game, A.buy(CLOTH, 3))
    assert legal(game, A.buy(BRICK, 4))
    expect_illegal(game, A.buy(BRICK, 5))


def test_selling_first_frees_space_and_money_for_buying() -> None:
    game = mercator_position(money=0, wine=8)  # storehouse full
    assert free_slots(game, 0) == 0
    play(game, K_MERCATOR)
    assert not legal(game, A.buy(BRICK, 1))
    game.step(A.sell(WINE, 2))
    assert legal(game, A.buy(BRICK, 2))
    expect_illegal(game, A.buy(BRICK, 3))
