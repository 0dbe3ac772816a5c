"""The position evaluation: every player's estimated final VP, compiled over the state array.

``values(s, m, params, remaining, out)`` estimates what each player's position is worth in
victory points *at the end of the game*:

* **cards**: every owned card scored for its god against the board the player will
  probably have at the end: today's houses, provinces, kinds of goods and colonists plus
  the share a player still adds over the rest of the game (a Jupiter card bought early
  will count the houses built later);
* **board**: houses, provinces and kinds of goods are worth a little more than today's
  cards make of them (future cards will count them, houses produce), and so are
  colonists (Architect steps, more cities in reach);
* **economy**: money and goods as *wealth* (goods at their price, as Vesta and the
  Mercator count them), concave: the first sestertii pay for houses, a hoard only waits
  for the end; the goods the player's next houses and next colonist need earn a premium
  (a brick above all), which is what makes the Mercator buy them and the storehouse keep
  them;
* **discard pile**: every card waiting there costs a little until a Tribune brings it
  back, so the Tribune is worth its turn once the pile has grown.

``remaining_fraction`` (0..1) says how much of the game is left: the smaller of the share of
cards still for sale and the share of houses the leader still has to build (either ends the
game), 0 once the Concordia card is taken. Future growth scales with it, and economy, board
and discard terms fade over the last ``economy_fade`` of the game: at the very end only the
final score counts. The weights are :class:`~.params.Weights`, in the params array.

A lookahead passes the ``remaining`` of its decision down to every position it evaluates,
so that one scale holds across it (buying the last cards must not make every asset look
worthless). What is *needed* (the goods of the best houses within reach, a colonist's food
and tool) is the player's own: a need is worked out from the position, never remembered.

Every fact of the rules comes from the compiled rule queries (:mod:`concordia_env.engine.rules.facts`:
house prices, reach, colonists on the board) and the scoring's house summary; the card
constants (god caps and VP, the Concordia card) from :mod:`concordia_env.engine.cards`. This is a
faithful port of the Python evaluation the heuristic used before (kept as the readable
reference in ``tests/reference/evaluation.py``; the tests check that both give the same
numbers), so that models trained on its numbers keep their meaning.
"""

from __future__ import annotations

import math

import numpy as np

from concordia_env.engine.cards import (
    BRICK,
    CARD_DECK,
    CARD_GOD,
    CARD_KIND,
    COLONIST_COST,
    CONCORDIA_VP,
    DISPLAY_SLOTS,
    FIRST_SPECIALIST,
    GOOD_PRICE,
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
    NUM_CARD_TYPES,
    NUM_GODS,
    NUM_GOODS,
    NUM_KINDS,
    SATURNUS,
    SATURNUS_VP,
    VESTA,
    VESTA_SESTERTII_PER_VP,
)
from concordia_env.engine.layout import Layout
from concordia_env.engine.maps import M_CITY_PROVINCE, M_NUM_CITIES, M_NUM_PROVINCES, MAX_CITIES
from concordia_env.engine.rules import njit, njit_borrowing, stack_zeros
from concordia_env.engine.rules.facts import colonists_on_board, house_prices, is_buildable_place, reachable_places
from concordia_env.engine.rules.scoring import count_bits, house_summary
from concordia_env.engine.state import (
    CITY_GOOD,
    COLONISTS_PER_PLAYER,
    CONCORDIA_HOLDER,
    DISPLAY,
    HOUSES,
    MAX_PLAYERS,
    NUM_PLAYERS,
    P_DISCARD,
    P_GOODS,
    P_HAND,
    P_MONEY,
    PLAYER_SIZE,
    PLAYERS,
    STACK_SIZE,
)

from .params import (
    W_COLONIST_MOBILITY,
    W_DISCARD_COST,
    W_ECONOMY_FADE,
    W_FUTURE_COLONISTS,
    W_FUTURE_HOUSES,
    W_FUTURE_KIND_RATE,
    W_FUTURE_PROVINCE_RATE,
    W_HOUSE_FUTURE,
    W_HOUSE_NEED_BONUS,
    W_KIND_FUTURE,
    W_MONEY,
    W_MONEY_SCALE,
    W_NEED_PREMIUM,
    W_PRODUCTION,
    W_PROVINCE_FUTURE,
)

