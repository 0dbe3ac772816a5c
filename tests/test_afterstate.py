"""Afterstate learning: features, the model file, the learned agent, and tiny training runs.

The training tests run ``concordia train afterstate``'s pieces on a few games (seconds):
one whole run through ``main`` (report, model, summary), the same seed giving the same first
updates, and a run stopped after one iteration and resumed giving exactly the model of an
uninterrupted run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from concordia_env import Game, agents
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.agents.learned import SHIPPED_MODELS, LearnedAgent, default_model_path
from concordia_env.agents.learned_model import (
    FEATURE_COUNTS,
    NUM_FEATURES,
    UTILITY_INDEX,
    AfterstateModel,
    afterstate_features,
    candidates,
    rollout_value,
)
from concordia_env.strategy.afterstate_scorer import REMAINING_INDEX
from concordia_env.training.afterstate_learning import AfterstateConfig, AfterstateRun, lambda_returns, main
from concordia_env.training.afterstate_net import AfterstateNet

ROOT = Path(__file__).resolve().parents[1]
#: a run of a few seconds: 2 iterations of 4 games, tiny network, few rollouts
TINY = {
    "name": "tiny",
    "workers": 2,
    "progress": False,
    "iterations": 2,
    "games_per_iteration": 4,
    "buffer_games": 8,
    "epochs": 2,
    "hidden": [8],
    "rollout_samples": 1,
    "eval_every": 1,
    "eval_games": 2,
    "final_eval_games": {"random": 2},
}


def _config(tmp_path: Path, **changes) -> AfterstateConfig:
    return AfterstateConfig.from_dict({**TINY, "runs_dir": str(tmp_path), **changes})


def _weights(path: Path) -> list[np.ndarray]:
    model = AfterstateModel.load(path)
    return [*model.weights, *model.biases, np.array([model.a, model.b])]


# ---------------------------------------------------------------------- features and model
def test_features_have_a_fixed_length_and_carry_the_heuristic_utility() -> None:
    game = Game.new("imperium", 4, seed=2)
    rules = HeuristicAgent()
    cands = candidates(game, rules, np.random.default_rng(0))
    assert cands.features.shape == (len(cands.options), NUM_FEATURES)
    for option, row in zip(cands.options, cands.features, strict=True):
        v = option.values
        p = game.current_player
        assert row[UTILITY_INDEX] == pytest.approx((v[p] - np.delete(v, p).mean()) / 30.0, rel=1e-5)
    same = afterstate_features(cands.options[0].game, cands.options[0].values, game.current_player, 0.5)
    assert same.dtype == np.float32 and same.shape == (NUM_FEATURES,)


def test_candidates_never_show_the_real_stack_order() -> None:
    """Two games that differ only in the order of the hidden stack give the same candidates.

    The determinization depends on the cards left in each deck, never on their order, so the
    afterstates (and the cards that come up on the display in them) cannot reveal the real stack.
    """
    from concordia_env.engine.cards import CARD_DECK
    from concordia_env.engine.state import STACK, STACK_SIZE

    game = Game.new("italia", 2, seed=5)
    for _ in range(40):  # into the game, where purchases refill the display
        game.step(int(HeuristicAgent(seed=0).act(game)))
    edited = game.state.copy()
    size = int(edited[STACK_SIZE])
    stack = edited[STACK : STACK + size]
    for deck in np.unique(CARD_DECK[stack]):  # another order within every deck (decks stay where they are)
        where = np.flatnonzero(CARD_DECK[stack] == deck)
        stack[where] = np.sort(stack[where])[::-1]
    other = Game(edited, game.map)
    assert not np.array_equal(stack, game.state[STACK : STACK + size])
    rules = HeuristicAgent()
    a = candidates(game, rules, np.random.default_rng(1)).features
    b = candidates(other, rules, np.random.default_rng(1)).features
    assert np.array_equal(a, b)


def test_an_untrained_model_ranks_like_the_heuristic_utility() -> None:
    model = AfterstateModel.heuristic_only((16,))
    x = np.random.default_rng(0).random((5, NUM_FEATURES)).astype(np.float32)
    assert np.allclose(model.predict(x), x[:, UTILITY_INDEX])


def test_model_file_round_trip_and_refusals(tmp_path: Path) -> None:
    model = AfterstateModel.heuristic_only((8, 4), seed=3)
    model.weights[-1][:] = 0.5
    path = model.save(tmp_path / "m.npz")
    again = AfterstateModel.load(path)
    x = np.random.default_rng(1).random((3, NUM_FEATURES)).astype(np.float32)
    assert np.allclose(model.predict(x), again.predict(x))
    with pytest.raises(FileNotFoundError):
        AfterstateModel.load(tmp_path / "missing.npz")
    (tmp_path / "junk.npz").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="not an afterstate model"):
        AfterstateModel.load(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="features"):
        AfterstateModel([np.zeros((3, 1))], [np.zeros(1)])


def test_torch_net_and_numpy_model_agree() -> None:
    import torch

    torch.manual_seed(0)
    net = AfterstateNet([8, 8])
    torch.nn.init.normal_(net.mlp[-1].weight)
    x = np.random.default_rng(2).random((4, NUM_FEATURES)).astype(np.float32)
    with torch.no_grad():
        expected = net(torch.as_tensor(x)).numpy()
    assert np.allclose(net.export({}).predict(x), expected, atol=1e-5)
    # a version-1 net reads the first entries of the (newest version's) rows the buffers hold
    old = AfterstateNet([8], num_features=FEATURE_COUNTS[1])
    torch.nn.init.normal_(old.mlp[-1].weight)
    with torch.no_grad():
        expected = old(torch.as_tensor(x)).numpy()
    exported = old.export({})
    assert exported.features_version == 1
    assert np.allclose(exported.predict(x), expected, atol=1e-5)
    assert np.allclose(exported.predict(x[:, : FEATURE_COUNTS[1]]), expected, atol=1e-5)


def test_rollout_value_is_reproducible() -> None:
    game = Game.new("italia", 2, seed=4)
    a = rollout_value(game, 0, 1, 2, np.random.default_rng(7))
    b = rollout_value(game, 0, 1, 2, np.random.default_rng(7))
    assert a == b and np.isfinite(a)


def test_lambda_returns() -> None:
    values = np.array([0.1, 0.2, 0.3, 0.9, 0.8], dtype=np.float32)
    final = np.array([1.0, 1.0, 1.0, -1.0, -1.0], dtype=np.float32)
    trajectory = np.array([0, 0, 0, 1, 1])
    assert np.array_equal(lambda_returns(values, final, trajectory, 1.0), final)
    out = lambda_returns(values, final, trajectory, 0.5)
    assert out[2] == 1.0 and out[4] == -1.0
    assert out[1] == pytest.approx(0.5 * 0.3 + 0.5 * 1.0)
    assert out[0] == pytest.approx(0.5 * 0.2 + 0.5 * out[1])
    assert out[3] == pytest.approx(0.5 * 0.8 + 0.5 * -1.0)


# ---------------------------------------------------------------------- the learned agent
def test_shipped_model_plays_legal_moves_at_once() -> None:
    assert default_model_path().is_file()
    agent = agents.make("learned", seed=0)
    game = Game.new("italia", 2, seed=11)
    opponent = agents.make("random", seed=1)
    while not game.is_over() and game.turn_count < 60:
        mover = agent if game.current_player == 0 else opponent
        action = mover.act(game)
        assert game.legal_mask()[action]
        game.step(action)


def test_each_player_count_plays_with_the_shipped_model_made_for_it_or_the_nearest() -> None:
    from concordia_env.agents.learned import shipped_model_path

    assert {n: shipped_model_path(n).name for n in (2, 3, 4, 5)} == SHIPPED_MODELS
    assert shipped_model_path(6).name == SHIPPED_MODELS[5]  # the nearest count (an unknown table)
    agent = agents.make("learned", seed=0)
    for players, map_name in ((2, "italia"), (3, "imperium"), (4, "imperium"), (5, "imperium"), (3, "creta")):
        model = agent.model_for(Game.new(map_name, players, seed=0))
        assert model.metadata["config"]["num_players"] == players


def test_learned_agent_spec_and_bad_options(tmp_path: Path) -> None:
    path = AfterstateModel.heuristic_only((4,)).save(tmp_path / "h.npz")
    agent = agents.from_spec(f"learned:{path}")
    assert isinstance(agent, LearnedAgent) and agent.spec == f"learned:{path}"
    assert agents.make("learned").spec == "learned"
    shipped = agents.make("learned")
    for players in (2, 3, 4, 5):  # every player count has its own shipped model, on every map
        assert shipped.model_for(Game.new("aegyptus", players, seed=0)).metadata["num_players"] == players
    with pytest.raises(FileNotFoundError):
        agents.make("learned", path=tmp_path / "none.npz")
    with pytest.raises(ValueError):
        LearnedAgent(temperature=-1)
    with pytest.raises(ValueError):
        LearnedAgent(epsilon=2)


def test_untrained_learned_agent_plays_the_heuristics_turns() -> None:
    """With the heuristic-only model the agent's first choice is the heuristic utility's best turn."""
    game = Game.new("italia", 2, seed=3)
    agent = LearnedAgent(seed=0, model=AfterstateModel.heuristic_only((4,)), record=True)
    action = agent.act(game)
    _, cands, choice = agent.trace[0]
    assert choice == int(np.argmax(cands.utilities))
    assert action == cands.options[choice].plan.actions[0]


# ---------------------------------------------------------------------- training
def test_training_runs_end_to_end(tmp_path: Path) -> None:
    args = ["--runs_dir", str(tmp_path)]
    for key, value in TINY.items():
        args += [f"--{key}", json.dumps(value) if not isinstance(value, str) else value]
    report = main(args)
    run_dir = report.parent
    assert (run_dir / "learning_curve.png").is_file() and (run_dir / "model.npz").is_file()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["iterations"] == 2 and summary["games"] == 8
    assert [r["opponent"] for r in summary["final"]] == ["random"]
    assert "games/hour" in report.read_text()
    learned = agents.make("learned", path=run_dir / "model.npz")
    game = Game.new("italia", 2, seed=1)
    assert game.legal_mask()[learned.act(game)]


def test_same_seed_same_first_update_and_resume_continues(tmp_path: Path) -> None:
    one = AfterstateRun.create(_config(tmp_path / "a", iterations=1, eval_every=0))
    one.train()
    again = AfterstateRun.create(_config(tmp_path / "b", iterations=1, eval_every=0))
    again.train()
    for x, y in zip(_weights(one.model_path), _weights(again.model_path), strict=True):
        assert np.array_equal(x, y)
    assert not np.array_equal(_weights(one.model_path)[-1], [1.0, 0.0]) or one.state.fits[0]["best_epoch"] == 0

    resumed = AfterstateRun.open(one.run_dir, {"iterations": 2})
    assert resumed.state.iteration == 1
    resumed.train()
    straight = AfterstateRun.create(_config(tmp_path / "c", iterations=2, eval_every=0))
    straight.train()
    assert resumed.state.iteration == straight.state.iteration == 2
    assert resumed.state.games == straight.state.games == 8
    for x, y in zip(_weights(resumed.model_path), _weights(straight.model_path), strict=True):
        assert np.array_equal(x, y)


def test_warm_start_begins_at_the_given_model_and_refuses_a_mismatch(tmp_path: Path) -> None:
    source = AfterstateRun.create(_config(tmp_path / "a", iterations=1, eval_every=0))
    source.train()
    warm = AfterstateRun.create(_config(tmp_path / "b", iterations=1, eval_every=0, init_model=str(source.model_path)))
    for x, y in zip(_weights(source.model_path), _weights(warm.model_path), strict=True):
        assert np.array_equal(x, y)
    before = list(tmp_path.iterdir())
    with pytest.raises(ValueError, match="do not match"):
        AfterstateRun.create(_config(tmp_path / "c", hidden=[4], init_model=str(source.model_path)))
    with pytest.raises(FileNotFoundError):
        AfterstateRun.create(_config(tmp_path / "d", init_model=str(tmp_path / "missing.npz")))
    assert list(tmp_path.iterdir()) == before  # nothing written for a refused warm start


def test_config_refuses_nonsense(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        _config(tmp_path, iterations=0)
    with pytest.raises(ValueError):
        _config(tmp_path, opponent_shares={"nobody": 1.0})
    with pytest.raises(ValueError):
        _config(tmp_path, num_players=7)
    with pytest.raises(ValueError, match="features_version"):
        _config(tmp_path, features_version=0)
    with pytest.raises(ValueError, match="cannot change"):
        run = AfterstateRun.create(_config(tmp_path, iterations=1, eval_every=0))
        run.checkpoint()
        AfterstateRun.open(run.run_dir, {"hidden": [4]})


def test_learned_agent_in_every_entry_point(tmp_path: Path) -> None:
    """The shipped model plays, with no training, in a tournament, terminal play, SingleAgentEnv and the pool."""
    from concordia_env.envs.gym_env import SingleAgentEnv
    from concordia_env.tools.session import new_session
    from concordia_env.tools.tournament import TournamentConfig, run_tournament
    from concordia_env.training.pool import POOL_FILE, OpponentPool, PoolOpponent

    result = run_tournament(
        TournamentConfig(agents=("learned", "random"), map="italia", players=2, games=2, seed=0), db=tmp_path / "t.db"
    )
    assert sorted(a["agent"] for a in result.summary["agents"]) == ["learned", "random"]

    session = new_session("italia", 2, ["learned"], human_seat=1, seed=3)
    game = session.game
    if game.current_player == 0:
        assert game.legal_mask()[session.agents[0].act(game)]

    env = SingleAgentEnv(opponents="learned", map="italia", num_players=2, seed=4)
    env.reset()
    for _ in range(5):
        legal = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(legal[0]))
        assert not (terminated or truncated)

    OpponentPool(tmp_path, {"learned": 1.0}, max_snapshots=1).publish()
    opponent = PoolOpponent(tmp_path / POOL_FILE, seed=0)
    opponent.reset(1)
    game = Game.new("italia", 2, seed=2)
    assert game.legal_mask()[opponent.act(game)]


def test_learned_agent_with_search_plays_legal_moves() -> None:
    agent = agents.make("learned", seed=0, simulations=2)
    game = Game.new("italia", 2, seed=6)
    opponent = agents.make("heuristic", seed=1)
    for _ in range(30):
        mover = agent if game.current_player == 0 else opponent
        action = mover.act(game)
        assert game.legal_mask()[action]
        game.step(action)
    with pytest.raises(ValueError):
        agents.make("learned", simulations=2, record=True)


@pytest.mark.parametrize(("map_name", "players"), [("italia", 2), ("imperium", 4), ("aegyptus", 5), ("creta", 3)])
def test_batched_features_equal_the_one_by_one_reference(map_name: str, players: int) -> None:
    """The features of every option, computed at once, are those of one ``Game.observation`` per option."""
    from reference.features import afterstate_features as reference_features

    game = Game.new(map_name, players, seed=players)
    rules = HeuristicAgent(0)
    rng = np.random.default_rng(players)
    checked = 0
    while not game.is_over():
        if game.decision_count % 7 == 0 and len(game.legal_actions()) > 1:
            cands = candidates(game, rules, np.random.default_rng(checked))
            remaining = float(rng.uniform())
            player = game.current_player
            for option, row in zip(cands.options, cands.features, strict=True):
                assert option.values.shape == (players,)
                expected = reference_features(option.game, option.values, player, remaining)
                got = afterstate_features(option.game, option.values, player, remaining)
                np.testing.assert_array_equal(got, expected)
                row_expected = reference_features(option.game, option.values, player, row[REMAINING_INDEX])
                np.testing.assert_array_equal(row, row_expected)
            checked += 1
        game.step(int(rng.choice(game.legal_actions())))
    assert checked > 10
