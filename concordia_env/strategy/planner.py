"""The turn planner: rules of thumb a decent human player would recognise, compiled.

Every decision of a turn is taken here, on the state array, for whoever must decide
(``s[CURRENT_PLAYER]``), with the evaluation of :mod:`.evaluation` and the ``remaining`` of
the decision that started the plan. :func:`decide` dispatches by the pending decision:

*Which card, whom to copy, where to produce, which bonus good.* These are taken by
**whole-turn lookahead**: every legal answer is played out to the end of the turn on a copy
(:func:`play_out`, with the rules of thumb below for the turn's other decisions) and scored
by the utility of the position reached: the decider's estimated final VP minus the
opponents' mean (``opponent_weight``). The best answer wins; ties go to the lower action.
Inside a lookahead, such a decision is again taken by lookahead (a Diplomat that copies a
Prefect tries every province), and the best answer's play-out is the plan. The rollout
policy may switch these nested lookaheads off (``RolloutSettings.nested_lookahead``): the
nested decision is then taken by the position right after it, as a card purchase is.

*What a house is worth.* :func:`.evaluation.house_net_values`: god scoring with the cards
held, production and what future cards will make of it, minus its price in money and goods.

*Architect* (:func:`architect`). Moves one colonist at a time to the path that makes the
most valuable set of houses affordable now (greedily, best house first, within its money
and goods; a position next to good cities it cannot afford yet is worth a little; shorter
moves win ties), then builds those houses, best first, and stops.

*Mercator* (:func:`mercator`). Plans its trades, at most two kinds: sells surplus and buys
the goods its next houses (those within reach of its colonists; bricks above all) and a new
colonist need, as far as money and storehouse space allow, and stops there.

*Senator / Consul, Tribune's colonist* (:func:`best_by_one_step`). Each purchase is tried
and the position right after it evaluated: gods that score well on its board, specialists of
goods it produces, useful actions; the "any" good paid with the good it needs least;
nothing when nothing is worth its price.

*Colonist* (:func:`colonist`). Settles when a colonist is worth its food and tool (Mars
cards, another Architect step), next to the best cities it has not built in yet; otherwise
it takes the tax.

*Storehouse overflow* (:func:`keep_good`). Keeps the goods it needs first, then the most
valuable ones.

Every answer is a legal action of the pending decision; a rule of thumb that proposed
another would be a bug: the planner then plays the first legal action and counts the event
in ``status[STATUS_ILLEGAL]``, which the Python agents turn into an error in strict mode.
Every fact of the rules comes from the compiled rule queries of
:mod:`concordia_env.engine.rules.facts`; the strategy is all that is written here. This is a faithful
port of the Python heuristic the project used before (the readable reference in
``tests/reference/heuristic.py``; the tests check that both decide alike). Ties between equal
houses are broken by the lower place id (the Python version broke them by the iteration
order of a set).

Like the engine's rules, the code compares with ``==`` chains where Python would test tuple
membership (numba). The play-outs of one decision share what does not change between them
(:func:`new_plan_cache`: the players' values, the Architect's house values of the last
:data:`HOUSE_SLOTS` positions it valued) and the storage of their lookahead frames
(:func:`new_frames`, allocated once per decision rather than once per option); the helpers
of the innermost loops borrow their arrays (``njit_borrowing``: no reference counting), and
the Architect's rule and :func:`rule_of_thumb` are compiled into their callers
(``njit_inline``): reference counting was a quarter of an Architect decision's options. The
play-out itself and the rules of thumb count no references either (``njit_borrowing``), their
scratch (the decider's facts, the Mercator's plan, a one-step lookahead's position) on their
stack (``stack_zeros``), so a play-out allocates nothing. None of it changes an answer
(``tests/strategy/test_recorded_options.py``).
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.actions import (
    A_DONE,
    A_MOVE,
    MAX_TRADE,
    NUM_ACTIONS,
    RANGE_SETTLE,
    build,
    buy,
    choose_good,
    decode_move,
    decode_settle,
    range_of,
    sell,
)
from concordia_env.engine.cards import GOOD_PRICE, MERCATOR_KINDS, NUM_GOODS
from concordia_env.engine.maps import (
    M_NUM_CITIES,
    M_NUM_PATHS,
    M_PATH_END_A,
    M_PATH_END_B,
    M_PATH_KIND,
    MAX_CITIES,
    MAX_PATHS,
)
from concordia_env.engine.rules import njit, njit_borrowing, njit_inline, stack_zeros
from concordia_env.engine.rules.effects import apply_action
from concordia_env.engine.rules.entry_points import advance
from concordia_env.engine.rules.facts import (
    colonists_on_board,
    free_slots,
    house_prices,
    path_distance,
    places_next_to,
    trades_left,
)
from concordia_env.engine.rules.legal import fill_legal
from concordia_env.engine.state import (
    COLONISTS_PER_PLAYER,
    CURRENT_PLAYER,
    HOUSES,
    MAX_PLAYERS,
    P_COLONISTS,
    P_GOODS,
    P_MONEY,
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
    PLAYER_SIZE,
    PLAYERS,
    STATE_SIZE,
    TRADED_GOODS,
    TURN_COUNT,
)

from .evaluation import (
    NUM_FACTS,
    good_need_value,
    house_gains,
    house_net_values,
    need,
    need_value,
    new_value_cache,
    player_facts,
    position_utility,
)
from .params import (
    P_OPPONENT_WEIGHT,
    P_POSITION_CITIES,
    P_POSITION_WEIGHT,
    P_SETTLE_POSITION_WEIGHT,
    P_STEP_COST,
    R_NESTED_LOOKAHEAD,
)

#: a turn's play-out never has more decisions than this (a safety net for the planning loop)
MAX_TURN_DECISIONS = 64
#: nested lookaheads within one turn: a card, whom a Diplomat copies, a Prefect's province,
#: the Gavdos bonus good (each nested decision comes later in that order, so four suffice)
MAX_LOOKAHEAD_DEPTH = 4
#: legal answers of one lookahead decision at most (14 cards, 13 Prefect answers)
MAX_CANDIDATES = 32
#: status counters the planner fills for its caller
STATUS_ILLEGAL = 0
STATUS_SIZE = 1
#: staying put wins ties with Architect moves by this margin (VP)
STAY_MARGIN = 1e-9
#: a Mercator plan moves as few units as it can: this much VP per unit moved breaks ties
UNIT_MOVED_COST = 1e-3
#: the quantities a Mercator plan weighs for one good: -MAX_TRADE sold .. +MAX_TRADE bought
TRADE_WIDTH = 2 * MAX_TRADE + 1
#: the smallest gain for which a Mercator trades at all
MIN_TRADE_GAIN = 1e-6
#: overflow: after the needs, the dearest good (VP per sestertius of price)
KEEP_PRICE_WEIGHT = 1e-3


# --------------------------------------------------------------------------- small helpers
@njit
def is_lookahead_phase(phase):
    """Decisions taken by playing the rest of the turn out for every answer."""
    return phase == PHASE_PLAY_CARD or phase == PHASE_DIPLOMAT or phase == PHASE_PREFECT or phase == PHASE_BONUS_GOOD


@njit_borrowing
def apply(s, m, a, scratch):
    """Carry out legal action ``a`` and close decisions that offer nothing but "done" (as ``entry_points.step``)."""
    apply_action(s, m, a)
    advance(s, m, scratch)


@njit_borrowing
def copy_state(dst, src):
    """``dst[:] = src`` as a loop: numba's slice assignment needs its allocator, which a borrowing function lacks."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit
def first_legal(mask):
    for a in range(NUM_ACTIONS):
        if mask[a]:
            return a
    return -1


@njit_borrowing
def decider_houses(s, m, params, remaining, facts, gains, price_money, price_goods):
    """Facts, house gains and house prices of the player to decide, into the arrays given.

    What the Architect and the Colonist read. ``facts`` and ``gains`` come zeroed (the
    caller's ``stack_zeros`` scratch, so the rules of thumb allocate nothing); the prices are
    overwritten for every place of the map.
    """
    p = s[CURRENT_PLAYER]
    player_facts(s, m, params, p, facts)
    house_gains(s, m, params, p, facts, remaining, gains)
    house_prices(s, m, price_money, price_goods)


@njit_borrowing
def decider_needs(s, m, params, remaining, needs):
    """The needs of the player to decide into ``needs`` (zeroed; what the trading rules of thumb read)."""
    facts = stack_zeros(NUM_FACTS, np.float64)
    gains = stack_zeros(MAX_CITIES, np.float64)
    price_money = stack_zeros(MAX_CITIES, np.int64)
    price_goods = stack_zeros((MAX_CITIES, NUM_GOODS), np.int64)
    decider_houses(s, m, params, remaining, facts, gains, price_money, price_goods)
    need(s, m, params, s[CURRENT_PLAYER], facts, remaining, gains, price_goods, needs)


@njit_borrowing
def order_by_value(values, n, out):
    """The indices ``0..n-1`` into ``out[:n]``, highest value first, ties in index order.

    A stable insertion sort: what ``np.argsort(-values[:n], kind="mergesort")`` gives for
    values without NaN, without allocating.
    """
    for i in range(n):
        j = i
        while j > 0 and values[out[j - 1]] < values[i]:
            out[j] = out[j - 1]
            j -= 1
        out[j] = i


