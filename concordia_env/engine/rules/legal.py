"""The legal-action mask of the pending decision, and why each refused action is refused.

``fill_legal(s, m, mask)`` writes the mask for whoever must decide now
(``s[CURRENT_PLAYER]``); an action is legal exactly when the rules allow it in this
position. The effects in :mod:`concordia_env.engine.rules.effects` assume legality.

Legality and its explanation are one computation. Each kind of action has one *refusal*
function (``move_refusal(s, m, p, slot, path, occupancy)``, ``build_refusal(...)``, ...)
that goes through the rules for that action in a fixed order and returns the code of the
first one that refuses it (``REFUSAL_NAMES``: ``PATH_OCCUPIED``, ``TOO_FAR``...) or
``LEGAL``. The mask writers call it for every action of their range, and
``why_illegal(s, m, a)`` calls it for one action, so the reason given for a refusal is
always the check that made the action illegal; :mod:`concordia_env.engine.describe` only
puts the codes into words. Which decision takes which ranges of actions is one table,
``DECISION_RANGES``: an action of a range the pending decision does not take is refused
with ``OTHER_DECISION`` (``NO_DONE`` for "done").

One legal action per distinct choice: where two choices differ only in which of two
interchangeable things is used (two colonists of one kind on one place, two opponents
showing a Diplomat cards of one kind), only the canonical one is offered
(``canonical_slot``, ``canonical_diplomat_offset``; see docs/action-space.md).
"""

from __future__ import annotations

import numpy as np

from ..actions import (
    A_DONE,
    ACTION_LAYOUT,
    MAX_TRADE,
    NUM_ACTIONS,
    PAY_VARIANTS,
    RANGE_BUILD,
    RANGE_BUY,
    RANGE_BUY_CARD,
    RANGE_CASH,
    RANGE_DIPLOMAT,
    RANGE_DONE,
    RANGE_GOOD,
    RANGE_MOVE,
    RANGE_NAMES,
    RANGE_NONE,
    RANGE_PLAY,
    RANGE_PRODUCE,
    RANGE_SELL,
    RANGE_SETTLE,
    RANGE_TAX,
    RANGE_TRIBUNE_COLONIST,
    build,
    buy,
    buy_card_variant,
    choose_good,
    decode_build,
    decode_buy,
    decode_buy_card,
    decode_diplomat,
    decode_good,
    decode_move,
    decode_play,
    decode_produce,
    decode_sell,
    decode_settle,
    decode_tribune_colonist,
    diplomat,
    move,
    play,
    produce,
    range_of,
    sell,
    settle,
    tribune_colonist,
)
from ..cards import (
    CARD_COST,
    CARD_KIND,
    DISPLAY_SLOTS,
    GOOD_PRICE,
    HOUSES_PER_PLAYER,
    K_CONSUL,
    K_DIPLOMAT,
    MERCATOR_KINDS,
    NUM_GOODS,
    NUM_KINDS,
    SLOT_ANY_COST,
    SLOT_FIXED_COST,
)
from ..maps import (
    M_CAPITAL,
    M_CITY_HAS_PATH,
    M_CITY_SPECIAL,
    M_DIST_CITY,
    M_DIST_PATH,
    M_NUM_CITIES,
    M_NUM_PATHS,
    M_NUM_PROVINCES,
    M_PATH_KIND,
    M_SHARED_SEA,
    MAX_PATHS,
    MAX_PROVINCES,
    SEA,
    UNREACHABLE,
)
from ..state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
    BUYS_LEFT,
    CITY_GOOD,
    COLONISTS_PER_PLAYER,
    CURRENT_PLAYER,
    DISPLAY,
    FIRST_SEA_SLOT,
    INCOMING,
    LOC_STOREHOUSE,
    MAX_CITIES,
    MAX_PLAYERS,
    NUM_PHASES,
    NUM_PLAYERS,
    OPT_DISPLAY_COSTS,
    P_COLONISTS,
    P_DISCARD_TOP,
    P_GOODS,
    P_MONEY,
    PATH_LOC_BASE,
    PHASE,
    PHASE_ARCHITECT_BUILD,
    PHASE_ARCHITECT_MOVE,
    PHASE_BONUS_GOOD,
    PHASE_BUY_CARDS,
    PHASE_COLONIST,
    PHASE_COLONIST_SETTLE,
    PHASE_DIPLOMAT,
    PHASE_GAME_OVER,
    PHASE_MERCATOR,
    PHASE_OVERFLOW,
    PHASE_PLAY_CARD,
    PHASE_PREFECT,
    PHASE_TRIBUNE_COLONIST,
    SLOTS_BOUGHT,
    STEPS_LEFT,
    TRADED_GOODS,
)
from ._jit import njit, njit_borrowing
from ._scratch import stack_zeros
from .state_helpers import (
    can_afford_house,
    can_pay_colonist,
    colonist_adjacent_to,
    free_slots,
    hand_kinds,
    has_house,
    houses_of,
    is_buildable_place,
    lowest_bit,
    num_players,
    pbase,
    places_next_to_colonists,
    slot_kind,
    storehouse_colonist_slot,
)

