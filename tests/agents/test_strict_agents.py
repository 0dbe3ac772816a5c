"""No silent fallbacks: an agent that plans an illegal action raises in strict mode.

The test suite runs every agent strict (``tests/conftest.py`` sets ``CONCORDIA_STRICT_AGENTS``),
so ``test_agents_play`` fails on an illegal plan instead of seeing the first legal action
played in its place. Outside strict mode the fallback is loud: a warning and a count.
"""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import Game, agents
from concordia_env.agents.base import STRICT_ENV, IllegalPlanError, strict_by_default
from concordia_env.agents.heuristic import HeuristicAgent, TurnPlan
from concordia_env.agents.mcts import MCTSAgent
from concordia_env.engine import actions as A
from concordia_env.engine.cards import K_MERCATOR
from concordia_env.strategy.players import SeatPlayer


def illegal_action(game: Game) -> int:
    legal = set(game.legal_actions().tolist())
    return next(a for a in range(A.NUM_ACTIONS) if a not in legal)


def propose_illegal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every compiled player proposes an illegal action (the first one the mask refuses) at every decision."""

    def wrong(
        self: SeatPlayer, state: np.ndarray, tables: np.ndarray, mask: np.ndarray, count: int = -1
    ) -> tuple[int, int]:
        return int(np.flatnonzero(~mask)[0]), 0

    monkeypatch.setattr(SeatPlayer, "act", wrong)


def mercator_position() -> Game:
    """A decision the heuristic takes without lookahead: the Mercator's trades."""
    game = Game.new("italia", 2, 0, start_player=0)
    game.step(A.A_PLAY + K_MERCATOR)
    assert len(game.legal_actions()) > 1
    return game


def test_the_test_suite_runs_agents_strict() -> None:
    assert strict_by_default()
    assert agents.make("heuristic").strict and agents.make("mcts").strict and agents.make("random").strict


def test_a_strict_agent_raises_on_an_illegal_plan(monkeypatch: pytest.MonkeyPatch) -> None:
    game = mercator_position()
    propose_illegal(monkeypatch)
    with pytest.raises(IllegalPlanError, match="illegal action"):
        HeuristicAgent(strict=True).act(game)


def test_outside_strict_mode_the_fallback_is_counted_and_warned(monkeypatch: pytest.MonkeyPatch) -> None:
    game = mercator_position()
    propose_illegal(monkeypatch)
    agent = HeuristicAgent(strict=False)
    with pytest.warns(RuntimeWarning, match="first legal action"):
        action = agent.act(game)
    assert action == int(game.legal_actions()[0]) and agent.fallbacks == 1


def test_strict_is_read_from_the_environment(monkeypatch) -> None:
    monkeypatch.setenv(STRICT_ENV, "0")
    assert not agents.make("heuristic").strict
    assert agents.make("heuristic", strict=True).strict


def test_mcts_raises_when_its_plan_is_illegal() -> None:
    game = mercator_position()
    agent = MCTSAgent(simulations=1, strict=True)
    agent._plan = TurnPlan([game.state.copy()], [illegal_action(game)])  # a plan that no longer fits
    with pytest.raises(IllegalPlanError):
        agent.act(game)