#: Minerva VP per house for each good (from the specialist of that good)
MINERVA_VP_BY_GOOD = np.zeros(NUM_GOODS, dtype=np.float64)
for _k in range(FIRST_SPECIALIST, NUM_KINDS):
    MINERVA_VP_BY_GOOD[KIND_SPECIALIST_GOOD[_k]] = KIND_MINERVA_VP[_k]
#: the specialist good of each card type (-1: not a specialist)
CARD_SPECIALIST_GOOD = KIND_SPECIALIST_GOOD[CARD_KIND].astype(np.int32)
#: -inf as compiled code sees it (the net value of a place where the player may not build)
NEG_INF = -np.inf

# --------------------------------------------------------------------------- what is read about a player
_F = Layout()
F_MONEY = _F.field("MONEY")
F_GOODS = _F.field("GOODS", NUM_GOODS)
F_BY_GOOD = _F.field("BY_GOOD", NUM_GOODS, doc="own houses per good of their city")
F_GODS = _F.field("GODS", NUM_GODS, doc="cards owned per god (hand and discard pile)")
F_SPECIALISTS = _F.field("SPECIALISTS", NUM_GOODS, doc="specialist cards owned per good")
F_DISCARD_COST = _F.field("DISCARD_COST", doc="what the discard pile costs (Weights.discard_cost)")
F_HOUSES = _F.field("HOUSES")
F_NON_BRICK = _F.field("NON_BRICK", doc="houses in cities of other goods than brick")
F_PROVINCES = _F.field("PROVINCES", doc="provinces with an own house")
F_PROVINCE_BITS = _F.field("PROVINCE_BITS", doc="bit v set: an own house in province v")
F_KINDS = _F.field("KINDS", doc="kinds of goods the own houses produce")
F_ON_BOARD = _F.field("ON_BOARD", doc="colonists on the board")
NUM_FACTS = _F.size
FACTS_LAYOUT = _F
#: the needs of a player: [0] the goods of its best houses within reach, [1] a colonist's
NEED_HOUSES, NEED_COLONIST = 0, 1


@njit
def sale_cards_in_game(n):
    """Cards for sale in a game of ``n`` players: the decks I..n (``cards.sale_cards_in_game``)."""
    count = 0
    for t in range(NUM_CARD_TYPES):
        if 1 <= CARD_DECK[t] <= n:
            count += 1
    return count


@njit
def remaining_fraction(s, m):
    """How much of the game is left (1 at the start, 0 once the end is triggered).

    The game ends when the cards for sale run out or someone builds a 15th house; the
    estimate is the smaller of the two "distances" to those ends. Only the number of cards
    left counts, never which: the hidden stack's order plays no part.
    """
    if s[CONCORDIA_HOLDER] >= 0:
        return 0.0
    cards_left = s[STACK_SIZE]
    for slot in range(DISPLAY_SLOTS):
        if s[DISPLAY + slot] >= 0:
            cards_left += 1
    card_left = cards_left / sale_cards_in_game(s[NUM_PLAYERS])
    most_houses = 0
    for p in range(s[NUM_PLAYERS]):
        most_houses = max(most_houses, house_summary(s, m, p)[0])
    house_left = 1.0 - most_houses / HOUSES_PER_PLAYER
    return max(0.0, min(card_left, house_left))


@njit_borrowing
def economy_weight(params, remaining):
    """1 for most of the game, fading to 0 over its last ``economy_fade``."""
    fade = params[W_ECONOMY_FADE]
    if fade > 0:
        return min(1.0, remaining / fade)
    return 1.0


