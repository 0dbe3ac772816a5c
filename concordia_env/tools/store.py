"""The results database: one SQLite file holding every finished game, replayable exactly.

Why SQLite: it is embedded (nothing to start), one file is easy to copy next to a
report, and its transactions make an interrupted tournament safe to resume. Each game is
written in its own transaction under a unique key ``(tournament, game_index)``, so a
killed run loses at most the games still being played, and a rerun never counts a game
twice.

A row holds everything needed to replay the game move by move: the map, the player
count, the setup options and seed (``Game.new(map, players, seed, **options)``) and the
full action list. Tournaments and games played by a person (``concordia_env.tools.play --save``) share
this format, so ``concordia replay`` replays either.

Results are never lost silently
-------------------------------
A new file is created only where no file exists, and created whole: the tables are
written to a temporary file that is then linked into place, so a process killed at any
moment leaves either no file or a complete empty database. An existing file is opened
only if it is a readable results database: a file of 0 bytes (truncated, or its WAL
deleted before the first checkpoint), one that SQLite finds damaged (``PRAGMA
quick_check``), one without the results tables, whose tables have other columns (a
foreign database that happens to use the same table names), or of another schema version
raises :class:`StoreError` with what was found and how to go on. Nothing is recreated
over it. A database is recognised by its full schema: every column of both tables, with
its type, ``NOT NULL`` and key, must be the ones this module creates.

A write that fails (the disk is full, the file became read-only, an I/O error) raises
:class:`StoreError` naming the file and SQLite's reason; the transaction is rolled back,
so the file keeps every game committed before, and a resumed run plays the lost game
again.

Committed games are copied from the write-ahead log into the main file at least once a
second (a passive checkpoint after a write), so even a log deleted after a kill takes at
most the last second of games with it, and a resumed tournament plays those again (from
their seeds, to the same results).

To recover, either point the run at another file (``--db``) or start over explicitly
with ``reset=True`` (``--reset`` on the command line): the old file and its ``-wal`` /
``-shm`` companions are *renamed* to ``<name>.old-<time>`` (kept for inspection, never
deleted) and a new database is created.

One file, several processes
---------------------------
Every open :class:`Store` holds a shared lock on its file (``flock``, advisory, released
when it closes or its process dies), so any number of tournaments, replays and players
may use one file together. ``reset=True`` needs the file to itself: it takes the lock
exclusively, without waiting, and raises :class:`StoreError` if any other store has the
file open, in this process or another. A reset therefore never moves a file from under a
running tournament (whose later games would land in the ``.old-`` file, and whose rerun
would replay them all); stop the other process, or use another ``--db``. A store that
opens the file while a reset is moving it aside opens the new file. (Without ``flock``,
on Windows, the rename itself fails while another process has the file open.)
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from errno import ENOSPC
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: a rename of a file another process has open fails there
    fcntl = None  # type: ignore[assignment]

#: bumped when the tables change, so an old file is refused instead of misread (or upgraded, see ``_upgrade``)
SCHEMA_VERSION = 2
#: the tables a results database holds
TABLES = ("games", "tournaments")
#: the files SQLite keeps next to a database in WAL mode
COMPANION_SUFFIXES = ("-wal", "-shm")
#: the longest a committed game lives only in the write-ahead log (seconds)
CHECKPOINT_SECONDS = 1.0
#: what to do about a results file that cannot be used (appended to every StoreError about one)
RECOVERY = "use another file (--db PATH), or --reset to move this one aside (renamed, not deleted) and start anew"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id          TEXT PRIMARY KEY,
    config_json TEXT NOT NULL,
    created     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id   TEXT NOT NULL REFERENCES tournaments(id),
    game_index      INTEGER NOT NULL,
    seed            INTEGER NOT NULL,
    map             TEXT NOT NULL,
    players         INTEGER NOT NULL,
    options_json    TEXT NOT NULL,
    seats_json      TEXT NOT NULL,
    num_actions     INTEGER NOT NULL,
    scores_json     TEXT NOT NULL,
    winner          INTEGER NOT NULL,
    ranking_json    TEXT NOT NULL,
    breakdowns_json TEXT NOT NULL,
    actions_json    TEXT NOT NULL,
    think_json      TEXT NOT NULL,
    decisions_json  TEXT NOT NULL,
    duration        REAL NOT NULL,
    finished        REAL NOT NULL,
    over            INTEGER NOT NULL DEFAULT 1,
    UNIQUE (tournament_id, game_index)
);
"""