# --------------------------------------------------------------------------- refusal codes
#: the action is legal (every refusal function returns this when no rule refuses)
LEGAL = 0
# why an action is refused: the code of the first rule that refuses it (``REFUSAL_NAMES``)
NOT_AN_ACTION = 1  # the index is outside 0..NUM_ACTIONS - 1
GAME_OVER = 2
NO_DECISION = 3  # the state's phase is none of the decisions (a state no game reaches)
OTHER_DECISION = 4  # the pending decision does not take this range of actions
NO_DONE = 5  # the pending decision has no "done"
CARD_NOT_IN_HAND = 6
NOTHING_TO_COPY = 7  # a Diplomat played with no copyable card on any opponent's pile
NO_SUCH_OPPONENT = 8
EMPTY_DISCARD = 9
COPIES_A_DIPLOMAT = 10
NEARER_OPPONENT_SAME_KIND = 11  # the same move as copying a nearer opponent (canonical_diplomat_offset)
NO_COLONIST_IN_STOREHOUSE = 12
CANNOT_PAY_COLONIST = 13
NO_SUCH_PATH = 14
COLONIST_IN_STOREHOUSE = 15
WRONG_PATH_KIND = 16
ON_SPECIAL_SQUARE = 17
ALREADY_ON_PATH = 18
UNREACHABLE_PATH = 19
TOO_FAR = 20
PATH_OCCUPIED = 21
LOWER_SLOT_SAME_MOVE = 22  # the same move as moving the lowest slot standing there (canonical_slot)
NO_SUCH_PLACE = 23
NOT_BUILDABLE = 24
HOUSE_ALREADY_THERE = 25
ALL_HOUSES_BUILT = 26
NO_COLONIST_NEXT_TO = 27
CANNOT_AFFORD_HOUSE = 28
NO_SUCH_PROVINCE = 29
COIN_SIDE_UP = 30
NOTHING_OF_GOOD_WAITING = 31
GOOD_ALREADY_TRADED = 32
NO_TRADES_LEFT = 33
NOT_ENOUGH_GOODS = 34
NO_STOREHOUSE_SPACE = 35
CANNOT_AFFORD_GOODS = 36
NO_BUYS_LEFT = 37
SLOT_BOUGHT = 38
SLOT_EMPTY = 39
CONSUL_PAYS_OWN_COST = 40
ANY_GOOD_NOT_CHOSEN = 41
NO_ANY_COST = 42
CANNOT_PAY_CARD = 43
NOT_A_SETTLING_PLACE = 44  # neither the capital nor a city with an own house
NO_PATH_OF_KIND = 45
#: code -> name; every code above has one and ``describe.REFUSAL_TEXT`` puts each into words
REFUSAL_NAMES: tuple[str, ...] = (
    "LEGAL",
    "NOT_AN_ACTION",
    "GAME_OVER",
    "NO_DECISION",
    "OTHER_DECISION",
    "NO_DONE",
    "CARD_NOT_IN_HAND",
    "NOTHING_TO_COPY",
    "NO_SUCH_OPPONENT",
    "EMPTY_DISCARD",
    "COPIES_A_DIPLOMAT",
    "NEARER_OPPONENT_SAME_KIND",
    "NO_COLONIST_IN_STOREHOUSE",
    "CANNOT_PAY_COLONIST",
    "NO_SUCH_PATH",
    "COLONIST_IN_STOREHOUSE",
    "WRONG_PATH_KIND",
    "ON_SPECIAL_SQUARE",
    "ALREADY_ON_PATH",
    "UNREACHABLE_PATH",
    "TOO_FAR",
    "PATH_OCCUPIED",
    "LOWER_SLOT_SAME_MOVE",
    "NO_SUCH_PLACE",
    "NOT_BUILDABLE",
    "HOUSE_ALREADY_THERE",
    "ALL_HOUSES_BUILT",
    "NO_COLONIST_NEXT_TO",
    "CANNOT_AFFORD_HOUSE",
    "NO_SUCH_PROVINCE",
    "COIN_SIDE_UP",
    "NOTHING_OF_GOOD_WAITING",
    "GOOD_ALREADY_TRADED",
    "NO_TRADES_LEFT",
    "NOT_ENOUGH_GOODS",
    "NO_STOREHOUSE_SPACE",
    "CANNOT_AFFORD_GOODS",
    "NO_BUYS_LEFT",
    "SLOT_BOUGHT",
    "SLOT_EMPTY",
    "CONSUL_PAYS_OWN_COST",
    "ANY_GOOD_NOT_CHOSEN",
    "NO_ANY_COST",
    "CANNOT_PAY_CARD",
    "NOT_A_SETTLING_PLACE",
    "NO_PATH_OF_KIND",
)
NUM_REFUSALS = len(REFUSAL_NAMES)

