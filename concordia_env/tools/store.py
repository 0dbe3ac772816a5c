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

A stored game is checked when it is read, as a position file is (:func:`check_record`):
a row whose values no game has (changed outside this module: garbage or deeply nested
JSON, a text or out-of-range winner, an unknown setup option, a map or player count the
rules refuse, seats, scores or a ranking of another size, an action outside 0..768) raises
:class:`StoreError` naming the game and the value; the file's other games stay readable.

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
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from errno import ENOSPC
from pathlib import Path
from typing import Any

from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.cards import DISPLAY_VARIANTS
from concordia_env.engine.errors import short_repr
from concordia_env.engine.maps import MAP_NAMES
from concordia_env.engine.maps import load as load_map

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
    ``recovery`` is what a refusal tells the person to do (the tournament's options by
    default; ``concordia play --save`` has its own).
    """

    def __init__(self, path: str | Path, *, reset: bool = False, recovery: str = RECOVERY) -> None:
        self.path = str(path)
        self.recovery = recovery
        self.moved_aside: Path | None = None
        self._last_checkpoint = time.monotonic()
        self._lock: int | None = None  # the descriptor that holds our shared lock on the file
        if self.path != ":memory:":
            file = Path(self.path)
            if file.is_dir():
                raise StoreError(f"{self.path} is a directory, not a results file; {recovery}")
            if reset:
                self.moved_aside = self._reset(file)
            with self._writing("creating"):
                self._lock = _open_locked(file)
            if file.stat().st_size == 0:
                self._unlock()
                raise StoreError(
                    f"{self.path} is empty (0 bytes): a results file that lost its contents (truncated, or its "
                    f"write-ahead log deleted after a kill) is not started over silently; {self.recovery}"
                )
        try:
            self.conn = self._connect()
        except sqlite3.DatabaseError as e:
            self._unlock()
            raise StoreError(f"{self.path} is not a readable results database ({e}); {self.recovery}") from None
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
            raise StoreError(f"{self.path} is damaged ({'; '.join(problems[:3])}); {self.recovery}")
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        missing = [t for t in TABLES if t not in names]
        if missing:
            found = ", ".join(sorted(names)) or "no tables at all"
            raise StoreError(
                f"{self.path} holds no results (table(s) {', '.join(missing)} missing; found {found}): an empty or "
                f"foreign database, or one whose write-ahead log was deleted before its first checkpoint; "
                f"{self.recovery}"
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
                    f"({_column_difference(columns, expected)}); {self.recovery}"
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
        return None if row is None else self._config(tournament_id, row[0])

    def _config(self, tournament_id: Any, text: Any) -> dict[str, Any]:
        """A stored tournament's config, checked: a JSON mapping (else :class:`StoreError`)."""
        try:
            config = _json(text, "config")
            if not isinstance(config, dict):
                raise ValueError(f"config {short_repr(config)} is not a mapping")
        except ValueError as e:
            raise StoreError(
                f"tournament {short_repr(tournament_id)} in {self.path} holds a value no tournament has ({e}): the "
                "file was changed outside concordia-env"
            ) from None
        return config

    def tournaments(self) -> list[TournamentInfo]:
        """Every tournament in the file with its number of finished games, oldest first."""
        rows = self.conn.execute(
            "SELECT t.id, t.config_json, count(g.id), min(g.id), max(g.id) FROM tournaments t "
            "LEFT JOIN games g ON g.tournament_id = t.id GROUP BY t.id ORDER BY t.created"
        ).fetchall()
        return [TournamentInfo(r[0], self._config(r[0], r[1]), r[2], r[3], r[4]) for r in rows]

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
        rows = self.conn.execute("SELECT id, game_index FROM games WHERE tournament_id = ?", (tournament_id,))
        indices = set()
        for game_id, index in rows:
            try:
                indices.add(_count(index, "game_index"))
            except ValueError as e:
                raise StoreError(f"game {game_id} in {self.path} holds a value no game has ({e})") from None
        return indices

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
        return [_record_from_row(r, with_actions, self.path) for r in rows]

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
        return _record_from_row(row, path=self.path)

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
            kept = "" if what == "creating" else "games committed before are kept, this one was not written; "
            raise StoreError(f"{what} {self.path} failed ({reason}); {kept}{hint}") from e

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


