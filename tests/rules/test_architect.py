"""Architect (docs/rules.md §4.2): movement steps, land/sea paths, occupied paths, building and its cost.

Distances are recomputed here by a breadth-first search over the map's path list, not
read from the engine's precomputed tables, so a wrong table fails these tests.
"""

from __future__ import annotations

from collections import deque

import pytest
from builders import (
    LAND_SLOTS,
    add_house,
    clear_colonists,
    colonist_at,
    expect_illegal,
    goods_of,
    has_house,
    legal,
    new_game,
    play,
    put_colonist,
    set_city_good,
    set_goods,
    set_money,
)

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_ARCHITECT
from concordia_env.engine.state import PHASE_ARCHITECT_BUILD, STEPS_LEFT

#: docs/rules.md §4.2: money for a house before the multiplier, and the goods paid
HOUSE_MONEY = {"brick": 1, "food": 2, "tool": 3, "wine": 4, "cloth": 5}
HOUSE_GOODS = {
    "brick": {"food": 1},
    "food": {"brick": 1, "food": 1},
    "tool": {"brick": 1, "tool": 1},
    "wine": {"brick": 1, "wine": 1},
    "cloth": {"brick": 1, "cloth": 1},
}
RICH = {"brick": 3, "food": 3, "tool": 2, "wine": 2, "cloth": 2}


def path_distances(game: Game, start: str) -> dict[str, int]:
    """Steps from a city or path id to every path of the same kind (passing anything)."""
    paths = game.map.path_ids
    ends = {pid: tuple(pid.split(":", 1)[1].split("-")) for pid in paths}

    def neighbours(pid: str) -> list[str]:
        kind = pid.split(":")[0]
        return [q for q in paths if q != pid and q.startswith(kind + ":") and set(ends[q]) & set(ends[pid])]

    if ":" in start:
        kind = start.split(":")[0]
        dist = {start: 0}
        queue = deque([start])
    else:  # a city: its paths of either kind are one step away; the caller filters the kind
        kind = None
        dist = {pid: 1 for pid in paths if start in ends[pid]}
        queue = deque(dist)
    while queue:
        p = queue.popleft()
        for q in neighbours(p):
            if q not in dist:
                dist[q] = dist[p] + 1
                queue.append(q)
    if kind is not None:
        dist = {p: d for p, d in dist.items() if p.startswith(kind + ":")}
    return dist


def architect_position(colonists: dict[int, str], *, money: int = 30, goods: dict | None = None) -> Game:
    """Player 0 with only these colonists on the board (slot -> where), ready to play the Architect."""
    game = new_game(4)
    clear_colonists(game, 0)
    for slot, where in colonists.items():
        put_colonist(game, 0, slot, where)
    set_money(game, 0, money)
    set_goods(game, 0, **(goods if goods is not None else RICH))
    return game


def move_targets(game: Game, slot: int) -> set[str]:
    mask = game.legal_mask()
    return {pid for i, pid in enumerate(game.map.path_ids) if mask[A.move(slot, i)]}


def build_targets(game: Game) -> set[str]:
    mask = game.legal_mask()
    return {c for i, c in enumerate(game.map.places) if mask[A.A_BUILD + i]}


def path(game: Game, pid: str) -> int:
    return game.map.path_index(pid)


def test_steps_equal_colonists_on_the_board() -> None:
    for on_board in (1, 2, 3, 4):
        colonists = {0: "Roma"}
        extra = ["sea:Carthago-Syracusae", "sea:Athenae-Cyrene", "land:Carthago-Rusadir"]
        slots = [3, 4, 1]
        for slot, where in zip(slots[: on_board - 1], extra, strict=False):
            colonists[slot] = where
        game = architect_position(colonists)
        play(game, K_ARCHITECT)
        assert game.state[STEPS_LEFT] == on_board


@pytest.mark.parametrize(
    ("slot", "start", "others"),
    [
        (0, "Roma", {3: "sea:Carthago-Syracusae", 4: "sea:Athenae-Cyrene"}),
        (3, "Roma", {0: "land:Carthago-Rusadir"}),
        (1, "land:Colonia Agrippina-Novaria", {4: "Roma"}),
        (5, "sea:Massilia-Valentia", {0: "Londinium", 1: "land:Aquileia-Sirmium"}),
    ],
)
def test_reachable_paths_are_exactly_those_within_the_steps_on_own_kind(slot: int, start: str, others: dict) -> None:
    game = architect_position({slot: start, **others})
    play(game, K_ARCHITECT)
    steps = int(game.state[STEPS_LEFT])
    kind = "land" if slot in LAND_SLOTS else "sea"
    occupied = {w for w in others.values() if ":" in w}
    expected = {
        pid
        for pid, d in path_distances(game, start).items()
        if pid.startswith(kind + ":") and d <= steps and pid != start and pid not in occupied
    }
    assert expected, "the position must offer some move"
    assert move_targets(game, slot) == expected


