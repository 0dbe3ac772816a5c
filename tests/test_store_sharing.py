"""One results file, several processes, and the ways a write can fail.

* ``--reset`` while another tournament wrote the same file moved it aside under the writer:
  all of its games ended in ``t.db.old-...``; now a reset refuses while any other store
  has the file open;
* a foreign database with the right table names and ``user_version`` but other columns
  played a game and then died on ``OperationalError``; now the columns are checked;
* a full disk gave a raw ``OperationalError``; now a ``StoreError`` names the file;
* the command lines refuse bad numbers and missing game ids with a message, not a traceback.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from concordia_env.tools import tournament
from concordia_env.tools.store import SCHEMA_VERSION, MissingGameError, Store, StoreError, expected_columns
from tests.test_store import _record

ROOT = Path(__file__).resolve().parent.parent
CLI = [sys.executable, "-m", "concordia_env.tools.cli"]
TINY = ["--agents", "random", "random", "--map", "italia", "--players", "2"]


def _out(folder: Path) -> list[str]:
    return ["--no-plots", "--out", str(folder)]


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _filled(path: Path, games: int = 3) -> None:
    with Store(path) as store:
        store.register_tournament("t-test", {})
        for i in range(games):
            store.add_game(_record(i))


# =========================================================================== reset vs. other users
def test_reset_refuses_while_another_store_of_this_process_has_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    _filled(path)
    with Store(path) as writer:
        with pytest.raises(StoreError, match=r"open in another process.*--db"):
            Store(path, reset=True)
        assert not list(tmp_path.glob("t.db.old-*")), "nothing was moved"
        writer.add_game(_record(3))  # the writer goes on writing the same file
    with Store(path) as store:
        assert store.count() == 4
    with Store(path, reset=True) as fresh:  # once nobody holds it, a reset goes ahead
        assert fresh.count() == 0 and fresh.moved_aside is not None
    with Store(fresh.moved_aside) as old:
        assert old.count() == 4


@pytest.mark.slow
def test_reset_refuses_while_a_tournament_in_another_process_writes_the_file(tmp_path: Path) -> None:
    """The reproducer: B writes t.db; A runs --reset while B runs; all of B's games must end in t.db."""
    db = tmp_path / "t.db"
    games = 3000  # ~40 s of random games: still running when the reset, a new process, tries the file
    writer = subprocess.Popen(
        [*CLI, "tournament", *TINY, "--games", str(games), "--db", str(db), "--workers", "1", *_out(tmp_path / "b")],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 240
        while not _stored(db):  # B has opened the file and stored a game
            assert writer.poll() is None, writer.stdout.read() if writer.stdout else ""
            assert time.monotonic() < deadline, "the writer stored nothing in four minutes"
            time.sleep(0.2)
        if writer.poll() is not None:
            pytest.skip("the writer finished before the reset could be tried (a very fast machine)")
        reset = _cli(
            "tournament",
            *TINY,
            "--games",
            "5",
            "--db",
            str(db),
            "--reset",
            "--no-plots",
            "--out",
            str(tmp_path / "a"),
            "--workers",
            "1",
        )
        assert reset.returncode == 2, reset.stdout + reset.stderr
        assert "open in another process" in reset.stdout and "Traceback" not in reset.stdout + reset.stderr
        assert writer.wait(timeout=600) == 0
    finally:
        if writer.poll() is None:
            writer.kill()
            writer.wait()
    assert not list(tmp_path.glob("t.db.old-*")), "the reset moved the writer's file aside"
    with Store(db) as store:
        assert store.count() == games


def _stored(db: Path) -> bool:
    """Whether ``db`` holds at least one game (read without a Store: the test must not hold the lock)."""
    if not db.exists():
        return False
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)) as conn:
            return conn.execute("SELECT count(*) FROM games").fetchone()[0] > 0
    except sqlite3.Error:
        return False


def test_a_store_opened_after_a_reset_uses_the_new_file(tmp_path: Path) -> None:
    """The lock follows the path: a store never ends up on the file that was moved aside."""
    path = tmp_path / "t.db"
    _filled(path)
    with Store(path, reset=True) as fresh, Store(path) as other:
        assert os.path.samefile(fresh.path, other.path) and other.count() == 0
        other.register_tournament("t-test", {})
        other.add_game(_record(0))
        assert fresh.count() == 1


# =========================================================================== schema and full disk
def test_a_foreign_database_with_the_right_table_names_and_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "foreign.db"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE tournaments (id TEXT PRIMARY KEY, notes TEXT)")
        conn.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, tournament_id TEXT, payload BLOB)")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.commit()
    before = path.read_bytes()
    with pytest.raises(StoreError, match=r"table \w+ has other columns \(missing .*\).*--reset"):
        Store(path)
    assert path.read_bytes() == before
    out = _cli("tournament", *TINY, "--games", "1", "--db", str(path), "--no-plots", "--out", str(tmp_path / "o"))
    assert out.returncode == 2 and "other columns" in out.stdout and "Traceback" not in out.stdout + out.stderr


