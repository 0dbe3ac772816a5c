"""Fuzzing campaigns against every public entry point, for the test suite and for long runs.

::

    python -m tests.fuzz.campaigns --minutes 30                 # every campaign in turn for 30 minutes
    python -m tests.fuzz.campaigns --hours 4 --json fuzz.json   # an overnight run, with a report file
    python -m tests.fuzz.campaigns --campaigns positions actions --examples 2000
    python -m tests.fuzz.campaigns --minutes 20 --boundscheck   # compiled code checks every index (slower)

Each campaign is a Hypothesis test body: it draws its input through ``data`` and raises
``AssertionError`` when a contract breaks. ``tests/fuzz/`` runs every campaign for a few
seconds in the test suite; this module's command line runs them for as long as asked,
in chunks of ``--chunk`` inputs with a fresh seed each, round robin, and prints how many
inputs each campaign tried and how many failed or crashed.

========================  =====================================================================
campaign                  input, and what must hold
========================  =====================================================================
``positions``             a real position (any map, player count, options, up to 400 random
                          moves, mid-action included) edited 1 to 4 times (a value replaced
                          by another name, number or JSON value, an entry deleted, inserted,
                          moved between lists, a known key added): the loader raises
                          ``PositionError`` only, with a short message, or accepts a position
                          that keeps every invariant for 200 random moves and round-trips
                          through JSON before and after
``position-text``         any text, bytes, JSON value or Python object, and real position
                          texts with characters flipped, deleted or inserted: ``from_json`` /
                          ``from_dict`` raise ``PositionError`` only (short message) or
                          accept a position that keeps every invariant
``actions``               an action of every Python and numpy type (ints beyond int64,
                          floats, bools, None, strings, arrays of any shape and dtype, objects
                          with ``__index__``) in a real position: ``Game.step`` applies a legal
                          index or raises ``IllegalActionError`` with the state unchanged;
                          accessors (``money``, ``hand``, ``display_price``, ``observation``...)
                          given any index return or raise ``ValueError`` / ``TypeError``
``vector``                ``VectorGame.step`` with action arrays of every dtype, byte order,
                          layout (read-only, strided, Fortran), shape and value, and
                          ``observations`` with odd seats: legal batches step, others raise
                          ``IllegalActionError`` / ``ValueError`` with no row changed
``options``               ``Game.new`` and ``VectorGame`` with option values of every type: a
                          game exactly when every option is valid, else ``TypeError`` /
                          ``ValueError``
``env-orders``            random call sequences on the PettingZoo ``raw_env`` and
                          ``parallel_env`` and the Gymnasium ``SingleAgentEnv``, with or
                          without a first ``reset``
                          (step with any value, observe, last, reset, state, close, render):
                          only the documented exceptions (a step before ``reset`` raises
                          ``ResetNeededError``; a PettingZoo step after the end does nothing),
                          a refused call changes nothing, the game keeps every invariant
``openspiel``             OpenSpiel states of ``python_concordia`` (setup chance nodes and
                          play): ``apply_action`` with values of every type applies a legal
                          action or chance outcome, else raises ``IllegalActionError`` with
                          the state and history unchanged; ``action_to_string`` with any
                          int64 returns text or raises ``ValueError``; ``new_initial_state``
                          with real documents (maybe edited) or any text or object gives a
                          playable state or ``ValueError``, with a short message
``web``                   the web app's JSON API (Starlette's test client): new games with odd
                          options, moves with odd steps and actions, raw bodies (not JSON,
                          nested 20,000 deep, over the size limit), unknown game ids: a
                          documented status (never 500) with a short ``error``, a refused
                          request changes no game
``raw-state``             a real state array with 1 to 3 fields corrupted, given to
                          ``Game(state, map)``: ``ValueError`` or a game that survives every
                          public call (legal moves, observations, scores, JSON, play), also
                          after the caller writes to its array again (the game has a copy).
                          Runs in a child process: a segmentation fault fails the campaign
                          instead of ending the runner
``web-attacks``           the web app with hostile headers (foreign ``Host`` names, cross-site
                          ``Origin`` and ``Sec-Fetch-Site``, content types a form or no-cors
                          fetch sends) and hostile agent specs (file paths, pickles, code,
                          budgets of hours, huge numbers): exactly the status the threat
                          model gives (421, 403, 415, 400, else 201); a refused request
                          creates no game, and opens no file under the trap path nor
                          unpickles anything (an audit hook watches)
``opponents``             ``SingleAgentEnv`` whose opponents raise at a random call, answer an
                          illegal action or a value of any type, or play on the game they
                          are handed: an ``OpponentError`` naming seat and spec with the cause
                          chained (never the learner's ``IllegalActionError`` or a penalty),
                          then ``ResetNeededError`` until ``reset``; a legal index is played
``training-faults``       a tiny ``concordia train expert`` run stopped once, in any phase of
                          its first or second iteration (play, fit, evaluation, before or
                          after the checkpoint), by Ctrl-C or, while playing, a lost worker;
                          resumed from its checkpoint it ends bit for bit as the straight run
``concurrent``            2 to 4 threads calling one ``Game`` (steps with legal and odd values,
                          masks, observations, scores, clones, JSON) or one ``VectorGame``
                          (sampled and odd steps, restarts, observations, masks, rows) at
                          once: only refusals (``IllegalActionError``, ``ValueError``,
                          ``TypeError``), and afterwards every game keeps every invariant and
                          plays on
``stored-rows``           a results file whose one real game had 1 to 3 of its stored values
                          replaced (JSON of any shape, raw SQLite integers, floats, text and
                          blobs, lists nested up to 100,000 deep, an entry of a list edited):
                          ``Store.game`` / ``Store.games`` raise ``StoreError`` only, with a
                          one-line message, or give a record that replays as text and HTML or
                          whose actions the rules refuse (``IllegalActionError``)
``state-mutation``        writes through every array a ``Game`` or ``VectorGame`` hands out
                          (``state``, slices, views, ``flags.writeable``, ``memoryview``,
                          ``frombuffer``, pickles, ``Game(arr, map)`` then ``arr``, masks,
                          attributes, infos), then every public call: refused or into a copy,
                          the game exactly as before and alive. Runs in a child process
========================  =====================================================================

``--boundscheck`` runs every campaign in child processes with ``NUMBA_BOUNDSCHECK=1``
(numba then raises ``IndexError`` on any out-of-bounds access instead of reading past
the array), compiled into a private cache directory so the normal cache is untouched.
"""

from __future__ import annotations

import argparse
import contextlib
import fractions
import functools
import io
import json
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.parse
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from concordia_env import NUM_ACTIONS, Game, IllegalActionError
from concordia_env.engine.cards import (
    CARD_DECK,
    CARD_ID,
    DISPLAY_SLOTS,
    DISPLAY_VARIANTS,
    GOODS,
    HOUSES_PER_PLAYER,
    KIND_NAMES,
    NUM_CARD_TYPES,
    NUM_START_TYPES,
    START_HAND_COUNTS,
)
from concordia_env.engine.errors import short_repr
from concordia_env.engine.maps import MAP_NAMES, load
from concordia_env.engine.position import (
    PENDING_KEYS,
    PLAYER_OPTIONAL,
    PLAYER_REQUIRED,
    PROBLEM_LIMIT,
    TOP_OPTIONAL,
    TOP_REQUIRED,
    WHERE_LIMIT,
    PositionError,
    from_dict,
    from_json,
)
from concordia_env.engine.state import (
    CONCORDIA_HOLDER,
    DECISION_COUNT,
    DISPLAY,
    P_DISCARD,
    P_HAND,
    P_INTERMEDIATE_VP,
    PHASE_NAMES,
    PLAYER_SIZE,
    PLAYERS,
    STACK,
    STACK_SIZE,
    STATE_SIZE,
    player_base,
)
from concordia_env.engine.state_check import (
    INT32_MAX,
    INT32_MIN,
    MAX_DECISIONS,
    MAX_INCOMING,
    MAX_INTERMEDIATE_VP,
    MAX_MONEY,
    MAX_TURNS,
    check_state,
)

#: moves played from every accepted position
MOVES_AFTER_ACCEPT = 200
#: the longest error message a refusal may carry (the position loader's limits, plus room)
MESSAGE_LIMIT = WHERE_LIMIT + PROBLEM_LIMIT + 200
#: random moves before a campaign's position (0 = the setup)
MAX_SETUP_MOVES = 400
#: how the inputs ended, per campaign and outcome ("positions: accepted"...), for the report
OUTCOMES: Counter[str] = Counter()


# =========================================================================== games
@dataclass(frozen=True)
class GameSpec:
    """A real position: a seeded setup plus ``moves`` random legal moves (``policy`` seeds them).

    Hypothesis prints the spec of a failing example, and ``build()`` recreates its game.
    """

    map: str
    players: int
    seed: int
    intermediate_scoring: bool
    display_costs: str
    moves: int
    policy: int

    def build(self) -> Game:
        game = Game.new(
            self.map,
            self.players,
            self.seed,
            intermediate_scoring=self.intermediate_scoring,
            display_costs=self.display_costs,
        )
        play_random(game, self.moves, np.random.default_rng(self.policy))
        return game


@st.composite
def game_specs(draw: st.DrawFn, max_moves: int = MAX_SETUP_MOVES) -> GameSpec:
    name = draw(st.sampled_from(MAP_NAMES))
    return GameSpec(
        map=name,
        players=draw(st.sampled_from(load(name).players)),
        seed=draw(st.integers(0, 2**31 - 1)),
        intermediate_scoring=draw(st.booleans()),
        display_costs=draw(st.sampled_from(DISPLAY_VARIANTS)),
        moves=draw(st.integers(0, max_moves)),
        policy=draw(st.integers(0, 2**31 - 1)),
    )


def play_random(game: Game, moves: int, rng: np.random.Generator, check: bool = False) -> int:
    """Play up to ``moves`` uniformly random legal moves (fewer if the game ends); returns how many.

    ``check=True`` checks every invariant after every move.
    """
    for played in range(moves):
        if game.is_over():
            return played
        legal = game.legal_actions()
        assert len(legal), f"no legal action in {game!r}"
        game.step(int(legal[rng.integers(len(legal))]))
        if check:
            check_invariants(game)
    return moves


# =========================================================================== invariants
def _sale_cards_in_use(players: int) -> np.ndarray:
    return (CARD_DECK[NUM_START_TYPES:] <= players).astype(np.int64)


def check_invariants(game: Game) -> None:
    """Every invariant of a reachable state (docs/rules.md §1/§5 limits, conservation of cards, the bounds).

    * every field within its range and bound (:func:`~concordia_env.engine.state_check.check_state`);
    * at most 15 houses per player; the storehouse holds at most 12 (in the range check);
    * every player owns their seven starting cards; every card for sale of the decks in
      use is in exactly one place (a hand, a discard pile, the display or the stack);
    * the game is over exactly when nobody decides; otherwise some action is legal.
    """
    s, n = game.state, game.num_players
    try:
        check_state(s, game.map)
    except ValueError as e:
        raise AssertionError(f"a field left its range: {e}") from None
    assert game.houses().sum(axis=1).max() <= HOUSES_PER_PLAYER, "more houses than a player has"
    blocks = s[PLAYERS : PLAYERS + n * PLAYER_SIZE].reshape(n, PLAYER_SIZE)
    owned = blocks[:, P_HAND : P_HAND + NUM_CARD_TYPES] + blocks[:, P_DISCARD : P_DISCARD + NUM_CARD_TYPES]
    assert (owned[:, :NUM_START_TYPES] == START_HAND_COUNTS[:NUM_START_TYPES]).all(), "starting cards lost or gained"
    display = s[DISPLAY : DISPLAY + DISPLAY_SLOTS]
    placed = np.concatenate((display[display >= 0], s[STACK : STACK + s[STACK_SIZE]]))
    sale = owned.sum(axis=0) + np.bincount(placed, minlength=NUM_CARD_TYPES)
    assert np.array_equal(sale[NUM_START_TYPES:], _sale_cards_in_use(n)), "a card for sale is missing or doubled"
    mask = game.legal_mask()
    if game.is_over():
        assert game.current_player == -1 and 0 <= s[CONCORDIA_HOLDER] < n and not mask.any()
    else:
        assert 0 <= game.current_player < n and mask.any(), f"nobody can move in {game!r}"


