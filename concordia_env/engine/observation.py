"""The observation: one flat float32 vector of fixed length ``OBS_SIZE`` for every map and player count.

``observe(game, player)`` (what :meth:`Game.observation` returns) shows the position from
``player``'s point of view; ``observe_batch`` does the same for a 2-D array of states, one
observer per row (used by :class:`~concordia_env.envs.vector_game.VectorGame`). Both are compiled with
numba and read nothing but the state array and the map tables.

Design
------
* **Fixed size.** Every per-place, per-path and per-province field is sized with
  ``MAX_CITIES``, ``MAX_PATHS`` and ``MAX_PROVINCES`` (like the action space), and there
  are ``MAX_PLAYERS`` player blocks; entries a board or player count does not use are 0.
  One-hots of the map and of the player count tell a network which entries are in use.
* **Rotated seats.** Player block ``k`` belongs to the player ``k`` seats to the left of
  the observer: relative seat ``k`` is player ``(observer + k) % num_players``, so block 0
  is always the observer's own. Seats that a smaller game does not have are all zeros
  (``PRESENT`` is 0). Seat references in the header (whose turn it is, who decides) use the
  same relative numbering, which is also the numbering of the Diplomat actions.
* **Public information only.** Concordia has almost no hidden information: hands are
  built from public purchases and public plays, so every player's hand and discard counts
  are shown. The one secret is the order of the stack; the observation shows which cards
  are still in it (deducible from what has been seen) and how many, never the order, so
  two positions that differ only in stack order give the same observation.
* **Scaling.** Counts are divided by a natural maximum (money by 50, goods by the 12
  storehouse slots, ...) so values lie roughly in [0, 1]; one-hots and flags are 0/1. The
  fields whose value the rules do not bound (money, VP, turns played) can exceed 1:
  ``OBS_HIGH`` holds each entry's upper bound, ``OBS_LOW`` is 0. Every bound is finite:
  for those fields it is what a state array may hold (``state_check.COUNTER_LIMIT`` for
  money, turns and the intermediate VP marker; the VP of each god from its cards' most
  copies and caps), so the Box spaces hold the observation of any state ``Game`` accepts
  and Gymnasium's ``check_env`` finds no infinite bound.

Versions
--------
The layout only ever grows at the end: a version's observation is exactly the first
``OBS_SIZES[version]`` entries of every later version's, so the fields of an older version
keep their offsets, and ``observe(game, p, version=0)`` is ``observe(game, p)[:OBS_SIZE_V0]``.

| version | length | change |
| --- | ---: | --- |
| 0 | ``OBS_SIZE_V0`` | the original layout (header, board, one block per player) |
| 1 (current) | ``OBS_SIZE_V1`` | ``COLONIST_SLOTS`` appended: where each of the observer's colonist slots stands |

Why v1: a MOVE action names a colonist *slot* (``A_MOVE + slot * MAX_PATHS + path``), and v0
only counts colonists per place and kind, so it cannot tell which colonist a MOVE moves.

``OBS_SIZE`` is the current version's length; ``Game.observation(p)`` and the environments'
default ``observation_version`` give the current version.

Every field (name, offset, length, meaning, scaling and the version that added it) is listed
in ``docs/observation.md``, generated from the layout by :func:`describe_observation`
(``python -m concordia_env.tools.docgen``; a test keeps it current).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .cards import (
    CARD_COST,
    CARD_GOD,
    CARD_KIND,
    COLONISTS_PER_PLAYER,
    CONCORDIA_VP,
    DISPLAY_SLOTS,
    DISPLAY_VARIANTS,
    GOD_SALE_TYPES,
    GOD_START_TYPES,
    GOOD_PRICE,
    HOUSES_PER_PLAYER,
    JUPITER,
    JUPITER_CAP,
    KIND_MINERVA_VP,
    KIND_SALE_TYPES,
    KIND_START_TYPE,
    LAND_COLONISTS,
    MARS,
    MARS_CAP,
    MERCURIUS,
    MERCURIUS_CAP,
    MINERVA,
    NUM_CARD_TYPES,
    NUM_GODS,
    NUM_GOODS,
    NUM_KINDS,
    NUM_SALE_CARDS,
    NUM_START_TYPES,
    SALE_TYPES,
    SATURNUS,
    SATURNUS_VP,
    SEA_COLONISTS,
    SLOT_ANY_COST,
    SLOT_FIXED_COST,
    SPECIAL_SQUARE_VP,
    START_HAND_COUNTS,
    STOREHOUSE_SLOTS,
    VESTA,
    VESTA_SESTERTII_PER_VP,
)
from .errors import ArgumentTypeError, seat_argument
from .layout import Layout
from .maps import M_NUM_CITIES, M_NUM_PROVINCES, MAP_NAMES, MAX_PATHS, MAX_PROVINCES, Map, load
from .rules import njit, njit_borrowing, njit_holding_gil
from .rules.entry_points import cache_busy
from .rules.scoring import (
    CONCORDIA_PART,
    NUM_SCORE_PARTS,
    SPECIAL_PART,
    SPECIALIST_TYPES,
    colonists_on_squares,
    god_cards,
    score_parts_of,
    score_totals,
    tally_of_places,
    wealth,
)
from .rules.state_helpers import colonists_on_board, count_bits, free_slots, pbase, slot_kind
from .state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    BUYS_LEFT,
    CITY_GOOD,
    CONCORDIA_HOLDER,
    CURRENT_PLAYER,
    DISPLAY,
    FINAL_TURNS_LEFT,
    FIRST_SEA_SLOT,
    HOUSES,
    INCOMING,
    INTERMEDIATE_PAID,
    LOC_STOREHOUSE,
    MAP_ID,
    MAX_CITIES,
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
    PLAYED_KIND,
    PM_PASS_PENDING,
    PRAEFECTUS_MAGNUS,
    SLOTS_BOUGHT,
    STACK,
    STACK_SIZE,
    STATE_SIZE,
    STEPS_LEFT,
    TRADED_GOODS,
    TURN_COUNT,
    TURN_PLAYER,
)
from .state_check import CARD_COPIES, COUNTER_LIMIT, MAX_INCOMING, as_state_array, check_state, compiled_state


class Observable(Protocol):
    """What an observation reads of a game: its state array and its map (a :class:`~concordia_env.Game` is one).

    A protocol, not an import of ``Game``: ``game.py`` builds on this module, and the
    package graph has no cycles (``tests/test_layering.py``).
    """

    @property
    def state(self) -> np.ndarray: ...

    @property
    def map(self) -> Map: ...


MIN_PLAYERS = 2
NUM_MAPS = len(MAP_NAMES)

# --------------------------------------------------------------------------- scales
MONEY_SCALE = 50.0
GOODS_SCALE = float(STOREHOUSE_SLOTS)
COLONIST_KIND_SCALE = float(max(LAND_COLONISTS, SEA_COLONISTS))
STEPS_SCALE = float(COLONISTS_PER_PLAYER)
BUYS_SCALE = 2.0  # the Senator buys up to two cards
SLOT_COST_SCALE = float(SLOT_FIXED_COST.max())
TURN_SCALE = 100.0
SCORE_PART_SCALE = 50.0
SCORE_TOTAL_SCALE = 100.0
#: the most cards of each kind / god one player can own: all copies of it in the game
#: (starting cards count with their multiplicity, every sale card is one physical card)
_COPIES = np.where(np.arange(NUM_CARD_TYPES) < NUM_START_TYPES, START_HAND_COUNTS, 1)
KIND_MAX = np.bincount(CARD_KIND, weights=_COPIES, minlength=NUM_KINDS).astype(np.float32)
GOD_MAX = np.bincount(CARD_GOD, weights=_COPIES, minlength=NUM_GODS).astype(np.float32)


# --------------------------------------------------------------------------- bounds of the fields the rules leave open
def _upper(value: float | np.ndarray) -> np.ndarray:
    """``value`` as float32, one ulp up: above what the compiled fill can round a value at the bound to."""
    return np.nextafter(np.float32(value), np.float32(np.inf)).astype(np.float32)


def _score_part_max() -> np.ndarray:
    """The most VP of each score category in any state ``check_state`` accepts (its counters included).

    A god's VP is its cards owned times what one card is worth (``rules.scoring.score_parts_of``);
    a state may hold a type's copies both in the hand and in the discard pile, so twice them.
    """
    owned = 2 * np.bincount(CARD_GOD, weights=CARD_COPIES, minlength=NUM_GODS)
    riches = COUNTER_LIMIT + STOREHOUSE_SLOTS * int(GOOD_PRICE.sum())
    most = np.zeros(NUM_SCORE_PARTS, dtype=np.float64)
    most[VESTA] = owned[VESTA] * (riches // VESTA_SESTERTII_PER_VP)
    most[JUPITER] = owned[JUPITER] * JUPITER_CAP
    most[SATURNUS] = owned[SATURNUS] * SATURNUS_VP * MAX_PROVINCES
    most[MERCURIUS] = owned[MERCURIUS] * MERCURIUS_CAP
    most[MARS] = owned[MARS] * MARS_CAP
    most[MINERVA] = 2 * sum(int(KIND_MINERVA_VP[CARD_KIND[t]]) for t in SPECIALIST_TYPES) * MAX_CITIES
    most[SPECIAL_PART] = SPECIAL_SQUARE_VP * COLONISTS_PER_PLAYER
    most[CONCORDIA_PART] = CONCORDIA_VP
    return most


#: the most VP of each score category, and of their total
SCORE_PART_MAX = _score_part_max()
SCORE_TOTAL_MAX = float(SCORE_PART_MAX.sum())


class ObsLayout(Layout):
    """A :class:`Layout` whose fields also record their scaling and upper bound (for docs and ``OBS_HIGH``)."""

    def __init__(self) -> None:
        super().__init__()
        self.scales: dict[str, str] = {}
        self.highs: dict[str, float | np.ndarray] = {}
        self.versions: dict[str, int] = {}

    def field(
        self,
        name: str,
        length: int = 1,
        doc: str = "",
        scale: str = "0/1",
        high: float | np.ndarray = 1.0,
        version: int = 0,
    ) -> int:
        """Reserve ``length`` entries; ``scale`` says how values are scaled, ``high`` bounds them (one or per entry).

        ``version`` is the observation version that added the field; fields are only ever
        appended, so a version can never come before an older one.
        """
        if self.versions and version < max(self.versions.values()):
            raise ValueError(f"{name}: a field of version {version} cannot follow one of a later version")
        self.scales[name] = scale
        self.highs[name] = high
        self.versions[name] = version
        return super().field(name, length, doc)

    def table(self) -> str:
        rows = ["| field | offset | length | meaning | scaling | version |", "| --- | ---: | ---: | --- | --- | ---: |"]
        rows += [f"| `{n}` | {o} | {ln} | {d} | {self.scales[n]} | {self.versions[n]} |" for n, o, ln, d in self.fields]
        return "\n".join(rows)

    def high_array(self) -> np.ndarray:
        high = np.zeros(self.size, dtype=np.float32)
        for name, offset, length, _ in self.fields:
            high[offset : offset + length] = self.highs[name]
        return high


# --------------------------------------------------------------------------- header
_O = ObsLayout()
O_PLAYER_COUNT = _O.field("PLAYER_COUNT", MAX_PLAYERS - MIN_PLAYERS + 1, doc="one-hot of the player count 2..5")
O_MAP = _O.field("MAP", NUM_MAPS, doc="one-hot of the map, in `maps.MAP_NAMES` order")
O_OPT_INTERMEDIATE = _O.field("OPT_INTERMEDIATE", doc="1: intermediate scoring variant")
O_OPT_DISPLAY_COSTS = _O.field("OPT_DISPLAY_COSTS", doc="1: alternative display slot costs")
O_PHASE = _O.field("PHASE", NUM_PHASES, doc="one-hot of the pending decision (`state.PHASE_NAMES`)")
O_OBSERVER_DECIDES = _O.field("OBSERVER_DECIDES", doc="1 if the observer takes the pending decision")
O_DECIDER_SEAT = _O.field("DECIDER_SEAT", MAX_PLAYERS, doc="one-hot relative seat of the deciding player")
O_TURN_SEAT = _O.field("TURN_SEAT", MAX_PLAYERS, doc="one-hot relative seat of the player whose turn it is")
O_PLAYED_KIND = _O.field("PLAYED_KIND", NUM_KINDS, doc="one-hot kind of the card played this turn")
O_ACTION_KIND = _O.field("ACTION_KIND", NUM_KINDS, doc="one-hot kind whose action is carried out (a Diplomat's copy)")
O_STEPS_LEFT = _O.field("STEPS_LEFT", doc="Architect movement steps left", scale=f"÷{STEPS_SCALE:g}")
O_TRADED_GOODS = _O.field("TRADED_GOODS", NUM_GOODS, doc="Mercator: 1 for each good already traded")
O_BUYS_LEFT = _O.field("BUYS_LEFT", doc="Senator/Consul: cards that may still be bought", scale=f"÷{BUYS_SCALE:g}")
O_SLOTS_BOUGHT = _O.field("SLOTS_BOUGHT", DISPLAY_SLOTS, doc="Senator/Consul: 1 for each slot bought from")
O_INCOMING = _O.field(
    "INCOMING",
    MAX_PLAYERS * NUM_GOODS,
    doc="[relative seat, good] produced goods waiting for a storehouse-overflow choice",
    scale=f"÷{GOODS_SCALE:g}",
    high=_upper(MAX_INCOMING / GOODS_SCALE),
)
O_PM_PASS_PENDING = _O.field("PM_PASS_PENDING", doc="1: the Praefectus Magnus passes on at the end of this turn")
O_END_TRIGGERED = _O.field("END_TRIGGERED", doc="1 once the Concordia card is taken (final round)")
O_FINAL_TURNS_LEFT = _O.field(
    "FINAL_TURNS_LEFT",
    doc="turn ends left before the final scoring (0 before the trigger)",
    scale=f"÷{MAX_PLAYERS}",
)
O_TURN_COUNT = _O.field(
    "TURN_COUNT", doc="turns played", scale=f"÷{TURN_SCALE:g}", high=_upper(COUNTER_LIMIT / TURN_SCALE)
)
O_INTERMEDIATE_PAID = _O.field("INTERMEDIATE_PAID", doc="1 once the intermediate scoring has paid out")

# --------------------------------------------------------------------------- board
O_CITY_GOOD = _O.field("CITY_GOOD", MAX_CITIES * NUM_GOODS, doc="[place, good] one-hot good of each city token")
O_CITY_HOUSES = _O.field(
    "CITY_HOUSES", MAX_CITIES, doc="houses in each place, all players together", scale=f"÷{MAX_PLAYERS}"
)
O_BONUS_GOOD = _O.field("BONUS_GOOD", MAX_PROVINCES * NUM_GOODS, doc="[province, good] one-hot bonus marker good")
O_BONUS_COIN_SIDE = _O.field("BONUS_COIN_SIDE", MAX_PROVINCES, doc="1: the province's bonus marker shows its coin side")
O_NILE = _O.field("NILE", MAX_PROVINCES, doc="one-hot province holding the Nile food marker (Aegyptus)")
O_DISPLAY_KIND = _O.field("DISPLAY_KIND", DISPLAY_SLOTS * NUM_KINDS, doc="[slot, kind] one-hot display card kind")
O_DISPLAY_GOD = _O.field("DISPLAY_GOD", DISPLAY_SLOTS * NUM_GODS, doc="[slot, god] one-hot god of each display card")
O_DISPLAY_COST = _O.field(
    "DISPLAY_COST", DISPLAY_SLOTS * NUM_GOODS, doc="[slot, good] the display card's own cost", scale="units"
)
O_SLOT_COST = _O.field(
    "SLOT_COST",
    DISPLAY_SLOTS * NUM_GOODS,
    doc="[slot, good] the slot's fixed cost",
    scale=f"÷{SLOT_COST_SCALE:g}",
)
O_SLOT_ANY = _O.field("SLOT_ANY", DISPLAY_SLOTS, doc="the slot's extra 'any good' units", scale="units")
O_STACK_CARDS = _O.field(
    "STACK_CARDS", NUM_SALE_CARDS, doc="1 for each sale card (type 6 + i) still in the stack; order hidden"
)
O_STACK_SIZE = _O.field("STACK_SIZE", doc="cards left in the stack", scale=f"÷{NUM_SALE_CARDS}")

# --------------------------------------------------------------------------- players
_Q = ObsLayout()
Q_PRESENT = _Q.field("PRESENT", doc="1 if this seat is in the game")
Q_MONEY = _Q.field("MONEY", doc="sestertii", scale=f"÷{MONEY_SCALE:g}", high=_upper(COUNTER_LIMIT / MONEY_SCALE))
Q_GOODS = _Q.field("GOODS", NUM_GOODS, doc="goods in the storehouse", scale=f"÷{GOODS_SCALE:g}")
Q_FREE_SLOTS = _Q.field("FREE_SLOTS", doc="free storehouse slots", scale=f"÷{GOODS_SCALE:g}")
Q_COLONISTS_STOREHOUSE = _Q.field(
    "COLONISTS_STOREHOUSE", 2, doc="[kind] land / sea colonists in the storehouse", scale=f"÷{COLONIST_KIND_SCALE:g}"
)
Q_COLONISTS_PLACE = _Q.field(
    "COLONISTS_PLACE",
    MAX_CITIES * 2,
    doc="[place, kind] land / sea colonists in each place (capital, special squares)",
    scale=f"÷{COLONIST_KIND_SCALE:g}",
)
Q_COLONISTS_PATH = _Q.field(
    "COLONISTS_PATH",
    MAX_PATHS,
    doc="colonists on each path (a path's kind is fixed by the map)",
    scale=f"÷{COLONIST_KIND_SCALE:g}",
)
Q_HOUSES = _Q.field("HOUSES", MAX_CITIES, doc="1 for each place with the player's house")
Q_HOUSE_COUNT = _Q.field("HOUSE_COUNT", doc="houses built", scale=f"÷{HOUSES_PER_PLAYER}")
Q_HAND = _Q.field("HAND", NUM_KINDS, doc="cards in hand per kind", scale="÷ copies of the kind in the game")
Q_DISCARD = _Q.field("DISCARD", NUM_KINDS, doc="cards in the discard pile per kind", scale="÷ copies of the kind")
Q_DISCARD_TOP = _Q.field("DISCARD_TOP", NUM_KINDS, doc="one-hot kind of the discard pile's top card")
Q_GOD_CARDS = _Q.field("GOD_CARDS", NUM_GODS, doc="cards owned (hand + discard) per god", scale="÷ cards of the god")
Q_PRAEFECTUS_MAGNUS = _Q.field("PRAEFECTUS_MAGNUS", doc="1 if the player holds the Praefectus Magnus")
Q_CONCORDIA = _Q.field("CONCORDIA", doc="1 if the player took the Concordia card")
Q_SCORE_PARTS = _Q.field(
    "SCORE_PARTS",
    NUM_SCORE_PARTS,
    doc="VP as if the game ended now: six gods, special squares, Concordia",
    scale=f"÷{SCORE_PART_SCALE:g}",
    high=_upper(SCORE_PART_MAX / SCORE_PART_SCALE),
)
Q_SCORE_TOTAL = _Q.field(
    "SCORE_TOTAL",
    doc="total VP as if the game ended now",
    scale=f"÷{SCORE_TOTAL_SCALE:g}",
    high=_upper(SCORE_TOTAL_MAX / SCORE_TOTAL_SCALE),
)
Q_INTERMEDIATE_VP = _Q.field(
    "INTERMEDIATE_VP",
    doc="VP marker of the intermediate scoring",
    scale=f"÷{SCORE_TOTAL_SCALE:g}",
    high=_upper(COUNTER_LIMIT / SCORE_TOTAL_SCALE),
)
Q_INTERMEDIATE_DONE = _Q.field("INTERMEDIATE_DONE", doc="1 once the player scored at the first Tribune")
PLAYER_OBS_SIZE = _Q.size
PLAYER_OBS_LAYOUT = _Q

O_PLAYERS = _O.field(
    "PLAYERS",
    MAX_PLAYERS * PLAYER_OBS_SIZE,
    doc=f"one block of {PLAYER_OBS_SIZE} per relative seat (0 = observer)",
    scale="see below",
    high=0.0,  # each block's bounds are the player layout's (OBS_HIGH below)
)
OBS_SIZE_V0 = _O.size

# --------------------------------------------------------------------------- v1: the observer's colonist slots
#: locations of one colonist slot in COLONIST_SLOTS: the state's location code + 1, i.e.
#: 0 the storehouse, 1 + c place c, 1 + MAX_CITIES + path the path
SLOT_LOCATIONS = 1 + PATH_LOC_BASE + MAX_PATHS
O_COLONIST_SLOTS = _O.field(
    "COLONIST_SLOTS",
    COLONISTS_PER_PLAYER * SLOT_LOCATIONS,
    doc=(
        f"[slot, location] the observer's colonist slot i (land 0-{FIRST_SEA_SLOT - 1}, "
        f"sea {FIRST_SEA_SLOT}-{COLONISTS_PER_PLAYER - 1}; the slot of MOVE actions) one-hot where it stands: "
        f"0 storehouse, 1 + c place c, {1 + PATH_LOC_BASE} + p path p"
    ),
    version=1,
)
OBS_SIZE_V1 = _O.size

#: observation length of each version (see "Versions" above); OBS_SIZE is the current one
OBS_SIZES: dict[int, int] = {0: OBS_SIZE_V0, 1: OBS_SIZE_V1}
OBSERVATION_VERSIONS: tuple[int, ...] = tuple(OBS_SIZES)
OBSERVATION_VERSION = max(OBSERVATION_VERSIONS)
OBS_SIZE = OBS_SIZES[OBSERVATION_VERSION]
OBS_LAYOUT = _O

#: per-entry bounds of the current observation (for the Box spaces): 0 below, 1 or the field's bound above;
#: an older version's bounds are the first OBS_SIZES[version] entries (:func:`observation_bounds`)
OBS_LOW = np.zeros(OBS_SIZE, dtype=np.float32)
OBS_HIGH = _O.high_array()
for _k in range(MAX_PLAYERS):
    _start = O_PLAYERS + _k * PLAYER_OBS_SIZE
    OBS_HIGH[_start : _start + PLAYER_OBS_SIZE] = _Q.high_array()


def check_observation_version(version: int) -> int:
    """``version`` as an int if it is one of OBSERVATION_VERSIONS, else ValueError (TypeError for a non-int)."""
    if isinstance(version, (bool, np.bool_)) or not isinstance(version, (int, np.integer)):
        raise TypeError(f"observation_version must be an int in {OBSERVATION_VERSIONS}; got {version!r}")
    if int(version) not in OBS_SIZES:
        raise ValueError(f"observation_version must be one of {OBSERVATION_VERSIONS}; got {version!r}")
    return int(version)


def observation_bounds(version: int = OBSERVATION_VERSION) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of one version's observation, float32 arrays of length OBS_SIZES[version]."""
    size = OBS_SIZES[check_observation_version(version)]
    return OBS_LOW[:size].copy(), OBS_HIGH[:size].copy()