@njit_borrowing
def player_facts(s, m, params, p, out):
    """What the evaluation reads about player p, into ``out`` (offsets ``F_*``)."""
    b = PLAYERS + p * PLAYER_SIZE
    out[F_MONEY] = s[b + P_MONEY]
    for g in range(NUM_GOODS):
        out[F_GOODS + g] = s[b + P_GOODS + g]
        out[F_BY_GOOD + g] = 0.0
        out[F_SPECIALISTS + g] = 0.0
    for god in range(NUM_GODS):
        out[F_GODS + god] = 0.0
    discard_cost = 0.0
    for t in range(NUM_CARD_TYPES):
        owned = s[b + P_HAND + t] + s[b + P_DISCARD + t]
        out[F_GODS + CARD_GOD[t]] += owned
        if CARD_SPECIALIST_GOOD[t] >= 0:
            out[F_SPECIALISTS + CARD_SPECIALIST_GOOD[t]] += owned
        discard_cost += s[b + P_DISCARD + t] * params[W_DISCARD_COST + CARD_KIND[t]]
    out[F_DISCARD_COST] = discard_cost
    houses, brick, goods_bits, province_bits = house_summary(s, m, p)
    for c in range(m[M_NUM_CITIES]):
        if s[HOUSES + p * MAX_CITIES + c] == 1:
            out[F_BY_GOOD + s[CITY_GOOD + c]] += 1.0
    out[F_HOUSES] = houses
    out[F_NON_BRICK] = houses - brick
    out[F_PROVINCES] = count_bits(province_bits)
    out[F_PROVINCE_BITS] = province_bits
    out[F_KINDS] = count_bits(goods_bits)
    out[F_ON_BOARD] = colonists_on_board(s, p)


@njit_borrowing
def wealth(money, goods):
    """Money plus the goods at their price (what Vesta counts, and what selling everything gives)."""
    total = money
    for g in range(NUM_GOODS):
        total += GOOD_PRICE[g] * goods[g]
    return total


@njit_borrowing
def player_wealth(facts):
    total = facts[F_MONEY]
    for g in range(NUM_GOODS):
        total += GOOD_PRICE[g] * facts[F_GOODS + g]
    return total


# --------------------------------------------------------------------------- houses
@njit_borrowing
def may_build_there(s, m, p, c):
    """A place where p could have a house one day: buildable, and p has none there."""
    return is_buildable_place(m, c) and s[HOUSES + p * MAX_CITIES + c] == 0


@njit_borrowing
def house_gains(s, m, params, p, facts, remaining, out):
    """Value (VP) of one more house of p in each place, before paying for it, into ``out[place]``.

    God scoring with the cards p holds: a house in a non-brick city counts for every Jupiter
    card, a new province for every Saturnus card, a new kind of good for every Mercurius card,
    a city of a specialist's good for Minerva; plus what the house will produce and what
    future cards will make of it. 0 where p may not build.
    """
    e = economy_weight(params, remaining)
    jupiter = facts[F_GODS + JUPITER]
    province_gain = facts[F_GODS + SATURNUS] + e * params[W_PROVINCE_FUTURE]
    kind_gain = MERCURIUS_VP * facts[F_GODS + MERCURIUS] + e * params[W_KIND_FUTURE]
    province_bits = int(facts[F_PROVINCE_BITS])
    for c in range(m[M_NUM_CITIES]):
        if not may_build_there(s, m, p, c):
            out[c] = 0.0
            continue
        g = s[CITY_GOOD + c]
        gain = jupiter * (1.0 if g != BRICK else 0.0)
        new_province = (province_bits >> m[M_CITY_PROVINCE + c]) & 1 == 0
        gain = gain + province_gain * (1.0 if new_province else 0.0)
        gain = gain + kind_gain * (1.0 if facts[F_BY_GOOD + g] == 0 else 0.0)
        gain = gain + facts[F_SPECIALISTS + g] * MINERVA_VP_BY_GOOD[g]
        gain = gain + e * (params[W_HOUSE_FUTURE] + params[W_PRODUCTION] * remaining * GOOD_PRICE[g])
        out[c] = gain


@njit_borrowing
def marginal_money_value(params, e, wealth_now):
    """What one more sestertius adds to the (concave) value of this much wealth."""
    return e * params[W_MONEY] * math.exp(-wealth_now / params[W_MONEY_SCALE])


