"""Self-play training: config, pool, evaluation, and a tiny run that is killed and resumed.

The pipeline test runs ``python -m concordia_env.training.selfplay`` as a subprocess with a tiny network
and rollouts of a few hundred steps, kills it (process group) after its first checkpoint,
resumes it in-process and checks that the timestep count continues from the checkpoint and
that the evaluation history and the opponent pool survive; the resumed run's final model
then serves the masking test.
"""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from concordia_env import Game
from concordia_env.training.config import TrainConfig, field_names, overrides_from_args, resolve, resume_overrides
from concordia_env.training.policy_net import NumpyActor, action_logits, masked_argmax, masked_sample
from concordia_env.training.pool import POOL_FILE, OpponentPool, PoolOpponent
from concordia_env.training.run_evaluation import eval_seeds, evaluate, wilson_interval
from concordia_env.training.selfplay import CHECKPOINT_DIR, STATE_FILE, SUMMARY_FILE, MarginShaping, build_parser, main
from tests.interrupts import interruptible

ROOT = Path(__file__).resolve().parents[1]
QUICK = ROOT / "concordia_env" / "training" / "configs" / "quick.yaml"
#: how long the killed run may take to write its first checkpoint (slow, shared CI machines)
FIRST_CHECKPOINT_TIMEOUT_S = 240

#: a run small enough for a test: rollouts of 2 x 128 steps, a checkpoint every two
TINY = {
    "name": "tiny",
    "total_timesteps": 100_000,  # far more than the test waits for: it is killed
    "n_envs": 2,
    "n_steps": 128,
    "batch_size": 128,
    "n_epochs": 1,
    "net_arch": [32, 32],
    "snapshot_every": 256,
    "max_snapshots": 50,
    "checkpoint_every": 512,
    "eval_every": 512,
    "eval_games": 2,
    "final_eval_games": 4,
    "eval_opponents": ["random"],
    "opponent_shares": {"snapshot": 0.5, "random": 0.5},
    "reward": "score_delta",
    "reward_scale": 0.05,
    "env_options": {"max_turns": 300},
    "time_limit_minutes": None,
    "progress": True,
}


def _cli(values: dict) -> list[str]:
    return [part for key, value in values.items() for part in (f"--{key}", json.dumps(value))]


def _small_policy(seed: int = 0):
    from sb3_contrib import MaskablePPO

    from concordia_env.envs.gym_env import SingleAgentEnv

    model = MaskablePPO("MlpPolicy", SingleAgentEnv(), policy_kwargs={"net_arch": [16, 16]}, device="cpu", seed=seed)
    return model.policy


def _random_positions(count: int, seed: int) -> list[Game]:
    """Positions reached by random play from fresh games (a few per game, any phase)."""
    rng = np.random.default_rng(seed)
    positions = []
    while len(positions) < count:
        game = Game.new("italia", 2, seed=int(rng.integers(2**31)))
        stop = int(rng.integers(1, 400))
        for _ in range(stop):
            if game.is_over():
                break
            legal = game.legal_actions()
            game.step(int(legal[rng.integers(len(legal))]))
        if not game.is_over():
            positions.append(game)
    return positions


# ---------------------------------------------------------------------- config
def test_quick_config_loads_and_overrides_apply():
    base = resolve(QUICK)
    assert base.name == "quick" and base.map == "italia" and base.num_players == 2
    changed = resolve(QUICK, {"total_timesteps": 20000, "n_envs": 2})
    assert (changed.total_timesteps, changed.n_envs) == (20000, 2)
    assert changed.learning_rate == base.learning_rate  # untouched keys keep the file's value


def test_command_line_overrides_parse_as_yaml_and_cover_every_key():
    parser = build_parser()
    args = parser.parse_args(["--total_timesteps", "2e4", "--net_arch", "[64, 64]", "--progress", "false"])
    overrides = overrides_from_args(args)
    assert set(overrides) == {"total_timesteps", "net_arch", "progress"}  # only what was given
    config = resolve(QUICK, overrides)
    assert config.total_timesteps == 20000 and isinstance(config.total_timesteps, int)
    assert config.net_arch == [64, 64] and config.progress is False
    help_text = parser.format_help()
    spelled = {"num_players": "players"}  # as concordia evaluate spells it
    assert all(f"--{spelled.get(name, name)} " in help_text for name in field_names())


