"""Training runs survive faults exactly: Ctrl-C in any phase, a killed worker, on both backends.

A run is stopped once, deterministically (a phase of one iteration raises
``KeyboardInterrupt``, or a worker process is killed with SIGKILL), resumed with
``Run.open`` and trained to its end; it must then be the uninterrupted run with the same
seed, bit for bit: the same data of every iteration, the same network and optimizer, the
same fits and the same evaluation results (their wall-clock seconds aside).

The phases of an iteration: **play** (the pool's results half collected), **fit** (the
network in memory already changed), **evaluation** (after the fit, before the checkpoint:
where a resume used to read back the fitted ``model.npz`` of the unfinished iteration), and
the **checkpoint** itself (before ``checkpoint.pt`` is replaced, and after it, before its
copies ``model.npz`` and ``state.json``). Iteration 0 is included: every run has a
checkpoint from its start.

The runs are the tiny configs (two iterations of four or six games): seconds each. The
Ray tests start a local 2-CPU Ray instance and shut it down.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from concordia_env.agents.learned_model import AfterstateModel
from concordia_env.training import expert_iteration, loop, workers
from concordia_env.training.afterstate_learning import AfterstateConfig, AfterstateRun
from concordia_env.training.expert_iteration import ExpertConfig, ExpertRun
from concordia_env.training.loop import Run

CONFIGS = Path(loop.__file__).resolve().parent / "configs"
#: every phase of an iteration a Ctrl-C can land in
PHASES = ("play", "fit", "evaluation", "before-checkpoint", "after-checkpoint")
#: what a run's state holds that a repeat does not (wall clock and how many sessions it took)
TIMING = {"play_seconds", "fit_seconds", "eval_seconds", "sessions", "label_seconds"}
TIMING |= {"play_cpu_seconds", "fit_cpu_seconds", "eval_cpu_seconds", "gate_seconds"}


def expert_config(tmp_path: Path, **changes: Any) -> ExpertConfig:
    """expert_tiny with its periodic evaluations (two opponents, two games each)."""
    values = {**ExpertConfig.load(CONFIGS / "expert_tiny.yaml").to_dict(), "runs_dir": str(tmp_path), **changes}
    return ExpertConfig.from_dict(values)


def afterstate_config(tmp_path: Path, **changes: Any) -> AfterstateConfig:
    values = {**AfterstateConfig.load(CONFIGS / "afterstate_tiny.yaml").to_dict(), "runs_dir": str(tmp_path)}
    return AfterstateConfig.from_dict({**values, "eval_games": 2, "rollout_samples": 1, **changes})


# ---------------------------------------------------------------------- comparing runs
def _without_seconds(rows: list[dict]) -> list[dict]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


def assert_same_run(a: Run, b: Run) -> None:
    """Two finished runs are the same run: data, network, optimizer, fits and evaluations, bit for bit."""
    assert a.state.iteration == b.state.iteration == a.config.iterations
    one, two = (json.loads((r.run_dir / Run.STATE).read_text()) for r in (a, b))
    for key in sorted(set(one) - TIMING - {"fits", "history"}):
        assert one[key] == two[key], key
    assert _without_seconds(one["fits"]) == _without_seconds(two["fits"])
    assert _without_seconds(one["history"]) == _without_seconds(two["history"])
    assert len(one["history"]) == a.config.iterations * len(a.config.eval_opponents)
    files = sorted(p.name for p in (a.run_dir / "data").iterdir())
    assert (
        files
        == sorted(p.name for p in (b.run_dir / "data").iterdir())
        == [f"iter_{k:04d}.npz" for k in range(a.config.iterations)]
    )
    for name in files:
        with np.load(a.run_dir / "data" / name) as x, np.load(b.run_dir / "data" / name) as y:
            assert x.files == y.files
            for key in x.files:
                assert np.array_equal(x[key], y[key], equal_nan=True), (name, key)
    ma, mb = (AfterstateModel.load(r.model_path) for r in (a, b))
    for x, y in zip([*ma.weights, *ma.biases, [ma.a, ma.b]], [*mb.weights, *mb.biases, [mb.a, mb.b]], strict=True):
        assert np.array_equal(x, y)
    ca, cb = (torch.load(r.run_dir / Run.CHECKPOINT, weights_only=False) for r in (a, b))
    for key, tensor in ca["net"].items():
        assert torch.equal(tensor, cb["net"][key]), key
    sa, sb = ca["optimizer"]["state"], cb["optimizer"]["state"]
    assert sa.keys() == sb.keys()
    for k in sa:
        for name, value in sa[k].items():
            assert torch.equal(torch.as_tensor(value), torch.as_tensor(sb[k][name])), (k, name)


# ---------------------------------------------------------------------- stopping a run in one phase
class HalfPool:
    """A pool whose ``imap`` hands out its first result and then raises ``error`` (Ctrl-C, or a lost worker)."""

    def __init__(self, pool: Any, error: type[BaseException] = KeyboardInterrupt) -> None:
        self.pool = pool
        self.error = error

    def imap(self, fn: Callable[[Any], Any], tasks: list[Any]) -> Iterator[Any]:
        results = self.pool.imap(fn, tasks)
        yield next(results)
        raise self.error


def stop_once(
    monkeypatch: pytest.MonkeyPatch,
    run_class: type[Run],
    phase: str,
    iteration: int,
    error: type[BaseException] = KeyboardInterrupt,
) -> None:
    """Make iteration ``iteration`` (0-based) of the next ``train`` raise KeyboardInterrupt in ``phase``.

    In the play phase ``error`` may be another exception: ``workers.WorkerLostError``, what a lost
    worker raises there.
    """
    if phase == "play":
        play = run_class.play

        def stopped_play(self: Run, pool: Any, k: int, bar: Any) -> None:
            play(self, HalfPool(pool, error) if k == iteration else pool, k, bar)

        monkeypatch.setattr(run_class, "play", stopped_play)
    elif phase == "fit":
        fit = run_class.fit

        def stopped_fit(self: Run, k: int) -> dict:
            result = fit(self, k)  # the network and the optimizer in memory have moved on
            if k == iteration:
                raise KeyboardInterrupt
            return result

        monkeypatch.setattr(run_class, "fit", stopped_fit)
    elif phase == "evaluation":
        evaluate = run_class.evaluate

        def stopped_evaluate(self: Run, opponent: str, games: int, index: int) -> Any:
            if index == iteration and opponent == self.config.eval_opponents[-1]:
                raise KeyboardInterrupt  # the first opponent's games are already in evaluations.db
            return evaluate(self, opponent, games, index)

        monkeypatch.setattr(run_class, "evaluate", stopped_evaluate)
    elif phase == "before-checkpoint":
        write = loop.write_atomic
        checkpoints = [0]  # checkpoints written by train: iteration k's is the (k + 1)-th

        def stopped_write(path: Path, data: bytes) -> None:
            if path.name == Run.CHECKPOINT:
                checkpoints[0] += 1
                if checkpoints[0] == iteration + 1:
                    raise KeyboardInterrupt  # the new checkpoint is complete in memory, not on disk
            write(path, data)

        monkeypatch.setattr(loop, "write_atomic", stopped_write)
    elif phase == "after-checkpoint":
        copies = run_class.write_checkpoint_copies

        def stopped_copies(self: Run) -> None:
            if self.state.iteration == iteration + 1:
                raise KeyboardInterrupt  # checkpoint.pt is the new one; model.npz and state.json the old ones
            copies(self)

        monkeypatch.setattr(run_class, "write_checkpoint_copies", stopped_copies)
    else:
        raise ValueError(phase)


def interrupted_and_resumed(
    monkeypatch: pytest.MonkeyPatch,
    run_class: type[Run],
    config: Any,
    phase: str,
    iteration: int,
    error: type[BaseException] = KeyboardInterrupt,
) -> Run:
    run = run_class.create(config)
    with monkeypatch.context() as patch:
        stop_once(patch, run_class, phase, iteration, error)
        with pytest.raises(error):
            run.train()
    resumed = run_class.open(run.run_dir, {})
    assert resumed.state.iteration == (iteration + 1 if phase == "after-checkpoint" else iteration)
    model = AfterstateModel.load(resumed.model_path)  # the checkpoint's model, whatever was on disk
    assert np.array_equal(model.weights[0], resumed.current_model().weights[0])
    resumed.train()
    return resumed


@pytest.fixture(scope="module")
def straight_expert(tmp_path_factory: pytest.TempPathFactory) -> ExpertRun:
    run = ExpertRun.create(expert_config(tmp_path_factory.mktemp("straight")))
    run.train()
    return run


@pytest.mark.slow
@pytest.mark.parametrize(("phase", "iteration"), [(p, 1) for p in PHASES] + [("play", 0), ("evaluation", 0)])
def test_an_expert_run_stopped_in_any_phase_resumes_to_the_straight_run(
    phase: str, iteration: int, straight_expert: ExpertRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    resumed = interrupted_and_resumed(monkeypatch, ExpertRun, expert_config(tmp_path), phase, iteration)
    assert_same_run(resumed, straight_expert)


@pytest.mark.slow
def test_an_afterstate_run_stopped_in_any_phase_resumes_to_the_straight_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    straight = AfterstateRun.create(afterstate_config(tmp_path / "straight"))
    straight.train()
    for phase, iteration in [("play", 0), ("fit", 1), ("evaluation", 1), ("after-checkpoint", 0)]:
        resumed = interrupted_and_resumed(
            monkeypatch, AfterstateRun, afterstate_config(tmp_path / phase), phase, iteration
        )
        assert_same_run(resumed, straight)


def test_a_stale_model_file_is_replaced_by_the_checkpoints_on_resume(tmp_path: Path) -> None:
    """The reported case: Ctrl-C during the evaluations left the fitted model.npz of an unfinished iteration."""
    run = ExpertRun.create(expert_config(tmp_path, iterations=1, eval_every=0))
    checkpointed = run.model_path.read_bytes()
    with torch.no_grad():
        for p in run.net.parameters():
            p.add_(1.0)
    run.save_model()  # what the old loop wrote before evaluating
    assert run.model_path.read_bytes() != checkpointed
    resumed = ExpertRun.open(run.run_dir, {})
    assert AfterstateModel.load(resumed.model_path).weights[0].tobytes() == (
        AfterstateModel.load_bytes(checkpointed).weights[0].tobytes()
    )


# ---------------------------------------------------------------------- Ray
@pytest.fixture(scope="module")
def ray_instance() -> Iterator[Any]:
    ray = pytest.importorskip("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


@pytest.mark.slow
def test_a_ray_run_stopped_in_any_phase_resumes_to_the_straight_run(
    ray_instance: Any, straight_expert: ExpertRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for phase in ("play", "fit", "evaluation", "after-checkpoint"):
        config = expert_config(tmp_path / phase, backend="ray")
        resumed = interrupted_and_resumed(monkeypatch, ExpertRun, config, phase, 1)
        assert_same_run(resumed, straight_expert)


def _kill_when_written(pid_file: Path, timeout: float = 120.0) -> threading.Thread:
    """A thread that waits for a worker to write its pid to ``pid_file`` and kills it with SIGKILL."""

    def kill() -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if pid_file.is_file() and pid_file.read_text().strip():
                os.kill(int(pid_file.read_text()), signal.SIGKILL)
                return
            time.sleep(0.05)

    thread = threading.Thread(target=kill, daemon=True)
    thread.start()
    return thread


@pytest.mark.slow
def test_a_ray_task_whose_worker_is_killed_is_retried_and_the_run_is_unchanged(
    ray_instance: Any, straight_expert: ExpertRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pid_file = tmp_path / "worker.pid"
    original = expert_iteration.play_task

    def play_task_once_killed(task: expert_iteration.PlayTask) -> dict[str, Any]:
        # the first task of iteration 1 waits in its worker until the test kills that process
        if task.games[0].game_id == 4 and not pid_file.exists():
            pid_file.write_text(str(os.getpid()))
            time.sleep(300)
        return original(task)

    monkeypatch.setattr(expert_iteration, "play_task", play_task_once_killed)
    killer = _kill_when_written(pid_file)
    run = ExpertRun.create(expert_config(tmp_path / "run", backend="ray"))
    run.train()
    killer.join(timeout=1)
    assert pid_file.is_file() and not killer.is_alive()
    assert_same_run(run, straight_expert)


@pytest.mark.slow
def test_a_ray_task_that_loses_every_worker_ends_the_run_in_bounded_time(
    ray_instance: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def play_task_killed(task: expert_iteration.PlayTask) -> dict[str, Any]:
        os.kill(os.getpid(), signal.SIGKILL)  # every try of every task: the out-of-memory killer at work
        return {}

    monkeypatch.setattr(expert_iteration, "play_task", play_task_killed)
    # one task (two games) an iteration: its four tries are four workers lost, each started afresh by Ray
    run = ExpertRun.create(expert_config(tmp_path, backend="ray", games_per_iteration=2))
    start = time.monotonic()
    with pytest.raises(workers.WorkerLostError, match="failed 4 times"):
        run.train()
    # a run that waits on a lost task never ends; this one ends once the tries are spent (171 s once on a
    # heavily loaded 2-core machine, with two tasks an iteration): the bound tells a hang from a slow machine
    assert time.monotonic() - start < 300
    assert ExpertRun.open(run.run_dir, {}).state.iteration == 0  # the iteration-0 checkpoint stays resumable


# ---------------------------------------------------------------------- a killed local worker
#: the file a hanging worker writes its pid to (set by the test before the pool forks)
HANG_PID_FILE: Path | None = None


def play_task_hanging_once(task: expert_iteration.PlayTask) -> dict[str, Any]:
    """expert_iteration.play_task, except that iteration 1's first task hangs until it is killed."""
    if HANG_PID_FILE is not None and task.games[0].game_id == 4 and not HANG_PID_FILE.exists():
        HANG_PID_FILE.write_text(str(os.getpid()))
        time.sleep(300)
    return PLAY_TASK(task)


