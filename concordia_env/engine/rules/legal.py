"""The legal-action mask of the pending decision (one function per decision kind).

``fill_legal(s, m, mask)`` writes the mask for whoever must decide now
(``s[CURRENT_PLAYER]``); an action is legal exactly when the rules allow it in this
position. The effects in :mod:`concordia_env.engine.rules.effects` assume legality.

One legal action per distinct choice: where two choices differ only in which of two
interchangeable things is used (two colonists of one kind on one place, two opponents
showing a Diplomat cards of one kind), only the canonical one is offered
(``canonical_slot``, ``canonical_diplomat_offset``; see docs/action-space.md).
"""

from __future__ import annotations

import numpy as np

from ..actions import (
    A_BUILD,
    A_BUY,
    A_BUY_CARD,
    A_CASH,
    A_DIPLOMAT,
    A_DONE,
    A_GOOD,
    A_MOVE,
    A_PLAY,
    A_PRODUCE,
    A_SELL,
    A_SETTLE,
    A_TAX,
    A_TRIBUNE_COLONIST,
    MAX_TRADE,
    PAY_VARIANTS,
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
    SEA,
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
    PHASE_MERCATOR,
    PHASE_OVERFLOW,
    PHASE_PLAY_CARD,
    PHASE_PREFECT,
    PHASE_TRIBUNE_COLONIST,
    SLOTS_BOUGHT,
    STEPS_LEFT,
    TRADED_GOODS,
)
from ._jit import njit
from .common import (
    can_afford_house,
    can_pay_colonist,
    colonist_adjacent_to,
    free_slots,
    hand_card_of_kind,
    has_house,
    houses_of,
    is_buildable_place,
    num_players,
    pbase,
    slot_kind,
    storehouse_colonist_slot,
)


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


# --------------------------------------------------------------------------- per decision
@njit
def legal_play(s, m, p, mask):
    for kind in range(NUM_KINDS):
        if hand_card_of_kind(s, p, kind) < 0:
            continue
        if kind == K_DIPLOMAT and not any_copyable(s, p):
            continue
        mask[A_PLAY + kind] = True


@njit
def any_copyable(s, p):
    for offset in range(1, num_players(s)):
        if copyable_top(s, diplomat_target(s, p, offset)) >= 0:
            return True
    return False


@njit
def legal_diplomat(s, p, mask):
    for offset in range(1, num_players(s)):
        if canonical_diplomat_offset(s, p, offset) == offset:
            mask[A_DIPLOMAT + offset - 1] = True


@njit
def legal_tribune_colonist(s, p, mask):
    if can_pay_colonist(s, p):
        for kind in range(2):
            if storehouse_colonist_slot(s, p, kind) >= 0:
                mask[A_TRIBUNE_COLONIST + kind] = True
    mask[A_DONE] = True


@njit
def legal_moves(s, m, p, mask):
    steps = s[STEPS_LEFT]
    occupancy = np.zeros(MAX_PATHS, dtype=np.int32)
    path_occupancy(s, m, occupancy)
    b = pbase(p) + P_COLONISTS
    for slot in range(COLONISTS_PER_PLAYER):
        loc = s[b + slot]
        if not is_movable(m, loc) or canonical_slot(s, p, slot) != slot:
            continue
        kind = slot_kind(slot)
        for path in range(m[M_NUM_PATHS]):
            if m[M_PATH_KIND + path] != kind or loc == PATH_LOC_BASE + path:
                continue
            if distance_to_path(m, loc, path) > steps:
                continue
            if path_is_free_for(m, occupancy, path, kind):
                mask[A_MOVE + slot * MAX_PATHS + path] = True


@njit
def legal_builds(s, m, p, mask):
    if houses_of(s, m, p) >= HOUSES_PER_PLAYER:
        return
    for c in range(m[M_NUM_CITIES]):
        if not is_buildable_place(m, c) or has_house(s, p, c):
            continue
        if colonist_adjacent_to(s, m, p, c) and can_afford_house(s, p, c, s[CITY_GOOD + c]):
            mask[A_BUILD + c] = True


