"""Actions in words: what an action does, and why an action is refused.

Plain Python over the state array (these run once per shown action or per error, never
in the hot loop). Why an action is refused is decided by the rules, not here: the compiled
``rules.legal.why_illegal`` returns the code of the rule that refused it, the same check that
left it out of the legal mask, and :data:`REFUSAL_TEXT` only puts each code into words
(with the numbers of the position, asked of :mod:`.rules.facts`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import actions as A
from .cards import (
    CARD_ID,
    CARD_KIND,
    COLONIST_COST,
    GOOD_PRICE,
    GOODS,
    HOUSE_GOODS_COST,
    HOUSES_PER_PLAYER,
    KIND_NAMES,
    MERCATOR_KINDS,
    NUM_GOODS,
)
from .maps import LAND, PATH_KINDS, Map
from .rules import facts, legal
from .rules.legal import LEGAL, copyable_top, diplomat_target, why_illegal
from .state import (
    ACTION_KIND,
    BONUS_GOOD,
    CITY_GOOD,
    CURRENT_PLAYER,
    DISPLAY,
    LOC_STOREHOUSE,
    NUM_PLAYERS,
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
    PHASE_MERCATOR,
    PHASE_NAMES,
    PHASE_TRIBUNE_COLONIST,
    STEPS_LEFT,
    TURN_PLAYER,
    player_base,
)
from .state_check import compiled_state

#: what "done" means in each decision that has it
_DONE_TEXT = {
    PHASE_TRIBUNE_COLONIST: "Tribune: buy no colonist",
    PHASE_ARCHITECT_MOVE: "Architect: end the action (no more moves, no houses)",
    PHASE_ARCHITECT_BUILD: "Architect: build no more houses",
    PHASE_MERCATOR: "Mercator: stop trading",
    PHASE_BUY_CARDS: "buy no more cards",
    PHASE_COLONIST: "Colonist: settle no colonist",
    PHASE_COLONIST_SETTLE: "Colonist: settle no more colonists",
}


def money_text(amount: int) -> str:
    """Sestertii in words: ``"1 sestertius"``, ``"0 sestertii"``, ``"7 sestertii"``."""
    return f"{amount} sestertius" if amount == 1 else f"{amount} sestertii"


def goods_text(counts: np.ndarray | list[int]) -> str:
    parts = [f"{n} {GOODS[g]}" for g, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "nothing"


def location_text(m: Map, loc: int) -> str:
    if loc == LOC_STOREHOUSE:
        return "the storehouse"
    if loc < PATH_LOC_BASE:
        return m.places[loc]
    return path_text(m, loc - PATH_LOC_BASE)


def path_text(m: Map, path: int) -> str:
    kind, a, b = m.paths[path]
    return f"{a}–{b}" + (" (sea)" if kind != LAND else "")


def describe(s: np.ndarray, m: Map, action: int) -> str:
    """One sentence a player understands, e.g. "Architect: move land colonist from Roma to Roma–Novaria"."""
    action = int(action)
    s = compiled_state(s)  # game.state is a read-only view: the compiled queries read a writable copy
    name, i = A.decode(action)
    p = int(s[CURRENT_PLAYER])
    b = player_base(max(p, 0))
    if name == "PLAY":
        return f"play the {KIND_NAMES[i]}"
    if name == "DIPLOMAT":
        target = int(diplomat_target(s, int(s[TURN_PLAYER]), A.decode_diplomat(action)))
        top = int(s[player_base(target) + P_DISCARD_TOP])
        shown = CARD_ID[top] if top >= 0 else "nothing"
        return f"Diplomat: copy player {target}'s {shown}"
    if name == "MOVE":
        slot, path = A.decode_move(action)
        loc = int(s[b + P_COLONISTS + slot])
        destination = path_text(m, path) if path < len(m.paths) else f"path #{path}"
        kind = PATH_KINDS[facts.colonist_kind(slot)]
        return f"Architect: move {kind} colonist from {location_text(m, loc)} to {destination}"
    if name == "BUILD":
        place = m.places[i] if i < len(m.places) else f"place #{i}"
        if i >= len(m.places) or not facts.is_buildable_place(m.tables, i):
            return f"Architect: build a house in {place}"
        good, money = int(s[CITY_GOOD + i]), int(facts.house_price(s, i))
        return (
            f"Architect: build a house in {place} ({GOODS[good]} city; pays "
            f"{goods_text(HOUSE_GOODS_COST[good])} and {money_text(money)})"
        )
    if name == "PRODUCE":
        prov = m.province_names[i] if i < len(m.provinces) else f"province #{i}"
        good = int(s[BONUS_GOOD + i]) if i < len(m.provinces) else -1
        bonus = GOODS[good] if good >= 0 else "a good of your choice"
        return f"Prefect: produce in {prov} (bonus {bonus})"
    if name == "CASH":
        return "Prefect: take the cash bonus"
    if name == "GOOD":
        if int(s[PHASE]) == PHASE_BONUS_GOOD:
            return f"Prefect: take {GOODS[i]} as the {m.variable_bonus_province} bonus good"
        return f"keep 1 {GOODS[i]} in the storehouse"
    if name in ("SELL", "BUY"):
        good, q = A.decode_sell(action) if name == "SELL" else A.decode_buy(action)
        verb = "sell" if name == "SELL" else "buy"
        return f"Mercator: {verb} {q} {GOODS[good]} for {money_text(q * int(GOOD_PRICE[good]))}"
    if name == "BUY_CARD":
        slot, variant = A.decode_buy_card(action)
        card = int(s[DISPLAY + slot])
        who = KIND_NAMES[int(s[ACTION_KIND])] if int(s[ACTION_KIND]) >= 0 else "buy"
        what = CARD_ID[card] if card >= 0 else "an empty slot"
        pay = f", paying the slot's 'any' good with {GOODS[variant - 1]}" if variant else ""
        return f"{who}: buy {what} from display slot {slot + 1}{pay}"
    if name == "SETTLE":
        kind, place = A.decode_settle(action)
        where = m.places[place] if place < len(m.places) else f"place #{place}"
        return f"Colonist: settle a {PATH_KINDS[kind]} colonist in {where} (pays {goods_text(COLONIST_COST)})"
    if name == "TAX":
        return "Colonist: collect the tax"
    if name == "TRIBUNE_COLONIST":
        return f"Tribune: buy a {PATH_KINDS[i]} colonist into {m.capital} (pays {goods_text(COLONIST_COST)})"
    return _DONE_TEXT.get(int(s[PHASE]), "done")


def explain_illegal(s: np.ndarray, m: Map, action: int) -> str:
    """Why ``action`` is not legal now (called after the engine refused it): the rules' refusal code in words.

    ``ValueError`` if the action is legal: there is nothing to explain.
    """
    a = int(action)
    s = compiled_state(s)  # game.state is a read-only view: the compiled checks read a writable copy
    code = int(why_illegal(s, m.tables, a))
    if code == LEGAL:
        raise ValueError(f"action {a} is legal in this position: nothing to explain")
    return REFUSAL_TEXT[code](_Refused(s, m, a))


class _Refused:
    """A refused action and its position: what the words of a refusal code are made of."""

    def __init__(self, s: np.ndarray, m: Map, action: int) -> None:
        self.s, self.m, self.action = s, m, action
        self.p = int(s[CURRENT_PLAYER])
        self.range = A.RANGE_NAMES[A.range_of(action)] if 0 <= action < A.NUM_ACTIONS else ""

    def place(self, c: int) -> str:
        return self.m.places[c] if c < len(self.m.places) else f"place #{c}"

    def path(self, path: int) -> str:
        return path_text(self.m, path) if path < len(self.m.paths) else f"path #{path}"

    def money(self) -> int:
        return int(self.s[player_base(self.p) + P_MONEY])

    def colonist_kind(self) -> int:
        """The colonist kind a SETTLE or TRIBUNE_COLONIST action buys."""
        if self.range == "SETTLE":
            return int(A.decode_settle(self.action)[0])
        return int(A.decode_tribune_colonist(self.action))

    def settle_place(self) -> int:
        """The place a SETTLE (or, in the capital, a TRIBUNE_COLONIST) action puts its colonist."""
        if self.range == "SETTLE":
            return int(A.decode_settle(self.action)[1])
        return self.m.place_index(self.m.capital)


def _other_decision(r: _Refused) -> str:
    pending = PHASE_NAMES[int(r.s[PHASE])]
    return f"player {r.p} must decide '{pending}' now; this action belongs to another decision"


def _no_such_place(r: _Refused) -> str:
    only = f"the {r.m.title} map has only {len(r.m.places)} places"
    return f"no house may be built there: {only}" if r.range == "BUILD" else only


def _nearer_opponent(r: _Refused) -> str:
    offset = int(A.decode_diplomat(r.action))
    first = int(facts.canonical_diplomat_offset(r.s, r.p, offset))
    top = int(copyable_top(r.s, diplomat_target(r.s, r.p, offset)))
    return (
        f"player {diplomat_target(r.s, r.p, first)} shows a {KIND_NAMES[CARD_KIND[top]]} too and copying it is the "
        f"same move: use action {A.diplomat(first)}"
    )


def _moving_colonist(r: _Refused) -> tuple[int, int, str]:
    """Slot, path and the kind's name of a refused MOVE."""
    slot, path = A.decode_move(r.action)
    return int(slot), int(path), PATH_KINDS[int(facts.colonist_kind(slot))]