# --------------------------------------------------------------------------- what a decision's play-outs remember
#: what the Architect's house values depend on (:func:`same_house_key`): the decider, how many
#: colonists it has on the board, its block but for where they stand, and every house
HOUSE_KEY_SIZE = 2 + PLAYER_SIZE + MAX_PLAYERS * MAX_CITIES
#: house values remembered at once: the decision's position (every option starts there) and
#: the positions after the houses the options' play-outs build (many options build the same)
HOUSE_SLOTS = 8


@njit
def new_plan_cache():
    """What the play-outs of one decision (one ``remaining``, one game) remember, as one tuple.

    ``(keys, values, house_keys, nets, order, price_money, price_goods, recent)``: the
    evaluation's player values (:func:`.evaluation.new_value_cache`), and the Architect's house
    values of the last :data:`HOUSE_SLOTS` positions it valued (:func:`house_values`), one row
    each; ``recent[0]`` is the row used last, ``recent[1]`` the row overwritten next. Moving
    colonists changes no house value, so every step of an Architect, in every option's
    play-out, reuses them; and the options that build the same house share the values after it.
    """
    keys, values = new_value_cache()
    house_keys = np.full((HOUSE_SLOTS, HOUSE_KEY_SIZE), -1, dtype=np.int32)  # player -1: nothing valued yet
    nets = np.zeros((HOUSE_SLOTS, MAX_CITIES))
    order = np.zeros((HOUSE_SLOTS, MAX_CITIES), dtype=np.int64)
    price_money = np.zeros((HOUSE_SLOTS, MAX_CITIES), dtype=np.int64)
    price_goods = np.zeros((HOUSE_SLOTS, MAX_CITIES, NUM_GOODS), dtype=np.int64)
    recent = np.zeros(2, dtype=np.int64)
    return keys, values, house_keys, nets, order, price_money, price_goods, recent


@njit_borrowing
def same_house_key(s, p, keys, row):
    """Whether row ``row`` of ``keys`` holds what p's house values (:func:`house_values`) read of ``s``.

    The key: p; how many colonists p has on the board (the facts never read where they
    stand); p's block, its colonists' places left as they were stored; every house (the
    prices and the places p may build in). ``remaining`` and the map's goods are the same
    for every position of one decision.
    """
    if keys[row, 0] != p or keys[row, 1] != colonists_on_board(s, p):
        return False
    b = PLAYERS + p * PLAYER_SIZE
    for i in range(P_COLONISTS):
        if keys[row, 2 + i] != s[b + i]:
            return False
    for i in range(P_COLONISTS + COLONISTS_PER_PLAYER, PLAYER_SIZE):
        if keys[row, 2 + i] != s[b + i]:
            return False
    for i in range(MAX_PLAYERS * MAX_CITIES):
        if keys[row, 2 + PLAYER_SIZE + i] != s[HOUSES + i]:
            return False
    return True


@njit_borrowing
def store_house_key(s, p, keys, row):
    """Write p's house key of ``s`` into row ``row`` of ``keys`` (:func:`same_house_key`)."""
    keys[row, 0] = p
    keys[row, 1] = colonists_on_board(s, p)
    b = PLAYERS + p * PLAYER_SIZE
    for i in range(PLAYER_SIZE):
        keys[row, 2 + i] = s[b + i]
    for i in range(MAX_PLAYERS * MAX_CITIES):
        keys[row, 2 + PLAYER_SIZE + i] = s[HOUSES + i]


@njit_borrowing
def house_row(s, p, keys, recent):
    """The cache row whose key matches p's house key of ``s`` (the row used last is tried first), or -1."""
    row = recent[0]
    if same_house_key(s, p, keys, row):
        return row
    for other in range(HOUSE_SLOTS):
        if other != row and same_house_key(s, p, keys, other):
            return other
    return -1