# --------------------------------------------------------------------------- compiled fill
# An observation is written for every row of every batched step, so this code is tuned for
# speed (the functions say how). It writes the same bits as the former, plainer code, kept
# in tests/reference/observation.py; tests/test_observation_speed_equivalence.py compares
# the two on every map, player count, observer and version.


def _add_share(total: np.float32, count: int, scale: float) -> np.float32:
    """``total + count / scale`` as compiled code adds a term to a float32 entry (``o[i] += count / scale``).

    The quotient and the sum in float64, the sum rounded back to float32.
    """
    return np.float32(np.float64(total) + np.float64(count) / np.float64(scale))


def _running_sums(first: list[int], sale_cards: int, scale: float) -> list[np.float32]:
    """[k]: the float32 entry that adds up ``count / scale`` for the counts ``first``, then for k counts of 1.

    A float32 sum depends on its order: this is the order in which the entries were always
    summed, card type by card type, the starting cards first, then the sale cards (one
    card each).
    """
    total = np.float32(0.0)
    for count in first:
        total = _add_share(total, count, scale)
    sums = [total]
    for _ in range(sale_cards):
        total = _add_share(total, 1, scale)
        sums.append(total)
    return sums


_MOST_COPIES = int(CARD_COPIES.max())
_MOST_OWNED = 2 * _MOST_COPIES  # check_state: up to CARD_COPIES in a hand and as many in the discard pile
_MOST_KIND_SALE = max(bin(int(bits)).count("1") for bits in KIND_SALE_TYPES)
_MOST_GOD_SALE = max(bin(int(bits)).count("1") for bits in GOD_SALE_TYPES)
#: [kind, n, k]: HAND (or DISCARD) of a kind when a player has n of the kind's starting
#: card (KIND_START_TYPE) and k of its sale cards there: the sum of the former per-type terms,
#: looked up instead of a division and an addition for every card type the player owns
KIND_SHARES = np.array(
    [
        [_running_sums([n], _MOST_KIND_SALE, KIND_MAX[kind]) for n in range(_MOST_COPIES + 1)]
        for kind in range(NUM_KINDS)
    ],
    dtype=np.float32,
)
#: [god, a, b, k]: GOD_CARDS of a god when a player owns a and b of its two starting card
#: types (GOD_START_TYPES; 0 for a missing one) and k of its sale cards (each once)
GOD_SHARES = np.array(
    [
        [
            [_running_sums([a, b], _MOST_GOD_SALE, GOD_MAX[god]) for b in range(_MOST_OWNED + 1)]
            for a in range(_MOST_OWNED + 1)
        ]
        for god in range(NUM_GODS)
    ],
    dtype=np.float32,
)
#: [variant, slot * NUM_GOODS + good]: the SLOT_COST entries of each display cost variant
SLOT_COST_ROWS = (SLOT_FIXED_COST / SLOT_COST_SCALE).astype(np.float32).reshape(len(DISPLAY_VARIANTS), -1)


