"""Final scoring (docs/rules.md §7): VP per god, the Concordia card, special squares.

``score_parts`` fills one row of VP per scoring category for a player *as if the game
ended now*; the final score is the same computation once the game is over. It gathers
what the scoring counts of the player (its houses, cards, wealth and colonists) and hands
it to ``score_parts_of``, the one home of the VP per god: the observation, which reads the
same fields for its own entries, gathers them itself and calls that too.
``score_totals`` is the one way to total them (``Game.scores``, observations and rewards).
The VP per unit and the caps of each god come from the card data (:mod:`concordia_env.engine.cards`).
"""

from __future__ import annotations

import numpy as np

from ..cards import (
    BRICK,
    CARD_KIND,
    CONCORDIA_VP,
    FIRST_SPECIALIST,
    GOD_SALE_TYPES,
    GOD_START_TYPES,
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
    MAX_PLAYERS,
    NUM_PLAYERS,
    P_COLONISTS,
    P_DISCARD,
    P_HAND,
    P_MONEY,
    PRAEFECTUS_MAGNUS,
)
from ._jit import njit, njit_borrowing
from ._scratch import stack_zeros
from .state_helpers import colonists_on_board, count_bits, goods_value, lowest_bit, pbase

#: score categories: the six gods, then the special squares (Aegyptus), then Concordia
SPECIAL_PART = NUM_GODS
CONCORDIA_PART = NUM_GODS + 1
NUM_SCORE_PARTS = NUM_GODS + 2
#: the card types of the specialists, the cards Minerva counts
SPECIALIST_TYPES = np.flatnonzero(CARD_KIND >= FIRST_SPECIALIST)


@njit
def cards_owned(s, p, t):
    b = pbase(p)
    return s[b + P_HAND + t] + s[b + P_DISCARD + t]


@njit
def card_bits(s, p):
    """(hand, discard): bit sets of the card types in player p's hand and in its discard pile.

    Why bit sets: a sale card is one card (check_state: 0 or 1 of its type in a hand, or in
    a pile), so counting sale cards is counting bits, one instruction (``god_cards``, and
    the observation's card shares), where a loop over the types would test each. The loop
    here is written so that LLVM vectorizes it: it reads views of the hand and the pile
    (numba wraps negative indices, so ``s[b + P_HAND + t]`` costs a compare and a select at
    every read), it has no branch, and it runs to the views' length (a constant count would
    be unrolled instead).
    """
    b = pbase(p)
    hand = s[b + P_HAND : b + P_HAND + NUM_CARD_TYPES]
    discard = s[b + P_DISCARD : b + P_DISCARD + NUM_CARD_TYPES]
    in_hand = 0
    in_discard = 0
    for t in range(len(hand)):
        in_hand |= np.int64(hand[t] > 0) << t
        in_discard |= np.int64(discard[t] > 0) << t
    return in_hand, in_discard


@njit
def god_cards(of_first, of_second, cards, god):
    """Cards of ``god`` a player owns: ``of_first`` and ``of_second`` of the god's starting card
    types (``cards.GOD_START_TYPES``; 0 for a missing one), and its sale cards, counted in its
    ``card_bits`` (``cards``).
    """
    in_hand, in_discard = cards
    sale = GOD_SALE_TYPES[god]
    return of_first + of_second + count_bits(in_hand & sale) + count_bits(in_discard & sale)


@njit
def god_card_counts(s, p, cards, out):
    """Cards owned per god into ``out[:NUM_GODS]`` (``cards``: p's ``card_bits``)."""
    for g in range(NUM_GODS):
        first, second = GOD_START_TYPES[g]
        of_first = cards_owned(s, p, first) if first >= 0 else 0
        of_second = cards_owned(s, p, second) if second >= 0 else 0
        out[g] = god_cards(of_first, of_second, cards, g)


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


#: bits of one good in a house tally's houses per good: a good counts up to 255 houses, more than any map has cities
GOOD_LANE_BITS = 8
GOOD_LANE_MASK = (1 << GOOD_LANE_BITS) - 1


@njit
def house_places(s, m, p):
    """Bit set of the places where player p has a house.

    The loop is written so that LLVM vectorizes it (see ``card_bits``).
    """
    start = HOUSES + p * MAX_CITIES
    houses = s[start : start + MAX_CITIES]
    bits = 0
    for c in range(m[M_NUM_CITIES]):
        bits |= np.int64(houses[c] == 1) << c
    return bits


@njit
def house_tally(s, m, p):
    """Player p's houses as the scoring counts them (``tally_of_places``)."""
    return tally_of_places(s, m, house_places(s, m, p))


@njit
def tally_of_places(s, m, places):
    """The houses at ``places`` (a bit set) as the scoring counts them: (houses, houses in brick
    cities, bit set of goods produced, bit set of provinces, houses per good packed
    GOOD_LANE_BITS bits a good).

    Scalars rather than arrays: scoring runs for every player at every observation, and
    small heap arrays would dominate its cost. Visits the places with a house only, without
    a branch per place.
    """
    count = 0
    brick = 0
    good_bits = 0
    province_bits = 0
    per_good = 0
    while places:
        c = lowest_bit(places)
        places &= places - 1
        good = s[CITY_GOOD + c]
        count += 1
        brick += good == BRICK
        good_bits |= 1 << good
        province_bits |= 1 << m[M_CITY_PROVINCE + c]
        per_good += 1 << (GOOD_LANE_BITS * good)
    return count, brick, good_bits, province_bits, per_good


