"""The compiled observation as it was before the one-pass rewrite: the reference.

``concordia_env.engine.observation.fill_observation`` tallies every player's houses in one pass
over the cities and scores from that tally; this is the former code, which rescanned the
cities for every question (houses in a city, a player's houses, the scoring summary, and
the houses of each specialist's good). ``tests/test_observation_speed_equivalence.py``
checks that both write the same bits, and the timing harness there compares their speed.

The fill functions are the former ones of ``engine/observation.py``, and the scoring
helpers those of ``engine/rules/scoring.py`` as they were (copied, so that a change there
cannot change the reference); only the imports changed. The layout (the ``O_*``/``Q_*``
offsets and the scales) is imported: it is what both must agree on.
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.cards import (
    BRICK,
    CARD_COST,
    CARD_GOD,
    CARD_KIND,
    COLONISTS_PER_PLAYER,
    CONCORDIA_VP,
    DISPLAY_SLOTS,
    FIRST_SPECIALIST,
    HOUSES_PER_PLAYER,
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
    NUM_KINDS,
    NUM_SALE_CARDS,
    NUM_START_TYPES,
    SATURNUS,
    SATURNUS_VP,
    SLOT_ANY_COST,
    SLOT_FIXED_COST,
    SPECIAL_SQUARE_VP,
    VESTA,
    VESTA_SESTERTII_PER_VP,
)
from concordia_env.engine.maps import M_CITY_PROVINCE, M_CITY_SPECIAL, M_NUM_CITIES, M_NUM_PROVINCES
from concordia_env.engine.observation import (
    BUYS_SCALE,
    COLONIST_KIND_SCALE,
    GOD_MAX,
    GOODS_SCALE,
    KIND_MAX,
    MIN_PLAYERS,
    MONEY_SCALE,
    O_ACTION_KIND,
    O_BONUS_COIN_SIDE,
    O_BONUS_GOOD,
    O_BUYS_LEFT,
    O_CITY_GOOD,
    O_CITY_HOUSES,
    O_COLONIST_SLOTS,
    O_DECIDER_SEAT,
    O_DISPLAY_COST,
    O_DISPLAY_GOD,
    O_DISPLAY_KIND,
    O_END_TRIGGERED,
    O_FINAL_TURNS_LEFT,
    O_INCOMING,
    O_INTERMEDIATE_PAID,
    O_MAP,
    O_NILE,
    O_OBSERVER_DECIDES,
    O_OPT_DISPLAY_COSTS,
    O_OPT_INTERMEDIATE,
    O_PHASE,
    O_PLAYED_KIND,
    O_PLAYER_COUNT,
    O_PLAYERS,
    O_PM_PASS_PENDING,
    O_SLOT_ANY,
    O_SLOT_COST,
    O_SLOTS_BOUGHT,
    O_STACK_CARDS,
    O_STACK_SIZE,
    O_STEPS_LEFT,
    O_TRADED_GOODS,
    O_TURN_COUNT,
    O_TURN_SEAT,
    OBS_SIZE_V1,
    PLAYER_OBS_SIZE,
    Q_COLONISTS_PATH,
    Q_COLONISTS_PLACE,
    Q_COLONISTS_STOREHOUSE,
    Q_CONCORDIA,
    Q_DISCARD,
    Q_DISCARD_TOP,
    Q_FREE_SLOTS,
    Q_GOD_CARDS,
    Q_GOODS,
    Q_HAND,
    Q_HOUSE_COUNT,
    Q_HOUSES,
    Q_INTERMEDIATE_DONE,
    Q_INTERMEDIATE_VP,
    Q_MONEY,
    Q_PRAEFECTUS_MAGNUS,
    Q_PRESENT,
    Q_SCORE_PARTS,
    Q_SCORE_TOTAL,
    SCORE_PART_SCALE,
    SCORE_TOTAL_SCALE,
    SLOT_COST_SCALE,
    SLOT_LOCATIONS,
    STEPS_SCALE,
    TURN_SCALE,
)
from concordia_env.engine.rules import njit
from concordia_env.engine.rules.state_helpers import (
    colonists_on_board,
    free_slots,
    goods_value,
    houses_in_city,
    houses_of,
    pbase,
)
from concordia_env.engine.state import (
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
    STEPS_LEFT,
    TRADED_GOODS,
    TURN_COUNT,
    TURN_PLAYER,
)

# --------------------------------------------------------------------------- scoring (former rules/scoring.py)
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
    """(houses, houses in brick cities, bit set of goods produced, bit set of provinces)."""
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
    """VP of player p per category (``out`` has NUM_SCORE_PARTS entries)."""
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


# --------------------------------------------------------------------------- the fill (former engine/observation.py)
@njit
def _one_hot(out, offset, index):
    """Set out[offset + index] to 1 unless index is negative (the "none" code)."""
    if index >= 0:
        out[offset + index] = 1.0


@njit
def _bits(out, offset, value, count):
    for i in range(count):
        out[offset + i] = (value >> i) & 1


@njit
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
    out[O_STEPS_LEFT] = s[STEPS_LEFT] / STEPS_SCALE
    _bits(out, O_TRADED_GOODS, s[TRADED_GOODS], NUM_GOODS)
    out[O_BUYS_LEFT] = s[BUYS_LEFT] / BUYS_SCALE
    _bits(out, O_SLOTS_BOUGHT, s[SLOTS_BOUGHT], DISPLAY_SLOTS)
    for k in range(n):
        q = (p + k) % n
        for g in range(NUM_GOODS):
            out[O_INCOMING + k * NUM_GOODS + g] = s[INCOMING + q * NUM_GOODS + g] / GOODS_SCALE
    out[O_PM_PASS_PENDING] = s[PM_PASS_PENDING]
    if s[FINAL_TURNS_LEFT] >= 0:
        out[O_END_TRIGGERED] = 1.0
        out[O_FINAL_TURNS_LEFT] = s[FINAL_TURNS_LEFT] / MAX_PLAYERS
    out[O_TURN_COUNT] = s[TURN_COUNT] / TURN_SCALE
    out[O_INTERMEDIATE_PAID] = s[INTERMEDIATE_PAID]


@njit
def _fill_board(s, m, out):
    for c in range(m[M_NUM_CITIES]):
        _one_hot(out, O_CITY_GOOD + c * NUM_GOODS, s[CITY_GOOD + c])
        out[O_CITY_HOUSES + c] = houses_in_city(s, c) / MAX_PLAYERS
    for v in range(m[M_NUM_PROVINCES]):
        _one_hot(out, O_BONUS_GOOD + v * NUM_GOODS, s[BONUS_GOOD + v])
        out[O_BONUS_COIN_SIDE + v] = s[BONUS_COIN_SIDE + v]
    _one_hot(out, O_NILE, s[NILE_MARKER])
    table = s[OPT_DISPLAY_COSTS]
    for slot in range(DISPLAY_SLOTS):
        for g in range(NUM_GOODS):
            out[O_SLOT_COST + slot * NUM_GOODS + g] = SLOT_FIXED_COST[table, slot, g] / SLOT_COST_SCALE
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
    out[O_STACK_SIZE] = size / NUM_SALE_CARDS


@njit
def _fill_colonists(s, m, q, o):
    b = pbase(q) + P_COLONISTS
    for slot in range(COLONISTS_PER_PLAYER):
        kind = 0 if slot < FIRST_SEA_SLOT else 1
        loc = s[b + slot]
        if loc == LOC_STOREHOUSE:
            o[Q_COLONISTS_STOREHOUSE + kind] += 1.0 / COLONIST_KIND_SCALE
        elif loc < PATH_LOC_BASE:
            o[Q_COLONISTS_PLACE + loc * 2 + kind] += 1.0 / COLONIST_KIND_SCALE
        else:
            o[Q_COLONISTS_PATH + loc - PATH_LOC_BASE] += 1.0 / COLONIST_KIND_SCALE


@njit
def _fill_player(s, m, q, o, parts):
    """Player q's block into ``o`` (a view of the output at the block's offset)."""
    b = pbase(q)
    o[Q_PRESENT] = 1.0
    o[Q_MONEY] = s[b + P_MONEY] / MONEY_SCALE
    for g in range(NUM_GOODS):
        o[Q_GOODS + g] = s[b + P_GOODS + g] / GOODS_SCALE
    o[Q_FREE_SLOTS] = free_slots(s, q) / GOODS_SCALE
    _fill_colonists(s, m, q, o)
    for c in range(m[M_NUM_CITIES]):
        o[Q_HOUSES + c] = s[HOUSES + q * MAX_CITIES + c]
    o[Q_HOUSE_COUNT] = houses_of(s, m, q) / HOUSES_PER_PLAYER
    for t in range(NUM_CARD_TYPES):
        owned = s[b + P_HAND + t] + s[b + P_DISCARD + t]
        if owned == 0:
            continue  # most card types are owned by nobody: skip their divisions
        kind = CARD_KIND[t]
        o[Q_HAND + kind] += s[b + P_HAND + t] / KIND_MAX[kind]
        o[Q_DISCARD + kind] += s[b + P_DISCARD + t] / KIND_MAX[kind]
        o[Q_GOD_CARDS + CARD_GOD[t]] += owned / GOD_MAX[CARD_GOD[t]]
    top = s[b + P_DISCARD_TOP]
    if top >= 0:
        o[Q_DISCARD_TOP + CARD_KIND[top]] = 1.0
    o[Q_PRAEFECTUS_MAGNUS] = 1.0 if s[PRAEFECTUS_MAGNUS] == q else 0.0
    o[Q_CONCORDIA] = 1.0 if s[CONCORDIA_HOLDER] == q else 0.0
    score_parts(s, m, q, parts, True)
    total = 0
    for i in range(NUM_SCORE_PARTS):
        o[Q_SCORE_PARTS + i] = parts[i] / SCORE_PART_SCALE
        total += parts[i]
    o[Q_SCORE_TOTAL] = total / SCORE_TOTAL_SCALE
    o[Q_INTERMEDIATE_VP] = s[b + P_INTERMEDIATE_VP] / SCORE_TOTAL_SCALE
    o[Q_INTERMEDIATE_DONE] = s[b + P_INTERMEDIATE_DONE]


@njit
def _fill_colonist_slots(s, p, out):
    """v1: one-hot location of each of the observer's colonist slots (location code + 1)."""
    b = pbase(p) + P_COLONISTS
    for slot in range(COLONISTS_PER_PLAYER):
        out[O_COLONIST_SLOTS + slot * SLOT_LOCATIONS + s[b + slot] - LOC_STOREHOUSE] = 1.0


@njit
def fill_observation(s, m, p, out):
    """Write player p's observation of state ``s`` into ``out`` (float32); its length chooses the version."""
    out[:] = 0.0
    _fill_header(s, p, out)
    _fill_board(s, m, out)
    n = s[NUM_PLAYERS]
    parts = np.zeros(NUM_SCORE_PARTS, dtype=np.int32)
    for k in range(n):
        start = O_PLAYERS + k * PLAYER_OBS_SIZE
        _fill_player(s, m, (p + k) % n, out[start : start + PLAYER_OBS_SIZE], parts)
    if out.shape[0] >= OBS_SIZE_V1:
        _fill_colonist_slots(s, p, out)


@njit
def observe_batch_into(states, m, players, out):
    """Row i of ``out`` gets ``players[i]``'s observation of ``states[i]``."""
    for i in range(states.shape[0]):
        fill_observation(states[i], m, players[i], out[i])
