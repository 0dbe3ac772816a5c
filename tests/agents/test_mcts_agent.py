"""MCTS: determinization, budgets, reproducibility."""

from __future__ import annotations

import time

import numpy as np
import pytest
from builders import (
    clear_colonists,
    new_game,
    put_colonist,
    set_city_good,
    set_concordia_holder,
    set_discard,
    set_field,
    set_goods,
    set_hand,
    set_money,
    set_turn,
)

from concordia_env import Game, agents, strategy
from concordia_env.agents.learned import ModelGuidedSearch
from concordia_env.agents.mcts import MCTSAgent
from concordia_env.engine.cards import CARD_DECK
from concordia_env.engine.rules.hidden import shuffle_hidden_stack
from concordia_env.engine.state import FINAL_TURNS_LEFT, STACK, STACK_SIZE


def stack_of(game: Game) -> np.ndarray:
    return game.state[STACK : STACK + int(game.state[STACK_SIZE])].copy()


def test_shuffle_stack_keeps_each_deck_in_its_segment():
    game = Game.new("imperium", 5, seed=1)
    before = stack_of(game)
    rng = np.random.default_rng(0)
    changed = False
    for _ in range(5):
        state = game.state.copy()
        shuffle_hidden_stack(state, rng.random(len(before)))
        after = state[STACK : STACK + len(before)]
        assert np.array_equal(CARD_DECK[after], CARD_DECK[before]), "a deck left its segment"
        assert sorted(after) == sorted(before)
        assert np.array_equal(
            np.delete(state, np.arange(STACK, STACK + len(before))),
            np.delete(game.state, np.arange(STACK, STACK + len(before))),
        )
        changed |= not np.array_equal(after, before)
    assert changed


def decisions(agent: MCTSAgent, count: int, seed: int = 4) -> list[int]:
    """The agent's choices over the first ``count`` decisions of a game it plays against itself."""
    game = Game.new("italia", 2, seed=seed)
    chosen = []
    for _ in range(count):
        action = agent.act(game)
        chosen.append(action)
        game.step(action)
    return chosen


def test_same_seed_same_choices():
    first = agents.make("mcts", simulations=6, rollout="heuristic", rollout_rounds=1)
    second = agents.make("mcts", simulations=6, rollout="heuristic", rollout_rounds=1)
    first.reset(11)
    second.reset(11)
    assert decisions(first, 12) == decisions(second, 12)


def test_simulation_budget_is_respected():
    agent = agents.make("mcts", simulations=9)
    game = Game.new("italia", 2, seed=0)
    agent.act(game)
    assert agent.last_simulations == 9