@njit_borrowing
def _scaled(value, scale):
    """The integer ``value`` divided by ``scale``, as a product with the reciprocal (which LLVM computes once).

    Why: an observation scales about a hundred counts, and a division costs several
    products. It rounds to the same float32 as the quotient: both float64 results lie within
    an ulp of the true quotient, which for an integer is never that close to a point where
    float32 rounding changes, unless it lies on one; that takes a value of at least 2**24
    times the odd part of ``scale`` (2**24 * 25 for money), far above what a checked state
    holds. ``tests/test_observation_speed_equivalence.py`` checks every scale over its range.
    """
    return value * (1.0 / scale)


@njit_borrowing
def _one_hot(out, offset, index):
    """Set out[offset + index] to 1 unless index is negative (the "none" code)."""
    if index >= 0:
        out[offset + index] = 1.0


@njit_borrowing
def _bits(out, offset, value, count):
    for i in range(count):
        out[offset + i] = (value >> i) & 1


@njit_borrowing
def _fill_header(s, p, out):
    n = s[NUM_PLAYERS]
    _one_hot(out, O_PLAYER_COUNT, n - MIN_PLAYERS)
    _one_hot(out, O_MAP, s[MAP_ID])
    out[O_OPT_INTERMEDIATE] = s[OPT_INTERMEDIATE]
    out[O_OPT_DISPLAY_COSTS] = s[OPT_DISPLAY_COSTS]
    _one_hot(out, O_PHASE, s[PHASE])
    decider = s[CURRENT_PLAYER]
    if decider >= 0:
        out[O_OBSERVER_DECIDES] = 1.0 if decider == p else 0.0
        _one_hot(out, O_DECIDER_SEAT, (decider - p) % n)
    _one_hot(out, O_TURN_SEAT, (s[TURN_PLAYER] - p) % n)
    _one_hot(out, O_PLAYED_KIND, s[PLAYED_KIND])
    _one_hot(out, O_ACTION_KIND, s[ACTION_KIND])
    out[O_STEPS_LEFT] = _scaled(s[STEPS_LEFT], STEPS_SCALE)
    _bits(out, O_TRADED_GOODS, s[TRADED_GOODS], NUM_GOODS)
    out[O_BUYS_LEFT] = _scaled(s[BUYS_LEFT], BUYS_SCALE)
    _bits(out, O_SLOTS_BOUGHT, s[SLOTS_BOUGHT], DISPLAY_SLOTS)
    for k in range(n):
        q = (p + k) % n
        for g in range(NUM_GOODS):
            out[O_INCOMING + k * NUM_GOODS + g] = _scaled(s[INCOMING + q * NUM_GOODS + g], GOODS_SCALE)
    out[O_PM_PASS_PENDING] = s[PM_PASS_PENDING]
    if s[FINAL_TURNS_LEFT] >= 0:
        out[O_END_TRIGGERED] = 1.0
        out[O_FINAL_TURNS_LEFT] = _scaled(s[FINAL_TURNS_LEFT], MAX_PLAYERS)
    out[O_TURN_COUNT] = _scaled(s[TURN_COUNT], TURN_SCALE)
    out[O_INTERMEDIATE_PAID] = s[INTERMEDIATE_PAID]