def _unreachable(r: _Refused) -> str:
    slot, path, kind = _moving_colonist(r)
    loc = int(r.s[player_base(r.p) + P_COLONISTS + slot])
    return f"no {kind} route leads from {location_text(r.m, loc)} to {r.path(path)}"


def _too_far(r: _Refused) -> str:
    slot, path, _ = _moving_colonist(r)
    loc = int(r.s[player_base(r.p) + P_COLONISTS + slot])
    need, left = int(facts.path_distance(r.m.tables, loc, path)), int(r.s[STEPS_LEFT])
    return f"reaching {r.path(path)} takes {need} steps, only {left} left"


def _lower_slot(r: _Refused) -> str:
    slot, path, kind = _moving_colonist(r)
    first = int(facts.canonical_slot(r.s, r.p, slot))
    return (
        f"the {kind} colonist in slot {first} stands there too and moving it is the same move: use action "
        f"{A.move(first, path)}"
    )


def _house_price(r: _Refused) -> str:
    c = int(A.decode_build(r.action))
    goods = goods_text(HOUSE_GOODS_COST[r.s[CITY_GOOD + c]])
    return f"a house there costs {goods} and {money_text(int(facts.house_price(r.s, c)))} (has {money_text(r.money())})"


def _trade(r: _Refused) -> tuple[int, int]:
    """Good and quantity of a refused SELL or BUY."""
    good, quantity = A.decode_sell(r.action) if r.range == "SELL" else A.decode_buy(r.action)
    return int(good), int(quantity)