# --------------------------------------------------------------------------- which decision takes which actions
#: the action ranges each decision takes (``actions.RANGE_*``); the one table behind both
#: ``fill_legal`` and ``why_illegal``'s ``OTHER_DECISION``
DECISION_RANGES: dict[int, tuple[int, ...]] = {
    PHASE_PLAY_CARD: (RANGE_PLAY,),
    PHASE_DIPLOMAT: (RANGE_DIPLOMAT,),
    PHASE_TRIBUNE_COLONIST: (RANGE_TRIBUNE_COLONIST, RANGE_DONE),
    PHASE_ARCHITECT_MOVE: (RANGE_MOVE, RANGE_BUILD, RANGE_DONE),
    PHASE_ARCHITECT_BUILD: (RANGE_BUILD, RANGE_DONE),
    PHASE_PREFECT: (RANGE_PRODUCE, RANGE_CASH),
    PHASE_BONUS_GOOD: (RANGE_GOOD,),
    PHASE_OVERFLOW: (RANGE_GOOD,),
    PHASE_MERCATOR: (RANGE_SELL, RANGE_BUY, RANGE_DONE),
    PHASE_BUY_CARDS: (RANGE_BUY_CARD, RANGE_DONE),
    PHASE_COLONIST: (RANGE_SETTLE, RANGE_TAX, RANGE_DONE),
    PHASE_COLONIST_SETTLE: (RANGE_SETTLE, RANGE_DONE),
    PHASE_GAME_OVER: (),
}
NUM_RANGES = len(RANGE_NAMES)
#: ``DECISION_RANGES`` as tables compiled into the rules: ``DECISION_TAKES[phase, range]``, and the
#: ranges of each decision as a row ``DECISION_RANGE_LIST[phase]`` ended by ``RANGE_NONE``
DECISION_TAKES = np.zeros((NUM_PHASES, NUM_RANGES), dtype=np.bool_)
DECISION_RANGE_LIST = np.full((NUM_PHASES, 1 + max(map(len, DECISION_RANGES.values()))), RANGE_NONE, dtype=np.int64)
for _phase, _ranges in DECISION_RANGES.items():
    DECISION_TAKES[_phase, list(_ranges)] = True
    DECISION_RANGE_LIST[_phase, : len(_ranges)] = _ranges
#: the first action of each range
RANGE_START = np.array([offset for _, offset, _, _ in ACTION_LAYOUT.fields], dtype=np.int64)


# --------------------------------------------------------------------------- helpers
@njit
def copyable_top(s, q):
    """The card type on top of q's discard pile if a Diplomat may copy it, else -1."""
    top = s[pbase(q) + P_DISCARD_TOP]
    if top < 0 or CARD_KIND[top] == K_DIPLOMAT:
        return -1
    return top


@njit
def diplomat_target(s, p, offset):
    """The opponent ``offset`` seats to the left of p."""
    return (p + offset) % num_players(s)


@njit
def canonical_diplomat_offset(s, p, offset):
    """The nearest offset whose copyable card is of the same kind as the one at ``offset`` (-1: none).

    Copying a card starts the action of its kind and leaves the copied pile alone, so
    copying two players' cards of one kind is one move: only the nearest opponent showing
    that kind is offered (docs/action-space.md).
    """
    top = copyable_top(s, diplomat_target(s, p, offset))
    if top < 0:
        return -1
    for earlier in range(1, offset):
        other = copyable_top(s, diplomat_target(s, p, earlier))
        if other >= 0 and CARD_KIND[other] == CARD_KIND[top]:
            return earlier
    return offset


@njit
def distance_to_path(m, loc, path):
    """Steps for a colonist at location ``loc`` to reach ``path`` (UNREACHABLE if it can't)."""
    if loc >= PATH_LOC_BASE:
        return m[M_DIST_PATH + (loc - PATH_LOC_BASE) * MAX_PATHS + path]
    return m[M_DIST_CITY + loc * MAX_PATHS + path]


