"""Aegyptus (docs/rules.md §9.1, seed 003): shared sea paths, the Nile, the Red Sea, special squares,
the Nile food marker and the frankincense trade."""

from __future__ import annotations

from collections import Counter

import pytest
from builders import (
    add_house,
    clear_colonists,
    colonist_at,
    goods_of,
    marker_coin_side,
    new_game,
    play,
    put_colonist,
    set_bonus_marker,
    set_city_good,
    set_field,
    set_goods,
    set_hand,
    set_money,
    set_praefectus_magnus,
    set_turn,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import CITY_TOKENS, K_ARCHITECT, K_COLONIST, K_PREFECT, K_TRIBUNE
from concordia_env.engine.maps import UNREACHABLE
from concordia_env.engine.rules.legal import distance_to_path
from concordia_env.engine.state import NILE_MARKER, PATH_LOC_BASE, STEPS_LEFT

MAP = "aegyptus"
LAND0, SEA0, SEA1 = 0, 3, 4


def aegyptus(players: int = 3) -> Game:
    game = new_game(players, map=MAP)
    for p in range(players):
        clear_colonists(game, p)
        set_goods(game, p)
    set_praefectus_magnus(game, players - 1)
    return game


def path(game: Game, pid: str) -> int:
    return game.map.path_index(pid)


def nile_marker(game: Game) -> str | None:
    v = int(game.state[NILE_MARKER])
    return game.map.province_names[v] if v >= 0 else None


def set_nile_marker(game: Game, province: str) -> None:
    set_field(game, NILE_MARKER, game.map.province_index(province))


# --------------------------------------------------------------------------- setup
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_setup_uses_memphis_and_no_b_tokens(players: int) -> None:
    game = Game.new(MAP, players, seed=players)
    m = game.map
    assert "B" not in m.letters_used
    goods = game.city_goods()
    for letter in m.letters_used:
        cities = [c for c in m.cities if m.letters.get(c) == letter]
        assert Counter(int(goods[m.place_index(c)]) for c in cities) == Counter(CITY_TOKENS[letter])
    assert goods[m.place_index("Memphis")] == -1
    memphis = m.place_index("Memphis")
    for p in range(players):
        assert list(game.colonist_locations(p)[[LAND0, SEA0]]) == [memphis, memphis]
    assert nile_marker(game) == "Kush"


@pytest.mark.parametrize("players", [1, 6])
def test_wrong_player_count_is_refused(players: int) -> None:
    with pytest.raises(ValueError, match="Aegyptus"):
        Game.new(MAP, players)


def test_tribune_colonist_goes_to_memphis() -> None:
    game = aegyptus()
    set_turn(game, 0)
    set_goods(game, 0, food=1, tool=1)
    play(game, K_TRIBUNE)
    game.step(A.A_TRIBUNE_COLONIST + 1)
    assert "Memphis" in [colonist_at(game, 0, s) for s in (SEA0, SEA1)]


def test_colonist_settles_in_memphis_not_roma() -> None:
    game = aegyptus()
    set_turn(game, 0)
    set_hand(game, 0, ["Tribune", "Colonist/I"])
    set_goods(game, 0, food=1, tool=1)
    play(game, K_COLONIST)
    assert game.legal_mask()[A.settle(0, game.map.place_index("Memphis"))]


# --------------------------------------------------------------------------- paths
def test_sea_paths_hold_several_colonists_land_paths_one() -> None:
    game = aegyptus()
    put_colonist(game, 1, SEA0, "sea:Memphis-Tamiathis")
    put_colonist(game, 1, LAND0, "land:Memphis-Tamiathis")
    put_colonist(game, 0, SEA0, "Memphis")
    put_colonist(game, 0, SEA1, "sea:Memphis-Tamiathis")  # own colonist there too
    put_colonist(game, 0, LAND0, "Memphis")
    set_turn(game, 0)
    play(game, K_ARCHITECT)
    mask = game.legal_mask()
    assert mask[A.move(SEA0, path(game, "sea:Memphis-Tamiathis"))]
    assert not mask[A.move(LAND0, path(game, "land:Memphis-Tamiathis"))]
    game.step(A.move(SEA0, path(game, "sea:Memphis-Tamiathis")))
    assert colonist_at(game, 0, SEA0) == colonist_at(game, 0, SEA1) == colonist_at(game, 1, SEA0)


def test_nile_sections_are_sea_paths() -> None:
    game = aegyptus()
    put_colonist(game, 0, SEA0, "Memphis")
    put_colonist(game, 0, LAND0, "Memphis")
    set_turn(game, 0)
    play(game, K_ARCHITECT)
    # Memphis -> Oxyrhynchus -> Lyopolis along the Nile: two steps
    game.step(A.move(SEA0, path(game, "sea:Lyopolis-Oxyrhynchus")))
    assert colonist_at(game, 0, SEA0) == "sea:Lyopolis-Oxyrhynchus"
    assert game.map.sea_path_kinds[("Lyopolis", "Oxyrhynchus")] == "nile"


def test_red_sea_is_reached_only_by_settling() -> None:
    game = aegyptus()
    m = game.map
    red_sea = [i for i, (kind, a, b) in enumerate(m.paths) if kind == 1 and m.sea_path_kinds[(a, b)] == "red_sea"]
    assert len(red_sea) == 9  # six Red Sea routes and the three lines to the frankincense square
    sea_reachable = [i for i, (kind, a, b) in enumerate(m.paths) if kind == 1 and m.sea_path_kinds[(a, b)] != "red_sea"]
    memphis = m.place_index("Memphis")
    for p in red_sea:
        assert distance_to_path(m.tables, memphis, p) >= UNREACHABLE
        for q in sea_reachable:
            assert distance_to_path(m.tables, PATH_LOC_BASE + q, p) >= UNREACHABLE
    # settle a sea colonist in a Red Sea port where the player has a house
    add_house(game, 0, "Berenice")
    set_hand(game, 0, ["Tribune", "Colonist/I", "Architect"])
    set_goods(game, 0, food=1, tool=1)
    set_turn(game, 0)
    play(game, K_COLONIST)
    game.step(A.settle(1, m.place_index("Berenice")))
    assert colonist_at(game, 0, SEA0) == "Berenice"


# --------------------------------------------------------------------------- special squares
def architect_to(game: Game, slot: int, pid: str) -> None:
    set_turn(game, 0)
    play(game, K_ARCHITECT)
    game.step(A.move(slot, path(game, pid)))
    if not game.is_over() and game.turn_player == 0:
        game.step(A.A_DONE)


def test_sea_colonist_on_a_line_moves_onto_the_square_at_the_end() -> None:
    game = aegyptus()
    put_colonist(game, 0, SEA0, "Berenice")
    architect_to(game, SEA0, "sea:Berenice-frankincense")
    assert colonist_at(game, 0, SEA0) == "frankincense"
    assert game.turn_player == 1


def test_gold_square_via_the_nile_below_meroe() -> None:
    game = aegyptus()
    put_colonist(game, 0, SEA0, "sea:Meroe-Napata")
    architect_to(game, SEA0, "sea:Meroe-gold")
    assert colonist_at(game, 0, SEA0) == "gold"


def test_one_colonist_per_player_per_square() -> None:
    game = aegyptus()
    put_colonist(game, 0, SEA0, "frankincense")
    put_colonist(game, 0, SEA1, "Leuke Kome")
    put_colonist(game, 1, SEA0, "frankincense")  # another player's colonist does not block
    architect_to(game, SEA1, "sea:Leuke Kome-frankincense")
    assert colonist_at(game, 0, SEA1) == "sea:Leuke Kome-frankincense"
    assert colonist_at(game, 0, SEA0) == "frankincense"
    # a different player may still join the square
    game2 = aegyptus()
    put_colonist(game2, 1, SEA0, "frankincense")
    put_colonist(game2, 0, SEA0, "Leuke Kome")
    architect_to(game2, SEA0, "sea:Leuke Kome-frankincense")
    assert colonist_at(game2, 0, SEA0) == "frankincense"


def test_colonist_on_a_square_never_moves_and_cannot_build() -> None:
    game = aegyptus()
    put_colonist(game, 0, SEA0, "gold")
    put_colonist(game, 0, LAND0, "land:Meroe-Napata")
    set_goods(game, 0, brick=5, food=5, tool=5, wine=5, cloth=5)
    set_money(game, 0, 50)
    set_turn(game, 0)
    play(game, K_ARCHITECT)
    mask = game.legal_mask()
    moves = mask[A.A_MOVE + SEA0 * A.MAX_PATHS : A.A_MOVE + (SEA0 + 1) * A.MAX_PATHS]
    assert not moves.any()
    # steps still count the colonist on the square ([decision] docs/rules.md §9.1): 2 colonists, 2 steps
    assert game.state[STEPS_LEFT] == 2
    meroe = game.map.place_index("Meroe")
    assert mask[A.A_BUILD + meroe]  # through the land colonist between Meroe and Napata
    put_colonist(game, 0, LAND0, "Memphis")
    assert not game.legal_mask()[A.A_BUILD + meroe]  # the square is adjacent to nothing


def test_lines_to_a_square_do_not_connect_through_it() -> None:
    m = Game.new(MAP, 2, seed=0).map
    a, b = m.path_index("sea:Berenice-frankincense"), m.path_index("sea:Myos Hormos-frankincense")
    # around by Berenice - Myos Hormos, never across the square
    assert distance_to_path(m.tables, PATH_LOC_BASE + a, b) == 2


def test_each_colonist_on_a_square_scores_seven_and_counts_as_on_board() -> None:
    game = aegyptus()
    set_hand(game, 0, ["Tribune"])  # Mars: 2 VP per colonist on the board
    put_colonist(game, 0, SEA0, "frankincense")
    put_colonist(game, 0, SEA1, "gold")
    parts = game.score_breakdown(0)
    assert parts["special_squares"] == 14
    assert parts["Mars"] == 4


def test_colonist_tax_counts_colonists_on_squares() -> None:
    game = aegyptus()
    put_colonist(game, 0, SEA0, "frankincense")
    put_colonist(game, 0, LAND0, "Memphis")
    set_hand(game, 0, ["Tribune", "Colonist/I"])
    set_money(game, 0, 0)
    set_turn(game, 0)
    play(game, K_COLONIST)
    game.step(A.A_TAX)
    assert game.money(0) == 5 + 2


# --------------------------------------------------------------------------- Nile food marker
def produce(game: Game, p: int, province: str) -> None:
    set_turn(game, p)
    play(game, K_PREFECT)
    game.step(A.A_PRODUCE + game.map.province_index(province))


def test_worked_example_production_in_kush() -> None:
    """Seed 003, example 2: red produces in Kush and gets 1 brick, 1 cloth and 1 extra food;
    green gets 1 cloth; the food marker moves to Nubia."""
    game = aegyptus()
    red, green = 0, 1
    set_city_good(game, "Meroe", "brick")
    set_city_good(game, "Napata", "cloth")
    set_bonus_marker(game, "Kush", "cloth")
    add_house(game, red, "Meroe")
    add_house(game, green, "Napata")
    produce(game, red, "Kush")
    assert goods_of(game, red) == {"brick": 1, "food": 1, "tool": 0, "wine": 0, "cloth": 1}
    assert goods_of(game, green)["cloth"] == 1
    assert nile_marker(game) == "Nubia"


def test_nile_marker_only_where_it_lies() -> None:
    game = aegyptus()
    set_nile_marker(game, "Arcadia")
    set_bonus_marker(game, "Kush", "wine")
    produce(game, 0, "Kush")
    assert goods_of(game, 0)["food"] == 0
    assert nile_marker(game) == "Arcadia"


@pytest.mark.parametrize(
    ("start", "after"),
    [
        ("Kush", "Nubia"),
        ("Nubia", "Aegyptus Superior"),
        ("Aegyptus Superior", "Arcadia"),
        ("Arcadia", "Aegyptus Inferior"),
        ("Aegyptus Inferior", "Kush"),
    ],
)
def test_nile_marker_moves_downstream_and_wraps(start: str, after: str) -> None:
    game = aegyptus()
    set_nile_marker(game, start)
    set_bonus_marker(game, start, "tool")
    produce(game, 0, start)
    assert nile_marker(game) == after
    assert goods_of(game, 0)["food"] == 1


def test_nile_food_is_not_doubled_by_the_praefectus_magnus() -> None:
    game = aegyptus()
    set_praefectus_magnus(game, 0)
    set_bonus_marker(game, "Kush", "wine")
    produce(game, 0, "Kush")
    assert goods_of(game, 0)["wine"] == 2 and goods_of(game, 0)["food"] == 1


# --------------------------------------------------------------------------- frankincense trade
@pytest.mark.parametrize("province", ["Sinai", "Arabia", "Litus"])
def test_traders_on_frankincense_get_five_when_anyone_produces_there(province: str) -> None:
    """Seed 003, example 3: production in Litus pays 5 to every player on the square."""
    game = aegyptus(3)
    for p in range(3):
        set_money(game, p, 0)
    put_colonist(game, 0, SEA0, "frankincense")
    put_colonist(game, 2, SEA0, "frankincense")
    set_bonus_marker(game, province, "wine")
    produce(game, 1, province)
    assert [game.money(p) for p in range(3)] == [5, 0, 5]


def test_production_elsewhere_pays_no_trader() -> None:
    game = aegyptus(3)
    set_money(game, 0, 0)
    put_colonist(game, 0, SEA0, "frankincense")
    set_bonus_marker(game, "Oasis", "wine")
    produce(game, 1, "Oasis")
    assert game.money(0) == 0


def test_worked_example_production_in_litus() -> None:
    """Seed 003, example 3: red produces in Litus and gets 1 food and 1 wine; red and
    yellow each have a colonist on the frankincense square and gain 5."""
    game = aegyptus(3)
    red, yellow = 0, 2
    set_city_good(game, "Berenice", "food")
    set_city_good(game, "Myos Hormos", "wine")
    set_bonus_marker(game, "Litus", "wine")
    add_house(game, red, "Berenice")
    for p in range(3):
        set_money(game, p, 0)
    put_colonist(game, red, SEA0, "frankincense")
    put_colonist(game, yellow, SEA0, "frankincense")
    produce(game, red, "Litus")
    assert goods_of(game, red) == {"brick": 0, "food": 1, "tool": 0, "wine": 1, "cloth": 0}
    assert (game.money(red), game.money(yellow), game.money(1)) == (5, 5, 0)
    assert marker_coin_side(game, "Litus")
