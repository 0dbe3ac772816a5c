"""What each action does (one function per card or decision), and the turn flow.

``apply_action(s, m, a)`` changes the state for a legal action ``a``; ``step`` in
:mod:`concordia_env.engine.rules.entry_points` checks legality first. After an action the flow
continues until the next real decision: a pending decision whose only legal action is
"done" is closed automatically (no colonist to buy, nothing to trade...).
"""

from __future__ import annotations

import numpy as np

from ..actions import (
    RANGE_BUILD,
    RANGE_BUY,
    RANGE_BUY_CARD,
    RANGE_CASH,
    RANGE_DIPLOMAT,
    RANGE_DONE,
    RANGE_GOOD,
    RANGE_MOVE,
    RANGE_PLAY,
    RANGE_PRODUCE,
    RANGE_SELL,
    RANGE_SETTLE,
    RANGE_TAX,
    RANGE_TRIBUNE_COLONIST,
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
    range_of,
)
from ..cards import (
    CARD_KIND,
    DISPLAY_SLOTS,
    FRANKINCENSE_TRADE_MONEY,
    GOOD_PRICE,
    HOUSE_GOODS_COST,
    HOUSES_PER_PLAYER,
    INTERMEDIATE_PRIZES,
    K_ARCHITECT,
    K_COLONIST,
    K_CONSUL,
    K_DIPLOMAT,
    K_MERCATOR,
    K_MERCATOR_BOUGHT,
    K_PREFECT,
    K_SENATOR,
    K_TRIBUNE,
    KIND_MERCATOR_MONEY,
    KIND_SPECIALIST_GOOD,
    NUM_CARD_TYPES,
    NUM_GOODS,
)
from ..maps import (
    M_CAPITAL,
    M_FRANKINCENSE,
    M_FRANKINCENSE_PROVINCE,
    M_NILE_NEXT,
    M_NUM_PROVINCES,
    M_PATH_SPECIAL,
    M_VARIABLE_PROVINCE,
)
from ..state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    BUYS_LEFT,
    CITY_GOOD,
    COLONISTS_PER_PLAYER,
    CONCORDIA_HOLDER,
    CURRENT_PLAYER,
    DECISION_COUNT,
    DISPLAY,
    FINAL_TURNS_LEFT,
    FIRST_SEA_SLOT,
    HOUSES,
    INCOMING,
    INTERMEDIATE_PAID,
    MAX_CITIES,
    MAX_PLAYERS,
    NILE_MARKER,
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
from ._jit import njit, njit_borrowing
from ._scratch import stack_zeros
from .facts import (
    architect_steps,
    cards_to_buy,
    cash_bonus_value,
    colonist_tax,
    discard_size,
    final_turns_left,
    prefect_production,
    specialist_production,
    trades_left,
    tribune_payout,
)
from .legal import buy_card_cost, copyable_top, diplomat_target, distance_to_path
from .scoring import cards_score
from .state_helpers import (
    free_slots,
    hand_card_of_kind,
    house_money_cost,
    houses_of,
    num_players,
    pay_colonist,
    pay_goods,
    pbase,
    storehouse_colonist_slot,
)


# --------------------------------------------------------------------------- turn flow
@njit
def trigger_end(s, p):
    """p takes the Concordia card; every other player then has one final turn (docs/rules.md §6)."""
    if s[CONCORDIA_HOLDER] >= 0:
        return
    s[CONCORDIA_HOLDER] = p
    s[FINAL_TURNS_LEFT] = final_turns_left(num_players(s), p, s[TURN_PLAYER])


@njit
def clear_action_context(s):
    """Forget the finished action, so that every turn boundary looks the same."""
    s[PLAYED_KIND] = -1
    s[ACTION_KIND] = -1
    s[STEPS_LEFT] = 0
    s[TRADED_GOODS] = 0
    s[BUYS_LEFT] = 0
    s[SLOTS_BOUGHT] = 0