@njit_borrowing
def _fill_city_houses(s, m, out):
    """The houses in each place, all players together: each player's row of houses added up.

    Over views (see ``rules.scoring.card_bits``), row by row, so that LLVM vectorizes the
    sums; the float32 sums are exact (small integers) and are then scaled.
    """
    places = m[M_NUM_CITIES]
    city_houses = out[O_CITY_HOUSES : O_CITY_HOUSES + MAX_CITIES]
    for q in range(s[NUM_PLAYERS]):
        start = HOUSES + q * MAX_CITIES
        houses = s[start : start + MAX_CITIES]
        for c in range(places):
            city_houses[c] += houses[c]
    for c in range(places):
        city_houses[c] = _scaled(city_houses[c], MAX_PLAYERS)


@njit_borrowing
def _fill_board(s, m, out):
    for c in range(m[M_NUM_CITIES]):
        _one_hot(out, O_CITY_GOOD + c * NUM_GOODS, s[CITY_GOOD + c])
    _fill_city_houses(s, m, out)
    for v in range(m[M_NUM_PROVINCES]):
        _one_hot(out, O_BONUS_GOOD + v * NUM_GOODS, s[BONUS_GOOD + v])
        out[O_BONUS_COIN_SIDE + v] = s[BONUS_COIN_SIDE + v]
    _one_hot(out, O_NILE, s[NILE_MARKER])
    table = s[OPT_DISPLAY_COSTS]
    for i in range(DISPLAY_SLOTS * NUM_GOODS):
        out[O_SLOT_COST + i] = SLOT_COST_ROWS[table, i]
    for slot in range(DISPLAY_SLOTS):
        out[O_SLOT_ANY + slot] = SLOT_ANY_COST[table, slot]
        card = s[DISPLAY + slot]
        if card < 0:
            continue
        out[O_DISPLAY_KIND + slot * NUM_KINDS + CARD_KIND[card]] = 1.0
        out[O_DISPLAY_GOD + slot * NUM_GODS + CARD_GOD[card]] = 1.0
        for g in range(NUM_GOODS):
            out[O_DISPLAY_COST + slot * NUM_GOODS + g] = CARD_COST[card, g]
    size = s[STACK_SIZE]
    for i in range(size):  # a set, not a sequence: the order is not observable
        out[O_STACK_CARDS + s[STACK + i] - NUM_START_TYPES] = 1.0
    out[O_STACK_SIZE] = _scaled(size, NUM_SALE_CARDS)


