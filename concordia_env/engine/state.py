"""The layout of the game state: one flat int32 array, every field at a named offset.

A game is nothing but this array (plus the static map tables of :mod:`concordia_env.engine.maps`):
``clone`` is ``state.copy()``, a batch of games is a 2-D array with one state per row, and
the compiled rules in :mod:`concordia_env.engine.rules` are pure functions of it.

The state has a header (whose turn, the pending decision and its context), the board
(city goods, houses, bonus markers, display and stack) and one block per player
(money, goods, colonists, hand and discard counts). ``STATE_LAYOUT.table()`` prints the
whole layout; ``docs/state-layout.md`` is generated from it.

Encodings
---------
* goods: 0 brick, 1 food, 2 tool, 3 wine, 4 cloth (:mod:`concordia_env.engine.cards`);
* colonist location: ``LOC_STOREHOUSE`` (-1), a place id ``0..MAX_CITIES-1``, or
  ``MAX_CITIES + path id`` for a colonist on a path; colonist slots ``0..2`` hold land
  colonists and ``3..5`` sea colonists;
* card type counts per player for hand and discard (see :mod:`concordia_env.engine.cards`);
  the discard pile's order only matters through its top card, stored separately.
"""

from __future__ import annotations

from .cards import COLONISTS_PER_PLAYER, DISPLAY_SLOTS, LAND_COLONISTS, NUM_CARD_TYPES, NUM_GOODS, NUM_SALE_CARDS
from .layout import Layout
from .maps import MAX_CITIES, MAX_PATHS, MAX_PROVINCES

MAX_PLAYERS = 5
LOC_STOREHOUSE = -1
#: first location code of a path: location = PATH_LOC_BASE + path id
PATH_LOC_BASE = MAX_CITIES
FIRST_SEA_SLOT = LAND_COLONISTS
NO_PLAYER = -1
NO_CARD = -1

# --------------------------------------------------------------------------- phases
PHASE_NAMES: tuple[str, ...] = (
    "play a card",
    "Diplomat: choose whose card to copy",
    "Tribune: buy a colonist",
    "Architect: move colonists or build",
    "Architect: build houses",
    "Prefect: produce or cash bonus",
    "Prefect: choose the Gavdos bonus good",
    "storehouse full: choose a good to keep",
    "Mercator: trade",
    "buy cards from the display",
    "Colonist: settle or tax",
    "Colonist: settle more colonists",
    "game over",
)
NUM_PHASES = len(PHASE_NAMES)
(
    PHASE_PLAY_CARD,
    PHASE_DIPLOMAT,
    PHASE_TRIBUNE_COLONIST,
    PHASE_ARCHITECT_MOVE,
    PHASE_ARCHITECT_BUILD,
    PHASE_PREFECT,
    PHASE_BONUS_GOOD,
    PHASE_OVERFLOW,
    PHASE_MERCATOR,
    PHASE_BUY_CARDS,
    PHASE_COLONIST,
    PHASE_COLONIST_SETTLE,
    PHASE_GAME_OVER,
) = range(NUM_PHASES)

