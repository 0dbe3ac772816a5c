"""An options-level ``MaskablePPO(OptionsPolicy)`` plays wherever a flat model plays, in memory and from its file.

The saved file says its level (the weights' ``options_level`` buffer: max_options, features
version, observation size); the policy agent plays it on the options the env computes
(same determinization, order and the model's own K); an older file without the buffer is
read off its observation space; a file or model of neither kind is one line saying what
it is and what the agent takes.
"""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

import concordia_env
from concordia_env import Game, OptionsPolicy, agents
from concordia_env.agents.adapter import PettingZooAgent
from concordia_env.agents.base import draw_seed
from concordia_env.agents.policy import PolicyAgent
from concordia_env.engine.observation import OBS_SIZE
from concordia_env.envs.options_level import OptionSet
from concordia_env.envs.sb3 import SB3VecEnv

K = 8


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[MaskablePPO, Path]:
    torch.set_num_threads(1)
    env = SB3VecEnv(2, level="options", max_options=K, opponents="heuristic", reward="vp", seed=0)
    model = MaskablePPO(OptionsPolicy, env, n_steps=8, batch_size=16, n_epochs=1, seed=0)
    model.learn(16)
    path = tmp_path_factory.mktemp("options") / "opt.zip"
    model.save(path)
    return model, path


def weights_of(path: Path) -> dict:
    with zipfile.ZipFile(path) as archive:
        return torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)


def test_the_saved_file_says_its_level(trained: tuple[MaskablePPO, Path]) -> None:
    _, path = trained
    assert weights_of(path)["options_level"].tolist() == [K, 2, OBS_SIZE]
    agent = agents.from_spec(f"policy:{path}")
    assert (agent.level, agent.max_options, agent.features_version) == ("options", K, 2)
    assert MaskablePPO.load(path).policy.options_level.tolist() == [K, 2, OBS_SIZE]


def test_evaluate_takes_the_model_in_memory_and_from_its_file_alike(trained: tuple[MaskablePPO, Path]) -> None:
    model, path = trained
    in_memory = concordia_env.evaluate(model, opponents=["random"], games=4, seed=3, progress=False)
    from_file = concordia_env.evaluate(f"policy:{path}", opponents=["random"], games=4, seed=3, progress=False)
    a, b = in_memory["random"], from_file["random"]
    assert (a.games, a.wins, a.mean_vp, a.mean_opponent_vp) == (b.games, b.wins, b.mean_vp, b.mean_opponent_vp)


def test_the_agent_plays_the_env_s_options_with_the_model_s_own_k(trained: tuple[MaskablePPO, Path]) -> None:
    model, path = trained
    agent = agents.from_spec(f"policy:{path}")
    agent.reset(5)
    game, opponent = Game.new("italia", 2, seed=5), agents.make("heuristic", seed=1)
    checked = 0
    while not game.is_over() and checked < 30:
        if game.current_player == 0 and len(game.legal_actions()) > 1:
            rng = copy.deepcopy(agent.rng)
            action = agent.act(game)
            options = OptionSet(K, 2)  # the env's computation, with the seed the agent drew
            options.compute(game, draw_seed(rng))
            observation = options.observation(game.observation(game.current_player))
            chosen = int(model.predict(observation, deterministic=True)[0])
            assert action == options.first_action(chosen)
            checked += 1
        else:
            action = (agent if game.current_player == 0 else opponent).act(game)
        game.step(action)
    assert checked == 30


def test_an_older_file_without_the_level_is_read_off_its_observation_space(
    trained: tuple[MaskablePPO, Path], tmp_path: Path
) -> None:
    model, path = trained
    older = tmp_path / "older.zip"
    with zipfile.ZipFile(path) as original, zipfile.ZipFile(older, "w") as out:
        for name in original.namelist():
            content = original.read(name)
            if name == "policy.pth":
                weights = weights_of(path)
                del weights["options_level"]
                buffer = io.BytesIO()
                torch.save(weights, buffer)
                content = buffer.getvalue()
            out.writestr(name, content)
    assert "options_level" not in weights_of(older)
    agent = agents.from_spec(f"policy:{older}")
    assert (agent.level, agent.max_options) == ("options", K)
    assert MaskablePPO.load(older).policy.options_level.tolist() == [K, 2, OBS_SIZE]
    a = concordia_env.evaluate(model, opponents=["random"], games=2, seed=1, progress=False)["random"]
    b = concordia_env.evaluate(f"policy:{older}", opponents=["random"], games=2, seed=1, progress=False)["random"]
    assert (a.wins, a.mean_vp) == (b.wins, b.mean_vp)


