"""One agent-spec parser (``agents.parse_spec``), and every entry point that takes a spec uses it.

``"mcts:time_per_move=1.0"`` once worked in a tournament but raised ``ValueError`` through
``SingleAgentEnv``, the training pool and the evaluation, which had only the
``name:value`` form. Each entry point is exercised here with keyword options (small
budgets, so that a move takes milliseconds).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from concordia_env import Game, agents
from concordia_env.agents.mcts import MCTSAgent
from concordia_env.tools import tournament

#: a keyword spec cheap enough to play in tests
FAST_MCTS = "mcts:time_per_move=0.01,simulations=1"


def test_every_spec_form_parses() -> None:
    assert agents.parse_spec("heuristic") == ("heuristic", {})
    assert agents.parse_spec("mcts:200") == ("mcts", {"simulations": 200})
    assert agents.parse_spec("mcts:time_per_move=1.0") == ("mcts", {"time_per_move": 1.0})
    assert agents.parse_spec("mcts:200,exploration=0.2,rollout=random") == (
        "mcts",
        {"simulations": 200, "exploration": 0.2, "rollout": "random"},
    )
    assert agents.parse_spec("mcts:rollout_rounds=None") == ("mcts", {"rollout_rounds": None})
    assert agents.parse_spec("heuristic:weights={'money': 0.5, 'need_premium': 0.1}") == (
        "heuristic",
        {"weights": {"money": 0.5, "need_premium": 0.1}},
    )
    assert agents.parse_spec("policy:runs/model.zip") == ("policy", {"path": "runs/model.zip"})
    assert agents.parse_spec("policy:path=runs/model.zip,deterministic=False") == (
        "policy",
        {"path": "runs/model.zip", "deterministic": False},
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("heuristic:3", "takes no bare"),
        ("mcts:many", "not a valid simulations"),
        ("mcts:200,300", "twice"),
        ("mcts:simulations=2,simulations=3", "twice"),
        ("mcts:=3", "not key=value"),
        (":3", "no agent name"),
        ("random:no_such_option=3", "does not take"),
        ("alphazero", "unknown agent"),
    ],
)
def test_bad_specs_are_refused_with_the_reason(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        agents.from_spec(spec)


def test_from_spec_builds_keyword_options() -> None:
    agent = agents.from_spec("mcts:time_per_move=1.0")
    assert isinstance(agent, MCTSAgent) and agent.time_per_move == 1.0
    with pytest.raises(ValueError, match="both in the spec"):
        agents.from_spec("mcts:simulations=3", simulations=4)


def test_tournament_uses_the_parser() -> None:
    agent = tournament.make_agent("mcts:time_per_move=1.0")
    assert isinstance(agent, MCTSAgent) and agent.time_per_move == 1.0
    config = tournament.TournamentConfig(agents=(FAST_MCTS, "random"), map="italia", players=2, games=2)
    tournament.validate(config)
    with pytest.raises(ValueError, match="does not take"):
        tournament.validate(tournament.TournamentConfig(agents=("mcts:speed=3", "random"), map="italia", players=2))


def test_single_agent_env_opponents_use_the_parser() -> None:
    from concordia_env.envs.gym_env import SingleAgentEnv

    env = SingleAgentEnv(opponents=FAST_MCTS, map="italia", num_players=2)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))
    assert isinstance(env.unwrapped._opponents[0], MCTSAgent)
    assert env.unwrapped._opponents[0].time_per_move == 0.01


def test_training_pool_uses_the_parser(tmp_path) -> None:
    pytest.importorskip("torch")
    from concordia_env.training.pool import POOL_FILE, OpponentPool, PoolOpponent

    OpponentPool(tmp_path, {FAST_MCTS: 1.0}, max_snapshots=1).publish()
    assert json.loads((tmp_path / POOL_FILE).read_text())["shares"] == {FAST_MCTS: 1.0}
    opponent = PoolOpponent(tmp_path / POOL_FILE, seed=0)
    opponent.reset(0)
    assert isinstance(opponent.current, MCTSAgent) and opponent.current.time_per_move == 0.01
    game = Game.new("italia", 2, 0)
    assert opponent.act(game) in game.legal_actions()


def test_training_evaluation_uses_the_parser() -> None:
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from concordia_env.envs.gym_env import SingleAgentEnv
    from concordia_env.training.run_evaluation import evaluate

    policy = MaskablePPO("MlpPolicy", SingleAgentEnv(), policy_kwargs={"net_arch": [8]}, device="cpu", seed=0).policy
    result = evaluate(policy, FAST_MCTS, 2, map="italia", num_players=2, seed=0, index=0, max_turns=2)
    assert result.games == 2 and result.opponent == FAST_MCTS


def test_terminal_game_uses_the_parser() -> None:
    from concordia_env.tools.session import new_session

    session = new_session("italia", 2, [FAST_MCTS], human_seat=0, seed=0)
    agent = session.agents[1]
    assert isinstance(agent, MCTSAgent) and agent.time_per_move == 0.01
    assert agents.from_spec(agent.spec).time_per_move == 0.01  # the spec an agent reports builds it again


def test_web_app_uses_the_parser() -> None:
    pytest.importorskip("starlette")
    import warnings

    from concordia_env.tools.web import LOCAL_URL, GameOptions, create_app

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*httpx2.*")
        from starlette.testclient import TestClient

    with TestClient(
        create_app(GameOptions(map="italia", players=2, vs=("random",), seat=0, seed=7)), base_url=LOCAL_URL
    ) as client:
        response = client.post("/api/games", json={"vs": FAST_MCTS})
        assert response.status_code == 201, response.text
        (room,) = client.app.state.server.rooms.values()
        assert room.session.agents[1].time_per_move == 0.01
        refused = client.post("/api/games", json={"vs": "mcts:speed=3"})
        assert refused.status_code == 400 and "does not take" in refused.json()["error"]