@njit
def path_occupancy(s, m, out):
    """Number of colonists (all players) on each path."""
    for path in range(m[M_NUM_PATHS]):
        out[path] = 0
    for q in range(s[NUM_PLAYERS]):
        b = pbase(q) + P_COLONISTS
        for i in range(COLONISTS_PER_PLAYER):
            loc = s[b + i]
            if loc >= PATH_LOC_BASE:
                out[loc - PATH_LOC_BASE] += 1


@njit
def is_movable(m, loc):
    """On the board and not on a special square (a colonist there never moves again)."""
    if loc == LOC_STOREHOUSE:
        return False
    if loc < MAX_CITIES:  # ``if``s, not an ``and`` chain: see ``common.is_buildable_place``
        return m[M_CITY_SPECIAL + loc] != 1
    return True


@njit
def canonical_slot(s, p, slot):
    """The lowest colonist slot of the same kind as ``slot`` standing where it stands.

    Colonists of one kind are interchangeable: moving either of two that share a place (or
    the storehouse) is the same move, so only the lowest slot's moves are offered
    (docs/action-space.md).
    """
    b = pbase(p) + P_COLONISTS
    loc = s[b + slot]
    first = 0 if slot < FIRST_SEA_SLOT else FIRST_SEA_SLOT
    for other in range(first, slot):
        if s[b + other] == loc:
            return other
    return slot


@njit
def path_is_free_for(m, occupancy, path, kind):
    """A colonist of ``kind`` may end on ``path`` holding ``occupancy[path]`` colonists: an empty path,
    or any sea path where sea paths are shared (Aegyptus)."""
    if occupancy[path] == 0:
        return True
    return kind == SEA and m[M_SHARED_SEA] == 1


@njit
def slot_cost(s, slot, out):
    """The cost printed under display ``slot`` (standard or alternative side): goods into ``out``,
    returns the units of "any" good (a good of the buyer's choice)."""
    table = s[OPT_DISPLAY_COSTS]
    for g in range(NUM_GOODS):
        out[g] = SLOT_FIXED_COST[table, slot, g]
    return SLOT_ANY_COST[table, slot]


@njit
def display_price(s, slot, kind, out):
    """The price of the display card in ``slot``: goods into ``out``, returns the units of "any" good.

    The Senator pays the card's own cost plus the slot's cost; the Consul pays the card's own
    cost only. An empty slot costs what is printed under it.
    """
    any_units = 0
    if kind == K_CONSUL:
        for g in range(NUM_GOODS):
            out[g] = 0
    else:
        any_units = slot_cost(s, slot, out)
    card = s[DISPLAY + slot]
    if card >= 0:
        for g in range(NUM_GOODS):
            out[g] += CARD_COST[card, g]
    return any_units


@njit
def buy_card_cost(s, slot, variant, kind, out):
    """Goods to pay for the display card in ``slot``; False if this payment variant is not allowed.

    Variant 0 means "no 'any' good", variant 1+g pays the slot's "any" with good g (see
    ``display_price``).
    """
    any_units = display_price(s, slot, kind, out)
    if (any_units > 0) != (variant > 0):
        return False
    if variant > 0:
        out[variant - 1] += any_units
    return True


# --------------------------------------------------------------------------- refusals, one per kind of action
# Each returns LEGAL or the code of the first rule that refuses the action; the order of
# the checks decides which reason a player is told when several rules refuse it.
@njit_borrowing
def play_refusal(s, p, kind):
    """Play a card of ``kind``: it must be in hand, and a Diplomat needs a card to copy."""
    return play_kind_refusal(s, p, kind, hand_kinds(s, p))


@njit_borrowing
def play_kind_refusal(s, p, kind, in_hand):
    """``play_refusal`` with the kinds in p's hand at hand (``common.hand_kinds``: bit k, a card of kind k)."""
    if not (in_hand >> kind) & 1:
        return CARD_NOT_IN_HAND
    if kind == K_DIPLOMAT and not any_copyable(s, p):
        return NOTHING_TO_COPY
    return LEGAL


@njit
def any_copyable(s, p):
    for offset in range(1, num_players(s)):
        if copyable_top(s, diplomat_target(s, p, offset)) >= 0:
            return True
    return False


