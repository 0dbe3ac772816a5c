"""Training at the options level end to end: MaskablePPO with OptionsPolicy, the single-file script, RLlib.

Tiny runs (a few hundred steps, 2-game evaluations) that keep the pipelines working; they
say nothing about strength (docs/training.md, "The options level", has the measured runs).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch as th
from sb3_contrib import MaskablePPO

from concordia_env import OptionsPolicy, SingleAgentEnv
from concordia_env.agents.options_policy import options_agent
from concordia_env.tools import cli
from concordia_env.training import ppo_options
from concordia_env.training.run_evaluation import OptionsAgent, evaluate
from tests.interrupts import interruptible


@pytest.fixture(autouse=True)
def one_torch_thread() -> Iterator[None]:
    """One torch thread: the networks are small, and more threads on a busy machine are far slower."""
    threads = th.get_num_threads()
    th.set_num_threads(1)
    yield
    th.set_num_threads(threads)


def options_env(**options: object) -> SingleAgentEnv:
    return SingleAgentEnv(level="options", map="italia", num_players=2, illegal_action="raise", **options)


def test_a_tiny_maskable_ppo_run_with_options_policy_trains_end_to_end(tmp_path: Path) -> None:
    env = options_env(opponents="heuristic", seat="random")
    model = MaskablePPO(OptionsPolicy, env, n_steps=128, batch_size=64, n_epochs=2, seed=0)
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)  # illegal_action="raise": one masked option played would fail the run
    assert model.num_timesteps == 256
    assert any(not th.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True)), "it learned"
    model.save(tmp_path / "model.zip")
    loaded = MaskablePPO.load(tmp_path / "model.zip", env=options_env(opponents="heuristic"))
    obs, _ = env.reset(seed=4)
    for _ in range(20):  # the loaded model plays the same moves on the real env
        action, _ = loaded.predict(obs, deterministic=True)
        assert action == model.predict(obs, deterministic=True)[0]
        obs, *_ = env.step(action)
    result = evaluate(options_agent(loaded), "random", 2, map="italia", num_players=2, seed=0, index=0)
    assert result.games == 2


def test_the_options_agent_plays_the_env_s_options() -> None:
    """The evaluation's agent sees what the env shows: row 0 (the heuristic's best option) beats random."""
    result = evaluate(OptionsAgent(lambda obs: 0, 96, 2), "random", 4, map="italia", num_players=2, seed=0, index=0)
    assert result.wins == 4


def test_the_single_file_script_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = ["--num_envs", "2", "--num_steps", "32", "--total_steps", "128", "--eval_games", "2"]
    assert cli.main(["train", "ppo_options", *tiny, "--runs_dir", str(tmp_path), "--seed", "3"]) == 0
    (run,) = tmp_path.iterdir()
    assert json.loads((run / "config.json").read_text())["seed"] == 3
    lines = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    assert [x["update"] for x in lines] == [1, 2] and lines[-1]["steps"] == 128
    assert np.isfinite([lines[-1]["pg_loss"], lines[-1]["v_loss"], lines[-1]["entropy"]]).all()
    report = json.loads((run / "eval.json").read_text())
    assert report["games"] == 2 and report["opponent"] == "heuristic" and report["cut_short"] is False
    assert 0 <= report["ci_low"] <= report["win_rate"] <= report["ci_high"] <= 1
    assert "vs heuristic: won" in capsys.readouterr().out
    net = ppo_options.load(run / "model.pt")  # the saved network plays a real observation
    obs, _ = options_env(opponents="random").reset(seed=0)
    logits, _ = net(*(x.unsqueeze(0) for x in ppo_options.tensors(obs)))
    assert obs["action_mask"][int(logits.argmax())] == 1


def test_the_script_s_time_guard_says_it_cut_the_run_short(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = ["--num_envs", "1", "--num_steps", "16", "--total_steps", "64", "--eval_games", "2", "--minutes", "0"]
    report = ppo_options.main([*tiny, "--runs_dir", str(tmp_path)])
    assert report["cut_short"] is True and report["timesteps"] == 16
    assert "time guard: stopped after 0 minutes, 16 of 64 steps" in capsys.readouterr().out
    resumed = ppo_options.main(["--resume", report["run_dir"], "--minutes", "60"])  # more minutes: it goes on
    assert resumed["cut_short"] is False and resumed["timesteps"] == 64


def _run_record(run: Path) -> tuple[list[dict], dict[str, th.Tensor], dict]:
    """What a run ended with, its timings left out: the progress lines, the network's weights, the evaluation."""
    lines = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    for line in lines:
        del line["seconds"], line["steps_per_s"]
    report = json.loads((run / "eval.json").read_text())
    return lines, th.load(run / "model.pt")["state_dict"], {k: report[k] for k in ("wins", "mean_vp", "timesteps")}


