"""RLlib on Ray: the env factory RLlib's masking module expects, one tiny PPO iteration, resume, clean exit."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from concordia_env.integrations import rllib as rllib_integration
from concordia_env.training import rllib_ppo
from concordia_env.training.policy_net import NumpyActor
from tests.interrupts import interruptible
from tests.test_docs import DOCS, needs_ray, python_blocks


@pytest.fixture(autouse=True, scope="module")
def _shut_down_ray() -> Iterator[None]:
    """Whatever a test leaves behind (a failure halfway, say), no Ray outlives this module."""
    yield
    import ray

    if ray.is_initialized():
        ray.shutdown()


def test_env_factory_gives_rllib_keys_and_plays_legal_games() -> None:
    env = rllib_ppo.make_env({"map": "italia", "num_players": 2, "max_cycles": 60, "with_state": True})
    obs, _ = env.reset(seed=3)
    ((agent, first),) = obs.items()
    assert set(first) == {"observations", "action_mask", "state"}
    assert env.observation_spaces[agent].contains(first)
    rng = np.random.default_rng(0)
    done = False
    while not done:
        agent, o = next(iter(obs.items()))
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, _, terminated, truncated, _ = env.step({agent: action})
        done = terminated["__all__"] or truncated["__all__"]
    assert truncated["__all__"], "max_cycles ends the episode"


def test_policy_mapping_keeps_one_learner_seat() -> None:
    mapping = rllib_ppo.policy_mapping({"random": 0.5, "heuristic": 0.5}, 4, seed=0)

    class Episode:
        def __init__(self, i: int) -> None:
            self.id_ = f"episode-{i}"

    for i in range(20):
        names = [mapping(f"player_{k}", Episode(i)) for k in range(4)]
        assert names.count(rllib_ppo.SHARED) == 1
        assert names == [mapping(f"player_{k}", Episode(i)) for k in range(4)], "one draw per episode"
    assert rllib_ppo.policy_mapping({}, 3, seed=0)("player_2", Episode(0)) == rllib_ppo.SHARED
    with pytest.raises(ValueError, match="opponents"):
        rllib_ppo.RLlibConfig(opponents={"mcts": 0.5})
    with pytest.raises(ValueError, match="illegal_action"):
        rllib_ppo.RLlibConfig(illegal_action="ignore")
    with pytest.raises(ValueError, match="num_cpus"):
        rllib_ppo.RLlibConfig(num_cpus=1, env_runners=2)


def test_a_local_ray_has_one_cpu_per_env_runner_so_the_tiny_config_runs_two_on_two_cores() -> None:
    tiny = "concordia_env/training/configs/rllib_tiny.yaml"
    assert rllib_ppo.local_cpus(rllib_ppo.RLlibConfig.load(tiny, {})) == 1  # the driver samples
    assert rllib_ppo.local_cpus(rllib_ppo.RLlibConfig.load(tiny, {"env_runners": 2})) == 2
    assert rllib_ppo.local_cpus(rllib_ppo.RLlibConfig.load(tiny, {"env_runners": 2, "num_cpus": 4})) == 4


def _ray_processes() -> list[str]:
    """The live Ray processes (raylet, gcs_server, ray:: workers) descending from this test process."""
    parent, names = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if state != "Z":  # a zombie has ended; it only waits to be reaped
            parent[int(entry.name)], names[int(entry.name)] = int(ppid), cmdline
    me, found = os.getpid(), []
    for pid, cmdline in names.items():
        ancestor = parent.get(pid)
        while ancestor not in (None, 0, 1, me):
            ancestor = parent.get(ancestor)
        if ancestor == me and any(key in cmdline for key in ("raylet", "gcs_server", "ray::")):
            found.append(f"{pid} {cmdline[:80]}")
    return found


def _assert_ray_is_gone(seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while (left := _ray_processes()) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not left, f"Ray processes outlived the run: {left}"


def _same(a: NumpyActor, b: NumpyActor) -> bool:
    return all(np.array_equal(x, y) for x, y in zip([*a.weights, *a.biases], [*b.weights, *b.biases], strict=True))


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds Ray's processes in /proc")
def test_tiny_run_trains_checkpoints_resumes_and_leaves_no_ray_process(tmp_path: Path) -> None:
    config = rllib_ppo.RLlibConfig.load("concordia_env/training/configs/rllib_tiny.yaml", {"runs_dir": str(tmp_path)})
    assert config.illegal_action == "raise", "one unmasked action of any policy would fail the run"
    run = tmp_path / "run"
    summary = rllib_ppo.train(config, run)  # starts a local Ray of config.num_cpus and shuts it down
    _assert_ray_is_gone()
    (first,) = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    assert first["iteration"] == 1 and first["env_steps"] >= config.train_batch_size
    assert first["module_steps_trained"] > 0, "the shared policy was updated"
    assert np.isfinite([first["policy_loss"], first["vf_loss"], first["entropy"]]).all()
    assert summary["eval"]["games"] == config.eval_games and summary["eval"]["opponent"] == "heuristic"
    saved = rllib_ppo.checkpoint_actor(run / "checkpoints" / "iter_0001", config.activation)
    assert _same(saved, NumpyActor.load(run / "actor.npz")), "the checkpoint holds the evaluated policy"

    resumed = rllib_ppo.RLlibConfig.load(run / "config.yaml", {"iterations": 2, "eval_games": 0})
    rllib_ppo.train(resumed, run, resume=True)
    _assert_ray_is_gone()
    lines = [json.loads(x) for x in (run / "progress.jsonl").read_text().splitlines()]
    assert [x["iteration"] for x in lines] == [1, 2]
    assert lines[1]["env_steps_lifetime"] > lines[0]["env_steps_lifetime"], "resumed, not restarted"
    trained = rllib_ppo.checkpoint_actor(run / "checkpoints" / "iter_0002", config.activation)
    assert not _same(trained, saved), "the resumed iteration trained the policy further"
    with pytest.raises(FileNotFoundError, match="shared"):
        rllib_ppo.checkpoint_actor(tmp_path, config.activation)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds Ray's processes in /proc")
def test_ctrl_c_stops_a_run_in_one_line_keeping_its_checkpoints_and_no_ray_process(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "concordia_env.training.rllib_ppo", "--config", "rllib_tiny"]
    command += ["--iterations", "1000", "--eval_games", "0", "--runs_dir", str(tmp_path)]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    run = interruptible(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert run.stdout is not None
    for line in run.stdout:  # "run directory: ...", then one JSON line per iteration, after its checkpoint
        if line.startswith("{") and json.loads(line)["iteration"] >= 1:
            break
    run.send_signal(signal.SIGINT)
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 130, stderr[-3000:]
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr[-3000:]
    (folder,) = tmp_path.iterdir()
    last = stderr.strip().splitlines()[-1]
    assert last == f"interrupted; its checkpoints are kept: continue with concordia train rllib --resume {folder}"
    assert (folder / "checkpoints" / "iter_0001").is_dir() and not (folder / "writer.lock").exists()
    _assert_ray_is_gone()


def test_a_resume_cuts_the_progress_back_to_its_checkpoint(tmp_path: Path) -> None:
    """The iterations after the checkpoint a run resumes from are trained again: their old lines go."""
    progress = tmp_path / "progress.jsonl"
    progress.write_text("".join(json.dumps({"iteration": i, "env_steps": 10 * i}) + "\n" for i in (1, 2, 3, 4)))
    rllib_ppo._keep_progress_to(progress, 2)
    assert [json.loads(x)["iteration"] for x in progress.read_text().splitlines()] == [1, 2]
    rllib_ppo._keep_progress_to(progress, 0)  # no checkpoint: the run starts over
    assert progress.read_text() == ""


@pytest.mark.slow
def test_sampling_throughput_times_the_steps_it_counts() -> None:
    config = rllib_ppo.RLlibConfig.load(
        "concordia_env/training/configs/rllib_tiny.yaml",
        {"train_batch_size": 60, "minibatch_size": 30, "opponents": {}},
    )
    with pytest.raises(ValueError, match="rounds"):
        rllib_ppo.sampling_throughput(config, rounds=1)  # refused before Ray starts
    result = rllib_ppo.sampling_throughput(config, rounds=2)  # the driver samples (env_runners: 0)
    _assert_ray_is_gone()
    assert result["env_runners"] == 0 and len(result["steps_per_round"]) == 2
    assert all(steps >= config.train_batch_size for steps in result["steps_per_round"])
    for rate in (result["steps_per_wall_second"], result["steps_per_runner_cpu_second"]):
        assert len(rate["per_round"]) == 2 and min(rate["per_round"]) > 0
        assert rate["ci95"][0] <= rate["mean"] <= rate["ci95"][1]


def test_the_integration_refuses_unknown_agents_and_fixed_policies_refuse_training() -> None:
    with pytest.raises(ValueError, match="unknown agent"):
        rllib_integration.fixed_policy_spec("nobody", map="italia")
    spec = rllib_integration.fixed_policy_spec("mcts:5", map="italia", seed=3)
    assert spec.module_class is rllib_integration.AgentRLModule
    assert spec.model_config == {"agent": "mcts:5", "map": "italia", "seed": 3}
    assert rllib_integration.fixed_policy_spec("random", map="italia").module_class is rllib_integration.RandomRLModule
    env = rllib_integration.env({"map": "italia", "num_players": 2}, max_cycles=10)
    obs, _ = env.reset(seed=0)
    assert set(next(iter(obs.values()))) == {"observations", "action_mask"}, "no state unless asked for"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="finds Ray's processes in /proc")
def test_your_own_rllib_config_in_the_docs_trains_and_leaves_no_ray_process(capsys: pytest.CaptureFixture[str]) -> None:
    """The "your own RLlib config" block of docs/environments.md as written: a PPO iteration against the heuristic."""
    (block,) = [b for b in python_blocks((DOCS / "environments.md").read_text()) if needs_ray(b)]
    exec(compile(block, "docs/environments.md (RLlib block)", "exec"), {"__name__": "docs"})
    _assert_ray_is_gone()
    steps = float(capsys.readouterr().out.split("env steps sampled:")[1].split()[0])
    assert steps >= 200, "one iteration sampled its batch"
