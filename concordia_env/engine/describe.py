"""Actions in words: what an action does, and why an action is refused.

Plain Python over the state array (these run once per shown action or per error, never
in the hot loop).
"""

from __future__ import annotations

import numpy as np

from . import actions as A
from .cards import (
    CARD_ID,
    CARD_KIND,
    COLONIST_COST,
    DISPLAY_SLOTS,
    GOOD_PRICE,
    GOODS,
    HOUSE_GOODS_COST,
    HOUSES_PER_PLAYER,
    K_CONSUL,
    K_DIPLOMAT,
    KIND_NAMES,
    MERCATOR_KINDS,
    NUM_GOODS,
)
from .maps import LAND, PATH_KINDS, Map
from .rules import facts
from .rules.common import (
    can_pay_colonist,
    colonist_adjacent_to,
    hand_card_of_kind,
    has_house,
    houses_of,
    storehouse_colonist_slot,
)
from .rules.legal import copyable_top, diplomat_target, fill_legal
from .state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
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
    PHASE_GAME_OVER,
    PHASE_MERCATOR,
    PHASE_NAMES,
    PHASE_TRIBUNE_COLONIST,
    STEPS_LEFT,
    TRADED_GOODS,
    TURN_PLAYER,
    player_base,
)

#: which phases accept which action ranges (for "this action belongs to another decision")
_RANGE_PHASES = {
    "PLAY": ("play a card",),
    "DIPLOMAT": ("Diplomat: choose whose card to copy",),
    "MOVE": ("Architect: move colonists or build",),
    "BUILD": ("Architect: move colonists or build", "Architect: build houses"),
    "PRODUCE": ("Prefect: produce or cash bonus",),
    "CASH": ("Prefect: produce or cash bonus",),
    "GOOD": ("Prefect: choose the Gavdos bonus good", "storehouse full: choose a good to keep"),
    "SELL": ("Mercator: trade",),
    "BUY": ("Mercator: trade",),
    "BUY_CARD": ("buy cards from the display",),
    "SETTLE": ("Colonist: settle or tax", "Colonist: settle more colonists"),
    "TAX": ("Colonist: settle or tax",),
    "TRIBUNE_COLONIST": ("Tribune: buy a colonist",),
}


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
    name, i = A.decode(int(action))
    p = int(s[CURRENT_PLAYER])
    b = player_base(max(p, 0))
    if name == "PLAY":
        return f"play the {KIND_NAMES[i]}"
    if name == "DIPLOMAT":
        target = (int(s[TURN_PLAYER]) + i + 1) % int(s[NUM_PLAYERS])
        top = int(s[player_base(target) + P_DISCARD_TOP])
        shown = CARD_ID[top] if top >= 0 else "nothing"
        return f"Diplomat: copy player {target}'s {shown}"
    if name == "MOVE":
        slot, path = divmod(i, A.MAX_PATHS)
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
        good, q = divmod(i, A.MAX_TRADE)
        q += 1
        verb = "sell" if name == "SELL" else "buy"
        return f"Mercator: {verb} {q} {GOODS[good]} for {money_text(q * int(GOOD_PRICE[good]))}"
    if name == "BUY_CARD":
        slot, variant = divmod(i, A.PAY_VARIANTS)
        card = int(s[DISPLAY + slot])
        who = KIND_NAMES[int(s[ACTION_KIND])] if int(s[ACTION_KIND]) >= 0 else "buy"
        what = CARD_ID[card] if card >= 0 else "an empty slot"
        pay = f", paying the slot's 'any' good with {GOODS[variant - 1]}" if variant else ""
        return f"{who}: buy {what} from display slot {slot + 1}{pay}"
    if name == "SETTLE":
        path_kind, spot = divmod(i, A.MAX_CITIES)
        where = m.places[spot] if spot < len(m.places) else f"place #{spot}"
        return f"Colonist: settle a {PATH_KINDS[path_kind]} colonist in {where} (pays {goods_text(COLONIST_COST)})"
    if name == "TAX":
        return "Colonist: collect the tax"
    if name == "TRIBUNE_COLONIST":
        return f"Tribune: buy a {PATH_KINDS[i]} colonist into {m.capital} (pays {goods_text(COLONIST_COST)})"
    return _DONE_TEXT.get(int(s[PHASE]), "done")