def check_round_trip(game: Game) -> None:
    """The position round-trips through JSON, unless play pushed a counter past what a position may claim."""
    text = game.to_json()
    try:
        back = from_json(text)
    except PositionError as e:
        assert beyond_position_bounds(game), f"the JSON of a played position was refused: {e}"
        return
    assert back == game, "the JSON round trip changed the state"
    assert back.to_json() == text, "a state has exactly one text"


def beyond_position_bounds(game: Game) -> bool:
    """True if a counter is past the bound a position may claim (only playing on from near a bound does that)."""
    if game.turn_count > MAX_TURNS or game.decision_count > MAX_DECISIONS:
        return True
    vp = [int(game.state[player_base(p) + P_INTERMEDIATE_VP]) for p in range(game.num_players)]
    money = [game.money(p) for p in range(game.num_players)]
    return max(money) > MAX_MONEY or max(vp) > MAX_INTERMEDIATE_VP


def check_accepted(game: Game, rng: np.random.Generator, moves: int = MOVES_AFTER_ACCEPT) -> None:
    """An accepted position: invariants now, a JSON round trip, ``moves`` random moves keeping them, a round trip."""
    check_invariants(game)
    check_round_trip(game)
    play_random(game, moves, rng, check=True)
    check_round_trip(game)


def check_refusal(error: BaseException, state_before: np.ndarray | None = None, game: Game | None = None) -> None:
    """A refusal carries a short message and changes nothing."""
    text = str(error)
    assert len(text) <= MESSAGE_LIMIT, f"an error message of {len(text)} characters"
    if game is not None and state_before is not None:
        assert np.array_equal(game.state, state_before), f"a refused call changed the state ({type(error).__name__})"


# =========================================================================== odd values
INT_EDGES = (
    0,
    1,
    -1,
    2,
    3,
    4,
    5,
    6,
    7,
    12,
    NUM_ACTIONS - 1,
    NUM_ACTIONS,
    MAX_MONEY,
    MAX_MONEY + 1,
    MAX_TURNS + 1,
    MAX_DECISIONS + 1,
    MAX_INCOMING + 1,
    INT32_MAX,
    INT32_MAX + 1,
    INT32_MIN,
    INT32_MIN - 1,
    2**32,
    2**63 - 1,
    2**63,
    -(2**63),
    -(2**63) - 1,
    2**64,
    10**30,
    -(10**30),
)
INT_DTYPES = tuple(np.dtype(t) for t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"))
OTHER_DTYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64", "complex64", "bool", "U3", "O"))


class Indexable:
    """An object with ``__index__`` (like a numpy integer, but not one)."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value

    def __repr__(self) -> str:
        return f"Indexable({self.value})"


@functools.cache
def ints() -> st.SearchStrategy[int]:
    return st.one_of(st.sampled_from(INT_EDGES), st.integers(-3, NUM_ACTIONS + 3), st.integers())


@functools.cache
def numpy_ints() -> st.SearchStrategy[Any]:
    """A numpy integer scalar of any width and signedness, with any value it can hold."""

    @st.composite
    def draw_one(draw: st.DrawFn) -> Any:
        dtype = draw(st.sampled_from(INT_DTYPES))
        info = np.iinfo(dtype)
        value = draw(st.one_of(st.integers(int(info.min), int(info.max)), st.sampled_from((0, 1, int(info.max)))))
        return dtype.type(value)

    return draw_one()


@functools.cache
def odd_values() -> st.SearchStrategy[Any]:
    """Values of every Python and numpy type a caller might pass where an index is expected."""
    arrays = st.builds(
        lambda dtype, size, fill: np.full(size, fill).astype(dtype) if size >= 0 else np.array(fill).astype(dtype),
        st.sampled_from(INT_DTYPES + OTHER_DTYPES),
        st.integers(-1, 3),
        st.integers(-2, NUM_ACTIONS + 2),
    )
    return st.one_of(
        ints(),
        numpy_ints(),
        numpy_ints().map(np.asarray),  # 0-d integer arrays
        st.floats(),
        st.sampled_from((0.0, 1.0, 2.5, -0.0, float("nan"), float("inf"), np.float32(3.0), np.float64(1.0))),
        st.complex_numbers(max_magnitude=1e3),
        st.booleans(),
        st.sampled_from((np.True_, np.False_)),
        st.none(),
        st.text(max_size=4),
        st.binary(max_size=4),
        arrays,
        st.lists(st.integers(-2, NUM_ACTIONS), max_size=3),
        st.lists(st.integers(-2, 8), max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
        st.integers(-2, 10).map(Indexable),
        st.integers(-2, 10).map(fractions.Fraction),
        st.integers(-2, 10).map(Decimal),
        st.just(object()),
        st.just(Ellipsis),
    )


def as_index(value: Any) -> int | None:
    """The integer a value stands for where an index is expected: Python and numpy integers, 0-d integer arrays."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        return None
    return int(value)


# =========================================================================== positions
def _paths(tree: Any) -> list[tuple[tuple, Any]]:
    """Every (path, value) of a JSON tree, containers included (the root excluded)."""
    out: list[tuple[tuple, Any]] = []
    stack: list[tuple[tuple, Any]] = [((), tree)]
    while stack:
        prefix, node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, item in items:
            path = (*prefix, key)
            out.append((path, item))
            if isinstance(item, (dict, list)):
                stack.append((path, item))
    return out


def _get(tree: Any, path: tuple) -> Any:
    for key in path:
        tree = tree[key]
    return tree


@functools.cache
def _names(map_name: str) -> tuple[str, ...]:
    """Every name a position of this map may use, and every key of the format: for plausible edits."""
    m = load(map_name)
    names = {*PHASE_NAMES, *KIND_NAMES, *GOODS, *CARD_ID, *m.places, *m.path_ids, *m.province_names}
    names |= {*TOP_REQUIRED, *TOP_OPTIONAL, *PENDING_KEYS, *PLAYER_REQUIRED, *PLAYER_OPTIONAL}
    names |= {"storehouse", "goods", "coins", "land", "sea", "kind", "at", "good", "houses", "side"}
    return tuple(sorted(names))


@functools.cache
def json_values() -> st.SearchStrategy[Any]:
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(), st.sampled_from(INT_EDGES), st.floats(), st.text(max_size=8)
    )
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    )


def _new_value(data: st.DataObject, names: tuple[str, ...], old: Any) -> Any:
    choices = [
        st.sampled_from(names),
        st.sampled_from(INT_EDGES),
        st.none(),
        st.booleans(),
        json_values(),
        st.just([]),
        st.just({}),
    ]
    if isinstance(old, int) and not isinstance(old, bool):
        choices.append(st.integers(-3, 3).map(lambda k: old + k))
    if isinstance(old, (list, dict)) and old:
        choices.append(st.just(old[0] if isinstance(old, list) else next(iter(old.values()))))
    return data.draw(st.one_of(choices), label="new value")


#: the edits, the plausible ones (a number nudged, a name swapped for one of its kind, a card moved)
#: twice as likely as the destructive ones, so that a fair share of edited positions is accepted
EDITS = ("nudge", "nudge", "rename", "rename", "move card", "move card", "replace", "delete", "insert", "move")
EDITS += ("add key", "swap", "money", "money", "goods", "goods", "counter")


@functools.cache
def _categories(map_name: str) -> tuple[tuple[str, ...], ...]:
    """Names that can stand in for each other: goods, card ids, places and paths, provinces, decisions, kinds."""
    m = load(map_name)
    return (
        tuple(GOODS),
        tuple(CARD_ID),
        (*m.places, *m.path_ids, "storehouse"),
        tuple(m.province_names),
        tuple(PHASE_NAMES),
        tuple(KIND_NAMES),
        ("land", "sea"),
        ("goods", "coins"),
    )


def _card_lists(d: dict[str, Any]) -> list[list[Any]]:
    lists = [d.get("display"), d.get("stack")]
    for player in d.get("players", []) if isinstance(d.get("players"), list) else []:
        if isinstance(player, dict):
            lists += [player.get("hand"), player.get("discard")]
    return [x for x in lists if isinstance(x, list)]


def mutate(data: st.DataObject, d: dict[str, Any]) -> None:
    """Apply one random edit to the position dict ``d`` in place."""
    names = _names(d["map"]) if d.get("map") in MAP_NAMES else _names(MAP_NAMES[0])
    paths = _paths(d)
    edit = data.draw(st.sampled_from(EDITS), label="edit")
    path, old = paths[data.draw(st.integers(0, len(paths) - 1), label="path index")]
    parent = _get(d, path[:-1])
    key = path[-1]
    if edit == "nudge":  # a number a little off: money, goods, counters, players, slots
        numbers = [(p, v) for p, v in paths if isinstance(v, int) and not isinstance(v, bool)]
        if numbers:
            path, old = numbers[data.draw(st.integers(0, len(numbers) - 1), label="number")]
            delta = data.draw(st.one_of(st.integers(-3, 3), st.sampled_from((-100, 100, 10**6, 2**31))), label="by")
            _get(d, path[:-1])[path[-1]] = old + delta
    elif edit == "rename":  # a name replaced by another of its kind
        words = [(p, v) for p, v in paths if isinstance(v, str)]
        if words:
            path, old = words[data.draw(st.integers(0, len(words) - 1), label="name")]
            kinds = [c for c in _categories(d["map"] if d.get("map") in MAP_NAMES else "imperium") if old in c]
            if kinds:
                _get(d, path[:-1])[path[-1]] = data.draw(st.sampled_from(kinds[0]), label="renamed to")
    elif edit == "move card":  # a card from one pile (hand, discard, display, stack) to another
        piles = _card_lists(d)
        full = [pile for pile in piles if pile]
        if full:
            src = full[data.draw(st.integers(0, len(full) - 1), label="from pile")]
            card = src.pop(data.draw(st.integers(0, len(src) - 1), label="card"))
            dst = piles[data.draw(st.integers(0, len(piles) - 1), label="to pile")]
            dst.insert(data.draw(st.integers(0, len(dst)), label="at"), card)
    elif edit in ("money", "goods") and isinstance(d.get("players"), list) and d["players"]:
        player = d["players"][data.draw(st.integers(0, len(d["players"]) - 1), label="player")]
        if not isinstance(player, dict):  # an earlier edit put another value in the list
            pass
        elif edit == "money":  # any amount up to the bound
            player["money"] = data.draw(st.one_of(st.integers(0, 60), st.integers(0, MAX_MONEY)), label="money")
        else:  # goods that fit the storehouse: the free slots are what the player had plus the colonists out
            free = 12 - (6 - len(player["colonists"])) if isinstance(player.get("colonists"), list) else 12
            amounts = data.draw(st.lists(st.integers(0, 4), min_size=len(GOODS), max_size=len(GOODS)), label="goods")
            while sum(amounts) > free:
                amounts[amounts.index(max(amounts))] -= 1
            player["goods"] = dict(zip(GOODS, amounts, strict=True))
    elif edit == "counter":
        counter = data.draw(st.sampled_from(("turn_count", "decision_count")), label="counter")
        d[counter] = data.draw(st.integers(0, MAX_TURNS), label="value")
    elif edit == "replace":
        parent[key] = _new_value(data, names, old)
    elif edit == "delete":
        del parent[key]
    elif edit == "insert":
        lists = [p for p, v in paths if isinstance(v, list)]
        target = _get(d, data.draw(st.sampled_from(lists), label="list")) if lists else d["players"]
        where = data.draw(st.integers(0, len(target)), label="at")
        source = [v for _, v in paths if not isinstance(v, (dict, list))] + list(names)
        target.insert(where, data.draw(st.sampled_from(source), label="inserted"))
    elif edit == "move":  # an entry of one list into another one (a card from a hand to the display...)
        lists = [p for p, v in paths if isinstance(v, list) and v]
        if lists:
            src = _get(d, data.draw(st.sampled_from(lists), label="from"))
            item = src.pop(data.draw(st.integers(0, len(src) - 1), label="item"))
            dst = _get(d, data.draw(st.sampled_from([p for p, v in paths if isinstance(v, list)]), label="to"))
            dst.insert(data.draw(st.integers(0, len(dst)), label="at"), item)
    elif edit == "add key":
        dicts = [(), *(p for p, v in paths if isinstance(v, dict))]
        target = _get(d, data.draw(st.sampled_from(dicts), label="object"))
        known = (*TOP_OPTIONAL, *PENDING_KEYS, *PLAYER_OPTIONAL, "pending", "extra")
        target[data.draw(st.sampled_from(known), label="key")] = _new_value(data, names, None)
    else:  # swap two values
        other, value = paths[data.draw(st.integers(0, len(paths) - 1), label="other path")]
        if not (path[: len(other)] == other or other[: len(path)] == path):  # not one inside the other
            _get(d, other[:-1])[other[-1]], parent[key] = old, value


