"""The bounds of every state field, and the cheap check that a raw state array respects them.

The compiled rules trust the state: numba does not bounds-check, so a player index of 7,
a card type of -5 or a location past the last path makes them read or write outside the
arrays (a wrong result at best, a segmentation fault at worst). :func:`check_state` is
what ``Game(state, map)`` runs on an array it did not build itself: every index-like
field must lie in its range, and every counter within the bounds below, so that nothing
the engine, the observation or the scoring computes can leave the arrays or overflow
int32. It checks *ranges*, not *reachability*: a state that passes may still be one no
game can reach (two players with the same city token, a card twice). The position loader
(:mod:`concordia_env.engine.position`) checks reachability on top of these ranges.

Bounds of the counters
----------------------
The rules bound most fields (goods by the 12 storehouse slots, houses by 15, colonists by
6, players, cards and places by the setup). Four counters have no limit in the rules:
money, the turn and decision counters and the intermediate-scoring VP marker grow with
the length of a game, and nothing forces a game to end. Each has two bounds:

* a *position* may claim at most ``MAX_MONEY``, ``MAX_TURNS``, ``MAX_DECISIONS``,
  ``MAX_INTERMEDIATE_VP`` (the position loader refuses more): far above what games reach
  (random games: at most about 460 sestertii, 650 turns, 1,400 decisions, 20 VP);
* a *state array* may hold up to ``COUNTER_LIMIT`` (2**28, an eighth of int32's range;
  :func:`check_state` refuses more). The engine does not stop at the position bounds:
  playing on from a position at a bound passes it, and the state's range leaves room for
  millions of further turns before any sum or product of the rules could wrap int32
  (the one money product, Vesta's VP, is money / 10 for the single Vesta card).

====================  ================================  ==============================
counter               a position may claim              a state array may hold
====================  ================================  ==============================
money                 0..MAX_MONEY (1,000,000)          0..COUNTER_LIMIT
turn_count            0..MAX_TURNS (1,000,000)          0..COUNTER_LIMIT
decision_count        0..MAX_DECISIONS (20,000,000)     0..COUNTER_LIMIT
intermediate_vp       0..MAX_INTERMEDIATE_VP (1,000,000) 0..COUNTER_LIMIT
incoming goods        0..MAX_INCOMING (18) per player and good: one per house, plus the
                      producer's bonus and the Nile food (waiting goods never grow: a
                      storehouse choice is settled before anything else is produced)
====================  ================================  ==============================
"""

from __future__ import annotations

import functools

import numpy as np

from .cards import (
    COLONISTS_PER_PLAYER,
    DISPLAY_SLOTS,
    DISPLAY_VARIANTS,
    HOUSES_PER_PLAYER,
    NUM_CARD_TYPES,
    NUM_GOODS,
    NUM_KINDS,
    NUM_SALE_CARDS,
    NUM_START_TYPES,
    START_HAND_COUNTS,
    STOREHOUSE_SLOTS,
)
from .errors import ArgumentTypeError
from .maps import (
    M_CITY_HAS_PATH,
    M_CITY_SPECIAL,
    M_PATH_KIND,
    MAP_NAMES,
    MAX_CITIES,
    MAX_PATHS,
    MAX_PROVINCES,
    SEA,
    Map,
    load,
)
from .rules.setup import empty_state
from .state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    BUYS_LEFT,
    CITY_GOOD,
    CONCORDIA_HOLDER,
    CURRENT_PLAYER,
    DECISION_COUNT,
    DISPLAY,
    FINAL_TURNS_LEFT,
    FIRST_SEA_SLOT,
    HOUSES,
    INCOMING,
    INTERMEDIATE_PAID,
    LOC_STOREHOUSE,
    MAP_ID,
    MAX_PLAYERS,
    NILE_MARKER,
    NUM_PHASES,
    NUM_PLAYERS,
    OPT_DISPLAY_COSTS,
    OPT_INTERMEDIATE,
    P_COLONISTS,
    P_DISCARD,
    P_DISCARD_TOP,
    P_GOODS,
    P_HAND,
    P_INTERMEDIATE_DONE,
    P_INTERMEDIATE_VP,
    P_MONEY,
    PATH_LOC_BASE,
    PHASE,
    PHASE_BONUS_GOOD,
    PHASE_GAME_OVER,
    PLAYED_KIND,
    PLAYER_LAYOUT,
    PLAYER_SIZE,
    PLAYERS,
    PM_PASS_PENDING,
    PRAEFECTUS_MAGNUS,
    SLOTS_BOUGHT,
    STACK,
    STACK_SIZE,
    STATE_LAYOUT,
    STATE_SIZE,
    STEPS_LEFT,
    TRADED_GOODS,
    TURN_COUNT,
    TURN_PLAYER,
    player_base,
)

