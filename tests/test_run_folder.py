"""A run folder has one writer: every training command refuses a second one, and takes over a stale lock."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from concordia_env.tools import cli
from concordia_env.training.run_folder import LOCK_FILE, RunFolderBusyError, RunLock, interrupts_deferred, new_run_dir

HOLD = (
    "import sys, time\n"
    "from concordia_env.training.run_folder import RunLock\n"
    "RunLock(sys.argv[1]).acquire()\n"
    "print('held', flush=True)\n"
    "time.sleep(600)\n"
)


@pytest.fixture
def held_by_another_process(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """A run folder whose lock a live second process holds."""
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(run_dir)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield run_dir, holder
    holder.kill()
    holder.wait()


@pytest.mark.parametrize("script", ["afterstate", "expert", "selfplay", "ppo_options", "rllib"])
def test_every_training_command_refuses_a_second_writer_in_one_line_naming_the_first(
    script: str,
    held_by_another_process: tuple[Path, subprocess.Popen[str]],
    capsys: pytest.CaptureFixture[str],
) -> None:
    run_dir, holder = held_by_another_process
    if script == "rllib":  # it reads the run's config before it writes anything
        pytest.importorskip("ray.rllib")
        from concordia_env.training.rllib_ppo import RLlibConfig

        (run_dir / "config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(RLlibConfig())))
    before = sorted(p.name for p in run_dir.iterdir())
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["train", script, "--resume", str(run_dir)])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]  # after argparse's usage lines, where the command prints them
    assert "Traceback" not in err and last.startswith(
        f"concordia train {script}: error: {run_dir} is being written by process {holder.pid} (since "
    ), err
    assert sorted(p.name for p in run_dir.iterdir()) == before  # nothing written, the holder's lock kept
    assert json.loads((run_dir / LOCK_FILE).read_text())["pid"] == holder.pid


def test_a_stale_lock_of_a_killed_process_is_recognised_and_taken_over(
    held_by_another_process: tuple[Path, subprocess.Popen[str]], capsys: pytest.CaptureFixture[str]
) -> None:
    run_dir, holder = held_by_another_process
    with pytest.raises(RunFolderBusyError, match=f"process {holder.pid}"):
        RunLock(run_dir).acquire()
    os.kill(holder.pid, signal.SIGKILL)  # no chance to release: the lock file stays behind
    holder.wait()
    assert json.loads((run_dir / LOCK_FILE).read_text())["pid"] == holder.pid
    with RunLock(run_dir):
        assert json.loads((run_dir / LOCK_FILE).read_text())["pid"] == os.getpid()
        assert f"taking over the lock of process {holder.pid}, which no longer runs" in capsys.readouterr().err
    assert not (run_dir / LOCK_FILE).exists()  # released at the end


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process start times are read from /proc")
def test_a_lock_whose_pid_now_belongs_to_another_process_is_stale(tmp_path: Path) -> None:
    record = {"pid": os.getpid(), "host": socket.gethostname(), "started": "0", "since": "then", "command": "old"}
    (tmp_path / LOCK_FILE).write_text(json.dumps(record))
    with RunLock(tmp_path):  # the pid lives, but it is a process started at another time
        assert json.loads((tmp_path / LOCK_FILE).read_text())["started"] != "0"


def test_a_lock_from_another_host_is_refused_with_how_to_clear_it(tmp_path: Path) -> None:
    record = {"pid": 1, "host": "elsewhere.example", "started": None, "since": "then", "command": "x"}
    (tmp_path / LOCK_FILE).write_text(json.dumps(record))
    with pytest.raises(RunFolderBusyError, match=f"on host elsewhere.example .*delete {tmp_path / LOCK_FILE}"):
        RunLock(tmp_path).acquire()


def test_two_new_runs_of_one_name_in_one_second_get_two_folders(tmp_path: Path) -> None:
    first, second = new_run_dir(tmp_path, "run"), new_run_dir(tmp_path, "run")
    assert first != second and first.is_dir() and second.is_dir()  # in one second: the same stamp, a suffix


@pytest.fixture
def ctrl_c_raises() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in this process, as in a terminal (a test worker may ignore it)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_while_a_checkpoint_is_written_stops_the_run_after_it(ctrl_c_raises: None) -> None:
    written = []
    with pytest.raises(KeyboardInterrupt), interrupts_deferred():
        os.kill(os.getpid(), signal.SIGINT)  # delivered at once: the block goes on
        written.append("the rest of the checkpoint")
    assert written == ["the rest of the checkpoint"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # the handler is back
    with interrupts_deferred():  # no Ctrl-C: nothing raised
        written.append("another")
    with pytest.raises(ZeroDivisionError), interrupts_deferred():  # the block's own error is the one raised
        1 / 0  # noqa: B018


def test_an_ignored_ctrl_c_stays_ignored_in_a_checkpoint() -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts_deferred():
            os.kill(os.getpid(), signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