@njit
def end_turn(s):
    p = s[TURN_PLAYER]
    n = num_players(s)
    if s[PM_PASS_PENDING] == 1:
        s[PRAEFECTUS_MAGNUS] = (s[PRAEFECTUS_MAGNUS] - 1) % n
        s[PM_PASS_PENDING] = 0
    s[TURN_COUNT] += 1
    clear_action_context(s)
    if s[FINAL_TURNS_LEFT] > 0:
        s[FINAL_TURNS_LEFT] -= 1
        if s[FINAL_TURNS_LEFT] == 0:
            s[PHASE] = PHASE_GAME_OVER
            s[CURRENT_PLAYER] = -1
            return
    nxt = (p + 1) % n
    s[TURN_PLAYER] = nxt
    s[CURRENT_PLAYER] = nxt
    s[PHASE] = PHASE_PLAY_CARD


@njit_borrowing
def end_action(s, m):
    """Close the card action being carried out (its end-of-action effects) and the turn."""
    kind = s[ACTION_KIND]
    p = s[TURN_PLAYER]
    if kind == K_ARCHITECT:
        move_to_special_squares(s, m, p)
    elif kind == K_SENATOR or kind == K_CONSUL:
        slide_and_refill(s, p)
    end_turn(s)


# --------------------------------------------------------------------------- playing a card
@njit
def play_card(s, m, kind):
    p = s[TURN_PLAYER]
    t = hand_card_of_kind(s, p, kind)
    b = pbase(p)
    s[b + P_HAND + t] -= 1
    s[b + P_DISCARD + t] += 1
    s[b + P_DISCARD_TOP] = t
    s[PLAYED_KIND] = kind
    if kind == K_TRIBUNE:
        tribune(s, m, p)
    elif kind == K_DIPLOMAT:
        s[PHASE] = PHASE_DIPLOMAT
    else:
        begin_action(s, m, p, kind)


@njit
def begin_action(s, m, p, kind):
    """Start the action of a card kind (played, or copied by a Diplomat)."""
    s[ACTION_KIND] = kind
    if kind == K_ARCHITECT:
        s[STEPS_LEFT] = architect_steps(s, p)
        s[PHASE] = PHASE_ARCHITECT_MOVE
    elif kind == K_PREFECT:
        s[PHASE] = PHASE_PREFECT
    elif kind == K_MERCATOR or kind == K_MERCATOR_BOUGHT:
        s[pbase(p) + P_MONEY] += KIND_MERCATOR_MONEY[kind]
        s[TRADED_GOODS] = 0
        s[PHASE] = PHASE_MERCATOR
    elif kind == K_SENATOR or kind == K_CONSUL:
        s[BUYS_LEFT] = cards_to_buy(kind)
        s[SLOTS_BOUGHT] = 0
        s[PHASE] = PHASE_BUY_CARDS
    elif kind == K_COLONIST:
        s[PHASE] = PHASE_COLONIST
    else:  # a specialist
        specialist(s, m, p, KIND_SPECIALIST_GOOD[kind])


@njit
def diplomat(s, m, offset):
    p = s[TURN_PLAYER]
    top = copyable_top(s, diplomat_target(s, p, offset))
    begin_action(s, m, p, CARD_KIND[top])


# --------------------------------------------------------------------------- Tribune
@njit
def tribune(s, m, p):
    b = pbase(p)
    taken = discard_size(s, p)
    for t in range(NUM_CARD_TYPES):
        s[b + P_HAND + t] += s[b + P_DISCARD + t]
        s[b + P_DISCARD + t] = 0
    s[b + P_DISCARD_TOP] = -1
    s[b + P_MONEY] += tribune_payout(taken)
    if s[OPT_INTERMEDIATE] == 1 and s[b + P_INTERMEDIATE_DONE] == 0:
        intermediate_scoring(s, m, p)
    s[ACTION_KIND] = K_TRIBUNE
    s[PHASE] = PHASE_TRIBUNE_COLONIST