def test_a_run_stopped_after_its_checkpoint_and_resumed_ends_as_an_uninterrupted_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tiny = ["--num_envs", "2", "--num_steps", "16", "--total_steps", "128", "--eval_games", "2", "--seed", "4"]
    tiny += ["--save_every", "2"]  # 4 updates: checkpoints after the 2nd and the 4th
    ppo_options.main([*tiny, "--runs_dir", str(tmp_path / "straight")])
    collect, calls = ppo_options.collect, [0]

    def stopped_collect(*args: object, **kwargs: object) -> None:
        calls[0] += 1
        if calls[0] == 4:  # in the 4th update: the 3rd is done, after the checkpoint of the 2nd
            raise KeyboardInterrupt
        collect(*args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(ppo_options, "collect", stopped_collect)
        with pytest.raises(SystemExit) as exit_info:
            ppo_options.main([*tiny, "--runs_dir", str(tmp_path / "stopped")])
    assert exit_info.value.code == 130
    (run,) = (tmp_path / "stopped").iterdir()
    assert len((run / "progress.jsonl").read_text().splitlines()) == 3 and not (run / "eval.json").exists()
    ppo_options.main(["--resume", str(run), "--eval_games", "2"])
    (straight,) = (tmp_path / "straight").iterdir()
    (lines, weights, report), (lines_b, weights_b, report_b) = _run_record(straight), _run_record(run)
    assert [x["update"] for x in lines_b] == [1, 2, 3, 4]  # the 3rd update's line, played again, once
    assert lines == lines_b and report == report_b
    assert weights.keys() == weights_b.keys() and all(th.equal(weights[k], weights_b[k]) for k in weights)
    assert not (run / "writer.lock").exists()  # the lock goes with the command


def test_a_run_stopped_in_its_first_update_resumes_from_its_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tiny = ["--num_envs", "1", "--num_steps", "16", "--total_steps", "32", "--eval_games", "2", "--seed", "2"]
    ppo_options.main([*tiny, "--runs_dir", str(tmp_path / "straight")])
    with monkeypatch.context() as patch:
        patch.setattr(ppo_options, "collect", lambda *args: (_ for _ in ()).throw(KeyboardInterrupt))
        with pytest.raises(SystemExit):
            ppo_options.main([*tiny, "--runs_dir", str(tmp_path / "stopped")])
    (run,) = (tmp_path / "stopped").iterdir()
    ppo_options.main(["--resume", str(run)])  # from the checkpoint of update 0
    (straight,) = (tmp_path / "straight").iterdir()
    (lines, weights, report), (lines_b, weights_b, report_b) = _run_record(straight), _run_record(run)
    assert lines == lines_b and report == report_b and all(th.equal(weights[k], weights_b[k]) for k in weights)


def test_the_script_runs_on_the_one_training_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its run class is a ``TrainingRun``: the loop's iterations, checkpoints, time guard and end write its folder."""
    from concordia_env.training.loop import TrainingRun

    assert issubclass(ppo_options.OptionsPPORun, TrainingRun)
    calls: list[str] = []
    for name in ("train", "advance", "checkpoint", "time_guard", "finish"):
        method = getattr(ppo_options.OptionsPPORun, name)
        monkeypatch.setattr(ppo_options.OptionsPPORun, name, _recorded(method, name, calls))
    tiny = ["--num_envs", "1", "--num_steps", "16", "--total_steps", "48", "--eval_games", "2", "--save_every", "2"]
    report = ppo_options.main([*tiny, "--runs_dir", str(tmp_path)])
    update = ["advance", "time_guard"]  # then a checkpoint when due: the 2nd update and the last (the 3rd)
    assert calls == ["checkpoint", "train", *update, *update, "checkpoint", *update, "checkpoint", "finish"]
    run = Path(report["run_dir"])
    summary = json.loads((run / "summary.json").read_text())
    assert (summary["updates"], summary["timesteps"], summary["stop_reason"]) == (3, 48, "completed")
    assert summary["final"][0]["games"] == 2 == report["games"] and summary["model_path"] == str(run / "model.pt")
    assert (run / "report.md").read_text().startswith("# ppo_options: PPO on the options level, 2-player italia")
    assert (run / "learning_curve.png").is_file() and (run / "evaluations.csv").is_file()


def _recorded(method: Any, name: str, calls: list[str]) -> Any:
    """``method`` that appends ``name`` to ``calls`` before it runs."""

    def recorded(*args: Any, **kwargs: Any) -> Any:
        calls.append(name)
        return method(*args, **kwargs)

    return recorded


def test_a_run_the_time_guard_stopped_says_why_in_its_summary(tmp_path: Path) -> None:
    tiny = ["--num_envs", "1", "--num_steps", "16", "--total_steps", "64", "--eval_games", "2", "--minutes", "0"]
    report = ppo_options.main([*tiny, "--runs_dir", str(tmp_path)])
    summary = json.loads((Path(report["run_dir"]) / "summary.json").read_text())
    assert summary["stop_reason"].startswith("CUT SHORT by the time limit of 0 minutes after update 1 of 4")
    again = ppo_options.main(["--resume", report["run_dir"]])  # no more minutes: no update, the same end
    assert (again["timesteps"], again["cut_short"]) == (16, True)
    assert len((Path(report["run_dir"]) / "progress.jsonl").read_text().splitlines()) == 1


def test_a_resume_refuses_a_change_the_run_cannot_follow(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tiny = ["--num_envs", "1", "--num_steps", "16", "--total_steps", "16", "--eval_games", "0"]
    ppo_options.main([*tiny, "--runs_dir", str(tmp_path)])
    (run,) = tmp_path.iterdir()
    with pytest.raises(SystemExit) as exit_info:
        ppo_options.main(["--resume", str(run), "--learning_rate", "0.1", "--num_envs", "1"])
    assert exit_info.value.code == 2
    assert "learning_rate cannot change when resuming; changeable: minutes, " in capsys.readouterr().err


def test_ctrl_c_stops_the_script_in_one_line_and_keeps_its_checkpoint(tmp_path: Path) -> None:
    argv = ["--num_envs", "2", "--num_steps", "16", "--total_steps", "10000000", "--save_every", "1"]
    run = interruptible(
        [sys.executable, "-m", "concordia_env.training.ppo_options", *argv, "--runs_dir", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert run.stdout is not None
    for _ in range(2):  # two updates done (each prints its line after its checkpoint is due)
        assert json.loads(run.stdout.readline())["update"] >= 1
    os.kill(run.pid, signal.SIGINT)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr[-3000:]
    (folder,) = tmp_path.iterdir()
    assert stderr.splitlines()[-1] == f"interrupted; continue with: concordia train ppo_options --resume {folder}"
    assert th.load(folder / "checkpoint.pt", weights_only=False)["progress"]["update"] >= 1
    assert not (folder / "writer.lock").exists()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--num_envs", "0"], "num_envs must be positive, got 0"),
        (["--total_steps", "0"], "total_steps must be positive, got 0"),
        (["--anneal_lr", "maybe"], "anneal_lr must be true or false, got 'maybe'"),
        (["--gamma", "2"], "gamma must be in 0..1, got 2.0"),
        (["--minutes", "-1"], "minutes, ent_coef, vf_coef and eval_games must be >= 0"),
        (["--minutes", "nan"], "minutes, ent_coef, vf_coef and eval_games must be >= 0"),
        (["--num_minibatches", "50000"], "num_minibatches (50000) exceeds a rollout's 256 x 8 steps"),
        (["--opponents", "bogus"], "unknown agent 'bogus'"),
        (["--map", "nowhere"], "unknown map 'nowhere'"),
        (["--learning_rate", "fast"], "learning_rate must be a number, got 'fast'"),
        (["--option_hidden", "[128, 0]"], "option_hidden and observation_hidden must be positive layer sizes"),
        (["--bogus_key", "1"], "unrecognized arguments: --bogus_key 1"),
    ],
)
def test_a_script_mistake_is_one_line_and_writes_nothing(
    argv: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = tmp_path / "runs"
    with pytest.raises(SystemExit) as exit_info:
        ppo_options.main([*argv, "--runs_dir", str(runs)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("concordia train ppo_options: error:")
    assert not runs.exists()  # refused before any file


def test_an_unwritable_runs_dir_is_refused_before_training(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(SystemExit) as exit_info:
        ppo_options.main(["--runs_dir", str(blocker / "runs")])
    assert exit_info.value.code == 2 and "Not a directory" in capsys.readouterr().err


# --------------------------------------------------------------------------- RLlib
@pytest.fixture(scope="module")
def rllib_modules() -> Iterator[tuple]:
    pytest.importorskip("ray.rllib")
    from concordia_env.integrations import rllib as rllib_integration
    from concordia_env.training import options_rllib

    yield rllib_integration, options_rllib
    import ray

    if ray.is_initialized():
        ray.shutdown()


def test_the_rllib_module_scores_the_options_of_the_pettingzoo_level(rllib_modules: tuple) -> None:
    from ray.rllib.core.columns import Columns

    rllib_integration, options_rllib = rllib_modules
    env = rllib_integration.env(level="options", map="italia", num_players=2)
    space = env.observation_spaces["player_0"]
    assert set(space) == {"observations", "options", "action_mask"}
    module = options_rllib.OptionsRLModule(observation_space=space, action_space=env.action_spaces["player_0"])
    obs, _ = env.reset(seed=0)
    ((_, first),) = obs.items()
    batch = {Columns.OBS: {key: th.as_tensor(value)[None] for key, value in first.items()}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    assert logits.shape == (1, space["options"].shape[0])
    assert (logits[0, th.as_tensor(first["action_mask"]) == 0] == -1e8).all()
    assert th.isfinite(module.compute_values(batch)).all()
    with pytest.raises(ValueError, match="OptionsRLModule takes observations"):
        options_rllib.OptionsRLModule(
            observation_space=rllib_integration.env().observation_spaces["player_0"],
            action_space=env.action_spaces["player_0"],
        )


def test_one_tiny_rllib_iteration_of_options_self_play(rllib_modules: tuple, tmp_path: Path) -> None:
    from concordia_env.training import rllib_ppo

    config = rllib_ppo.RLlibConfig.load("concordia_env/training/configs/rllib_options_tiny.yaml", {})
    assert config.level == "options" and config.illegal_action == "raise"
    summary = rllib_ppo.train(config, tmp_path / "run")
    (line,) = [json.loads(x) for x in (tmp_path / "run" / "progress.jsonl").read_text().splitlines()]
    assert line["module_steps_trained"] > 0 and np.isfinite(line["policy_loss"])
    assert summary["eval"]["games"] == 2
    with pytest.raises(ValueError, match="heuristic fixed policy plays the flat level"):
        rllib_ppo.RLlibConfig.load(None, {"level": "options", "opponents": {"heuristic": 0.5}})


def test_the_options_rllib_config_is_valid_and_evaluates_against_random() -> None:
    from concordia_env.training import rllib_ppo

    path = Path(__file__).resolve().parents[1] / "docs" / "configs" / "rllib_options.yaml"
    config = rllib_ppo.RLlibConfig.load(path, {})
    assert config.level == "options" and config.eval_opponent == "random" and config.eval_games == 200
    assert set(config.opponents) == {"random"}


def test_a_ctrl_c_while_the_checkpoint_is_written_ends_in_one_line_and_the_checkpoint_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Ctrl-C in the middle of torch's file writer: before, torch's own error escaped as a traceback."""
    tiny = ["--num_envs", "2", "--num_steps", "16", "--total_steps", "64", "--eval_games", "2", "--seed", "4"]
    tiny += ["--save_every", "1"]  # a checkpoint after every update
    save, saves = th.save, [0]

    def interrupted_save(*args: object, **kwargs: object) -> None:
        saves[0] += 1
        if saves[0] == 3:  # the checkpoint after the first update (update 0's wrote checkpoint and model)
            os.kill(os.getpid(), signal.SIGINT)
        save(*args, **kwargs)  # type: ignore[arg-type]

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    try:
        with monkeypatch.context() as patch:
            patch.setattr(th, "save", interrupted_save)
            with pytest.raises(SystemExit) as exit_info:
                ppo_options.main([*tiny, "--runs_dir", str(tmp_path)])
    finally:
        signal.signal(signal.SIGINT, previous)
    assert exit_info.value.code == 130 and saves[0] >= 3
    (run,) = tmp_path.iterdir()
    assert capsys.readouterr().err.rstrip().splitlines()[-1] == (
        f"interrupted; continue with: concordia train ppo_options --resume {run}"
    )
    checkpoint = th.load(run / ppo_options.CHECKPOINT, weights_only=False)
    assert checkpoint["progress"]["update"] == 1  # written whole after the Ctrl-C, and then the run stopped
    resumed = ppo_options.main(["--resume", str(run), "--eval_games", "2"])
    assert resumed["timesteps"] == 64
