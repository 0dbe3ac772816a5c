"""Tribune (docs/rules.md §4.1): take the discard pile back, money beyond 3 cards, one optional colonist."""

from __future__ import annotations

import pytest
from builders import (
    colonist_at,
    expect_illegal,
    goods_of,
    new_game,
    play,
    set_discard,
    set_goods,
    set_hand,
    set_money,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import CARD_ID, K_TRIBUNE
from concordia_env.engine.state import PHASE_PLAY_CARD, PHASE_TRIBUNE_COLONIST

#: the starting cards besides the Tribune, in the order a test "plays" them
OTHER_START_CARDS = ["Architect", "Prefect", "Prefect", "Mercator", "Senator", "Diplomat"]
LAND_COLONIST = A.A_TRIBUNE_COLONIST + 0
SEA_COLONIST = A.A_TRIBUNE_COLONIST + 1


def tribune_position(played: list[str], hand_extra: list[str] = ()) -> Game:
    """Player 0 to move, having played ``played``; the Tribune and the rest in hand."""
    game = new_game(4)
    set_discard(game, 0, played)
    hand = ["Tribune", *hand_extra]
    remaining = list(OTHER_START_CARDS)
    for card in played:
        if card in remaining:
            remaining.remove(card)
    set_hand(game, 0, hand + remaining)
    set_money(game, 0, 10)
    return game


def card_total(game: Game, p: int) -> int:
    return int(game.hand(p).sum() + game.discard(p).sum())


@pytest.mark.parametrize("played", range(len(OTHER_START_CARDS) + 1))
def test_takes_back_every_card_and_gains_one_per_card_beyond_the_third(played: int) -> None:
    game = tribune_position(OTHER_START_CARDS[:played])
    play(game, K_TRIBUNE)
    taken_back = played + 1  # the Tribune itself counts
    assert game.money(0) == 10 + max(0, taken_back - 3)
    assert not game.discard(0).any() and game.discard_top(0) == -1
    hand = {CARD_ID[t]: int(n) for t, n in enumerate(game.hand(0)) if n}
    assert hand == {"Tribune": 1, "Architect": 1, "Prefect": 2, "Mercator": 1, "Senator": 1, "Diplomat": 1}


def test_bought_cards_come_back_too() -> None:
    game = tribune_position(["Architect", "Farmer/I", "Consul/II", "Prefect"], hand_extra=[])
    total = card_total(game, 0)
    play(game, K_TRIBUNE)
    assert game.hand(0)[CARD_ID.index("Farmer/I")] == 1
    assert game.hand(0)[CARD_ID.index("Consul/II")] == 1
    assert card_total(game, 0) == total
    assert game.money(0) == 10 + 2


def test_optional_land_colonist_into_the_capital_costs_food_and_tool() -> None:
    game = tribune_position([])
    set_goods(game, 0, food=1, tool=1, wine=3)
    play(game, K_TRIBUNE)
    assert game.phase == PHASE_TRIBUNE_COLONIST
    assert set(game.legal_actions()) == {LAND_COLONIST, SEA_COLONIST, A.A_DONE}
    game.step(LAND_COLONIST)
    assert colonist_at(game, 0, 1) == "Roma"
    assert goods_of(game, 0) == {"brick": 0, "food": 0, "tool": 0, "wine": 3, "cloth": 0}
    assert game.turn_player == 1 and game.phase == PHASE_PLAY_CARD, "only one colonist, then the turn ends"


def test_sea_colonist_into_the_capital() -> None:
    game = tribune_position([])
    play(game, K_TRIBUNE)
    game.step(SEA_COLONIST)
    assert colonist_at(game, 0, 4) == "Roma"
    assert goods_of(game, 0) == {"brick": 1, "food": 1, "tool": 0, "wine": 1, "cloth": 1}


def test_skipping_the_colonist_changes_nothing_else() -> None:
    game = tribune_position(["Architect"])
    goods = goods_of(game, 0)
    colonists = game.colonist_locations(0)
    play(game, K_TRIBUNE)
    game.step(A.A_DONE)
    assert goods_of(game, 0) == goods
    assert (game.colonist_locations(0) == colonists).all()
    assert game.turn_player == 1


@pytest.mark.parametrize("missing", ["food", "tool"])
def test_no_colonist_without_food_and_tool(missing: str) -> None:
    game = tribune_position([])
    goods = {"food": 1, "tool": 1, "brick": 2}
    goods[missing] = 0
    set_goods(game, 0, **goods)
    play(game, K_TRIBUNE)
    # nothing but "done" is left, so the engine closes the turn by itself
    assert game.turn_player == 1
    assert goods_of(game, 0)["brick"] == 2


def test_colonist_purchase_refused_without_the_goods_when_the_decision_is_open() -> None:
    game = tribune_position([])
    set_goods(game, 0, food=1, tool=1)
    play(game, K_TRIBUNE)
    set_goods(game, 0, food=1, tool=0)  # an edited position: the decision is still open
    expect_illegal(game, LAND_COLONIST)
