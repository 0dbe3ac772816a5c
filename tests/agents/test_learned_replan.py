"""The learned agent decides at every decision (``replan``, the default) or follows its chosen turn's plan."""

from __future__ import annotations

import pytest

from concordia_env import Game, agents
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.agents.learned import LearnedAgent
from concordia_env.engine.errors import ArgumentTypeError
from concordia_env.strategy.players import LEARNED, LEARNED_PLANNED


def _choices_and_scored(replan: bool, seed: int = 3) -> tuple[int, int]:
    """Decisions with a choice the learner met in one game, and how many it scored turn options at."""
    learner = LearnedAgent(seed, record=True, replan=replan)
    opponent = HeuristicAgent(seed)
    game = Game.new("italia", 2, seed=seed)
    choices = 0
    while not game.is_over():
        if game.current_player == 0:
            choices += len(game.legal_actions()) > 1
            action = learner.act(game)
        else:
            action = opponent.act(game)
        assert game.legal_mask()[action]
        game.step(action)
    return choices, len(learner.trace)


def test_replanning_scores_the_options_at_every_decision_with_a_choice() -> None:
    choices, scored = _choices_and_scored(replan=True)
    assert scored == choices > 0
    choices, scored = _choices_and_scored(replan=False)
    assert 0 < scored < choices, "a planned turn's later decisions follow the plan"


def test_replan_is_an_option_of_the_spec_and_of_the_compiled_player() -> None:
    assert agents.from_spec("learned").replan is True
    planned = agents.from_spec("learned:replan=False")
    assert planned.replan is False
    assert planned.compiled_player(2).kind == LEARNED_PLANNED
    assert agents.from_spec("learned").compiled_player(2).kind == LEARNED
    for bad in ("learned:replan='no'", "learned:replan=1"):
        with pytest.raises(ArgumentTypeError, match="replan"):
            agents.from_spec(bad)


@pytest.mark.parametrize(
    ("replan", "map_name", "players"), [(True, "italia", 2), (False, "italia", 2), (True, "imperium", 3)]
)
def test_the_compiled_route_decides_as_the_python_candidates_do(replan: bool, map_name: str, players: int) -> None:
    """The greedy agent asks the compiled player once per decision; recording keeps the readable Python route
    (candidates, model scores, follow). Both make the same decisions for the same seed."""
    compiled = [LearnedAgent(seat, replan=replan) for seat in range(players)]
    readable = [LearnedAgent(seat, replan=replan, record=True) for seat in range(players)]
    game = Game.new(map_name, players, seed=5)
    while not game.is_over():
        seat = game.current_player
        action = compiled[seat].act(game)
        assert action == readable[seat].act(game)
        game.step(action)
    assert sum(len(agent.trace) for agent in readable) > 0
