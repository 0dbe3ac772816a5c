"""One class per way the ``learned`` agent decides: each spec builds its class, and each class decides as before."""

from __future__ import annotations

import inspect
import pickle

import numpy as np
import pytest

from concordia_env import Game, agents
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.agents.learned import (
    TWO_PLAYER_SEARCH,
    GreedyLearnedAgent,
    LearnedAgent,
    LearnedSearchAgent,
    ModelGuidedSearch,
    SampledLearnedAgent,
    SearchFreeLearnedAgent,
    learned_agent,
    shipped_model_path,
)
from concordia_env.agents.learned_model import AfterstateModel
from concordia_env.agents.random_agent import RandomAgent
from concordia_env.agents.recording import Decision, RecordingAgent

#: spec -> the class it builds (and, for a recording, the class of the agent it wraps)
SPEC_CLASSES: list[tuple[str, type, type | None]] = [
    ("learned", GreedyLearnedAgent, None),
    (f"learned:{shipped_model_path(2)}", GreedyLearnedAgent, None),
    ("learned:replan=False", GreedyLearnedAgent, None),
    ("learned:simulations=0", GreedyLearnedAgent, None),
    ("learned:simulations=150", LearnedSearchAgent, None),
    ("learned:time_per_move=0.25", LearnedSearchAgent, None),
    ("learned:simulations=12,rollout=heuristic,prior_visits=1,rollout_rounds=2", LearnedSearchAgent, None),
    ("learned:temperature=0.5", SampledLearnedAgent, None),
    ("learned:temperature=0.5,epsilon=0.25,replan=False", SampledLearnedAgent, None),
    ("learned:record=True", RecordingAgent, SampledLearnedAgent),
    ("learned:record=True,temperature=1.0,epsilon=0.5", RecordingAgent, SampledLearnedAgent),
]


@pytest.mark.parametrize(("spec", "cls", "inner"), SPEC_CLASSES)
def test_each_spec_builds_the_class_of_its_way_of_deciding(spec: str, cls: type, inner: type | None) -> None:
    agent = agents.from_spec(spec)
    assert type(agent) is cls
    if inner is not None:
        assert type(agent.agent) is inner
    _, options = agents.parse_spec(spec)
    assert type(LearnedAgent(**options)) is cls is type(learned_agent(**options))  # the same builder everywhere
    assert agents.spec_version(spec, 2) == agents.spec_version("learned", 2) is not None  # the model it reads


def test_every_learned_class_is_a_learned_agent_and_only_the_greedy_one_is_compiled() -> None:
    built = {cls: agents.from_spec(spec) for spec, cls, _ in SPEC_CLASSES}
    for cls in (GreedyLearnedAgent, LearnedSearchAgent, SampledLearnedAgent):
        assert isinstance(built[cls], LearnedAgent)
    assert isinstance(built[GreedyLearnedAgent], SearchFreeLearnedAgent)
    assert isinstance(built[SampledLearnedAgent], SearchFreeLearnedAgent)
    assert not isinstance(built[LearnedSearchAgent], SearchFreeLearnedAgent)
    assert [cls for cls, agent in built.items() if hasattr(agent, "compiled_player")] == [GreedyLearnedAgent]