@njit_inline
def house_values(s, m, params, remaining, cache):
    """The decider's house net values, its places by value and the house prices, from ``cache`` when it has them.

    Returns ``(nets, order, positive, price_money, price_goods)``: the net value of a house in
    each place (:func:`.evaluation.house_net_values`; -1 where the decider may not build),
    the places by net value, best first (ties: lower place id), how many of them are worth a
    house (net value above 0), and the prices. A row
    whose key matches the position (:func:`same_house_key`) is read back; else the values are
    computed into the row whose turn it is (round robin).
    """
    keys, all_nets, all_order, all_money, all_goods, recent = cache[2], cache[3], cache[4], cache[5], cache[6], cache[7]
    p = s[CURRENT_PLAYER]
    n_cities = m[M_NUM_CITIES]
    row = house_row(s, p, keys, recent)
    if row < 0:
        row = recent[1]
        recent[1] = (row + 1) % HOUSE_SLOTS
        store_house_key(s, p, keys, row)
        nets = all_nets[row]
        facts = stack_zeros(NUM_FACTS, np.float64)
        gains = stack_zeros(MAX_CITIES, np.float64)
        decider_houses(s, m, params, remaining, facts, gains, all_money[row], all_goods[row])
        house_net_values(s, m, params, p, facts, remaining, gains, all_money[row], all_goods[row], nets)
        for c in range(n_cities):
            if not np.isfinite(nets[c]):
                nets[c] = -1.0
        order_by_value(nets, n_cities, all_order[row])
    recent[0] = row
    nets = all_nets[row]
    order = all_order[row]
    positive = 0
    while positive < n_cities and nets[order[positive]] > 0:
        positive += 1
    return nets, order, positive, all_money[row], all_goods[row]


# --------------------------------------------------------------------------- Architect
@njit_borrowing
def plan_houses(
    order, positive, nets, reach, price_money, price_goods, money, goods, position_cities, chosen, goods_left
):
    """The best-valued affordable houses among the places in ``reach``, greedily (best first).

    ``order[:positive]`` lists the places worth a house by net value, best first (ties: lower
    place id); ``reach`` is a bit set of places (bit c: place c). Returns (value of the
    houses bought, value of the best ``position_cities`` places in reach that are worth a
    house but not affordable, number of houses chosen); the houses go into ``chosen`` in
    build order; ``goods_left`` is scratch of ``NUM_GOODS`` entries.
    """
    for g in range(NUM_GOODS):
        goods_left[g] = goods[g]
    money_left = money
    total = 0.0
    rest = 0.0
    rest_count = 0
    count = 0
    for i in range(positive):
        c = order[i]
        if (reach >> c) & 1 == 0:
            continue
        affordable = price_money[c] <= money_left
        for g in range(NUM_GOODS):
            if goods_left[g] < price_goods[c, g]:
                affordable = False
        if affordable:
            money_left -= price_money[c]
            for g in range(NUM_GOODS):
                goods_left[g] -= price_goods[c, g]
            total += nets[c]
            chosen[count] = c
            count += 1
        elif rest_count < position_cities:
            rest += nets[c]
            rest_count += 1
    return total, rest, count


@njit
def places_bits(m, loc):
    """The places a colonist at ``loc`` may build in, as a bit set (bit c: place c; every map has fewer than 64)."""
    a, b = places_next_to(m, loc)
    bits = np.int64(0)
    if a >= 0:
        bits |= np.int64(1) << a
    if b >= 0:
        bits |= np.int64(1) << b
    return bits


@njit_inline
def architect(s, m, params, remaining, mask, cache):
    """Move one colonist where the best set of affordable houses opens up, else build, else stop.

    A position is worth the houses it makes affordable (greedily, best first, within money
    and goods) plus ``position_weight`` times the best ``position_cities`` good cities next to
    the colonists that are not affordable yet; a move also pays ``step_cost`` per step.
    Staying put (build the best house, or stop) wins ties. The house values come from the
    decision's ``cache`` (:func:`house_values`): a move changes none of them.
    """
    p = s[CURRENT_PLAYER]
    nets, order, positive, price_money, price_goods = house_values(s, m, params, remaining, cache)
    b = PLAYERS + p * PLAYER_SIZE
    money = s[b + P_MONEY]
    goods = stack_zeros(NUM_GOODS, np.int32)
    for g in range(NUM_GOODS):
        goods[g] = s[b + P_GOODS + g]
    weight = params[P_POSITION_WEIGHT]
    cities = int(params[P_POSITION_CITIES])
    chosen = stack_zeros(MAX_CITIES, np.int64)
    goods_left = stack_zeros(NUM_GOODS, np.int32)
    next_to = stack_zeros(COLONISTS_PER_PLAYER, np.int64)
    reach = np.int64(0)
    for slot in range(COLONISTS_PER_PLAYER):
        next_to[slot] = places_bits(m, s[b + P_COLONISTS + slot])
        reach |= next_to[slot]
    total, rest, count = plan_houses(
        order, positive, nets, reach, price_money, price_goods, money, goods, cities, chosen, goods_left
    )
    best_value = total + weight * rest
    best = A_DONE
    for i in range(count):
        if mask[build(chosen[i])]:
            best = build(chosen[i])
            break
    if s[PHASE] != PHASE_ARCHITECT_MOVE:
        return best
    for a in range(A_MOVE, A_MOVE + COLONISTS_PER_PLAYER * MAX_PATHS):
        if not mask[a]:
            continue
        slot, path = decode_move(a)
        moved = (np.int64(1) << m[M_PATH_END_A + path]) | (np.int64(1) << m[M_PATH_END_B + path])
        for other in range(COLONISTS_PER_PLAYER):
            if other != slot:
                moved |= next_to[other]
        total, rest, _ = plan_houses(
            order, positive, nets, moved, price_money, price_goods, money, goods, cities, chosen, goods_left
        )
        value = total + weight * rest - params[P_STEP_COST] * path_distance(m, s[b + P_COLONISTS + slot], path)
        value = value - STAY_MARGIN
        if value > best_value:
            best_value = value
            best = a
    return best