def _goods_cost(r: _Refused) -> str:
    good, q = _trade(r)
    return f"{q} {GOODS[good]} cost {money_text(q * int(GOOD_PRICE[good]))} (has {money_text(r.money())})"


def _card_price(r: _Refused) -> str:
    slot, variant = A.decode_buy_card(r.action)
    goods = np.zeros(NUM_GOODS, dtype=np.int32)
    facts.buy_cost(r.s, slot, variant, int(r.s[ACTION_KIND]), goods)
    return f"player {r.p} cannot pay {CARD_ID[int(r.s[DISPLAY + slot])]} here ({goods_text(goods)})"


def _slot_number(r: _Refused) -> int:
    return int(A.decode_buy_card(r.action)[0]) + 1


#: the words of every refusal code of ``rules.legal`` (LEGAL has none: nothing is refused)
REFUSAL_TEXT: dict[int, Callable[[_Refused], str]] = {
    legal.NOT_AN_ACTION: lambda r: f"the action space is 0..{A.NUM_ACTIONS - 1}",
    legal.GAME_OVER: lambda r: "the game is over",
    legal.NO_DECISION: lambda r: f"no decision is pending: phase {int(r.s[PHASE])} is none of the decisions",
    legal.OTHER_DECISION: _other_decision,
    legal.NO_DONE: lambda r: "this decision has no 'done': one of its choices must be taken",
    legal.CARD_NOT_IN_HAND: lambda r: f"player {r.p} has no {KIND_NAMES[A.decode_play(r.action)]} in hand",
    legal.NOTHING_TO_COPY: lambda r: "no opponent's discard pile shows a card a Diplomat may copy",
    legal.NO_SUCH_OPPONENT: lambda r: f"there are only {int(r.s[NUM_PLAYERS]) - 1} opponents",
    legal.EMPTY_DISCARD: lambda r: (
        f"player {diplomat_target(r.s, r.p, A.decode_diplomat(r.action))}'s discard pile is empty"
    ),
    legal.COPIES_A_DIPLOMAT: lambda r: "a Diplomat cannot copy a Diplomat",
    legal.NEARER_OPPONENT_SAME_KIND: _nearer_opponent,
    legal.NO_COLONIST_IN_STOREHOUSE: lambda r: (
        f"player {r.p} has no {PATH_KINDS[r.colonist_kind()]} colonist left in the storehouse"
    ),
    legal.CANNOT_PAY_COLONIST: lambda r: f"a colonist costs {goods_text(COLONIST_COST)}",
    legal.NO_SUCH_PATH: lambda r: f"the {r.m.title} map has only {len(r.m.paths)} paths",
    legal.COLONIST_IN_STOREHOUSE: lambda r: "the {2} colonist slot {0} is still in the storehouse".format(
        *_moving_colonist(r)
    ),
    legal.WRONG_PATH_KIND: lambda r: (
        f"a {_moving_colonist(r)[2]} colonist cannot use a {PATH_KINDS[r.m.paths[_moving_colonist(r)[1]][0]]} path"
    ),
    legal.ON_SPECIAL_SQUARE: lambda r: "a colonist on a special square never moves again",
    legal.ALREADY_ON_PATH: lambda r: f"the colonist already stands on {r.path(_moving_colonist(r)[1])}",
    legal.UNREACHABLE_PATH: _unreachable,
    legal.TOO_FAR: _too_far,
    legal.PATH_OCCUPIED: lambda r: f"{r.path(_moving_colonist(r)[1])} is occupied",
    legal.LOWER_SLOT_SAME_MOVE: _lower_slot,
    legal.NO_SUCH_PLACE: _no_such_place,
    legal.NOT_BUILDABLE: lambda r: f"no house may be built in {r.place(A.decode_build(r.action))}",
    legal.HOUSE_ALREADY_THERE: lambda r: f"player {r.p} already has a house in {r.place(A.decode_build(r.action))}",
    legal.ALL_HOUSES_BUILT: lambda r: f"all {HOUSES_PER_PLAYER} houses are built",
    legal.NO_COLONIST_NEXT_TO: lambda r: f"no colonist of player {r.p} is next to {r.place(A.decode_build(r.action))}",
    legal.CANNOT_AFFORD_HOUSE: _house_price,
    legal.NO_SUCH_PROVINCE: lambda r: f"the {r.m.title} map has only {len(r.m.provinces)} provinces",
    legal.COIN_SIDE_UP: lambda r: (
        f"{r.m.province_names[A.decode_produce(r.action)]}'s bonus marker shows its coin side"
    ),
    legal.NOTHING_OF_GOOD_WAITING: lambda r: f"player {r.p} receives no {GOODS[A.decode_good(r.action)]} now",
    legal.GOOD_ALREADY_TRADED: lambda r: f"{GOODS[_trade(r)[0]]} was already traded in this action",
    legal.NO_TRADES_LEFT: lambda r: f"a Mercator trades at most {MERCATOR_KINDS} kinds of goods",
    legal.NOT_ENOUGH_GOODS: lambda r: (
        f"player {r.p} holds only {int(r.s[player_base(r.p) + P_GOODS + _trade(r)[0]])} {GOODS[_trade(r)[0]]}"
    ),
    legal.NO_STOREHOUSE_SPACE: lambda r: (
        f"player {r.p} has only {int(facts.free_slots(r.s, r.p))} free storehouse slots"
    ),
    legal.CANNOT_AFFORD_GOODS: _goods_cost,
    legal.NO_BUYS_LEFT: lambda r: "this action may buy no more cards",
    legal.SLOT_BOUGHT: lambda r: f"display slot {_slot_number(r)} holds no card: it was bought in this action",
    legal.SLOT_EMPTY: lambda r: f"display slot {_slot_number(r)} holds no card",
    legal.CONSUL_PAYS_OWN_COST: lambda r: "the Consul pays only the card's own cost: use payment variant 0",
    legal.ANY_GOOD_NOT_CHOSEN: lambda r: f"slot {_slot_number(r)} costs an 'any' good: choose which good pays it",
    legal.NO_ANY_COST: lambda r: f"slot {_slot_number(r)} has no 'any' cost",
    legal.CANNOT_PAY_CARD: _card_price,
    legal.NOT_A_SETTLING_PLACE: lambda r: (
        f"a colonist is settled in {r.m.capital} or in a city with an own house, not in {r.place(r.settle_place())}"
    ),
    legal.NO_PATH_OF_KIND: lambda r: f"no {PATH_KINDS[r.colonist_kind()]} path leaves {r.place(r.settle_place())}",
}
