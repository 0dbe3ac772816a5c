"""End of the game (docs/rules.md §6): the trigger, the Concordia card, one final turn for every other player."""

from __future__ import annotations

import numpy as np
import pytest
from builders import (
    add_house,
    clear_colonists,
    expect_illegal,
    new_game,
    play,
    put_colonist,
    set_city_good,
    set_display,
    set_goods,
    set_hand,
    set_money,
    set_stack,
    set_turn,
)

from concordia_env import NUM_ACTIONS, Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_ARCHITECT, K_CONSUL, K_SENATOR, K_TRIBUNE, TOOL
from concordia_env.engine.state import PHASE_GAME_OVER

CONCORDIA_VP = 7
FOURTEEN_CITIES = (
    "Isca Dumnoniorum",
    "Londinium",
    "Burdigala",
    "Lutetia",
    "Brigantium",
    "Olisipo",
    "Valentia",
    "Colonia Agrippina",
    "Vindobona",
    "Napoca",
    "Sirmium",
    "Tomis",
    "Athenae",
    "Cyrene",
)


def take_a_turn(game: Game) -> None:
    """The current player plays the Tribune and buys no colonist."""
    p = game.turn_player
    play(game, K_TRIBUNE)
    if game.turn_player == p and not game.is_over():
        game.step(A.A_DONE)


def last_card_position(display: list[str | None], buyer: int = 1) -> Game:
    """``buyer`` to move with a Senator and a Consul; the stack is empty."""
    game = new_game(4)
    set_display(game, display)
    set_stack(game, [])
    set_turn(game, buyer)
    set_hand(game, buyer, ["Senator", "Consul/II", "Tribune"])
    set_goods(game, buyer, food=4, tool=2)
    return game


def fifteenth_house_position() -> Game:
    game = new_game(4)
    for city in FOURTEEN_CITIES:
        add_house(game, 0, city)
    clear_colonists(game, 0)
    put_colonist(game, 0, 0, "land:Roma-Syracusae")
    set_city_good(game, "Syracusae", "brick")
    set_goods(game, 0, food=2)
    set_money(game, 0, 10)
    return game


def test_buying_the_last_card_gives_the_concordia_card_and_one_final_turn_each() -> None:
    game = last_card_position(["Mason/I"], buyer=1)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))
    assert game.concordia_holder == 1
    assert game.turn_player == 2, "the buyer's turn is over"
    for expected in (2, 3, 0):
        assert not game.is_over()
        assert game.turn_player == expected
        take_a_turn(game)
    assert game.is_over() and game.phase == PHASE_GAME_OVER
    assert game.current_player == -1


def test_a_consul_buying_the_last_card_also_ends_the_game() -> None:
    game = last_card_position(["Mason/I"], buyer=2)
    play(game, K_CONSUL)
    game.step(A.buy_card(0))
    assert game.concordia_holder == 2


def test_senator_buying_the_last_two_cards_ends_the_game() -> None:
    game = last_card_position(["Mason/I", "Colonist/I"], buyer=0)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))
    assert game.concordia_holder is None, "one card is still there"
    game.step(A.buy_card(1, TOOL))
    assert game.concordia_holder == 0


def test_a_card_left_in_the_display_means_no_end() -> None:
    game = last_card_position(["Mason/I", "Smith/I"], buyer=0)
    play(game, K_CONSUL)
    game.step(A.buy_card(0))
    assert game.concordia_holder is None
    assert game.turn_player == 1


def test_the_fifteenth_house_ends_the_game() -> None:
    game = fifteenth_house_position()
    play(game, K_ARCHITECT)
    game.step(A.A_BUILD + game.map.place_index("Syracusae"))
    assert game.concordia_holder == 0
    for expected in (1, 2, 3):
        assert game.turn_player == expected and not game.is_over()
        take_a_turn(game)
    assert game.is_over()


def test_a_second_trigger_during_the_final_turns_changes_nothing() -> None:
    game = fifteenth_house_position()
    play(game, K_ARCHITECT)
    game.step(A.A_BUILD + game.map.place_index("Syracusae"))
    set_display(game, ["Mason/I"])
    set_stack(game, [])
    set_hand(game, 1, ["Senator", "Tribune"])
    set_goods(game, 1, food=2)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))  # player 1 takes the last card in a final turn
    assert game.concordia_holder == 0
    take_a_turn(game)
    take_a_turn(game)
    assert game.is_over()


def test_the_concordia_card_scores_seven_for_its_holder_only() -> None:
    game = fifteenth_house_position()
    before = [game.score_breakdown(p)["concordia"] for p in range(4)]
    play(game, K_ARCHITECT)
    game.step(A.A_BUILD + game.map.place_index("Syracusae"))
    assert before == [0, 0, 0, 0]
    assert [game.score_breakdown(p)["concordia"] for p in range(4)] == [CONCORDIA_VP, 0, 0, 0]


def test_after_the_game_no_action_is_legal() -> None:
    game = last_card_position(["Mason/I"], buyer=3)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))
    for _ in range(3):
        take_a_turn(game)
    assert game.is_over()
    assert not game.legal_mask().any()
    assert len(game.legal_actions()) == 0
    for action in (A.A_PLAY + K_TRIBUNE, A.A_DONE, 0, NUM_ACTIONS - 1):
        expect_illegal(game, action, "game is over")
    scores = game.final_scores()
    assert scores.shape == (4,)
    assert game.winner() in range(4)


def test_final_scores_and_winner_only_once_the_game_is_over() -> None:
    game = new_game(4)
    with pytest.raises(RuntimeError):
        game.final_scores()
    with pytest.raises(RuntimeError):
        game.winner()
    assert np.array_equal(game.scores(), [game.score_breakdown(p)["total"] for p in range(4)])