# --------------------------------------------------------------------------- Mercator
@njit
def trade_score(gain, money_change, slots_change, money, free):
    """A plan's worth: its need premium minus a little per unit moved; -inf if money or space lacks."""
    if money + money_change < 0 or slots_change > free:
        return -np.inf
    return gain - UNIT_MOVED_COST * abs(slots_change)


@njit_borrowing
def plan_trades(params, goods, needs, money, free, open_goods, kinds, plan):
    """The best Mercator trades, at most ``kinds`` goods, into ``plan[k] = (good, +bought / -sold)``.

    Trades at the fixed price keep the player's wealth, so what a trade gains is the need
    premium of the evaluation: the plan turns money and surplus into the goods the next
    houses (bricks first) and colonist need, and stops there. Every quantity of one good
    and every pair of goods and quantities is scored; returns the number of trades.
    """
    n_open = 0
    for g in range(NUM_GOODS):
        if open_goods[g]:
            n_open += 1
    if kinds <= 0 or n_open == 0:
        return 0
    # gains[g, i]: what holding goods[g] + d more units adds, d = i - MAX_TRADE (-sold .. +bought)
    width = TRADE_WIDTH
    gains = stack_zeros((NUM_GOODS, TRADE_WIDTH), np.float64)
    for g in range(NUM_GOODS):
        if open_goods[g]:
            now = good_need_value(params, g, goods[g], needs)
            for i in range(MAX_TRADE - min(goods[g], MAX_TRADE), width):
                gains[g, i] = good_need_value(params, g, goods[g] + i - MAX_TRADE, needs) - now
    best_gain = MIN_TRADE_GAIN
    count = 0
    for g in range(NUM_GOODS):
        if not open_goods[g]:
            continue
        top = -np.inf
        top_d = 0
        for i in range(MAX_TRADE - min(goods[g], MAX_TRADE), width):
            d = i - MAX_TRADE
            value = trade_score(gains[g, i], -d * GOOD_PRICE[g], d, money, free)
            if value > top:
                top = value
                top_d = d
        if top > best_gain:
            best_gain = top
            plan[0, 0] = g
            plan[0, 1] = top_d
            count = 1
    if kinds < MERCATOR_KINDS:
        return count
    for g1 in range(NUM_GOODS):
        if not open_goods[g1]:
            continue
        for g2 in range(g1 + 1, NUM_GOODS):
            if not open_goods[g2]:
                continue
            top = -np.inf
            top_d1 = 0
            top_d2 = 0
            for i in range(MAX_TRADE - min(goods[g1], MAX_TRADE), width):
                d1 = i - MAX_TRADE
                for j in range(MAX_TRADE - min(goods[g2], MAX_TRADE), width):
                    d2 = j - MAX_TRADE
                    money_change = -d1 * GOOD_PRICE[g1] + -d2 * GOOD_PRICE[g2]
                    value = trade_score(gains[g1, i] + gains[g2, j], money_change, d1 + d2, money, free)
                    if value > top:
                        top = value
                        top_d1 = d1
                        top_d2 = d2
            if top > best_gain:
                best_gain = top
                count = 0
                if top_d1 != 0:
                    plan[count, 0] = g1
                    plan[count, 1] = top_d1
                    count += 1
                if top_d2 != 0:
                    plan[count, 0] = g2
                    plan[count, 1] = top_d2
                    count += 1
    return count