@njit
def legal_prefect(s, m, mask):
    for v in range(m[M_NUM_PROVINCES]):
        if s[BONUS_COIN_SIDE + v] == 0:
            mask[A_PRODUCE + v] = True
    mask[A_CASH] = True


@njit
def legal_overflow(s, p, mask):
    for g in range(NUM_GOODS):
        if s[INCOMING + p * NUM_GOODS + g] > 0:
            mask[A_GOOD + g] = True


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


@njit
def legal_mercator(s, p, mask):
    mask[A_DONE] = True
    if trades_left(s) <= 0:
        return
    b = pbase(p)
    free = free_slots(s, p)
    money = s[b + P_MONEY]
    for g in range(NUM_GOODS):
        if (s[TRADED_GOODS] >> g) & 1:
            continue
        for q in range(1, min(s[b + P_GOODS + g], MAX_TRADE) + 1):
            mask[A_SELL + g * MAX_TRADE + q - 1] = True
        for q in range(1, min(free, money // GOOD_PRICE[g], MAX_TRADE) + 1):
            mask[A_BUY + g * MAX_TRADE + q - 1] = True


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


@njit
def legal_buy_cards(s, p, mask):
    mask[A_DONE] = True
    if s[BUYS_LEFT] <= 0:
        return
    kind = s[ACTION_KIND]
    cost = np.zeros(NUM_GOODS, dtype=np.int32)
    for slot in range(DISPLAY_SLOTS):
        if (s[SLOTS_BOUGHT] >> slot) & 1:
            continue
        for variant in range(PAY_VARIANTS):
            if can_buy(s, p, slot, variant, kind, cost):
                mask[A_BUY_CARD + slot * PAY_VARIANTS + variant] = True


@njit
def legal_settle(s, m, p, mask):
    if not can_pay_colonist(s, p):
        return
    for kind in range(2):
        if storehouse_colonist_slot(s, p, kind) < 0:
            continue
        for c in range(m[M_NUM_CITIES]):
            if c != m[M_CAPITAL] and not has_house(s, p, c):
                continue
            if m[M_CITY_HAS_PATH + c * 2 + kind] == 1:
                mask[A_SETTLE + kind * MAX_CITIES + c] = True


# --------------------------------------------------------------------------- entry point
@njit
def fill_legal(s, m, mask):
    """Write the legal mask of the pending decision into ``mask`` (bool, NUM_ACTIONS)."""
    mask[:] = False
    phase = s[PHASE]
    p = s[CURRENT_PLAYER]
    if phase == PHASE_PLAY_CARD:
        legal_play(s, m, p, mask)
    elif phase == PHASE_DIPLOMAT:
        legal_diplomat(s, p, mask)
    elif phase == PHASE_TRIBUNE_COLONIST:
        legal_tribune_colonist(s, p, mask)
    elif phase == PHASE_ARCHITECT_MOVE:
        legal_moves(s, m, p, mask)
        legal_builds(s, m, p, mask)
        mask[A_DONE] = True
    elif phase == PHASE_ARCHITECT_BUILD:
        legal_builds(s, m, p, mask)
        mask[A_DONE] = True
    elif phase == PHASE_PREFECT:
        legal_prefect(s, m, mask)
    elif phase == PHASE_BONUS_GOOD:
        for g in range(NUM_GOODS):
            mask[A_GOOD + g] = True
    elif phase == PHASE_OVERFLOW:
        legal_overflow(s, p, mask)
    elif phase == PHASE_MERCATOR:
        legal_mercator(s, p, mask)
    elif phase == PHASE_BUY_CARDS:
        legal_buy_cards(s, p, mask)
    elif phase == PHASE_COLONIST:
        legal_settle(s, m, p, mask)
        mask[A_TAX] = True
        mask[A_DONE] = True
    elif phase == PHASE_COLONIST_SETTLE:
        legal_settle(s, m, p, mask)
        mask[A_DONE] = True


@njit
def only_done_is_legal(s, m, mask):
    """True if the pending decision offers nothing but "done" (it is then taken automatically)."""
    fill_legal(s, m, mask)
    if not mask[A_DONE]:
        return False
    return mask.sum() == 1
