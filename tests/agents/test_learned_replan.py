"""The learned agent decides at every decision (``replan``) or follows its chosen turn; unless told, by the map."""

from __future__ import annotations

import pytest

from concordia_env import Game, agents
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.agents.learned import REPLAN_MAPS, LearnedAgent
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
    assert agents.from_spec("learned").replan is None  # by the map
    planned = agents.from_spec("learned:replan=False")
    assert planned.replan is False
    assert planned.compiled_player(2).kind == LEARNED_PLANNED
    assert planned.compiled_player(2, "italia").kind == LEARNED_PLANNED
    assert agents.from_spec("learned").compiled_player(2).kind == LEARNED
    assert agents.from_spec("learned:replan=True").compiled_player(2, "creta").kind == LEARNED
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


def test_by_default_it_replans_where_its_models_were_trained_and_follows_its_turn_elsewhere() -> None:
    learned = agents.from_spec("learned")
    assert sorted(REPLAN_MAPS) == ["imperium", "italia"]
    assert [learned.replans_on(name) for name in ("imperium", "italia", "aegyptus", "creta")] == [
        True,
        True,
        False,
        False,
    ]
    assert learned.compiled_player(2, "aegyptus").kind == LEARNED_PLANNED
    assert learned.compiled_player(4, "imperium").kind == LEARNED


@pytest.mark.parametrize(("map_name", "same_as"), [("creta", False), ("aegyptus", False), ("italia", True)])
def test_the_default_plays_as_the_setting_of_its_map(map_name: str, same_as: bool) -> None:
    """A game of the default agent against the heuristic is move for move the game of ``replan=same_as``."""

    def moves(learner: LearnedAgent) -> list[int]:
        game = Game.new(map_name, 2, seed=11)
        opponent = HeuristicAgent(4)
        played = []
        while not game.is_over():
            action = learner.act(game) if game.current_player == 0 else opponent.act(game)
            played.append(action)
            game.step(action)
        return played

    assert moves(LearnedAgent(2)) == moves(LearnedAgent(2, replan=same_as))
    assert moves(LearnedAgent(2)) != moves(LearnedAgent(2, replan=not same_as))


def test_learned_opponents_inside_a_batch_follow_the_default_of_the_batch_map() -> None:
    from concordia_env.envs.opponents import CompiledOpponents

    assert list(CompiledOpponents("learned", 2, 2, "creta").kinds) == [LEARNED_PLANNED]
    assert list(CompiledOpponents("learned", 2, 3, "imperium").kinds) == [LEARNED, LEARNED]
