"""The worked examples of the original rules (seed 000; docs/rules.md §7 for the scoring one).

Each test rebuilds the example's position on the Imperium map and checks the numbers
the rule book gives. Player colours: Red is player 0 unless the example says otherwise.
"""

from __future__ import annotations

from builders import (
    add_house,
    clear_colonists,
    colonist_at,
    display_ids,
    expect_illegal,
    free_slots,
    goods_of,
    has_house,
    legal,
    marker_coin_side,
    new_game,
    play,
    put_colonist,
    set_all_markers_goods_side,
    set_bonus_marker,
    set_city_good,
    set_concordia_holder,
    set_discard,
    set_display,
    set_goods,
    set_hand,
    set_money,
    set_praefectus_magnus,
    set_stack,
    stack_size,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import (
    BRICK,
    CARD_ID,
    FOOD,
    GOODS,
    K_ARCHITECT,
    K_COLONIST,
    K_CONSUL,
    K_MERCATOR,
    K_PREFECT,
    K_SENATOR,
    K_TRIBUNE,
    K_VINTNER,
    WINE,
)
from concordia_env.engine.state import PHASE_ARCHITECT_MOVE, STEPS_LEFT

RED, BLUE, YELLOW, GREEN = 0, 1, 2, 3
EMPTY = {"brick": 0, "food": 0, "tool": 0, "wine": 0, "cloth": 0}


def build_targets(game: Game) -> set[str]:
    mask = game.legal_mask()
    return {c for i, c in enumerate(game.map.places) if mask[A.A_BUILD + i]}


# --------------------------------------------------------------------------- Architect
def architect_example() -> Game:
    """Red: a land colonist on Colonia Agrippina-Novaria, a land and a sea colonist in Roma."""
    game = new_game(4)
    clear_colonists(game, RED)
    put_colonist(game, RED, 0, "land:Colonia Agrippina-Novaria")
    put_colonist(game, RED, 1, "Roma")
    put_colonist(game, RED, 3, "Roma")
    add_house(game, RED, "Colonia Agrippina")
    for city, good in (("Massilia", "cloth"), ("Novaria", "wine"), ("Aquileia", "food"), ("Vindobona", "tool")):
        set_city_good(game, city, good)
    add_house(game, BLUE, "Aquileia")
    add_house(game, YELLOW, "Aquileia")
    set_goods(game, RED, brick=3, food=1, wine=1, cloth=1)
    set_money(game, RED, 17)
    return game


def test_architect_example_paths_exist_on_the_imperium_map() -> None:
    ids = set(new_game(4).map.path_ids)
    assert {"land:Colonia Agrippina-Novaria", "sea:Massilia-Roma", "land:Aquileia-Vindobona"} <= ids
    assert {"land:Aquileia-Roma", "land:Aquileia-Novaria"} <= ids


def test_architect_example() -> None:
    game = architect_example()
    m = game.map
    play(game, K_ARCHITECT)
    assert game.state[STEPS_LEFT] == 3, "3 colonists on the board: 3 steps"
    game.step(A.move(3, m.path_index("sea:Massilia-Roma")))  # 1 step
    assert game.state[STEPS_LEFT] == 2
    game.step(A.move(1, m.path_index("land:Aquileia-Vindobona")))  # 2 steps via Aquileia-Roma
    assert game.state[STEPS_LEFT] == 0
    assert game.phase == PHASE_ARCHITECT_MOVE

    # five cities next to his colonists, one (Colonia Agrippina) already has his house: four remain
    rich = game.clone()
    set_goods(rich, RED, brick=4, food=1, tool=1, wine=1, cloth=1)
    set_money(rich, RED, 50)
    assert build_targets(rich) == {"Massilia", "Novaria", "Aquileia", "Vindobona"}

    game.step(A.A_BUILD + m.place_index("Massilia"))  # cloth city: 5, 1 cloth + 1 brick
    assert game.money(RED) == 12 and goods_of(game, RED) == {**EMPTY, "brick": 2, "food": 1, "wine": 1}
    game.step(A.A_BUILD + m.place_index("Novaria"))  # wine city: 4, 1 wine + 1 brick
    assert game.money(RED) == 8 and goods_of(game, RED) == {**EMPTY, "brick": 1, "food": 1}
    game.step(A.A_BUILD + m.place_index("Aquileia"))  # food city, 2 houses there: 2 x 3 = 6
    assert game.money(RED) == 17 - (5 + 4 + 6)
    assert goods_of(game, RED) == EMPTY
    assert all(has_house(game, RED, c) for c in ("Colonia Agrippina", "Massilia", "Novaria", "Aquileia"))
    assert game.turn_player == BLUE


# --------------------------------------------------------------------------- Mercator
def test_mercator_example() -> None:
    game = new_game(4, start_player=GREEN)
    set_money(game, GREEN, 2)
    set_goods(game, GREEN, wine=3, food=1, tool=1, cloth=1)  # with 4 colonists: 2 free slots
    assert free_slots(game, GREEN) == 2
    play(game, K_MERCATOR)
    assert game.money(GREEN) == 5
    game.step(A.sell(WINE, 3))
    assert game.money(GREEN) == 23
    assert free_slots(game, GREEN) == 5
    # 23 sestertii pay for 7 bricks, but only 5 fit
    assert legal(game, A.buy(BRICK, 5))
    expect_illegal(game, A.buy(BRICK, 6))
    game.step(A.buy(BRICK, 4))
    assert game.money(GREEN) == 11
    assert goods_of(game, GREEN) == {"brick": 4, "food": 1, "tool": 1, "wine": 0, "cloth": 1}
    # two kinds traded: no food can be bought, the action is over
    assert game.turn_player == RED
    expect_illegal(game, A.buy(FOOD, 1))


# --------------------------------------------------------------------------- final scoring
#: 12 houses in 7 provinces: 3 brick, 4 food, 3 tool, 2 cloth cities
SCORING_HOUSES = {
    "Isca Dumnoniorum": "brick",  # Britannia
    "Londinium": "food",
    "Burdigala": "food",  # Gallia
    "Lutetia": "tool",
    "Massilia": "cloth",
    "Brigantium": "brick",  # Hispania
    "Olisipo": "food",
    "Colonia Agrippina": "tool",  # Germania
    "Aquileia": "food",  # Italia
    "Novaria": "tool",
    "Carthago": "brick",  # Mauretania
    "Napoca": "cloth",  # Dacia
}
#: 1 Vesta, 2 Jupiter, 4 Saturnus, 2 Mercurius, 3 Mars, 1 Farmer (hand and discard together)
SCORING_HAND = ["Senator", "Architect", "Prefect", "Mercator", "Colonist/I", "Farmer/I"]
SCORING_DISCARD = ["Diplomat", "Prefect", "Prefect/I", "Diplomat/I", "Mercator/I", "Tribune", "Colonist/II"]


def test_final_scoring_example_114() -> None:
    game = new_game(4)
    p = BLUE
    for city, good in SCORING_HOUSES.items():
        set_city_good(game, city, good)
        add_house(game, p, city)
    provinces = {prov for prov, cities in game.map.provinces.items() if set(cities) & set(SCORING_HOUSES)}
    assert len(provinces) == 7
    clear_colonists(game, p)
    for slot, where in enumerate(["Roma", "land:Novaria-Roma", "Massilia", "sea:Massilia-Roma", "Carthago"]):
        put_colonist(game, p, slot, where)
    set_money(game, p, 13)
    set_goods(game, p, cloth=1, tool=3, brick=1)
    set_hand(game, p, SCORING_HAND)
    set_discard(game, p, SCORING_DISCARD, top="Colonist/II")
    set_concordia_holder(game, p)
    assert game.score_breakdown(p) == {
        "Vesta": (13 + 7 + 15 + 3) // 10,
        "Jupiter": 2 * 9,
        "Saturnus": 4 * 7,
        "Mercurius": 2 * 8,
        "Mars": 3 * 10,
        "Minerva": 3 * 4,
        "concordia": 7,
        "total": 114,
    }


# --------------------------------------------------------------------------- Tribune
def test_tribune_example() -> None:
    game = new_game(4)
    set_discard(game, RED, ["Architect", "Prefect", "Mercator", "Senator"])
    set_hand(game, RED, ["Tribune", "Prefect", "Diplomat"])
    set_money(game, RED, 0)
    slots_before = free_slots(game, RED)
    play(game, K_TRIBUNE)
    assert int(game.hand(RED).sum()) == 7 and not game.discard(RED).any()
    assert game.money(RED) == 2, "took back 5 cards: 2 beyond the third"
    game.step(A.A_TRIBUNE_COLONIST + 0)
    assert colonist_at(game, RED, 1) == "Roma"
    assert goods_of(game, RED) == {"brick": 1, "food": 1, "tool": 0, "wine": 1, "cloth": 1}
    assert free_slots(game, RED) == slots_before + 1 + 2, "the colonist's slot plus the food and tool paid"


# --------------------------------------------------------------------------- Prefect
def test_prefect_example_syria() -> None:
    game = new_game(4)
    set_praefectus_magnus(game, GREEN)
    set_city_good(game, "Antiochia", "food")
    set_city_good(game, "Tyros", "cloth")
    set_bonus_marker(game, "Syria", "cloth")
    add_house(game, RED, "Antiochia")
    add_house(game, BLUE, "Antiochia")
    add_house(game, YELLOW, "Tyros")
    for p in range(4):
        set_goods(game, p)
    play(game, K_PREFECT)
    game.step(A.A_PRODUCE + game.map.province_index("Syria"))
    assert goods_of(game, RED) == {**EMPTY, "cloth": 1, "food": 1}
    assert goods_of(game, BLUE) == {**EMPTY, "food": 1}
    assert goods_of(game, YELLOW) == {**EMPTY, "cloth": 1}
    assert goods_of(game, GREEN) == EMPTY
    assert marker_coin_side(game, "Syria")


def test_prefect_example_cash_bonus_of_six() -> None:
    game = new_game(4)
    set_all_markers_goods_side(game)
    for province, good in (("Germania", "tool"), ("Hispania", "brick"), ("Syria", "cloth"), ("Gallia", "cloth")):
        set_bonus_marker(game, province, good, coin_side=True)
    set_money(game, RED, 0)
    play(game, K_PREFECT)
    game.step(A.A_CASH)
    assert game.money(RED) == 6
    assert not any(marker_coin_side(game, prov) for prov in game.map.provinces)


# --------------------------------------------------------------------------- Colonist
def test_colonist_example() -> None:
    game = new_game(4)
    set_hand(game, RED, ["Colonist/I"])
    set_goods(game, RED, food=2, tool=3)
    add_house(game, RED, "Massilia")
    add_house(game, RED, "Aquileia")
    add_house(game, BLUE, "Novaria")
    play(game, K_COLONIST)
    m = game.map
    assert legal(game, A.settle(0, m.place_index("Aquileia"))), "could also go to Aquileia"
    assert not legal(game, A.settle(0, m.place_index("Novaria"))), "no house of his in Novaria"
    game.step(A.settle(1, m.place_index("Roma")))
    assert legal(game, A.settle(1, m.place_index("Roma"))), "two in the same city would be allowed"
    game.step(A.settle(0, m.place_index("Massilia")))
    assert colonist_at(game, RED, 4) == "Roma" and colonist_at(game, RED, 1) == "Massilia"
    assert goods_of(game, RED) == {**EMPTY, "tool": 1}


# --------------------------------------------------------------------------- Senator and Consul
def test_senator_example() -> None:
    """Seed 000: buy the Mercator (1 wine) and the Architect (1 tool + 1 brick for the '?').

    The seed's picture has the Prefect between them (it "moves 1 place left" while the
    others move 2), so the Architect lies in slot 3; slots 2 and 3 both cost one 'any'.
    """
    game = new_game(4)
    set_hand(game, RED, ["Senator"])
    display = ["Mercator/I", "Prefect/I", "Architect/I", "Farmer/I", "Smith/I", "Mason/I", "Colonist/I"]
    set_display(game, display)
    set_stack(game, ["Diplomat/I", "Architect/II", "Prefect/II"])
    set_goods(game, RED, wine=1, tool=1, brick=1, food=1, cloth=1)
    play(game, K_SENATOR)
    # the '?' may be paid with any good held besides the tool the card needs
    offered = {GOODS[g] for g in range(len(GOODS)) if legal(game, A.buy_card(2, g))}
    assert offered == {"brick", "food", "wine", "cloth"}
    # the Farmer would cost 1 brick + 1 food (own) + 1 cloth (slot 4)
    assert legal(game, A.buy_card(3))
    game.step(A.buy_card(0))
    game.step(A.buy_card(2, BRICK))
    hand = {CARD_ID[t] for t, n in enumerate(game.hand(RED)) if n}
    assert {"Mercator/I", "Architect/I"} <= hand
    assert goods_of(game, RED) == {**EMPTY, "food": 1, "cloth": 1}
    assert display_ids(game) == [
        "Prefect/I",
        "Farmer/I",
        "Smith/I",
        "Mason/I",
        "Colonist/I",
        "Diplomat/I",
        "Architect/II",
    ]
    assert stack_size(game) == 1


def test_senator_example_with_the_architect_in_slot_two() -> None:
    """The same purchase as the issue words it: Mercator in slot 1, Architect in slot 2 (tool + any)."""
    game = new_game(4)
    set_hand(game, RED, ["Senator"])
    set_display(game, ["Mercator/I", "Architect/I", "Prefect/I", "Farmer/I", None, None, None])
    set_stack(game, [])
    set_goods(game, RED, wine=1, tool=1, brick=1)
    play(game, K_SENATOR)
    expect_illegal(game, A.buy_card(1), "'any' good")
    game.step(A.buy_card(0))
    game.step(A.buy_card(1, BRICK))
    assert goods_of(game, RED) == EMPTY
    assert display_ids(game)[:3] == ["Prefect/I", "Farmer/I", None]


def test_consul_example() -> None:
    game = new_game(4)
    set_hand(game, RED, ["Consul/II"])
    display = ["Mercator/I", "Prefect/II", "Architect/I", "Farmer/I", "Smith/I", "Colonist/I", "Prefect/I"]
    set_display(game, display)
    set_stack(game, ["Diplomat/I", "Architect/II"])
    set_goods(game, RED, food=1)
    play(game, K_CONSUL)
    game.step(A.buy_card(5))  # slot 6: the slot's 'any' + cloth are ignored
    assert goods_of(game, RED) == EMPTY
    assert game.hand(RED)[CARD_ID.index("Colonist/I")] == 1
    assert game.turn_player == BLUE, "one card only"
    assert display_ids(game)[5:] == ["Prefect/I", "Diplomat/I"], "the Prefect moves one left, slot 7 refilled"
    assert stack_size(game) == 1


# --------------------------------------------------------------------------- specialists
def test_vintner_example() -> None:
    game = new_game(4)
    set_hand(game, RED, ["Vintner/II"])
    for city in ("Massilia", "Novaria", "Carthago", "Athenae"):
        set_city_good(game, city, "wine")
        add_house(game, RED, city)
    set_city_good(game, "Tyros", "wine")
    add_house(game, BLUE, "Tyros")
    add_house(game, BLUE, "Massilia")
    for p in range(4):
        set_goods(game, p)
    play(game, K_VINTNER)
    assert goods_of(game, RED) == {**EMPTY, "wine": 4}
    assert all(goods_of(game, p) == EMPTY for p in (BLUE, YELLOW, GREEN))
