"""Storehouse overflow (docs/rules.md §5): the receiving player chooses, filling every free slot."""

from __future__ import annotations

from builders import (
    add_house,
    expect_illegal,
    free_slots,
    goods_of,
    new_game,
    play,
    set_bonus_marker,
    set_city_good,
    set_goods,
    set_hand,
    set_praefectus_magnus,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import CLOTH, FOOD, K_PREFECT, K_VINTNER, TOOL, WINE
from concordia_env.engine.state import PHASE_OVERFLOW

#: 4 colonists in the storehouse at the start: goods of one player fill 8 slots at most
GALLIA = {"Burdigala": "food", "Lutetia": "tool", "Massilia": "wine"}


def overflow_position(pm_holder: int = 3) -> Game:
    """Player 0 to play a Prefect; Gallia's three cities produce food, tool, wine (bonus wine)."""
    game = new_game(4)
    set_praefectus_magnus(game, pm_holder)
    for city, good in GALLIA.items():
        set_city_good(game, city, good)
    set_bonus_marker(game, "Gallia", "wine")
    for p in range(4):
        set_goods(game, p)
    return game


def produce_in_gallia(game: Game) -> None:
    play(game, K_PREFECT)
    game.step(A.A_PRODUCE + game.map.province_index("Gallia"))


def keep_choices(game: Game) -> set[int]:
    return {int(a) - A.A_GOOD for a in game.legal_actions()}


def test_the_active_player_chooses_what_to_keep() -> None:
    game = overflow_position()
    add_house(game, 0, "Burdigala")
    set_goods(game, 0, brick=7)  # 1 free slot; receives wine (bonus) and food
    produce_in_gallia(game)
    assert game.phase == PHASE_OVERFLOW and game.current_player == 0
    assert keep_choices(game) == {FOOD, WINE}
    game.step(A.A_GOOD + FOOD)
    assert goods_of(game, 0) == {"brick": 7, "food": 1, "tool": 0, "wine": 0, "cloth": 0}
    assert free_slots(game, 0) == 0
    assert game.turn_player == 1


def test_a_player_who_is_not_the_active_one_chooses_their_own_goods() -> None:
    game = overflow_position()
    for city in GALLIA:
        add_house(game, 2, city)
    set_goods(game, 2, cloth=6)  # 2 free slots for 3 kinds
    produce_in_gallia(game)
    assert game.turn_player == 0
    assert game.phase == PHASE_OVERFLOW and game.current_player == 2
    assert goods_of(game, 0)["wine"] == 1, "the active player's goods are already stored"
    assert keep_choices(game) == {FOOD, TOOL, WINE}
    expect_illegal(game, A.A_DONE, "no 'done'")
    expect_illegal(game, A.A_GOOD + CLOTH, "receives no cloth")
    game.step(A.A_GOOD + TOOL)
    assert game.current_player == 2, "one slot is still free: choose again"
    assert keep_choices(game) == {FOOD, WINE}
    game.step(A.A_GOOD + WINE)
    assert goods_of(game, 2) == {"brick": 0, "food": 0, "tool": 1, "wine": 1, "cloth": 6}
    assert free_slots(game, 2) == 0
    assert game.turn_player == 1 and game.current_player == 1


def test_the_active_player_decides_before_the_others() -> None:
    game = overflow_position()
    add_house(game, 0, "Burdigala")
    set_goods(game, 0, brick=7)
    add_house(game, 1, "Lutetia")
    add_house(game, 1, "Massilia")
    set_goods(game, 1, brick=7)
    produce_in_gallia(game)
    assert game.current_player == 0
    game.step(A.A_GOOD + WINE)
    assert game.current_player == 1 and game.turn_player == 0
    game.step(A.A_GOOD + WINE)
    assert goods_of(game, 0)["wine"] == 1 and goods_of(game, 1)["wine"] == 1
    assert game.turn_player == 1


def test_one_kind_only_is_stored_without_a_decision() -> None:
    game = overflow_position(pm_holder=0)  # 2 wine as the bonus
    set_goods(game, 0, brick=7)
    produce_in_gallia(game)
    assert goods_of(game, 0)["wine"] == 1, "one slot: one wine kept, the other lost"
    assert game.turn_player == 1


def test_several_units_of_one_kind_fill_the_free_slots_by_themselves() -> None:
    game = overflow_position()
    for city in GALLIA:
        set_city_good(game, city, "tool")
        add_house(game, 1, city)
    set_goods(game, 1, food=6)
    produce_in_gallia(game)
    assert goods_of(game, 1) == {"brick": 0, "food": 6, "tool": 2, "wine": 0, "cloth": 0}
    assert game.turn_player == 1


def test_a_full_storehouse_loses_everything_without_a_decision() -> None:
    game = overflow_position()
    for city in GALLIA:
        add_house(game, 3, city)
    set_goods(game, 3, brick=8)
    produce_in_gallia(game)
    assert goods_of(game, 3) == {"brick": 8, "food": 0, "tool": 0, "wine": 0, "cloth": 0}
    assert game.turn_player == 1


def test_everything_fits_means_no_decision() -> None:
    game = overflow_position()
    for city in GALLIA:
        add_house(game, 2, city)
    set_goods(game, 2, brick=5)  # exactly 3 free
    produce_in_gallia(game)
    assert goods_of(game, 2) == {"brick": 5, "food": 1, "tool": 1, "wine": 1, "cloth": 0}
    assert game.turn_player == 1


def test_a_specialist_overflow_keeps_what_fits() -> None:
    game = new_game(4)
    set_hand(game, 0, ["Vintner/II"])
    for city in ("Massilia", "Novaria", "Carthago", "Athenae"):
        set_city_good(game, city, "wine")
        add_house(game, 0, city)
    set_goods(game, 0, brick=6)
    play(game, K_VINTNER)
    assert goods_of(game, 0) == {"brick": 6, "food": 0, "tool": 0, "wine": 2, "cloth": 0}, "bricks held stay"