@njit_borrowing
def house_net_values(s, m, params, p, facts, remaining, gains, price_money, price_goods, out):
    """Value of building in each place minus what the house costs (money and goods, Vesta included).

    ``gains`` from :func:`house_gains`, ``price_money``/``price_goods`` from
    ``facts.house_prices``; -inf where p may not build.
    """
    e = economy_weight(params, remaining)
    vesta = facts[F_GODS + VESTA] / VESTA_SESTERTII_PER_VP
    per_sestertius = marginal_money_value(params, e, player_wealth(facts)) + vesta
    good_worth = stack_zeros(NUM_GOODS, np.float64)
    for g in range(NUM_GOODS):
        good_worth[g] = GOOD_PRICE[g] * (per_sestertius + e * params[W_NEED_PREMIUM])
    for c in range(m[M_NUM_CITIES]):
        if not may_build_there(s, m, p, c):
            out[c] = NEG_INF
            continue
        goods_cost = 0.0
        for g in range(NUM_GOODS):
            goods_cost += price_goods[c, g] * good_worth[g]
        out[c] = gains[c] - (price_money[c] * per_sestertius + goods_cost)


# --------------------------------------------------------------------------- needs
@njit_borrowing
def need(s, m, params, p, facts, remaining, gains, price_goods, out):
    """Goods p needs soon, into ``out[2, good]``: [0] for the best houses within reach, [1] for a colonist.

    The best houses are the ``max(2, colonists on the board)`` most valuable places (by
    :func:`house_gains`, ties to the lower place id) that p's colonists reach with one step
    per colonist on the board (at least one); their goods, and at least one brick.
    """
    on_board = int(facts[F_ON_BOARD])
    seen = stack_zeros(MAX_CITIES, np.bool_)
    reachable_places(s, m, p, max(on_board, 1), seen)
    for c in range(m[M_NUM_CITIES]):
        if not may_build_there(s, m, p, c):
            seen[c] = False
    for g in range(NUM_GOODS):
        out[NEED_HOUSES, g] = 0
        out[NEED_COLONIST, g] = 0
    for _ in range(max(2, on_board)):
        best = -1
        for c in range(m[M_NUM_CITIES]):
            if seen[c] and (best < 0 or gains[c] > gains[best]):
                best = c
        if best < 0:
            break
        seen[best] = False
        for g in range(NUM_GOODS):
            out[NEED_HOUSES, g] += price_goods[best, g]
    out[NEED_HOUSES, BRICK] = max(out[NEED_HOUSES, BRICK], 1)
    if on_board < COLONISTS_PER_PLAYER:
        for g in range(NUM_GOODS):
            out[NEED_COLONIST, g] = COLONIST_COST[g]


@njit_borrowing
def need_value(params, goods, needs):
    """The premium of the goods held for what is needed soon (VP, before the economy weight).

    Units cover the houses' needs first, then the colonist's; the rest earns nothing.
    """
    premium = params[W_NEED_PREMIUM]
    bonus = params[W_HOUSE_NEED_BONUS]
    total = 0.0
    for g in range(NUM_GOODS):
        held = goods[g]
        house_units = min(held, needs[NEED_HOUSES, g])
        colonist_units = min(held - house_units, needs[NEED_COLONIST, g])
        price = GOOD_PRICE[g]
        total += house_units * (premium * price + bonus) + colonist_units * premium * price
    return total


@njit_borrowing
def good_need_value(params, good, held, needs):
    """The need premium of holding ``held`` units of one good (as :func:`need_value`, one good)."""
    house_units = min(held, needs[NEED_HOUSES, good])
    colonist_units = min(held - house_units, needs[NEED_COLONIST, good])
    premium = params[W_NEED_PREMIUM] * GOOD_PRICE[good]
    return house_units * (premium + params[W_HOUSE_NEED_BONUS]) + colonist_units * premium


@njit_borrowing
def economy_value(params, e, money, goods, needs):
    """Money and goods as wealth (concave) plus the premium of needed goods, fading at the end."""
    if e == 0:
        return 0.0
    scale = params[W_MONEY_SCALE]
    worth = params[W_MONEY] * scale * (1.0 - math.exp(-wealth(money, goods) / scale))
    return e * (worth + need_value(params, goods, needs))