# --------------------------------------------------------------------------- bounds
#: the most sestertii a player may hold (the rules set no limit)
MAX_MONEY = 1_000_000
#: the most turns completed (the rules set no limit)
MAX_TURNS = 1_000_000
#: the most decisions taken (the rules set no limit; a turn is one to about twenty decisions)
MAX_DECISIONS = 20_000_000
#: the intermediate VP marker: a card score, which money can push up through Vesta
MAX_INTERMEDIATE_VP = MAX_MONEY
#: what a state array may hold in those four counters: play from a position at its bound
#: passes the bound, and has millions of turns of room below this before int32 could wrap
COUNTER_LIMIT = 2**28
#: produced goods of one kind waiting for one player: one per house, plus the producer's
#: bonus (two with the Praefectus Magnus) and the Nile food (a loose bound)
MAX_INCOMING = HOUSES_PER_PLAYER + 3
#: the most cards one Senator/Consul action buys (the Senator's two)
MAX_BUYS = 2
#: int32, the type of every state field
INT32_MIN, INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)

#: copies of each card type one player can own: the starting counts, one of each sale card
CARD_COPIES = np.where(np.arange(NUM_CARD_TYPES) < NUM_START_TYPES, START_HAND_COUNTS, 1).astype(np.int32)


# --------------------------------------------------------------------------- conversion
def as_state_array(state: object) -> np.ndarray:
    """``state`` as a new, writable, C-contiguous int32 array of length ``STATE_SIZE``.

    Always a copy, even of an int32 array: whoever checks the array must own it, or the
    caller could change it after the check (``Game(state, map)`` keeps what this returns).
    Refused: an array that is not of integers (floats would be truncated, booleans are not
    counts), the wrong shape, and values that int32 cannot hold (a cast would wrap them
    silently).
    """
    try:
        arr = np.asarray(state)
    except (TypeError, ValueError, OverflowError) as e:
        raise ArgumentTypeError(f"a game state is an int32 array, got {type(state).__name__} ({e})") from None
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iu":
        raise ArgumentTypeError(f"a game state is an array of integers, got dtype {arr.dtype}")
    if arr.shape != (STATE_SIZE,):
        raise ValueError(f"a game state is an int32 array of length {STATE_SIZE}, got shape {arr.shape}")
    if arr.dtype != np.int32 and arr.size and (arr.min() < INT32_MIN or arr.max() > INT32_MAX):
        raise ValueError("a game state holds int32 values; some entries do not fit")
    return np.array(arr, dtype=np.int32, order="C", copy=True)