@njit
def intermediate_scoring(s, m, p):
    """First Tribune: score the cards onto the VP marker; pay out once everyone has (docs/rules.md §8).

    **Decision**: ranks are competition ranks: a player's rank is 1 + the number of
    players with a strictly higher total, so two players tied for first both get 2 and
    nobody gets 1.
    """
    b = pbase(p)
    s[b + P_INTERMEDIATE_VP] = cards_score(s, m, p)
    s[b + P_INTERMEDIATE_DONE] = 1
    n = num_players(s)
    for q in range(n):
        if s[pbase(q) + P_INTERMEDIATE_DONE] == 0:
            return
    if s[INTERMEDIATE_PAID] == 1:
        return
    for q in range(n):
        better = 0
        for r in range(n):
            if s[pbase(r) + P_INTERMEDIATE_VP] > s[pbase(q) + P_INTERMEDIATE_VP]:
                better += 1
        if better < len(INTERMEDIATE_PRIZES):
            s[pbase(q) + P_MONEY] += INTERMEDIATE_PRIZES[better]
    for q in range(n):
        s[pbase(q) + P_INTERMEDIATE_VP] = 0
    s[INTERMEDIATE_PAID] = 1


@njit
def place_colonist(s, p, kind, place):
    slot = storehouse_colonist_slot(s, p, kind)
    pay_colonist(s, p)
    s[pbase(p) + P_COLONISTS + slot] = place


# --------------------------------------------------------------------------- Architect
@njit
def move_colonist(s, m, slot, path):
    p = s[TURN_PLAYER]
    at = pbase(p) + P_COLONISTS + slot
    s[STEPS_LEFT] -= distance_to_path(m, s[at], path)
    s[at] = PATH_LOC_BASE + path


@njit
def build_house(s, m, city):
    p = s[TURN_PLAYER]
    good = s[CITY_GOOD + city]
    s[pbase(p) + P_MONEY] -= house_money_cost(s, city, good)
    pay_goods(s, p, HOUSE_GOODS_COST, good)
    s[HOUSES + p * MAX_CITIES + city] = 1
    s[PHASE] = PHASE_ARCHITECT_BUILD
    if houses_of(s, m, p) == HOUSES_PER_PLAYER:
        trigger_end(s, p)


@njit
def move_to_special_squares(s, m, p):
    """A sea colonist on a line to a special square moves onto it, one per player and square."""
    b = pbase(p) + P_COLONISTS
    for slot in range(FIRST_SEA_SLOT, COLONISTS_PER_PLAYER):
        loc = s[b + slot]
        if loc < PATH_LOC_BASE:
            continue
        square = m[M_PATH_SPECIAL + loc - PATH_LOC_BASE]
        if square < 0:
            continue
        occupied = False
        for other in range(COLONISTS_PER_PLAYER):
            if s[b + other] == square:
                occupied = True
        if not occupied:
            s[b + slot] = square


# --------------------------------------------------------------------------- Prefect
@njit
def produce(s, m, province, bonus_good):
    """Production in a province: the goods of ``prefect_production``, then the marker, the Nile and the traders."""
    p = s[TURN_PLAYER]
    prefect_production(s, m, p, province, bonus_good, s[INCOMING : INCOMING + MAX_PLAYERS * NUM_GOODS])
    if s[PRAEFECTUS_MAGNUS] == p:
        s[PM_PASS_PENDING] = 1
    s[BONUS_GOOD + province] = bonus_good
    s[BONUS_COIN_SIDE + province] = 1
    if s[NILE_MARKER] == province:
        s[NILE_MARKER] = m[M_NILE_NEXT + province]
    if m[M_FRANKINCENSE_PROVINCE + province] == 1:
        pay_frankincense_traders(s, m)
    store_incoming(s)