def _record_from_row(row: sqlite3.Row, with_actions: bool = True, path: str = "the results file") -> GameRecord:
    """The game of a stored row, its values checked as a position file's are (:func:`check_record`).

    A row whose values are not a game's (changed outside this module: garbage JSON, a
    text winner, an unknown option, a map or player count the rules refuse, actions nested
    a thousand deep) raises :class:`StoreError` naming the game and the value.
    """
    try:
        record = GameRecord(
            tournament_id=_text(row["tournament_id"], "tournament_id"),
            game_index=_count(row["game_index"], "game_index"),
            seed=_count(row["seed"], "seed"),
            map=_text(row["map"], "map"),
            players=_integer(row["players"], "players"),
            options=_json(row["options_json"], "options"),
            seats=_json(row["seats_json"], "seats"),
            actions=_json(row["actions_json"], "actions") if with_actions else [],
            scores=_json(row["scores_json"], "scores"),
            winner=_integer(row["winner"], "winner"),
            ranking=_json(row["ranking_json"], "ranking"),
            breakdowns=_json(row["breakdowns_json"], "breakdowns"),
            think_seconds=_json(row["think_json"], "think_seconds"),
            decisions=_json(row["decisions_json"], "decisions"),
            duration=_number(row["duration"], "duration"),
            num_actions=_count(row["num_actions"], "num_actions"),
            over=_flag(row["over"], "over"),
            game_id=int(row["id"]),
        )
        check_record(record, with_actions)
    except ValueError as e:
        raise StoreError(
            f"game {row['id']} in {path} holds a value no game has ({e}): the file was changed outside "
            f"concordia-env; the other games can still be read"
        ) from None
    return record


#: the ``Game.new`` options a stored game may have, with their allowed values
_OPTIONS: dict[str, tuple[Any, ...]] = {"intermediate_scoring": (False, True), "display_costs": DISPLAY_VARIANTS}


def check_record(record: GameRecord, with_actions: bool = True) -> None:
    """Refuse (``ValueError``) a record whose values no game has: what a replay would trip over deep inside."""
    if record.map not in MAP_NAMES:
        raise ValueError(f"map {short_repr(record.map)} is not one of {', '.join(MAP_NAMES)}")
    allowed = load_map(record.map).players
    if record.players not in allowed:
        raise ValueError(f"players {record.players}: the {record.map} map is played by {allowed}")
    n = record.players
    if not isinstance(record.options, dict):
        raise ValueError(f"options {short_repr(record.options)} are not a mapping")
    for key, value in record.options.items():
        if key not in _OPTIONS or not any(type(value) is type(v) and value == v for v in _OPTIONS[key]):
            raise ValueError(f"option {short_repr(key)}: {short_repr(value)} is not a setup option of a game")
    _list_of(record.seats, "seats", n, lambda v: isinstance(v, str))
    _list_of(record.scores, "scores", n, _is_int)
    if not 0 <= record.winner < n:
        raise ValueError(f"winner {record.winner} is not a seat (0..{n - 1})")
    _list_of(record.ranking, "ranking", n, _is_int)
    if sorted(record.ranking) != list(range(n)):
        raise ValueError(f"ranking {short_repr(record.ranking)} is not an order of the seats")
    _list_of(record.breakdowns, "breakdowns", n, lambda v: isinstance(v, dict) and all(map(_is_int, v.values())))
    _list_of(record.think_seconds, "think_seconds", n, lambda v: _is_int(v) or isinstance(v, float))
    _list_of(record.decisions, "decisions", n, _is_int)
    if with_actions:
        _list_of(record.actions, "actions", None, lambda v: _is_int(v) and 0 <= v < NUM_ACTIONS)
        if len(record.actions) != record.num_actions:
            raise ValueError(f"num_actions {record.num_actions} is not the {len(record.actions)} actions stored")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _list_of(value: Any, name: str, length: int | None, ok: Callable[[Any], bool]) -> None:
    if not isinstance(value, list) or (length is not None and len(value) != length):
        size = "a list" if length is None else f"a list of {length}"
        raise ValueError(f"{name} {short_repr(value)} is not {size}")
    for v in value:
        if not ok(v):
            raise ValueError(f"{name} holds {short_repr(v)}")


def _json(text: Any, name: str) -> Any:
    if not isinstance(text, str):
        raise ValueError(f"{name} is stored as {type(text).__name__}, not JSON text")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{name} is nested too deeply") from None
    except ValueError as e:
        raise ValueError(f"{name} is not JSON ({e})") from None


def _integer(value: Any, name: str) -> int:
    if not _is_int(value):
        raise ValueError(f"{name} {short_repr(value)} is not an integer")
    return int(value)


def _count(value: Any, name: str) -> int:
    if _integer(value, name) < 0:
        raise ValueError(f"{name} {value} is negative")
    return int(value)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise ValueError(f"{name} {short_repr(value)} is not text")
    return value


def _number(value: Any, name: str) -> float:
    if not (_is_int(value) or isinstance(value, float)):
        raise ValueError(f"{name} {short_repr(value)} is not a number")
    return float(value)


def _flag(value: Any, name: str) -> bool:
    if value not in (0, 1) or not _is_int(value):
        raise ValueError(f"{name} {short_repr(value)} is not 0 or 1")
    return bool(value)
