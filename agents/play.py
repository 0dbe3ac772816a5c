"""Play Concordia in the terminal against agents.

::

    python -m agents.play --map italia --players 2 --vs heuristic [--seat 0] [--seed S] [--save results/play.db]

Your decisions are shown as numbered choices in words, grouped the way a player thinks
about them (Architect moves by colonist, Mercator trades by good, card purchases by
display slot). Type a choice's number to take it. When there are many choices the groups
are folded: type a group's letter to list it (``?`` lists everything, ``!`` shows the
board again, ``q`` quits). Opponents' moves are described as they happen.

Input is read line by line from standard input, so a game can be scripted:
``yes 1 | python -m agents.play ...`` always takes the first listed choice.
``--save`` writes the finished game to the results database of
:mod:`benchmarks.store`, replayable with ``python -m benchmarks.replay``.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from benchmarks.replay import board_text, breakdown_table
from benchmarks.store import Store
from benchmarks.tournament import agent_seed, make_agent, record_from_game
from concordia_env import Game
from concordia_env import actions as A
from concordia_env.cards import CARD_ID, GOODS, LAND_COLONISTS
from concordia_env.describe import location_text, path_text
from concordia_env.maps import PATH_KINDS

from .base import Agent

HUMAN = "human"
#: with more choices than this the groups are shown folded
SHOW_ALL_LIMIT = 24
#: groups this small are listed even when folded
SMALL_GROUP = 3
#: letters that name groups ("q" is kept for quit)
GROUP_LETTERS = "abcdefghijklmnoprstuvwxyz"
MAX_SEED = 2**31
#: colonist slots 0..2 are land colonists, 3..5 sea colonists (see concordia_env.actions)
LAND_SLOTS = LAND_COLONISTS


class QuitError(Exception):
    """The player typed ``q`` or the input ended before the game did."""


# ---------------------------------------------------------------------- choices
@dataclass
class Group:
    """Choices that belong together; ``title`` is shown once, each choice without its shared prefix."""

    title: str
    actions: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def _title_and_text(game: Game, action: int) -> tuple[str, str]:
    """The heading an action is listed under, and its text under that heading."""
    name, i = A.decode(action)
    text = game.describe_action(action)
    if name == "MOVE":
        slot, path = divmod(i, A.MAX_PATHS)
        loc = int(game.colonist_locations(game.current_player)[slot])
        kind = PATH_KINDS[0 if slot < LAND_SLOTS else 1]
        title = f"Architect: move the {kind} colonist at {location_text(game.map, loc)}"
        return title, f"to {path_text(game.map, path)}"
    if name == "BUILD":
        return "Architect: build a house", text
    if name in ("SELL", "BUY"):
        return f"Mercator: trade {GOODS[i // A.MAX_TRADE]}", text
    if name == "BUY_CARD":
        slot, variant = divmod(i, A.PAY_VARIANTS)
        title = f"buy {CARD_ID[int(game.display()[slot])]} from display slot {slot + 1}"
        return title, (f"paying the slot's 'any' good with {GOODS[variant - 1]}" if variant else text)
    if name == "SETTLE":
        return f"Colonist: settle a {PATH_KINDS[i // A.MAX_CITIES]} colonist", text
    # the rest belongs to the pending decision as a whole (including its "done")
    return game.phase_name, text


def group_choices(game: Game) -> list[Group]:
    """The legal actions of the pending decision, grouped, in a fixed order (the numbering order)."""
    groups: dict[str, Group] = {}
    for action in game.legal_actions():
        a = int(action)
        title, text = _title_and_text(game, a)
        group = groups.setdefault(title, Group(title))
        group.actions.append(a)
        group.texts.append(text)
    return [_strip_shared_label(g) for g in groups.values()]


def _strip_shared_label(group: Group) -> Group:
    """Under a heading, drop the "Mercator: " label every choice starts with."""
    labels = {t.split(": ", 1)[0] for t in group.texts if ": " in t}
    if len(group.texts) > 1 and len(labels) == 1 and all(": " in t for t in group.texts):
        group.texts = [t.split(": ", 1)[1] for t in group.texts]
    return group


def numbered(groups: Sequence[Group]) -> list[int]:
    """Choice number ``n`` (from 1) takes action ``numbered(groups)[n - 1]``."""
    return [a for g in groups for a in g.actions]


def menu_text(groups: Sequence[Group], expand: str | None = None) -> str:
    """The numbered choices; folded into group headings when there are many.

    ``expand`` is a group letter to list, or ``"*"`` for all.
    """
    total = sum(len(g.actions) for g in groups)
    fold = total > SHOW_ALL_LIMIT and expand != "*"
    lines = []
    number = 1
    for letter, group in zip(GROUP_LETTERS, groups, strict=False):
        count = len(group.actions)
        listed = not fold or count <= SMALL_GROUP or expand == letter
        if listed:
            if count > 1:
                lines.append(f"  {group.title}:")
                lines += [f"    {number + k:>3}. {text}" for k, text in enumerate(group.texts)]
            else:
                lines.append(f"  {number:>3}. {group.texts[0]}")
        else:
            lines.append(f"  [{letter}] {group.title}: {count} choices, {number}-{number + count - 1}")
        number += count
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- the human's decision
HELP = "number: take it · letter: list a group · ?: list all · !: board · q: quit"


def ask_human(game: Game, read: Callable[[str], str], out: TextIO, color: bool) -> int:
    """Show the choices and read until the player picks one; returns the action."""
    groups = group_choices(game)
    order = numbered(groups)
    out.write(f"\nYour decision (P{game.current_player}): {game.phase_name}\n" + menu_text(groups))
    while True:
        try:
            line = read(f"[{HELP}] > ").strip().lower()
        except EOFError:
            raise QuitError("the input ended before the game did") from None
        if line == "q":
            raise QuitError("you quit")
        if line == "!":
            out.write(board_text(game, color))
        elif line == "?" or (len(line) == 1 and line in GROUP_LETTERS[: len(groups)]):
            out.write(menu_text(groups, "*" if line == "?" else line))
        elif line.isdigit() and 1 <= int(line) <= len(order):
            action = order[int(line) - 1]
            out.write(f"  you: {game.describe_action(action)}\n")
            return action
        else:
            out.write(f"  '{line}' is not a choice: type a number from 1 to {len(order)}\n")


# ---------------------------------------------------------------------- the game
@dataclass
class Session:
    """One game between a person and agents, with what is needed to store it."""

    game: Game
    seats: list[str]
    human_seat: int
    agents: dict[int, Agent]
    seed: int
    actions: list[int] = field(default_factory=list)
    think_seconds: list[float] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.think_seconds = [0.0] * self.game.num_players
        self.decisions = [0] * self.game.num_players


def new_session(map_name: str, players: int, opponents: Sequence[str], human_seat: int, seed: int) -> Session:
    """Seat the person and the agents; agents are seeded as in a tournament game with this seed."""
    if not 0 <= human_seat < players:
        raise ValueError(f"--seat must be in 0..{players - 1}")
    if len(opponents) == 1:
        opponents = list(opponents) * (players - 1)
    if len(opponents) != players - 1:
        raise ValueError(f"give one opponent spec, or one per opponent ({players - 1}); got {len(opponents)}")
    seats = list(opponents)
    seats.insert(human_seat, HUMAN)
    game = Game.new(map_name, players, seed)
    agents: dict[int, Agent] = {}
    for seat, spec in enumerate(seats):
        if seat != human_seat:
            agents[seat] = make_agent(spec)
            agents[seat].reset(agent_seed(seed, seat))
    return Session(game, seats, human_seat, agents, seed)


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


def save(session: Session, db: str) -> int:
    """Store the finished game in a results database; returns its game id for ``benchmarks.replay``."""
    game = session.game
    tournament_id = f"play-{uuid.uuid4().hex[:12]}"
    record = record_from_game(
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
    config = {"kind": "play", "map": game.map.name, "players": game.num_players, "seats": session.seats}
    with Store(db) as store:
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
    parser = argparse.ArgumentParser(prog="python -m agents.play", description="Play Concordia against agents.")
    parser.add_argument("--map", default="italia")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument(
        "--vs", nargs="+", default=["heuristic"], help="opponent spec(s): one for all opponents, or one per opponent"
    )
    parser.add_argument(
        "--seat",
        type=int,
        default=0,
        help="your seat P0..P(players-1), a place at the table, not the turn order: the setup seed draws who starts",
    )
    parser.add_argument("--seed", type=int, default=None, help="setup seed (default: a random one, printed)")
    parser.add_argument("--save", default=None, metavar="DB", help="store the finished game in this results file")
    parser.add_argument("--color", action=argparse.BooleanOptionalAction, default=None, help="ANSI colours")
    args = parser.parse_args(argv)
    seed = secrets.randbelow(MAX_SEED) if args.seed is None else args.seed
    try:
        session = new_session(args.map, args.players, args.vs, args.seat, seed)
    except ValueError as exc:
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
    except QuitError as exc:
        out.write(f"\nstopped: {exc}; the unfinished game is not saved\n")
        return 1
    if args.save:
        game_id = save(session, args.save)
        out.write(f"saved as game {game_id}: python -m benchmarks.replay {args.save} {game_id}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