@njit_borrowing
def diplomat_refusal(s, p, offset):
    """Copy the opponent ``offset`` seats to the left: a card other than a Diplomat, from the nearest opponent."""
    if offset >= num_players(s):
        return NO_SUCH_OPPONENT
    target = diplomat_target(s, p, offset)
    if s[pbase(target) + P_DISCARD_TOP] < 0:
        return EMPTY_DISCARD
    if copyable_top(s, target) < 0:
        return COPIES_A_DIPLOMAT
    if canonical_diplomat_offset(s, p, offset) != offset:
        return NEARER_OPPONENT_SAME_KIND
    return LEGAL


@njit_borrowing
def colonist_purchase_refusal(s, p, kind):
    """Buy a colonist of ``kind`` (Tribune, Colonist): one must wait in the storehouse, and it must be paid."""
    if storehouse_colonist_slot(s, p, kind) < 0:
        return NO_COLONIST_IN_STOREHOUSE
    if not can_pay_colonist(s, p):
        return CANNOT_PAY_COLONIST
    return LEGAL


@njit_borrowing
def move_refusal(s, m, p, slot, path, occupancy):
    """Architect: move colonist ``slot`` to ``path`` (``occupancy``: colonists per path, ``path_occupancy``)."""
    code = colonist_move_refusal(s, m, p, slot)
    if code != LEGAL:
        return code
    return path_move_refusal(s, m, p, slot, path, occupancy)


@njit_borrowing
def colonist_move_refusal(s, m, p, slot):
    """The part of ``move_refusal`` that is the colonist's own: on the board and not on a special square."""
    loc = s[pbase(p) + P_COLONISTS + slot]
    if loc == LOC_STOREHOUSE:
        return COLONIST_IN_STOREHOUSE
    if not is_movable(m, loc):
        return ON_SPECIAL_SQUARE
    return LEGAL


@njit_borrowing
def path_move_refusal(s, m, p, slot, path, occupancy):
    """The rest of ``move_refusal``, for a colonist that may move: a reachable free path of its kind, once per move."""
    if path >= m[M_NUM_PATHS]:
        return NO_SUCH_PATH
    kind = slot_kind(slot)
    if m[M_PATH_KIND + path] != kind:
        return WRONG_PATH_KIND
    loc = s[pbase(p) + P_COLONISTS + slot]
    if loc == PATH_LOC_BASE + path:
        return ALREADY_ON_PATH
    distance = distance_to_path(m, loc, path)
    if distance >= UNREACHABLE:
        return UNREACHABLE_PATH
    if distance > s[STEPS_LEFT]:
        return TOO_FAR
    if not path_is_free_for(m, occupancy, path, kind):
        return PATH_OCCUPIED
    if canonical_slot(s, p, slot) != slot:
        return LOWER_SLOT_SAME_MOVE
    return LEGAL


@njit_borrowing
def build_refusal(s, m, p, place, houses):
    """Architect: build a house in ``place`` (``houses``: how many p has built)."""
    if place >= m[M_NUM_CITIES]:
        return NO_SUCH_PLACE
    if not is_buildable_place(m, place):
        return NOT_BUILDABLE
    if has_house(s, p, place):
        return HOUSE_ALREADY_THERE
    if houses >= HOUSES_PER_PLAYER:
        return ALL_HOUSES_BUILT
    if not colonist_adjacent_to(s, m, p, place):
        return NO_COLONIST_NEXT_TO
    if not can_afford_house(s, p, place, s[CITY_GOOD + place]):
        return CANNOT_AFFORD_HOUSE
    return LEGAL


@njit_borrowing
def produce_refusal(s, m, province):
    """Prefect: production in ``province``, whose bonus marker must show its goods side."""
    if province >= m[M_NUM_PROVINCES]:
        return NO_SUCH_PROVINCE
    if s[BONUS_COIN_SIDE + province] != 0:
        return COIN_SIDE_UP
    return LEGAL


@njit_borrowing
def good_refusal(s, p, g):
    """Choose good ``g``: any good as the Gavdos bonus; a good waiting for p's full storehouse otherwise."""
    if s[PHASE] == PHASE_BONUS_GOOD:
        return LEGAL
    if s[INCOMING + p * NUM_GOODS + g] <= 0:
        return NOTHING_OF_GOOD_WAITING
    return LEGAL


@njit
def traded_kinds(s):
    n = 0
    for g in range(NUM_GOODS):
        if (s[TRADED_GOODS] >> g) & 1:
            n += 1
    return n


@njit
def trades_left(s):
    """Kinds of goods the pending Mercator action may still trade."""
    return MERCATOR_KINDS - traded_kinds(s)