def explain_illegal(s: np.ndarray, m: Map, action: int) -> str:
    """Why ``action`` is not legal now (called after the engine refused it)."""
    if not 0 <= action < A.NUM_ACTIONS:
        return f"the action space is 0..{A.NUM_ACTIONS - 1}"
    phase = int(s[PHASE])
    if phase == PHASE_GAME_OVER:
        return "the game is over"
    name, i = A.decode(action)
    p = int(s[CURRENT_PLAYER])
    pending = PHASE_NAMES[phase]
    if name != "DONE" and pending not in _RANGE_PHASES.get(name, ()):
        return f"player {p} must decide '{pending}' now; this action belongs to another decision"
    specific = _specific_reason(s, m, name, i, p)
    return specific or f"the rules do not allow it in '{pending}' here"


def _legal_now(s: np.ndarray, m: Map, action: int) -> bool:
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.bool_)
    fill_legal(s, m.tables, mask)
    return bool(mask[action])


def _specific_reason(s: np.ndarray, m: Map, name: str, i: int, p: int) -> str | None:
    """The rule that refuses the action, in words: each fact is asked of :mod:`.rules.facts`."""
    if name == "DONE":
        return "this decision has no 'done': one of its choices must be taken"
    if name == "PLAY":
        return _play_reason(s, i, p)
    if name == "DIPLOMAT":
        return _diplomat_reason(s, i, p)
    if name == "MOVE":
        return _move_reason(s, m, i, p)
    if name == "BUILD":
        return _build_reason(s, m, i, p)
    if name == "PRODUCE":
        if i >= len(m.provinces):
            return f"the {m.title} map has only {len(m.provinces)} provinces"
        if s[BONUS_COIN_SIDE + i]:
            return f"{m.province_names[i]}'s bonus marker shows its coin side"
    if name == "GOOD":
        return f"player {p} receives no {GOODS[i]} now"
    if name in ("SELL", "BUY"):
        return _trade_reason(s, name, i, p)
    if name == "BUY_CARD":
        return _buy_card_reason(s, i, p)
    if name in ("SETTLE", "TRIBUNE_COLONIST"):
        return _colonist_reason(s, m, name, i, p)
    return None


def _play_reason(s: np.ndarray, kind: int, p: int) -> str | None:
    if hand_card_of_kind(s, p, kind) < 0:
        return f"player {p} has no {KIND_NAMES[kind]} in hand"
    if kind == K_DIPLOMAT:
        return "no opponent's discard pile shows a card a Diplomat may copy"
    return None


def _diplomat_reason(s: np.ndarray, i: int, p: int) -> str | None:
    n, offset = int(s[NUM_PLAYERS]), i + 1
    if offset >= n:
        return f"there are only {n - 1} opponents"
    top = int(s[player_base(diplomat_target(s, p, offset)) + P_DISCARD_TOP])
    if top < 0:
        return "that opponent's discard pile is empty"
    if copyable_top(s, diplomat_target(s, p, offset)) < 0:
        return "a Diplomat cannot copy a Diplomat"
    first = int(facts.canonical_diplomat_offset(s, p, offset))
    if first != offset:
        return (
            f"player {diplomat_target(s, p, first)} shows a {KIND_NAMES[CARD_KIND[top]]} too and copying it is the "
            f"same move: use action {A.A_DIPLOMAT + first - 1}"
        )
    return None


def _move_reason(s: np.ndarray, m: Map, i: int, p: int) -> str:
    slot, path = divmod(i, A.MAX_PATHS)
    loc = int(s[player_base(p) + P_COLONISTS + slot])
    kind = int(facts.colonist_kind(slot))
    if path >= len(m.paths):
        return f"the {m.title} map has only {len(m.paths)} paths"
    if loc == LOC_STOREHOUSE:
        return f"{PATH_KINDS[kind]} colonist slot {slot} is still in the storehouse"
    if m.paths[path][0] != kind:
        return f"a {PATH_KINDS[kind]} colonist cannot use a {PATH_KINDS[m.paths[path][0]]} path"
    if not facts.is_movable(m.tables, loc):
        return "a colonist on a special square never moves again"
    if loc == PATH_LOC_BASE + path:
        return f"the colonist already stands on {path_text(m, path)}"
    need = int(facts.path_distance(m.tables, loc, path))
    left = int(s[STEPS_LEFT])
    if need > left:
        return f"reaching {path_text(m, path)} takes {need} steps, only {left} left"
    first = int(facts.canonical_slot(s, p, slot))
    if first != slot and _legal_now(s, m, A.move(first, path)):
        return (
            f"the {PATH_KINDS[kind]} colonist in slot {first} stands there too and moving it is the same "
            f"move: use action {A.move(first, path)}"
        )
    return f"{path_text(m, path)} is occupied"