def check_positions(data: st.DataObject) -> None:
    """Campaign ``positions``: edited real positions are refused with PositionError or play on correctly."""
    game = data.draw(game_specs(), label="position").build()
    d = game.to_dict()
    for _ in range(data.draw(st.integers(1, 3), label="edits")):
        with contextlib.suppress(IndexError, KeyError, TypeError):  # an edit that no longer applies
            mutate(data, d)
    try:
        accepted = from_dict(d)
    except PositionError as e:
        check_refusal(e)
        OUTCOMES["positions: refused"] += 1
        return
    check_accepted(accepted, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="play seed")))
    OUTCOMES["positions: accepted, played 200 moves"] += 1


# =========================================================================== position text
def _deep(depth: int, kind: str) -> str:
    return {"list": "[" * depth + "]" * depth, "object": '{"a":' * depth + "1" + "}" * depth}[kind]


@functools.cache
def position_inputs() -> st.SearchStrategy[Any]:
    """Anything a caller might hand to ``from_json`` or ``from_dict``."""
    texts = st.one_of(
        st.text(max_size=40),
        st.binary(max_size=40),
        st.builds(_deep, st.integers(1, 200_000), st.sampled_from(("list", "object"))),
        st.sampled_from(("", "null", "1", "[]", "{}", '"x"', "1e999", "NaN", "-Infinity", "9" * 5000, "\ud800")),
        st.sampled_from(("{" * 3000, '{"format": ' + '"' + "x" * 1_000_000 + '"}', "\x00", "\xff")),
    )
    objects = st.one_of(
        json_values(),
        st.sampled_from((None, 1, 1.5, [], (), set(), b"{}", object(), Ellipsis, np.zeros(3))),
    )
    return st.one_of(texts, objects)


def _edit_text(data: st.DataObject, text: str) -> str:
    for _ in range(data.draw(st.integers(1, 5), label="text edits")):
        i = data.draw(st.integers(0, max(0, len(text) - 1)), label="at")
        how = data.draw(st.sampled_from(("delete", "insert", "replace", "duplicate")), label="text edit")
        piece = data.draw(st.sampled_from(('"', ",", "}", "]", "[", "{", ":", "0", "-", "9" * 12, "null", "x")))
        if how == "delete":
            text = text[:i] + text[i + 1 :]
        elif how == "insert":
            text = text[:i] + piece + text[i:]
        elif how == "replace":
            text = text[:i] + piece + text[i + 1 :]
        else:
            j = data.draw(st.integers(i, min(len(text), i + 200)))
            text = text[:j] + text[i:j] + text[j:]
    return text


def check_position_text(data: st.DataObject) -> None:
    """Campaign ``position-text``: any input to the loader gives PositionError or a sound game."""
    if data.draw(st.booleans(), label="edit a real position's text"):
        spec = data.draw(game_specs(), label="position")
        value: Any = _edit_text(data, spec.build().to_json(indent=data.draw(st.sampled_from((None, 1)))))
    else:
        value = data.draw(position_inputs(), label="input")
    load = from_json if isinstance(value, (str, bytes)) or data.draw(st.booleans(), label="from_json") else from_dict
    try:
        game = load(value)
    except PositionError as e:
        check_refusal(e)
        OUTCOMES["position-text: refused"] += 1
        return
    check_accepted(game, np.random.default_rng(0), moves=20)
    OUTCOMES["position-text: accepted"] += 1


# =========================================================================== actions and accessors
#: accessors taking a player index, and whether their result is a plain value
PLAYER_ACCESSORS = (
    "money",
    "goods",
    "colonist_locations",
    "hand",
    "discard",
    "discard_top",
    "hand_kinds",
    "incoming_goods",
    "score_breakdown",
    "observation",
)


def check_actions(data: st.DataObject) -> None:
    """Campaign ``actions``: ``Game.step`` and the accessors with values of every type."""
    game = data.draw(game_specs(), label="position").build()
    for _ in range(data.draw(st.integers(1, 6), label="calls")):
        if data.draw(st.booleans(), label="a legal action") and not game.is_over():
            legal = game.legal_actions()
            kind = data.draw(st.sampled_from((int, np.int64, np.uint16, np.int32, np.asarray)), label="as")
            value: Any = kind(legal[data.draw(st.integers(0, len(legal) - 1))])
        else:
            value = data.draw(odd_values(), label="action")
        _check_one_step(game, value)
        accessor = data.draw(st.sampled_from((*PLAYER_ACCESSORS, "display_price", "describe_action")), label="call")
        _check_accessor(game, accessor, data.draw(odd_values(), label="argument"))
    check_invariants(game)


def _check_one_step(game: Game, value: Any) -> None:
    before = game.state.copy()
    index = as_index(value)
    legal = index is not None and 0 <= index < NUM_ACTIONS and bool(game.legal_mask()[index])
    try:
        game.step(value)
    except IllegalActionError as e:
        assert not legal, f"the legal action {index} was refused: {e}"
        check_refusal(e, before, game)
        OUTCOMES["actions: step refused"] += 1
        return
    assert legal, f"{value!r} was accepted as an action"
    assert game.decision_count == before[DECISION_COUNT] + 1
    OUTCOMES["actions: step applied"] += 1


def _check_accessor(game: Game, name: str, value: Any) -> None:
    before = game.state.copy()
    index = as_index(value)
    if name == "display_price":
        valid = index is not None and 0 <= index < DISPLAY_SLOTS
    elif name == "describe_action":
        valid = index is not None and 0 <= index < NUM_ACTIONS
    else:
        valid = index is not None and 0 <= index < game.num_players
    try:
        getattr(game, name)(value)
    except (TypeError, ValueError) as e:
        empty_slot = name == "display_price" and valid and game.display()[index] < 0
        assert not valid or empty_slot, f"{name}({value!r}) refused a valid index: {e}"
        check_refusal(e, before, game)
        OUTCOMES["actions: accessor refused"] += 1
        return
    assert valid, f"{name}({value!r}) accepted an invalid index"
    OUTCOMES["actions: accessor answered"] += 1
    assert np.array_equal(game.state, before), f"{name} changed the state"


# =========================================================================== VectorGame
@functools.cache
def action_arrays(n: int) -> st.SearchStrategy[Any]:
    """Action batches of every dtype, byte order, layout and shape, near (n,)."""

    @st.composite
    def draw_one(draw: st.DrawFn) -> Any:
        dtype = draw(st.sampled_from(INT_DTYPES + OTHER_DTYPES))
        size = draw(st.sampled_from((n, n, n, 0, n - 1, n + 1)))
        values = draw(st.lists(st.sampled_from((*INT_EDGES, *range(12))), min_size=max(size, 0), max_size=size))
        layout = draw(st.sampled_from(("plain", "readonly", "strided", "fortran", "byteswapped", "list", "2d")))
        if layout == "list":
            return values
        try:
            with np.errstate(all="ignore"):  # a float16 of 2**63 is inf: a fine odd value
                arr = np.array(values, dtype=object).astype(dtype)
        except (OverflowError, ValueError, TypeError):
            arr = np.array([v % 100 for v in values]).astype(dtype)
        if layout == "readonly":
            arr.setflags(write=False)
        elif layout == "strided":
            wide = np.repeat(arr, 2)
            arr = wide[::2]
        elif layout == "fortran":
            arr = np.asfortranarray(np.stack([arr, arr], axis=1))[:, 0]
        elif layout == "byteswapped" and arr.dtype.kind in "iuf":
            arr = arr.astype(arr.dtype.newbyteorder())
        elif layout == "2d":
            arr = arr.reshape(-1, 1)
        return arr

    return draw_one()


def check_vector(data: st.DataObject) -> None:
    """Campaign ``vector``: ``VectorGame.step`` / ``observations`` with odd arrays."""
    from concordia_env import VectorGame

    name = data.draw(st.sampled_from(MAP_NAMES), label="map")
    players = data.draw(st.sampled_from(load(name).players), label="players")
    n = data.draw(st.integers(1, 4), label="rows")
    vec = VectorGame(n, name, players, seed=data.draw(st.integers(0, 2**20), label="seed"))
    rng = np.random.default_rng(0)
    for _ in range(data.draw(st.integers(0, 60), label="warm-up steps")):
        vec.step(vec.sample_actions(rng))
    for _ in range(data.draw(st.integers(1, 5), label="calls")):
        before = vec.states.copy()
        if data.draw(st.booleans(), label="legal batch"):
            legal = vec.sample_actions(rng)
            dtype = data.draw(st.sampled_from((*INT_DTYPES[3:], np.dtype(">i8"), np.dtype("int16"))), label="dtype")
            actions: Any = legal.astype(dtype)
            if data.draw(st.booleans(), label="read-only"):
                actions.setflags(write=False)
        else:
            actions = data.draw(action_arrays(n), label="actions")
        expected = _vector_expectation(vec, actions)
        try:
            vec.step(actions)
        except (IllegalActionError, ValueError) as e:
            assert expected is None, f"a legal batch {expected} was refused: {e}"
            assert np.array_equal(vec.states, before), "a refused batch changed a row"
            check_refusal(e)
            OUTCOMES["vector: batch refused"] += 1
        else:
            assert expected is not None, f"the batch {actions!r} was accepted"
            OUTCOMES["vector: batch stepped"] += 1
        seats = data.draw(action_arrays(n), label="seats")
        try:
            obs = vec.observations(seats)
        except (TypeError, ValueError) as e:
            check_refusal(e)
        else:
            index = np.asarray(seats)
            values = [as_index(a) for a in index.reshape(-1).tolist()] if index.dtype == object else None
            integers = values is not None and None not in values  # an object array of integers is integers
            assert (index.dtype.kind in "iu" or integers) and index.shape == (n,), f"seats {seats!r} were accepted"
            assert obs.shape[0] == n


def _vector_expectation(vec: Any, actions: Any) -> list[int] | None:
    """The batch as a list of legal indices, or None if it must be refused."""
    try:
        arr = np.asarray(actions)
    except (TypeError, ValueError, OverflowError):
        return None
    if arr.shape != (vec.n,):
        return None
    values = [as_index(a) for a in arr.tolist()] if arr.dtype == object else None
    if arr.dtype != object and (arr.dtype == np.bool_ or arr.dtype.kind not in "iu"):
        return None
    values = values if values is not None else [int(a) for a in arr.tolist()]
    if any(v is None or not 0 <= v < NUM_ACTIONS for v in values):
        return None
    masks = vec.legal_masks()
    if not all(masks[i, v] for i, v in enumerate(values)):
        return None
    return values


