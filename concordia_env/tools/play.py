"""Play Concordia in the terminal against agents.

::

    concordia play --map italia --players 2 --vs heuristic [--seat 0] [--seed S] [--save results/play.db]

Your decisions are shown as numbered choices in words, grouped the way a player thinks
about them (Architect moves by colonist, Mercator trades by good, card purchases by
display slot). Type a choice's number to take it. When there are many choices the groups
are folded: type a group's letter to list it (the prompt names the letters and numbers
of the menu; ``?`` lists everything, ``!`` shows the board again, ``q`` quits, with exit
status 0). Opponents' moves are described as they happen.

Input is read line by line from standard input, so a game can be scripted:
``yes 1 | concordia play ...`` always takes the first listed choice (input that ends
before the game does exits with status 1).
``--save`` writes the finished game to the results database of
:mod:`concordia_env.tools.store`, replayable with ``concordia replay``: that is why the
command lives here, beside the tournament and the replay, while the menus and the session
it plays are :mod:`concordia_env.tools.session` (shared with the web app).

A finished game is never lost: the ``--save`` file is opened (created if missing) before
the first move, so a file that cannot be used (a directory, a file that is not a results
database, a path that cannot be written) is refused before the game starts, with the
usual usage error. If the save still fails at the end (the disk filled up meanwhile, the
file was replaced), the game is written to a new results file in the current folder, or
else in the temporary folder, or else printed as JSON, and the message says where (exit
status 1).
"""

from __future__ import annotations

import argparse
import json
import secrets
import sqlite3
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from concordia_env.tools import arguments
from concordia_env.tools.replay import board_text, breakdown_table
from concordia_env.tools.session import (
    HUMAN,
    MAX_SEED,
    InputEndedError,
    QuitError,
    Session,
    ask_human,
    new_session,
)
from concordia_env.tools.store import GameRecord, Store, StoreError
from concordia_env.tools.tournament import record_from_game


def play(session: Session, read: Callable[[str], str], out: TextIO, color: bool = False) -> None:
    """Play to the end: the person decides through ``read``, agents move by themselves."""
    game, turn = session.game, -1
    while not game.is_over():
        if game.turn_count != turn:
            turn = game.turn_count
            who = session.seats[game.turn_player]
            out.write(f"\n=== turn {turn}: P{game.turn_player} ({'you' if who == HUMAN else who}) ===\n")
            if game.turn_player == session.human_seat:
                out.write(board_text(game, color))
        player = game.current_player
        start = time.perf_counter()
        if player == session.human_seat:
            action = ask_human(game, read, out, color)
        else:
            action = int(session.agents[player].act(game.clone()))
            out.write(f"  P{player} ({session.seats[player]}): {game.describe_action(action)}\n")
        session.think_seconds[player] += time.perf_counter() - start
        session.decisions[player] += 1
        game.step(action)
        session.actions.append(action)
    out.write("\n=== game over ===\n" + board_text(game, color) + "\n" + breakdown_table(game, session.seats))
    place = game.ranking().index(session.human_seat) + 1
    out.write("You win!\n" if place == 1 else f"You finish in place {place} of {game.num_players}.\n")


#: what a refused ``--save`` file tells the person to do
SAVE_RECOVERY = "give --save another file, or move this one away"


def check_save_file(db: str) -> None:
    """Open the ``--save`` results file (created if missing) before the game: :class:`StoreError` if it is unusable."""
    with Store(db, recovery=SAVE_RECOVERY):
        pass


def save_somewhere(session: Session, db: str, out: TextIO) -> bool:
    """Save the finished game in ``db``; if that fails, in a new file (then say where). True if ``db`` took it."""
    try:
        game_id = save(session, db)
    except (StoreError, OSError, sqlite3.Error) as exc:
        out.write(f"\ncould not save the game in {db}: {exc}\n")
    else:
        out.write(f"saved as game {game_id}: concordia replay {db} {game_id}\n")
        return True
    name = f"concordia-play-{time.strftime('%Y%m%d-%H%M%S')}-{session.seed}.db"
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        try:
            game_id = save(session, str(folder / name))
        except (StoreError, OSError, sqlite3.Error):
            continue
        out.write(f"the game is kept in {folder / name} instead: concordia replay {folder / name} {game_id}\n")
        return False
    out.write("no file could be written; the game, to keep by hand:\n" + json.dumps(record_of(session)) + "\n")
    return False


def record_of(session: Session) -> dict[str, Any]:
    """The finished game as a results record (a dict of :class:`~concordia_env.tools.store.GameRecord`'s fields)."""
    return asdict(_record(session, "play"))


def _record(session: Session, tournament_id: str) -> GameRecord:
    game = session.game
    return record_from_game(
        game,
        tournament_id=tournament_id,
        game_index=0,
        seed=session.seed,
        options={},
        seats=session.seats,
        actions=session.actions,
        think_seconds=session.think_seconds,
        decisions=session.decisions,
        duration=sum(session.think_seconds),
    )


def save(session: Session, db: str) -> int:
    """Store the finished game in a results database; returns its game id for ``concordia_env.tools.replay``."""
    game = session.game
    tournament_id = f"play-{uuid.uuid4().hex[:12]}"
    record = _record(session, tournament_id)
    config = {"kind": "play", "map": game.map.name, "players": game.num_players, "seats": session.seats}
    with Store(db, recovery=SAVE_RECOVERY) as store:
        store.register_tournament(tournament_id, {**config, "seed": session.seed})
        return store.add_game(record)


# ---------------------------------------------------------------------- CLI
def _echoing_read(out: TextIO) -> Callable[[str], str]:
    """``input`` for piped input: echo each answer, so a scripted game reads like a typed one."""

    def read(prompt: str) -> str:
        out.write(prompt)
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        out.write(line if line.endswith("\n") else line + "\n")
        return line.rstrip("\n")

    return read


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="concordia play", description="Play Concordia against agents.")
    arguments.add_table(parser, seed_default=None, seed_help="setup seed (default: a random one, printed)")
    parser.add_argument(
        "--vs", nargs="+", default=["heuristic"], help="opponent spec(s): one for all opponents, or one per opponent"
    )
    parser.add_argument(
        "--seat",
        type=arguments.index,
        default=0,
        help="your seat P0..P(players-1), a place at the table, not the turn order: the setup seed draws who starts",
    )
    parser.add_argument("--save", default=None, metavar="DB", help="store the finished game in this results file")
    parser.add_argument("--color", action=argparse.BooleanOptionalAction, default=None, help="ANSI colours")
    args = parser.parse_args(argv)
    seed = secrets.randbelow(MAX_SEED) if args.seed is None else args.seed
    try:
        session = new_session(args.map, args.players, args.vs, args.seat, seed)
        if args.save:
            check_save_file(args.save)  # before the first move: a game is not played into a file it cannot go to
    except (ValueError, OSError, StoreError) as exc:  # OSError: a policy: or learned: spec naming a missing file
        parser.error(str(exc))
    out = sys.stdout
    color = out.isatty() if args.color is None else args.color
    out.write(
        f"{args.map}, {args.players} players, seed {seed}: "
        + ", ".join(f"P{s} {'you' if spec == HUMAN else spec}" for s, spec in enumerate(session.seats))
        + "\n"
    )
    try:
        play(session, input if sys.stdin.isatty() else _echoing_read(out), out, color)
    except QuitError as exc:  # q is the player's choice (status 0); input that ran out is not (status 1)
        out.write(f"\nstopped: {exc}; the unfinished game is not saved\n")
        return 1 if isinstance(exc, InputEndedError) else 0
    if args.save and not save_somewhere(session, args.save, out):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