# --------------------------------------------------------------------------- value
@njit_borrowing
def card_score(m, params, facts, remaining, wealth_now):
    """The owned cards scored against the board the player will probably have at the end.

    Today's houses, provinces, kinds of goods and colonists, plus the share of the houses
    and colonists a player still adds over the ``remaining`` part of the game.
    """
    r = remaining
    houses = facts[F_HOUSES]
    on_board = facts[F_ON_BOARD]
    future = min(HOUSES_PER_PLAYER - houses, r * params[W_FUTURE_HOUSES])
    kinds = facts[F_KINDS]
    extra_colonists = min(COLONISTS_PER_PLAYER - on_board, r * params[W_FUTURE_COLONISTS])
    score = facts[F_GODS + VESTA] * wealth_now / VESTA_SESTERTII_PER_VP
    score += facts[F_GODS + JUPITER] * min(JUPITER_VP * (facts[F_NON_BRICK] + 0.8 * future), JUPITER_CAP)
    provinces = min(facts[F_PROVINCES] + params[W_FUTURE_PROVINCE_RATE] * future, m[M_NUM_PROVINCES])
    score += facts[F_GODS + SATURNUS] * SATURNUS_VP * provinces
    new_kinds = min(NUM_GOODS - kinds, params[W_FUTURE_KIND_RATE] * future)
    score += facts[F_GODS + MERCURIUS] * min(MERCURIUS_VP * (kinds + new_kinds), MERCURIUS_CAP)
    score += facts[F_GODS + MARS] * min(MARS_VP * (on_board + extra_colonists), MARS_CAP)
    # Minerva: a future house is of a given good about one time in five
    share = future * 0.2
    for g in range(NUM_GOODS):
        cards = facts[F_SPECIALISTS + g]
        if cards != 0:
            score += cards * MINERVA_VP_BY_GOOD[g] * (facts[F_BY_GOOD + g] + share)
    return score


@njit_borrowing
def player_value(s, m, params, p, remaining, facts, gains, price_goods, needs):
    """Estimated final VP of p (see the module docstring); ``facts`` and ``needs`` are filled on the way.

    ``price_goods`` are the house prices' goods of the position (``facts.house_prices``);
    ``gains`` is scratch space.
    """
    player_facts(s, m, params, p, facts)
    e = economy_weight(params, remaining)
    r = remaining
    score = card_score(m, params, facts, remaining, player_wealth(facts))
    if s[CONCORDIA_HOLDER] == p:
        score += CONCORDIA_VP
    if e == 0:
        return score
    production = 0.0
    for g in range(NUM_GOODS):
        production += GOOD_PRICE[g] * facts[F_BY_GOOD + g]
    board = (
        params[W_HOUSE_FUTURE] * facts[F_HOUSES]
        + params[W_PROVINCE_FUTURE] * facts[F_PROVINCES]
        + params[W_KIND_FUTURE] * facts[F_KINDS]
        + params[W_PRODUCTION] * r * production
        + params[W_COLONIST_MOBILITY] * (0.5 + r) * facts[F_ON_BOARD]
    )
    house_gains(s, m, params, p, facts, remaining, gains)
    need(s, m, params, p, facts, remaining, gains, price_goods, needs)
    b = PLAYERS + p * PLAYER_SIZE
    goods = s[b + P_GOODS : b + P_GOODS + NUM_GOODS]
    economy = economy_value(params, e, s[b + P_MONEY], goods, needs)
    return score + e * (board - facts[F_DISCARD_COST]) + economy


@njit_borrowing
def values(s, m, params, remaining, out):
    """Every player's estimated final VP into ``out[p]`` (the evaluation; see the module docstring)."""
    facts = stack_zeros(NUM_FACTS, np.float64)
    gains = stack_zeros(MAX_CITIES, np.float64)
    price_money = stack_zeros(MAX_CITIES, np.int64)
    price_goods = stack_zeros((MAX_CITIES, NUM_GOODS), np.int64)
    needs = stack_zeros((2, NUM_GOODS), np.int64)
    house_prices(s, m, price_money, price_goods)
    for p in range(s[NUM_PLAYERS]):
        out[p] = player_value(s, m, params, p, remaining, facts, gains, price_goods, needs)


