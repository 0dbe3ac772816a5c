"""The learned model inside the compiled search: its first estimates, and the same search as a Python-guided one."""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import Game, agents, strategy
from concordia_env.agents.learned import TWO_PLAYER_SEARCH, ModelGuidedSearch, shipped_model_path
from concordia_env.agents.learned_model import MARGIN_SCALE, AfterstateModel, batch_features
from concordia_env.agents.mcts import ROLLOUT_PARAMS
from concordia_env.engine.state import CURRENT_PLAYER, PHASE, PHASE_GAME_OVER
from concordia_env.strategy import search
from tests.strategy.test_search import played

VALUE_SCALE = 30.0


def model(players: int) -> AfterstateModel:
    return AfterstateModel.load(shipped_model_path(players))


def python_estimates(game: Game, node: strategy.SearchExpansion, net: AfterstateModel) -> np.ndarray:
    """The first estimates the numpy model gives (the reference): the chooser's squashed margin."""
    mover = int(node.state[CURRENT_PLAYER])
    remaining = strategy.remaining_fraction(node.state, game.map.tables)
    features = batch_features(node.afterstates, game.map.tables, node.values, mover, remaining)
    margins = net.predict(features).astype(np.float64) * MARGIN_SCALE
    out = node.estimates.copy()
    running = node.afterstates[:, PHASE] != PHASE_GAME_OVER
    out[running, mover] = 0.5 + 0.5 * np.tanh(margins[running] / VALUE_SCALE)
    if game.num_players == 2:
        out[running, 1 - mover] = 1.0 - out[running, mover]
    return out


@pytest.mark.parametrize(("map_name", "players"), [("italia", 2), ("imperium", 3), ("creta", 4)])
def test_the_model_gives_the_chooser_its_first_estimates(map_name: str, players: int) -> None:
    """Paused right after the root's expansion: the children start from the model's estimates (to float32 rounding)."""
    game = played(map_name, players, seed=players, turns=2)
    net = model(players)
    settings = strategy.search_settings(0.1, VALUE_SCALE, "heuristic", 2, "heuristic", pause=True)
    plain = strategy.search_tree(game.state)
    plain, _, _ = strategy.simulate(plain, game.map.tables, None, ROLLOUT_PARAMS, settings, strategy.new_rng(0), 1)
    guided = strategy.search_tree(game.state)
    guided, done, paused = strategy.simulate(
        guided, game.map.tables, None, ROLLOUT_PARAMS, settings, strategy.new_rng(0), 1, model=net.compiled
    )
    assert paused and done == 0
    heuristic, node = strategy.expansion(plain), strategy.expansion(guided)
    mover = int(node.state[CURRENT_PLAYER])
    assert np.allclose(node.estimates, python_estimates(game, heuristic, net), atol=1e-5)
    others = [p for p in range(players) if p != mover]
    if players > 2:  # the others keep the heuristic's estimates
        assert np.array_equal(node.estimates[:, others], heuristic.estimates[:, others])
    assert not np.allclose(node.estimates[:, mover], heuristic.estimates[:, mover])


class PythonGuided(ModelGuidedSearch):
    """The learned search with its estimates set from Python after every pause, no model inside the search."""

    guided = True

    def search_model(self, game: Game) -> None:
        return None


@pytest.mark.parametrize(("map_name", "players"), [("italia", 2), ("aegyptus", 3)])
def test_the_compiled_guide_searches_like_estimates_set_at_every_pause(map_name: str, players: int) -> None:
    """``learned:simulations=N`` equals MCTS whose every expansion pauses for the same estimates: same statistics."""
    game = played(map_name, players, seed=7, turns=3)
    net = model(players)
    compiled = agents.make("learned", seed=5, simulations=40, path=str(shipped_model_path(players)))
    # the learned agent's table settings (2 players: no rollout, 10 visits), the same for both
    reference = PythonGuided(lambda game: net, seed=5, simulations=40, two_player=TWO_PLAYER_SEARCH)
    for agent in (compiled, reference):
        agent.reset(11)
    search_agent = compiled._search
    assert search_agent is not None
    assert search_agent.act(game) == reference.act(game)
    ours, theirs = search_agent.last_search(), reference.last_search()
    assert ours.first == theirs.first
    assert np.array_equal(ours.visits, theirs.visits)
    assert np.allclose(ours.values, theirs.values, rtol=0, atol=1e-9)


def test_a_guided_simulation_does_not_pause() -> None:
    """The model runs inside the compiled search: a whole budget in one call, unlike a Python-guided search."""
    game = played("italia", 2, seed=3, turns=2)
    settings = strategy.search_settings(0.1, VALUE_SCALE, "heuristic", 2, "heuristic")
    tree = strategy.search_tree(game.state)
    tree, done, paused = strategy.simulate(
        tree, game.map.tables, None, ROLLOUT_PARAMS, settings, strategy.new_rng(0), 25, model=model(2).compiled
    )
    assert (done, paused) == (25, False)
    assert tree.visits[0] == 25


def test_a_malformed_model_is_refused_before_compiled_code() -> None:
    game = Game.new("italia", 2, 0)
    settings = strategy.search_settings(0.1, VALUE_SCALE, "none", 1, "heuristic")
    good = model(2).compiled
    tree = strategy.search_tree(game.state)
    bad_models = [
        good._replace(flat=good.flat[:-1]),  # weights missing: compiled code would read past the end
        good._replace(flat=good.flat.astype(np.float64)),
        good._replace(shapes=good.shapes[:, :1]),
        good._replace(shapes=good.shapes * 2),
        good._replace(ab=np.zeros(3, dtype=np.float32)),
        strategy.afterstate_scorer.no_model(),
        (good.flat, good.shapes, good.ab),
    ]
    for bad in bad_models:
        with pytest.raises(ValueError, match="model"):
            strategy.simulate(tree, game.map.tables, None, ROLLOUT_PARAMS, settings, strategy.new_rng(0), 1, model=bad)  # type: ignore[arg-type]
    assert int(tree.counts[search.C_NODES]) == 1  # nothing ran
