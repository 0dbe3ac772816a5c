"""Final scoring (docs/rules.md §7): VP per god, the Concordia card, special squares.

``score_parts`` fills one row of VP per scoring category for a player *as if the game
ended now*; the final score is the same computation once the game is over.
``score_totals`` is the one way to total them (``Game.scores``, observations and rewards).
The VP per unit and the caps of each god come from the card data (:mod:`concordia_env.engine.cards`).
"""

from __future__ import annotations

import numpy as np

from ..cards import (
    BRICK,
    CARD_GOD,
    CARD_KIND,
    CONCORDIA_VP,
    FIRST_SPECIALIST,
    JUPITER,
    JUPITER_CAP,
    JUPITER_VP,
    KIND_MINERVA_VP,
    KIND_SPECIALIST_GOOD,
    MARS,
    MARS_CAP,
    MARS_VP,
    MERCURIUS,
    MERCURIUS_CAP,
    MERCURIUS_VP,
    MINERVA,
    NUM_CARD_TYPES,
    NUM_GODS,
    NUM_GOODS,
    SATURNUS,
    SATURNUS_VP,
    SPECIAL_SQUARE_VP,
    VESTA,
    VESTA_SESTERTII_PER_VP,
)
from ..maps import M_CITY_PROVINCE, M_CITY_SPECIAL, M_NUM_CITIES
from ..state import (
    CITY_GOOD,
    COLONISTS_PER_PLAYER,
    CONCORDIA_HOLDER,
    HOUSES,
    MAX_CITIES,
    NUM_PLAYERS,
    P_COLONISTS,
    P_DISCARD,
    P_HAND,
    P_MONEY,
    PRAEFECTUS_MAGNUS,
)
from ._jit import njit
from .common import colonists_on_board, goods_value, pbase

#: score categories: the six gods, then the special squares (Aegyptus), then Concordia
SPECIAL_PART = NUM_GODS
CONCORDIA_PART = NUM_GODS + 1
NUM_SCORE_PARTS = NUM_GODS + 2


@njit
def cards_owned(s, p, t):
    b = pbase(p)
    return s[b + P_HAND + t] + s[b + P_DISCARD + t]


@njit
def god_card_counts(s, p, out):
    """Cards owned per god into ``out[:NUM_GODS]``."""
    for g in range(NUM_GODS):
        out[g] = 0
    for t in range(NUM_CARD_TYPES):
        out[CARD_GOD[t]] += cards_owned(s, p, t)


@njit
def houses_by_good(s, m, p, out):
    """Own houses per good of their city."""
    for g in range(NUM_GOODS):
        out[g] = 0
    for c in range(m[M_NUM_CITIES]):
        if s[HOUSES + p * MAX_CITIES + c] == 1:
            out[s[CITY_GOOD + c]] += 1


@njit
def houses_of_good(s, m, p, good):
    n = 0
    for c in range(m[M_NUM_CITIES]):
        if s[HOUSES + p * MAX_CITIES + c] == 1 and s[CITY_GOOD + c] == good:
            n += 1
    return n


@njit
def count_bits(bits):
    n = 0
    while bits:
        n += bits & 1
        bits >>= 1
    return n


@njit
def house_summary(s, m, p):
    """(houses, houses in brick cities, bit set of goods produced, bit set of provinces).

    Bit sets rather than arrays: scoring runs for every player at every observation, and
    small heap arrays would dominate its cost.
    """
    houses = 0
    brick = 0
    goods = 0
    provinces = 0
    for c in range(m[M_NUM_CITIES]):
        if s[HOUSES + p * MAX_CITIES + c] == 1:
            good = s[CITY_GOOD + c]
            houses += 1
            if good == BRICK:
                brick += 1
            goods |= 1 << good
            provinces |= 1 << m[M_CITY_PROVINCE + c]
    return houses, brick, goods, provinces


@njit
def provinces_with_house(s, m, p):
    return count_bits(house_summary(s, m, p)[3])


@njit
def colonists_on_squares(s, m, p):
    n = 0
    b = pbase(p) + P_COLONISTS
    for i in range(COLONISTS_PER_PLAYER):
        loc = s[b + i]
        if 0 <= loc < MAX_CITIES and m[M_CITY_SPECIAL + loc] == 1:
            n += 1
    return n


@njit
def score_parts(s, m, p, out, with_concordia):
    """VP of player p per category (``out`` has NUM_SCORE_PARTS entries).

    ``out[:NUM_GODS]`` first holds the cards per god, then each is multiplied by what one
    card of that god is worth.
    """
    god_card_counts(s, p, out)
    houses, brick, goods, provinces = house_summary(s, m, p)
    out[VESTA] *= (s[pbase(p) + P_MONEY] + goods_value(s, p)) // VESTA_SESTERTII_PER_VP
    out[JUPITER] *= min(JUPITER_VP * (houses - brick), JUPITER_CAP)
    out[SATURNUS] *= SATURNUS_VP * count_bits(provinces)
    out[MERCURIUS] *= min(MERCURIUS_VP * count_bits(goods), MERCURIUS_CAP)
    out[MARS] *= min(MARS_VP * colonists_on_board(s, p), MARS_CAP)
    minerva = 0
    for t in range(NUM_CARD_TYPES):
        kind = CARD_KIND[t]
        if kind >= FIRST_SPECIALIST:
            owned = cards_owned(s, p, t)
            if owned > 0:
                minerva += owned * KIND_MINERVA_VP[kind] * houses_of_good(s, m, p, KIND_SPECIALIST_GOOD[kind])
    out[MINERVA] = minerva
    out[SPECIAL_PART] = SPECIAL_SQUARE_VP * colonists_on_squares(s, m, p)
    out[CONCORDIA_PART] = CONCORDIA_VP if (with_concordia and s[CONCORDIA_HOLDER] == p) else 0


@njit
def cards_score(s, m, p):
    """VP of player p's cards alone: the six gods, without the special squares or Concordia.

    This is what the intermediate scoring counts (docs/rules.md §8: the cards as in §7);
    the 7 VP of a colonist on an Aegyptus special square are paid at the end of the game
    (§9.1) and are not a card.
    """
    parts = np.zeros(NUM_SCORE_PARTS, dtype=np.int32)
    score_parts(s, m, p, parts, False)
    return parts[:NUM_GODS].sum()


@njit
def score_totals(s, m, out):
    """Every player's total VP as if the game ended now into ``out[p]`` (Concordia card included)."""
    parts = np.zeros(NUM_SCORE_PARTS, dtype=np.int32)
    for p in range(s[NUM_PLAYERS]):
        score_parts(s, m, p, parts, True)
        out[p] = parts.sum()


@njit
def ranking(s, m, out):
    """The players from first to last place into ``out[:n]`` (docs/rules.md §7), as if the game ended now.

    Most VP first; ties go to the Praefectus Magnus holder, then to the players passing
    right from them (seat ``pm``, ``pm - 1``, ...): the one tie-break of the game.
    """
    n = s[NUM_PLAYERS]
    totals = np.zeros(n, dtype=np.int64)
    score_totals(s, m, totals)
    pm = s[PRAEFECTUS_MAGNUS]
    for k in range(n):  # tie-break order first, then a stable insertion sort by VP
        out[k] = (pm - k) % n
    for i in range(1, n):
        p = out[i]
        j = i - 1
        while j >= 0 and totals[out[j]] < totals[p]:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = p


@njit
def winner(s, m):
    """The player in first place (:func:`ranking`): the winner once the game is over."""
    order = np.zeros(s[NUM_PLAYERS], dtype=np.int64)
    ranking(s, m, order)
    return order[0]
