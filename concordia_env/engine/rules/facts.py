"""Public rule queries: what the rules say about a position, each answered in one place.

Agents, renderers, action descriptions and the position checker ask these questions
instead of working a rule out again, and the legal masks (:mod:`.legal`) and effects
(:mod:`.effects`) use the very same functions, so an answer cannot drift from what the
engine does. :class:`~concordia_env.engine.game.Game` exposes each as a method; compiled code
(the fast rollouts of ``agents``) calls them directly on a state array.

Every query is compiled (numba) and takes the state ``s`` of one game, the map tables
``m`` and a player ``p`` where they matter; none raises (the callers check their arguments)
and the ones that fill an array take it as ``out``. The rules are those of ``docs/rules.md``:

* storehouse and colonists: ``free_slots(s, p)`` (§1), ``goods_value(s, p)`` (§1, §7 Vesta),
  ``colonist_kind(slot)`` (land slots 0-2, sea 3-5), ``colonists_on_board(s, p)`` (§4.2, §7);
* houses (§4.2): ``house_price(s, city)``, ``house_prices(s, m, money, goods)`` for every
  place, ``can_afford_house(s, p, city, good)``, ``is_buildable_place(m, city)``;
* reach (§4.2, §9.1): ``places_next_to(m, loc)`` and ``next_to(m, loc, city)`` (where a
  colonist may build), ``path_distance(m, loc, path)``, ``is_movable(m, loc)``,
  ``reachable_paths(m, loc, kind, steps, out)``, ``reachable_places(s, m, p, steps, out)``,
  ``architect_steps(s, p)``;
* Prefect (§4.3, §5, §9): ``bonus_units(s, p)`` (the Praefectus Magnus),
  ``prefect_production(s, m, p, province, good, out)`` (what each player receives, Nile
  food included), ``cash_bonus_value(s, m)``;
* Mercator (§4.4): ``trades_left(s)``;
* Senator / Consul (§4.6, §4.7, §9): ``slot_cost(s, slot, out)``,
  ``display_price(s, slot, kind, out)``, ``buy_cost(s, slot, variant, kind, out)``,
  ``can_buy(s, p, slot, variant, kind, out)``, ``cards_to_buy(kind)``;
* money: ``discard_size(s, p)``, ``tribune_money(s, p)`` and ``tribune_payout(cards)``
  (§4.1), ``colonist_tax(s, p)`` (§4.8);
* ``specialist_production(s, m, p, good)`` (§4.9), ``final_turns_left(n, holder, turn)`` (§6);
* one action per distinct choice (docs/action-space.md): ``canonical_slot(s, p, slot)``,
  ``canonical_diplomat_offset(s, p, offset)``.
"""

from __future__ import annotations

from ..cards import (
    BONUS_MARKER_COINS,
    COLONIST_TAX_BASE,
    FOOD,
    HOUSE_GOODS_COST,
    KIND_CARDS_BOUGHT,
    NILE_FOOD,
    NUM_CARD_TYPES,
    NUM_GOODS,
    PRAEFECTUS_MAGNUS_BONUS_UNITS,
    TRIBUNE_FREE_CARDS,
)
from ..maps import (
    M_CASH_BONUS_EXTRA,
    M_CITY_PROVINCE,
    M_NUM_CITIES,
    M_NUM_PATHS,
    M_NUM_PROVINCES,
    M_PATH_END_A,
    M_PATH_END_B,
    M_PATH_KIND,
)
from ..state import (
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    CITY_GOOD,
    COLONISTS_PER_PLAYER,
    HOUSES,
    MAX_CITIES,
    NILE_MARKER,
    NUM_PLAYERS,
    P_COLONISTS,
    P_DISCARD,
    PRAEFECTUS_MAGNUS,
)
from ._jit import njit, njit_borrowing
from .legal import (
    buy_card_cost,
    can_buy,
    canonical_diplomat_offset,
    canonical_slot,
    display_price,
    is_movable,
    slot_cost,
    trades_left,
)
from .legal import distance_to_path as path_distance
from .scoring import houses_of_good
from .state_helpers import (
    can_afford_house,
    colonists_on_board,
    free_slots,
    goods_value,
    house_price,
    is_buildable_place,
    next_to,
    pbase,
    places_next_to,
)
from .state_helpers import slot_kind as colonist_kind

__all__ = [
    "architect_steps",
    "bonus_units",
    "buy_cost",
    "can_afford_house",
    "can_buy",
    "canonical_diplomat_offset",
    "canonical_slot",
    "cards_to_buy",
    "cash_bonus_value",
    "colonist_kind",
    "colonist_tax",
    "colonists_on_board",
    "discard_size",
    "display_price",
    "final_turns_left",
    "free_slots",
    "goods_value",
    "house_price",
    "house_prices",
    "is_buildable_place",
    "is_movable",
    "next_to",
    "path_distance",
    "places_next_to",
    "prefect_production",
    "reachable_paths",
    "reachable_places",
    "slot_cost",
    "specialist_production",
    "trades_left",
    "tribune_money",
    "tribune_payout",
]

#: the display purchase cost function under its query name (goods into ``out``; False: variant not allowed)
buy_cost = buy_card_cost


# --------------------------------------------------------------------------- houses
@njit_borrowing
def house_prices(s, m, money, goods):
    """The next house in every place: sestertii into ``money[c]`` and goods into ``goods[c, :]``.

    Places where no house may be built (the capital, special squares) get 0 and no goods.
    """
    for c in range(m[M_NUM_CITIES]):
        if is_buildable_place(m, c):
            money[c] = house_price(s, c)
            for g in range(NUM_GOODS):
                goods[c, g] = HOUSE_GOODS_COST[s[CITY_GOOD + c], g]
        else:
            money[c] = 0
            for g in range(NUM_GOODS):
                goods[c, g] = 0