# =========================================================================== options
def _mostly(valid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Three times in four a value of the option's own kind, else an odd one: some inputs are all valid."""
    return st.integers(0, 3).flatmap(lambda k: odd_values() if k == 0 else valid)


def check_options(data: st.DataObject) -> None:
    """Campaign ``options``: constructors give a game exactly when every option is valid."""
    from concordia_env import VectorGame
    from concordia_env.envs.vector_game import MAX_SEED

    name = data.draw(_mostly(st.sampled_from(MAP_NAMES)), label="map")
    real_map = isinstance(name, str) and name in MAP_NAMES
    counts = load(name).players if real_map else (2, 3, 4, 5)
    players = data.draw(_mostly(st.sampled_from(counts)), label="num_players")
    options: dict[str, Any] = {}
    valid = real_map and as_index(players) in counts
    if data.draw(st.booleans(), label="seed given"):
        options["seed"] = data.draw(_mostly(st.integers(0, 2**64)), label="seed")
        index = as_index(options["seed"])
        valid &= options["seed"] is None or (index is not None and index >= 0)
    if data.draw(st.booleans(), label="intermediate given"):
        options["intermediate_scoring"] = data.draw(_mostly(st.booleans()), label="intermediate")
        valid &= isinstance(options["intermediate_scoring"], (bool, np.bool_))
    if data.draw(st.booleans(), label="display costs given"):
        options["display_costs"] = data.draw(_mostly(st.sampled_from(DISPLAY_VARIANTS)))
        valid &= isinstance(options["display_costs"], str) and options["display_costs"] in DISPLAY_VARIANTS
    if data.draw(st.booleans(), label="start player given"):
        options["start_player"] = data.draw(_mostly(st.integers(-1, 5)), label="start")
        start = options["start_player"]
        index = as_index(start)
        valid &= start is None or (index is not None and 0 <= index < (as_index(players) or 0))
    try:
        game = Game.new(name, players, **options)
    except (TypeError, ValueError) as e:
        assert not valid, f"valid options were refused: {e}"
        check_refusal(e)
        OUTCOMES["options: refused"] += 1
    else:
        assert valid, f"Game.new({name!r}, {players!r}, **{options!r}) was accepted"
        check_invariants(game)
        OUTCOMES["options: game built"] += 1
    rows = data.draw(st.one_of(st.integers(1, 3), odd_values()), label="rows")
    rows_valid = as_index(rows) is not None and as_index(rows) >= 1
    if rows_valid and as_index(rows) > 8:
        return  # a valid but large batch: nothing new to learn, only time
    # a batch's base seed has a bound of its own (row i, game k: seed + i + k * rows stays an int64)
    base_seed = as_index(options.get("seed"))
    batch_valid = valid and rows_valid and (base_seed is None or base_seed <= MAX_SEED)
    try:
        vec = VectorGame(rows, name, players, **options)
    except (TypeError, ValueError) as e:
        assert not batch_valid, f"valid options were refused: {e}"
        check_refusal(e)
    else:
        assert batch_valid, "a VectorGame was built from invalid options"
        assert vec.states.shape == (int(rows), STATE_SIZE)


# =========================================================================== env call orders
ENV_CALLS = ("step legal", "step legal", "step legal", "step odd", "observe", "last", "reset", "state", "close")
GYM_CALLS = ("step legal", "step legal", "step legal", "step odd", "masks", "reset", "close", "render")


def check_env_orders(data: st.DataObject) -> None:
    """Campaign ``env-orders``: random call orders on the PettingZoo and Gymnasium envs."""
    from concordia_env.envs.gym_env import SingleAgentEnv
    from concordia_env.envs.pettingzoo_env import parallel_env, raw_env

    name = data.draw(st.sampled_from(MAP_NAMES), label="map")
    players = data.draw(st.sampled_from(load(name).players), label="players")
    illegal = data.draw(st.sampled_from(("raise", "penalize")), label="illegal_action")
    started = [data.draw(st.booleans(), label="reset first")]  # else calls come before any reset
    kind = data.draw(st.sampled_from(("AEC", "Gymnasium", "parallel")), label="env")
    seed = data.draw(st.integers(0, 2**31 - 1), label="env seed")  # reset() without a seed draws from it
    if kind == "AEC":
        env: Any = raw_env(map=name, num_players=players, illegal_action=illegal, seed=seed)
    elif kind == "parallel":
        env = parallel_env(map=name, num_players=players, illegal_action=illegal, seed=seed)
    else:
        env = SingleAgentEnv(map=name, num_players=players, illegal_action=illegal, render_mode="ansi", seed=seed)
    if started[0]:
        env.reset(seed=data.draw(st.integers(0, 2**31 - 1), label="seed"))
    with warnings.catch_warnings():  # PettingZoo warns about a step after the end: allowed, and tested
        warnings.simplefilter("ignore")
        for _ in range(data.draw(st.integers(1, 40), label="calls")):
            if kind == "AEC":
                _aec_call(env, data.draw(st.sampled_from(ENV_CALLS), label="call"), data, started)
            elif kind == "parallel":
                _parallel_call(env, data.draw(st.sampled_from(PARALLEL_CALLS), label="call"), data, started)
            else:
                _gym_call(env, data.draw(st.sampled_from(GYM_CALLS), label="call"), data, started)


def _aec_call(env: Any, call: str, data: st.DataObject, started: list[bool]) -> None:
    if call == "last" and not (started[0] and env.agents):
        call = "reset"  # last() names the selected agent: there is none before reset or after the end
    before = env.game.state.copy()
    if call.startswith("step") and not started[0]:
        try:
            env.step(data.draw(odd_values(), label="action"))
        except RuntimeError as e:  # ResetNeededError
            assert np.array_equal(env.game.state, before), "a step before reset changed the game"
            check_refusal(e)
            OUTCOMES["env-orders: step before reset refused"] += 1
            return
        raise AssertionError("step() before reset() was accepted")
    if call.startswith("step") and not env.agents:  # after the end: PettingZoo warns and does nothing
        env.step(None)
        assert np.array_equal(env.game.state, before) and not env.agents
        OUTCOMES["env-orders: step after the end ignored"] += 1
        return
    try:
        if call.startswith("step"):
            agent = env.agent_selection
            dead = env.terminations[agent] or env.truncations[agent]
            if dead:
                value: Any = None
            elif call == "step legal":
                legal = np.flatnonzero(env.observe(agent)["action_mask"])
                value = int(legal[data.draw(st.integers(0, len(legal) - 1), label="action")])
            else:
                value = data.draw(odd_values(), label="action")
            env.step(value)
        elif call == "observe":
            agent = data.draw(st.sampled_from(env.possible_agents), label="agent")
            obs = env.observe(agent)
            assert obs["observation"].shape == env.observation_space(agent)["observation"].shape
        elif call == "last":
            env.last()
        elif call == "reset":
            env.reset(seed=data.draw(st.one_of(st.none(), st.integers(0, 2**31 - 1)), label="seed"))
            started[0] = True
        elif call == "state":
            assert np.array_equal(env.state(), env.game.state)
        else:
            env.close()
    except (IllegalActionError, ValueError, TypeError) as e:
        assert np.array_equal(env.game.state, before), f"a refused {call} changed the game"
        check_refusal(e)
        OUTCOMES["env-orders: call refused"] += 1
    else:
        OUTCOMES["env-orders: call done"] += 1
    check_invariants(env.game)


PARALLEL_CALLS = ("step legal", "step legal", "step legal", "step odd", "step odd", "reset", "state", "close")


def _parallel_actions(data: st.DataObject, agents: list[str]) -> Any:
    """Odd ``actions`` for a parallel step: any value, or a dict of odd values (maybe without some agents)."""
    chosen = data.draw(st.lists(st.sampled_from(agents or ["player_0"]), max_size=len(agents) + 1), label="agents")
    as_dict = {a: data.draw(odd_values(), label="action") for a in chosen}
    return data.draw(st.one_of(st.just(as_dict), odd_values()), label="actions")


def _parallel_call(env: Any, call: str, data: st.DataObject, started: list[bool]) -> None:
    game = env.unwrapped.game
    before = game.state.copy()
    if call.startswith("step") and not started[0]:
        try:
            env.step(_parallel_actions(data, list(env.possible_agents)))
        except RuntimeError as e:  # ResetNeededError
            assert np.array_equal(game.state, before), "a step before reset changed the game"
            check_refusal(e)
            OUTCOMES["env-orders: step before reset refused"] += 1
            return
        raise AssertionError("step() before reset() was accepted")
    if call.startswith("step") and not env.agents:  # after the end: empty answers, nothing changes
        assert env.step({}) == ({}, {}, {}, {}) and np.array_equal(game.state, before)
        OUTCOMES["env-orders: step after the end ignored"] += 1
        return
    try:
        if call.startswith("step"):
            agent = env.aec_env.agent_selection
            if call == "step legal":
                legal = np.flatnonzero(env.aec_env.observe(agent)["action_mask"])
                chosen = int(legal[data.draw(st.integers(0, len(legal) - 1), label="action")])
                actions: Any = {a: chosen if a == agent else 0 for a in env.agents}
            else:
                actions = _parallel_actions(data, list(env.agents))
            *_, infos = env.step(actions)
            assert all(infos[a]["active_agent"] == env.aec_env.agent_selection for a in env.agents)
        elif call == "reset":
            env.reset(seed=data.draw(st.one_of(st.none(), st.integers(0, 2**31 - 1)), label="seed"))
            started[0] = True
        elif call == "state":
            assert np.array_equal(env.state(), env.unwrapped.game.state)
        else:
            env.close()
    except (IllegalActionError, ValueError, TypeError) as e:
        assert np.array_equal(env.unwrapped.game.state, before), f"a refused {call} changed the game"
        check_refusal(e)
        OUTCOMES["env-orders: call refused"] += 1
    else:
        OUTCOMES["env-orders: call done"] += 1
    check_invariants(env.unwrapped.game)


def _gym_call(env: Any, call: str, data: st.DataObject, started: list[bool]) -> None:
    before = env.game.state.copy()
    if call.startswith("step") and not started[0]:
        with contextlib.suppress(RuntimeError):  # ResetNeededError, the game untouched
            env.step(data.draw(odd_values(), label="action"))
            raise AssertionError("step() before reset() was accepted")
        assert np.array_equal(env.game.state, before), "a step before reset changed the game"
        OUTCOMES["env-orders: step before reset refused"] += 1
        return
    try:
        if call.startswith("step"):
            if call == "step legal" and env.action_masks().any():
                legal = np.flatnonzero(env.action_masks())
                value: Any = int(legal[data.draw(st.integers(0, len(legal) - 1), label="action")])
            else:
                value = data.draw(odd_values(), label="action")
            obs, reward, *_ = env.step(value)
            assert obs.shape == env.observation_space.shape and math.isfinite(reward)
        elif call == "masks":
            assert env.action_masks().shape == (NUM_ACTIONS,)
        elif call == "reset":
            env.reset(seed=data.draw(st.one_of(st.none(), st.integers(0, 2**31 - 1)), label="seed"))
            started[0] = True
        elif call == "render":
            assert isinstance(env.render(), str)
        else:
            env.close()
    except (IllegalActionError, ValueError, TypeError, RuntimeError) as e:
        assert np.array_equal(env.game.state, before), f"a refused {call} changed the game"
        check_refusal(e)
        OUTCOMES["env-orders: call refused"] += 1
    else:
        OUTCOMES["env-orders: call done"] += 1
    check_invariants(env.game)


# =========================================================================== OpenSpiel bridge
OPENSPIEL_CALLS = ("legal", "legal", "legal", "odd", "odd", "text", "load")
#: the action values ``action_to_string`` is asked about (OpenSpiel's C++ side takes int64 only)
INT64 = st.one_of(
    st.integers(-(2**63), 2**63 - 1), st.sampled_from(tuple(v for v in INT_EDGES if -(2**63) <= v < 2**63))
)


def check_openspiel(data: st.DataObject) -> None:
    """Campaign ``openspiel``: OpenSpiel states with actions of every type, action texts, state documents."""
    from concordia_env.integrations import openspiel as osp

    name = data.draw(st.sampled_from(MAP_NAMES), label="map")
    game = osp.load(name, data.draw(st.sampled_from(load(name).players), label="players"))
    state = game.new_initial_state()
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="play seed"))
    for _ in range(data.draw(st.integers(0, 80), label="moves")):  # through the setup's chance nodes and on
        if state.is_terminal():
            break
        state.apply_action(_any_legal(state, rng))
    for _ in range(data.draw(st.integers(1, 6), label="calls")):
        call = data.draw(st.sampled_from(OPENSPIEL_CALLS), label="call")
        before, history = json.dumps(state.board.document()), state.history()
        legal = _openspiel_legal(state)
        value: Any = None
        try:
            if call == "legal" and legal:
                state.apply_action(int(legal[data.draw(st.integers(0, len(legal) - 1), label="action")]))
            elif call in ("legal", "odd"):
                value = data.draw(odd_values(), label="action")
                if value is None:
                    value = Ellipsis  # None stands for "no odd value" below
                state.apply_action(value)
                assert as_index(value) in legal, f"apply_action({short_repr(value)}) was accepted"
            elif call == "text":
                player = data.draw(st.sampled_from((state.current_player(), osp.CHANCE, 0)), label="player")
                assert isinstance(state.action_to_string(player, data.draw(INT64, label="action")), str)
            else:
                _openspiel_load(data, game, state)
        except ValueError as e:  # IllegalActionError for actions; ValueError for texts and documents
            check_refusal(e)
            assert value is None or as_index(value) not in legal, f"apply_action({short_repr(value)}) was refused"
            unchanged = json.dumps(state.board.document()) == before and state.history() == history
            assert unchanged, f"a refused {call} changed the state"
            OUTCOMES["openspiel: call refused"] += 1
        else:
            OUTCOMES["openspiel: call done"] += 1