def test_a_multi_step_move_costs_the_shortest_distance() -> None:
    game = architect_position({0: "Roma", 3: "Roma", 4: "sea:Carthago-Syracusae"})
    play(game, K_ARCHITECT)
    target = "land:Colonia Agrippina-Lutetia"  # Roma -> Novaria-Roma -> CA-Novaria -> CA-Lutetia
    assert path_distances(game, "Roma")[target] == 3
    game.step(A.move(0, path(game, target)))
    assert colonist_at(game, 0, 0) == target
    assert game.state[STEPS_LEFT] == 0
    if game.turn_player == 0:  # still building: the steps are used up
        assert all(not move_targets(game, s) for s in range(6))


def test_steps_can_be_split_among_colonists() -> None:
    game = architect_position({0: "Roma", 3: "Roma", 1: "land:Carthago-Rusadir"})
    play(game, K_ARCHITECT)
    game.step(A.move(3, path(game, "sea:Massilia-Roma")))
    assert game.state[STEPS_LEFT] == 2
    game.step(A.move(0, path(game, "land:Aquileia-Vindobona")))
    assert game.state[STEPS_LEFT] == 0
    assert colonist_at(game, 0, 3) == "sea:Massilia-Roma"


def test_one_step_too_far_is_refused() -> None:
    game = architect_position({0: "Roma", 3: "Roma"})
    play(game, K_ARCHITECT)
    three_away = path(game, "land:Colonia Agrippina-Lutetia")
    expect_illegal(game, A.move(0, three_away), "3 steps", "2 left")


def test_land_colonists_never_use_sea_paths_and_vice_versa() -> None:
    game = architect_position({0: "Roma", 3: "Roma", 4: "sea:Carthago-Syracusae"})
    play(game, K_ARCHITECT)
    assert all(p.startswith("land:") for p in move_targets(game, 0))
    assert all(p.startswith("sea:") for p in move_targets(game, 3))
    expect_illegal(game, A.move(0, path(game, "sea:Massilia-Roma")), "land colonist")
    expect_illegal(game, A.move(3, path(game, "land:Novaria-Roma")), "sea colonist")


def test_passing_an_occupied_path_is_allowed_and_costs_its_step() -> None:
    game = architect_position({0: "Roma", 3: "Roma"})
    # every land path leaving Roma is occupied by other players
    put_colonist(game, 1, 0, "land:Novaria-Roma")
    put_colonist(game, 2, 0, "land:Aquileia-Roma")
    put_colonist(game, 3, 0, "land:Roma-Syracusae")
    play(game, K_ARCHITECT)
    targets = move_targets(game, 0)
    assert "land:Novaria-Roma" not in targets
    assert "land:Colonia Agrippina-Novaria" in targets, "2 steps, passing the occupied Novaria-Roma"
    game.step(A.move(0, path(game, "land:Colonia Agrippina-Novaria")))
    assert game.state[STEPS_LEFT] == 0


def test_cannot_end_on_a_path_occupied_by_another_player() -> None:
    game = architect_position({0: "Roma", 3: "Roma"})
    put_colonist(game, 2, 3, "sea:Massilia-Roma")
    play(game, K_ARCHITECT)
    expect_illegal(game, A.move(3, path(game, "sea:Massilia-Roma")), "occupied")
    assert legal(game, A.move(3, path(game, "sea:Carthago-Roma")))


def test_cannot_end_on_a_path_occupied_by_an_own_colonist() -> None:
    game = architect_position({0: "Roma", 1: "land:Novaria-Roma", 3: "Roma"})
    play(game, K_ARCHITECT)
    expect_illegal(game, A.move(0, path(game, "land:Novaria-Roma")), "occupied")
    game.step(A.move(1, path(game, "land:Colonia Agrippina-Novaria")))
    assert legal(game, A.move(0, path(game, "land:Novaria-Roma"))), "free again once its colonist left"


def test_builds_next_to_path_colonists_and_a_colonist_standing_in_a_city() -> None:
    game = architect_position({0: "land:Colonia Agrippina-Novaria", 3: "Carthago"})
    for city in ("Colonia Agrippina", "Novaria", "Carthago"):
        set_city_good(game, city, "food")
    play(game, K_ARCHITECT)
    assert build_targets(game) == {"Colonia Agrippina", "Novaria", "Carthago"}


