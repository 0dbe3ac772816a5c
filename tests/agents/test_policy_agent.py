"""The policy agent plays a saved MaskablePPO model (an untrained one: only the plumbing is tested)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from concordia_env import NUM_ACTIONS, Game, agents
from concordia_env.agents.adapter import PettingZooAgent

pytest.importorskip("sb3_contrib")


class TinyEnv(gymnasium.Env):
    """The learner's spaces (observation vector, Discrete(NUM_ACTIONS)) around one engine game."""

    def __init__(self) -> None:
        self.game = Game.new("italia", 2, seed=0)
        size = len(self.game.observation(0))
        self.observation_space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(NUM_ACTIONS)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.game = Game.new("italia", 2, seed=seed or 0)
        return self.game.observation(self.game.current_player), {}

    def step(self, action):
        self.game.step(int(action))
        done = self.game.is_over()
        obs = np.zeros(self.observation_space.shape, np.float32) if done else self.game.observation(0)
        return obs, 0.0, done, False, {}

    def action_masks(self) -> np.ndarray:
        return self.game.legal_mask()


@pytest.fixture(scope="module")
def model_path(tmp_path_factory):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", TinyEnv(), n_steps=16, batch_size=16, seed=0, device="cpu")
    path = tmp_path_factory.mktemp("policy") / "tiny.zip"
    model.save(path)
    return path


def play(agent, seed: int, max_decisions: int | None = None, map_name: str = "italia", players: int = 2) -> list[int]:
    """The agent (seat 0) against the heuristic (short games); every action legal, the game untouched."""
    game = Game.new(map_name, players, seed=seed)
    opponent = agents.make("heuristic")
    agent.reset(seed)
    chosen = []
    while not game.is_over() and (max_decisions is None or len(chosen) < max_decisions):
        before = game.state.copy()
        player = agent if game.current_player == 0 else opponent
        action = player.act(game)
        assert np.array_equal(before, game.state)
        assert game.legal_mask()[action], game.describe_action(action)
        chosen.append(action)
        game.step(action)
    return chosen


@pytest.mark.parametrize(("map_name", "players"), [("italia", 2), ("imperium", 3)])
def test_policy_plays_legal_moves_through_a_game(model_path, map_name, players):
    agent = agents.make("policy", path=str(model_path))
    assert len(play(agent, seed=1, map_name=map_name, players=players)) > 0


def test_sampling_policy_is_reproducible_by_seed(model_path):
    agent = agents.from_spec(f"policy:{model_path}", deterministic=False)
    first = play(agent, seed=2, max_decisions=150)
    assert first == play(agent, seed=2, max_decisions=150)
    assert first != play(agent, seed=3, max_decisions=150)


def test_deterministic_policy_plays_its_most_probable_legal_action(model_path):
    agent = agents.make("policy", path=model_path)
    game = Game.new("italia", 2, seed=3)
    probs = agent.action_probabilities(game.observation(game.current_player), game.legal_mask())
    assert np.isclose(probs.sum(), 1.0)
    assert np.all(probs[~game.legal_mask()] == 0)
    assert agent.act(game) == int(np.argmax(probs))


def test_missing_model_is_reported(tmp_path):
    with pytest.raises(FileNotFoundError):
        agents.make("policy", path=tmp_path / "nothing.zip")


def test_pettingzoo_adapter_plays_a_policy_from_observations_alone(model_path):
    from concordia_env import env as make_env

    env = make_env(map="italia", num_players=2)
    env.reset(seed=4)
    players = {name: PettingZooAgent("policy", path=model_path) for name in env.agents}
    # an untrained policy plays long games: a few hundred decisions show the plumbing works
    taken = 0
    for name in env.agent_iter(max_iter=300):
        observation, _, termination, truncation, _ = env.last()
        action = None if termination or truncation else players[name].act(observation)
        if action is not None:
            assert observation["action_mask"][action] == 1
            taken += 1
        env.step(action)
    assert taken >= 200 and env.unwrapped.game.decision_count == taken


def test_a_hostile_model_file_is_refused_without_running_its_pickle(model_path, tmp_path):
    """A saved model whose JSON holds a pickle that runs a command: refused, and the command never runs."""
    import base64
    import json
    import os
    import pickle
    import zipfile

    from concordia_env.agents.policy import UnsafeModelError

    marker = tmp_path / "the-pickle-ran"

    class RunsCommand:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    hostile = tmp_path / "hostile.zip"
    with zipfile.ZipFile(model_path) as original, zipfile.ZipFile(hostile, "w") as out:
        for name in original.namelist():
            content = original.read(name)
            if name == "data":
                data = json.loads(content)
                data["policy_kwargs"] = {":serialized:": base64.b64encode(pickle.dumps(RunsCommand())).decode()}
                content = json.dumps(data).encode()
            out.writestr(name, content)
    with pytest.raises(UnsafeModelError, match=r"(posix|os|nt)\.system"):
        agents.make("policy", path=hostile)
    assert not marker.exists()
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a saved MaskablePPO model"):
        agents.make("policy", path=junk)


def test_a_model_with_torch_activation_classes_loads_safely(tmp_path):
    """What training/selfplay.py saves (policy_kwargs with an activation class) loads without MaskablePPO.load."""
    import torch.nn as nn
    from sb3_contrib import MaskablePPO

    kwargs = {"net_arch": {"pi": [16], "vf": [16]}, "activation_fn": nn.Tanh, "ortho_init": False}
    model = MaskablePPO("MlpPolicy", TinyEnv(), n_steps=16, batch_size=16, seed=0, device="cpu", policy_kwargs=kwargs)
    model.save(tmp_path / "tanh.zip")
    agent = agents.make("policy", path=tmp_path / "tanh.zip")
    assert isinstance(agent.policy.mlp_extractor.policy_net[1], nn.Tanh)
    game = Game.new("italia", 2, seed=0)
    obs, mask = game.observation(game.current_player), game.legal_mask()
    assert np.allclose(agent.action_probabilities(obs, mask), _probabilities(model.policy, obs, mask))
    trusted = agents.make("policy", path=tmp_path / "tanh.zip", trusted=True)
    assert np.allclose(trusted.action_probabilities(obs, mask), agent.action_probabilities(obs, mask))


def _probabilities(policy, obs, mask):
    import torch

    tensor, _ = policy.obs_to_tensor(np.asarray(obs, dtype=np.float32))
    with torch.no_grad():
        probs = policy.get_distribution(tensor, action_masks=mask[None, :]).distribution.probs[0].numpy()
    return np.where(mask, probs, 0.0) / np.where(mask, probs, 0.0).sum()