def _openspiel_legal(state: Any) -> list[int]:
    if state.is_terminal():
        return []
    return [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()


def _any_legal(state: Any, rng: np.random.Generator) -> int:
    legal = _openspiel_legal(state)
    return int(legal[rng.integers(len(legal))])


def _openspiel_load(data: st.DataObject, game: Any, state: Any) -> None:
    """``new_initial_state`` with anything: a real document (maybe edited), any text or object."""
    if data.draw(st.booleans(), label="a real document"):
        value: Any = state.to_json()
        if data.draw(st.booleans(), label="edit it"):
            value = _edit_text(data, value)
    else:
        value = data.draw(position_inputs(), label="document")
    loaded = game.new_initial_state(value)
    assert loaded.is_terminal() or _openspiel_legal(loaded), "a loaded state has no move"


# =========================================================================== web app
WEB_CALLS = ("act legal", "act legal", "act odd", "advance", "advance", "show", "body", "new")
#: the statuses a refusal may carry (docstring of concordia_env/tools/web.py)
WEB_REFUSALS = (400, 404, 409, 413, 422, 429)


def check_web(data: st.DataObject) -> None:
    """Campaign ``web``: the web app's JSON API with odd bodies, options, steps and actions."""
    from starlette.testclient import TestClient

    from concordia_env.tools.web import LOCAL_URL, MAX_BODY_BYTES, create_app

    app = create_app(max_games=3)
    with TestClient(app, base_url=LOCAL_URL) as client:
        body = data.draw(_web_options(), label="new game")
        r = _post(client, "/api/games", _seeded(body))
        _check_web_answer(r, ok=201)
        if r.status_code != 201:
            OUTCOMES["web: new game refused"] += 1
            r = client.post("/api/games", json={"map": "italia", "players": 2, "vs": "random", "seed": 1})
            assert r.status_code == 201, r.text[:300]
        view = r.json()
        room = app.state.server.room(view["id"])
        for _ in range(data.draw(st.integers(1, 12), label="calls")):
            call = data.draw(st.sampled_from(WEB_CALLS), label="call")
            before, step = room.game.state.copy(), room.step
            path = f"/api/games/{room.id}"
            if call == "act legal":
                # the draw does not depend on the game (whose opponents may think against a clock):
                # Hypothesis replays an input and needs the same draws each time
                pick = data.draw(st.integers(0, 2**16), label="action pick")
                action = pick
                if room.game.current_player == room.session.human_seat and not room.game.is_over():
                    legal = room.game.legal_actions()
                    action = int(legal[pick % len(legal)])
                r = _post(client, path + "/act", {"step": step, "action": action})
            elif call.startswith("act"):
                odd = {"step": data.draw(st.one_of(st.just(step), json_values()), label="step")}
                odd["action"] = data.draw(st.one_of(ints(), json_values()), label="action")
                r = _post(client, path + "/act", odd)
            elif call == "advance":
                r = _post(
                    client, path + "/advance", {"step": data.draw(st.one_of(st.just(step), ints()), label="step")}
                )
            elif call == "show":
                game_id = data.draw(st.one_of(st.just(room.id), st.text(max_size=20).map("g".__add__)), label="game id")
                r = client.get("/api/games/" + urllib.parse.quote(game_id, safe=""))
            elif call == "body":
                raw = data.draw(_web_bodies(MAX_BODY_BYTES), label="raw body")
                r = client.post(
                    path + data.draw(st.sampled_from(("/act", "/advance"))),
                    content=raw,
                    headers={"content-type": "application/json"},
                )
            else:
                r = _post(client, "/api/games", _seeded(data.draw(_web_options(), label="options")))
            _check_web_answer(r, ok=201 if call == "new" else 200)
            if r.status_code >= 400:
                assert np.array_equal(room.game.state, before) and room.step == step, (
                    f"a refused {call} changed the game"
                )
                OUTCOMES["web: request refused"] += 1
            else:
                OUTCOMES["web: request done"] += 1
            check_invariants(room.game)


def _post(client: Any, path: str, body: Any) -> Any:
    """POST ``body`` as JSON; Python's encoder writes NaN and Infinity, as a careless client would."""
    return client.post(path, content=json.dumps(body).encode(), headers={"content-type": "application/json"})


def _seeded(options: Any) -> Any:
    """Options with a seed (a game without one is drawn at random, and Hypothesis replays inputs exactly)."""
    return {"seed": 1, **options} if isinstance(options, dict) else options


def _check_web_answer(r: Any, ok: int) -> None:
    assert r.status_code == ok or r.status_code in WEB_REFUSALS, f"status {r.status_code}: {r.text[:300]}"
    if r.status_code >= 400:
        error = r.json()["error"]
        assert isinstance(error, str) and len(error) <= MESSAGE_LIMIT, f"an error message of {len(error)} characters"


@functools.cache
def _web_options() -> st.SearchStrategy[Any]:
    valid = st.fixed_dictionaries(
        {},
        optional={
            "map": st.sampled_from(MAP_NAMES),
            "players": st.integers(2, 5),
            "vs": st.sampled_from(("random", ["random"], "heuristic")),
            "seat": st.integers(0, 4),
            "seed": st.integers(0, 2**31 - 1),
        },
    )
    odd = st.dictionaries(st.sampled_from(("map", "players", "vs", "seat", "seed", "x")), json_values(), max_size=4)
    return st.one_of(valid, valid, odd, json_values())


@functools.cache
def _web_bodies(limit: int) -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=40),
        st.text(max_size=40).map(str.encode),
        st.builds(_deep, st.integers(1, 20_000), st.sampled_from(("list", "object"))).map(str.encode),
        st.sampled_from((b"", b"null", b"[]", b'{"step": 1e999}', b'{"step": ' + b"9" * 5000 + b"}", b"\xff\xfe")),
        st.just(b'{"step": "' + b"x" * (limit + 1) + b'"}'),
    )


# =========================================================================== raw state
#: values written into a corrupted field
CORRUPT_VALUES = (-(2**31), -1000, -7, -2, -1, 0, 1, 2, 3, 5, 6, 7, 12, 13, 30, 31, 36, 40, 63, 64, 100, 127, 128)
CORRUPT_VALUES += (255, 1000, MAX_MONEY, MAX_MONEY + 1, 2**31 - 1)


def check_raw_state(data: st.DataObject) -> None:
    """Campaign ``raw-state``: corrupted state arrays are refused or survive every public call."""
    game = data.draw(game_specs(), label="position").build()
    state = game.state.copy()
    for _ in range(data.draw(st.integers(1, 3), label="fields")):
        i = data.draw(st.integers(0, STATE_SIZE - 1), label="entry")
        near = st.integers(int(state[i]) - 3, int(state[i]) + 3)
        state[i] = data.draw(st.one_of(st.sampled_from(CORRUPT_VALUES), near), label="value")
    try:
        raw = Game(state, game.map)
    except ValueError as e:
        check_refusal(e)
        OUTCOMES["raw-state: refused"] += 1
        return
    accepted = raw.state.copy()
    for _ in range(data.draw(st.integers(0, 3), label="writes after construction")):  # the game owns a copy
        state[data.draw(st.integers(0, STATE_SIZE - 1), label="entry")] = data.draw(st.sampled_from(CORRUPT_VALUES))
    assert np.array_equal(raw.state, accepted), "a write to the caller's array after Game(state, map) reached the game"
    exercise(raw, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="play seed")))
    OUTCOMES["raw-state: accepted, survived every call"] += 1


def exercise(game: Game, rng: np.random.Generator, moves: int = 30) -> None:
    """Every public call on an accepted (maybe unreachable) game; only documented exceptions may come out."""
    for p in range(game.num_players):
        game.observation(p)
        game.score_breakdown(p)
        game.money(p), game.goods(p), game.hand(p), game.discard(p), game.incoming_goods(p)
    game.scores(), game.ranking(), game.tie_break_order(), repr(game), game == game.clone()
    for slot in range(DISPLAY_SLOTS):
        with contextlib.suppress(ValueError):  # an empty slot has no price
            game.display_price(slot)
    with contextlib.suppress(PositionError):  # the raw path does not promise a reachable position
        from_json(game.to_json())
    for _ in range(moves):
        if game.is_over():
            game.final_scores(), game.winner()
            return
        legal = game.legal_actions()
        if not len(legal):
            return  # an unreachable position may be stuck; that is not a crash
        action = int(legal[rng.integers(len(legal))])
        game.describe_action(action)
        game.step(action)
        game.observation(max(game.current_player, 0))


# =========================================================================== hostile web requests
#: Host headers the server must answer (it binds to 127.0.0.1; see concordia_env/tools/web.py's threat model)
WEB_LOCAL_HOSTS = ("127.0.0.1:8765", "localhost:8765", "[::1]:8765", "127.0.0.1", "localhost", "LocalHost:8765")
#: Host headers of a DNS-rebound or foreign name, or no host at all: 421
WEB_FOREIGN_HOSTS = (
    "evil.example",
    "evil.example:8765",
    "127.0.0.1.evil.example:8765",
    "localhost.evil.example",
    "",
    "[::1",
    "127.0.0.2:8765",
    "0.0.0.0:8765",
    "127.0.0.1:99999",
    "user@127.0.0.1:8765@evil.example",
)
#: Origins no page of this server has: 403
WEB_FOREIGN_ORIGINS = (
    "http://evil.example",
    "null",
    "https://127.0.0.1:8765",
    "http://127.0.0.1:1",
    "http://localhost.evil.example:8765",
    "http://127.0.0.1:8765.evil.example",
    "file://",
    "",
)
#: Sec-Fetch-Site values of a request another site made: 403
WEB_CROSS_SITE = ("cross-site", "same-site", "CROSS-SITE", "anything")
#: content types a cross-site form or no-cors fetch sends, or none: 415
WEB_FOREIGN_TYPES = (
    None,
    "text/plain",
    "text/plain;charset=UTF-8",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencoded",
    "application/jsonp",
    "application/json-seq",
    "",
)
WEB_JSON_TYPES = ("application/json", "application/json; charset=utf-8", "Application/JSON")
#: agent specs a request may ask for (the campaign's app trusts no command-line spec)
WEB_BENIGN_SPECS = ("random", "heuristic", "mcts:simulations=2", "mcts:simulations=1,rollout=random")
#: paths in hostile specs contain this: an audit hook sees whether anything opens them
TRAP = "concordia-web-trap"
#: agent specs a request must never get: files, pickles, code, budgets of hours, huge numbers (400)
WEB_HOSTILE_SPECS = (
    f"policy:/tmp/{TRAP}/evil.zip",
    f"policy:{TRAP}.zip",
    "policy:/etc",
    "policy:/dev/zero",
    "policy",
    "policy:",
    f"learned:model=/tmp/{TRAP}.npz",
    f"learned:path={TRAP}",
    f"heuristic:weights={TRAP}",
    "heuristic:weights=None",
    "heuristic:weights={'money': 'x'}",
    "mcts:simulations=1e308",
    "mcts:simulations=99999999999999999999",
    "mcts:simulations=2001",
    "mcts:simulations=-1",
    "mcts:time_per_move=1e12",
    "mcts:time_per_move=nan",
    "mcts:time_per_move=inf",
    "mcts:time_per_move=-1",
    "mcts:time_per_move=1e12,simulations=999999999999",
    "mcts:determinizations=2.5",
    "mcts:exploration=float",
    "mcts:rollout=__import__('os')",
    "random:seed=1",
    "__import__('os').system('id')",
    "os:system",
    f"pickle:{TRAP}",
    "../../etc/passwd",
    "mcts:" + "9" * 5000,
    "",
)


