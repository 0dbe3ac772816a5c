"""The compiled tree search: its tree, its budget, its determinism, pausing and growing, its checks."""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import Game, strategy
from concordia_env.agents.mcts import ROLLOUT_PARAMS
from concordia_env.engine.state import CURRENT_PLAYER
from concordia_env.strategy import search
from concordia_env.strategy.planner import STATUS_SIZE

SETTINGS = strategy.search_settings(0.1, 30.0, "heuristic", 2, "heuristic")


def played(map_name: str, players: int, seed: int, turns: int) -> Game:
    """A game some turns in (the heuristic's own turns), so that the tree meets a varied position."""
    game = Game.new(map_name, players, seed)
    start = game.turn_count
    while game.turn_count - start < turns:
        action, _ = strategy.decide(game.state, game.map.tables)
        game.step(action)
    return game


def searched(
    game: Game, simulations: int, seed: int, settings: np.ndarray = SETTINGS, tree: strategy.Tree | None = None
) -> strategy.Tree:
    tree = strategy.search_tree(game.state, tree)
    tree, done, paused = strategy.simulate(
        tree, game.map.tables, None, ROLLOUT_PARAMS, settings, strategy.new_rng(seed), simulations
    )
    assert (done, paused) == (simulations, False)
    return tree


def used(tree: strategy.Tree) -> dict[str, np.ndarray]:
    """The rows of the tree in use (what a search decides), for comparing two searches."""
    n = int(tree.counts[search.C_NODES])
    return {
        "visits": tree.visits[:n].copy(),
        "value": tree.value[:n].copy(),
        "first_child": tree.first_child[:n].copy(),
        "plans": tree.plans[: int(tree.counts[search.C_PLAN])].copy(),
    }


def assert_same(a: strategy.Tree, b: strategy.Tree) -> None:
    ua, ub = used(a), used(b)
    for key in ua:
        assert np.array_equal(ua[key], ub[key]), key


@pytest.mark.parametrize(("map_name", "players"), [("italia", 2), ("imperium", 4), ("creta", 3)])
def test_every_child_replays_to_its_afterstate(map_name: str, players: int) -> None:
    """A child keeps only its turn's actions; replayed from its parent they give the option's afterstate."""
    game = played(map_name, players, seed=players, turns=3)
    tree = searched(game, 12, seed=1)
    options = strategy.turn_options(game.state, game.map.tables)
    first = int(tree.first_child[0])
    assert tree.num_children[0] == len(options.first)
    out = np.empty_like(game.state)
    for k in range(len(options.first)):
        search.node_state(tree, game.map.tables, first + k, out)
        assert np.array_equal(out, options.afterstates[k])
    # every expanded node's kept position replays from its parent too
    for node in range(1, int(tree.counts[search.C_NODES])):
        if tree.slot[node] >= 0:
            slot = tree.slot[node]
            tree.slot[node] = -1
            search.node_state(tree, game.map.tables, node, out)
            tree.slot[node] = slot
            assert np.array_equal(out, tree.states[slot])


def test_visits_add_up() -> None:
    """Every simulation passes through the root and exactly one root child (first estimates count once)."""
    game = played("italia", 2, seed=3, turns=2)
    tree = searched(game, 40, seed=2)
    first, count = int(tree.first_child[0]), int(tree.num_children[0])
    assert tree.visits[0] == 40
    assert tree.visits[first : first + count].sum() - count * search.PRIOR_VISITS == 40
    n = int(tree.counts[search.C_NODES])
    assert (tree.value[:n, :2] <= tree.visits[:n, None] + 1e-9).all() and (tree.value[:n] >= 0).all()
    assert (tree.value[:n, 2:] == 0).all()  # no value for seats nobody sits in


def test_a_search_is_a_function_of_its_seed() -> None:
    game = played("italia", 2, seed=5, turns=4)
    assert_same(searched(game, 30, seed=7), searched(game, 30, seed=7))
    others = [used(searched(game, 30, seed=s))["visits"] for s in (8, 9, 10)]
    assert any(not np.array_equal(used(searched(game, 30, seed=7))["visits"], other) for other in others)


def test_a_reused_tree_searches_as_a_new_one() -> None:
    """An agent keeps its tree between searches: emptied and refilled, it decides as a fresh tree does."""
    game = played("imperium", 3, seed=2, turns=2)
    other = played("creta", 2, seed=1, turns=5)
    reused = searched(other, 50, seed=3)
    assert_same(searched(game, 25, seed=4, tree=reused), searched(game, 25, seed=4))


def test_a_tree_that_outgrows_its_arrays_goes_on_where_it_stopped() -> None:
    """Tiny arrays: every kind of room runs out; the grown tree's search equals the roomy one's."""
    game = played("aegyptus", 4, seed=1, turns=2)
    small = search.new_tree(nodes=4, states=1, plan_entries=8, after=1)
    grown = searched(game, 30, seed=6, tree=small)
    assert grown.parent.shape[0] > 4 and grown.states.shape[0] > 1 and grown.after.shape[0] > 1
    assert_same(grown, searched(game, 30, seed=6))