@njit
def pay_frankincense_traders(s, m):
    square = m[M_FRANKINCENSE]
    for q in range(num_players(s)):
        b = pbase(q)
        for slot in range(COLONISTS_PER_PLAYER):
            if s[b + P_COLONISTS + slot] == square:
                s[b + P_MONEY] += FRANKINCENSE_TRADE_MONEY


@njit
def cash_bonus(s, m):
    p = s[TURN_PLAYER]
    coins = cash_bonus_value(s, m)
    for v in range(m[M_NUM_PROVINCES]):
        if s[BONUS_COIN_SIDE + v] == 1:
            s[BONUS_COIN_SIDE + v] = 0
            if v == m[M_VARIABLE_PROVINCE]:
                s[BONUS_GOOD + v] = -1  # the Gavdos marker is removed
    s[pbase(p) + P_MONEY] += coins
    end_action(s, m)


@njit
def prefect_produce(s, m, province):
    if province == m[M_VARIABLE_PROVINCE]:
        s[BONUS_GOOD + province] = -1
        s[PHASE] = PHASE_BONUS_GOOD
    else:
        produce(s, m, province, s[BONUS_GOOD + province])


# --------------------------------------------------------------------------- storehouse
@njit
def incoming_kinds(s, q):
    kinds = 0
    for g in range(NUM_GOODS):
        if s[INCOMING + q * NUM_GOODS + g] > 0:
            kinds += 1
    return kinds


@njit
def store_what_is_forced(s, q):
    """Store q's incoming goods where no choice exists; True if q must still choose.

    Everything fits: all is stored. No free slot: the rest is lost. One kind left: fill
    the free slots with it. Otherwise q chooses one good at a time (docs/rules.md §5).
    """
    base = INCOMING + q * NUM_GOODS
    gb = pbase(q) + P_GOODS
    total = 0
    for g in range(NUM_GOODS):
        total += s[base + g]
    free = free_slots(s, q)
    if total <= free or free == 0 or incoming_kinds(s, q) == 1:
        for g in range(NUM_GOODS):
            take = min(s[base + g], free)
            s[gb + g] += take
            free -= take
            s[base + g] = 0
        return False
    return True


@njit
def store_incoming(s):
    """Store produced goods player by player from the active one; ask where a choice remains."""
    n = num_players(s)
    p = s[TURN_PLAYER]
    for k in range(n):
        q = (p + k) % n
        if store_what_is_forced(s, q):
            s[CURRENT_PLAYER] = q
            s[PHASE] = PHASE_OVERFLOW
            return
    s[CURRENT_PLAYER] = p
    end_turn(s)  # production (Prefect or specialist) is the last part of its action


@njit
def keep_good(s, good):
    q = s[CURRENT_PLAYER]
    s[INCOMING + q * NUM_GOODS + good] -= 1
    s[pbase(q) + P_GOODS + good] += 1
    store_incoming(s)


@njit
def specialist(s, m, p, good):
    s[INCOMING + p * NUM_GOODS + good] += specialist_production(s, m, p, good)
    store_incoming(s)


# --------------------------------------------------------------------------- Mercator
@njit
def trade(s, m, good, quantity, selling):
    p = s[TURN_PLAYER]
    b = pbase(p)
    sign = -1 if selling else 1
    s[b + P_GOODS + good] += sign * quantity
    s[b + P_MONEY] -= sign * quantity * GOOD_PRICE[good]
    s[TRADED_GOODS] |= 1 << good


# --------------------------------------------------------------------------- Senator / Consul
@njit
def buy_card(s, slot, variant):
    p = s[TURN_PLAYER]
    cost = stack_zeros(NUM_GOODS, np.int32)
    buy_card_cost(s, slot, variant, s[ACTION_KIND], cost)
    b = pbase(p)
    for g in range(NUM_GOODS):
        s[b + P_GOODS + g] -= cost[g]
    s[b + P_HAND + s[DISPLAY + slot]] += 1
    s[DISPLAY + slot] = -1
    s[SLOTS_BOUGHT] |= 1 << slot
    s[BUYS_LEFT] -= 1