def _build_reason(s: np.ndarray, m: Map, c: int, p: int) -> str:
    t = m.tables
    if c >= len(m.places) or not facts.is_buildable_place(t, c):
        return "no house may be built there"
    if has_house(s, p, c):
        return f"player {p} already has a house in {m.places[c]}"
    if houses_of(s, t, p) >= HOUSES_PER_PLAYER:
        return f"all {HOUSES_PER_PLAYER} houses are built"
    if not colonist_adjacent_to(s, t, p, c):
        return f"no colonist of player {p} is next to {m.places[c]}"
    money = int(s[player_base(p) + P_MONEY])
    cost = int(facts.house_price(s, c))
    goods = goods_text(HOUSE_GOODS_COST[s[CITY_GOOD + c]])
    return f"a house there costs {goods} and {money_text(cost)} (has {money_text(money)})"


def _trade_reason(s: np.ndarray, name: str, i: int, p: int) -> str:
    good, q = divmod(i, A.MAX_TRADE)
    q += 1
    b = player_base(p)
    if good in _traded(s):
        return f"{GOODS[good]} was already traded in this action"
    if int(facts.trades_left(s)) <= 0:
        return f"a Mercator trades at most {MERCATOR_KINDS} kinds of goods"
    if name == "SELL":
        return f"player {p} holds only {int(s[b + P_GOODS + good])} {GOODS[good]}"
    free, money, price = int(facts.free_slots(s, p)), int(s[b + P_MONEY]), q * int(GOOD_PRICE[good])
    if q > free:
        return f"player {p} has only {free} free storehouse slots"
    return f"{q} {GOODS[good]} cost {money_text(price)} (has {money_text(money)})"


def _traded(s: np.ndarray) -> list[int]:
    return [g for g in range(NUM_GOODS) if int(s[TRADED_GOODS]) >> g & 1]


def _buy_card_reason(s: np.ndarray, i: int, p: int) -> str:
    slot, variant = divmod(i, A.PAY_VARIANTS)
    card = int(s[DISPLAY + slot]) if slot < DISPLAY_SLOTS else -1
    if card < 0:
        return f"display slot {slot + 1} holds no card (or it was bought this action)"
    kind = int(s[ACTION_KIND])
    goods = np.zeros(NUM_GOODS, dtype=np.int32)
    any_units = int(facts.display_price(s, slot, kind, goods))
    if kind == K_CONSUL and variant:
        return "the Consul pays only the card's own cost: use payment variant 0"
    if any_units and not variant:
        return f"slot {slot + 1} costs an 'any' good: choose which good pays it"
    if variant and not any_units:
        return f"slot {slot + 1} has no 'any' cost"
    facts.buy_cost(s, slot, variant, kind, goods)
    return f"player {p} cannot pay {CARD_ID[card]} here ({goods_text(goods)})"


def _colonist_reason(s: np.ndarray, m: Map, name: str, i: int, p: int) -> str:
    kind, place = divmod(i, A.MAX_CITIES) if name == "SETTLE" else (i, m.place_index(m.capital))
    if storehouse_colonist_slot(s, p, kind) < 0:
        return f"player {p} has no {PATH_KINDS[kind]} colonist left in the storehouse"
    if not can_pay_colonist(s, p):
        return f"a colonist costs {goods_text(COLONIST_COST)}"
    if place >= len(m.places):
        return f"the {m.title} map has only {len(m.places)} places"
    if place != m.place_index(m.capital) and not has_house(s, p, place):
        return f"a colonist is settled in {m.capital} or in a city with an own house, not in {m.places[place]}"
    return f"no {PATH_KINDS[kind]} path leaves {m.places[place]}"