def test_pausing_after_every_expansion_changes_nothing_by_itself() -> None:
    game = played("italia", 2, seed=8, turns=3)
    paused_settings = strategy.search_settings(0.1, 30.0, "heuristic", 2, "heuristic", pause=True)
    tree = strategy.search_tree(game.state)
    rng = strategy.new_rng(11)
    done = pauses = 0
    while done < 20:
        tree, ran, paused = strategy.simulate(
            tree, game.map.tables, None, ROLLOUT_PARAMS, paused_settings, rng, 20 - done
        )
        done += ran
        if paused:
            pauses += 1
            node = strategy.expansion(tree)
            assert len(node.afterstates) == len(node.values) == len(node.estimates) > 0
            assert ((node.estimates >= 0) & (node.estimates <= 1)).all()
            strategy.set_first_estimates(tree, node.estimates)
    assert pauses == int(tree.counts[search.C_STATES])  # every expansion (each keeps its position), the root's too
    assert_same(tree, searched(game, 20, seed=11))


def test_first_estimates_steer_the_walk() -> None:
    """A guided search follows its estimates: make one root option look won, and the search keeps choosing it."""
    game = played("italia", 2, seed=9, turns=2)
    settings = strategy.search_settings(0.0, 30.0, "none", None, "heuristic", pause=True)
    tree = strategy.search_tree(game.state)
    rng = strategy.new_rng(0)
    tree, done, paused = strategy.simulate(tree, game.map.tables, None, ROLLOUT_PARAMS, settings, rng, 5)
    assert paused and done == 0 and int(tree.cursor[search.K_NODE]) == 0
    node = strategy.expansion(tree)
    mover = int(node.state[CURRENT_PLAYER])
    estimates = np.full_like(node.estimates, 0.5)
    estimates[:, mover] = 0.0
    favourite = len(estimates) - 1
    estimates[favourite, mover] = 1.0
    strategy.set_first_estimates(tree, estimates)
    while done < 5:
        tree, ran, paused = strategy.simulate(
            tree, game.map.tables, None, ROLLOUT_PARAMS, settings, strategy.new_rng(0), 5 - done
        )
        done += ran
    first = int(tree.first_child[0])
    visits = tree.visits[first : first + int(tree.num_children[0])]
    assert int(np.argmax(visits)) == favourite and visits[favourite] == 1 + 5


@pytest.mark.parametrize("prior", [0.25, 1.0, 4.0])
def test_prior_visits_weigh_the_first_estimates(prior: float) -> None:
    """Every new child starts with ``prior_visits`` visits holding its first estimate; simulations add one each.

    With no rollout a leaf's value is its first estimate, so a child's mean stays that
    estimate whatever the weight, while the visits of the children a simulation passed
    through are the weight plus the simulations that went there.
    """
    game = played("italia", 2, seed=5, turns=2)
    base = strategy.search_settings(0.1, 30.0, "none", None, "heuristic")
    settings = strategy.search_settings(0.1, 30.0, "none", None, "heuristic", prior_visits=prior)
    assert settings[search.S_PRIOR_VISITS] == prior and base[search.S_PRIOR_VISITS] == search.PRIOR_VISITS
    tree = searched(game, 1, seed=3, settings=settings)
    first, count = int(tree.first_child[0]), int(tree.num_children[0])
    visits = tree.visits[first : first + count]
    assert np.isclose(visits.sum(), count * prior + 1)  # one simulation went through one root child
    n = int(tree.counts[search.C_NODES])
    unvisited = np.flatnonzero(tree.visits[:n] == prior)
    assert len(unvisited) > count - 1
    reference = searched(game, 1, seed=3, settings=base)  # the same tree shape, the estimates weighed 1
    n_ref = int(reference.counts[search.C_NODES])
    assert n_ref == n
    means = tree.value[:n] / tree.visits[:n, None]
    ref_means = reference.value[:n] / reference.visits[:n, None]
    assert np.allclose(means[unvisited], ref_means[unvisited])


