"""Creta (docs/rules.md §9.2, seed 003): Knossos, the Gavdos variable bonus, +2 on every cash bonus;
and the alternative display slot costs, a game option on every map."""

from __future__ import annotations

from collections import Counter

import pytest
from builders import (
    add_house,
    clear_colonists,
    goods_of,
    marker_coin_side,
    new_game,
    play,
    set_bonus_marker,
    set_city_good,
    set_display,
    set_field,
    set_goods,
    set_hand,
    set_money,
    set_praefectus_magnus,
    set_turn,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import CITY_TOKENS, GOOD_INDEX, K_PREFECT, K_SENATOR
from concordia_env.engine.maps import MAP_NAMES
from concordia_env.engine.state import BONUS_GOOD, PHASE, PHASE_BONUS_GOOD, PHASE_PLAY_CARD

MAP = "creta"
GAVDOS = "Gaudos"


def creta(players: int = 3) -> Game:
    game = new_game(players, map=MAP)
    for p in range(players):
        clear_colonists(game, p)
        set_goods(game, p)
        set_money(game, p, 0)
    set_praefectus_magnus(game, players - 1)
    return game


def gavdos_marker(game: Game) -> tuple[str | None, bool]:
    """(good of the marker on the '?' square or None, coin side up)."""
    v = game.map.province_index(GAVDOS)
    good = int(game.state[BONUS_GOOD + v])
    return (None if good < 0 else list(GOOD_INDEX)[good]), marker_coin_side(game, GAVDOS)


def prefect(game: Game, p: int) -> None:
    set_turn(game, p)
    play(game, K_PREFECT)


# --------------------------------------------------------------------------- setup
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_uses_knossos_no_c_tokens_no_gavdos_marker(players: int) -> None:
    game = Game.new(MAP, players, seed=players)
    m = game.map
    assert "C" not in m.letters_used
    goods = game.city_goods()
    for letter in m.letters_used:
        cities = [c for c in m.cities if m.letters.get(c) == letter]
        assert Counter(int(goods[m.place_index(c)]) for c in cities) == Counter(CITY_TOKENS[letter])
    knossos = m.place_index("Knossos")
    for p in range(players):
        assert list(game.colonist_locations(p)[[0, 3]]) == [knossos, knossos]
    assert gavdos_marker(game) == (None, False)


@pytest.mark.parametrize("players", [1, 6])
def test_wrong_player_count_is_refused(players: int) -> None:
    with pytest.raises(ValueError, match="Creta"):
        Game.new(MAP, players)


# --------------------------------------------------------------------------- Gavdos
def test_producing_in_gavdos_chooses_the_bonus_good_freely() -> None:
    game = creta()
    set_city_good(game, GAVDOS, "tool")
    add_house(game, 1, GAVDOS)
    prefect(game, 0)
    game.step(A.A_PRODUCE + game.map.province_index(GAVDOS))
    assert game.state[PHASE] == PHASE_BONUS_GOOD and game.current_player == 0
    assert game.legal_mask()[A.A_GOOD : A.A_GOOD + 5].all()
    game.step(A.A_GOOD + GOOD_INDEX["wine"])
    assert goods_of(game, 0)["wine"] == 1
    assert goods_of(game, 1)["tool"] == 1  # the house in Gavdos produced its city's good
    assert gavdos_marker(game) == ("wine", True)
    assert game.state[PHASE] == PHASE_PLAY_CARD


def test_gavdos_bonus_is_doubled_by_the_praefectus_magnus() -> None:
    game = creta()
    set_praefectus_magnus(game, 0)
    prefect(game, 0)
    game.step(A.A_PRODUCE + game.map.province_index(GAVDOS))
    game.step(A.A_GOOD + GOOD_INDEX["cloth"])
    assert goods_of(game, 0)["cloth"] == 2
    assert game.praefectus_magnus == 2  # passed right (to the previous player) at the end of the turn


def test_gavdos_cannot_be_chosen_while_its_marker_lies_on_the_question_mark() -> None:
    game = creta()
    set_bonus_marker(game, GAVDOS, "wine", coin_side=True)
    prefect(game, 0)
    assert not game.legal_mask()[A.A_PRODUCE + game.map.province_index(GAVDOS)]


def test_cash_bonus_counts_and_removes_the_gavdos_marker_and_pays_two_more() -> None:
    game = creta()
    set_bonus_marker(game, GAVDOS, "wine", coin_side=True)  # 2 coins
    set_bonus_marker(game, "Red", "cloth", coin_side=True)  # 1 coin
    prefect(game, 0)
    game.step(A.A_CASH)
    assert game.money(0) == 2 + 1 + 2  # markers + the Creta cash bonus coin marker
    assert gavdos_marker(game) == (None, False)
    assert not marker_coin_side(game, "Red")
    prefect(game, 1)
    assert game.legal_mask()[A.A_PRODUCE + game.map.province_index(GAVDOS)]


def test_cash_bonus_on_creta_pays_two_even_without_coins() -> None:
    game = creta()
    prefect(game, 0)
    game.step(A.A_CASH)
    assert game.money(0) == 2


def test_gavdos_cloth_marker_shows_one_coin() -> None:
    """[decision] docs/rules.md §9.2: the marker of the chosen good counts its own coins (cloth 1);
    seed 003 (Spanish) says the marker shows two coins — docs/rules.md follows RULES.md."""
    game = creta()
    prefect(game, 0)
    game.step(A.A_PRODUCE + game.map.province_index(GAVDOS))
    game.step(A.A_GOOD + GOOD_INDEX["cloth"])
    prefect(game, 1)
    game.step(A.A_CASH)
    assert game.money(1) == 1 + 2


def test_no_extra_cash_on_the_base_maps() -> None:
    game = new_game(3, map="italia")
    for v in range(len(game.map.provinces)):
        set_field(game, BONUS_GOOD + v, GOOD_INDEX["food"])
    set_money(game, 0, 0)
    prefect(game, 0)
    game.step(A.A_CASH)
    assert game.money(0) == 0


# --------------------------------------------------------------------------- display slot costs
@pytest.mark.parametrize("map_name", MAP_NAMES)
def test_alternative_display_costs_on_every_map(map_name: str) -> None:
    players = 3
    game = new_game(players, map=map_name, display_costs="alternative")
    set_turn(game, 0)
    set_hand(game, 0, ["Tribune", "Senator"])
    set_display(game, ["Prefect/I", "Colonist/I", "Mercator/I", "Architect/I", "Farmer/I", "Smith/I", "Mason/I"])
    # slot 4 costs wine (standard: cloth); Architect's own cost is a tool
    set_goods(game, 0, tool=1, wine=1)
    play(game, K_SENATOR)
    mask = game.legal_mask()
    assert mask[A.buy_card(3)]
    # slot 7 costs wine + cloth: Mason (own cost food) needs food + wine + cloth
    assert not mask[A.buy_card(6)]
    game.step(A.buy_card(3))
    assert goods_of(game, 0)["wine"] == 0 and goods_of(game, 0)["tool"] == 0


def test_standard_display_slot_four_costs_cloth() -> None:
    game = new_game(3, map="imperium")
    set_turn(game, 0)
    set_hand(game, 0, ["Tribune", "Senator"])
    set_display(game, ["Prefect/I", "Colonist/I", "Mercator/I", "Architect/I", "Farmer/I", "Smith/I", "Mason/I"])
    set_goods(game, 0, tool=1, wine=1)
    play(game, K_SENATOR)
    assert not game.legal_mask()[A.buy_card(3)]


def test_alternative_slot_six_any_plus_wine() -> None:
    game = new_game(3, map="creta", display_costs="alternative")
    set_turn(game, 0)
    set_hand(game, 0, ["Tribune", "Senator"])
    set_display(game, ["Prefect/I", "Colonist/I", "Mercator/I", "Architect/I", "Farmer/I", "Mason/I", "Smith/I"])
    set_goods(game, 0, food=1, wine=1, brick=1)  # Mason: food; slot 6: any + wine
    play(game, K_SENATOR)
    mask = game.legal_mask()
    assert mask[A.buy_card(5, GOOD_INDEX["brick"])]
    assert not mask[A.buy_card(5, GOOD_INDEX["cloth"])]
    assert not mask[A.buy_card(5)]


def test_unknown_display_costs_are_refused() -> None:
    with pytest.raises(ValueError, match="display_costs"):
        Game.new("italia", 2, display_costs="reversed")
