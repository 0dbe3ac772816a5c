"""The heuristic's rules of thumb in small positions, its one compiled call per decision, and its speed."""

from __future__ import annotations

import time

import numpy as np
import pytest
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

from concordia_env import Game, agents, strategy
from concordia_env.agents.heuristic import HeuristicAgent, TurnPlan, follow, remaining_fraction
from concordia_env.engine import actions as A
from concordia_env.engine.cards import BRICK, WINE
from concordia_env.engine.state import PHASE_BONUS_GOOD, PHASE_DIPLOMAT, PHASE_PLAY_CARD, PHASE_PREFECT


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


class _FourCallRoute:
    """The heuristic's decision spelled out in Python, call by call (the slow readable twin of ``act``).

    Follow the planned turn while the game is where it expected; otherwise, on a determinized
    copy, take the turn options and follow the best (the card, Diplomat, Prefect and bonus-good
    decisions), or ask the planner (every other decision).
    """

    LOOKAHEAD = (PHASE_PLAY_CARD, PHASE_DIPLOMAT, PHASE_PREFECT, PHASE_BONUS_GOOD)

    def __init__(self, agent: HeuristicAgent) -> None:
        self.params, self.opponent_weight = agent.params, agent.opponent_weight
        self.noise = agent.compiled_state()[1]
        self.plan: TurnPlan | None = None

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        planned = None if self.plan is None else self.plan.next_action(game)
        if planned is not None:
            return planned
        self.plan = None
        remaining = remaining_fraction(game)
        sim = strategy.determinized(game.state, self.noise)
        if game.phase in self.LOOKAHEAD:
            options = strategy.turn_options(sim, game.map.tables, self.params, remaining)
            best = strategy.best_option(options, game.current_player, self.opponent_weight)
            self.plan = follow(game, options.plans[best, : options.lengths[best]])
            return self.plan.actions[0]
        return strategy.decide(sim, game.map.tables, self.params, remaining)[0]


@pytest.mark.parametrize(
    ("map_name", "players", "spec"),
    [("italia", 2, "heuristic"), ("imperium", 4, "heuristic:opponent_weight=0.5"), ("creta", 3, "heuristic")],
)
def test_one_compiled_call_decides_as_the_four_call_route(map_name: str, players: int, spec: str) -> None:
    """Each seat's agent and its Python twin answer alike, a third of the moves random to break the plans."""
    game = Game.new(map_name, players, seed=players)
    seats = [agents.from_spec(spec, seed=10 + p) for p in range(players)]
    assert all(isinstance(agent, HeuristicAgent) for agent in seats)
    twins = [_FourCallRoute(agent) for agent in seats if isinstance(agent, HeuristicAgent)]
    rng = np.random.default_rng(players)
    compared = 0
    while not game.is_over():
        p = game.current_player
        action = seats[p].act(game)
        assert action == twins[p].act(game), game.describe_action(action)
        compared += len(game.legal_actions()) > 1
        game.step(action if rng.random() > 1 / 3 else int(rng.choice(game.legal_actions())))
    assert compared > 100