#: the columns ``add_game`` fills, in the order of its values
_GAME_COLUMNS = (
    "tournament_id",
    "game_index",
    "seed",
    "map",
    "players",
    "options_json",
    "seats_json",
    "num_actions",
    "scores_json",
    "winner",
    "ranking_json",
    "breakdowns_json",
    "actions_json",
    "think_json",
    "decisions_json",
    "duration",
    "finished",
    "over",
)
_INSERT_GAME = (
    f"INSERT OR IGNORE INTO games ({', '.join(_GAME_COLUMNS)}) VALUES ({', '.join('?' * len(_GAME_COLUMNS))})"
)


@dataclass
class GameRecord:
    """One finished game: its setup, who sat where, every action, and the result.

    ``seats[s]`` is the agent spec of seat ``s`` (``"human"`` for a person);
    ``ranking`` lists seats from first to last place (ties broken by the rules), so
    ``ranking[0] == winner``. ``think_seconds`` and ``decisions`` are per seat.
    """

    tournament_id: str
    game_index: int
    seed: int
    map: str
    players: int
    options: dict[str, Any]
    seats: list[str]
    actions: list[int]
    scores: list[int]
    winner: int
    ranking: list[int]
    breakdowns: list[dict[str, int]]
    think_seconds: list[float]
    decisions: list[int]
    duration: float
    #: ``len(actions)``, kept apart so that records read without their actions still know it
    num_actions: int = -1
    #: False for a game stopped at a turn cap (an evaluation's ``max_turns``): ``scores``, ``winner`` and
    #: ``ranking`` are then the position's as it stood (``Game.scores``, ``Game.ranking``)
    over: bool = True
    #: the database row id (what ``concordia_env.tools.replay`` takes); ``None`` until stored
    game_id: int | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.num_actions < 0:
            self.num_actions = len(self.actions)

    def ranks(self) -> list[int]:
        """Place of each seat, 1 for the winner."""
        place = [0] * self.players
        for position, seat in enumerate(self.ranking):
            place[seat] = position + 1
        return place

    def outcome(self) -> dict[str, Any]:
        """Everything that must be equal when a game is replayed or played again from its seed.

        Timings are left out: they differ between runs and machines.
        """
        out = asdict(self)
        for volatile in ("think_seconds", "duration", "game_id"):
            out.pop(volatile)
        return out


@dataclass(frozen=True)
class TournamentInfo:
    tournament_id: str
    config: dict[str, Any]
    games: int
    first_game_id: int | None
    last_game_id: int | None


class StoreError(RuntimeError):
    """A results file that cannot be used as it is (empty, damaged, not a results database, another schema),
    cannot be written (a full disk), or is in use by another process (``reset``)."""


