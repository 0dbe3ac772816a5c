"""The heuristic's rules of thumb in small positions, and its speed."""

from __future__ import annotations

import time

from builders import (
    add_house,
    clear_colonists,
    new_game,
    put_colonist,
    set_city_good,
    set_discard,
    set_goods,
    set_hand,
    set_money,
    set_turn,
)

from concordia_env import Game, agents
from concordia_env.engine import actions as A
from concordia_env.engine.cards import BRICK, WINE


def finish_turn(game: Game, agent) -> list[str]:
    """Let the agent play the rest of the current turn; return the decisions in words."""
    turn, said = game.turn_count, []
    while not game.is_over() and game.turn_count == turn:
        action = agent.act(game)
        said.append(game.describe_action(action))
        game.step(action)
    return said


def architect_position() -> Game:
    """Player 0 with a land colonist next to Spoletum (wine) and the goods and money to build there."""
    game = new_game(2, map="italia")
    set_turn(game, 0)
    clear_colonists(game, 0)
    put_colonist(game, 0, 0, "land:Roma-Spoletum")
    set_city_good(game, "Spoletum", "wine")
    set_goods(game, 0, brick=1, wine=1, food=1, tool=1)
    set_money(game, 0, 12)
    return game


def test_architect_builds_the_affordable_city_next_to_its_colonist():
    game = architect_position()
    agent = agents.make("heuristic")
    said = finish_turn(game, agent)
    assert said[0] == "play the Architect"
    assert game.houses()[0][game.map.place_index("Spoletum")]


def test_mercator_buys_the_brick_its_next_house_needs():
    game = architect_position()
    set_goods(game, 0, wine=1, cloth=4)
    set_hand(game, 0, ["Mercator", "Tribune"])
    set_discard(game, 0, [])
    agent = agents.make("heuristic")
    said = finish_turn(game, agent)
    assert said[0] == "play the Mercator"
    assert game.goods(0)[BRICK] >= 1, said
    assert game.goods(0)[WINE] >= 1, "sold the wine its house needs"


def test_prefect_produces_where_its_own_houses_are():
    game = new_game(2, map="italia")
    set_turn(game, 0)
    set_hand(game, 0, ["Prefect"])
    set_goods(game, 0)  # room in the storehouse for what is produced
    for city in ("Messana", "Panormus", "Syracusae"):
        set_city_good(game, city, "cloth")
        add_house(game, 0, city)
    add_house(game, 1, "Aquileia")
    agent = agents.make("heuristic")
    said = finish_turn(game, agent)
    assert said[-1].startswith("Prefect: produce in Sicilia"), said


def test_tribune_when_the_hand_is_empty_of_useful_cards():
    game = new_game(2, map="italia")
    set_turn(game, 0)
    set_hand(game, 0, ["Tribune", "Diplomat"])
    set_discard(game, 0, ["Architect", "Prefect", "Prefect", "Mercator", "Senator"], top="Senator")
    agent = agents.make("heuristic")
    assert agent.act(game) == A.A_PLAY + 0  # K_TRIBUNE


def test_decisions_are_fast_on_average():
    game = Game.new("imperium", 4, seed=9)
    agent = agents.make("heuristic")
    agent.act(game)  # warm up
    start, count = time.process_time(), 0  # CPU time: other processes must not fail the test
    while not game.is_over() and count < 150:
        game.step(agent.act(game))
        count += 1
    per_decision = (time.process_time() - start) / count
    assert per_decision < 0.05, f"{1000 * per_decision:.1f} ms per decision"
