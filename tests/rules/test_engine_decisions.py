"""The engine's own decisions where the rules are silent (docs/rules-notes.md)."""

from __future__ import annotations

from builders import (
    new_game,
    play,
    set_discard,
    set_goods,
    set_hand,
    set_money,
    set_turn,
)

from concordia_env.engine import actions as A
from concordia_env.engine.cards import CARD_ID, K_ARCHITECT, K_MERCATOR, K_TRIBUNE
from concordia_env.engine.state import PHASE_PLAY_CARD


def test_the_starting_card_goes_to_the_discard_before_a_bought_one_of_its_kind() -> None:
    game = new_game(3)
    set_hand(game, 0, ["Tribune", "Architect", "Architect/II"])
    play(game, K_ARCHITECT)
    top = game.discard_top(0)
    assert CARD_ID[top] == "Architect"
    assert game.hand(0)[CARD_ID.index("Architect/II")] == 1


def test_a_decision_offering_only_done_closes_by_itself() -> None:
    """Tribune with no food: the optional colonist purchase has nothing to offer."""
    game = new_game(3)
    set_goods(game, 0)
    set_discard(game, 0, ["Prefect"])
    play(game, K_TRIBUNE)
    assert game.turn_player == 1 and game.phase == PHASE_PLAY_CARD


def test_a_mercator_with_nothing_to_trade_ends_after_the_money() -> None:
    game = new_game(3)
    set_goods(game, 0)
    set_money(game, 0, 0)
    # 3 sestertii buy one brick: the trade decision stays open
    play(game, K_MERCATOR)
    assert game.turn_player == 0 and game.legal_mask()[A.buy(0, 1)]
    game2 = new_game(3)
    set_goods(game2, 0, brick=12)  # storehouse full of bricks... but bricks can be sold
    set_turn(game2, 0)
    play(game2, K_MERCATOR)
    assert game2.turn_player == 0