@functools.cache
def _watched_events() -> list[str]:
    """What the process opened under :data:`TRAP` or unpickled while :data:`_WATCHING` is set (an audit hook)."""
    seen: list[str] = []

    def hook(event: str, args: tuple) -> None:
        if not _WATCHING:
            return
        if event == "open" and args and TRAP in str(args[0]):
            seen.append(f"opened {args[0]}")
        elif event == "pickle.find_class":
            seen.append(f"unpickled {args[0]}.{args[1]}")

    sys.addaudithook(hook)  # hooks cannot be removed: one for the whole process, idle unless watching
    return seen


_WATCHING: list[bool] = []


@st.composite
def _hostile_request(draw: st.DrawFn) -> tuple[dict[str, str], int]:
    """Headers, and the status the threat model gives them before the body is read (0: let through)."""
    headers: dict[str, str] = {}
    expected = 0
    if draw(st.integers(0, 3), label="host kind") == 0:
        headers["host"] = draw(st.one_of(st.sampled_from(WEB_FOREIGN_HOSTS), _foreign_names()), label="host")
        expected = 421
    else:
        headers["host"] = draw(st.sampled_from(WEB_LOCAL_HOSTS), label="host")
    origin = draw(st.sampled_from(("none", "same", "foreign")), label="origin kind")
    if origin == "same":
        headers["origin"] = "http://" + headers["host"].lower() if expected == 0 else "http://127.0.0.1:8765"
    elif origin == "foreign":
        headers["origin"] = draw(st.sampled_from(WEB_FOREIGN_ORIGINS), label="origin")
        expected = expected or 403
    fetch = draw(st.sampled_from(("none", "same", "cross")), label="sec-fetch-site kind")
    if fetch == "same":
        headers["sec-fetch-site"] = draw(st.sampled_from(("same-origin", "none")), label="sec-fetch-site")
    elif fetch == "cross":
        headers["sec-fetch-site"] = draw(st.sampled_from(WEB_CROSS_SITE), label="sec-fetch-site")
        expected = expected or 403
    if draw(st.integers(0, 3), label="content type kind") == 0:
        content_type = draw(st.sampled_from(WEB_FOREIGN_TYPES), label="content type")
        expected = expected or 415
    else:
        content_type = draw(st.sampled_from(WEB_JSON_TYPES), label="content type")
    if content_type is not None:
        headers["content-type"] = content_type
    return headers, expected


def _foreign_names() -> st.SearchStrategy[str]:
    """Host names that are not this machine's loopback (a rebound domain's)."""
    return st.from_regex(r"[a-z0-9][a-z0-9.-]{0,30}(:[0-9]{1,5})?", fullmatch=True).filter(
        lambda h: h.split(":")[0].rstrip(".") not in ("localhost", "127.0.0.1")
    )


def check_web_attacks(data: st.DataObject) -> None:
    """Campaign ``web-attacks``: hostile headers (Host, Origin, Sec-Fetch-Site, content types) and agent specs.

    The answer is the one the threat model gives: 421 for a foreign ``Host``, then 403 for a
    foreign ``Origin`` or a cross-site ``Sec-Fetch-Site``, then 415 for a body that is not
    ``application/json``, then 400 for a spec a request may not ask for; a benign request
    with local headers gets 201. A refused request creates, opens and unpickles nothing.
    """
    from starlette.testclient import TestClient

    from concordia_env.tools.web import LOCAL_URL, create_app

    seen = _watched_events()
    app = create_app(max_games=50)
    server = app.state.server
    with TestClient(app, base_url=LOCAL_URL) as client:
        for _ in range(data.draw(st.integers(1, 4), label="requests")):
            headers, expected = data.draw(_hostile_request(), label="headers")
            hostile = data.draw(st.booleans(), label="hostile spec")
            specs = WEB_HOSTILE_SPECS if hostile else WEB_BENIGN_SPECS
            vs: Any = data.draw(st.sampled_from(specs), label="vs")
            if data.draw(st.booleans(), label="as a list"):
                vs = [vs]
            body = json.dumps({"map": "italia", "players": 2, "seat": 0, "seed": 1, "vs": vs}).encode()
            rooms = dict(server.rooms)
            seen.clear()
            _WATCHING.append(True)
            try:
                r = client.post("/api/games", content=body, headers=headers)
            finally:
                _WATCHING.clear()
            want = expected or (400 if hostile else 201)
            assert r.status_code == want, (
                f"{headers} vs={vs!r}: status {r.status_code}, expected {want}: {r.text[:200]}"
            )
            if want != 201:
                error = r.json()["error"]
                assert isinstance(error, str) and len(error) <= MESSAGE_LIMIT, "an error message too long"
                assert dict(server.rooms) == rooms, "a refused request created or dropped a game"
                assert not seen, f"a refused request touched the filesystem or unpickled: {seen[:3]}"
                OUTCOMES[f"web-attacks: {want}"] += 1
            else:
                OUTCOMES["web-attacks: 201 local and benign"] += 1
            assert not [s for s in seen if s.startswith("opened")], f"a request opened a trap path: {seen[:3]}"
            if server.rooms:  # the same headers on the other routes of an existing game
                room_id = next(iter(server.rooms))
                route = data.draw(st.sampled_from(("advance", "show", "page")), label="route")
                if route == "advance":
                    r = client.post(f"/api/games/{room_id}/advance", content=b'{"step": 0}', headers=headers)
                else:
                    get_headers = {k: v for k, v in headers.items() if k != "content-type"}
                    r = client.get(f"/api/games/{room_id}" if route == "show" else "/", headers=get_headers)
                    expected = expected if expected != 415 else 0  # a GET has no body to check
                if expected:
                    assert r.status_code == expected, f"{route} with {headers}: {r.status_code}, expected {expected}"
                else:
                    assert r.status_code in (200, 409), f"{route} with local headers: {r.status_code} {r.text[:200]}"


# =========================================================================== failing opponents
OPPONENT_FAILURES = ("none", "raise", "illegal", "odd", "mutate", "raise late")


class FlakyOpponent:
    """An opponent that plays random legal moves, and fails in one way at its ``fail_at``-th call."""

    def __init__(self, failure: str, fail_at: int, odd: Any, env_game: Callable[[], Game]) -> None:
        self.failure, self.fail_at, self.odd = failure, fail_at, odd
        self.env_game = env_game
        self.calls = 0
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, game: Game) -> Any:
        assert game is not self.env_game(), "an opponent was handed the env's own game"
        self.calls += 1
        legal = game.legal_actions()
        if self.failure == "mutate":  # plays on its copy first: the env's game must not see it
            game.step(int(legal[self.rng.integers(len(legal))]))
            if game.is_over():
                return int(legal[0])
        if self.calls == self.fail_at:
            if self.failure in ("raise", "raise late"):
                raise RuntimeError(f"opponent bug at call {self.calls}")
            if self.failure == "illegal":
                return int(np.flatnonzero(~game.legal_mask())[self.rng.integers(8)])
            if self.failure == "odd":
                return self.odd
        return int(legal[self.rng.integers(len(legal))])

    def __repr__(self) -> str:
        return f"FlakyOpponent({self.failure}@{self.fail_at})"


def check_opponents(data: st.DataObject) -> None:
    """Campaign ``opponents``: ``SingleAgentEnv`` with opponents that raise, answer illegal actions or odd types.

    A failure is an ``OpponentError`` naming the seat and spec with the cause chained, never
    an ``IllegalActionError`` of the learner (who plays legal moves only) nor a penalty;
    then every ``step`` raises ``ResetNeededError`` until ``reset``. Opponents get clones: one
    that plays on its copy changes nothing. An odd answer that is a legal index is played.
    """
    from concordia_env import OpponentError, ResetNeededError
    from concordia_env.envs.gym_env import SingleAgentEnv

    map_name, players = data.draw(st.sampled_from((("italia", 2), ("italia", 3), ("creta", 2))), label="game")
    seat = data.draw(st.integers(0, players - 1), label="seat")
    mode = data.draw(st.sampled_from(("raise", "penalize")), label="illegal_action")
    holder: list[Any] = []
    opponents = [
        FlakyOpponent(
            data.draw(st.sampled_from(OPPONENT_FAILURES), label="failure"),
            data.draw(st.integers(1, 40), label="fail at"),
            data.draw(odd_values(), label="odd answer"),
            lambda: holder[0].game,
        )
        for _ in range(players - 1)
    ]
    env = SingleAgentEnv(opponents=opponents, seat=seat, map=map_name, num_players=players, illegal_action=mode)
    holder.append(env)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="learner seed"))
    broken = None
    try:
        env.reset(seed=data.draw(st.integers(0, 2**31 - 1), label="game seed"))
    except OpponentError as err:
        broken = err
    steps = 0
    while broken is None and steps < 120:
        steps += 1
        mask = env.action_masks()
        action = int(rng.choice(np.flatnonzero(mask)))
        try:
            _, reward, terminated, truncated, info = env.step(action)
        except OpponentError as err:
            broken = err
            break
        except IllegalActionError as err:
            raise AssertionError(f"an opponent's failure was reported as the learner's: {err}") from None
        assert info["illegal_action"] == "" and reward >= -1, "the learner was penalized for a legal move"
        check_invariants(env.game)
        if terminated or truncated:
            env.reset()
    if broken is None:
        OUTCOMES["opponents: no failure"] += 1
        return
    _check_broken(env, broken, opponents, seat, ResetNeededError)
    try:  # a reset starts over; another opponent (or the same, at a later call) may fail in it again
        env.reset()
    except OpponentError as again:
        _check_broken(env, again, opponents, seat, ResetNeededError)
    else:
        assert env.game.current_player in (seat, -1) and env.action_masks().any() != env.game.is_over()
    OUTCOMES[f"opponents: contained ({type(broken.__cause__).__name__})"] += 1