@njit_borrowing
def _colonist_column(kind, loc):
    """The player-block entry that counts a colonist of ``kind`` (0 land, 1 sea) standing at location ``loc``."""
    if loc == LOC_STOREHOUSE:
        return Q_COLONISTS_STOREHOUSE + kind
    if loc < PATH_LOC_BASE:
        return Q_COLONISTS_PLACE + loc * 2 + kind
    return Q_COLONISTS_PATH + loc - PATH_LOC_BASE


@njit_borrowing
def _fill_player(s, m, q, o, parts):
    """Player q's block into ``o`` (a view of the output at the block's offset); ``parts`` is scratch.

    One function for the block, in sections: LLVM inlines small functions only, numba
    passes each array to one that is not inlined as seven words, and smaller functions
    would read the same fields again (splitting off the card shares made the observation
    5-10% slower). What the block shows of the houses and the cards is also what the scoring
    counts: their tally and bit sets go on to ``rules.scoring.score_parts_of``.
    """
    b = pbase(q)
    # the storehouse and the colonists
    o[Q_PRESENT] = 1.0
    o[Q_MONEY] = _scaled(s[b + P_MONEY], MONEY_SCALE)
    for g in range(NUM_GOODS):
        o[Q_GOODS + g] = _scaled(s[b + P_GOODS + g], GOODS_SCALE)
    o[Q_FREE_SLOTS] = _scaled(free_slots(s, q), GOODS_SCALE)
    for slot in range(COLONISTS_PER_PLAYER):
        o[_colonist_column(slot_kind(slot), s[b + P_COLONISTS + slot])] += 1.0 / COLONIST_KIND_SCALE
    # the houses, and the bit set of their places (a loop over a view: see rules.scoring.card_bits)
    start = HOUSES + q * MAX_CITIES
    houses = s[start : start + MAX_CITIES]
    places = 0
    for c in range(m[M_NUM_CITIES]):
        o[Q_HOUSES + c] = houses[c]
        places |= np.int64(houses[c] == 1) << c
    tally = tally_of_places(s, m, places)
    o[Q_HOUSE_COUNT] = _scaled(tally[0], HOUSES_PER_PLAYER)
    # the cards: rules.scoring.card_bits, written out to share the views, then the shares of
    # their copies from KIND_SHARES and GOD_SHARES (why tables: see _running_sums)
    hand = s[b + P_HAND : b + P_HAND + NUM_CARD_TYPES]
    discard = s[b + P_DISCARD : b + P_DISCARD + NUM_CARD_TYPES]
    in_hand = 0
    in_discard = 0
    for t in range(len(hand)):
        in_hand |= np.int64(hand[t] > 0) << t
        in_discard |= np.int64(discard[t] > 0) << t
    cards = (in_hand, in_discard)
    for kind in range(NUM_KINDS):
        start = KIND_START_TYPE[kind]
        sale = KIND_SALE_TYPES[kind]
        o[Q_HAND + kind] = KIND_SHARES[kind, hand[start] if start >= 0 else 0, count_bits(in_hand & sale)]
        o[Q_DISCARD + kind] = KIND_SHARES[kind, discard[start] if start >= 0 else 0, count_bits(in_discard & sale)]
    in_both = in_hand & in_discard & SALE_TYPES
    for god in range(NUM_GODS):
        first, second = GOD_START_TYPES[god]
        of_first = hand[first] + discard[first] if first >= 0 else 0
        of_second = hand[second] + discard[second] if second >= 0 else 0
        parts[god] = god_cards(of_first, of_second, cards, god)  # rules.scoring.god_card_counts
        if not in_both:  # then each sale card is counted once
            o[Q_GOD_CARDS + god] = GOD_SHARES[god, of_first, of_second, parts[god] - of_first - of_second]
    if in_both:
        _fill_god_cards_type_by_type(hand, discard, o)
    top = s[b + P_DISCARD_TOP]
    if top >= 0:
        o[Q_DISCARD_TOP + CARD_KIND[top]] = 1.0
    o[Q_PRAEFECTUS_MAGNUS] = 1.0 if s[PRAEFECTUS_MAGNUS] == q else 0.0
    o[Q_CONCORDIA] = 1.0 if s[CONCORDIA_HOLDER] == q else 0.0
    # the score as if the game ended now
    on_board = colonists_on_board(s, q)
    on_squares = colonists_on_squares(s, m, q)
    score_parts_of(tally, cards, wealth(s, q), on_board, on_squares, s[CONCORDIA_HOLDER] == q, parts)
    total = 0
    for i in range(NUM_SCORE_PARTS):
        o[Q_SCORE_PARTS + i] = _scaled(parts[i], SCORE_PART_SCALE)
        total += parts[i]
    o[Q_SCORE_TOTAL] = _scaled(total, SCORE_TOTAL_SCALE)
    o[Q_INTERMEDIATE_VP] = _scaled(s[b + P_INTERMEDIATE_VP], SCORE_TOTAL_SCALE)
    o[Q_INTERMEDIATE_DONE] = s[b + P_INTERMEDIATE_DONE]