def test_a_column_of_another_type_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "typed.db"
    with contextlib.closing(sqlite3.connect(path)) as conn:
        for table, columns in expected_columns().items():
            defs = [
                f"{name} {'BLOB' if name == 'winner' else kind} {'NOT NULL' if notnull else ''}"
                for name, kind, notnull, _ in columns
            ]
            conn.execute(f"CREATE TABLE {table} ({', '.join(defs)})")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.commit()
    with pytest.raises(StoreError, match="other columns"):
        Store(path)


def test_a_full_disk_is_a_store_error_naming_the_file_and_keeps_the_database(tmp_path: Path) -> None:
    """SQLite's own limit stands in for the disk: ``max_page_count`` makes a write fail with SQLITE_FULL."""
    path = tmp_path / "full.db"
    _filled(path, games=2)
    with Store(path) as store:
        pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
        store.conn.execute(f"PRAGMA max_page_count = {pages}")
        big = _record(0)
        big.actions = list(range(769)) * 20
        with pytest.raises(StoreError, match=r"storing a game in .*full\.db failed \(database or disk is full\)") as e:
            for i in range(2, 200):
                big.game_index = i
                store.add_game(big)
        assert "the disk is full" in str(e.value) and isinstance(e.value.__cause__, sqlite3.OperationalError)
        stored = store.count()
    with Store(path) as store:
        assert store.count() == stored >= 2
        assert store.conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
        assert store.game(1).actions == _record(1).actions


def test_a_store_in_a_folder_that_cannot_be_written_is_a_store_error(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root writes anywhere")
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StoreError, match=r"creating .*locked/r\.db failed"):
            Store(folder / "r.db")
    finally:
        folder.chmod(0o700)


# =========================================================================== the command lines
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seed", "-1"], "argument --seed: must be an integer >= 0, got '-1'"),
        (["--games", "-5"], "argument --games: must be an integer >= 1, got '-5'"),
        (["--games", "0"], "argument --games: must be an integer >= 1"),
        (["--games", "many"], "argument --games: must be an integer >= 1, got 'many'"),
        (["--players", "9"], "the Italia map is played by 2, 3, 4 players, not 9"),
        (["--workers", "0"], "argument --workers: must be an integer >= 1"),
        (["--agents", "random", "nonsense"], "unknown agent 'nonsense'"),
    ],
)
def test_the_tournament_cli_refuses_bad_numbers_with_a_message(tmp_path: Path, capsys, args, message) -> None:
    db = tmp_path / "t.db"
    with pytest.raises(SystemExit) as exit_:
        tournament.main([*TINY, "--games", "2", "--db", str(db), *args])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "usage: concordia tournament" in err
    assert not db.exists(), "nothing is touched before the command line is checked"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["play", "--seed", "-1"], "argument --seed: must be an integer >= 0"),
        (["play", "--players", "0"], "argument --players: must be an integer >= 1"),
        (["web", "--port", "70000"], "argument --port: must be an integer in 1..65535"),
        (["demo", "--seed", "-3"], "argument --seed: must be an integer >= 0"),
        (["demo", "--players", "7"], "the Italia map is played by"),
        (["replay", "--play", "random", "random", "--html", "x.html", "--seed", "-1"], "argument --seed"),
    ],
)
def test_the_other_command_lines_refuse_bad_numbers(args: list[str], message: str) -> None:
    run = _cli(*args, timeout=120)
    assert run.returncode == 2 and message in run.stderr, run.stderr[-2000:]
    assert "Traceback" not in run.stderr


def test_replay_of_a_missing_game_id_says_so(tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    _filled(db, games=3)
    run = _cli("replay", str(db), "999")
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"no game with id 999 in {db} (it holds games with ids 1..3" in run.stderr
    assert "must be an integer >= 1" in _cli("replay", str(db), "0").stderr
    with Store(db) as store, pytest.raises(MissingGameError) as caught:
        store.game(999)
    assert isinstance(caught.value, KeyError) and str(caught.value).startswith("no game with id 999")


def test_replay_of_a_foreign_file_says_so(tmp_path: Path) -> None:
    db = tmp_path / "notes.db"
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.execute("CREATE TABLE notes (text TEXT)")
        conn.commit()
    run = _cli("replay", str(db), "1")
    assert run.returncode == 2 and "holds no results" in run.stderr and "Traceback" not in run.stderr