def _check_broken(env: Any, err: Any, opponents: list[FlakyOpponent], seat: int, reset_needed: type) -> None:
    others = [p for p in range(env.game.num_players) if p != seat]
    assert err.seat in others and err.spec == repr(opponents[others.index(err.seat)]), f"wrong seat/spec: {err}"
    assert f"seat {err.seat}" in str(err) and err.spec in str(err) and len(str(err)) <= MESSAGE_LIMIT
    assert err.__cause__ is not None, "the opponent's own error is not chained"
    culprit = opponents[others.index(err.seat)]
    if isinstance(err.__cause__, IllegalActionError):
        assert culprit.failure in ("illegal", "odd"), f"{culprit!r} answered legally but was refused: {err}"
        assert env.game.current_player == err.seat, "the refused answer was not for the seat's pending decision"
        index = as_index(culprit.odd) if culprit.failure == "odd" else None
        if index is not None and 0 <= index < NUM_ACTIONS:  # an index is refused only when it is illegal there
            assert not env.game.legal_mask()[index], f"{culprit!r}'s legal answer {index} was refused"
    else:
        assert culprit.failure in ("raise", "raise late"), f"{culprit!r} failed unexpectedly: {err.__cause__!r}"
    assert not env.action_masks().any(), "a broken episode offers actions"
    before = env.game.state.copy()
    for action in (0, 1, NUM_ACTIONS - 1, *env.game.legal_actions()[:2].tolist()):
        try:
            env.step(action)
        except reset_needed:
            continue
        raise AssertionError("a broken episode took another step")
    assert np.array_equal(env.game.state, before), "a refused step changed the broken game"


# =========================================================================== state mutation after construction
def check_state_mutation(data: st.DataObject) -> None:
    """Campaign ``state-mutation``: writes through every array a game or a batch hands out, then every public call.

    Each write is refused (``ValueError``/``TypeError``/``AttributeError``) or lands in a copy:
    the game (or batch) is exactly as before, and survives every public call. Runs in a child
    process: a write that reached compiled code could crash it.
    """
    if data.draw(st.booleans(), label="batch"):
        _mutate_vector(data)
        return
    game = data.draw(game_specs(max_moves=250), label="position").build()
    before = game.state.copy()
    built: list[tuple[Game, np.ndarray]] = []
    for _ in range(data.draw(st.integers(1, 6), label="writes")):
        i = data.draw(st.integers(0, STATE_SIZE - 1), label="entry")
        value = data.draw(st.sampled_from(CORRUPT_VALUES), label="value")
        how = data.draw(st.sampled_from(GAME_WRITES), label="how")
        result = _write_game(game, how, i, value, data)
        if result is not None:
            built.append(result)
        OUTCOMES[f"state-mutation: {how}"] += 1
    assert np.array_equal(game.state, before), "a write through a handed-out array changed the game"
    check_invariants(game)
    exercise(game, np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="play seed")))
    for other, copy_of_state in built:  # games built from an array the caller then wrote to
        assert np.array_equal(other.state, copy_of_state), "Game(arr, map) saw a write to arr after construction"
        exercise(other, np.random.default_rng(0))


GAME_WRITES = (
    "state",
    "slice",
    "asarray",
    "view",
    "reshape",
    "flags",
    "setflags",
    "frombuffer",
    "memoryview",
    "attribute",
    "constructor",
    "pickle",
    "accessor",
)


def _write_game(game: Game, how: str, i: int, value: int, data: st.DataObject) -> tuple[Game, np.ndarray] | None:
    """One attempt to write ``value`` into entry ``i`` of ``game``'s state; a game built on the way, if any."""
    refused = (ValueError, TypeError, AttributeError)
    if how == "constructor":  # Game(arr, map) copies: a later write to arr must not reach the game
        arr = game.state.copy()
        other = Game(arr, game.map)
        kept = arr.copy()
        arr[i] = value
        return other, kept
    if how == "pickle":  # a tampered pickle is checked like Game(state, map)
        saved = game.__getstate__()
        saved["state"] = saved["state"].copy()
        saved["state"][i] = value
        try:
            other = Game.__new__(Game)
            other.__setstate__(saved)
        except ValueError:
            return None
        return other, saved["state"].copy()
    if how == "accessor":  # what the accessors return are copies: writing them is allowed and changes nothing
        p = data.draw(st.integers(0, game.num_players - 1), label="player")
        for part in (game.goods(p), game.hand(p), game.discard(p), game.colonist_locations(p), game.display()):
            part[...] = value
        return None
    with contextlib.suppress(*refused):
        if how == "state":
            game.state[i] = value
        elif how == "slice":
            game.state[i : i + 3] = value
        elif how == "asarray":
            np.asarray(game.state)[i] = value
        elif how == "view":
            game.state.view()[i] = value
        elif how == "reshape":
            game.state.reshape(1, STATE_SIZE)[0, i] = value
        elif how == "flags":
            game.state.flags.writeable = True
            game.state[i] = value
        elif how == "setflags":
            view = game.state[:]
            view.setflags(write=True)
            view[i] = value
        elif how == "frombuffer":
            np.frombuffer(game.state, dtype=np.int32)[i] = value
        elif how == "memoryview":
            memoryview(game.state)[i] = value
        elif how == "attribute":
            target = data.draw(st.sampled_from(("state", "map", "_view")), label="attribute")
            replacement = {"state": np.full(STATE_SIZE, value, dtype=np.int32), "map": load("creta")}
            setattr(game, target, replacement.get(target, np.full(STATE_SIZE, value, dtype=np.int32)))
            if target == "_view":  # private: a caller who sets it gets what they asked for, the game itself not
                game._view = None  # put back: the view is a cache of the state, never read by the rules
        return None
    return None


def _mutate_vector(data: st.DataObject) -> None:
    """The batch counterpart: writes into ``states``, rows, masks, attributes and infos, then steps."""
    from concordia_env import VectorGame

    name = data.draw(st.sampled_from(MAP_NAMES), label="map")
    players = data.draw(st.sampled_from(load(name).players), label="players")
    vec = VectorGame(data.draw(st.integers(1, 4), label="rows"), name, players, seed=data.draw(st.integers(0, 99)))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="play seed"))
    for _ in range(data.draw(st.integers(0, 40), label="steps first")):
        vec.step(vec.sample_actions(rng))
    states, masks = vec.states.copy(), vec.legal_masks().copy()
    for _ in range(data.draw(st.integers(1, 6), label="writes")):
        row = data.draw(st.integers(0, vec.n - 1), label="row")
        i = data.draw(st.integers(0, STATE_SIZE - 1), label="entry")
        value = data.draw(st.sampled_from(CORRUPT_VALUES), label="value")
        how = data.draw(st.sampled_from(("states", "row", "mask", "flags", "attribute", "game", "infos")), label="how")
        with contextlib.suppress(ValueError, TypeError, AttributeError):
            if how == "states":
                vec.states[row, i] = value
            elif how == "row":
                vec.states[row][i] = value
            elif how == "mask":
                vec.legal_masks()[row] = True
            elif how == "flags":
                vec.states.flags.writeable = True
            elif how == "attribute":
                target = data.draw(st.sampled_from(("states", "n", "map", "num_players")), label="attribute")
                setattr(vec, target, {"n": 100, "num_players": 6, "map": load("creta")}.get(target, np.zeros(3)))
            elif how == "game":
                vec.game(row).state[i] = value
            else:
                final = vec.last_infos["final_info"][row]
                if final is not None:
                    final["state"][i] = value
        OUTCOMES[f"state-mutation: vector {how}"] += 1
    assert np.array_equal(vec.states, states) and np.array_equal(vec.legal_masks(), masks), "a write reached the batch"
    for _ in range(data.draw(st.integers(1, 30), label="steps after")):
        vec.step(vec.sample_actions(rng))
        vec.observations()
    for row in range(vec.n):
        check_invariants(vec.game(row))


# =========================================================================== training faults
@functools.cache
def _straight_expert_run() -> Any:
    """expert_tiny trained without a stop (made once per process), what every stopped run must end as."""
    from concordia_env.training.expert_iteration import ExpertRun
    from tests.test_training_faults import expert_config

    run = ExpertRun.create(expert_config(Path(tempfile.mkdtemp(prefix="concordia-straight-"))))
    run.train()
    return run


def check_training_faults(data: st.DataObject) -> None:
    """A tiny expert run stopped once (Ctrl-C in any phase, or a lost worker while playing), then resumed."""
    import pytest

    from concordia_env.training.expert_iteration import ExpertRun
    from concordia_env.training.workers import WorkerLostError
    from tests.test_training_faults import PHASES, assert_same_run, expert_config, interrupted_and_resumed

    phase = data.draw(st.sampled_from(PHASES), label="phase")
    iteration = data.draw(st.integers(0, 1), label="iteration")
    error: type[BaseException] = KeyboardInterrupt
    if phase == "play" and data.draw(st.booleans(), label="a lost worker"):
        error = WorkerLostError
    straight = _straight_expert_run()
    with tempfile.TemporaryDirectory(prefix="concordia-faults-") as folder, pytest.MonkeyPatch.context() as patch:
        resumed = interrupted_and_resumed(patch, ExpertRun, expert_config(Path(folder)), phase, iteration, error)
        assert_same_run(resumed, straight)
    OUTCOMES[f"training-faults: {phase} ({error.__name__}) resumed exactly"] += 1


# =========================================================================== concurrent use
GAME_CALLS = ("step legal", "step legal", "step odd", "legal", "observe", "scores", "clone", "json")
BATCH_CALLS = ("step sampled", "step sampled", "step odd", "restart", "observations", "masks", "row")