@njit_borrowing
def _fill_god_cards_type_by_type(hand, discard, o):
    """GOD_CARDS added up card type by card type, for a sale card both in a hand and in its discard pile.

    No game gets there (a sale card is one card) but check_state allows it, and GOD_SHARES
    counts each sale card once.
    """
    for t in range(NUM_CARD_TYPES):
        god = CARD_GOD[t]
        o[Q_GOD_CARDS + god] += (hand[t] + discard[t]) / GOD_MAX[god]


@njit_borrowing
def _fill_colonist_slots(s, p, out):
    """v1: one-hot location of each of the observer's colonist slots (location code + 1)."""
    b = pbase(p) + P_COLONISTS
    for slot in range(COLONISTS_PER_PLAYER):
        out[O_COLONIST_SLOTS + slot * SLOT_LOCATIONS + s[b + slot] - LOC_STOREHOUSE] = 1.0


@njit_borrowing
def _observe(s, m, p, out, parts):
    """``fill_observation`` with scratch for the score parts (a batch makes it once, not once per row)."""
    out[:] = 0.0
    _fill_header(s, p, out)
    _fill_board(s, m, out)
    n = s[NUM_PLAYERS]
    for k in range(n):
        start = O_PLAYERS + k * PLAYER_OBS_SIZE
        _fill_player(s, m, (p + k) % n, out[start : start + PLAYER_OBS_SIZE], parts)
    if out.shape[0] >= OBS_SIZE_V1:
        _fill_colonist_slots(s, p, out)


