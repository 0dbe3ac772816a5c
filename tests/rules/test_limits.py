"""Limits (docs/rules.md §5): 6 colonists (3 land, 3 sea) and 15 houses per player."""

from __future__ import annotations

from builders import (
    LAND_SLOTS,
    SEA_SLOTS,
    add_house,
    clear_colonists,
    colonists_on_board,
    expect_illegal,
    has_house,
    new_game,
    play,
    put_colonist,
    set_city_good,
    set_goods,
    set_hand,
    set_money,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_ARCHITECT, K_COLONIST, K_TRIBUNE

MAX_HOUSES = 15
#: 15 cities away from Roma-Syracusae-Carthago, where the 15th house would go
FAR_CITIES = (
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
    "Sinope",
)


def all_colonists_on_board(game: Game, p: int) -> None:
    for slot in LAND_SLOTS + SEA_SLOTS:
        put_colonist(game, p, slot, "Roma")


def test_no_seventh_colonist_from_the_tribune() -> None:
    game = new_game(4)
    all_colonists_on_board(game, 0)
    set_goods(game, 0, food=3, tool=3)
    play(game, K_TRIBUNE)
    assert game.turn_player == 1, "no colonist left to buy: the Tribune ends by itself"
    assert colonists_on_board(game, 0) == 6


def test_no_seventh_colonist_from_the_colonist_card() -> None:
    game = new_game(4)
    all_colonists_on_board(game, 0)
    set_hand(game, 0, ["Colonist/I"])
    set_goods(game, 0, food=3, tool=3)
    play(game, K_COLONIST)
    assert set(game.legal_actions()) == {A.A_TAX, A.A_DONE}
    expect_illegal(game, A.settle(0, game.map.place_index("Roma")))


def test_three_land_colonists_at_most() -> None:
    game = new_game(4)
    clear_colonists(game, 0)
    for slot in LAND_SLOTS:
        put_colonist(game, 0, slot, "Roma")
    set_goods(game, 0, food=3, tool=3)
    play(game, K_TRIBUNE)
    assert set(game.legal_actions()) == {A.A_TRIBUNE_COLONIST + 1, A.A_DONE}


def fifteenth_house_position(houses: int) -> Game:
    """Player 0 owns ``houses`` houses far away and a land colonist next to Syracusae."""
    game = new_game(4)
    for city in FAR_CITIES[:houses]:
        add_house(game, 0, city)
    clear_colonists(game, 0)
    put_colonist(game, 0, 0, "land:Roma-Syracusae")
    set_city_good(game, "Syracusae", "brick")
    set_goods(game, 0, food=2)
    set_money(game, 0, 10)
    return game


def test_the_fifteenth_house_may_be_built() -> None:
    game = fifteenth_house_position(MAX_HOUSES - 1)
    play(game, K_ARCHITECT)
    game.step(A.A_BUILD + game.map.place_index("Syracusae"))
    assert has_house(game, 0, "Syracusae")
    assert int(game.houses()[0].sum()) == MAX_HOUSES


def test_no_sixteenth_house() -> None:
    game = fifteenth_house_position(MAX_HOUSES)
    play(game, K_ARCHITECT)
    expect_illegal(game, A.A_BUILD + game.map.place_index("Syracusae"), "all 15 houses")
    assert not any(game.legal_mask()[A.A_BUILD : A.A_BUILD + len(game.map.places)])
