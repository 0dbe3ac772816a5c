"""A person at the table: the choices of a decision as a menu, and a game session with agents.

The terminal game (``concordia play``) and the web app (:mod:`concordia_env.tools.web`) both
use this: a decision's legal actions are shown in words, grouped the way a player thinks
about them (Architect moves by colonist, Mercator trades by good, card purchases by display
slot) and folded into groups when there are many; a :class:`Session` seats one person and
the agents, which are seeded as a tournament would seed them (:func:`concordia_env.agents.base.agent_seed`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

from concordia_env import Game
from concordia_env.agents import from_spec
from concordia_env.agents.base import Agent, agent_seed
from concordia_env.engine import actions as A
from concordia_env.engine.cards import CARD_ID, GOODS, KIND_NAMES
from concordia_env.engine.describe import explain_illegal, goods_text, location_text, money_text, path_text
from concordia_env.engine.errors import integer_argument, short_repr
from concordia_env.engine.maps import PATH_KINDS
from concordia_env.engine.state import MAX_PLAYERS, PHASE_PLAY_CARD
from concordia_env.views.render import render_text

HUMAN = "human"
#: with more choices than this the groups are shown folded
SHOW_ALL_LIMIT = 24
#: groups this small are listed even when folded
SMALL_GROUP = 3
#: letters that name groups ("q" is kept for quit)
GROUP_LETTERS = "abcdefghijklmnoprstuvwxyz"
MAX_SEED = 2**31


class QuitError(Exception):
    """The player typed ``q`` (``concordia play`` exits with status 0), or the input ended first (subclass below)."""


class InputEndedError(QuitError):
    """The input ended before the game did (piped answers that ran out: ``concordia play`` exits with status 1)."""


# ---------------------------------------------------------------------- choices
@dataclass
class Group:
    """Choices that belong together; ``title`` is shown once, each choice without its shared prefix."""

    title: str
    actions: list[int] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)


def _title_and_text(game: Game, action: int) -> tuple[str, str]:
    """The heading an action is listed under, and its text under that heading."""
    name, _ = A.decode(action)
    text = game.describe_action(action)
    if name == "MOVE":
        slot, path = A.decode_move(action)
        loc = int(game.colonist_locations(game.current_player)[slot])
        kind = PATH_KINDS[game.colonist_kind(slot)]
        title = f"Architect: move the {kind} colonist at {location_text(game.map, loc)}"
        return title, f"to {path_text(game.map, path)}"
    if name == "BUILD":
        return "Architect: build a house", text
    if name in ("SELL", "BUY"):
        good, _ = A.decode_sell(action) if name == "SELL" else A.decode_buy(action)
        return f"Mercator: trade {GOODS[good]}", text
    if name == "BUY_CARD":
        slot, variant = A.decode_buy_card(action)
        title = f"buy {CARD_ID[int(game.display()[slot])]} from display slot {slot + 1}"
        return title, (f"paying the slot's 'any' good with {GOODS[variant - 1]}" if variant else text)
    if name == "SETTLE":
        return f"Colonist: settle a {PATH_KINDS[A.decode_settle(action)[0]]} colonist", text
    if name == "PRODUCE":
        return game.phase_name, prefect_text(game, int(A.decode_produce(action)))
    if name == "CASH":
        return game.phase_name, f"{text}: {money_text(game.cash_bonus())}"
    # the rest belongs to the pending decision as a whole (including its "done")
    return game.phase_name, text


def prefect_text(game: Game, province: int) -> str:
    """A Prefect's production in words: the province, its bonus, what the player and the others receive.

    Every number is the rules' (:meth:`Game.prefect_production`). Gavdos shows no bonus good:
    the player names one after producing, so its units are told as "of the good you choose"
    (what choosing brick adds over choosing food). A haul beyond the free storehouse slots
    says how many fit: the storehouse rules decide what is kept.
    """
    p = game.current_player
    name = game.map.province_names[province]
    good, _ = game.bonus_markers()[province]
    if good >= 0:
        received, chosen, bonus = game.prefect_production(province), 0, GOODS[good]
    else:
        received = game.prefect_production(province, bonus_good=0)
        chosen = int(received[p, 0] - game.prefect_production(province, bonus_good=1)[p, 0])
        received[p, 0] -= chosen
        bonus = "a good of your choice"
    own = goods_text(received[p]) if received[p].any() else ""
    if chosen:
        own = f"{own} + {chosen} of the good you choose" if own else f"{chosen} of the good you choose"
    parts = [f"Prefect: produce in {name} (bonus {bonus}): you receive {own}"]
    free = game.free_slots(p)
    if int(received[p].sum()) + chosen > free:
        parts[0] += f" (your storehouse has room for {free})"
    others = [f"P{q} {goods_text(received[q])}" for q in range(game.num_players) if q != p and received[q].any()]
    if others:
        parts.append("; ".join(others))
    return "; ".join(parts)


def unplayable_cards(game: Game) -> list[str]:
    """The cards in hand that cannot be played now, each with the rules' reason (the menu omits them).

    A Diplomat with no card to copy is the usual one; without a word it would seem lost.
    """
    if game.is_over() or game.phase != PHASE_PLAY_CARD:
        return []
    p, legal = game.current_player, game.legal_mask()
    return [
        f"{KIND_NAMES[kind]}: {explain_illegal(game.state, game.map, A.A_PLAY + kind)}"
        for kind, count in enumerate(game.hand_kinds(p))
        if count and not legal[A.A_PLAY + kind]
    ]


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
def prompt_help(groups: Sequence[Group]) -> str:
    """The prompt's reminder of what may be typed: this menu's choice numbers and the letters of its folded groups."""
    total = sum(len(g.actions) for g in groups)
    folded = [
        letter
        for letter, group in zip(GROUP_LETTERS, groups, strict=False)
        if total > SHOW_ALL_LIMIT and len(group.actions) > SMALL_GROUP
    ]
    parts = [f"1-{total}: take it" if total > 1 else "1: take it"]
    if folded:
        parts.append(f"{'/'.join(folded)}: list that group")
    return " · ".join([*parts, "?: list all", "!: board", "q: quit"])


def ask_human(game: Game, read: Callable[[str], str], out: TextIO, color: bool) -> int:
    """Show the choices and read until the player picks one; returns the action."""
    groups = group_choices(game)
    order = numbered(groups)
    out.write(f"\nYour decision (P{game.current_player}): {game.phase_name}\n" + menu_text(groups))
    for note in unplayable_cards(game):
        out.write(f"  cannot be played now: {note}\n")
    prompt = f"[{prompt_help(groups)}] > "
    while True:
        try:
            line = read(prompt).strip().lower()
        except EOFError:
            raise InputEndedError("the input ended before the game did") from None
        if line == "q":
            raise QuitError("you quit")
        if line == "!":
            out.write(render_text(game, color=color))
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
    """Seat the person and the agents; agents are seeded as in a tournament game with this seed.

    Every count is range-checked before anything is built: ``players`` in 1..MAX_PLAYERS
    (the map says which of those it takes), the seat within it, one opponent spec or one
    per opponent.
    """
    players = integer_argument(players, "players")
    if not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be in 1..{MAX_PLAYERS} (the map decides which), got {short_repr(players)}")
    human_seat = integer_argument(human_seat, "seat")
    if not 0 <= human_seat < players:
        raise ValueError(f"--seat must be in 0..{players - 1}")
    if len(opponents) == 1:
        opponents = list(opponents) * (players - 1)
    if len(opponents) != players - 1:
        raise ValueError(f"give one opponent spec, or one per opponent ({players - 1}); got {len(opponents)}")
    seats = list(opponents)
    seats.insert(human_seat, HUMAN)
    game = Game.new(map_name, players, seed)
    seated: dict[int, Agent] = {}
    for seat, spec in enumerate(seats):
        if seat != human_seat:
            seated[seat] = from_spec(spec)
            seated[seat].reset(agent_seed(seed, seat))
    return Session(game, seats, human_seat, seated, seed)
