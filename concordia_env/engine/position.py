"""The position format: any game state as readable JSON, and back (``docs/position-format.md``).

A position names everything instead of numbering it (cities, provinces, paths, goods, card
ids, decisions), so a person can read it, write one by hand, or edit one to set up a test.
``from_dict(to_dict(game)) == game`` holds exactly for every reachable state, in the middle
of an action too: the pending decision and all of its context are part of the format.

Hand-written positions only need what matters at a turn boundary; the rest has defaults
(the pending decision is "play a card" for ``current_player``, counters are 0, options are
the defaults, a missing ``stack`` is made of the cards not seen elsewhere). Loading checks
the position against the rules' invariants and raises :class:`PositionError` (a
``ValueError``) that names the offending key and what is wrong, instead of building a state
the engine would silently misplay.

Whatever it is given (any text, bytes, object, nesting depth or size), loading raises
nothing but :class:`PositionError`, with a message of bounded length. Every counter is
bounded (:mod:`concordia_env.engine.state_check` lists the bounds), and a position the rules
cannot reach is refused, including the ones that would leave a game stuck (a decision
nobody can take) or that only arise from states the engine never leaves pending (an
action whose allowance is used up, a storehouse choice that is in fact forced).

The reader and writer live in :mod:`concordia_env.engine.position_codec`, on raw state arrays;
``Game.to_json`` / ``Game.from_json`` and the functions here are the same calls.
"""

from __future__ import annotations

from typing import Any

from .game import Game
from .position_codec import (
    FORMAT,
    PENDING_KEYS,
    PLAYER_OPTIONAL,
    PLAYER_REQUIRED,
    PROBLEM_LIMIT,
    TOP_OPTIONAL,
    TOP_REQUIRED,
    WHERE_LIMIT,
    PositionError,
)


def to_json(game: Game, indent: int | None = 1) -> str:
    """``game.to_json(indent)``: the position as JSON text (``indent=None``: one line)."""
    return game.to_json(indent)


def to_dict(game: Game) -> dict[str, Any]:
    """``game.to_dict()``: the position as plain JSON-ready Python objects."""
    return game.to_dict()


def from_json(text: str | bytes) -> Game:
    """``Game.from_json(text)``: load a position; raises :class:`PositionError` only."""
    return Game.from_json(text)


def from_dict(d: dict[str, Any]) -> Game:
    """``Game.from_dict(d)``: build the game of a position dict; raises :class:`PositionError` only."""
    return Game.from_dict(d)


__all__ = [
    "FORMAT",
    "PENDING_KEYS",
    "PLAYER_OPTIONAL",
    "PLAYER_REQUIRED",
    "PROBLEM_LIMIT",
    "TOP_OPTIONAL",
    "TOP_REQUIRED",
    "WHERE_LIMIT",
    "PositionError",
    "from_dict",
    "from_json",
    "to_dict",
    "to_json",
]