def check_concurrent(data: st.DataObject) -> None:
    """Threads calling one ``Game`` or one ``VectorGame`` at once, with any mix of calls."""
    import threading

    from concordia_env import VectorGame

    batch = data.draw(st.booleans(), label="VectorGame")
    name = data.draw(st.sampled_from(MAP_NAMES), label="map")
    players = data.draw(st.sampled_from(load(name).players), label="players")
    seed = data.draw(st.integers(0, 2**31 - 1), label="seed")
    target: Any = Game.new(name, players, seed)
    if batch:
        target = VectorGame(data.draw(st.integers(1, 16), label="rows"), map=name, num_players=players, seed=seed)
    calls = BATCH_CALLS if batch else GAME_CALLS
    plans = [
        data.draw(st.lists(st.sampled_from(calls), min_size=1, max_size=40), label=f"thread {k}")
        for k in range(data.draw(st.integers(2, 4), label="threads"))
    ]
    odd = data.draw(odd_values(), label="odd value")
    unexpected: list[str] = []
    start = threading.Barrier(len(plans))

    def run(k: int, plan: list[str]) -> None:
        rng = np.random.default_rng(k)
        start.wait()
        for call in plan:
            try:
                if batch:
                    _batch_call(target, call, rng, odd)
                else:
                    _game_call(target, call, rng, odd)
            except (IllegalActionError, ValueError, TypeError):
                OUTCOMES["concurrent: call refused"] += 1  # an action the other thread's step made illegal, or odd
            except BaseException as e:  # any other exception is a broken contract
                unexpected.append(f"{call}: {type(e).__name__}: {e}")
            else:
                OUTCOMES["concurrent: call done"] += 1

    threads = [threading.Thread(target=run, args=(k, plan)) for k, plan in enumerate(plans)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not unexpected, unexpected[:3]
    games = [target.game(row) for row in range(target.n)] if batch else [target]
    for game in games:
        check_invariants(game)
    if batch:
        target.step(target.sample_actions(np.random.default_rng(0)))  # the batch goes on
    elif not target.is_over():
        target.step(int(target.legal_actions()[0]))


def _game_call(game: Game, call: str, rng: np.random.Generator, odd: Any) -> None:
    if call == "step legal":
        legal = game.legal_actions()
        if len(legal):
            game.step(int(rng.choice(legal)))
    elif call == "step odd":
        game.step(odd)
    elif call == "legal":
        game.legal_mask()
    elif call == "observe":
        game.observation(int(rng.integers(game.num_players)))
    elif call == "scores":
        game.scores()
    elif call == "clone":
        check_invariants(game.clone())
    else:
        Game.from_json(game.to_json()) if not beyond_position_bounds(game) else game.to_json()


def _batch_call(vec: Any, call: str, rng: np.random.Generator, odd: Any) -> None:
    if call == "step sampled":
        vec.step(vec.sample_actions(rng))
    elif call == "step odd":
        vec.step(np.full(vec.n, odd) if np.ndim(odd) == 0 else odd)
    elif call == "restart":
        vec.restart([int(rng.integers(vec.n))])
    elif call == "observations":
        vec.observations()
    elif call == "masks":
        vec.legal_masks()
    else:
        check_invariants(vec.game(int(rng.integers(vec.n))))


# =========================================================================== stored rows
#: the columns of a stored game a campaign may overwrite (all but its ids)
STORED_COLUMNS = (
    "game_index", "seed", "map", "players", "options_json", "seats_json", "num_actions", "scores_json",
    "winner", "ranking_json", "breakdowns_json", "actions_json", "think_json", "decisions_json", "duration", "over",
)  # fmt: skip


@functools.cache
def _stored_game_file() -> Path:
    """A results file holding one real 2-player Italia game between random agents (made once per process)."""
    from concordia_env.tools.replay import play_new_game
    from concordia_env.tools.store import Store

    path = Path(tempfile.mkdtemp(prefix="concordia-stored-rows-")) / "one-game.db"
    record = play_new_game(["random", "random"], "italia", 7)
    with Store(path) as store:
        store.register_tournament(record.tournament_id, {"kind": "fuzz"})
        store.add_game(record)
    return path


def _stored_value(data: st.DataObject, column: str, old: Any) -> Any:
    """A new value for ``column``: a JSON value, a raw SQLite value, text nested deep, or the old JSON edited."""
    how = data.draw(st.sampled_from(("json", "raw", "deep", "edit")), label="how")
    if how == "json":
        return json.dumps(data.draw(json_values(), label="json value"))
    if how == "raw":
        return data.draw(
            st.one_of(st.integers(-(2**63), 2**63 - 1), st.floats(), st.text(max_size=8), st.binary(max_size=8)),
            label="raw value",
        )
    if how == "deep":
        depth = data.draw(st.sampled_from((50, 1000, 100_000)), label="depth")
        return "[" * depth + "]" * depth
    try:  # the old value is what an earlier edit left: maybe no JSON, maybe nested too deep to read
        value = json.loads(old) if isinstance(old, str) and old[:1] in ("[", "{") else None
    except (ValueError, RecursionError):
        value = None
    if isinstance(value, list) and value:
        value[data.draw(st.integers(0, len(value) - 1), label="at")] = data.draw(json_values(), label="entry")
        return json.dumps(value)
    if isinstance(value, dict):
        value[data.draw(st.text(max_size=20), label="key")] = data.draw(json_values(), label="entry")
        return json.dumps(value)
    return json.dumps(data.draw(json_values(), label="json value"))


def check_stored_rows(data: st.DataObject) -> None:
    import sqlite3

    from concordia_env.tools.replay import html_replay, replay
    from concordia_env.tools.store import Store, StoreError

    with tempfile.TemporaryDirectory(prefix="concordia-rows-") as folder:
        path = Path(folder) / "results.db"
        path.write_bytes(_stored_game_file().read_bytes())
        edits = data.draw(st.integers(1, 3), label="edits")
        with contextlib.closing(sqlite3.connect(path)) as conn:
            for _ in range(edits):
                column = data.draw(st.sampled_from(STORED_COLUMNS), label="column")
                old = conn.execute(f"SELECT {column} FROM games").fetchone()[0]
                with contextlib.suppress(sqlite3.IntegrityError):  # NaN is NULL: SQLite refuses it itself
                    conn.execute(f"UPDATE games SET {column} = ?", (_stored_value(data, column, old),))
            conn.commit()
        with Store(path) as store:
            try:
                record = store.game(1)
                store.games(record.tournament_id, with_actions=False)
            except StoreError as e:
                message = str(e)
                assert "\n" not in message and len(message) < MESSAGE_LIMIT, f"a poor refusal: {message[:300]}"
                OUTCOMES["stored-rows: refused"] += 1
                return
        try:  # an accepted row replays, or its actions are refused as the engine refuses them
            replay(record, io.StringIO())
            html_replay(record)
        except IllegalActionError:
            OUTCOMES["stored-rows: actions refused by the rules"] += 1
            return
        OUTCOMES["stored-rows: accepted, replayed"] += 1


# =========================================================================== running campaigns
@dataclass(frozen=True)
class Campaign:
    name: str
    check: Callable[[st.DataObject], None]
    #: run in a child process (a crash must not end the runner)
    isolated: bool = False


CAMPAIGNS: dict[str, Campaign] = {
    c.name: c
    for c in (
        Campaign("positions", check_positions),
        Campaign("position-text", check_position_text),
        Campaign("actions", check_actions),
        Campaign("vector", check_vector),
        Campaign("options", check_options),
        Campaign("env-orders", check_env_orders),
        Campaign("openspiel", check_openspiel),
        Campaign("web", check_web),
        Campaign("web-attacks", check_web_attacks),
        Campaign("opponents", check_opponents),
        Campaign("stored-rows", check_stored_rows),
        Campaign("concurrent", check_concurrent),
        Campaign("training-faults", check_training_faults),
        Campaign("raw-state", check_raw_state, isolated=True),
        Campaign("state-mutation", check_state_mutation, isolated=True),
    )
}


def run_campaign(name: str, examples: int, random_seed: int | None = None, tried: list[int] | None = None) -> int:
    """Run ``examples`` Hypothesis examples of one campaign in this process; returns the inputs tried.

    A broken contract raises (after Hypothesis shrank it to a small example, which it
    prints); ``tried[0]`` then still counts the inputs tried, shrinking included.
    """
    check = CAMPAIGNS[name].check
    tried = [0] if tried is None else tried

    def body(data: st.DataObject) -> None:
        tried[0] += 1
        check(data)

    test = settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        print_blob=True,
    )(given(data=st.data())(body))
    if random_seed is not None:
        test = seed(random_seed)(test)
    test()
    return tried[0]


@dataclass
class Tally:
    """What one campaign did over a whole run."""

    inputs: int = 0
    chunks: int = 0
    #: how the inputs ended (see OUTCOMES)
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)
    seconds: float = 0.0


RESULT_TAG = "FUZZ-RESULT "


def _run_chunk_here(name: str, examples: int, chunk_seed: int, tally: Tally) -> None:
    tried = [0]
    before = Counter(OUTCOMES)
    try:
        run_campaign(name, examples, chunk_seed, tried)
    except Exception:
        tally.failures.append(f"seed {chunk_seed}: {traceback.format_exc(limit=8)}")
    tally.inputs += tried[0]
    _add(tally.outcomes, OUTCOMES - before)


def _add(total: dict[str, int], more: dict[str, int]) -> None:
    for key, k in more.items():
        total[key] = total.get(key, 0) + k


def _run_chunk_in_child(name: str, examples: int, chunk_seed: int, tally: Tally, env: dict[str, str]) -> None:
    cmd = [sys.executable, "-m", "tests.fuzz.campaigns", "--child", name, "--examples", str(examples)]
    cmd += ["--seed", str(chunk_seed)]
    root = Path(__file__).resolve().parents[2]  # the checkout: tests.fuzz.campaigns is found from there
    proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(RESULT_TAG)]
    if lines:
        result = json.loads(lines[-1][len(RESULT_TAG) :])
        tally.inputs += result["inputs"]
        _add(tally.outcomes, result["outcomes"])
        tally.failures += [f"seed {chunk_seed}: {f}" for f in result["failures"]]
    tail = (proc.stdout + proc.stderr)[-3000:]
    if proc.returncode < 0:
        tally.crashes.append(f"seed {chunk_seed}: killed by signal {-proc.returncode}\n{tail}")
    elif proc.returncode != 0 and not lines:
        tally.failures.append(f"seed {chunk_seed}: exit status {proc.returncode}\n{tail}")


def run(
    names: list[str],
    *,
    examples: int | None,
    seconds: float | None,
    chunk: int,
    base_seed: int,
    boundscheck: bool = False,
    log: Callable[[str], None] | None = None,
) -> dict[str, Tally]:
    """Run campaigns round robin, ``chunk`` inputs at a time, until ``examples`` each or ``seconds`` in all."""
    log = log or functools.partial(print, flush=True)
    tallies = {name: Tally() for name in names}
    env = dict(os.environ)
    cache = None
    if boundscheck:
        cache = tempfile.mkdtemp(prefix="concordia-boundscheck-")
        env.update(NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=cache)
    start = time.monotonic()
    k = 0
    while True:
        # a campaign that failed is not run again: its failure is reported, more would repeat it
        pending = [n for n in names if (examples is None or tallies[n].inputs < examples) and not _broken(tallies[n])]
        if not pending or (seconds is not None and time.monotonic() - start >= seconds):
            break
        for name in pending:
            if seconds is not None and time.monotonic() - start >= seconds:
                break
            tally = tallies[name]
            size = chunk if examples is None else max(1, min(chunk, examples - tally.inputs))
            chunk_seed = base_seed + k
            k += 1
            t0 = time.monotonic()
            if CAMPAIGNS[name].isolated or boundscheck:
                _run_chunk_in_child(name, size, chunk_seed, tally, env)
            else:
                _run_chunk_here(name, size, chunk_seed, tally)
            tally.chunks += 1
            tally.seconds += time.monotonic() - t0
            log(
                f"{time.monotonic() - start:8.0f}s  {name:14s} {tally.inputs:9d} inputs  "
                f"{len(tally.failures)} failed  {len(tally.crashes)} crashed"
            )
    return tallies


def _broken(tally: Tally) -> bool:
    return bool(tally.failures or tally.crashes)


def report(tallies: dict[str, Tally]) -> str:
    rows = ["| campaign | inputs tried | failures | crashes | seconds |", "| --- | ---: | ---: | ---: | ---: |"]
    for name, t in tallies.items():
        rows.append(f"| {name} | {t.inputs} | {len(t.failures)} | {len(t.crashes)} | {t.seconds:.0f} |")
    total = sum(t.inputs for t in tallies.values())
    rows.append(f"| **all** | **{total}** | {sum(len(t.failures) for t in tallies.values())} | ")
    rows[-1] += f"{sum(len(t.crashes) for t in tallies.values())} | {sum(t.seconds for t in tallies.values()):.0f} |"
    outcomes = [f"{key}: {k}" for t in tallies.values() for key, k in sorted(t.outcomes.items())]
    return "\n".join(rows) + ("\n\noutcomes: " + "; ".join(outcomes) if outcomes else "")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz.campaigns", description=__doc__.split("\n\n")[0])
    p.add_argument("--campaigns", nargs="+", choices=list(CAMPAIGNS), default=list(CAMPAIGNS))
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--examples", type=int, help="inputs per campaign")
    budget.add_argument("--minutes", type=float, help="run for this long in all")
    budget.add_argument("--hours", type=float, help="run for this long in all")
    p.add_argument("--chunk", type=int, default=200, help="inputs per campaign before the next one's turn")
    p.add_argument("--seed", type=int, default=None, help="base seed (default: from the clock)")
    p.add_argument("--boundscheck", action="store_true", help="child processes with NUMBA_BOUNDSCHECK=1")
    p.add_argument("--json", type=Path, default=None, help="write the tallies (and failures) here")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    base_seed = args.seed if args.seed is not None else int(time.time())
    if args.child:  # one chunk of an isolated campaign, in the child process the runner started
        tally = Tally()
        _run_chunk_here(args.child, args.examples or args.chunk, base_seed, tally)
        result = {"inputs": tally.inputs, "outcomes": tally.outcomes, "failures": tally.failures}
        print(RESULT_TAG + json.dumps(result), flush=True)
        return 1 if tally.failures else 0
    seconds = args.minutes * 60 if args.minutes else args.hours * 3600 if args.hours else None
    examples = args.examples if args.examples or seconds else 500
    tallies = run(
        args.campaigns,
        examples=examples,
        seconds=seconds,
        chunk=args.chunk,
        base_seed=base_seed,
        boundscheck=args.boundscheck,
    )
    print(report(tallies))
    for name, t in tallies.items():
        for problem in t.crashes + t.failures:
            print(f"\n--- {name}: {problem}")
    if args.json:
        args.json.write_text(json.dumps({n: t.__dict__ for n, t in tallies.items()}, indent=1))
    return 1 if any(t.failures or t.crashes for t in tallies.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
