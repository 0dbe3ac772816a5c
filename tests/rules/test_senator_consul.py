"""Senator and Consul (docs/rules.md §4.6, §4.7): buying display cards, slot costs, slide and refill."""

from __future__ import annotations

import pytest
from builders import (
    display_ids,
    expect_illegal,
    goods_of,
    legal,
    new_game,
    play,
    set_display,
    set_goods,
    set_hand,
    set_stack,
    stack_size,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import BRICK, CARD_ID, CLOTH, FOOD, GOODS, K_CONSUL, K_SENATOR, TOOL, WINE
from concordia_env.engine.state import PHASE_BUY_CARDS

#: docs/rules.md §4.6, §4.7 / cards.json: extra cost under each display slot (standard side), "any" = a good of choice
SLOT_COST = [[], ["any"], ["any"], ["cloth"], ["cloth"], ["any", "cloth"], ["cloth", "cloth"]]
ALTERNATIVE_SLOT_COST = [[], ["any"], ["any"], ["wine"], ["cloth"], ["any", "wine"], ["wine", "cloth"]]
DISPLAY = ["Mason/I", "Colonist/I", "Architect/I", "Prefect/I", "Smith/I", "Farmer/I", "Mercator/I"]
STACK = ["Diplomat/I", "Architect/II", "Consul/II"]
EMPTY = {"brick": 0, "food": 0, "tool": 0, "wine": 0, "cloth": 0}


def hand_ids(game: Game, p: int) -> list[str]:
    return sorted(CARD_ID[t] for t, n in enumerate(game.hand(p)) for _ in range(n))


def buy_position(display: list[str | None] = DISPLAY, stack: list[str] = STACK, **goods: int) -> Game:
    """Player 0 holds a Senator and a Consul and exactly these goods."""
    game = new_game(4)
    set_hand(game, 0, ["Senator", "Consul/II", "Tribune"])
    set_display(game, display)
    set_stack(game, stack)
    set_goods(game, 0, **goods)
    return game


# --------------------------------------------------------------------------- Senator
@pytest.mark.parametrize("slot", range(7))
def test_senator_pays_the_card_cost_plus_the_slot_cost(slot: int) -> None:
    display = [None] * 7
    display[slot] = "Colonist/I"  # own cost: 1 food
    game = buy_position(display, brick=1, food=1, tool=1, wine=1, cloth=2)
    before = goods_of(game, 0)
    play(game, K_SENATOR)
    any_good = TOOL if "any" in SLOT_COST[slot] else None
    game.step(A.buy_card(slot, any_good))
    expected = {**EMPTY, "food": 1}
    for cost in SLOT_COST[slot]:
        expected["tool" if cost == "any" else cost] += 1
    paid = {g: before[g] - n for g, n in goods_of(game, 0).items()}
    assert paid == expected
    assert "Colonist/I" in hand_ids(game, 0)


@pytest.mark.parametrize("slot", [1, 2, 5])
def test_the_any_good_may_be_any_good_held(slot: int) -> None:
    display = [None] * 7
    display[slot] = "Mason/I"  # own cost: 1 food
    game = buy_position(display, food=1, tool=1, wine=1, cloth=1)
    play(game, K_SENATOR)
    offered = {g for g in range(len(GOODS)) if legal(game, A.buy_card(slot, g))}
    # brick is not held; the food pays the card itself; cloth is also due in slot 6
    expected = {TOOL, WINE} | ({CLOTH} if slot != 5 else set())
    assert offered == expected
    expect_illegal(game, A.buy_card(slot), "'any' good")


def test_a_slot_without_any_refuses_a_payment_variant() -> None:
    game = buy_position(food=3, cloth=3)
    play(game, K_SENATOR)
    assert legal(game, A.buy_card(0))
    expect_illegal(game, A.buy_card(0, FOOD), "no 'any' cost")


def test_senator_buys_up_to_two_then_the_action_ends() -> None:
    game = buy_position(brick=2, food=3, tool=2, wine=1, cloth=0)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))  # Mason/I: 1 food
    assert game.phase == PHASE_BUY_CARDS
    game.step(A.buy_card(2, BRICK))  # Architect/I: 1 tool + any
    assert game.turn_player == 1
    assert {"Mason/I", "Architect/I"} <= set(hand_ids(game, 0))
    assert goods_of(game, 0) == {"brick": 1, "food": 2, "tool": 1, "wine": 1, "cloth": 0}