@njit
def close_up_display(s):
    """Slide the display's cards to the left over the empty slots; returns how many there are."""
    filled = 0
    for slot in range(DISPLAY_SLOTS):
        card = s[DISPLAY + slot]
        if card >= 0:
            s[DISPLAY + slot] = -1
            s[DISPLAY + filled] = card
            filled += 1
    return filled


@njit
def refill_display(s):
    """Fill the display's empty slots (closed up: at its right end) from the stack while it lasts.

    Returns the cards in the display afterwards.
    """
    filled = 0
    while filled < DISPLAY_SLOTS and s[DISPLAY + filled] >= 0:
        filled += 1
    while filled < DISPLAY_SLOTS and s[STACK_SIZE] > 0:
        s[STACK_SIZE] -= 1
        s[DISPLAY + filled] = s[STACK + s[STACK_SIZE]]
        s[STACK + s[STACK_SIZE]] = -1
        filled += 1
    return filled


@njit
def slide_and_refill(s, p):
    """Close the gaps to the left, refill from the stack; buying the last card ends the game."""
    close_up_display(s)
    if refill_display(s) == 0 and s[SLOTS_BOUGHT] != 0:
        trigger_end(s, p)


# --------------------------------------------------------------------------- Colonist
@njit
def collect_tax(s, m):
    p = s[TURN_PLAYER]
    s[pbase(p) + P_MONEY] += colonist_tax(s, p)
    end_action(s, m)


# --------------------------------------------------------------------------- dispatch
@njit_borrowing
def apply_action(s, m, a):
    """Carry out legal action ``a`` (legality is checked by the caller)."""
    s[DECISION_COUNT] += 1
    r = range_of(a)
    if r == RANGE_DONE:
        end_action(s, m)
    elif r == RANGE_PLAY:
        play_card(s, m, decode_play(a))
    elif r == RANGE_DIPLOMAT:
        diplomat(s, m, decode_diplomat(a))
    elif r == RANGE_MOVE:
        slot, path = decode_move(a)
        move_colonist(s, m, slot, path)
    elif r == RANGE_BUILD:
        build_house(s, m, decode_build(a))
    elif r == RANGE_PRODUCE:
        prefect_produce(s, m, decode_produce(a))
    elif r == RANGE_CASH:
        cash_bonus(s, m)
    elif r == RANGE_GOOD:
        if s[PHASE] == PHASE_BONUS_GOOD:
            produce(s, m, m[M_VARIABLE_PROVINCE], decode_good(a))
        else:
            keep_good(s, decode_good(a))
    elif r == RANGE_SELL:
        good, quantity = decode_sell(a)
        trade(s, m, good, quantity, True)
    elif r == RANGE_BUY:
        good, quantity = decode_buy(a)
        trade(s, m, good, quantity, False)
    elif r == RANGE_BUY_CARD:
        slot, variant = decode_buy_card(a)
        buy_card(s, slot, variant)
    elif r == RANGE_SETTLE:
        kind, place = decode_settle(a)
        place_colonist(s, s[TURN_PLAYER], kind, place)
        s[PHASE] = PHASE_COLONIST_SETTLE
    elif r == RANGE_TAX:
        collect_tax(s, m)
    elif r == RANGE_TRIBUNE_COLONIST:
        place_colonist(s, s[TURN_PLAYER], decode_tribune_colonist(a), m[M_CAPITAL])
        end_action(s, m)
    close_finished_parts(s, m)


@njit
def close_finished_parts(s, m):
    """Actions that have used up their allowance end by themselves."""
    phase = s[PHASE]
    if (phase == PHASE_MERCATOR and trades_left(s) <= 0) or (phase == PHASE_BUY_CARDS and s[BUYS_LEFT] == 0):
        end_action(s, m)