PLAY_TASK = expert_iteration.play_task


@pytest.mark.slow
def test_a_killed_local_worker_ends_the_run_with_its_resume_command_and_the_resume_is_exact(
    straight_expert: ExpertRun, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "HANG_PID_FILE", tmp_path / "worker.pid")
    monkeypatch.setattr(expert_iteration, "play_task", play_task_hanging_once)
    killer = _kill_when_written(tmp_path / "worker.pid")
    args = ["--config", str(CONFIGS / "expert_tiny.yaml"), "--runs_dir", str(tmp_path / "runs")]
    start = time.monotonic()
    with pytest.raises(SystemExit) as stopped:
        expert_iteration.main(args)
    assert time.monotonic() - start < 120 and stopped.value.code == 1
    assert not killer.is_alive()
    (run_dir,) = (tmp_path / "runs").iterdir()
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert lines[-1] == (
        "concordia train expert: a worker process died (killed, or out of memory?) before its games were finished; "
        f"the run stops at its last checkpoint: continue with: concordia train expert --resume {run_dir}"
    )
    monkeypatch.setattr(expert_iteration, "play_task", PLAY_TASK)
    resumed = ExpertRun.open(run_dir, {})
    assert resumed.state.iteration == 1
    resumed.train()
    assert_same_run(resumed, straight_expert)


