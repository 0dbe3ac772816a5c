"""The numbers of the ``concordia`` command lines, checked by argparse itself.

A command line is input like any other: ``--seed -1`` ended in a numpy traceback and
``--games -5`` in a ``ValueError`` traceback from deep inside the tournament. Each
numeric option of the tools takes one of the types below instead of ``int``, so argparse
refuses a bad value before anything runs, with its usual usage line and a message that
says what is allowed::

    concordia tournament: error: argument --games: must be an integer >= 1, got '-5'

Seeds are integers >= 0 (what ``Game.new`` and numpy's generators take); counts of games,
players and workers at least 1; a port 1..65535; times a finite number of seconds > 0.

Output paths are checked before the work that fills them (a game played, a tournament's
games, a benchmark's measurements): :func:`output_file_problem` and
:func:`output_dir_problem` say why a path cannot be written, without creating anything;
:func:`refuse_unwritable` turns that into the usage error; the tools create missing folders
when they write (:func:`write_text`).
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from concordia_env.engine import defaults

#: the highest TCP port
MAX_PORT = 65535


def integer_in(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` that reads an integer in ``minimum..maximum`` (no upper bound if None)."""
    allowed = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer {allowed}, got {text[:40]!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"must be an integer {allowed}, got {text[:40]!r}")
        return value

    parse.__name__ = f"integer {allowed}"
    return parse


#: a setup seed: ``Game.new`` and numpy's generators take any integer >= 0
seed = integer_in(0)
#: a number of games, players, workers, simulations...
count = integer_in(1)
#: an index or a number of actions that may be 0
index = integer_in(0)
#: a TCP port
port = integer_in(1, MAX_PORT)


def number_above_zero(what: str) -> Callable[[str], float]:
    """An argparse ``type`` that reads a finite number > 0; ``what`` names it in the error."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not (math.isfinite(value) and value > 0):
            raise argparse.ArgumentTypeError(f"must be {what} > 0, got {text[:40]!r}")
        return value

    parse.__name__ = f"{what} > 0"
    return parse


#: a time, in seconds
seconds = number_above_zero("a number of seconds")
#: a scale or a share
positive_number = number_above_zero("a number")


def add_table(
    parser: argparse.ArgumentParser,
    *,
    players: bool = True,
    with_seed: bool = True,
    seed_help: str = "",
    seed_default: int | None = defaults.COMMAND_SEED,
) -> None:
    """``--map``, ``--players`` and ``--seed`` with the defaults every form of the game shares.

    The defaults are :mod:`concordia_env.engine.defaults`' (2-player Italia; the measuring
    commands' seed 0, so that a report is reproduced by its command line). ``players=False``
    leaves ``--players`` out, for a command whose player count is its list of agents
    (``replay --play``), and ``with_seed=False`` ``--seed``, for one that deals no game of its own
    (``bench agent_speed``). ``seed_default=None`` is for the commands a person plays
    (``play``, ``web``): a new deal each time, its seed printed. The values are checked by
    ``Game.new`` before anything is played.
    """
    parser.add_argument("--map", default=defaults.MAP, help=f"the map (default {defaults.MAP})")
    if players:
        parser.add_argument(
            "--players",
            type=count,
            default=defaults.NUM_PLAYERS,
            help=f"players at every table (default {defaults.NUM_PLAYERS})",
        )
    if not with_seed:
        return
    parser.add_argument(
        "--seed",
        type=seed,
        default=seed_default,
        help=seed_help or f"the seed (default {seed_default})",
    )


def add_quiet(parser: argparse.ArgumentParser) -> None:
    """``--quiet``: no progress line (shown only when stderr is a terminal anyway).

    The rule itself is :func:`concordia_env.tools.progress.show_progress`.
    """
    parser.add_argument(
        "--quiet", action="store_true", help="no progress line (shown only when stderr is a terminal anyway)"
    )


def _nearest_existing(path: Path) -> Path:
    """``path`` or its closest ancestor that exists (``.`` for a relative path with none)."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(".")


def _can_create_in(folder: Path) -> bool:
    """Whether a file can be created in the existing ``folder``: asked of the file system itself.

    ``os.access`` answers yes to root everywhere, ``/proc`` included, where nothing can be
    created; so an unnamed temporary file is made there and dropped at once (nothing stays).
    """
    if not os.access(folder, os.W_OK | os.X_OK):
        return False
    try:
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def output_file_problem(path: str | os.PathLike[str]) -> str | None:
    """Why a file cannot be written at ``path`` (its missing folders created), or None if it can; creates nothing."""
    file = Path(path)
    if file.is_dir():
        return f"{file} is a directory, not a file"
    if file.exists():
        return None if os.access(file, os.W_OK) else f"{file} is not writable"
    folder = _nearest_existing(file.parent)
    if not folder.is_dir():
        return f"{folder} is not a directory, so {file} cannot be created"
    if not _can_create_in(folder):
        return f"{folder} is not writable, so {file} cannot be created"
    return None


def output_dir_problem(path: str | os.PathLike[str]) -> str | None:
    """Why files cannot be written into the folder ``path`` (created if missing), or None; creates nothing."""
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        return f"{folder} exists and is not a directory"
    existing = _nearest_existing(folder)
    if not existing.is_dir():
        return f"{existing} is not a directory, so {folder} cannot be created"
    if not _can_create_in(existing):
        return f"{existing} is not writable"
    return None


def refuse_unwritable(
    parser: argparse.ArgumentParser, option: str, path: str | os.PathLike[str] | None, *, folder: bool = False
) -> None:
    """The usage error (one line, exit status 2) for an output ``path`` that cannot be written; None passes.

    ``path`` is a file (:func:`output_file_problem`), or with ``folder`` a folder to write
    into (:func:`output_dir_problem`).
    """
    if path is None:
        return
    why = (output_dir_problem if folder else output_file_problem)(path)
    if why is not None:
        parser.error(f"{option}: {why}")


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path``, creating its missing folders (checked by :func:`refuse_unwritable` before)."""
    file = Path(path)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)


def mistake_text(err: Exception) -> str:
    """The one line that says what a user's mistake was: the error's text, or an OS error's reason and file."""
    if isinstance(err, OSError) and err.filename:
        return f"{err.strerror}: {err.filename}"
    return str(err)
