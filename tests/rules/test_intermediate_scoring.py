"""Intermediate scoring (docs/rules.md §8, optional): score at the first Tribune, pay 2/1 once all have."""

from __future__ import annotations

from builders import new_game, play, put_colonist, set_goods, set_money

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_ARCHITECT, K_TRIBUNE
from concordia_env.engine.state import INTERMEDIATE_PAID, P_INTERMEDIATE_DONE, P_INTERMEDIATE_VP, player_base

#: every player at the start: Senator (Vesta) and 2 colonists on the board for the Tribune (Mars 4)
MARS_AT_START = 4
PRIZES = (2, 1)
#: the start's sea colonist (colonist slots: land 0-2, sea 3-5)
SEA_COLONIST_SLOT = 3


def marker(game: Game, p: int) -> int:
    return int(game.state[player_base(p) + P_INTERMEDIATE_VP])


def scored(game: Game, p: int) -> bool:
    return bool(game.state[player_base(p) + P_INTERMEDIATE_DONE])


def intermediate_position(moneys: tuple[int, ...], *, option: bool = True) -> Game:
    """3 players, no goods (so the Tribune offers no colonist); Vesta = money // 10."""
    game = new_game(len(moneys), start_player=0, intermediate_scoring=option)
    for p, money in enumerate(moneys):
        set_money(game, p, money)
        set_goods(game, p)
    return game


def tribune(game: Game) -> None:
    p = game.turn_player
    play(game, K_TRIBUNE)
    assert game.turn_player != p, "no goods: the Tribune offers no colonist and ends"


def test_first_tribune_scores_the_cards_onto_the_marker() -> None:
    game = intermediate_position((50, 30, 10))
    tribune(game)
    assert scored(game, 0) and not scored(game, 1)
    assert marker(game, 0) == 50 // 10 + MARS_AT_START
    assert game.money(0) == 50, "no payout before everyone has scored"


def test_payout_two_and_one_once_everyone_has_scored_then_markers_reset() -> None:
    game = intermediate_position((50, 30, 10))
    tribune(game)
    tribune(game)
    assert marker(game, 1) == 30 // 10 + MARS_AT_START
    assert [game.money(p) for p in range(3)] == [50, 30, 10]
    tribune(game)
    assert [game.money(p) for p in range(3)] == [50 + PRIZES[0], 30 + PRIZES[1], 10]
    assert [marker(game, p) for p in range(3)] == [0, 0, 0]
    assert game.state[INTERMEDIATE_PAID] == 1


def test_the_payout_happens_once() -> None:
    game = intermediate_position((50, 30, 10))
    for _ in range(3):
        tribune(game)
    money = [game.money(p) for p in range(3)]
    for _ in range(3):
        tribune(game)
    assert [game.money(p) for p in range(3)] == money
    assert [marker(game, p) for p in range(3)] == [0, 0, 0]


def test_a_second_tribune_before_the_payout_does_not_score_again() -> None:
    game = intermediate_position((50, 30, 10))
    tribune(game)
    set_money(game, 0, 90)
    play(game, K_ARCHITECT)  # player 1 moves nobody
    game.step(A.A_DONE)
    tribune(game)  # player 2
    tribune(game)  # player 0 again: still the first score counts
    assert marker(game, 0) == 50 // 10 + MARS_AT_START


def test_tied_players_gain_the_amount_of_their_rank() -> None:
    game = intermediate_position((50, 50, 10))
    for _ in range(3):
        tribune(game)
    # [decision] competition ranks: two players tied first both gain 2, nobody is second
    assert [game.money(p) for p in range(3)] == [52, 52, 10]


def test_tie_for_second_place() -> None:
    game = intermediate_position((50, 30, 30))
    for _ in range(3):
        tribune(game)
    assert [game.money(p) for p in range(3)] == [52, 31, 31]


def test_off_by_default() -> None:
    game = intermediate_position((50, 30, 10), option=False)
    for _ in range(3):
        tribune(game)
    assert [game.money(p) for p in range(3)] == [50, 30, 10]
    assert not any(scored(game, p) for p in range(3))


def test_a_colonist_on_a_special_square_is_not_a_card() -> None:
    """Aegyptus: the square's 7 VP are paid at the end (docs/rules.md §9.1), not at the first Tribune."""
    markers = []
    for where in ("sea:Meroe-Napata", "gold"):
        game = new_game(2, map="aegyptus", start_player=0, intermediate_scoring=True)
        for p in range(2):
            set_money(game, p, 0)
            set_goods(game, p)
        put_colonist(game, 0, SEA_COLONIST_SLOT, where)
        play(game, K_TRIBUNE)
        markers.append(marker(game, 0))
    assert markers[0] == markers[1] == MARS_AT_START
    assert game.score_breakdown(0)["total"] > MARS_AT_START, "the square still counts in the final score"