def test_pettingzoo_agent_plays_it_from_an_options_observation_or_from_the_game(
    trained: tuple[MaskablePPO, Path],
) -> None:
    _, path = trained
    for level in ("options", "flat"):
        env = concordia_env.env(map="italia", num_players=2, level=level, max_options=K)
        env.reset(seed=2)
        players = {name: PettingZooAgent("policy", path=str(path)) for name in env.agents}
        for name in env.agent_iter(max_iter=40):
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                action = None
            elif level == "options":
                action = players[name].act(observation)  # an option of the env's own
            else:
                action = players[name].act(observation, env)  # the options computed from the game
            if action is not None:
                assert observation["action_mask"][action] == 1
            env.step(action)
    flat_observation = {"observation": np.zeros(OBS_SIZE, np.float32), "action_mask": np.ones(769, np.int8)}
    with pytest.raises(ValueError, match="plays the options level"):
        PettingZooAgent("policy", path=str(path)).act(flat_observation)


def test_the_commands_take_it(trained: tuple[MaskablePPO, Path], tmp_path: Path) -> None:
    _, path = trained
    concordia = [sys.executable, "-m", "concordia_env.tools.cli"]
    evaluated = subprocess.run(
        [*concordia, "evaluate", f"policy:{path}", "--vs", "random", "--games", "2", "--workers", "2", "--quiet"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert evaluated.returncode == 0, evaluated.stderr
    assert "vs random: won" in evaluated.stdout
    html = tmp_path / "game.html"
    replayed = subprocess.run(
        [*concordia, "replay", "--play", f"policy:{path}", "random", "--map", "italia", "--html", str(html)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert replayed.returncode == 0, replayed.stderr
    assert html.is_file()


def test_a_file_or_model_of_neither_kind_is_one_line_saying_what_it_is(tmp_path: Path) -> None:
    from stable_baselines3 import PPO

    archive = tmp_path / "weights.npz"
    np.savez(archive, a=np.zeros(3))
    with pytest.raises(ValueError, match=r"a numpy archive \(\.npz; a learned-agent model plays as learned:") as npz:
        agents.make("policy", path=archive)
    ppo = PPO("MlpPolicy", concordia_env.SingleAgentEnv(), n_steps=16, batch_size=16, seed=0, device="cpu")
    with pytest.raises(ValueError, match=r"ActorCriticPolicy.*is not a MaskablePPO policy; .*OptionsPolicy") as plain:
        PolicyAgent.from_model(ppo)
    for caught in (npz, plain):
        assert "\n" not in str(caught.value)


# ---------------------------------------------------------------------- a ppo_options run's model.pt
@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny ``concordia train ppo_options`` run with K = 8: its folder (config.json, model.pt, checkpoint.pt)."""
    from concordia_env.training import ppo_options

    runs = tmp_path_factory.mktemp("ppo_runs")
    tiny = ["--num_envs", "2", "--num_steps", "16", "--total_steps", "64", "--eval_games", "2", "--max_options", "8"]
    prior = ["--utility_prior", "120"]  # the heuristic's ranking in the logits: no near-ties between options
    ppo_options.main([*tiny, *prior, "--runs_dir", str(runs), "--seed", "2"])
    (run,) = runs.iterdir()
    return run


def test_a_ppo_options_model_plays_as_its_network_chooses(ppo_run: Path) -> None:
    from concordia_env.training import ppo_options

    agent = agents.from_spec(f"policy:{ppo_run / 'model.pt'}")
    assert (agent.level, agent.max_options, agent.features_version) == ("options", K, 2)
    net = ppo_options.load(ppo_run / "model.pt")
    reference = ppo_options.options_agent(net, K, net.encoder.num_features)  # what the run's evaluation plays
    game, opponent = Game.new("italia", 2, seed=7), agents.make("heuristic", seed=1)
    agent.reset(3)
    checked = 0
    while not game.is_over():
        if game.current_player == 0:
            reference.rng = copy.deepcopy(agent.rng)  # the same determinizations
            observation_before = game.observation(0)
            action = agent.act(game)
            assert action == reference.act(game), f"decision {checked}"
            assert np.array_equal(observation_before, game.observation(0)), "choosing changed nothing"
            checked += 1
        else:
            action = opponent.act(game)
        game.step(action)
    assert checked > 20
    options = OptionSet(K, 2)  # the probabilities too, not only the choice
    options.compute(Game.new("italia", 2, seed=7), 11)
    observation = options.observation(Game.new("italia", 2, seed=7).observation(0))
    with torch.no_grad():
        logits, _ = net(*(x.unsqueeze(0) for x in ppo_options.tensors(observation)))
    expected = torch.softmax(logits[0], dim=0).numpy()
    assert np.allclose(agent.action_probabilities(observation, observation["action_mask"]), expected, atol=1e-6)


def test_a_ppo_options_model_goes_wherever_a_model_goes(ppo_run: Path, tmp_path: Path) -> None:
    model = ppo_run / "model.pt"
    result = concordia_env.evaluate(f"policy:{model}", opponents=["random"], games=2, seed=3, progress=False)
    assert result["random"].games == 2
    tournament = ["tournament", "--agents", f"policy:{model}", "random", "--games", "2", "--no-plots", "--quiet"]
    files = ["--db", str(tmp_path / "games.db"), "--out", str(tmp_path / "tournament")]
    played = subprocess.run(  # two worker processes forked after torch ran in this one: they must not hang
        [sys.executable, "-m", "concordia_env.tools.cli", *tournament, *files, "--workers", "2"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert played.returncode == 0, played.stderr
    summary = json.loads((tmp_path / "tournament" / "summary.json").read_text())
    assert summary["games_finished"] == 2 and summary["agents"][0]["agent"] == f"policy:{model}"
    trusted = agents.make("policy", path=model, trusted=True)  # no MaskablePPO file: read the same way
    assert trusted.max_options == K


def test_an_older_model_pt_takes_its_k_from_the_run_s_config(ppo_run: Path, tmp_path: Path) -> None:
    saved = torch.load(ppo_run / "model.pt", weights_only=True)
    assert saved["max_options"] == K
    del saved["max_options"]  # as the script wrote it before the file said its K
    older = tmp_path / "older"
    older.mkdir()
    torch.save(saved, older / "model.pt")
    with pytest.raises(ValueError, match=r"a ppo_options model that does not say its max_options") as caught:
        agents.make("policy", path=older / "model.pt")
    assert "\n" not in str(caught.value)
    (older / "config.json").write_text((ppo_run / "config.json").read_text())
    assert agents.make("policy", path=older / "model.pt").max_options == K


def test_other_torch_files_are_one_line_saying_what_they_are(ppo_run: Path, tmp_path: Path) -> None:
    from concordia_env.agents.policy import UnsafeModelError

    with pytest.raises(UnsafeModelError, match=r"holds more than weights .*a run's checkpoint\?") as checkpoint:
        agents.make("policy", path=ppo_run / "checkpoint.pt")
    other = tmp_path / "other.pt"
    torch.save({"weights": torch.zeros(3)}, other)
    with pytest.raises(ValueError, match=r"a torch file \(weights\), not a model.pt of concordia train ppo_opt") as o:
        agents.make("policy", path=other)
    saved = torch.load(ppo_run / "model.pt", weights_only=True)
    saved["sizes"]["option_hidden"] = [7]  # weights of another shape
    mismatched = tmp_path / "mismatched.pt"
    torch.save(saved, mismatched)
    with pytest.raises(ValueError, match=r"a ppo_options model.pt, but its sizes and weights do not build") as shape:
        agents.make("policy", path=mismatched)
    for caught in (checkpoint, o, shape):
        assert "\n" not in str(caught.value)


@pytest.mark.parametrize("command", ["evaluate", "tournament"])
def test_the_commands_play_a_model_on_one_torch_thread_and_the_library_leaves_torch_alone(
    ppo_run: Path, tmp_path: Path, command: str
) -> None:
    """``concordia evaluate`` / ``tournament`` in their own process: torch on one thread, as in their workers.

    The tournament goes through ``run_for_command``, as ``bench ladder`` and the strength bars do;
    the library's ``evaluate`` is called inside a user's process and leaves its threads as they are.
    """
    from concordia_env.tools import evaluate as evaluate_command
    from concordia_env.tools import tournament as tournament_command

    spec = f"policy:{ppo_run / 'model.pt'}"
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        concordia_env.evaluate(spec, opponents="random", games=2, seed=0)
        assert torch.get_num_threads() == 2
        if command == "evaluate":
            assert evaluate_command.main([spec, "--vs", "random", "--games", "2", "--quiet"]) == 0
        else:
            db, out = tmp_path / "t.sqlite", tmp_path / "out"
            argv = ["--agents", spec, "random", "--games", "2", "--db", str(db), "--out", str(out)]
            assert tournament_command.main(argv) == 0
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)
