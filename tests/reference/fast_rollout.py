"""A compiled greedy policy over the state array, for fast MCTS rollouts.

Python agents take milliseconds per decision; a rollout to the end of a game takes a few
hundred decisions, so MCTS needs its playouts compiled. This module is a numba version of
the main rules of thumb of :mod:`agents.heuristic`, much simpler (no lookahead, no
position evaluation) and randomised (noise on the card choice, a share of uniformly random
sub-decisions), so that playouts are both quick (a few microseconds per decision) and
varied:

* play the card whose quick estimate is best: the Architect when affordable houses are in
  reach, the Prefect for the province where its houses produce most (minus what the
  opponents get) or a large cash bonus, the Senator/Consul when a card fits its board,
  the Colonist when it can settle, the Tribune when the discard pile is large;
* sub-decisions: move a colonist where affordable unbuilt cities are, build the most
  valuable house first, keep/produce the dearest goods, trade surplus for bricks and the
  goods a colonist needs, buy the card whose god scores best on its board.

Every fact of the rules it uses (reach, house prices and affordability, what a Prefect
produces, the cash bonus, buy costs, the Tribune's money, the tax) comes from the compiled
rule queries of :mod:`concordia_env.engine.rules.facts`; the state is otherwise read through named
offsets (:mod:`concordia_env.engine.state`). The policy only ever picks from the legal mask; a
chooser that found nothing legal would be a bug and raises. Like the engine's rules, the
code compares with ``==`` chains where Python would test tuple membership (numba).
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.actions import (
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
    NUM_ACTIONS,
    PAY_VARIANTS,
)
from concordia_env.engine.cards import (
    BRICK,
    CARD_GOD,
    CARD_KIND,
    CLOTH,
    DISPLAY_SLOTS,
    FIRST_SPECIALIST,
    FOOD,
    GOOD_PRICE,
    JUPITER,
    JUPITER_VP,
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
    KIND_MINERVA_VP,
    KIND_SPECIALIST_GOOD,
    MARS,
    MARS_VP,
    MERCATOR_KINDS,
    MERCURIUS,
    MERCURIUS_VP,
    MINERVA,
    NUM_GOODS,
    NUM_KINDS,
    SATURNUS,
    SATURNUS_VP,
    TOOL,
    VESTA,
    VESTA_SESTERTII_PER_VP,
    WINE,
)
from concordia_env.engine.maps import M_CITY_PROVINCE, M_NUM_CITIES, M_NUM_PROVINCES, MAX_CITIES, MAX_PATHS
from concordia_env.engine.rules import njit
from concordia_env.engine.rules.entry_points import nth_legal, random_choice, random_legal_action
from concordia_env.engine.rules.entry_points import step as engine_step
from concordia_env.engine.rules.facts import (
    architect_steps,
    buy_cost,
    can_afford_house,
    can_buy,
    canonical_diplomat_offset,
    cash_bonus_value,
    colonist_tax,
    colonists_on_board,
    discard_size,
    goods_value,
    is_buildable_place,
    path_distance,
    places_next_to,
    prefect_production,
    reachable_places,
    specialist_production,
    trades_left,
    tribune_money,
)
from concordia_env.engine.rules.legal import copyable_top, diplomat_target, fill_legal
from concordia_env.engine.rules.scoring import houses_by_good, provinces_with_house, score_totals
from concordia_env.engine.rules.state_helpers import can_pay_colonist, colonists_in_storehouse, has_house, pbase
from concordia_env.engine.state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    CITY_GOOD,
    COLONISTS_PER_PLAYER,
    CURRENT_PLAYER,
    DISPLAY,
    HOUSES,
    MAX_PLAYERS,
    NUM_PLAYERS,
    P_COLONISTS,
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
    TURN_COUNT,
)

#: goods a player likes to hold before trading: a brick and a good for the next house,
#: food and tool for a colonist
RESERVE = np.array([2, 2, 1, 1, 1], dtype=np.int32)
#: "minus infinity" for scores (numba keeps it a float)
NEG = -1e9
#: VP per sestertius when weighing a purchase against its cost
VP_PER_SESTERTIUS = 0.25
#: the estimated value of each card kind's action when bought (beyond its god)
BOUGHT_ACTION_VALUE = np.zeros(NUM_KINDS, dtype=np.float64)
for _kind, _value in (
    (K_ARCHITECT, 2.5),
    (K_PREFECT, 2.0),
    (K_MERCATOR, 1.0),
    (K_MERCATOR_BOUGHT, 1.5),
    (K_SENATOR, 2.0),
    (K_CONSUL, 1.5),
    (K_DIPLOMAT, 1.5),
    (K_COLONIST, 1.5),
):
    BOUGHT_ACTION_VALUE[_kind] = _value


# --------------------------------------------------------------------------- small facts
@njit
def has_house_in_province(s, m, p, province):
    for c in range(m[M_NUM_CITIES]):
        if m[M_CITY_PROVINCE + c] == province and s[HOUSES + p * MAX_CITIES + c] == 1:
            return True
    return False


@njit
def house_value(s, m, p, c, by_good):
    """How much p wants a house in city c (god-style: non-brick, new province, new good)."""
    g = s[CITY_GOOD + c]
    v = 1.0 + 0.15 * GOOD_PRICE[g]
    if g != BRICK:
        v += 1.0
    if by_good[g] == 0:
        v += 1.0
    if not has_house_in_province(s, m, p, m[M_CITY_PROVINCE + c]):
        v += 1.0
    return v


@njit
def buildable_for(s, m, p, c):
    """A city p could build in (ignoring adjacency and price): a house may go there, and p has none."""
    return is_buildable_place(m, c) and not has_house(s, p, c)


# --------------------------------------------------------------------------- card choice
@njit
def architect_estimate(s, m, p, by_good):
    """Value of the affordable unbuilt cities the colonists can reach with this Architect."""
    seen = np.zeros(MAX_CITIES, dtype=np.bool_)
    reachable_places(s, m, p, architect_steps(s, p), seen)
    values = np.zeros(MAX_CITIES)
    n = 0
    for c in range(m[M_NUM_CITIES]):
        if seen[c] and buildable_for(s, m, p, c) and can_afford_house(s, p, c, s[CITY_GOOD + c]):
            values[n] = house_value(s, m, p, c, by_good)
            n += 1
    if n == 0:
        return 0.0
    # money rarely pays for more than two houses at once: count the two best
    values[:n] = np.sort(values[:n])[::-1]
    total = values[0]
    if n > 1:
        total += 0.6 * values[1]
    return 1.5 * total


@njit
def province_score(s, m, p, v):
    """What production in province v gives p, minus the mean of what it gives each opponent (in sestertii)."""
    n = s[NUM_PLAYERS]
    received = np.zeros(MAX_PLAYERS * NUM_GOODS, dtype=np.int32)
    prefect_production(s, m, p, v, s[BONUS_GOOD + v], received)
    own = 0.0
    other = 0.0
    for q in range(n):
        worth = 0.0
        for g in range(NUM_GOODS):
            worth += received[q * NUM_GOODS + g] * GOOD_PRICE[g]
        if q == p:
            own += worth
        else:
            other += worth
    return own - other / (n - 1)


@njit
def best_province(s, m, p):
    """(score, province) of the best production; province -1 if none is on its goods side."""
    best = NEG
    best_v = -1
    for v in range(m[M_NUM_PROVINCES]):
        if s[BONUS_COIN_SIDE + v] == 0 and s[BONUS_GOOD + v] >= 0:
            score = province_score(s, m, p, v)
            if score > best:
                best = score
                best_v = v
    return best, best_v


@njit
def card_value(s, m, p, t, by_good):
    """What owning one more card of type t is worth to p (its god on p's board, plus its action)."""
    god = CARD_GOD[t]
    houses = by_good.sum()
    v = 0.0
    if god == VESTA:
        v = (s[pbase(p) + P_MONEY] + goods_value(s, p)) / VESTA_SESTERTII_PER_VP
    elif god == JUPITER:
        v = JUPITER_VP * (houses - by_good[BRICK]) + 3.0
    elif god == SATURNUS:
        v = SATURNUS_VP * provinces_with_house(s, m, p) + 2.0
    elif god == MERCURIUS:
        kinds = 0
        for g in range(NUM_GOODS):
            if by_good[g] > 0:
                kinds += 1
        v = MERCURIUS_VP * kinds + 1.0
    elif god == MARS:
        v = MARS_VP * colonists_on_board(s, p) + 1.0
    elif god == MINERVA:
        kind = CARD_KIND[t]
        v = KIND_MINERVA_VP[kind] * (by_good[KIND_SPECIALIST_GOOD[kind]] + 0.5)
    return v + BOUGHT_ACTION_VALUE[CARD_KIND[t]]


@njit
def best_purchase(s, m, p, mask, by_good):
    """(net value, action) of the best legal card purchase; action -1 if none is worth it."""
    best = 0.0
    best_a = -1
    cost = np.zeros(NUM_GOODS, dtype=np.int32)
    for a in range(A_BUY_CARD, A_BUY_CARD + DISPLAY_SLOTS * PAY_VARIANTS):
        if not mask[a]:
            continue
        slot = (a - A_BUY_CARD) // PAY_VARIANTS
        variant = (a - A_BUY_CARD) % PAY_VARIANTS
        buy_cost(s, slot, variant, s[ACTION_KIND], cost)
        price = 0.0
        for g in range(NUM_GOODS):
            price += cost[g] * GOOD_PRICE[g]
        net = card_value(s, m, p, s[DISPLAY + slot], by_good) - VP_PER_SESTERTIUS * price
        if net > best:
            best = net
            best_a = a
    return best, best_a


@njit
def can_buy_any(s, p):
    """Whether p holds the goods for at least one display card at its own cost (a Consul's price)."""
    cost = np.zeros(NUM_GOODS, dtype=np.int32)
    for slot in range(DISPLAY_SLOTS):  # noqa: SIM110 (numba: no generator in any())
        if can_buy(s, p, slot, 0, K_CONSUL, cost):
            return True
    return False


@njit
def kind_score(s, m, p, kind, by_good):
    """Quick estimate of what playing a card of this kind gains now."""
    if kind == K_TRIBUNE:
        return 0.8 * discard_size(s, p) - 2.5 + 0.3 * tribune_money(s, p)
    if kind == K_ARCHITECT:
        return architect_estimate(s, m, p, by_good) - 0.5
    if kind == K_PREFECT:
        best, _ = best_province(s, m, p)
        return 0.3 * max(best, cash_bonus_value(s, m))
    if kind == K_MERCATOR or kind == K_MERCATOR_BOUGHT:  # noqa: SIM109 (numba: no tuple membership)
        gb = pbase(p) + P_GOODS
        short = 0
        for g in range(NUM_GOODS):
            short += max(0, RESERVE[g] - s[gb + g])
        return 0.25 * KIND_MERCATOR_MONEY[kind] + 0.5 * short
    if kind == K_SENATOR or kind == K_CONSUL:  # noqa: SIM109 (numba: no tuple membership)
        return 2.5 if can_buy_any(s, p) else -1.0
    if kind == K_COLONIST:
        if can_pay_colonist(s, p) and colonists_in_storehouse(s, p) > 0:
            return 2.5
        return 0.25 * colonist_tax(s, p)
    if kind >= FIRST_SPECIALIST:
        g = KIND_SPECIALIST_GOOD[kind]
        return 0.3 * specialist_production(s, m, p, g) * GOOD_PRICE[g]
    return 0.0


@njit
def diplomat_score(s, m, p, by_good):
    """(score, action) of the best card to copy with the Diplomat (one action per kind: the legal one)."""
    best = NEG
    best_a = -1
    n = s[NUM_PLAYERS]
    for offset in range(1, n):
        if canonical_diplomat_offset(s, p, offset) != offset:
            continue  # not copyable, or the same kind as a nearer opponent's card
        top = copyable_top(s, diplomat_target(s, p, offset))
        score = kind_score(s, m, p, CARD_KIND[top], by_good)
        if score > best:
            best = score
            best_a = A_DIPLOMAT + offset - 1
    return best, best_a


@njit
def choose_card(s, m, p, mask, by_good, temperature):
    best = NEG
    best_a = -1
    for kind in range(NUM_KINDS):
        a = A_PLAY + kind
        if not mask[a]:
            continue
        if kind == K_DIPLOMAT:
            score, _ = diplomat_score(s, m, p, by_good)
            score -= 0.3
        else:
            score = kind_score(s, m, p, kind, by_good)
        # Gumbel noise: a softmax draw over the scores
        score += temperature * -np.log(-np.log(np.random.random() + 1e-12) + 1e-12)
        if score > best:
            best = score
            best_a = a
    return best_a


# --------------------------------------------------------------------------- sub-decisions
@njit
def city_gain(s, m, p, c, by_good):
    if c < 0 or not buildable_for(s, m, p, c) or not can_afford_house(s, p, c, s[CITY_GOOD + c]):
        return 0.0
    return house_value(s, m, p, c, by_good)


@njit
def location_gain(s, m, p, loc, by_good):
    """What a colonist at ``loc`` can build now (the places it is next to)."""
    a, b = places_next_to(m, loc)
    return city_gain(s, m, p, a, by_good) + city_gain(s, m, p, b, by_good)


@njit
def choose_architect(s, m, p, mask, by_good):
    """Move one colonist towards affordable unbuilt cities, else build the best house, else stop."""
    if s[PHASE] == PHASE_ARCHITECT_MOVE:
        b = pbase(p) + P_COLONISTS
        best = 0.0
        best_a = -1
        for a in range(A_MOVE, A_MOVE + COLONISTS_PER_PLAYER * MAX_PATHS):
            if not mask[a]:
                continue
            slot = (a - A_MOVE) // MAX_PATHS
            path = (a - A_MOVE) % MAX_PATHS
            loc = s[b + slot]
            gain = location_gain(s, m, p, PATH_LOC_BASE + path, by_good) - location_gain(s, m, p, loc, by_good)
            gain -= 0.01 * path_distance(m, loc, path)
            if gain > best:
                best = gain
                best_a = a
        if best_a >= 0:
            return best_a
    best = 0.0
    best_a = A_DONE
    for c in range(m[M_NUM_CITIES]):
        if mask[A_BUILD + c]:
            v = house_value(s, m, p, c, by_good)
            if v > best:
                best = v
                best_a = A_BUILD + c
    return best_a


@njit
def choose_mercator(s, p, mask):
    """Sell the largest surplus first, then buy what the reserve lacks (bricks first)."""
    gb = pbase(p) + P_GOODS
    best = 0
    best_a = -1
    for g in range(NUM_GOODS):
        surplus = s[gb + g] - RESERVE[g] - 1
        if surplus > 0:
            q = min(surplus, MAX_TRADE)
            a = A_SELL + g * MAX_TRADE + q - 1
            if mask[a] and surplus * GOOD_PRICE[g] > best:
                best = surplus * GOOD_PRICE[g]
                best_a = a
    if best_a >= 0 and trades_left(s) == MERCATOR_KINDS:
        return best_a
    for g in (BRICK, FOOD, TOOL, CLOTH, WINE):
        short = RESERVE[g] - s[gb + g]
        for q in range(min(short, MAX_TRADE), 0, -1):
            a = A_BUY + g * MAX_TRADE + q - 1
            if mask[a]:
                return a
    if best_a >= 0:
        return best_a
    return A_DONE


@njit
def choose_prefect(s, m, p, mask):
    best, v = best_province(s, m, p)
    if v < 0 or cash_bonus_value(s, m) > best:
        return A_CASH
    return A_PRODUCE + v


@njit
def choose_settle(s, m, p, mask):
    """Settle wherever allowed (a random legal place), else tax / stop."""
    settles = mask[A_SETTLE : A_SETTLE + 2 * MAX_CITIES]
    n = settles.sum()
    if n > 0:
        return A_SETTLE + nth_legal(settles, np.random.randint(n))
    if mask[A_TAX]:
        return A_TAX
    return A_DONE


@njit
def dearest_good(s, mask):
    for g in range(NUM_GOODS - 1, -1, -1):
        if mask[A_GOOD + g]:
            return A_GOOD + g
    return -1


@njit
def policy_action(s, m, mask, epsilon, temperature):
    """The greedy policy's action in state s (``mask`` is scratch space; it ends up legal)."""
    p = s[CURRENT_PLAYER]
    fill_legal(s, m, mask)
    count = mask.sum()
    if count == 1 or np.random.random() < epsilon:
        return random_choice(mask)
    by_good = np.zeros(NUM_GOODS, dtype=np.int64)
    houses_by_good(s, m, p, by_good)
    phase = s[PHASE]
    a = -1
    if phase == PHASE_PLAY_CARD:
        a = choose_card(s, m, p, mask, by_good, temperature)
    elif phase == PHASE_DIPLOMAT:
        _, a = diplomat_score(s, m, p, by_good)
    elif phase == PHASE_ARCHITECT_MOVE or phase == PHASE_ARCHITECT_BUILD:  # noqa: SIM109 (numba: no tuple membership)
        a = choose_architect(s, m, p, mask, by_good)
    elif phase == PHASE_PREFECT:
        a = choose_prefect(s, m, p, mask)
    elif phase == PHASE_BONUS_GOOD or phase == PHASE_OVERFLOW:  # noqa: SIM109 (numba: no tuple membership)
        a = dearest_good(s, mask)
    elif phase == PHASE_MERCATOR:
        a = choose_mercator(s, p, mask)
    elif phase == PHASE_BUY_CARDS:
        _, a = best_purchase(s, m, p, mask, by_good)
        if a < 0:
            a = A_DONE
    elif phase == PHASE_COLONIST or phase == PHASE_COLONIST_SETTLE:  # noqa: SIM109 (numba: no tuple membership)
        a = choose_settle(s, m, p, mask)
    elif phase == PHASE_TRIBUNE_COLONIST:
        a = A_TRIBUNE_COLONIST if mask[A_TRIBUNE_COLONIST] else A_TRIBUNE_COLONIST + 1
    if a < 0 or not mask[a]:
        raise RuntimeError("the fast rollout policy chose an illegal action (a bug in agents/_fast_rollout.py)")
    return a


# --------------------------------------------------------------------------- rollouts
@njit
def rollout(s, m, max_turns, epsilon, temperature):
    """Play the greedy policy on s (in place) for at most ``max_turns`` turns; return decisions."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    scratch = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    start = s[TURN_COUNT]
    n = 0
    while s[PHASE] != PHASE_GAME_OVER and s[TURN_COUNT] - start < max_turns:
        a = policy_action(s, m, mask, epsilon, temperature)
        engine_step(s, m, a, scratch)
        n += 1
    return n


@njit
def random_rollout(s, m, max_turns):
    """Uniformly random legal actions on s (in place) for at most ``max_turns`` turns."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    start = s[TURN_COUNT]
    n = 0
    while s[PHASE] != PHASE_GAME_OVER and s[TURN_COUNT] - start < max_turns:
        engine_step(s, m, random_legal_action(s, m, mask), mask)
        n += 1
    return n


@njit
def score_estimate(s, m, out):
    """Per player: VP if the game ended now, plus a little for money and goods still to spend."""
    score_totals(s, m, out)
    if s[PHASE] != PHASE_GAME_OVER:
        for p in range(s[NUM_PLAYERS]):
            out[p] += 0.1 * (s[pbase(p) + P_MONEY] + goods_value(s, p))


@njit
def seed(value):
    np.random.seed(value)


@njit
def greedy_action(s, m, epsilon, temperature):
    """One action of the greedy policy (for testing it as an agent)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    return policy_action(s, m, mask, epsilon, temperature)
