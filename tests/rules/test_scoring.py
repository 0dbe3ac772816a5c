"""Final scoring (docs/rules.md §7): VP per god with caps, Minerva values, the tie-break."""

from __future__ import annotations

import numpy as np
import pytest
from builders import (
    add_house,
    clear_colonists,
    new_game,
    play,
    put_colonist,
    set_city_good,
    set_discard,
    set_display,
    set_goods,
    set_hand,
    set_money,
    set_praefectus_magnus,
    set_stack,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_SENATOR, K_TRIBUNE
from concordia_env.engine.rules.scoring import winner

GODS = ("Vesta", "Jupiter", "Saturnus", "Mercurius", "Mars", "Minerva")
MINERVA = {"Mason/I": ("brick", 3), "Farmer/I": ("food", 3), "Smith/I": ("tool", 3)}
MINERVA |= {"Vintner/II": ("wine", 4), "Weaver/II": ("cloth", 5)}
#: one city in each of the twelve Imperium provinces
ONE_CITY_PER_PROVINCE = (
    "Londinium",
    "Massilia",
    "Valentia",
    "Vindobona",
    "Novaria",
    "Carthago",
    "Sirmium",
    "Athenae",
    "Cyrene",
    "Sinope",
    "Tyros",
    "Alexandria",
)
FIFTEEN_CITIES = (*ONE_CITY_PER_PROVINCE, "Isca Dumnoniorum", "Lutetia", "Olisipo")


def scoring_position(hand: list[str], discard: list[str] = ()) -> Game:
    """Player 0 owns exactly these cards, nothing on the board, no money, no goods."""
    game = new_game(4)
    set_hand(game, 0, hand)
    set_discard(game, 0, list(discard))
    clear_colonists(game, 0)
    set_money(game, 0, 0)
    set_goods(game, 0)
    return game


def god(game: Game, name: str, p: int = 0) -> int:
    return game.score_breakdown(p)[name]


@pytest.mark.parametrize(
    ("money", "goods", "vp"),
    [(9, {}, 0), (10, {}, 1), (0, {"wine": 1, "food": 1}, 1), (19, {"brick": 1}, 2), (13, {"cloth": 1}, 2)],
)
def test_vesta_money_plus_goods_value_per_ten(money: int, goods: dict, vp: int) -> None:
    game = scoring_position(["Senator"])
    set_money(game, 0, money)
    set_goods(game, 0, **goods)
    assert god(game, "Vesta") == vp


def test_jupiter_counts_non_brick_houses_per_card() -> None:
    game = scoring_position(["Architect"], discard=["Diplomat", "Consul/II"])
    for city, good in (("Massilia", "cloth"), ("Novaria", "brick"), ("Sirmium", "food"), ("Tyros", "brick")):
        set_city_good(game, city, good)
        add_house(game, 0, city)
    add_house(game, 1, "Lutetia")  # not mine
    assert god(game, "Jupiter") == 3 * 2


def test_jupiter_caps_at_fifteen_per_card() -> None:
    game = scoring_position(["Architect", "Architect/I"])
    for city in FIFTEEN_CITIES:
        set_city_good(game, city, "tool")
        add_house(game, 0, city)
    assert god(game, "Jupiter") == 2 * 15


def test_saturnus_counts_provinces_with_a_house() -> None:
    game = scoring_position(["Prefect", "Prefect", "Prefect/I"], discard=["Diplomat/I"])
    for city in ("Burdigala", "Lutetia", "Massilia", "Sirmium"):  # Gallia x3, Dacia
        add_house(game, 0, city)
    assert god(game, "Saturnus") == 4 * 2


def test_saturnus_all_twelve_provinces() -> None:
    game = scoring_position(["Prefect"])
    for city in ONE_CITY_PER_PROVINCE:
        add_house(game, 0, city)
    assert god(game, "Saturnus") == 12


def test_mercurius_two_per_kind_produced_and_capped_at_ten() -> None:
    game = scoring_position(["Mercator"], discard=["Mercator/I"])
    for city, good in (("Massilia", "cloth"), ("Novaria", "cloth"), ("Sirmium", "food")):
        set_city_good(game, city, good)
        add_house(game, 0, city)
    assert god(game, "Mercurius") == 2 * (2 * 2)
    for city, good in (("Tyros", "brick"), ("Athenae", "tool"), ("Cyrene", "wine")):
        set_city_good(game, city, good)
        add_house(game, 0, city)
    assert god(game, "Mercurius") == 2 * 10


@pytest.mark.parametrize("on_board", range(7))
def test_mars_two_per_colonist_on_the_board(on_board: int) -> None:
    game = scoring_position(["Tribune", "Colonist/I"])
    places = ["Roma", "land:Novaria-Roma", "Massilia", "sea:Massilia-Roma", "Roma", "sea:Carthago-Roma"]
    for slot in range(on_board):
        put_colonist(game, 0, slot, places[slot])
    assert god(game, "Mars") == 2 * min(2 * on_board, 12)


@pytest.mark.parametrize("card", MINERVA)
def test_minerva_value_per_house_in_a_city_of_the_specialists_good(card: str) -> None:
    good, value = MINERVA[card]
    game = scoring_position([card])
    cities = ("Massilia", "Novaria", "Sirmium", "Tyros")
    for city in cities[:3]:
        set_city_good(game, city, good)
        add_house(game, 0, city)
    other = "brick" if good != "brick" else "food"
    set_city_good(game, cities[3], other)
    add_house(game, 0, cities[3])
    assert god(game, "Minerva") == value * 3


def test_cards_in_hand_and_discard_both_score() -> None:
    game = scoring_position(["Tribune"], discard=["Colonist/I", "Colonist/II"])
    put_colonist(game, 0, 0, "Roma")
    assert god(game, "Mars") == 3 * 2


def test_breakdown_sums_to_the_total() -> None:
    game = new_game(4, seed=3)
    for p in range(4):
        parts = game.score_breakdown(p)
        assert parts["total"] == sum(parts[g] for g in GODS) + parts["concordia"]
        assert set(parts) == {*GODS, "concordia", "total"}


def test_starting_position_scores() -> None:
    """Start: Senator (Vesta), 2 colonists on the board (Tribune: Mars), no houses."""
    game = new_game(3, start_player=0)
    goods_value = 3 + 2 * 4 + 5 + 6 + 7
    for p, money in enumerate((5, 6, 7)):
        assert game.score_breakdown(p) == {
            "Vesta": (money + goods_value) // 10,
            "Jupiter": 0,
            "Saturnus": 0,
            "Mercurius": 0,
            "Mars": 4,
            "Minerva": 0,
            "concordia": 0,
            "total": (money + goods_value) // 10 + 4,
        }


# --------------------------------------------------------------------------- tie-break
def test_most_vp_wins() -> None:
    game = new_game(3, start_player=0)
    add_house(game, 1, "Massilia")
    set_city_good(game, "Massilia", "cloth")  # Jupiter x2 (Architect, Diplomat) for player 1
    assert game.ranking()[0] == 1


@pytest.mark.parametrize(("holder", "order"), [(2, [2, 1, 0]), (1, [1, 0, 2]), (0, [0, 2, 1])])
def test_ties_go_to_the_praefectus_magnus_then_passing_right(holder: int, order: list[int]) -> None:
    game = new_game(3, start_player=0)
    for p in range(3):
        set_money(game, p, 1)  # equal scores for all three
    assert len(set(game.scores())) == 1
    set_praefectus_magnus(game, holder)
    assert game.ranking() == order


def test_tie_among_some_players_skips_the_others() -> None:
    game = new_game(4, start_player=0)
    for p in range(4):
        set_money(game, p, 1)
    set_money(game, 3, 40)  # player 3 leads; players 0-2 tie
    set_praefectus_magnus(game, 3)
    assert game.ranking() == [3, 2, 1, 0]
    set_praefectus_magnus(game, 1)
    assert game.ranking()[:1] == [3] and game.ranking()[1:] == [1, 0, 2]


def test_winner_of_a_finished_game_with_a_tie() -> None:
    game = new_game(3, start_player=0)  # the Praefectus Magnus starts with player 2
    for p in range(3):
        set_goods(game, p)
    set_money(game, 0, 1)
    set_money(game, 1, 200)
    set_money(game, 2, 200)
    set_display(game, ["Mason/I"])
    set_stack(game, [])
    set_goods(game, 0, food=1)
    set_hand(game, 0, ["Senator", "Tribune"])
    play(game, K_SENATOR)
    game.step(A.buy_card(0))  # player 0 takes the last card and the Concordia card
    play(game, K_TRIBUNE)  # player 1's final turn (no goods: no colonist to buy)
    play(game, K_TRIBUNE)  # player 2's final turn
    assert game.is_over()
    scores = game.final_scores()
    assert scores[1] == scores[2] > scores[0]
    assert game.winner() == 2
    assert game.ranking() == [2, 1, 0]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_ranking_is_most_vp_then_the_tie_break_order(players: int) -> None:
    """The compiled ranking (``rules.scoring.ranking``) sorts by VP, ties by ``tie_break_order``, at any point."""
    rng = np.random.default_rng(players)
    for seed in range(6):
        game = Game.new("imperium" if players > 2 else "italia", players, seed)
        for p in range(players):
            set_money(game, p, int(rng.integers(0, 3)) * 10)  # many ties
        set_praefectus_magnus(game, int(rng.integers(players)))
        scores, priority = game.scores(), {p: k for k, p in enumerate(game.tie_break_order())}
        assert game.ranking() == sorted(range(players), key=lambda p: (-scores[p], priority[p]))
        assert winner(game.state.copy(), game.map.tables) == game.ranking()[0]  # compiled: a writable state