def test_bad_input_is_refused_before_compiled_code() -> None:
    game = Game.new("italia", 2, 0)
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="prior_visits"):
            strategy.search_settings(0.1, 30.0, "none", 1, "heuristic", prior_visits=bad)
    settings = strategy.search_settings(0.1, 30.0, "none", 1, "heuristic")
    settings[search.S_PRIOR_VISITS] = 0.0  # a hand-made array: refused before the search divides by it
    with pytest.raises(ValueError, match="search_settings"):
        strategy.simulate(
            strategy.search_tree(game.state), game.map.tables, None, ROLLOUT_PARAMS, settings, strategy.new_rng(0), 1
        )
    with pytest.raises(ValueError, match="rollout"):
        strategy.search_settings(0.1, 30.0, "greedy", 1, "heuristic")
    with pytest.raises(ValueError, match="evaluation"):
        strategy.search_settings(0.1, 30.0, "none", 1, "vp")
    with pytest.raises(ValueError, match="value_scale"):
        strategy.search_settings(0.1, 0.0, "none", 1, "heuristic")
    with pytest.raises(ValueError, match="exploration"):
        strategy.search_settings(float("nan"), 30.0, "none", 1, "heuristic")
    with pytest.raises(ValueError, match="rollout_turns"):
        strategy.search_settings(0.1, 30.0, "none", 0, "heuristic")
    with pytest.raises(ValueError, match="a state"):
        strategy.search_tree(game.state[:10])
    with pytest.raises(TypeError, match="Tree"):
        strategy.search_tree(game.state, tree=object())  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="visits"):
        strategy.search_tree(game.state, search.new_tree()._replace(visits=np.zeros(4096, dtype=np.float32)))
    with pytest.raises(ValueError, match="fit together"):
        strategy.search_tree(game.state, search.new_tree()._replace(slot=np.zeros(10, dtype=np.int32)))
    with pytest.raises(ValueError, match="no root"):
        strategy.simulate(search.new_tree(), game.map.tables, None, ROLLOUT_PARAMS, SETTINGS, strategy.new_rng(0), 1)
    tree = strategy.search_tree(game.state)
    with pytest.raises(ValueError, match="settings"):
        strategy.simulate(tree, game.map.tables, None, ROLLOUT_PARAMS, SETTINGS[:2], strategy.new_rng(0), 1)
    with pytest.raises(TypeError, match="generator"):
        strategy.simulate(tree, game.map.tables, None, ROLLOUT_PARAMS, SETTINGS, np.zeros(1), 1)
    with pytest.raises(TypeError, match="status"):
        strategy.simulate(
            tree, game.map.tables, None, ROLLOUT_PARAMS, SETTINGS, strategy.new_rng(0), 1, np.zeros(STATUS_SIZE)
        )
    with pytest.raises(ValueError, match="not paused"):
        strategy.expansion(tree)
    assert int(tree.counts[search.C_NODES]) == 1  # nothing ran
    over = Game.new("italia", 2, 0)
    strategy.random_rollout(over._state, over.map.tables, 1_000_000, strategy.new_rng(0))  # the game's own array
    with pytest.raises(ValueError, match="over"):
        strategy.search_tree(over.state)


def test_set_first_estimates_checks_its_rows() -> None:
    game = Game.new("italia", 2, 0)
    settings = strategy.search_settings(0.1, 30.0, "none", 1, "heuristic", pause=True)
    tree = strategy.search_tree(game.state)
    tree, _, paused = strategy.simulate(tree, game.map.tables, None, ROLLOUT_PARAMS, settings, strategy.new_rng(0), 1)
    assert paused
    estimates = strategy.expansion(tree).estimates
    before = used(tree)["value"]
    with pytest.raises(ValueError, match="one row per child"):
        strategy.set_first_estimates(tree, estimates[:-1])
    with pytest.raises(ValueError, match=r"0\.\.1"):
        strategy.set_first_estimates(tree, estimates + 1.0)
    assert np.array_equal(before, used(tree)["value"])  # refused: nothing changed


def test_a_finished_game_counts_its_result_with_the_tie_break() -> None:
    """Where an option ends the game, its first estimate is the result: the winner half a point ahead."""
    points = np.zeros(5)
    game = Game.new("italia", 2, 3)
    strategy.random_rollout(game._state, game.map.tables, 1_000_000, strategy.new_rng(2))  # the game's own array
    search.outcome_points(game._state, game.map.tables, points)  # compiled: the writable array
    expected = game.final_scores().astype(float)
    expected[game.winner()] += 0.5
    assert points[:2].tolist() == expected.tolist()
    out = np.zeros(5)
    search.squash(np.array([10.0, 40.0, 25.0]), 3, 30.0, out)
    assert out[1] == pytest.approx(0.5 + 0.5 * np.tanh(15 / 30))
    assert out[0] == pytest.approx(0.5 + 0.5 * np.tanh(-30 / 30))
    assert out[2] == pytest.approx(0.5 + 0.5 * np.tanh(-15 / 30))


def test_raw_states_out_of_bounds_and_foreign_tables_are_refused_before_compiled_code() -> None:
    """The strategy's entry points take raw arrays: a field out of bounds, another map's tables: ValueError."""
    from concordia_env.engine.maps import load

    game = Game.new("italia", 2, 0)
    bad = game.state.copy()
    bad[CURRENT_PLAYER] = 10**8  # an index compiled code would follow far outside the player blocks
    for call in (
        lambda: strategy.evaluate(bad, game.map.tables),
        lambda: strategy.decide(bad, game.map.tables),
        lambda: strategy.turn_options(bad, game.map.tables),
        lambda: strategy.search_tree(bad),
        lambda: strategy.random_rollout(bad, game.map.tables, 1, strategy.new_rng(0)),
    ):
        with pytest.raises(ValueError, match="CURRENT_PLAYER"):
            call()
    with pytest.raises(ValueError, match="tables of the state's map"):
        strategy.evaluate(game.state, load("imperium").tables)
    with pytest.raises(ValueError, match="tables of a map"):
        strategy.simulate(strategy.search_tree(game.state), np.zeros_like(game.map.tables), None,
                          ROLLOUT_PARAMS, SETTINGS, strategy.new_rng(0), 1)  # fmt: skip
