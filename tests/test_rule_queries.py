"""The public rule queries (``rules/facts.py`` through ``Game``) agree with what the engine does.

Each query is checked against the rule written out here from docs/rules.md, and against the
effect of the action it predicts (take the action on a copy, look at what changed), at
random positions of all four maps. A query that drifted from the engine fails here.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pytest
from builders import new_game, play, put_colonist, set_discard, set_field, set_goods

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine import cards
from concordia_env.engine.cards import (
    COLONISTS_PER_PLAYER,
    GOODS,
    HOUSE_GOODS_COST,
    HOUSE_MONEY_COST,
    K_ARCHITECT,
    K_CONSUL,
    K_SENATOR,
    K_TRIBUNE,
    NUM_GOODS,
)
from concordia_env.engine.maps import LAND, SEA, UNREACHABLE
from concordia_env.engine.state import (
    LOC_STOREHOUSE,
    PATH_LOC_BASE,
    PHASE_ARCHITECT_MOVE,
    PHASE_BUY_CARDS,
    PHASE_PREFECT,
    PRAEFECTUS_MAGNUS,
    house_index,
)

GAMES = [("imperium", 4), ("italia", 3), ("aegyptus", 3), ("creta", 4)]


def random_positions(map_name: str, players: int, seed: int, every: int = 2):
    game = Game.new(map_name, players, seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not game.is_over():
        if k % every == 0:
            yield game
        game.step(int(rng.choice(game.legal_actions())))
        k += 1


def after(game: Game, action: int) -> Game:
    sim = game.clone()
    sim.step(action)
    return sim


# --------------------------------------------------------------------------- constants
def test_rule_constants_come_from_the_card_data() -> None:
    data = json.loads(resources.files("concordia_env.engine.data").joinpath("cards.json").read_text())
    gods = data["god_scoring"]
    assert (
        gods["Jupiter"]["cap"],
        gods["Mercurius"]["cap"],
        gods["Mars"]["cap"],
    ) == (cards.JUPITER_CAP, cards.MERCURIUS_CAP, cards.MARS_CAP)
    assert cards.CONCORDIA_VP == data["concordia_card_vp"] == 7
    assert cards.KIND_CARDS_BOUGHT[K_SENATOR] == 2 and cards.KIND_CARDS_BOUGHT[K_CONSUL] == 1
    assert cards.MERCATOR_KINDS == data["mercator_kinds"] == 2
    assert [data["start_goods"][g] for g in GOODS] == cards.START_GOODS.tolist() == [1, 2, 1, 1, 1]


def test_agents_use_the_shared_constants() -> None:
    """The evaluation and the planner read caps and VP from the card table, not copies of their own."""
    from concordia_env.strategy import evaluation, planner

    for module in (evaluation, planner):
        for name in ("CONCORDIA_VP", "JUPITER_CAP", "MERCURIUS_CAP", "MARS_CAP", "MERCATOR_KINDS"):
            if hasattr(module, name):
                assert getattr(module, name) is getattr(cards, name), f"{module.__name__}.{name} is a copy"


# --------------------------------------------------------------------------- storehouse and colonists
@pytest.mark.parametrize(("map_name", "players"), GAMES)
def test_free_slots_and_colonists_on_board(map_name: str, players: int) -> None:
    for game in random_positions(map_name, players, seed=1, every=7):
        for p in range(players):
            stored = int(np.count_nonzero(game.colonist_locations(p) == LOC_STOREHOUSE))
            assert game.free_slots(p) == 12 - int(game.goods(p).sum()) - stored
            assert game.colonists_on_board(p) == COLONISTS_PER_PLAYER - stored
            assert game.free_slots(p) >= 0


def test_colonist_kind_of_each_slot() -> None:
    assert [Game.colonist_kind(slot) for slot in range(6)] == [LAND] * 3 + [SEA] * 3
    with pytest.raises(ValueError, match="colonist slot"):
        Game.colonist_kind(6)


# --------------------------------------------------------------------------- houses
def test_house_price_is_the_base_price_times_houses_after_building() -> None:
    game = new_game(4)
    place = game.map.place_index("Massilia")
    good = int(game.city_goods()[place])
    for houses in range(4):
        money, goods = game.house_price(place)
        assert money == HOUSE_MONEY_COST[good] * (houses + 1)
        assert goods.tolist() == HOUSE_GOODS_COST[good].tolist()
        set_field(game, house_index(houses, place), 1)
    with pytest.raises(ValueError, match="no house may be built"):
        game.house_price(game.map.place_index(game.map.capital))


@pytest.mark.parametrize(("map_name", "players"), GAMES)
def test_house_price_is_what_a_build_costs(map_name: str, players: int) -> None:
    builds = 0
    for game in random_positions(map_name, players, seed=2, every=1):
        p = game.current_player
        for a in game.legal_actions():
            if not A.A_BUILD <= a < A.A_PRODUCE:
                continue
            place = int(a) - A.A_BUILD
            money, goods = game.house_price(place)
            assert game.can_afford_house(p, place)
            sim = after(game, int(a))
            assert game.money(p) - sim.money(p) == money
            assert (game.goods(p) - sim.goods(p)).tolist() == goods.tolist()
            builds += 1
    assert builds > 0


# --------------------------------------------------------------------------- Architect
@pytest.mark.parametrize(("map_name", "players"), GAMES)
def test_reach_covers_every_legal_move(map_name: str, players: int) -> None:
    checked = 0
    for game in random_positions(map_name, players, seed=3, every=1):
        if game.phase != PHASE_ARCHITECT_MOVE:
            continue
        p = game.current_player
        reach = game.reachable_places(p, game.steps_left)
        locations = game.colonist_locations(p)
        for a in game.legal_actions():
            if A.A_MOVE <= a < A.A_BUILD:
                slot, path = divmod(int(a) - A.A_MOVE, A.MAX_PATHS)
                assert game.path_distance(int(locations[slot]), path) <= game.steps_left
                assert all(reach[c] for c in game.places_next_to(PATH_LOC_BASE + path))
                checked += 1
    assert checked > 0


def test_architect_steps_are_the_colonists_on_the_board() -> None:
    game = new_game(4)
    put_colonist(game, 0, 1, "land:Novaria-Roma")
    steps = game.architect_steps(0)
    assert steps == game.colonists_on_board(0) == 3
    play(game, K_ARCHITECT)
    assert game.steps_left == steps


def test_places_next_to_and_distances() -> None:
    game = new_game(4)
    roma = game.map.place_index("Roma")
    path = game.map.path_index("land:Novaria-Roma")
    assert game.places_next_to(roma) == [roma]
    assert sorted(game.places_next_to(PATH_LOC_BASE + path)) == sorted(
        [game.map.place_index("Novaria"), game.map.place_index("Roma")]
    )
    assert game.path_distance(roma, path) == 1
    sea = game.map.path_index("sea:Massilia-Roma")
    assert game.path_distance(PATH_LOC_BASE + path, sea) == UNREACHABLE  # land to sea: never
    with pytest.raises(ValueError, match="colonist location"):
        game.places_next_to(LOC_STOREHOUSE)


# --------------------------------------------------------------------------- Prefect
@pytest.mark.parametrize(("map_name", "players"), GAMES)
def test_prefect_production_is_what_production_gives(map_name: str, players: int) -> None:
    """Where every storehouse has room, the goods gained are exactly the predicted ones."""
    checked = 0
    for game in random_positions(map_name, players, seed=4, every=1):
        if game.phase != PHASE_PREFECT:
            continue
        p = game.current_player
        for v, (good, coin_side) in enumerate(game.bonus_markers()):
            if coin_side or good < 0:
                continue
            expected = game.prefect_production(v)
            if any(expected[q].sum() > game.free_slots(q) for q in range(players)):
                continue  # an overflow choice would intervene
            sim = after(game, A.A_PRODUCE + v)
            gained = np.array([sim.goods(q) - game.goods(q) for q in range(players)])
            assert gained.tolist() == expected.tolist(), f"{game.map.province_names[v]} for player {p}"
            checked += 1
        assert game.cash_bonus() == after(game, A.A_CASH).money(p) - game.money(p)
    assert checked > 0


def test_praefectus_magnus_doubles_the_bonus_and_the_nile_adds_food() -> None:
    game = Game.new("aegyptus", 3, 0, start_player=0)
    nile = game.nile_marker
    assert nile is not None
    good = game.bonus_markers()[nile][0]
    bonus = np.eye(NUM_GOODS, dtype=np.int64)[good]
    nile_food = cards.NILE_FOOD * np.eye(NUM_GOODS, dtype=np.int64)[cards.FOOD]
    set_field(game, PRAEFECTUS_MAGNUS, 0)
    assert game.prefect_production(nile, player=0)[0].tolist() == (2 * bonus + nile_food).tolist()
    set_field(game, PRAEFECTUS_MAGNUS, 1)
    assert game.prefect_production(nile, player=0)[0].tolist() == (bonus + nile_food).tolist()
    assert not game.prefect_production(nile, player=0)[1:].any()  # nobody has a house yet


# --------------------------------------------------------------------------- Senator / Consul
@pytest.mark.parametrize(("map_name", "players"), GAMES)
def test_buy_cost_is_what_a_purchase_costs(map_name: str, players: int) -> None:
    checked = 0
    for game in random_positions(map_name, players, seed=5, every=1):
        if game.phase != PHASE_BUY_CARDS:
            continue
        p = game.current_player
        for a in game.legal_actions():
            if not A.A_BUY_CARD <= a < A.A_SETTLE:
                continue
            slot, variant = divmod(int(a) - A.A_BUY_CARD, A.PAY_VARIANTS)
            cost = game.buy_cost(slot, variant - 1 if variant else None, kind=game.action_kind)
            paid = game.goods(p) - after(game, int(a)).goods(p)
            assert paid.tolist() == cost.tolist()
            checked += 1
    assert checked > 0


def test_buy_cost_refuses_a_payment_the_slot_does_not_take() -> None:
    game = new_game(4)
    with pytest.raises(ValueError, match="takes no 'any'"):
        game.buy_cost(0, any_good=0)
    with pytest.raises(ValueError, match="needs 'any'"):
        game.buy_cost(1)
    consul = game.buy_cost(1, kind=K_CONSUL)
    senator = game.buy_cost(1, any_good=cards.BRICK)
    assert senator.sum() == consul.sum() + 1  # slot 2 adds one "any" good for the Senator only


# --------------------------------------------------------------------------- money
def test_tribune_money_and_tax_are_what_the_actions_pay() -> None:
    game = new_game(4)
    set_discard(game, 0, ["Architect", "Prefect", "Mercator", "Senator", "Diplomat"])
    money = game.tribune_money(0)
    assert money == 6 - 3  # five cards and the Tribune itself come back, three are free
    before = game.money(0)
    play(game, K_TRIBUNE)
    assert game.money(0) - before == money
    game = new_game(4)
    set_goods(game, 0)
    assert game.colonist_tax(0) == 5 + game.colonists_on_board(0)


def test_trades_left_counts_down() -> None:
    game = new_game(4)
    set_goods(game, 0, brick=2, food=2, tool=2)
    assert game.trades_left == 2
    play(game, cards.K_MERCATOR)
    game.step(A.sell(cards.BRICK, 1))
    assert game.trades_left == 1


# --------------------------------------------------------------------------- scores
@pytest.mark.parametrize(("map_name", "players"), GAMES)
def test_score_totals_are_the_breakdown_totals(map_name: str, players: int) -> None:
    for game in random_positions(map_name, players, seed=6, every=25):
        totals = [game.score_breakdown(p)["total"] for p in range(players)]
        assert game.scores().tolist() == totals


# --------------------------------------------------------------------------- bad input
def test_queries_refuse_bad_arguments() -> None:
    game = new_game(4)
    with pytest.raises(ValueError, match="player"):
        game.free_slots(4)
    with pytest.raises(ValueError, match="places"):
        game.can_afford_house(0, 99)
    with pytest.raises(ValueError, match="provinces"):
        game.prefect_production(-1)
    with pytest.raises(ValueError, match="good"):
        game.prefect_production(0, bonus_good=NUM_GOODS)
    with pytest.raises(ValueError, match="display slot"):
        game.buy_cost(7)
    with pytest.raises(ValueError, match="paths"):
        game.path_distance(0, 999)


def test_game_is_not_hashable() -> None:
    """A game changes with every step: as a dict key it would get lost (key by state bytes instead)."""
    game = new_game(4)
    with pytest.raises(TypeError):
        hash(game)
    assert game == game.clone()