# --------------------------------------------------------------------------- Architect
@njit
def architect_steps(s, p):
    """Movement steps of an Architect p plays now: one per colonist on the board."""
    return colonists_on_board(s, p)


@njit_borrowing
def path_in_reach(m, loc, kind, steps, path):
    """Whether a movable colonist of ``kind`` at ``loc`` reaches ``path`` in at most ``steps`` (occupied paths pass)."""
    if m[M_PATH_KIND + path] != kind:  # ``if``s, not an ``and`` chain: see ``common.is_buildable_place``
        return False
    return path_distance(m, loc, path) <= steps


@njit
def reachable_paths(m, loc, kind, steps, out):
    """Mark in ``out[path]`` the paths of ``kind`` a colonist at ``loc`` reaches in at most ``steps``.

    Passing occupied paths is allowed, so whether a path is free is not asked here (the
    Architect's legal moves ask it); the colonist's own path counts (0 steps). Nothing is
    marked for a colonist that may not move (storehouse, special square).
    """
    movable = is_movable(m, loc)
    for path in range(m[M_NUM_PATHS]):
        out[path] = False
        if movable:
            out[path] = path_in_reach(m, loc, kind, steps, path)


@njit_borrowing
def reachable_places(s, m, p, steps, out):
    """Mark in ``out[place]`` the places p's colonists could build in after moving up to ``steps`` each.

    A colonist is next to the place it stands in and to both ends of the path it stands on;
    each colonist is taken on its own (the steps are not shared out) and paths are not
    asked to be free, so this is the reach of an Architect's best case, as planning needs.
    """
    for c in range(m[M_NUM_CITIES]):
        out[c] = False
    b = pbase(p) + P_COLONISTS
    for slot in range(COLONISTS_PER_PLAYER):
        loc = s[b + slot]
        if not is_movable(m, loc):
            continue
        kind = colonist_kind(slot)
        for path in range(m[M_NUM_PATHS]):  # the paths of reachable_paths, in one pass
            if path_in_reach(m, loc, kind, steps, path):
                out[m[M_PATH_END_A + path]] = True
                out[m[M_PATH_END_B + path]] = True
        for c in places_next_to(m, loc):
            if c >= 0:
                out[c] = True


# --------------------------------------------------------------------------- Prefect
@njit
def bonus_units(s, p):
    """Units of a province's bonus good p takes when producing: doubled by the Praefectus Magnus."""
    return PRAEFECTUS_MAGNUS_BONUS_UNITS if s[PRAEFECTUS_MAGNUS] == p else 1


@njit
def prefect_production(s, m, p, province, bonus_good, out):
    """Add to ``out[q * NUM_GOODS + g]`` the goods each player q receives when p produces in ``province``.

    p takes ``bonus_units`` of ``bonus_good`` (the marker's good, or the good chosen for
    Gavdos) and, on Aegyptus, the Nile marker's food where it lies (not doubled); every
    house in the province produces one unit of its city's good for its owner. These are
    the goods *received*: the storehouse limit decides what is kept (docs/rules.md §5).
    """
    out[p * NUM_GOODS + bonus_good] += bonus_units(s, p)
    if s[NILE_MARKER] == province:
        out[p * NUM_GOODS + FOOD] += NILE_FOOD
    for c in range(m[M_NUM_CITIES]):
        if m[M_CITY_PROVINCE + c] != province:
            continue
        for q in range(s[NUM_PLAYERS]):
            if s[HOUSES + q * MAX_CITIES + c] == 1:
                out[q * NUM_GOODS + s[CITY_GOOD + c]] += 1


@njit
def cash_bonus_value(s, m):
    """Sestertii a cash bonus pays now: the coins of every marker on its coin side (plus Creta's 2)."""
    coins = m[M_CASH_BONUS_EXTRA]
    for v in range(m[M_NUM_PROVINCES]):
        if s[BONUS_COIN_SIDE + v] == 1 and s[BONUS_GOOD + v] >= 0:
            coins += BONUS_MARKER_COINS[s[BONUS_GOOD + v]]
    return coins


# --------------------------------------------------------------------------- Senator / Consul
@njit
def cards_to_buy(kind):
    """Cards a Senator (2) or Consul (1) may buy in one action; 0 for other kinds."""
    return KIND_CARDS_BOUGHT[kind]


# --------------------------------------------------------------------------- money
@njit
def discard_size(s, p):
    """Cards in p's discard pile."""
    b = pbase(p) + P_DISCARD
    n = 0
    for t in range(NUM_CARD_TYPES):
        n += s[b + t]
    return n


@njit
def tribune_payout(cards_taken):
    """Sestertii for taking ``cards_taken`` cards back with a Tribune: one per card beyond the free ones."""
    return max(0, cards_taken - TRIBUNE_FREE_CARDS)


@njit
def tribune_money(s, p):
    """Sestertii a Tribune p plays now pays: the pile plus the Tribune itself come back."""
    return tribune_payout(discard_size(s, p) + 1)


@njit
def colonist_tax(s, p):
    """Sestertii of p's Colonist tax now: the base plus one per colonist on the board."""
    return COLONIST_TAX_BASE + colonists_on_board(s, p)


# --------------------------------------------------------------------------- specialists and the end
@njit
def specialist_production(s, m, p, good):
    """Units a specialist of ``good`` produces for p: one per own house in a city of that good."""
    return houses_of_good(s, m, p, good)


@njit
def final_turns_left(num_players, holder, turn):
    """Turn ends left before scoring while it is ``turn``'s turn and ``holder`` holds the Concordia card.

    The holder's own turn ends too, then every other player has one final turn.
    """
    return num_players - (turn - holder) % num_players
