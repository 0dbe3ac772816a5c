"""Small helpers over the state array shared by the legal-move and effect functions.

Every function takes the state ``s`` (int32, one game) and, where the board matters, the
map tables ``m`` (see :mod:`concordia_env.engine.maps`). None of them allocates or raises.
"""

from __future__ import annotations

import numpy as np

from ..cards import (
    CARD_KIND,
    COLONIST_COST,
    GOOD_PRICE,
    HOUSE_GOODS_COST,
    HOUSE_MONEY_COST,
    NUM_CARD_TYPES,
    NUM_GOODS,
    STOREHOUSE_SLOTS,
)
from ..maps import M_CAPITAL, M_CITY_PROVINCE, M_CITY_SPECIAL, M_NUM_CITIES, M_PATH_END_A, M_PATH_END_B
from ..state import (
    CITY_GOOD,
    COLONISTS_PER_PLAYER,
    FIRST_SEA_SLOT,
    HOUSES,
    LOC_STOREHOUSE,
    MAX_CITIES,
    NUM_PLAYERS,
    P_COLONISTS,
    P_GOODS,
    P_HAND,
    P_MONEY,
    PATH_LOC_BASE,
    PLAYER_SIZE,
    PLAYERS,
)
from ._jit import njit


@njit
def count_bits(bits):
    """The number of set bits of ``bits`` (a bit set, >= 0).

    Written as the loop that LLVM recognizes and compiles to one popcount instruction.
    """
    n = 0
    while bits:
        bits &= bits - 1  # clears the lowest set bit
        n += 1
    return n


@njit
def lowest_bit(bits):
    """The index of the lowest set bit of ``bits`` (a bit set, > 0): the bits below it, counted.

    Why: a loop over the few set bits of a bit set (the places with a player's houses)
    takes less time than a test of every bit, which mispredicts.
    """
    return count_bits((bits & -bits) - 1)


@njit
def pbase(p):
    """Offset of player p's block."""
    return PLAYERS + p * PLAYER_SIZE


@njit
def num_players(s):
    return s[NUM_PLAYERS]


@njit
def slot_kind(slot):
    """The kind of the colonist in a colonist slot: 0 (``maps.LAND``) for slots 0-2, 1 (``maps.SEA``) for 3-5."""
    return 0 if slot < FIRST_SEA_SLOT else 1


@njit
def goods_held(s, p):
    b = pbase(p) + P_GOODS
    total = 0
    for g in range(NUM_GOODS):
        total += s[b + g]
    return total


@njit
def colonists_in_storehouse(s, p):
    b = pbase(p) + P_COLONISTS
    n = 0
    for i in range(COLONISTS_PER_PLAYER):
        if s[b + i] == LOC_STOREHOUSE:
            n += 1
    return n


@njit
def colonists_on_board(s, p):
    return COLONISTS_PER_PLAYER - colonists_in_storehouse(s, p)


@njit
def free_slots(s, p):
    """Storehouse slots free for goods: 12 - goods - colonists not yet on the board."""
    return STOREHOUSE_SLOTS - goods_held(s, p) - colonists_in_storehouse(s, p)


@njit
def storehouse_colonist_slot(s, p, kind):
    """The first colonist slot of this kind still in the storehouse, or -1."""
    b = pbase(p) + P_COLONISTS
    first = 0 if kind == 0 else FIRST_SEA_SLOT
    for i in range(first, first + FIRST_SEA_SLOT):
        if s[b + i] == LOC_STOREHOUSE:
            return i
    return -1


@njit
def has_house(s, p, city):
    return s[HOUSES + p * MAX_CITIES + city] == 1


@njit
def houses_in_city(s, city):
    n = 0
    for p in range(s[NUM_PLAYERS]):
        n += s[HOUSES + p * MAX_CITIES + city]
    return n


@njit
def houses_of(s, m, p):
    n = 0
    for c in range(m[M_NUM_CITIES]):
        n += s[HOUSES + p * MAX_CITIES + c]
    return n


@njit
def can_pay_goods(s, p, cost_row_owner, row):
    """True if player p holds the goods of ``cost_row_owner[row]`` (a 2-D cost table)."""
    b = pbase(p) + P_GOODS
    for g in range(NUM_GOODS):
        if s[b + g] < cost_row_owner[row, g]:
            return False
    return True