def test_no_house_in_the_capital_even_with_a_colonist_there() -> None:
    game = architect_position({0: "Roma", 3: "Roma"})
    play(game, K_ARCHITECT)
    assert build_targets(game) == set()
    expect_illegal(game, A.A_BUILD + game.map.place_index("Roma"), "no house may be built")


def test_one_house_per_player_per_city() -> None:
    game = architect_position({0: "land:Colonia Agrippina-Novaria", 3: "Roma"})
    set_city_good(game, "Novaria", "food")
    set_city_good(game, "Colonia Agrippina", "food")
    add_house(game, 0, "Colonia Agrippina")
    add_house(game, 1, "Novaria")  # another player's house does not forbid mine
    play(game, K_ARCHITECT)
    assert build_targets(game) == {"Novaria"}
    expect_illegal(game, A.A_BUILD + game.map.place_index("Colonia Agrippina"), "already has a house")


def test_no_build_in_a_city_without_an_adjacent_colonist() -> None:
    game = architect_position({0: "land:Colonia Agrippina-Novaria", 3: "Roma"})
    play(game, K_ARCHITECT)
    expect_illegal(game, A.A_BUILD + game.map.place_index("Massilia"), "no colonist")


@pytest.mark.parametrize("good", list(HOUSE_MONEY))
@pytest.mark.parametrize("houses_before", [0, 1, 2, 3])
def test_house_cost_goods_and_money_times_houses_after(good: str, houses_before: int) -> None:
    game = architect_position({0: "land:Colonia Agrippina-Novaria", 3: "Roma"})
    set_city_good(game, "Novaria", good)
    for other in range(1, 1 + houses_before):
        add_house(game, other, "Novaria")
    before = goods_of(game, 0)
    play(game, K_ARCHITECT)
    game.step(A.A_BUILD + game.map.place_index("Novaria"))
    assert has_house(game, 0, "Novaria")
    assert game.money(0) == 30 - HOUSE_MONEY[good] * (houses_before + 1)
    paid = {g: before[g] - n for g, n in goods_of(game, 0).items()}
    assert paid == {g: HOUSE_GOODS[good].get(g, 0) for g in before}


@pytest.mark.parametrize("good", list(HOUSE_MONEY))
def test_one_sestertius_short_refuses_the_house(good: str) -> None:
    game = architect_position({0: "land:Colonia Agrippina-Novaria", 3: "Roma"})
    set_city_good(game, "Novaria", good)
    set_city_good(game, "Colonia Agrippina", good)
    add_house(game, 1, "Novaria")
    set_money(game, 0, 2 * HOUSE_MONEY[good] - 1)
    play(game, K_ARCHITECT)
    assert "Novaria" not in build_targets(game), "the second house there costs twice the money"
    assert "Colonia Agrippina" in build_targets(game), "the first house there is affordable"


@pytest.mark.parametrize("good", list(HOUSE_MONEY))
def test_missing_goods_refuse_the_house(good: str) -> None:
    for missing in HOUSE_GOODS[good]:
        goods = dict(RICH)
        goods[missing] = 0
        game = architect_position({0: "land:Colonia Agrippina-Novaria", 3: "Roma"}, goods=goods)
        set_city_good(game, "Novaria", good)
        play(game, K_ARCHITECT)
        expect_illegal(game, A.A_BUILD + game.map.place_index("Novaria"), "costs")


def test_several_houses_in_one_action_then_no_more_moves() -> None:
    game = architect_position({0: "land:Colonia Agrippina-Novaria", 3: "sea:Massilia-Roma"})
    for city in ("Colonia Agrippina", "Novaria", "Massilia"):
        set_city_good(game, city, "food")
    play(game, K_ARCHITECT)
    game.step(A.A_BUILD + game.map.place_index("Novaria"))
    assert game.phase == PHASE_ARCHITECT_BUILD
    expect_illegal(game, A.move(3, path(game, "sea:Carthago-Roma")))  # move first, then build
    game.step(A.A_BUILD + game.map.place_index("Massilia"))
    game.step(A.A_BUILD + game.map.place_index("Colonia Agrippina"))
    assert all(has_house(game, 0, c) for c in ("Colonia Agrippina", "Novaria", "Massilia"))
    assert game.money(0) == 30 - 3 * 2
    assert game.turn_player == 1, "nothing left to build: the action and the turn end"


def test_steps_need_not_all_be_used() -> None:
    game = architect_position({0: "Roma", 3: "Roma", 4: "sea:Carthago-Syracusae"})
    play(game, K_ARCHITECT)
    game.step(A.move(0, path(game, "land:Novaria-Roma")))
    game.step(A.A_DONE)
    assert colonist_at(game, 0, 0) == "land:Novaria-Roma"
    assert colonist_at(game, 0, 3) == "Roma"
    assert game.turn_player == 1