@njit_borrowing
def trade_refusal(s, g):
    """Mercator: may good ``g`` still be traded in this action (at most MERCATOR_KINDS kinds, each once)?"""
    if (s[TRADED_GOODS] >> g) & 1:
        return GOOD_ALREADY_TRADED
    if trades_left(s) <= 0:
        return NO_TRADES_LEFT
    return LEGAL


@njit_borrowing
def sell_refusal(s, p, g, quantity):
    """Mercator: sell ``quantity`` units of good ``g``, which p must hold."""
    code = trade_refusal(s, g)
    if code != LEGAL:
        return code
    return held_refusal(s, p, g, quantity)


@njit_borrowing
def held_refusal(s, p, g, quantity):
    """The rest of ``sell_refusal``, for a good that may be traded: p holds the units."""
    if s[pbase(p) + P_GOODS + g] < quantity:
        return NOT_ENOUGH_GOODS
    return LEGAL


@njit_borrowing
def buy_refusal(s, p, g, quantity, free):
    """Mercator: buy ``quantity`` units of good ``g`` into ``free`` storehouse slots, paid in sestertii."""
    code = trade_refusal(s, g)
    if code != LEGAL:
        return code
    return room_and_money_refusal(s, p, g, quantity, free)


@njit_borrowing
def room_and_money_refusal(s, p, g, quantity, free):
    """The rest of ``buy_refusal``, for a good that may be traded: room in the storehouse and the price."""
    if quantity > free:
        return NO_STOREHOUSE_SPACE
    if s[pbase(p) + P_MONEY] < quantity * GOOD_PRICE[g]:
        return CANNOT_AFFORD_GOODS
    return LEGAL


@njit_borrowing
def buy_card_refusal(s, p, slot, variant, cost):
    """Senator/Consul: buy the card in display ``slot`` with payment ``variant`` (``cost``: scratch)."""
    code = display_slot_refusal(s, slot)
    if code != LEGAL:
        return code
    kind = s[ACTION_KIND]
    return payment_refusal(s, p, slot, variant, kind, display_price(s, slot, kind, cost), cost)


@njit_borrowing
def display_slot_refusal(s, slot):
    """The part of ``buy_card_refusal`` that is the slot's own: a buy left, a card in the slot, not bought from yet."""
    if s[BUYS_LEFT] <= 0:
        return NO_BUYS_LEFT
    if (s[SLOTS_BOUGHT] >> slot) & 1:
        return SLOT_BOUGHT
    if s[DISPLAY + slot] < 0:
        return SLOT_EMPTY
    return LEGAL


@njit_borrowing
def payment_refusal(s, p, slot, variant, kind, any_units, cost):
    """The rest of ``buy_card_refusal``, for a slot that may be bought from: the payment ``variant``
    of its price (``any_units``: the price's units of "any" good, ``display_price``) and p's goods."""
    if variant > 0 and kind == K_CONSUL:
        return CONSUL_PAYS_OWN_COST
    if any_units > 0 and variant == 0:
        return ANY_GOOD_NOT_CHOSEN
    if any_units == 0 and variant > 0:
        return NO_ANY_COST
    if not can_buy(s, p, slot, variant, kind, cost):
        return CANNOT_PAY_CARD
    return LEGAL


@njit_borrowing
def settle_refusal(s, m, p, kind, place):
    """Colonist: settle a colonist of ``kind`` in ``place``: the capital or an own city with a path of that kind."""
    code = colonist_purchase_refusal(s, p, kind)
    if code != LEGAL:
        return code
    return settle_place_refusal(s, m, p, kind, place)


@njit_borrowing
def settle_place_refusal(s, m, p, kind, place):
    """The rest of ``settle_refusal``, for a colonist that may be bought: a place of the map it may enter."""
    if place >= m[M_NUM_CITIES]:
        return NO_SUCH_PLACE
    return settling_place_refusal(s, m, p, kind, place)


@njit_borrowing
def settling_place_refusal(s, m, p, kind, place):
    """Where a colonist of ``kind`` enters the board: the capital or a city with p's house, with a path of its kind.

    The position reader asks this too: a colonist standing in a city got there this way.
    """
    if place != m[M_CAPITAL] and not has_house(s, p, place):
        return NOT_A_SETTLING_PLACE
    if m[M_CITY_HAS_PATH + place * 2 + kind] != 1:
        return NO_PATH_OF_KIND
    return LEGAL


# --------------------------------------------------------------------------- masks: each refusal over its range
@njit_borrowing
def legal_play(s, p, mask):
    in_hand = hand_kinds(s, p)  # read once for every kind
    for kind in range(NUM_KINDS):
        if play_kind_refusal(s, p, kind, in_hand) == LEGAL:
            mask[play(kind)] = True