@pytest.mark.parametrize("script", ["afterstate", "expert", "selfplay", "ppo_options", "rllib"])
def test_training_commands_take_players_as_evaluate_does_and_num_players_still_with_a_warning(script, capsys):
    from concordia_env.tools.cli import SCRIPTS

    if script == "rllib":
        pytest.importorskip("ray.rllib")
    module = importlib.import_module(SCRIPTS["train"][script].module)
    parser = module.build_parser()
    assert parser.parse_args(["--players", "3"]).num_players in (3, "3")
    assert "deprecated" not in capsys.readouterr().err
    assert parser.parse_args(["--num_players", "4"]).num_players in (4, "4")
    assert capsys.readouterr().err == f"{parser.prog}: --num_players is deprecated; use --players\n"
    assert "--players" in parser.format_help() and "--num_players" not in parser.format_help()


def test_imperium4_config_is_four_player_imperium():
    config = resolve(ROOT / "docs" / "configs" / "imperium4.yaml")
    assert (config.map, config.num_players) == ("imperium", 4)


@pytest.mark.parametrize(
    "bad",
    [
        {"no_such_key": 1},
        {"n_envs": 0},
        {"total_timesteps": 1.5},
        {"activation": "swish"},
        {"progress": "yes"},
        {"time_limit_minutes": 0},
        {"time_limit_minutes": float("nan")},
    ],
)
def test_bad_config_values_are_refused(bad):
    with pytest.raises(ValueError):
        resolve(QUICK, bad)


def test_config_round_trips_through_yaml(tmp_path):
    config = resolve(QUICK, {"net_arch": [8], "opponent_shares": {"snapshot": 1.0}})
    config.save(tmp_path / "c.yaml")
    assert TrainConfig.load(tmp_path / "c.yaml") == config