@njit
def fill_observation(s, m, p, out):
    """Write player p's observation of state ``s`` into ``out`` (float32).

    The length of ``out`` chooses the version: ``OBS_SIZE_V0`` entries give v0, ``OBS_SIZE_V1``
    give v1 (v0 followed by the colonist slots). The Python wrappers check the length.
    """
    _observe(s, m, p, out, np.zeros(NUM_SCORE_PARTS, dtype=np.int32))


@njit_holding_gil
def fill_observation_unless_busy(s, m, p, out, cache, allowed):
    """:func:`fill_observation` as ``Game.observation``'s one lock-free call; False, ``out`` untouched, when busy.

    Busy: more locked calls of the game under way than the caller's own (``engine.serial``).
    """
    if cache_busy(cache)[0] > allowed:
        return False
    fill_observation(s, m, p, out)
    return True


@njit
def observe_batch_into(states, m, players, out):
    """Row i of ``out`` gets ``players[i]``'s observation of ``states[i]``."""
    _observe_rows(states, m, players, out, np.zeros(NUM_SCORE_PARTS, dtype=np.int32))


@njit_borrowing
def _observe_rows(states, m, players, out, parts):
    """``observe_batch_into`` with its scratch: the row views cost no reference counting here (see njit_borrowing)."""
    for i in range(states.shape[0]):
        _observe(states[i], m, players[i], out[i], parts)