class SteppingClock:
    """A stand-in for ``time``: every reading of ``perf_counter`` moves it on by ``step`` seconds."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step

    def perf_counter(self) -> float:
        self.now += self.step
        return self.now


def test_the_search_stops_at_the_first_clock_reading_past_the_budget(monkeypatch):
    """The stopping rule on a clock the test controls, so a busy machine cannot change it."""
    game = Game.new("italia", 2, seed=0)
    clock = SteppingClock(0.05)
    monkeypatch.setattr("concordia_env.agents.mcts.time", clock)
    agent = agents.make("mcts", time_per_move=0.2)
    agent.act(game)
    # 50 ms per reading: a 0.2 s budget leaves room for a handful of readings, one simulation batch each
    assert 1 <= agent.last_simulations <= 4
    assert clock.now <= 0.2 + 4 * clock.step


def test_time_budget_is_respected():
    game = Game.new("italia", 2, seed=0)
    one = agents.make("mcts", simulations=1)
    one.act(game)  # the first call may still load compiled code
    one.reset(0)  # forget the planned turn: the next call searches again
    start = time.perf_counter()
    one.act(game)
    one_simulation = time.perf_counter() - start
    agent = agents.make("mcts", time_per_move=0.2)
    start = time.perf_counter()
    agent.act(game)
    elapsed = time.perf_counter() - start
    assert agent.last_simulations >= 1
    # the clock is checked between simulations: about one simulation too long on a quiet machine;
    # the wide margin is for a loaded CI machine (the exact rule is the stepping-clock test above)
    assert elapsed < 0.2 + 3 * one_simulation + 0.5, f"took {elapsed:.2f}s for a 0.2s budget"


def test_search_plays_the_scoring_card_on_the_last_turn():
    """Last turn of the game: the Architect builds a wine house (Jupiter +1), the Tribune gains nothing."""
    game = new_game(2, map="italia")
    set_turn(game, 0)
    set_concordia_holder(game, 1)
    set_field(game, FINAL_TURNS_LEFT, 1)
    set_hand(game, 0, ["Tribune", "Architect"])
    set_discard(game, 0, [])
    clear_colonists(game, 0)
    put_colonist(game, 0, 0, "land:Roma-Spoletum")
    set_city_good(game, "Spoletum", "wine")
    set_goods(game, 0, brick=1, wine=1)
    set_money(game, 0, 10)
    agent = agents.make("mcts", simulations=10, rollout="heuristic", rollout_rounds=1)
    agent.reset(0)
    assert game.describe_action(agent.act(game)) == "play the Architect"


def test_several_determinizations_are_reproducible_and_spend_the_budget() -> None:
    first = agents.make("mcts", simulations=12, determinizations=3)
    second = agents.make("mcts", simulations=12, determinizations=3)
    first.reset(5)
    second.reset(5)
    assert decisions(first, 8, seed=2) == decisions(second, 8, seed=2)
    assert first.last_simulations == 12


def test_the_tree_is_kept_between_searches() -> None:
    """The arrays of the last search are reused: a decision allocates nothing once the tree is big enough."""
    agent = agents.make("mcts", simulations=40)
    agent.reset(1)
    game = Game.new("italia", 2, seed=1)
    agent.act(game)
    tree = agent._tree
    agent.reset(1)
    agent.act(game)
    assert agent._tree.parent is tree.parent and agent._tree.states is tree.states


def test_the_learned_search_gives_its_model_to_the_compiled_search() -> None:
    """``learned:simulations=N`` runs the model inside the search (tests/strategy/test_guided_search.py checks it)."""
    agent = agents.make("learned", seed=0, simulations=4)
    game = Game.new("italia", 2, seed=3)
    assert agent._search is not None and not agent._search.guided  # no Python pause after every expansion
    model = agent._search.search_model(game)
    assert model is not None and np.array_equal(model.flat, agent.model_for(game).compiled.flat)
    assert agents.make("mcts", simulations=4).search_model(game) is None


def test_the_learned_search_starts_every_option_from_the_models_estimate() -> None:
    """``learned:simulations=N``: the chooser's first estimate of an option is the model's squashed margin."""
    from concordia_env.agents.learned_model import MARGIN_SCALE, batch_features

    agent = agents.make("learned", seed=0, simulations=4)
    search = agent._search
    game = Game.new("italia", 2, seed=3)
    options = strategy.turn_options(game.state, game.map.tables)
    estimates = np.full((len(options.first), 2), 0.5)
    search.first_estimates(game, game.state, options.afterstates, options.values, estimates)
    mover = game.current_player
    remaining = strategy.remaining_fraction(game.state, game.map.tables)
    features = batch_features(options.afterstates, game.map.tables, options.values, mover, remaining)
    margins = agent.model_for(game).predict(features) * MARGIN_SCALE
    expected = 0.5 + 0.5 * np.tanh(margins / search.value_scale)
    assert np.allclose(estimates[:, mover], expected, atol=1e-5)
    assert np.allclose(estimates[:, 1 - mover], 1 - expected, atol=1e-5)


def test_prior_visits_reach_the_search_and_weigh_its_root_statistics() -> None:
    """``prior_visits`` is the weight of every option's first estimate: the root's visits add up to it."""
    game = Game.new("italia", 2, seed=3)
    for spec in ("mcts:simulations=7,prior_visits=3", "learned:simulations=7,prior_visits=3"):
        agent = agents.from_spec(spec)
        search = agent if isinstance(agent, MCTSAgent) else agent._search
        assert search.prior_visits == 3.0
        agent.act(game)
        stats = search.last_search()
        count = len(stats.first)
        # every root option starts at 3 visits; each of the 7 simulations passes through one of them
        assert np.isclose(stats.visits.sum(), 3.0 * count + 7) and (stats.visits >= 3.0).all()
    assert agents.make("mcts").prior_visits == 1.0 == agents.make("learned", simulations=2)._search.prior_visits


def test_the_learned_search_takes_mcts_rollout_options() -> None:
    """At 2 players the model scores the simulations (no rollout, 10 visits); the options say otherwise."""
    from concordia_env.agents.learned import TWO_PLAYER_SEARCH

    default = agents.from_spec("learned:simulations=12,seed=1")._search
    assert TWO_PLAYER_SEARCH == {"rollout": "none", "prior_visits": 10.0}
    assert default.table_options(2) == ("none", 10.0)
    assert default.table_options(3) == default.table_options(5) == ("heuristic", 1.0)  # MCTS's own
    # an option given is used at every table; the one not given keeps the table's default
    assert agents.from_spec("learned:simulations=12,rollout=heuristic")._search.table_options(2) == ("heuristic", 10.0)
    assert agents.from_spec("learned:simulations=12,prior_visits=3")._search.table_options(2) == ("none", 3.0)
    assert agents.from_spec("learned:simulations=12,prior_visits=3")._search.table_options(4) == ("heuristic", 3.0)
    # the settings reach the search: three searches of one position, three sets of root statistics
    game = Game.new("italia", 2, seed=5)
    values = []
    for spec in ("learned:simulations=12,seed=1", "learned:simulations=12,rollout=heuristic,prior_visits=1,seed=1"):
        agent = agents.from_spec(spec)
        assert agent.act(game) in game.legal_actions()
        values.append(agent._search.last_search())
    longer = agents.from_spec("learned:simulations=12,rollout=heuristic,prior_visits=1,rollout_rounds=2,seed=1")
    longer.act(game)
    assert longer._search.rollout_rounds == 2
    assert not np.allclose(values[0].values, values[1].values)
    assert not np.allclose(values[1].values, longer._search.last_search().values)
    # with 10 visits per first estimate, the root's visits add up to 10 per option plus the simulations
    assert np.isclose(values[0].visits.sum(), 10.0 * len(values[0].first) + 12)
    # two_player sets the rollout and the prior weight only, checked like the options
    with pytest.raises(ValueError, match="two_player"):
        ModelGuidedSearch(lambda g: None, two_player={"exploration": 1.0})
    with pytest.raises(ValueError, match="rollout"):
        ModelGuidedSearch(lambda g: None, two_player={"rollout": "everything"})


def test_the_learned_search_is_reproducible() -> None:
    first = agents.make("learned", seed=0, simulations=6)
    second = agents.make("learned", seed=0, simulations=6)
    first.reset(3)
    second.reset(3)
    assert decisions(first, 6) == decisions(second, 6)


def test_a_spent_time_budget_still_runs_one_whole_simulation() -> None:
    """The clock is read whenever the compiled search returns: at least one whole simulation runs."""
    game = Game.new("italia", 2, seed=5)
    plain = agents.make("mcts", time_per_move=1e-9)
    guided = agents.make("learned", time_per_move=1e-9)
    plain.act(game)
    guided.act(game)
    assert plain.last_simulations == 1 and guided._search.last_simulations == 1