def test_the_local_pool_raises_at_once_when_a_worker_is_killed() -> None:
    with workers.open_pool("multiprocessing", 2) as pool:
        pids = list(pool.imap(_pid, [None, None]))
        assert pids  # a worker is up
    start = time.monotonic()
    with pytest.raises(workers.WorkerLostError), workers.open_pool("multiprocessing", 2) as pool:
        list(pool.imap(_kill_self, range(4)))
    assert time.monotonic() - start < 30


def test_leaving_the_local_pool_on_ctrl_c_stops_its_workers_at_once() -> None:
    """The pool's workers (sleeping for a minute) are gone within seconds of the Ctrl-C, not after their tasks."""
    before = set(multiprocessing.active_children())  # another test's processes in this worker are not the pool's
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt), workers.open_pool("multiprocessing", 2) as pool:
        results = pool.imap(_sleep, [0, 60, 60, 60])
        next(results)
        ours = set(multiprocessing.active_children()) - before
        assert len(ours) == 2
        raise KeyboardInterrupt
    while any(p.is_alive() for p in ours) and time.monotonic() - start < 30:  # a killed process takes a moment to exit
        time.sleep(0.05)
    assert not any(p.is_alive() for p in ours) and time.monotonic() - start < 30


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def _pid(_: Any) -> int:
    return os.getpid()