def test_the_subclasses_are_built_as_any_class_is() -> None:
    """Only ``LearnedAgent`` itself picks a class; its subclasses take their own options."""
    assert type(GreedyLearnedAgent(1, replan=False)) is GreedyLearnedAgent
    with pytest.raises(TypeError):
        GreedyLearnedAgent(temperature=1.0)  # type: ignore[call-arg]
    assert "temperature" in inspect.signature(LearnedAgent).parameters
    assert list(inspect.signature(GreedyLearnedAgent).parameters) == ["seed", "path", "model", "replan", "strict"]
    with pytest.raises(ValueError, match="simulations > 0 or a time_per_move"):
        LearnedSearchAgent()


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("learned:simulations=8,temperature=1", "temperature applies to the search-free agent"),
        ("learned:simulations=8,record=True", "record applies to the search-free agent"),
        ("learned:time_per_move=0.5,replan=False", "replan applies to the search-free agent"),
        ("learned:epsilon=0.5", "epsilon applies to a sampled choice"),
        ("learned:simulations=8,epsilon=0.5", "epsilon applies to a sampled choice"),
        ("learned:rollout=heuristic", "rollout applies to the search"),
        ("learned:temperature=1,prior_visits=2", "prior_visits applies to the search"),
        ("learned:no_such_option=1", "does not take"),
    ],
)
def test_an_option_of_another_way_of_deciding_is_refused(spec: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        agents.from_spec(spec)


def test_every_learned_agent_travels_to_a_worker() -> None:
    """Tournaments send agents to their workers: each class pickles and plays on."""
    game = Game.new("italia", 2, seed=4)
    for spec in ("learned", "learned:simulations=4", "learned:temperature=0.5", "learned:record=True"):
        agent = agents.from_spec(spec)
        copy = pickle.loads(pickle.dumps(agent))
        assert type(copy) is type(agent)
        agent.reset(3)
        copy.reset(3)
        assert agent.act(game) == copy.act(game)


def _moves(agent: object, map_name: str = "italia", players: int = 2, seed: int = 5, limit: int = 400) -> list[int]:
    """The moves of a game of ``agent`` in seat 0 against heuristics."""
    others = [HeuristicAgent(seed + seat) for seat in range(1, players)]
    game = Game.new(map_name, players, seed=seed)
    moves = []
    while not game.is_over() and len(moves) < limit:
        mover = agent if game.current_player == 0 else others[game.current_player - 1]
        action = mover.act(game)  # type: ignore[attr-defined]
        moves.append(action)
        game.step(action)
    return moves


@pytest.mark.parametrize("replan", [True, False])
def test_recording_plays_as_the_agent_it_wraps_and_keeps_its_decisions(replan: bool) -> None:
    bare = SampledLearnedAgent(7, temperature=0.5, replan=replan)
    recorder = RecordingAgent(SampledLearnedAgent(7, temperature=0.5, replan=replan))
    assert _moves(recorder) == _moves(bare)
    assert recorder.trace and all(isinstance(d, Decision) and d.player == 0 for d in recorder.trace)
    for decision in recorder.trace:
        assert 0 <= decision.choice < len(decision.candidates.options)
    recorder.reset(2)
    assert recorder.trace == []
    with pytest.raises(TypeError, match="no decisions to record"):
        RecordingAgent(RandomAgent(0))  # type: ignore[arg-type]


def test_the_search_class_plays_the_model_guided_search_of_its_options() -> None:
    """``learned:simulations=N`` is the model-guided search with the learned agent's 2-player settings."""
    model = AfterstateModel.load(shipped_model_path(2))
    learned = LearnedSearchAgent(3, model=model, simulations=6)
    search = ModelGuidedSearch(lambda game: model, seed=3, simulations=6, two_player=TWO_PLAYER_SEARCH)
    assert _moves(learned, limit=60) == _moves(search, limit=60)


def test_the_sampled_class_at_temperature_zero_decides_as_the_greedy_one() -> None:
    """The Python route and the compiled player: the same moves for the same seed, on a map of each default."""
    for map_name in ("italia", "creta"):
        assert _moves(SampledLearnedAgent(9), map_name) == _moves(GreedyLearnedAgent(9), map_name)
    sampled = _moves(SampledLearnedAgent(9, temperature=2.0))
    assert sampled != _moves(GreedyLearnedAgent(9)) and sampled == _moves(SampledLearnedAgent(9, temperature=2.0))


def test_a_learned_agent_built_without_a_seed_still_reads_the_same_model() -> None:
    game = Game.new("imperium", 3, seed=0)
    for spec in ("learned", "learned:simulations=2", "learned:temperature=1"):
        model = agents.from_spec(spec).model_for(game)
        assert np.array_equal(model.compiled.flat, AfterstateModel.load(shipped_model_path(3)).compiled.flat)
