"""The results store never loses games silently.

* an empty, truncated, damaged or foreign file is refused with a clear message, left as it
  is, and never recreated over;
* ``reset=True`` / ``--reset`` renames the old file aside (never deletes it) and starts anew;
* a new file appears whole or not at all; committed games reach the main file, so a
  write-ahead log deleted after a kill does not take them along;
* the worker processes of a tournament end when the tournament process is killed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from concordia_env.tools import tournament
from concordia_env.tools.store import Store, StoreError
from tests.test_store import _record

ROOT = Path(__file__).resolve().parent.parent
TINY_TOURNAMENT = ["--agents", "random", "random", "--map", "italia", "--players", "2", "--games", "2"]


def _filled_store(path: Path, games: int = 30) -> bytes:
    with Store(path) as store:
        store.register_tournament("t-test", {})
        for i in range(games):
            store.add_game(_record(i))
    return path.read_bytes()


def _refused(path: Path, pattern: str) -> None:
    before = path.read_bytes()
    with pytest.raises(StoreError, match=pattern) as info:
        Store(path)
    assert "--reset" in str(info.value) and "--db" in str(info.value), "the message says how to go on"
    assert path.read_bytes() == before, "a refused file is left exactly as it was"


def test_an_empty_file_is_refused_not_started_over(tmp_path):
    path = tmp_path / "r.db"
    path.write_bytes(b"")
    _refused(path, "empty")


@pytest.mark.parametrize("keep", [0.1, 0.5, 0.9])
def test_a_truncated_file_is_refused(tmp_path, keep):
    path = tmp_path / "r.db"
    data = _filled_store(path)
    path.write_bytes(data[: int(len(data) * keep)])
    _refused(path, "not a readable results database|damaged")


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "r.db"
    path.write_bytes(b"these are not the results you are looking for\n" * 100)
    _refused(path, "not a readable results database")


def test_a_foreign_database_is_refused(tmp_path):
    path = tmp_path / "r.db"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
        conn.commit()
    _refused(path, "holds no results")


def test_reset_moves_the_old_file_aside_and_starts_anew(tmp_path):
    path = tmp_path / "r.db"
    data = _filled_store(path)
    path.write_bytes(data[: len(data) // 2])
    damaged = path.read_bytes()
    with Store(path, reset=True) as store:
        assert store.count() == 0
        aside = store.moved_aside
    assert aside is not None and aside.name.startswith("r.db.old-") and aside.read_bytes() == damaged
    with Store(path) as store:  # the new file is a healthy one
        assert store.count() == 0
    with Store(tmp_path / "new.db", reset=True) as store:
        assert store.moved_aside is None, "nothing to move aside"


def test_a_new_file_is_created_whole(tmp_path):
    path = tmp_path / "sub" / "r.db"
    with Store(path) as store:
        store.register_tournament("t-test", {})
    leftovers = [p.name for p in path.parent.iterdir() if not p.name.startswith("r.db")]
    assert leftovers == [] and not list(path.parent.glob("*.creating-*"))
    with contextlib.closing(sqlite3.connect(path)) as conn:  # the tables are in the main file itself
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'games'").fetchone()[0] == 1


def test_committed_games_survive_a_kill_and_a_deleted_write_ahead_log(tmp_path):
    """A writer killed with SIGKILL, its -wal file deleted: every game it committed is still there."""
    path = tmp_path / "r.db"
    script = textwrap.dedent(
        f"""
        import os, signal
        from concordia_env.tools import store
        from tests.test_store import _record
        store.CHECKPOINT_SECONDS = 0.0  # checkpoint after every game (the default is once a second)
        s = store.Store({str(path)!r})
        s.register_tournament("t-test", {{}})
        for i in range(12):
            s.add_game(_record(i))
        os.kill(os.getpid(), signal.SIGKILL)
        """
    )
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    with Store(path) as store:
        assert store.finished_indices("t-test") == set(range(12))


def test_the_tournament_cli_refuses_a_damaged_file_and_resets_on_request(tmp_path, capsys):
    db = tmp_path / "r.db"
    db.write_bytes(b"")
    args = [*TINY_TOURNAMENT, "--db", str(db), "--out", str(tmp_path / "out"), "--no-plots", "--workers", "1"]
    assert tournament.main(args) == 2
    out = capsys.readouterr().out
    assert "refused" in out and "empty" in out and "--reset" in out
    assert db.read_bytes() == b"" and not (tmp_path / "out").exists()
    assert tournament.main([*args, "--reset"]) == 0
    out = capsys.readouterr().out
    assert "renamed to" in out
    with Store(db) as store:
        assert store.count() == 2
    assert [p.stat().st_size for p in tmp_path.glob("r.db.old-*")] == [0]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                found.append(int(stat.parent.name))
    return found


def _running(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table from /proc")
def test_workers_end_when_the_tournament_process_is_killed(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "concordia_env.tools.tournament",
        "--agents",
        "mcts:400",
        "mcts:400",
        "--map",
        "italia",
    ]
    cmd += ["--players", "2", "--games", "8", "--workers", "2", "--db", str(tmp_path / "r.db")]
    cmd += ["--out", str(tmp_path / "out"), "--no-plots"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 120
        while len(workers) < 2 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
            workers = _children(proc.pid)
        assert len(workers) >= 2, "the tournament did not start its workers"
        time.sleep(1.0)  # the workers are inside their first games now
        proc.send_signal(signal.SIGKILL)  # the parent only, not its process group
        proc.wait()
        deadline = time.monotonic() + 15
        while any(_running(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_running(w) for w in workers), "worker processes outlived the tournament"
    finally:
        for pid in [proc.pid, *workers]:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        proc.wait()