@njit_borrowing
def mercator(s, m, params, remaining, mask):
    """The first trade of the best plan of at most two kinds (sales first: they pay), or stop."""
    p = s[CURRENT_PLAYER]
    needs = stack_zeros((2, NUM_GOODS), np.int64)
    decider_needs(s, m, params, remaining, needs)
    b = PLAYERS + p * PLAYER_SIZE
    goods = stack_zeros(NUM_GOODS, np.int64)
    open_goods = stack_zeros(NUM_GOODS, np.bool_)
    for g in range(NUM_GOODS):
        goods[g] = s[b + P_GOODS + g]
        open_goods[g] = (s[TRADED_GOODS] >> g) & 1 == 0
    plan = stack_zeros((2, 2), np.int64)
    count = plan_trades(params, goods, needs, s[b + P_MONEY], free_slots(s, p), open_goods, trades_left(s), plan)
    if count == 2 and plan[1, 1] < plan[0, 1]:  # sales first (a stable sort by the change)
        for k in range(2):
            plan[0, k], plan[1, k] = plan[1, k], plan[0, k]
    for k in range(count):
        good = plan[k, 0]
        delta = plan[k, 1]
        if delta < 0:
            a = sell(good, -delta)
        else:
            a = buy(good, delta)
        if mask[a]:
            return a
    return A_DONE


# --------------------------------------------------------------------------- storehouse overflow
@njit_borrowing
def keep_good(s, m, params, remaining, mask):
    """Keep the good that adds most to the storehouse's need premium, then the dearest one."""
    p = s[CURRENT_PLAYER]
    needs = stack_zeros((2, NUM_GOODS), np.int64)
    decider_needs(s, m, params, remaining, needs)
    b = PLAYERS + p * PLAYER_SIZE
    goods = stack_zeros(NUM_GOODS, np.int64)
    for g in range(NUM_GOODS):
        goods[g] = s[b + P_GOODS + g]
    base = need_value(params, goods, needs)
    best = -1
    best_gain = -np.inf
    for g in range(NUM_GOODS):
        if not mask[choose_good(g)]:
            continue
        goods[g] += 1
        gain = need_value(params, goods, needs) - base + GOOD_PRICE[g] * KEEP_PRICE_WEIGHT
        goods[g] -= 1
        if gain > best_gain:
            best = choose_good(g)
            best_gain = gain
    return best


# --------------------------------------------------------------------------- one-step choices
@njit_borrowing
def best_by_one_step(s, m, params, remaining, mask, cache):
    """The action whose immediate result has the highest utility (card purchases, the Tribune's colonist)."""
    p = s[CURRENT_PLAYER]
    sim = stack_zeros(STATE_SIZE, np.int32)
    scratch = stack_zeros(NUM_ACTIONS, np.bool_)
    best = -1
    best_value = -np.inf
    for a in range(NUM_ACTIONS):
        if not mask[a]:
            continue
        copy_state(sim, s)
        apply(sim, m, a, scratch)
        value = position_utility(sim, m, params, remaining, p, params[P_OPPONENT_WEIGHT], cache[0], cache[1])
        if value > best_value:
            best = a
            best_value = value
    return best


# --------------------------------------------------------------------------- Colonist
@njit_borrowing
def place_potential(m, place, kind, gains, cities):
    """Value of the best ``cities`` unbuilt cities one path of this kind away from ``place``."""
    near = stack_zeros(MAX_CITIES, np.bool_)
    for path in range(m[M_NUM_PATHS]):
        if m[M_PATH_KIND + path] != kind:
            continue
        a = m[M_PATH_END_A + path]
        b = m[M_PATH_END_B + path]
        if a == place or b == place:
            near[a] = True
            near[b] = True
    near[place] = False
    total = 0.0
    for _ in range(cities):
        best = -1
        for c in range(m[M_NUM_CITIES]):
            if near[c] and gains[c] > 0 and (best < 0 or gains[c] > gains[best]):
                best = c
        if best < 0:
            break
        near[best] = False
        total += gains[best]
    return total


@njit_borrowing
def colonist(s, m, params, remaining, mask, cache):
    """Settle or tax by one-step lookahead; a settled colonist also counts the best unbuilt cities near it."""
    p = s[CURRENT_PLAYER]
    facts = stack_zeros(NUM_FACTS, np.float64)
    gains = stack_zeros(MAX_CITIES, np.float64)
    price_money = stack_zeros(MAX_CITIES, np.int64)
    price_goods = stack_zeros((MAX_CITIES, NUM_GOODS), np.int64)
    decider_houses(s, m, params, remaining, facts, gains, price_money, price_goods)
    sim = stack_zeros(STATE_SIZE, np.int32)
    scratch = stack_zeros(NUM_ACTIONS, np.bool_)
    cities = int(params[P_POSITION_CITIES])
    best = -1
    best_value = -np.inf
    for a in range(NUM_ACTIONS):
        if not mask[a]:
            continue
        copy_state(sim, s)
        apply(sim, m, a, scratch)
        value = position_utility(sim, m, params, remaining, p, params[P_OPPONENT_WEIGHT], cache[0], cache[1])
        if range_of(a) == RANGE_SETTLE:
            kind, place = decode_settle(a)
            value += params[P_SETTLE_POSITION_WEIGHT] * place_potential(m, place, kind, gains, cities)
        if value > best_value:
            best = a
            best_value = value
    return best