def read_only_view(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` (C-contiguous) through which nobody can write.

    A plain view with ``flags.writeable = False`` can be made writable again by anyone who
    sets the flag back; this one views a read-only buffer, so numpy refuses that too
    ("cannot set WRITEABLE flag to True of this array"). The owner keeps writing ``array``
    and the view shows it. ``Game.state`` and ``VectorGame.states`` are such views.
    """
    buffer = memoryview(array).toreadonly()  # type: ignore[arg-type]  # ndarray is a buffer; numpy stubs lack it
    return np.frombuffer(buffer, dtype=array.dtype).reshape(array.shape)


def compiled_state(state: np.ndarray) -> np.ndarray:
    """An array the engine's compiled functions read as they were compiled: writable, so a read-only view is copied.

    numba compiles a separate version of a function for a read-only array (another type to
    it): a :func:`read_only_view` passed as it is would compile every function it reaches
    twice, at run time. The copy costs a fraction of a microsecond.
    """
    return state if state.flags.writeable else state.copy()


# --------------------------------------------------------------------------- ranges
@functools.cache
def field_bounds(map_name: str, num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Per entry of the state, the lowest and highest value it may hold on this map and player count.

    Entries a map or player count does not use (the 6th player block, places beyond the
    board) must hold exactly what setup leaves there: the engine never writes them.
    """
    m = load(map_name)
    n = num_players
    places, paths, provinces = len(m.places), len(m.paths), len(m.provinces)
    low = empty_state(m, n, False, DISPLAY_VARIANTS[0])
    high = low.copy()

    def allow(offset: int, lo: int, hi: int, length: int = 1) -> None:
        low[offset : offset + length] = lo
        high[offset : offset + length] = hi

    allow(OPT_INTERMEDIATE, 0, 1)
    allow(OPT_DISPLAY_COSTS, 0, len(DISPLAY_VARIANTS) - 1)
    allow(TURN_PLAYER, 0, n - 1)
    allow(CURRENT_PLAYER, -1, n - 1)
    allow(PHASE, 0, NUM_PHASES - 1)
    allow(PLAYED_KIND, -1, NUM_KINDS - 1)
    allow(ACTION_KIND, -1, NUM_KINDS - 1)
    allow(STEPS_LEFT, 0, COLONISTS_PER_PLAYER)
    allow(TRADED_GOODS, 0, 2**NUM_GOODS - 1)
    allow(BUYS_LEFT, 0, MAX_BUYS)
    allow(SLOTS_BOUGHT, 0, 2**DISPLAY_SLOTS - 1)
    allow(PRAEFECTUS_MAGNUS, 0, n - 1)
    allow(PM_PASS_PENDING, 0, 1)
    allow(CONCORDIA_HOLDER, -1, n - 1)
    allow(FINAL_TURNS_LEFT, -1, n)
    allow(TURN_COUNT, 0, COUNTER_LIMIT)
    allow(DECISION_COUNT, 0, COUNTER_LIMIT)
    allow(INCOMING, 0, MAX_INCOMING, n * NUM_GOODS)
    if m.nile_route:
        route = [m.province_index(v) for v in m.nile_route]
        allow(NILE_MARKER, min(route), max(route))
    allow(INTERMEDIATE_PAID, 0, 1)
    for c in range(places):
        buildable = m.places[c] != m.capital and m.places[c] not in m.special_squares
        if buildable:
            allow(CITY_GOOD + c, 0, NUM_GOODS - 1)
            for p in range(n):
                allow(HOUSES + p * MAX_CITIES + c, 0, 1)
    for v in range(provinces):
        allow(BONUS_GOOD + v, -1 if m.province_names[v] == m.variable_bonus_province else 0, NUM_GOODS - 1)
        allow(BONUS_COIN_SIDE + v, 0, 1)
    allow(DISPLAY, -1, NUM_CARD_TYPES - 1, DISPLAY_SLOTS)
    allow(STACK, -1, NUM_CARD_TYPES - 1, NUM_SALE_CARDS)
    allow(STACK_SIZE, 0, NUM_SALE_CARDS)
    for p in range(n):
        b = player_base(p)
        allow(b + P_MONEY, 0, COUNTER_LIMIT)
        allow(b + P_GOODS, 0, STOREHOUSE_SLOTS, NUM_GOODS)
        allow(b + P_COLONISTS, LOC_STOREHOUSE, PATH_LOC_BASE + paths - 1, COLONISTS_PER_PLAYER)
        for field in (P_HAND, P_DISCARD):
            low[b + field : b + field + NUM_CARD_TYPES] = 0
            high[b + field : b + field + NUM_CARD_TYPES] = CARD_COPIES
        allow(b + P_DISCARD_TOP, -1, NUM_CARD_TYPES - 1)
        allow(b + P_INTERMEDIATE_VP, 0, COUNTER_LIMIT)
        allow(b + P_INTERMEDIATE_DONE, 0, 1)
    low.setflags(write=False)
    high.setflags(write=False)
    return low, high


@functools.cache
def colonist_spots(map_name: str) -> np.ndarray:
    """[kind, location + 1]: True where a colonist of that kind (0 land, 1 sea) may stand on this map.

    The storehouse; a place a path of its kind leaves (for sea colonists also a special
    square); a path of its kind. Location codes are shifted by one so the storehouse (-1)
    is column 0.
    """
    m = load(map_name)
    t = m.tables
    spots = np.zeros((2, 1 + PATH_LOC_BASE + MAX_PATHS), dtype=np.bool_)
    spots[:, 1 + LOC_STOREHOUSE] = True
    for kind in range(2):
        for c in range(len(m.places)):
            square = t[M_CITY_SPECIAL + c] == 1
            spots[kind, 1 + c] = bool(t[M_CITY_HAS_PATH + c * 2 + kind]) and (not square or kind == SEA)
        for q in range(len(m.paths)):
            spots[kind, 1 + PATH_LOC_BASE + q] = t[M_PATH_KIND + q] == kind
    spots.setflags(write=False)
    return spots


def field_name(index: int) -> str:
    """The layout name of one state entry, e.g. ``"PLAYERS[2].MONEY"`` or ``"DISPLAY[3]"``."""
    for name, offset, length, _ in STATE_LAYOUT.fields:
        if offset <= index < offset + length:
            if name != "PLAYERS":
                return name if length == 1 else f"{name}[{index - offset}]"
            p, rest = divmod(index - PLAYERS, PLAYER_SIZE)
            for pname, poffset, plength, _ in PLAYER_LAYOUT.fields:
                if poffset <= rest < poffset + plength:
                    return f"PLAYERS[{p}].{pname}" + (f"[{rest - poffset}]" if plength > 1 else "")
    return f"entry {index}"


def _fail(index: int, value: int, problem: str) -> ValueError:
    return ValueError(f"state {field_name(index)} (entry {index}) is {value}: {problem}")


# --------------------------------------------------------------------------- the check
def check_state(s: np.ndarray, m: Map) -> None:
    """Raise ``ValueError`` naming the first field of ``s`` out of its range for map ``m``.

    ``s`` is an int32 array of length ``STATE_SIZE`` (see :func:`as_state_array`).
    """
    map_id = int(s[MAP_ID])
    if map_id != m.map_id:
        shown = MAP_NAMES[map_id] if 0 <= map_id < len(MAP_NAMES) else "no map"
        raise _fail(MAP_ID, map_id, f"the state is for {shown}, not for the {m.name} map")
    check_bounds(s)
    _check_relations(s, m, int(s[NUM_PLAYERS]))


def check_bounds(s: np.ndarray) -> Map:
    """The map of state ``s`` (named by its ``MAP_ID``) once every field lies within its bounds; else ``ValueError``.

    The cheap half of :func:`check_state` (two comparisons of the whole array, a few
    microseconds): enough that no index compiled code reads from the state points outside
    its arrays. What it leaves out are the relations between fields (a card counted twice,
    a colonist on a path the rules forbid), which compiled code survives. The strategy
    core's entry points, which take raw arrays, check this much.
    """
    map_id = int(s[MAP_ID])
    if not 0 <= map_id < len(MAP_NAMES):
        raise _fail(MAP_ID, map_id, f"no map has this id (0..{len(MAP_NAMES) - 1})")
    m = load(MAP_NAMES[map_id])
    n = int(s[NUM_PLAYERS])
    if n not in m.players:
        raise _fail(NUM_PLAYERS, n, f"the {m.title} map is played by {', '.join(map(str, m.players))} players")
    low, high = field_bounds(m.name, n)
    out = (s < low) | (s > high)
    if out.any():
        i = int(np.flatnonzero(out)[0])
        lo, hi = int(low[i]), int(high[i])
        allowed = f"must be {lo}" if lo == hi else f"must be in {lo}..{hi}"
        raise _fail(i, int(s[i]), allowed + (" (an entry this map or player count does not use)" if lo == hi else ""))
    return m


def _check_relations(s: np.ndarray, m: Map, n: int) -> None:
    """The checks that relate fields to each other or to the map's tables."""
    phase = int(s[PHASE])
    if (int(s[CURRENT_PLAYER]) < 0) != (phase == PHASE_GAME_OVER):
        raise _fail(CURRENT_PLAYER, int(s[CURRENT_PLAYER]), "is -1 exactly when the game is over")
    if phase == PHASE_BONUS_GOOD and m.variable_bonus_province is None:
        raise _fail(PHASE, phase, f"the Gavdos bonus good is chosen on Creta only, not on {m.title}")
    if m.nile_route and m.province_names[int(s[NILE_MARKER])] not in m.nile_route:
        raise _fail(NILE_MARKER, int(s[NILE_MARKER]), "the Nile marker moves along the Nile provinces only")
    provinces = len(m.provinces)
    coin_without_marker = (s[BONUS_COIN_SIDE : BONUS_COIN_SIDE + provinces] == 1) & (
        s[BONUS_GOOD : BONUS_GOOD + provinces] < 0
    )
    if coin_without_marker.any():
        v = int(np.flatnonzero(coin_without_marker)[0])
        raise _fail(BONUS_COIN_SIDE + v, 1, "a province without a bonus marker shows no coin side")
    display = s[DISPLAY : DISPLAY + DISPLAY_SLOTS]
    if ((display >= 0) & (display < NUM_START_TYPES)).any():
        slot = int(np.flatnonzero((display >= 0) & (display < NUM_START_TYPES))[0])
        raise _fail(DISPLAY + slot, int(display[slot]), "the display holds cards for sale only")
    size = int(s[STACK_SIZE])
    stack = s[STACK : STACK + NUM_SALE_CARDS]
    if (stack[:size] < NUM_START_TYPES).any():
        i = int(np.flatnonzero(stack[:size] < NUM_START_TYPES)[0])
        raise _fail(STACK + i, int(stack[i]), f"the stack holds {size} cards for sale below entry {size}")
    if (stack[size:] != -1).any():
        i = size + int(np.flatnonzero(stack[size:] != -1)[0])
        raise _fail(STACK + i, int(stack[i]), f"the stack holds {size} cards, so entries from {size} on are -1")
    spots = colonist_spots(m.name)
    slot_kind = (np.arange(COLONISTS_PER_PLAYER) >= FIRST_SEA_SLOT).astype(np.intp)
    for p in range(n):
        b = player_base(p)
        where = s[b + P_COLONISTS : b + P_COLONISTS + COLONISTS_PER_PLAYER]
        ok = spots[slot_kind, where + 1]
        if not ok.all():
            slot = int(np.flatnonzero(~ok)[0])
            kind = "sea" if slot_kind[slot] else "land"
            raise _fail(b + P_COLONISTS + slot, int(where[slot]), f"no {kind} colonist can stand there on {m.title}")
        stored = int(s[b + P_GOODS : b + P_GOODS + NUM_GOODS].sum()) + int((where == LOC_STOREHOUSE).sum())
        if stored > STOREHOUSE_SLOTS:
            raise _fail(
                b + P_GOODS, int(s[b + P_GOODS]), f"goods and colonists fill more than {STOREHOUSE_SLOTS} slots"
            )
        top = int(s[b + P_DISCARD_TOP])
        if top >= 0 and s[b + P_DISCARD + top] < 1:
            raise _fail(b + P_DISCARD_TOP, top, "the top card of the discard pile is in the pile")


assert MAX_PROVINCES > 0 and MAX_PLAYERS * PLAYER_SIZE + PLAYERS == STATE_SIZE
