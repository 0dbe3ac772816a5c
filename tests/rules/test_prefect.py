"""Prefect (docs/rules.md §4.3, §5): production, bonus markers, cash bonus, the Praefectus Magnus."""

from __future__ import annotations

import pytest
from builders import (
    add_house,
    expect_illegal,
    goods_of,
    marker_coin_side,
    new_game,
    play,
    set_all_markers_goods_side,
    set_bonus_marker,
    set_city_good,
    set_goods,
    set_money,
    set_praefectus_magnus,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_PREFECT
from concordia_env.engine.state import PHASE_OVERFLOW, PHASE_PLAY_CARD, PHASE_PREFECT

#: docs/rules.md §1: coins on a bonus marker's coin side
MARKER_COINS = {"brick": 2, "food": 2, "tool": 2, "wine": 2, "cloth": 1}
EMPTY = {"brick": 0, "food": 0, "tool": 0, "wine": 0, "cloth": 0}


def prefect_position(pm_holder: int = 3) -> Game:
    """Player 0 to play a Prefect; empty storehouses (10 free slots), Germania: tool and food cities."""
    game = new_game(4)
    for p in range(4):
        set_goods(game, p)
        set_money(game, p, 0)
    set_praefectus_magnus(game, pm_holder)
    set_city_good(game, "Colonia Agrippina", "tool")
    set_city_good(game, "Vindobona", "food")
    set_bonus_marker(game, "Germania", "tool")
    return game


def produce(game: Game, province: str) -> None:
    play(game, K_PREFECT)
    game.step(A.A_PRODUCE + game.map.province_index(province))


def test_production_gives_the_bonus_and_every_house_in_the_province_produces() -> None:
    game = prefect_position()
    add_house(game, 0, "Vindobona")
    add_house(game, 1, "Colonia Agrippina")
    add_house(game, 2, "Colonia Agrippina")
    add_house(game, 2, "Vindobona")
    add_house(game, 3, "Aquileia")  # another province: produces nothing
    produce(game, "Germania")
    assert goods_of(game, 0) == {**EMPTY, "tool": 1, "food": 1}
    assert goods_of(game, 1) == {**EMPTY, "tool": 1}
    assert goods_of(game, 2) == {**EMPTY, "tool": 1, "food": 1}
    assert goods_of(game, 3) == EMPTY
    assert game.turn_player == 1 and game.phase == PHASE_PLAY_CARD


def test_production_needs_no_house_of_the_producer() -> None:
    game = prefect_position()
    produce(game, "Germania")
    assert goods_of(game, 0) == {**EMPTY, "tool": 1}


def test_production_turns_the_marker_to_its_coin_side_and_then_it_cannot_produce() -> None:
    game = prefect_position()
    produce(game, "Germania")
    assert marker_coin_side(game, "Germania")
    # player 1 may not produce there now
    play(game, K_PREFECT)
    assert game.phase == PHASE_PREFECT
    expect_illegal(game, A.A_PRODUCE + game.map.province_index("Germania"), "coin side")
    assert game.legal_mask()[A.A_PRODUCE + game.map.province_index("Italia")]


def test_cash_bonus_pays_the_visible_coins_and_resets_the_markers() -> None:
    game = prefect_position()
    set_all_markers_goods_side(game)
    coin_markers = {"Germania": "tool", "Syria": "cloth", "Hispania": "brick", "Asia": "wine"}
    for province, good in coin_markers.items():
        set_bonus_marker(game, province, good, coin_side=True)
    set_money(game, 0, 4)
    play(game, K_PREFECT)
    game.step(A.A_CASH)
    assert game.money(0) == 4 + sum(MARKER_COINS[g] for g in coin_markers.values())
    assert not any(marker_coin_side(game, p) for p in game.map.provinces)
    assert goods_of(game, 0) == EMPTY


def test_cash_bonus_with_no_coins_visible_pays_nothing() -> None:
    game = prefect_position()
    set_all_markers_goods_side(game)
    play(game, K_PREFECT)
    assert game.legal_mask()[A.A_CASH]
    game.step(A.A_CASH)
    assert game.money(0) == 0


@pytest.mark.parametrize("good", list(MARKER_COINS))
def test_each_marker_pays_its_coins(good: str) -> None:
    game = prefect_position()
    set_all_markers_goods_side(game)
    set_bonus_marker(game, "Gallia", good, coin_side=True)
    play(game, K_PREFECT)
    game.step(A.A_CASH)
    assert game.money(0) == MARKER_COINS[good]


def test_praefectus_magnus_doubles_the_bonus_only_and_passes_right_at_the_end_of_the_turn() -> None:
    game = prefect_position(pm_holder=0)
    add_house(game, 0, "Colonia Agrippina")
    produce(game, "Germania")
    assert goods_of(game, 0) == {**EMPTY, "tool": 2 + 1}, "2 bonus units, the house still produces 1"
    assert game.praefectus_magnus == 3, "passed to the right: the previous player in turn order"


def test_praefectus_magnus_passes_only_when_the_turn_ends() -> None:
    game = prefect_position(pm_holder=0)
    # player 2 receives two kinds with one free slot: a decision inside player 0's turn
    add_house(game, 2, "Colonia Agrippina")
    add_house(game, 2, "Vindobona")
    set_goods(game, 2, brick=7)
    produce(game, "Germania")
    assert game.phase == PHASE_OVERFLOW and game.current_player == 2
    assert game.praefectus_magnus == 0, "still held while the turn goes on"
    game.step(A.A_GOOD + 1)  # keep the food
    assert game.turn_player == 1
    assert game.praefectus_magnus == 3


def test_non_holder_gets_one_bonus_unit_and_the_card_stays() -> None:
    game = prefect_position(pm_holder=2)
    produce(game, "Germania")
    assert goods_of(game, 0)["tool"] == 1
    assert game.praefectus_magnus == 2


def test_cash_bonus_neither_uses_nor_passes_the_praefectus_magnus() -> None:
    game = prefect_position(pm_holder=0)
    set_bonus_marker(game, "Gallia", "food", coin_side=True)
    play(game, K_PREFECT)
    game.step(A.A_CASH)
    assert game.money(0) == 2
    assert game.praefectus_magnus == 0
    assert game.turn_player == 1


def test_praefectus_magnus_wraps_around_from_the_first_seat() -> None:
    game = prefect_position(pm_holder=0)
    produce(game, "Germania")
    assert game.praefectus_magnus == game.num_players - 1


def test_prefect_offers_every_goods_side_province_and_the_cash_bonus() -> None:
    game = prefect_position()
    set_all_markers_goods_side(game)
    set_bonus_marker(game, "Syria", "cloth", coin_side=True)
    play(game, K_PREFECT)
    mask = game.legal_mask()
    offered = {name for v, name in enumerate(game.map.provinces) if mask[A.A_PRODUCE + v]}
    assert offered == set(game.map.provinces) - {"Syria"}
    assert mask[A.A_CASH]
    assert not mask[A.A_DONE], "the Prefect must choose production or the cash bonus"