@njit_borrowing
def legal_diplomat(s, p, mask):
    for offset in range(1, MAX_PLAYERS):
        if diplomat_refusal(s, p, offset) == LEGAL:
            mask[diplomat(offset)] = True


@njit_borrowing
def legal_tribune_colonist(s, p, mask):
    for kind in range(2):
        if colonist_purchase_refusal(s, p, kind) == LEGAL:
            mask[tribune_colonist(kind)] = True


@njit_borrowing
def legal_moves(s, m, p, mask):
    occupancy = stack_zeros(MAX_PATHS, np.int32)
    path_occupancy(s, m, occupancy)
    steps = s[STEPS_LEFT]
    for slot in range(COLONISTS_PER_PLAYER):
        if colonist_move_refusal(s, m, p, slot) != LEGAL or canonical_slot(s, p, slot) != slot:
            continue  # move_refusal's first and last checks, the same for every path
        loc = s[pbase(p) + P_COLONISTS + slot]
        for path in range(MAX_PATHS):
            # a path farther than the steps left is refused (UNREACHABLE_PATH or TOO_FAR): most
            # paths are, and this one test (which predicts well) spares them the other checks
            if distance_to_path(m, loc, path) <= steps and path_move_refusal(s, m, p, slot, path, occupancy) == LEGAL:
                mask[move(slot, path)] = True


@njit_borrowing
def legal_builds(s, m, p, mask):
    houses = houses_of(s, m, p)
    # a place no colonist of p is next to is refused (NO_COLONIST_NEXT_TO): only the few
    # places next to one are tested
    near = places_next_to_colonists(s, m, p)
    while near:
        place = lowest_bit(near)
        near &= near - 1
        if build_refusal(s, m, p, place, houses) == LEGAL:
            mask[build(place)] = True


@njit_borrowing
def legal_produce(s, m, mask):
    for province in range(MAX_PROVINCES):
        if produce_refusal(s, m, province) == LEGAL:
            mask[produce(province)] = True


@njit_borrowing
def legal_goods(s, p, mask):
    for g in range(NUM_GOODS):
        if good_refusal(s, p, g) == LEGAL:
            mask[choose_good(g)] = True


@njit_borrowing
def legal_sales(s, p, mask):
    for g in range(NUM_GOODS):
        if trade_refusal(s, g) != LEGAL:
            continue  # sell_refusal's first check, the same for every quantity
        for quantity in range(1, MAX_TRADE + 1):
            if held_refusal(s, p, g, quantity) == LEGAL:
                mask[sell(g, quantity)] = True


@njit_borrowing
def legal_purchases(s, p, mask):
    free = free_slots(s, p)
    for g in range(NUM_GOODS):
        if trade_refusal(s, g) != LEGAL:
            continue  # buy_refusal's first check, the same for every quantity
        for quantity in range(1, MAX_TRADE + 1):
            if room_and_money_refusal(s, p, g, quantity, free) == LEGAL:
                mask[buy(g, quantity)] = True


@njit
def can_buy(s, p, slot, variant, kind, cost):
    """True if p holds the goods to buy the display card in ``slot`` this way (``cost``: scratch)."""
    if s[DISPLAY + slot] < 0 or not buy_card_cost(s, slot, variant, kind, cost):
        return False
    gb = pbase(p) + P_GOODS
    for g in range(NUM_GOODS):
        if s[gb + g] < cost[g]:
            return False
    return True


@njit_borrowing
def legal_buy_cards(s, p, mask):
    cost = stack_zeros(NUM_GOODS, np.int32)
    kind = s[ACTION_KIND]
    for slot in range(DISPLAY_SLOTS):
        if display_slot_refusal(s, slot) != LEGAL:
            continue  # buy_card_refusal's first checks, the same for every variant
        any_units = display_price(s, slot, kind, cost)  # the same for every variant
        for variant in range(PAY_VARIANTS):
            if payment_refusal(s, p, slot, variant, kind, any_units, cost) == LEGAL:
                mask[buy_card_variant(slot, variant)] = True


@njit_borrowing
def legal_settle(s, m, p, mask):
    for kind in range(2):
        if colonist_purchase_refusal(s, p, kind) != LEGAL:
            continue  # settle_refusal's first check, the same for every place
        for place in range(MAX_CITIES):
            if settle_place_refusal(s, m, p, kind, place) == LEGAL:
                mask[settle(kind, place)] = True


