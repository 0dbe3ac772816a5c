"""Diplomat (docs/rules.md §4.5): copy the top card of an opponent's discard pile."""

from __future__ import annotations

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
    set_bonus_marker,
    set_city_good,
    set_discard,
    set_goods,
    set_hand,
    set_money,
    set_praefectus_magnus,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import CARD_ID, K_DIPLOMAT
from concordia_env.engine.state import (
    PHASE_ARCHITECT_MOVE,
    PHASE_BUY_CARDS,
    PHASE_DIPLOMAT,
    PHASE_MERCATOR,
    PHASE_PREFECT,
    STEPS_LEFT,
)


def copy_target(offset: int) -> int:
    """Action: copy the opponent ``offset`` seats to the left (1 = next player)."""
    return A.A_DIPLOMAT + offset - 1


def diplomat_position() -> Game:
    """Player 0 holds a Diplomat; every discard pile starts empty."""
    game = new_game(4)
    set_hand(game, 0, ["Diplomat", "Architect", "Tribune"])
    return game


def test_not_playable_when_no_opponent_shows_a_copyable_card() -> None:
    game = diplomat_position()
    assert not legal(game, A.A_PLAY + K_DIPLOMAT)
    expect_illegal(game, A.A_PLAY + K_DIPLOMAT, "no opponent")


def test_own_discard_pile_is_not_copyable() -> None:
    game = diplomat_position()
    set_discard(game, 0, ["Prefect"])
    assert not legal(game, A.A_PLAY + K_DIPLOMAT)


def test_a_diplomat_on_top_is_not_copyable() -> None:
    game = diplomat_position()
    set_discard(game, 1, ["Architect", "Diplomat"], top="Diplomat")
    set_discard(game, 2, ["Diplomat/I"], top="Diplomat/I")
    assert not legal(game, A.A_PLAY + K_DIPLOMAT), "neither the starting nor a bought Diplomat"
    set_discard(game, 3, ["Prefect"])
    play(game, K_DIPLOMAT)
    assert game.phase == PHASE_DIPLOMAT
    assert set(game.legal_actions()) == {copy_target(3)}
    expect_illegal(game, copy_target(1), "diplomat cannot copy a diplomat")


def test_an_empty_discard_pile_offers_nothing() -> None:
    game = diplomat_position()
    set_discard(game, 2, ["Senator"])
    play(game, K_DIPLOMAT)
    assert set(game.legal_actions()) == {copy_target(2)}
    expect_illegal(game, copy_target(1), "empty")


def test_any_opponent_may_be_copied_and_the_diplomat_goes_to_the_discard() -> None:
    game = diplomat_position()
    set_discard(game, 1, ["Senator"])
    set_discard(game, 2, ["Prefect"])
    set_discard(game, 3, ["Tribune", "Architect"], top="Architect")
    play(game, K_DIPLOMAT)
    assert set(game.legal_actions()) == {copy_target(1), copy_target(2), copy_target(3)}
    game.step(copy_target(3))
    assert game.phase == PHASE_ARCHITECT_MOVE
    assert game.state[STEPS_LEFT] == 2, "the copier's own colonists give the steps"
    assert CARD_ID[game.discard_top(0)] == "Diplomat"
    assert game.discard(3).sum() == 2 and CARD_ID[game.discard_top(3)] == "Architect", "the copied card stays"


def test_copying_a_starting_mercator_gives_three_and_a_bought_one_five() -> None:
    for top, money in (("Mercator", 3), ("Mercator/II", 5)):
        game = diplomat_position()
        set_money(game, 0, 0)
        set_discard(game, 1, [top])
        play(game, K_DIPLOMAT)
        game.step(copy_target(1))
        assert game.phase == PHASE_MERCATOR
        assert game.money(0) == money, top


def test_copied_prefect_uses_the_copiers_praefectus_magnus() -> None:
    game = diplomat_position()
    set_praefectus_magnus(game, 0)
    set_goods(game, 0)
    set_discard(game, 2, ["Prefect"])
    set_city_good(game, "Colonia Agrippina", "tool")
    set_city_good(game, "Vindobona", "brick")
    set_bonus_marker(game, "Germania", "tool")
    play(game, K_DIPLOMAT)
    game.step(copy_target(2))
    assert game.phase == PHASE_PREFECT
    game.step(A.A_PRODUCE + game.map.province_index("Germania"))
    assert goods_of(game, 0)["tool"] == 2
    assert game.praefectus_magnus == 3


def test_copied_senator_buys_from_the_display() -> None:
    game = diplomat_position()
    set_discard(game, 1, ["Senator"])
    play(game, K_DIPLOMAT)
    game.step(copy_target(1))
    assert game.phase == PHASE_BUY_CARDS


def test_copied_specialist_produces_from_the_copiers_houses() -> None:
    game = diplomat_position()
    set_goods(game, 0)
    set_goods(game, 1)
    set_discard(game, 1, ["Vintner/II"])
    for city in ("Massilia", "Novaria", "Carthago"):
        set_city_good(game, city, "wine")
    add_house(game, 0, "Massilia")
    add_house(game, 0, "Novaria")
    add_house(game, 1, "Carthago")
    play(game, K_DIPLOMAT)
    game.step(copy_target(1))
    assert goods_of(game, 0)["wine"] == 2
    assert goods_of(game, 1)["wine"] == 0, "the copied card's owner gets nothing"
    assert game.turn_player == 1


def test_copied_architect_moves_the_copiers_colonists() -> None:
    game = diplomat_position()
    clear_colonists(game, 0)
    put_colonist(game, 0, 3, "Roma")
    set_discard(game, 1, ["Architect"])
    play(game, K_DIPLOMAT)
    game.step(copy_target(1))
    game.step(A.move(3, game.map.path_index("sea:Massilia-Roma")))
    assert colonist_at(game, 0, 3) == "sea:Massilia-Roma"
    assert CARD_ID[game.discard_top(0)] == "Diplomat"