# --------------------------------------------------------------------------- dispatch
@njit_inline
def rule_of_thumb(s, m, params, remaining, mask, cache):
    """The answer of the rules of thumb to a decision that is no lookahead decision (``mask``: its legal mask).

    Compiled into its two callers (:func:`play_out`, :func:`decide_legal`): called at every
    step of every play-out, a call would count references to the plan cache's arrays each time.
    """
    phase = s[PHASE]
    if phase == PHASE_ARCHITECT_MOVE or phase == PHASE_ARCHITECT_BUILD:
        return architect(s, m, params, remaining, mask, cache)
    if phase == PHASE_MERCATOR:
        return mercator(s, m, params, remaining, mask)
    if phase == PHASE_OVERFLOW:
        return keep_good(s, m, params, remaining, mask)
    if phase == PHASE_COLONIST or phase == PHASE_COLONIST_SETTLE:
        return colonist(s, m, params, remaining, mask, cache)
    if phase == PHASE_TRIBUNE_COLONIST or phase == PHASE_BUY_CARDS:
        return best_by_one_step(s, m, params, remaining, mask, cache)
    # a lookahead decision where no lookahead is wanted (rollouts without nested lookahead)
    return best_by_one_step(s, m, params, remaining, mask, cache)


@njit
def new_frames():
    """Storage for the lookahead frames of :func:`play_out`, one tuple that the play-outs of a decision reuse.

    ``(base, work, best_state, candidates, n_candidates, index, decider, best_value, work_plan,
    work_len, best_plan, best_len)``, :data:`MAX_LOOKAHEAD_DEPTH` frames each: the position
    the frame decides, the candidate played out now and the best one's end, the candidates
    and how many, the one played out now, who decides, the best utility, the actions of the
    candidate played out now and of the best one. Made once per decision rather than once
    per option: allocating them was a tenth of the options' time.
    """
    depth = MAX_LOOKAHEAD_DEPTH
    return (
        np.empty((depth, STATE_SIZE), dtype=np.int32),
        np.empty((depth, STATE_SIZE), dtype=np.int32),
        np.empty((depth, STATE_SIZE), dtype=np.int32),
        np.zeros((depth, MAX_CANDIDATES), dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
        np.zeros(depth),
        np.zeros((depth, MAX_TURN_DECISIONS), dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
        np.zeros((depth, MAX_TURN_DECISIONS), dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
    )


@njit_borrowing
def play_out(s, m, params, remaining, turn, plan, plan_len, status, cache, mask, frames):
    """Play turn number ``turn`` out on ``s`` (in place) with the planner; returns the plan's new length.

    The actions taken are appended to ``plan`` from ``plan_len`` on. Lookahead decisions
    inside the turn are taken by lookahead: each legal answer is played out on a copy (a
    *frame*), the best by the decider's utility wins, and its play-out becomes the rest of
    the turn. Frames nest (a card, then whom a Diplomat copies, then a Prefect's province,
    then the Gavdos good), kept on an explicit stack of at most ``MAX_LOOKAHEAD_DEPTH``
    frames, so nothing recurses.

    ``mask`` holds the legal mask of ``s`` on entry, as :func:`apply` leaves it in its scratch
    array (the engine's ``advance`` fills it to close "done"-only decisions); the play-out
    then overwrites it. Each step likewise reads the mask its previous action left
    (``mask_known``); only a position taken over from elsewhere (a decided frame's best
    play-out) has its mask filled anew.

    ``frames`` is the frames' storage (:func:`new_frames`), made once per decision and reused
    by each of its play-outs: a play-out writes every entry of a frame before it reads it.
    """
    n_frames = MAX_LOOKAHEAD_DEPTH if params[R_NESTED_LOOKAHEAD] != 0 else 0
    (
        base,
        work,
        best_state,
        candidates,
        n_candidates,
        index,
        decider,
        best_value,
        work_plan,
        work_len,
        best_plan,
        best_len,
    ) = frames
    opponent_weight = params[P_OPPONENT_WEIGHT]
    level = -1  # -1: the caller's own play-out on s; k >= 0: a candidate of frame k on work[k]
    mask_known = True  # whether mask holds the legal mask of st (the next position to decide)
    start = plan_len
    while True:
        st = s if level < 0 else work[level]
        length = plan_len - start if level < 0 else work_len[level]
        if st[PHASE] == PHASE_GAME_OVER or st[TURN_COUNT] != turn or length >= MAX_TURN_DECISIONS:
            if level < 0:
                return plan_len
            # a candidate of frame `level` is played out: score it, then the next one
            value = position_utility(st, m, params, remaining, decider[level], opponent_weight, cache[0], cache[1])
            if index[level] == 0 or value > best_value[level]:
                best_value[level] = value
                copy_state(best_state[level], st)
                for i in range(work_len[level]):
                    best_plan[level, i] = work_plan[level, i]
                best_len[level] = work_len[level]
            index[level] += 1
            if index[level] < n_candidates[level]:
                a = candidates[level, index[level]]
                copy_state(work[level], base[level])
                apply(work[level], m, a, mask)
                mask_known = True
                work_plan[level, 0] = a
                work_len[level] = 1
                continue
            # the frame is decided: its parent goes on from the best candidate's play-out
            parent = level - 1
            if parent < 0:
                copy_state(s, best_state[level])
                for i in range(best_len[level]):
                    if plan_len < plan.shape[0]:
                        plan[plan_len] = best_plan[level, i]
                        plan_len += 1
            else:
                copy_state(work[parent], best_state[level])
                for i in range(best_len[level]):
                    if work_len[parent] < MAX_TURN_DECISIONS:
                        work_plan[parent, work_len[parent]] = best_plan[level, i]
                        work_len[parent] += 1
            level = parent
            mask_known = False
            continue
        if not mask_known:
            fill_legal(st, m, mask)
        count = 0
        for a in range(NUM_ACTIONS):
            if mask[a]:
                count += 1
        if count > 1 and is_lookahead_phase(st[PHASE]) and level + 1 < n_frames:
            f = level + 1
            copy_state(base[f], st)
            decider[f] = st[CURRENT_PLAYER]
            n = 0
            for a in range(NUM_ACTIONS):
                if mask[a] and n < MAX_CANDIDATES:
                    candidates[f, n] = a
                    n += 1
            n_candidates[f] = n
            index[f] = 0
            copy_state(work[f], st)
            apply(work[f], m, candidates[f, 0], mask)
            mask_known = True
            work_plan[f, 0] = candidates[f, 0]
            work_len[f] = 1
            level = f
            continue
        if count == 1:
            a = first_legal(mask)
        else:
            a = rule_of_thumb(st, m, params, remaining, mask, cache)
            if a < 0 or not mask[a]:
                status[STATUS_ILLEGAL] += 1
                a = first_legal(mask)
        apply(st, m, a, mask)
        mask_known = True
        if level < 0:
            if plan_len < plan.shape[0]:
                plan[plan_len] = a
                plan_len += 1
        else:
            work_plan[level, work_len[level]] = a
            work_len[level] += 1


@njit
def lookahead_choice(s, m, params, remaining, mask, status, cache):
    """The answer to a lookahead decision: each legal answer played out to the end of the turn, best utility."""
    p = s[CURRENT_PLAYER]
    sim = np.empty(STATE_SIZE, dtype=np.int32)
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    plan = np.zeros(MAX_TURN_DECISIONS, dtype=np.int64)
    frames = new_frames()
    best = -1
    best_value = -np.inf
    for a in range(NUM_ACTIONS):
        if not mask[a]:
            continue
        sim[:] = s
        apply(sim, m, a, scratch)
        play_out(sim, m, params, remaining, s[TURN_COUNT], plan, 0, status, cache, scratch, frames)
        value = position_utility(sim, m, params, remaining, p, params[P_OPPONENT_WEIGHT], cache[0], cache[1])
        if best < 0 or value > best_value:
            best = a
            best_value = value
    return best


@njit
def decide(s, m, params, remaining, status):
    """The planner's answer to the pending decision of ``s`` (see the module docstring); -1 once the game is over."""
    if s[PHASE] == PHASE_GAME_OVER:
        return -1
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    fill_legal(s, m, mask)
    count = 0
    for a in range(NUM_ACTIONS):
        if mask[a]:
            count += 1
    return decide_legal(s, m, params, remaining, mask, count, status)


@njit
def decide_legal(s, m, params, remaining, mask, count, status):
    """:func:`decide` where the legal mask of ``s`` (``count`` actions) is known already (a game not over)."""
    if count == 1:
        return first_legal(mask)
    cache = new_plan_cache()
    if is_lookahead_phase(s[PHASE]):
        return lookahead_choice(s, m, params, remaining, mask, status, cache)
    a = rule_of_thumb(s, m, params, remaining, mask, cache)
    if a < 0 or not mask[a]:
        status[STATUS_ILLEGAL] += 1
        a = first_legal(mask)
    return a


__all__ = [
    "MAX_TURN_DECISIONS",
    "STATUS_ILLEGAL",
    "STATUS_SIZE",
    "apply",
    "decide",
    "decide_legal",
    "new_frames",
    "play_out",
    "rule_of_thumb",
]