class MissingGameError(KeyError):
    """No game with the asked id in the file: a ``KeyError`` whose text is the plain message."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "no such game"


class Store:
    """A results database file; use as a context manager or ``close()``.

    A missing file is created; an existing one must be a readable results database, else
    :class:`StoreError` (see the module docstring). ``reset=True`` first renames an existing
    file aside (``moved_aside`` then names where it went) and starts a new one.
    """

    def __init__(self, path: str | Path, *, reset: bool = False) -> None:
        self.path = str(path)
        self.moved_aside: Path | None = None
        self._last_checkpoint = time.monotonic()
        self._lock: int | None = None  # the descriptor that holds our shared lock on the file
        if self.path != ":memory:":
            file = Path(self.path)
            if reset:
                self.moved_aside = self._reset(file)
            with self._writing("creating"):
                self._lock = _open_locked(file)
            if file.stat().st_size == 0:
                self._unlock()
                raise StoreError(
                    f"{self.path} is empty (0 bytes): a results file that lost its contents (truncated, or its "
                    f"write-ahead log deleted after a kill) is not started over silently; {RECOVERY}"
                )
        try:
            self.conn = self._connect()
        except sqlite3.DatabaseError as e:
            self._unlock()
            raise StoreError(f"{self.path} is not a readable results database ({e}); {RECOVERY}") from None
        except BaseException:
            self._unlock()
            raise

    def _reset(self, file: Path) -> Path | None:
        """Move ``file`` aside if no other store has it open (the exclusive lock); where it went, or None."""
        if not file.exists():
            return _move_aside(file)  # at most stray -wal/-shm files of a deleted database
        fd = os.open(file, os.O_RDONLY)
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise StoreError(
                        f"{self.path} is open in another process (a tournament writing it, a replay or a game "
                        f"reading it): --reset does not move a results file from under them; stop that process "
                        f"first, or use another file (--db PATH)"
                    ) from None
            return _move_aside(file)
        finally:
            os.close(fd)  # releases the exclusive lock; the moved file keeps no lock of ours

    def _unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None

    def _connect(self) -> sqlite3.Connection:
        # autocommit mode: every write opens its own explicit transaction
        conn = sqlite3.connect(self.path, isolation_level=None)
        try:
            conn.row_factory = sqlite3.Row
            if self.path == ":memory:":
                _write_schema(conn)
            else:
                self._check(conn)
            # WAL lets `replay` read while a tournament writes; a commit survives a killed process
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.execute("PRAGMA foreign_keys=ON")
        except BaseException:
            conn.close()
            raise
        return conn

    def _check(self, conn: sqlite3.Connection) -> None:
        """Refuse a file that is damaged, holds no results tables, other columns, or another schema version."""
        problems = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
        if problems != ["ok"]:
            raise StoreError(f"{self.path} is damaged ({'; '.join(problems[:3])}); {RECOVERY}")
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = [t for t in TABLES if t not in names]
        if missing:
            found = ", ".join(sorted(names)) or "no tables at all"
            raise StoreError(
                f"{self.path} holds no results (table(s) {', '.join(missing)} missing; found {found}): an empty or "
                f"foreign database, or one whose write-ahead log was deleted before its first checkpoint; {RECOVERY}"
            )
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 1:
            version = _upgrade_from_1(conn)
        if version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} has results schema {version}; this code reads schema {SCHEMA_VERSION}")
        for table, expected in expected_columns().items():
            columns = table_columns(conn, table)
            if columns != expected:
                raise StoreError(
                    f"{self.path} is not a results database of this schema: its table {table} has other columns "
                    f"({_column_difference(columns, expected)}); {RECOVERY}"
                )

    # ------------------------------------------------------------------ tournaments
    def register_tournament(self, tournament_id: str, config: dict[str, Any]) -> None:
        """Record a tournament's configuration; a known id is kept as it is (that is a resume)."""
        with self._writing("registering a tournament in"):
            self.conn.execute(
                "INSERT OR IGNORE INTO tournaments (id, config_json, created) VALUES (?, ?, ?)",
                (tournament_id, json.dumps(config, sort_keys=True), time.time()),
            )

    def tournament_config(self, tournament_id: str) -> dict[str, Any] | None:
        row = self.conn.execute("SELECT config_json FROM tournaments WHERE id = ?", (tournament_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def tournaments(self) -> list[TournamentInfo]:
        """Every tournament in the file with its number of finished games, oldest first."""
        rows = self.conn.execute(
            "SELECT t.id, t.config_json, count(g.id), min(g.id), max(g.id) FROM tournaments t "
            "LEFT JOIN games g ON g.tournament_id = t.id GROUP BY t.id ORDER BY t.created"
        ).fetchall()
        return [TournamentInfo(r[0], json.loads(r[1]), r[2], r[3], r[4]) for r in rows]

    # ------------------------------------------------------------------ games
    def add_game(self, record: GameRecord) -> int:
        """Store one finished game in its own transaction; returns its row id.

        A game already stored under the same ``(tournament, index)`` is kept: games are
        deterministic in their seed, so the second copy is the same game.
        """
        with self._writing("storing a game in"), self._transaction():
            cursor = self.conn.execute(
                _INSERT_GAME,
                (
                    record.tournament_id,
                    record.game_index,
                    record.seed,
                    record.map,
                    record.players,
                    json.dumps(record.options, sort_keys=True),
                    json.dumps(record.seats),
                    record.num_actions,
                    json.dumps(record.scores),
                    record.winner,
                    json.dumps(record.ranking),
                    json.dumps(record.breakdowns),
                    json.dumps(record.actions, separators=(",", ":")),
                    json.dumps(record.think_seconds),
                    json.dumps(record.decisions),
                    record.duration,
                    time.time(),
                    int(record.over),
                ),
            )
            if cursor.rowcount == 0:
                row = self.conn.execute(
                    "SELECT id FROM games WHERE tournament_id = ? AND game_index = ?",
                    (record.tournament_id, record.game_index),
                ).fetchone()
                record.game_id = int(row[0])
            elif cursor.lastrowid is None:  # sqlite3 gives the id of every row an INSERT added
                raise sqlite3.DatabaseError(f"{self.path}: the new game's row has no id")
            else:
                record.game_id = cursor.lastrowid
        if time.monotonic() - self._last_checkpoint >= CHECKPOINT_SECONDS:
            with self._writing("checkpointing"):
                self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
            self._last_checkpoint = time.monotonic()
        return record.game_id

    def finished_indices(self, tournament_id: str) -> set[int]:
        rows = self.conn.execute("SELECT game_index FROM games WHERE tournament_id = ?", (tournament_id,))
        return {int(r[0]) for r in rows}

    def games(self, tournament_id: str, limit_index: int | None = None, with_actions: bool = True) -> list[GameRecord]:
        """The tournament's finished games by game index (only indices below ``limit_index`` if given).

        ``with_actions=False`` leaves each record's ``actions`` empty, which saves the
        memory of the action lists when only results are needed.
        """
        columns = "*" if with_actions else f"id, {', '.join(c for c in _GAME_COLUMNS if c != 'actions_json')}"
        query = f"SELECT {columns} FROM games WHERE tournament_id = ?"
        params: tuple[Any, ...] = (tournament_id,)
        if limit_index is not None:
            query += " AND game_index < ?"
            params += (limit_index,)
        rows = self.conn.execute(query + " ORDER BY game_index", params).fetchall()
        return [_record_from_row(r, with_actions) for r in rows]

    def game(self, game_id: int) -> GameRecord:
        """The game stored under ``game_id``; :class:`MissingGameError` (a ``KeyError``) if there is none."""
        row = self.conn.execute("SELECT * FROM games WHERE id = ?", (int(game_id),)).fetchone()
        if row is None:
            low, high = self.conn.execute("SELECT min(id), max(id) FROM games").fetchone()
            held = "no games" if low is None else f"games with ids {low}..{high}"
            raise MissingGameError(
                f"no game with id {game_id} in {self.path} (it holds {held}; list them with "
                f"`concordia replay {self.path}`)"
            )
        return _record_from_row(row)

    def count(self, tournament_id: str | None = None) -> int:
        if tournament_id is None:
            return int(self.conn.execute("SELECT count(*) FROM games").fetchone()[0])
        return int(
            self.conn.execute("SELECT count(*) FROM games WHERE tournament_id = ?", (tournament_id,)).fetchone()[0]
        )

    # ------------------------------------------------------------------ plumbing
    def _transaction(self) -> _Transaction:
        return _Transaction(self.conn)

    @contextlib.contextmanager
    def _writing(self, what: str) -> Iterator[None]:
        """A failed write (full disk, read-only file, I/O error) as a :class:`StoreError` naming the file."""
        try:
            yield
        except (sqlite3.OperationalError, OSError) as e:
            reason = str(e)
            hint = (
                "the disk is full: free some space (or use --db on another disk), then run the same command again"
                if "full" in reason or getattr(e, "errno", None) == ENOSPC
                else "check that the file and its folder are writable"
            )
            raise StoreError(
                f"{what} {self.path} failed ({reason}); games committed before are kept, this one was not "
                f"written; {hint}"
            ) from e

    def close(self) -> None:
        self.conn.close()
        self._unlock()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def table_columns(conn: sqlite3.Connection, table: str) -> list[tuple[str, str, bool, int]]:
    """(name, declared type, NOT NULL, primary-key position) of each column of ``table``, in order."""
    return [(r[1], str(r[2]).upper(), bool(r[3]), int(r[5])) for r in conn.execute(f"PRAGMA table_info({table})")]


@functools.cache
def expected_columns() -> dict[str, list[tuple[str, str, bool, int]]]:
    """The columns of each table as :data:`_SCHEMA` creates them (read from a database made in memory)."""
    with contextlib.closing(sqlite3.connect(":memory:")) as conn:
        _write_schema(conn)
        return {table: table_columns(conn, table) for table in TABLES}


def _column_difference(found: list[tuple], expected: list[tuple]) -> str:
    """What differs between two column lists, briefly: missing and unexpected columns first."""
    found_names, expected_names = [c[0] for c in found], [c[0] for c in expected]
    missing = [n for n in expected_names if n not in found_names]
    extra = [n for n in found_names if n not in expected_names]
    if missing or extra:
        parts = ([f"missing {', '.join(missing[:5])}"] if missing else []) + (
            [f"unexpected {', '.join(extra[:5])}"] if extra else []
        )
        return "; ".join(parts)
    changed = [f[0] for f, e in zip(found, expected, strict=True) if f != e]
    return f"{', '.join(changed[:5]) or 'the order'} differ in type, NOT NULL or key"


def _upgrade_from_1(conn: sqlite3.Connection) -> int:
    """Schema 1 had no ``over`` column: every game of such a file was played to its end (no turn caps then).

    The column is added in place (nothing else changes); returns the new version.
    """
    with _Transaction(conn):
        conn.execute("ALTER TABLE games ADD COLUMN over INTEGER NOT NULL DEFAULT 1")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return SCHEMA_VERSION


def _open_locked(file: Path) -> int:
    """Create ``file`` if missing, open it and take a shared lock on it; the descriptor that holds the lock.

    A reset may move the file aside between our open and our lock: then the lock is on the
    old file, so the path is checked to still name the file we locked, and we start over.
    """
    while True:
        if not file.exists():
            _create(file)
        try:
            fd = os.open(file, os.O_RDONLY)
        except FileNotFoundError:
            continue  # moved aside between the check and the open
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a reset holds it (a rename and a create)
        try:
            same = os.stat(file).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)


def _write_schema(conn: sqlite3.Connection) -> None:
    conn.executescript(_SCHEMA)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def _create(file: Path) -> None:
    """Create an empty results database at ``file`` whole, or not at all.

    The tables are written to a temporary file, which is closed (so the write-ahead log is
    checkpointed into it) and then hard-linked to ``file``: a link never replaces a file
    that appeared meanwhile, and a kill at any point leaves no half-made database.
    """
    file.parent.mkdir(parents=True, exist_ok=True)
    temporary = file.with_name(f"{file.name}.creating-{os.getpid()}")
    for leftover in [temporary, *(_companion(temporary, suffix) for suffix in COMPANION_SUFFIXES)]:
        leftover.unlink(missing_ok=True)
    conn = sqlite3.connect(temporary, isolation_level=None)
    try:
        _write_schema(conn)
    finally:
        conn.close()
    try:
        os.link(temporary, file)
    except FileExistsError:
        pass  # another process created it first: that one is opened (and checked) instead
    finally:
        temporary.unlink()


def _companion(file: Path, suffix: str) -> Path:
    return file.with_name(file.name + suffix)


def _move_aside(file: Path) -> Path | None:
    """Rename ``file`` and its WAL companions to ``<name>.old-<time>``; the new name, or None if there was none."""
    parts = [file, *(_companion(file, suffix) for suffix in COMPANION_SUFFIXES)]
    if not any(part.exists() for part in parts):
        return None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    aside = file.with_name(f"{file.name}.old-{stamp}")
    k = 1
    while any(_companion(aside, suffix).exists() for suffix in ("", *COMPANION_SUFFIXES)):
        k += 1
        aside = file.with_name(f"{file.name}.old-{stamp}-{k}")
    for suffix in ("", *COMPANION_SUFFIXES):
        if _companion(file, suffix).exists():
            os.replace(_companion(file, suffix), _companion(aside, suffix))
    return aside


class _Transaction:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on error) on an autocommit connection."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if exc_type is None:
            self.conn.execute("COMMIT")
        elif self.conn.in_transaction:  # SQLite has already rolled back after some errors (SQLITE_FULL):
            self.conn.execute("ROLLBACK")  # a second ROLLBACK would fail and hide the error that matters


def _record_from_row(row: sqlite3.Row, with_actions: bool = True) -> GameRecord:
    return GameRecord(
        tournament_id=row["tournament_id"],
        game_index=int(row["game_index"]),
        seed=int(row["seed"]),
        map=row["map"],
        players=int(row["players"]),
        options=json.loads(row["options_json"]),
        seats=json.loads(row["seats_json"]),
        actions=json.loads(row["actions_json"]) if with_actions else [],
        scores=json.loads(row["scores_json"]),
        winner=int(row["winner"]),
        ranking=json.loads(row["ranking_json"]),
        breakdowns=json.loads(row["breakdowns_json"]),
        think_seconds=json.loads(row["think_json"]),
        decisions=json.loads(row["decisions_json"]),
        duration=float(row["duration"]),
        num_actions=int(row["num_actions"]),
        over=bool(row["over"]),
        game_id=int(row["id"]),
    )