def _kill_self(_: Any) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


# ---------------------------------------------------------------------- the command line
@pytest.mark.slow
def test_ctrl_c_in_the_first_iteration_offers_a_resume_that_works(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    stop_once(monkeypatch, ExpertRun, "play", 0)
    args = ["--config", str(CONFIGS / "expert_tiny.yaml"), "--runs_dir", str(tmp_path), "--eval_every", "0"]
    with pytest.raises(SystemExit) as stopped:
        expert_iteration.main([*args, "--final_eval_games", "{heuristic: 2}"])
    assert stopped.value.code == 130
    (run_dir,) = tmp_path.iterdir()
    assert (
        capsys.readouterr()
        .err.rstrip()
        .endswith(f"interrupted; continue with: concordia train expert --resume {run_dir}")
    )
    monkeypatch.undo()
    report = expert_iteration.main(["--resume", str(run_dir)])
    assert json.loads((run_dir / "summary.json").read_text())["iterations"] == 2 and report.is_file()


def test_a_run_stopped_before_its_first_checkpoint_says_there_is_nothing_to_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    def stopped(self: Run) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ExpertRun, "checkpoint", stopped)
    with pytest.raises(SystemExit) as exit_:
        expert_iteration.main(["--config", str(CONFIGS / "expert_tiny.yaml"), "--runs_dir", str(tmp_path)])
    assert exit_.value.code == 130
    err = capsys.readouterr().err
    assert "nothing to resume" in err and "--resume" not in err
    (run_dir,) = tmp_path.iterdir()
    with pytest.raises(SystemExit) as exit_:
        expert_iteration.main(["--resume", str(run_dir)])
    assert exit_.value.code == 2
    line = capsys.readouterr().err.strip()
    assert line == (
        f"concordia train expert: error: {run_dir} has no checkpoint.pt: not a run directory, or one stopped "
        "before its first checkpoint; nothing to resume"
    )