@njit
def tally_houses_of_good(tally, good):
    """Houses in cities of ``good`` in a ``house_tally``."""
    return (tally[4] >> (GOOD_LANE_BITS * good)) & GOOD_LANE_MASK


@njit
def house_summary(s, m, p):
    """(houses, houses in brick cities, bit set of goods produced, bit set of provinces): p's ``house_tally``."""
    houses, brick, goods, provinces, _ = house_tally(s, m, p)
    return houses, brick, goods, provinces


@njit
def provinces_with_house(s, m, p):
    return count_bits(house_summary(s, m, p)[3])


@njit
def on_special_square(m, loc):
    """True for a colonist at location ``loc`` on a special square (Aegyptus: 7 VP each, docs/rules.md §9.1).

    Written with ``if``s, not a chain of ``and`` (see ``common.is_buildable_place``).
    """
    if loc < 0 or loc >= MAX_CITIES:
        return False
    return m[M_CITY_SPECIAL + loc] == 1


@njit
def colonists_on_squares(s, m, p):
    n = 0
    b = pbase(p) + P_COLONISTS
    for i in range(COLONISTS_PER_PLAYER):
        n += on_special_square(m, s[b + i])
    return n


@njit
def minerva_vp(cards, tally):
    """Minerva's VP: each specialist card owned counts the houses in cities of its good.

    ``cards``: the player's ``card_bits`` (a specialist is a sale card: one card, in a hand
    or a discard pile); ``tally``: its ``house_tally``.
    """
    in_hand, in_discard = cards
    vp = 0
    for i in range(len(SPECIALIST_TYPES)):
        t = SPECIALIST_TYPES[i]
        kind = CARD_KIND[t]
        owned = ((in_hand >> t) & 1) + ((in_discard >> t) & 1)
        vp += owned * KIND_MINERVA_VP[kind] * tally_houses_of_good(tally, KIND_SPECIALIST_GOOD[kind])
    return vp


@njit
def wealth(s, p):
    """Player p's money plus its goods at their price: what Vesta counts."""
    return s[pbase(p) + P_MONEY] + goods_value(s, p)


@njit
def score_parts(s, m, p, out, with_concordia):
    """VP of player p per category (``out`` has NUM_SCORE_PARTS entries)."""
    cards = card_bits(s, p)
    god_card_counts(s, p, cards, out)
    holds_concordia = with_concordia and s[CONCORDIA_HOLDER] == p
    on_board = colonists_on_board(s, p)
    on_squares = colonists_on_squares(s, m, p)
    score_parts_of(house_tally(s, m, p), cards, wealth(s, p), on_board, on_squares, holds_concordia, out)


@njit
def score_parts_of(tally, cards, riches, on_board, on_squares, holds_concordia, out):
    """The VP of each category from what the scoring counts of a player, gathered by the caller.

    ``tally``: its ``house_tally``; ``cards``: its ``card_bits``; ``riches``: its ``wealth``;
    ``on_board``, ``on_squares``: its colonists on the board and on special squares;
    ``holds_concordia``: whether the Concordia card counts for it; ``out[:NUM_GODS]``: its
    ``god_card_counts``, each multiplied here by what one card of the god is worth.
    ``score_parts`` gathers these from the state; the observation gathers them as it writes
    the player's block, which shows most of them too.
    """
    houses, brick, goods, provinces, _ = tally
    out[VESTA] *= riches // VESTA_SESTERTII_PER_VP
    out[JUPITER] *= min(JUPITER_VP * (houses - brick), JUPITER_CAP)
    out[SATURNUS] *= SATURNUS_VP * count_bits(provinces)
    out[MERCURIUS] *= min(MERCURIUS_VP * count_bits(goods), MERCURIUS_CAP)
    out[MARS] *= min(MARS_VP * on_board, MARS_CAP)
    out[MINERVA] = minerva_vp(cards, tally)
    out[SPECIAL_PART] = SPECIAL_SQUARE_VP * on_squares
    out[CONCORDIA_PART] = CONCORDIA_VP if holds_concordia else 0


@njit_borrowing
def cards_score(s, m, p):
    """VP of player p's cards alone: the six gods, without the special squares or Concordia.

    This is what the intermediate scoring counts (docs/rules.md §8: the cards as in §7);
    the 7 VP of a colonist on an Aegyptus special square are paid at the end of the game
    (§9.1) and are not a card.
    """
    parts = stack_zeros(NUM_SCORE_PARTS, np.int32)
    score_parts(s, m, p, parts, False)
    return parts[:NUM_GODS].sum()


@njit_borrowing
def score_totals(s, m, out):
    """Every player's total VP as if the game ended now into ``out[p]`` (Concordia card included)."""
    parts = stack_zeros(NUM_SCORE_PARTS, np.int32)
    for p in range(s[NUM_PLAYERS]):
        score_parts(s, m, p, parts, True)
        out[p] = parts.sum()


@njit_borrowing
def ranking(s, m, out):
    """The players from first to last place into ``out[:n]`` (docs/rules.md §7), as if the game ended now.

    Most VP first; ties go to the Praefectus Magnus holder, then to the players passing
    right from them (seat ``pm``, ``pm - 1``, ...): the one tie-break of the game.
    """
    n = s[NUM_PLAYERS]
    totals = stack_zeros(MAX_PLAYERS, np.int64)
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


@njit_borrowing
def winner(s, m):
    """The player in first place (:func:`ranking`): the winner once the game is over."""
    order = stack_zeros(MAX_PLAYERS, np.int64)
    ranking(s, m, order)
    return order[0]