@njit
def pay_goods(s, p, cost_row_owner, row):
    b = pbase(p) + P_GOODS
    for g in range(NUM_GOODS):
        s[b + g] -= cost_row_owner[row, g]


@njit
def can_pay_colonist(s, p):
    b = pbase(p) + P_GOODS
    for g in range(NUM_GOODS):
        if s[b + g] < COLONIST_COST[g]:
            return False
    return True


@njit
def pay_colonist(s, p):
    b = pbase(p) + P_GOODS
    for g in range(NUM_GOODS):
        s[b + g] -= COLONIST_COST[g]


@njit
def house_money_cost(s, city, city_good):
    """Money for the next house in a city: base price × houses there after building."""
    return HOUSE_MONEY_COST[city_good] * (houses_in_city(s, city) + 1)


@njit
def house_price(s, city):
    """Money for the next house in ``city`` (whoever builds it; its goods are ``HOUSE_GOODS_COST[good]``)."""
    return house_money_cost(s, city, s[CITY_GOOD + city])


@njit
def can_afford_house(s, p, city, city_good):
    if s[pbase(p) + P_MONEY] < house_money_cost(s, city, city_good):
        return False
    return can_pay_goods(s, p, HOUSE_GOODS_COST, city_good)


@njit
def is_buildable_place(m, city):
    """A city with a token: not the capital and not a special square.

    Written with ``if``s: numba compiles a chain of ``and`` into a call some fifty times
    slower, and the planners ask this for every place many times per decision.
    """
    if city == m[M_CAPITAL] or m[M_CITY_SPECIAL + city] != 0:
        return False
    return m[M_CITY_PROVINCE + city] >= 0


@njit
def places_next_to(m, loc):
    """The places a colonist at location ``loc`` may build in, as a pair (-1: none).

    A colonist standing in a place is next to that place; one on a path is next to both of
    its ends; one in the storehouse is next to nothing.
    """
    if loc == LOC_STOREHOUSE:
        return -1, -1
    if loc < PATH_LOC_BASE:
        return loc, -1
    path = loc - PATH_LOC_BASE
    return m[M_PATH_END_A + path], m[M_PATH_END_B + path]


@njit
def next_to(m, loc, city):
    """True if a colonist at location ``loc`` is next to ``city`` (see ``places_next_to``)."""
    a, b = places_next_to(m, loc)
    return a == city or b == city


@njit
def colonist_adjacent_to(s, m, p, city):
    """True if one of p's colonists stands in the city or on a path ending there."""
    b = pbase(p) + P_COLONISTS
    for i in range(COLONISTS_PER_PLAYER):
        if next_to(m, s[b + i], city):
            return True
    return False


# places_next_to_colonists keeps places as bits of one int64
assert MAX_CITIES < 63, "a bit set of places needs more than 64 bits"


@njit
def places_next_to_colonists(s, m, p):
    """The places next to one of p's colonists (``places_next_to`` each), as a bit set (bit c: place c).

    Where :func:`colonist_adjacent_to` holds: the legal builds test only these places.
    """
    b = pbase(p) + P_COLONISTS
    near = 0
    for i in range(COLONISTS_PER_PLAYER):
        a, c = places_next_to(m, s[b + i])
        if a >= 0:
            near |= np.int64(1) << a
        if c >= 0:
            near |= np.int64(1) << c
    return near


@njit
def hand_card_of_kind(s, p, kind):
    """The lowest card type of this kind in p's hand (the card that goes to the discard), or -1."""
    b = pbase(p) + P_HAND
    for t in range(NUM_CARD_TYPES):
        if s[b + t] > 0 and CARD_KIND[t] == kind:
            return t
    return -1


@njit
def hand_kinds(s, p):
    """The kinds of the cards in p's hand as a bit set: bit k is set when
    :func:`hand_card_of_kind` finds a card of kind k.

    One pass over the hand instead of one per kind (the legal mask of "play a card", the
    most frequent decision, asks about every kind); written without branches, which
    mispredict on a hand's irregular pattern.
    """
    b = pbase(p) + P_HAND
    kinds = 0
    for t in range(NUM_CARD_TYPES):
        kinds |= np.int64(s[b + t] > 0) << CARD_KIND[t]
    return kinds


@njit
def goods_value(s, p):
    b = pbase(p) + P_GOODS
    total = 0
    for g in range(NUM_GOODS):
        total += s[b + g] * GOOD_PRICE[g]
    return total