def test_prices_are_those_of_the_slots_when_the_action_starts() -> None:
    game = buy_position(food=3)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))  # Mason/I from slot 1 for 1 food
    # Colonist/I stays in slot 2 until the action ends, so it still costs food + any
    assert display_ids(game)[:2] == [None, "Colonist/I"]
    expect_illegal(game, A.buy_card(1), "'any' good")
    expect_illegal(game, A.buy_card(0), "holds no card")
    game.step(A.buy_card(1, FOOD))
    assert goods_of(game, 0) == EMPTY, "1 food for the Mason, 1 food + 1 food (any) for the Colonist"


def test_slide_left_and_refill_after_the_action() -> None:
    game = buy_position(food=2, tool=1, brick=1, cloth=1)
    play(game, K_SENATOR)
    game.step(A.buy_card(1, FOOD))  # Colonist/I: food + any
    game.step(A.buy_card(4))  # Smith/I: brick + tool, plus cloth for slot 5
    assert goods_of(game, 0) == EMPTY
    assert display_ids(game) == [
        "Mason/I",
        "Architect/I",
        "Prefect/I",
        "Farmer/I",
        "Mercator/I",
        "Diplomat/I",
        "Architect/II",
    ]
    assert stack_size(game) == 1


def test_buy_zero_cards() -> None:
    game = buy_position(food=5, cloth=5)
    play(game, K_SENATOR)
    assert legal(game, A.A_DONE)
    game.step(A.A_DONE)
    assert display_ids(game) == DISPLAY and stack_size(game) == 3
    assert goods_of(game, 0) == {**EMPTY, "food": 5, "cloth": 5}
    assert game.turn_player == 1


def test_senator_with_nothing_affordable_ends_by_itself() -> None:
    game = buy_position()
    play(game, K_SENATOR)
    assert game.turn_player == 1
    assert display_ids(game) == DISPLAY


def test_refill_only_while_the_stack_lasts() -> None:
    game = buy_position(stack=[], food=3, tool=1)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))
    game.step(A.buy_card(1, FOOD))
    assert display_ids(game) == ["Architect/I", "Prefect/I", "Smith/I", "Farmer/I", "Mercator/I", None, None]
    assert game.concordia_holder is None, "cards are left: no end"


def test_alternative_display_costs() -> None:
    game = new_game(4, display_costs="alternative")
    set_hand(game, 0, ["Senator"])
    display = [None] * 7
    display[3] = "Mason/I"  # slot 4 costs wine on the alternative side
    set_display(game, display)
    set_goods(game, 0, food=1, wine=1)
    play(game, K_SENATOR)
    game.step(A.buy_card(3))
    assert goods_of(game, 0) == EMPTY
    assert ALTERNATIVE_SLOT_COST[3] == ["wine"]


# --------------------------------------------------------------------------- Consul
@pytest.mark.parametrize("slot", range(7))
def test_consul_pays_only_the_cards_own_cost(slot: int) -> None:
    display = [None] * 7
    display[slot] = "Farmer/I"  # own cost: brick + food
    game = buy_position(display, brick=1, food=1)
    play(game, K_CONSUL)
    assert legal(game, A.buy_card(slot))
    game.step(A.buy_card(slot))
    assert goods_of(game, 0) == EMPTY
    assert "Farmer/I" in hand_ids(game, 0)


def test_consul_refuses_an_any_payment_variant() -> None:
    game = buy_position(food=3, tool=3)
    play(game, K_CONSUL)
    expect_illegal(game, A.buy_card(1, TOOL), "own cost")


def test_consul_buys_one_card_only() -> None:
    game = buy_position(food=3, tool=3, brick=3)
    play(game, K_CONSUL)
    game.step(A.buy_card(0))
    assert game.turn_player == 1
    assert display_ids(game)[:2] == ["Colonist/I", "Architect/I"], "slid left after the purchase"
    assert display_ids(game)[6] == "Diplomat/I"


def test_consul_cannot_afford_the_card_itself() -> None:
    game = buy_position(display=["Farmer/I"], stack=[], brick=1, cloth=5)
    play(game, K_CONSUL)
    assert game.turn_player == 1, "nothing affordable: the Consul ends by itself"