# --------------------------------------------------------------------------- header
_L = Layout()
MAP_ID = _L.field("MAP_ID", doc="index in maps.MAP_NAMES")
NUM_PLAYERS = _L.field("NUM_PLAYERS")
OPT_INTERMEDIATE = _L.field("OPT_INTERMEDIATE", doc="1: intermediate scoring variant (docs/rules.md §8)")
OPT_DISPLAY_COSTS = _L.field("OPT_DISPLAY_COSTS", doc="0 standard, 1 alternative display slot costs")
TURN_PLAYER = _L.field("TURN_PLAYER", doc="whose turn it is")
CURRENT_PLAYER = _L.field("CURRENT_PLAYER", doc="who takes the pending decision (overflow: maybe not the turn player)")
PHASE = _L.field("PHASE", doc="the pending decision, PHASE_*")
PLAYED_KIND = _L.field("PLAYED_KIND", doc="kind of the card played this turn, -1 before")
ACTION_KIND = _L.field("ACTION_KIND", doc="kind whose action is carried out (the copied one after a Diplomat)")
STEPS_LEFT = _L.field("STEPS_LEFT", doc="Architect movement steps not yet used")
TRADED_GOODS = _L.field("TRADED_GOODS", doc="Mercator: bit g set once good g was sold or bought")
BUYS_LEFT = _L.field("BUYS_LEFT", doc="Senator/Consul: cards that may still be bought")
SLOTS_BOUGHT = _L.field("SLOTS_BOUGHT", doc="Senator/Consul: bit s set once slot s was bought from")
PRAEFECTUS_MAGNUS = _L.field("PRAEFECTUS_MAGNUS", doc="holder of the Praefectus Magnus")
PM_PASS_PENDING = _L.field("PM_PASS_PENDING", doc="1: the holder produced, pass it right at the end of the turn")
CONCORDIA_HOLDER = _L.field("CONCORDIA_HOLDER", doc="who took the Concordia card, -1")
FINAL_TURNS_LEFT = _L.field("FINAL_TURNS_LEFT", doc="turn ends left before scoring, -1 before the end trigger")
TURN_COUNT = _L.field("TURN_COUNT", doc="turns completed")
DECISION_COUNT = _L.field("DECISION_COUNT", doc="actions taken")
INCOMING = _L.field("INCOMING", MAX_PLAYERS * NUM_GOODS, doc="[player, good] goods produced, not yet stored")
NILE_MARKER = _L.field("NILE_MARKER", doc="province holding the Nile food marker (Aegyptus), -1")
INTERMEDIATE_PAID = _L.field("INTERMEDIATE_PAID", doc="1 once the intermediate scoring has paid out")

# --------------------------------------------------------------------------- board
CITY_GOOD = _L.field("CITY_GOOD", MAX_CITIES, doc="good of each place's city token, -1 capital/square")
HOUSES = _L.field("HOUSES", MAX_PLAYERS * MAX_CITIES, doc="[player, place] 1 if the player has a house there")
BONUS_GOOD = _L.field("BONUS_GOOD", MAX_PROVINCES, doc="good of each province's bonus marker, -1 none (Gavdos)")
BONUS_COIN_SIDE = _L.field("BONUS_COIN_SIDE", MAX_PROVINCES, doc="1 coin side up, 0 goods side up")
DISPLAY = _L.field("DISPLAY", DISPLAY_SLOTS, doc="card type in each display slot, -1 empty")
STACK = _L.field("STACK", NUM_SALE_CARDS, doc="the stack, bottom first: the top card is STACK[STACK_SIZE-1]")
STACK_SIZE = _L.field("STACK_SIZE", doc="cards left in the stack (entries beyond are -1)")

# --------------------------------------------------------------------------- players
_P = Layout()
P_MONEY = _P.field("MONEY")
P_GOODS = _P.field("GOODS", NUM_GOODS)
P_COLONISTS = _P.field("COLONISTS", COLONISTS_PER_PLAYER, doc="location of each colonist (land 0-2, sea 3-5)")
P_HAND = _P.field("HAND", NUM_CARD_TYPES, doc="cards in hand per card type")
P_DISCARD = _P.field("DISCARD", NUM_CARD_TYPES, doc="cards in the discard pile per card type")
P_DISCARD_TOP = _P.field("DISCARD_TOP", doc="card type on top of the discard pile, -1 empty")
P_INTERMEDIATE_VP = _P.field("INTERMEDIATE_VP", doc="VP marker of the intermediate scoring")
P_INTERMEDIATE_DONE = _P.field("INTERMEDIATE_DONE", doc="1 once the player scored at the first Tribune")
PLAYER_SIZE = _P.size
PLAYER_LAYOUT = _P

PLAYERS = _L.field("PLAYERS", MAX_PLAYERS * PLAYER_SIZE, doc="one block of PLAYER_SIZE per player")
STATE_SIZE = _L.size
STATE_LAYOUT = _L


def player_base(p: int) -> int:
    """Offset of player ``p``'s block (pure arithmetic, also used inside compiled code)."""
    return PLAYERS + p * PLAYER_SIZE


def house_index(p: int, city: int) -> int:
    return HOUSES + p * MAX_CITIES + city


def path_location(path: int) -> int:
    return PATH_LOC_BASE + path


def describe_layout() -> str:
    """The whole state layout as Markdown (header and board, then one player block)."""
    return (
        f"## State (int32, length {STATE_SIZE})\n\n{STATE_LAYOUT.table()}\n\n"
        f"## Player block (length {PLAYER_SIZE}, at PLAYERS + p * {PLAYER_SIZE})\n\n{PLAYER_LAYOUT.table()}\n"
    )


assert MAX_PATHS > 0