@njit
def utility(vals, p, n, opponent_weight):
    """p's value minus ``opponent_weight`` times the opponents' mean value (what a choice maximises)."""
    others = 0.0
    for q in range(n):
        if q != p:
            others += vals[q]
    others /= max(1, n - 1)
    return vals[p] - opponent_weight * others


# --------------------------------------------------------------------------- remembered values
#: what a player's value depends on besides the map, the city goods and ``remaining``: the
#: player's block, every house and who holds the Concordia card
KEY_SIZE = PLAYER_SIZE + MAX_PLAYERS * MAX_CITIES + 1


@njit
def new_value_cache():
    """Values remembered within one decision (one ``remaining``): (keys [player, KEY_SIZE], values)."""
    return np.zeros((MAX_PLAYERS, KEY_SIZE), dtype=np.int32), np.full(MAX_PLAYERS, np.nan)


@njit_borrowing
def _key_matches(s, q, keys):
    """Whether row q of ``keys`` holds what q's value reads of ``s`` (:data:`KEY_SIZE`)."""
    b = PLAYERS + q * PLAYER_SIZE
    for i in range(PLAYER_SIZE):
        if keys[q, i] != s[b + i]:
            return False
    for i in range(MAX_PLAYERS * MAX_CITIES):
        if keys[q, PLAYER_SIZE + i] != s[HOUSES + i]:
            return False
    return keys[q, KEY_SIZE - 1] == s[CONCORDIA_HOLDER]


@njit_borrowing
def _store_key(s, q, keys):
    """Write what q's value reads of ``s`` into row q of ``keys``."""
    b = PLAYERS + q * PLAYER_SIZE
    for i in range(PLAYER_SIZE):
        keys[q, i] = s[b + i]
    for i in range(MAX_PLAYERS * MAX_CITIES):
        keys[q, PLAYER_SIZE + i] = s[HOUSES + i]
    keys[q, KEY_SIZE - 1] = s[CONCORDIA_HOLDER]


@njit_borrowing
def cached_values(s, m, params, remaining, keys, cached, out):
    """:func:`values`, reusing a player's value when nothing it depends on changed since it was computed.

    A lookahead tries many answers that change only the decider's own block (a card bought,
    a colonist settled): the opponents' values are then the ones already computed. The cache
    (:func:`new_value_cache`) serves one decision: one ``remaining``, one game. The values
    read back go into ``out`` here; the others are NaN until :func:`fill_missing_values`.
    """
    missing = False
    for q in range(s[NUM_PLAYERS]):
        if not np.isnan(cached[q]) and _key_matches(s, q, keys):
            out[q] = cached[q]
        else:
            out[q] = np.nan
            missing = True
    if missing:
        fill_missing_values(s, m, params, remaining, keys, cached, out)


@njit_borrowing
def fill_missing_values(s, m, params, remaining, keys, cached, out):
    """The values :func:`cached_values` could not read back (NaN in ``out``), computed and remembered."""
    facts = stack_zeros(NUM_FACTS, np.float64)
    gains = stack_zeros(MAX_CITIES, np.float64)
    price_money = stack_zeros(MAX_CITIES, np.int64)
    price_goods = stack_zeros((MAX_CITIES, NUM_GOODS), np.int64)
    needs = stack_zeros((2, NUM_GOODS), np.int64)
    house_prices(s, m, price_money, price_goods)
    for q in range(s[NUM_PLAYERS]):
        if np.isnan(out[q]):
            out[q] = player_value(s, m, params, q, remaining, facts, gains, price_goods, needs)
            cached[q] = out[q]
            _store_key(s, q, keys)


@njit_borrowing
def position_utility(s, m, params, remaining, p, opponent_weight, keys, cached):
    """The utility of position ``s`` for p (every player evaluated; values remembered in the cache)."""
    vals = stack_zeros(MAX_PLAYERS, np.float64)
    cached_values(s, m, params, remaining, keys, cached, vals)
    return utility(vals, p, s[NUM_PLAYERS], opponent_weight)