@njit
def scores_batch_into(states, m, out):
    """Every player's total VP in every row of a batch (``rules.scoring.score_totals`` per row)."""
    for i in range(states.shape[0]):
        score_totals(states[i], m, out[i])


# --------------------------------------------------------------------------- Python API
def observe(game: Observable, player: int, version: int = OBSERVATION_VERSION) -> np.ndarray:
    """``player``'s observation of ``game`` (float32, length ``OBS_SIZES[version]``).

    ``player`` must be an integer seat of the game (``ArgumentTypeError`` / ``ValueError``
    otherwise): the compiled code would read past the player arrays.
    """
    out = np.empty(OBS_SIZES[check_observation_version(version)], dtype=np.float32)
    state = compiled_state(game.state)  # Game.state is a read-only view
    fill_observation(state, game.map.tables, seat_argument(player, int(state[NUM_PLAYERS])), out)
    return out


def observe_batch(
    states: np.ndarray,
    tables: np.ndarray,
    players: np.ndarray,
    out: np.ndarray | None = None,
    version: int = OBSERVATION_VERSION,
) -> np.ndarray:
    """Observations of a batch of states of one map, one observer per row: shape (n, OBS_SIZES[version]).

    The compiled code does not bounds-check, so the inputs are checked first: ``tables``
    must be a map's own tables, every row a valid state of that map (as ``Game(state,
    map)`` checks it), ``players`` one integer seat per row; ``ValueError`` /
    ``ArgumentTypeError`` otherwise. ``out``, if given, is filled (float32, C-contiguous).
    """
    size = OBS_SIZES[check_observation_version(version)]
    m = _map_of_tables(tables)
    states = np.asarray(states)
    if states.ndim != 2:
        raise ValueError(f"states must be a 2-D array, one state per row, got shape {states.shape}")
    rows = np.empty((states.shape[0], STATE_SIZE), dtype=np.int32)
    for i in range(states.shape[0]):
        rows[i] = as_state_array(states[i])
        check_state(rows[i], m)
    seats = np.asarray(players)
    if seats.dtype == np.bool_ or seats.dtype.kind not in "iu":
        raise ArgumentTypeError(f"players must be integer seats, got dtype {seats.dtype}")
    if seats.shape != (rows.shape[0],) or ((seats < 0) | (seats >= rows[:, NUM_PLAYERS])).any():
        raise ValueError(f"players must be one seat per row, each below that row's player count, got {seats}")
    shape = (rows.shape[0], size)
    if out is None:
        out = np.empty(shape, dtype=np.float32)
    elif not (isinstance(out, np.ndarray) and out.dtype == np.float32 and out.shape == shape):
        raise ValueError(f"out must be float32 of shape {shape}; got {getattr(out, 'dtype', type(out))}")
    elif not (out.flags.c_contiguous and out.flags.writeable):
        raise ValueError("out must be a writable C-contiguous array")
    observe_batch_into(rows, m.tables, np.array(seats, dtype=np.int64), out)
    return out


def _map_of_tables(tables: np.ndarray) -> Map:
    """The map whose tables these are (compiled code indexes the state with them: nothing else will do)."""
    for name in MAP_NAMES:
        m = load(name)
        if tables is m.tables or (
            isinstance(tables, np.ndarray) and tables.shape == m.tables.shape and np.array_equal(tables, m.tables)
        ):
            return m
    raise ValueError("tables must be the tables of a map (maps.load(name).tables)")


def player_scores(game: Observable) -> np.ndarray:
    """Total VP per player as if the game ended now (int64): ``Game.scores``, ``rules.scoring.score_totals``."""
    state = compiled_state(game.state)  # Game.state is a read-only view
    out = np.zeros(int(state[NUM_PLAYERS]), dtype=np.int64)
    score_totals(state, game.map.tables, out)
    return out


def describe_observation() -> str:
    """The observation layout as Markdown: the header and board, then one player block."""
    sizes = ", ".join(f"v{v}: {size}" for v, size in OBS_SIZES.items())
    return (
        f"## Observation (float32, length {OBS_SIZE}; {sizes})\n\n{OBS_LAYOUT.table()}\n\n"
        f"## Player block (length {PLAYER_OBS_SIZE}, at PLAYERS + k * {PLAYER_OBS_SIZE} for relative seat k)\n\n"
        f"{PLAYER_OBS_LAYOUT.table()}\n"
    )


def observation_md() -> str:
    """The text of ``docs/observation.md``: the design notes of this module and the layout tables."""
    design = __doc__.split("Design\n------\n", 1)[1].split("Versions\n--------\n", 1)[0].strip()
    versions = __doc__.split("Versions\n--------\n", 1)[1].split("Every field (name", 1)[0].strip()
    versions = versions.replace("``OBS_SIZE_V0``", f"{OBS_SIZE_V0}").replace("``OBS_SIZE_V1``", f"{OBS_SIZE_V1}")
    return (
        "# Observation\n\n"
        "Generated by `python -m concordia_env.tools.docgen` from `concordia_env/engine/observation.py`; "
        "do not edit.\n\n"
        "`game.observation(player)` (and the PettingZoo, Gymnasium and batched environments) give one flat\n"
        f"float32 vector of length OBS_SIZE = {OBS_SIZE} (version {OBSERVATION_VERSION}), the same for every map and\n"
        "player count. The environments take `observation_version=` to give an older version.\n\n"
        f"{design}\n\n## Versions\n\n{versions}\n\n{describe_observation()}"
    )