# --------------------------------------------------------------------------- entry points
@njit
def is_decision(phase):
    """``phase`` is one of the decisions of ``DECISION_RANGES`` (the game-over phase included)."""
    return 0 <= phase < NUM_PHASES


@njit_borrowing
def fill_legal(s, m, mask):
    """Write the legal mask of the pending decision into ``mask`` (bool, NUM_ACTIONS)."""
    mask[:] = False
    phase = s[PHASE]
    if not is_decision(phase):
        return
    p = s[CURRENT_PLAYER]
    k = 0
    while DECISION_RANGE_LIST[phase, k] != RANGE_NONE:
        r = DECISION_RANGE_LIST[phase, k]
        k += 1
        if r == RANGE_PLAY:
            legal_play(s, p, mask)
        elif r == RANGE_DIPLOMAT:
            legal_diplomat(s, p, mask)
        elif r == RANGE_MOVE:
            legal_moves(s, m, p, mask)
        elif r == RANGE_BUILD:
            legal_builds(s, m, p, mask)
        elif r == RANGE_PRODUCE:
            legal_produce(s, m, mask)
        elif r == RANGE_GOOD:
            legal_goods(s, p, mask)
        elif r == RANGE_SELL:
            legal_sales(s, p, mask)
        elif r == RANGE_BUY:
            legal_purchases(s, p, mask)
        elif r == RANGE_BUY_CARD:
            legal_buy_cards(s, p, mask)
        elif r == RANGE_SETTLE:
            legal_settle(s, m, p, mask)
        elif r == RANGE_TRIBUNE_COLONIST:
            legal_tribune_colonist(s, p, mask)
        else:  # the cash bonus, the tax and "done": one action each, always allowed where taken
            mask[RANGE_START[r]] = True


@njit
def range_refusal(s, m, p, r, a):
    """Why action ``a`` of range ``r`` (one the pending decision takes) is refused, or LEGAL."""
    if r == RANGE_PLAY:
        return play_refusal(s, p, decode_play(a))
    if r == RANGE_DIPLOMAT:
        return diplomat_refusal(s, p, decode_diplomat(a))
    if r == RANGE_MOVE:
        occupancy = np.zeros(MAX_PATHS, dtype=np.int32)
        path_occupancy(s, m, occupancy)
        slot, path = decode_move(a)
        return move_refusal(s, m, p, slot, path, occupancy)
    if r == RANGE_BUILD:
        return build_refusal(s, m, p, decode_build(a), houses_of(s, m, p))
    if r == RANGE_PRODUCE:
        return produce_refusal(s, m, decode_produce(a))
    if r == RANGE_GOOD:
        return good_refusal(s, p, decode_good(a))
    if r == RANGE_SELL:
        g, quantity = decode_sell(a)
        return sell_refusal(s, p, g, quantity)
    if r == RANGE_BUY:
        g, quantity = decode_buy(a)
        return buy_refusal(s, p, g, quantity, free_slots(s, p))
    if r == RANGE_BUY_CARD:
        slot, variant = decode_buy_card(a)
        return buy_card_refusal(s, p, slot, variant, np.zeros(NUM_GOODS, dtype=np.int32))
    if r == RANGE_SETTLE:
        kind, place = decode_settle(a)
        return settle_refusal(s, m, p, kind, place)
    if r == RANGE_TRIBUNE_COLONIST:
        return colonist_purchase_refusal(s, p, decode_tribune_colonist(a))
    return LEGAL  # the cash bonus, the tax and "done": always allowed where taken


@njit
def why_illegal(s, m, a):
    """Why action ``a`` is refused in this position (a refusal code), or LEGAL: ``mask[a]`` of ``fill_legal``."""
    r = range_of(a)
    if r == RANGE_NONE:
        return NOT_AN_ACTION
    phase = s[PHASE]
    if phase == PHASE_GAME_OVER:
        return GAME_OVER
    if not is_decision(phase):
        return NO_DECISION
    if not DECISION_TAKES[phase, r]:
        return NO_DONE if r == RANGE_DONE else OTHER_DECISION
    return range_refusal(s, m, s[CURRENT_PLAYER], r, a)


@njit
def fill_refusals(s, m, out):
    """``out[a] = why_illegal(s, m, a)`` for every action (``out``: int, NUM_ACTIONS)."""
    for a in range(NUM_ACTIONS):
        out[a] = why_illegal(s, m, a)


@njit_borrowing
def only_done_is_legal(s, m, mask):
    """True if the pending decision offers nothing but "done" (it is then taken automatically)."""
    fill_legal(s, m, mask)
    if not mask[A_DONE]:
        return False
    return mask.sum() == 1