# ---------------------------------------------------------------------- evaluation maths
def test_wilson_interval_matches_known_values():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(200, 200)
    assert high == 1.0 and low == pytest.approx(0.9812, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    for games in range(1, 60):
        for wins in (0, games // 3, games):
            low, high = wilson_interval(wins, games)
            assert 0.0 <= low <= wins / games <= high <= 1.0


def test_evaluation_seeds_are_fresh_per_evaluation():
    a, b = eval_seeds(0, 0, 50), eval_seeds(0, 1, 50)
    assert len(set(a.tolist()) | set(b.tolist())) == 100
    assert np.array_equal(a, eval_seeds(0, 0, 50))  # reproducible


def test_evaluate_plays_every_seat_and_reports_consistent_numbers():
    result = evaluate(_small_policy(), "random", 4, map="italia", num_players=2, seed=3, index=0, max_turns=400)
    assert result.games == 4 and 0 <= result.wins <= 4
    assert result.ci_low <= result.win_rate <= result.ci_high
    assert result.mean_vp > 0 and result.mean_opponent_vp > 0


def test_evaluation_caps_stalled_games_and_scores_them_as_they_stand():
    result = evaluate(_small_policy(), "random", 2, map="italia", num_players=2, seed=0, index=0, max_turns=3)
    assert result.truncated == 2 and result.games == 2
    assert result.mean_vp > 0  # scored "as if the game ended now"


# ---------------------------------------------------------------------- network and masking
def test_numpy_actor_matches_the_torch_actor(tmp_path):
    policy = _small_policy(seed=1)
    observations = np.stack([g.observation(g.current_player) for g in _random_positions(8, seed=2)])
    actor = NumpyActor.from_policy(policy)
    np.testing.assert_allclose(actor.logits(observations), action_logits(policy, observations), rtol=1e-4, atol=1e-5)
    actor.save(tmp_path / "a.npz")
    np.testing.assert_array_equal(NumpyActor.load(tmp_path / "a.npz").logits(observations), actor.logits(observations))


def test_masked_sampling_never_picks_an_illegal_action():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(64, 769)) * 10
    masks = rng.random((64, 769)) < 0.01
    masks[np.arange(64), rng.integers(769, size=64)] = True
    for _ in range(20):
        assert masks[np.arange(64), masked_sample(logits, masks, rng)].all()
    assert masks[np.arange(64), masked_argmax(logits, masks)].all()


@pytest.mark.parametrize("gamma", [1.0, 0.99])
def test_margin_shaping_is_potential_based(gamma):
    """Discounted over the game, the shaping sums to 0 (the start's potential is what it pays back)."""
    from concordia_env.envs.gym_env import SingleAgentEnv

    base = SingleAgentEnv(opponents="random", reward="win", seed=3)
    env = MarginShaping(base, coef=0.01, gamma=gamma)
    env.reset()
    start = env._potential
    rng, shaped, done, info, k = np.random.default_rng(0), 0.0, False, {}, 0
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        _, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        done = terminated or truncated
        win = 0.0
        if terminated:
            win = 1.0 if info["winner"] == info["learner_seat"] else -1.0
        shaped += gamma**k * (reward - win)
        k += 1
    assert terminated
    assert shaped == pytest.approx(-0.01 * start, abs=1e-6)
    with pytest.raises(ValueError):
        MarginShaping(base, coef=0.01, gamma=0.0)


# ---------------------------------------------------------------------- opponent pool
def test_pool_snapshots_eviction_and_per_episode_draws(tmp_path):
    policy = _small_policy()
    pool = OpponentPool(tmp_path, {"snapshot": 1.0, "random": 0.0}, max_snapshots=2)
    for t in (0, 100, 200):
        pool.add_snapshot(policy, t)
    published = json.loads((tmp_path / POOL_FILE).read_text())
    assert [s["timesteps"] for s in published["snapshots"]] == [100, 200]
    assert published["shares"] == {"snapshot": 1.0}  # zero shares are dropped
    evicted = tmp_path / pool.evicted[0].path
    assert evicted.exists()  # kept until the next checkpoint no longer refers to it
    pool.delete_evicted()
    assert not evicted.exists()

    opponent = PoolOpponent(tmp_path / POOL_FILE, seed=0)
    labels = set()
    for episode in range(20):
        opponent.reset(episode)
        labels.add(opponent.label)
    assert labels == {"snapshot@100", "snapshot@200"}
    game = Game.new("italia", 2, seed=0)
    assert game.legal_mask()[opponent.act(game)]

    pool.shares = {"random": 1.0}
    pool.publish()  # a running worker sees the change at its next episode
    opponent.reset(0)
    assert opponent.label == "random"


def test_pool_restore_refuses_missing_snapshot_files(tmp_path):
    pool = OpponentPool(tmp_path, {"snapshot": 1.0}, max_snapshots=3)
    pool.add_snapshot(_small_policy(), 7)
    state = pool.state()
    (tmp_path / state["snapshots"][0]["path"]).unlink()
    with pytest.raises(FileNotFoundError):
        OpponentPool(tmp_path, {"snapshot": 1.0}, max_snapshots=3).restore(state)


# ---------------------------------------------------------------------- the whole pipeline
def _wait_for_checkpoint(proc: subprocess.Popen, state_path: Path) -> None:
    deadline = time.monotonic() + FIRST_CHECKPOINT_TIMEOUT_S
    while not state_path.exists():
        if proc.poll() is not None:
            raise AssertionError(f"the run exited early:\n{proc.stderr.read() if proc.stderr else ''}")
        if time.monotonic() > deadline:
            raise AssertionError("no checkpoint in time")
        time.sleep(0.2)


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the run and its environment processes (its own process group) as a crash would."""
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)


@pytest.fixture(scope="module")
def resumed_run(tmp_path_factory) -> dict:
    """A tiny run killed after its first checkpoint and resumed to 4 more rollouts."""
    runs = tmp_path_factory.mktemp("runs")
    cmd = [
        sys.executable,
        "-m",
        "concordia_env.training.selfplay",
        "--config",
        str(QUICK),
        *_cli({**TINY, "runs_dir": str(runs)}),
    ]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + FIRST_CHECKPOINT_TIMEOUT_S
        while not list(runs.glob("tiny-*")) and time.monotonic() < deadline:
            time.sleep(0.2)
        (run_dir,) = runs.glob("tiny-*")
        _wait_for_checkpoint(proc, run_dir / CHECKPOINT_DIR / STATE_FILE)
    finally:
        _kill_group(proc)
    before = json.loads((run_dir / CHECKPOINT_DIR / STATE_FILE).read_text())
    rollout = TINY["n_steps"] * TINY["n_envs"]
    target = before["timesteps"] + 4 * rollout
    report = main(["--resume", str(run_dir), "--total_timesteps", str(target), "--progress", "false"])
    after = json.loads((run_dir / CHECKPOINT_DIR / STATE_FILE).read_text())
    return {"dir": run_dir, "before": before, "after": after, "target": target, "report": report}


def test_killed_run_resumes_where_its_checkpoint_left_off(resumed_run):
    before, after, run_dir = resumed_run["before"], resumed_run["after"], resumed_run["dir"]
    assert before["timesteps"] >= TINY["checkpoint_every"] and before["sessions"] == 1
    assert after["timesteps"] == resumed_run["target"] and after["sessions"] == 2
    assert after["games"] > before["games"] > 0
    # the evaluation history of the first session survives and continues
    assert after["history"][: len(before["history"])] == before["history"]
    assert len(after["history"]) > len(before["history"])
    # so does the pool: every snapshot of the checkpoint is still there, and newer ones follow
    kept = {s["path"] for s in after["pool"]["snapshots"]}
    assert {s["path"] for s in before["pool"]["snapshots"]} <= kept
    assert all((run_dir / path).exists() for path in kept)
    assert max(s["timesteps"] for s in after["pool"]["snapshots"]) > before["timesteps"]
    # the second session's log starts after the checkpoint, the first session's log is kept
    second = (run_dir / "logs" / "progress_session1.csv").read_text().splitlines()
    column = second[0].split(",").index("time/total_timesteps")
    first_logged = min(int(float(line.split(",")[column])) for line in second[1:])
    assert before["timesteps"] < first_logged <= before["timesteps"] + TINY["n_steps"] * TINY["n_envs"]
    assert len((run_dir / "logs" / "progress.csv").read_text().splitlines()) > 1


def test_resume_refuses_changes_the_saved_model_cannot_follow(resumed_run, capsys):
    with pytest.raises(SystemExit) as stopped:  # a user's mistake: one line, exit 2
        main(["--resume", str(resumed_run["dir"]), "--net_arch", "[8]"])
    assert stopped.value.code == 2
    assert "net_arch cannot change when resuming" in capsys.readouterr().err.strip().splitlines()[-1]


def test_resume_accepts_fixed_keys_given_again_unchanged(tmp_path):
    saved = tmp_path / "config.yaml"
    TrainConfig(runs_dir="runs", seed=7, total_timesteps=1000).save(saved)
    resumable = ("total_timesteps",)
    # the run's own values, even as another spelling of the same number, change nothing and are dropped
    given = {"runs_dir": "runs/", "seed": "7.0", "total_timesteps": 2000}
    assert resume_overrides(saved, given, resumable) == {"total_timesteps": 2000}
    with pytest.raises(ValueError, match=r"^seed cannot change when resuming; changeable: total_timesteps$"):
        resume_overrides(saved, {"seed": 8, "runs_dir": "runs"}, resumable)


def test_run_writes_report_plot_model_and_summary(resumed_run):
    run_dir = resumed_run["dir"]
    assert resumed_run["report"] == run_dir / "report.md"
    report = (run_dir / "report.md").read_text()
    assert "## Final evaluation" in report and 'agents.make("policy"' in report and "learning_curve.png" in report
    png = (run_dir / "learning_curve.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    assert summary["timesteps"] == resumed_run["target"]
    (final,) = summary["final"]
    assert final["opponent"] == "random" and final["games"] == TINY["final_eval_games"]
    config = resolve(run_dir / "config.yaml")
    assert config.total_timesteps == resumed_run["target"]  # the resume's override is recorded
    assert (run_dir / "evaluations.csv").read_text().count("\n") == len(resumed_run["after"]["history"]) + 1
    assert list((run_dir / "logs").glob("events.out.tfevents*"))


def test_trained_policy_never_outputs_an_illegal_action(resumed_run):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(resumed_run["dir"] / "final_model.zip", device="cpu")
    positions = _random_positions(60, seed=4)
    obs = np.stack([g.observation(g.current_player) for g in positions])
    masks = np.stack([g.legal_mask() for g in positions])
    for _ in range(30):
        actions, _ = model.predict(obs, deterministic=False, action_masks=masks)
        assert masks[np.arange(len(positions)), actions].all()
    actions, _ = model.predict(obs, deterministic=True, action_masks=masks)
    assert masks[np.arange(len(positions)), actions].all()


def test_final_model_plays_through_the_policy_agent(resumed_run):
    from concordia_env import agents

    policy = agents.make("policy", path=resumed_run["dir"] / "final_model.zip")
    for game in _random_positions(10, seed=5):
        assert game.legal_mask()[policy.act(game)]


def test_time_limit_stops_at_an_update_with_one_environment(tmp_path):
    """n_envs 1 (DummyVecEnv) and a time limit of milliseconds: it stops at once, still with a report."""
    values = {**TINY, "n_envs": 1, "time_limit_minutes": 1e-4, "eval_games": 0, "progress": False}
    main(["--config", str(QUICK), *_cli({**values, "runs_dir": str(tmp_path)})])
    (run_dir,) = tmp_path.glob("tiny-*")
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    # it stops at an update boundary: the rollout it interrupted is dropped, not counted
    assert summary["timesteps"] % TINY["n_steps"] == 0 and summary["timesteps"] < TINY["total_timesteps"]
    state = json.loads((run_dir / CHECKPOINT_DIR / STATE_FILE).read_text())
    assert state["timesteps"] == summary["timesteps"]
    assert summary["stop_reason"].startswith("CUT SHORT by the time limit of 0.0001 minutes at timestep ")
    assert summary["stop_reason"].endswith(f"continue with concordia train selfplay --resume {run_dir}")
    assert (run_dir / "report.md").exists()


# ---------------------------------------------------------------------- through the vector env (vector_env: true)
def test_vector_env_needs_one_compiled_opponent():
    with pytest.raises(ValueError, match="one compiled agent"):
        TrainConfig(vector_env=True)  # the default shares include snapshots
    with pytest.raises(ValueError, match="one compiled agent"):
        TrainConfig(vector_env=True, opponent_shares={"random": 0.5, "heuristic": 0.5})
    assert TrainConfig(vector_env=True, opponent_shares={"heuristic": 1.0, "random": 0.0}).vector_opponent() == (
        "heuristic"
    )
    with pytest.raises(ValueError, match="env_threads"):
        TrainConfig(env_threads=0)


@pytest.mark.parametrize("gamma", [1.0, 0.99])
def test_vector_margin_shaping_is_potential_based(gamma):
    """Per row, as in the single env: discounted over a game, the shaping pays back the start's potential."""
    from concordia_env.envs.sb3 import SB3VecEnv
    from concordia_env.training.selfplay import VecMarginShaping

    venv = VecMarginShaping(SB3VecEnv(3, opponents="random", reward="win", seed=3), coef=0.01, gamma=gamma)
    venv.reset()
    start = venv._potential.copy()
    shaped, steps = np.zeros(3), np.zeros(3, dtype=int)
    finished = np.zeros(3, dtype=bool)
    rng = np.random.default_rng(0)
    while not finished.all():
        masks = venv.env_method("action_masks")
        _, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for row in range(3):
            if finished[row]:
                continue
            win = 0.0
            if dones[row]:
                final = infos[row]["final_info"]
                win = 1.0 if final["winner"] == final["learner_seat"] else -1.0
            shaped[row] += gamma ** steps[row] * (rewards[row] - win)
            steps[row] += 1
            finished[row] |= dones[row]
    assert shaped == pytest.approx(-0.01 * start, abs=1e-4)


def test_a_tiny_run_trains_through_the_vector_env(tmp_path):
    values = {
        **TINY,
        "vector_env": True,
        "n_envs": 8,
        "env_threads": 2,
        "total_timesteps": 2048,
        "n_steps": 64,
        "opponent_shares": {"heuristic": 1.0},
        "eval_every": 1024,
        "checkpoint_every": 1024,
        "progress": False,
    }
    main(["--config", str(QUICK), *_cli({**values, "runs_dir": str(tmp_path)})])
    (run_dir,) = tmp_path.glob("tiny-*")
    summary = json.loads((run_dir / SUMMARY_FILE).read_text())
    assert summary["timesteps"] == 2048 and summary["games"] > 0
    assert not (run_dir / "pool").exists() or not any((run_dir / "pool").iterdir()), "no snapshots"
    assert [r["opponent"] for r in summary["final"]] == ["random"]


def test_no_training_function_is_over_80_lines():
    """The training functions read in one screen: none is over 80 lines (the fit skeleton, the play, PPO)."""
    import ast

    long = []
    for path in sorted((Path(__file__).resolve().parents[1] / "concordia_env" / "training").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1  # type: ignore[operator]
                if lines > 80:
                    long.append(f"{path.name}:{node.name} ({lines} lines)")
    assert not long, long


# ---------------------------------------------------------------------- on the one training loop
#: a selfplay run of six PPO updates of 64 steps in this process: checkpoints and evaluations every two updates
LOOP_TINY = {
    **TINY,
    "n_envs": 1,
    "n_steps": 64,
    "batch_size": 64,
    "net_arch": [16, 16],
    "total_timesteps": 384,
    "lr_schedule": "linear",
    "snapshot_every": 128,
    "checkpoint_every": 128,
    "eval_every": 128,
    "eval_at_start": True,
    "eval_games": 2,
    "eval_max_turns": 200,
    "final_eval_games": 2,
    "progress": False,
}


def test_selfplay_runs_on_the_one_training_loop():
    """Its run folder, iterations, evaluations, time limit and end are the loop's; the network's runs share them."""
    from concordia_env.training.loop import Run, TrainingRun
    from concordia_env.training.selfplay import SelfPlayRun

    assert issubclass(SelfPlayRun, TrainingRun) and issubclass(Run, TrainingRun)
    for name in ("create", "open", "train", "evaluate_when_due", "time_guard", "progress_line", "finish"):
        assert name in vars(TrainingRun) and name not in vars(SelfPlayRun) and name not in vars(Run), name


def test_a_selfplay_run_advances_one_update_per_iteration_and_resumes_on_the_loop(tmp_path, monkeypatch, capsys):
    from concordia_env.training.selfplay import SelfPlayRun

    advance, updates = SelfPlayRun.advance, []

    def advance_until_the_third_update(self):
        if len(updates) == 2:
            raise KeyboardInterrupt  # Ctrl-C in the third update: after the checkpoint at 128
        advance(self)
        updates.append(self.state.timesteps)

    monkeypatch.setattr(SelfPlayRun, "advance", advance_until_the_third_update)
    with pytest.raises(SystemExit) as stopped:
        main(["--config", str(QUICK), *_cli({**LOOP_TINY, "runs_dir": str(tmp_path)})])
    (run_dir,) = tmp_path.glob("tiny-*")
    assert stopped.value.code == 130 and updates == [64, 128]
    err = capsys.readouterr().err
    assert err.rstrip().endswith(f"interrupted; continue with: concordia train selfplay --resume {run_dir}")
    assert "timestep 0: vs random" in err and "timestep 128: vs random" in err  # the loop's evaluation lines
    assert "timestep 128/384 done: " in err  # the loop's progress line after a checkpoint
    before = json.loads((run_dir / CHECKPOINT_DIR / STATE_FILE).read_text())
    assert (before["timesteps"], before["sessions"], before["eval_index"]) == (128, 1, 2)

    monkeypatch.setattr(SelfPlayRun, "advance", lambda self: (advance(self), updates.append(self.state.timesteps)))
    main(["--resume", str(run_dir)])
    assert updates == [64, 128, 192, 256, 320, 384]  # one rollout of n_steps x n_envs per iteration
    after = json.loads((run_dir / CHECKPOINT_DIR / STATE_FILE).read_text())
    assert (after["timesteps"], after["sessions"], after["last_checkpoint"]) == (384, 2, 384)
    assert [r["timesteps"] for r in after["history"]] == [0, 128, 256]  # not at the end: the final evaluation is
    assert sorted(p.name for p in (run_dir / CHECKPOINT_DIR).glob("model_*")) == ["model_0000000384.zip"]
    assert capsys.readouterr().out.startswith("trained 384 timesteps in ")


def test_the_learning_rate_decays_over_the_whole_run_not_over_each_update(tmp_path):
    """One ``learn()`` per update, and the linear schedule still reads the run's progress (SB3 logs each update's)."""
    main(["--config", str(QUICK), *_cli({**LOOP_TINY, "eval_games": 0, "runs_dir": str(tmp_path)})])
    (run_dir,) = tmp_path.glob("tiny-*")
    rows = (run_dir / "logs" / "progress.csv").read_text().splitlines()
    column = rows[0].split(",").index("train/learning_rate")
    rates = [float(row.split(",")[column]) for row in rows[1:] if row.split(",")[column]]
    # an update's rate is logged with the next update's row: the updates at 64 ... 320 timesteps
    assert rates == pytest.approx([3e-4 * (1 - t / 384) for t in (64, 128, 192, 256, 320)])


def test_ctrl_c_before_the_first_checkpoint_says_there_is_nothing_to_resume(tmp_path, monkeypatch, capsys):
    from concordia_env.training.selfplay import SelfPlayRun

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(SelfPlayRun, "advance", interrupted)
    values = {**LOOP_TINY, "eval_at_start": False, "runs_dir": str(tmp_path)}
    with pytest.raises(SystemExit) as stopped:
        main(["--config", str(QUICK), *_cli(values)])
    assert stopped.value.code == 130
    err = capsys.readouterr().err
    assert err.rstrip().endswith("interrupted before the run's first checkpoint: there is nothing to resume")
    assert "--resume" not in err


def test_ctrl_c_to_the_run_and_its_environment_processes_is_one_line_and_exit_130(tmp_path):
    """A real SIGINT to the process group, as a terminal sends it: the environments' processes get it too."""
    values = {**LOOP_TINY, "total_timesteps": 100_000, "eval_games": 0, "runs_dir": str(tmp_path)}
    command = [sys.executable, "-m", "concordia_env.training.selfplay", "--config", str(QUICK), *_cli(values)]
    run = interruptible(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                        start_new_session=True)  # fmt: skip
    try:
        deadline = time.monotonic() + FIRST_CHECKPOINT_TIMEOUT_S
        while not list(tmp_path.glob(f"tiny-*/{CHECKPOINT_DIR}/{STATE_FILE}")):
            assert run.poll() is None and time.monotonic() < deadline, "no checkpoint in time"
            time.sleep(0.2)
        os.killpg(run.pid, signal.SIGINT)
        _, err = run.communicate(timeout=120)
    finally:
        if run.poll() is None:
            _kill_group(run)
    (run_dir,) = tmp_path.glob("tiny-*")
    assert run.returncode == 130 and "Traceback" not in err, err[-3000:]
    assert err.splitlines()[-1] == f"interrupted; continue with: concordia train selfplay --resume {run_dir}"
    assert not (run_dir / "writer.lock").exists()