def _corrupt_run(tmp_path: Path) -> Path:
    run_dir = tmp_path / "corrupt"
    run_dir.mkdir()
    expert_config(tmp_path).save(run_dir / Run.CONFIG)
    (run_dir / Run.CHECKPOINT).write_bytes(b"not a checkpoint")
    return run_dir


MISTAKES = {
    "a missing config": (["--config", "no_such_config"], "no config file no_such_config"),
    "no workers": (["--workers", "0"], "workers must be positive, got 0"),
    "iterations abc": (["--iterations", "abc"], "iterations must be an integer, got 'abc'"),
    "no time": (["--time_limit_minutes", "0"], "time_limit_minutes must be a number of minutes > 0, or null"),
    "a time of nan": (["--time_limit_minutes", "nan"], "time_limit_minutes must be a number of minutes > 0, or null"),
    "a runs_dir under a file": (["--runs_dir", "{tmp}/file/runs"], "Not a directory: {tmp}/file/runs"),
    "a missing resume": (["--resume", "{tmp}/nowhere"], "{tmp}/nowhere is not a run directory: nothing to resume"),
    "a damaged resume": (["--resume", "{tmp}/corrupt"], "{tmp}/corrupt/checkpoint.pt cannot be resumed: "),
    "a config and a resume": (["--resume", "{tmp}/corrupt", "--config", "expert_tiny"], "--resume takes the run's"),
    "a fixed key on resume": (["--resume", "{tmp}/corrupt", "--seed", "3"], "seed cannot change when resuming"),
    # fixed keys repeated with the run's own values pass that check and reach the damaged checkpoint
    "fixed keys unchanged on resume": (
        ["--resume", "{tmp}/corrupt", "--seed", "0", "--runs_dir", "{tmp}"],
        "{tmp}/corrupt/checkpoint.pt cannot be resumed: ",
    ),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_a_command_line_mistake_is_one_line_and_writes_nothing(
    mistake: str, tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    args, message = MISTAKES[mistake]
    (tmp_path / "file").write_text("a file, not a directory")
    run_dir = _corrupt_run(tmp_path)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if "--config" not in args and "--resume" not in args:
        args = ["--config", "expert_tiny", *args]
    if "--runs_dir" not in args and "--resume" not in args:
        args += ["--runs_dir", str(tmp_path / "runs")]
    with pytest.raises(SystemExit) as exit_:
        expert_iteration.main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith("concordia train expert: error: " + message.replace("{tmp}", str(tmp_path))), err
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before  # nothing written
    assert not (tmp_path / "runs").exists() and run_dir.is_dir()
