"""Actions in words: what an action does, and why an action is refused.

Plain Python over the state array (these run once per shown action or per error, never
in the hot loop).
"""

from __future__ import annotations

import numpy as np

from . import actions as A
from .cards import (
    CARD_COST,
    CARD_ID,
    CARD_KIND,
    COLONIST_COST,
    DISPLAY_SLOTS,
    GOOD_PRICE,
    GOODS,
    HOUSE_GOODS_COST,
    HOUSE_MONEY_COST,
    HOUSES_PER_PLAYER,
    K_CONSUL,
    K_DIPLOMAT,
    KIND_NAMES,
    NUM_GOODS,
    SLOT_ANY_COST,
)
from .maps import LAND, PATH_KINDS, Map
from .state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    CITY_GOOD,
    CURRENT_PLAYER,
    DISPLAY,
    LOC_STOREHOUSE,
    NUM_PLAYERS,
    OPT_DISPLAY_COSTS,
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
    TURN_PLAYER,
    house_index,
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


def _slot_kind_name(slot: int) -> str:
    return PATH_KINDS[0 if slot < 3 else 1]


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
        target = path_text(m, path) if path < len(m.paths) else f"path #{path}"
        return f"Architect: move {_slot_kind_name(slot)} colonist from {location_text(m, loc)} to {target}"
    if name == "BUILD":
        place = m.places[i] if i < len(m.places) else f"place #{i}"
        good = int(s[CITY_GOOD + i]) if i < len(m.places) else -1
        if good < 0:
            return f"Architect: build a house in {place}"
        houses = int(sum(s[house_index(q, i)] for q in range(int(s[NUM_PLAYERS]))))
        money = int(HOUSE_MONEY_COST[good]) * (houses + 1)
        return (
            f"Architect: build a house in {place} ({GOODS[good]} city; pays "
            f"{goods_text(HOUSE_GOODS_COST[good])} and {money} sestertii)"
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
        return f"Mercator: {verb} {q} {GOODS[good]} for {q * int(GOOD_PRICE[good])} sestertii"
    if name == "BUY_CARD":
        slot, variant = divmod(i, A.PAY_VARIANTS)
        card = int(s[DISPLAY + slot])
        who = KIND_NAMES[int(s[ACTION_KIND])] if int(s[ACTION_KIND]) >= 0 else "buy"
        what = CARD_ID[card] if card >= 0 else "an empty slot"
        pay = f", paying the slot's 'any' good with {GOODS[variant - 1]}" if variant else ""
        return f"{who}: buy {what} from display slot {slot + 1}{pay}"
    if name == "SETTLE":
        kind, place = divmod(i, A.MAX_CITIES)
        where = m.places[place] if place < len(m.places) else f"place #{place}"
        return f"Colonist: settle a {PATH_KINDS[kind]} colonist in {where} (pays {goods_text(COLONIST_COST)})"
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
    from .rules.legal import fill_legal

    mask = np.zeros(A.NUM_ACTIONS, dtype=np.bool_)
    fill_legal(s, m.tables, mask)
    return bool(mask[action])


def _specific_reason(s: np.ndarray, m: Map, name: str, i: int, p: int) -> str | None:
    b = player_base(p)
    goods = s[b + P_GOODS : b + P_GOODS + NUM_GOODS]
    money = int(s[b + P_MONEY])
    if name == "DONE":
        return "this decision has no 'done': one of its choices must be taken"
    if name == "PLAY":
        from .rules.common import hand_card_of_kind

        if hand_card_of_kind(s, p, i) < 0:
            return f"player {p} has no {KIND_NAMES[i]} in hand"
        if i == K_DIPLOMAT:
            return "no opponent's discard pile shows a card a Diplomat may copy"
    if name == "DIPLOMAT":
        n = int(s[NUM_PLAYERS])
        if i + 1 >= n:
            return f"there are only {n - 1} opponents"
        top = int(s[player_base((p + i + 1) % n) + P_DISCARD_TOP])
        if top < 0:
            return "that opponent's discard pile is empty"
        if CARD_KIND[top] == K_DIPLOMAT:
            return "a Diplomat cannot copy a Diplomat"
        from .rules.legal import canonical_diplomat_offset

        first = int(canonical_diplomat_offset(s, p, i + 1))
        if first != i + 1:
            return (
                f"player {(p + first) % n} shows a {KIND_NAMES[CARD_KIND[top]]} too and copying it is the same move: "
                f"use action {A.A_DIPLOMAT + first - 1}"
            )
    if name == "MOVE":
        slot, path = divmod(i, A.MAX_PATHS)
        loc = int(s[b + P_COLONISTS + slot])
        if path >= len(m.paths):
            return f"the {m.title} map has only {len(m.paths)} paths"
        if loc == LOC_STOREHOUSE:
            return f"{_slot_kind_name(slot)} colonist slot {slot} is still in the storehouse"
        kind = m.paths[path][0]
        if kind != (0 if slot < 3 else 1):
            return f"a {_slot_kind_name(slot)} colonist cannot use a {PATH_KINDS[kind]} path"
        from .rules.legal import canonical_slot, distance_to_path

        if loc < PATH_LOC_BASE and m.places[loc] in m.special_squares:
            return "a colonist on a special square never moves again"
        need = int(distance_to_path(m.tables, loc, path))
        left = int(s[STEPS_LEFT])
        if need > left:
            return f"reaching {path_text(m, path)} takes {need} steps, only {left} left"
        first = int(canonical_slot(s, p, slot))
        if first != slot and _legal_now(s, m, A.move(first, path)):
            return (
                f"the {_slot_kind_name(slot)} colonist in slot {first} stands there too and moving it is the same "
                f"move: use action {A.move(first, path)}"
            )
        return f"{path_text(m, path)} is occupied"
    if name == "BUILD":
        if i >= len(m.places) or m.places[i] == m.capital or m.places[i] in m.special_squares:
            return "no house may be built there"
        from .rules import common

        if common.has_house(s, p, i):
            return f"player {p} already has a house in {m.places[i]}"
        if common.houses_of(s, m.tables, p) >= HOUSES_PER_PLAYER:
            return f"all {HOUSES_PER_PLAYER} houses are built"
        if not common.colonist_adjacent_to(s, m.tables, p, i):
            return f"no colonist of player {p} is next to {m.places[i]}"
        good = int(s[CITY_GOOD + i])
        cost = int(common.house_money_cost(s, i, good))
        return f"a house there costs {goods_text(HOUSE_GOODS_COST[good])} and {cost} sestertii (has {money})"
    if name == "PRODUCE":
        if i >= len(m.provinces):
            return f"the {m.title} map has only {len(m.provinces)} provinces"
        if s[BONUS_COIN_SIDE + i]:
            return f"{m.province_names[i]}'s bonus marker shows its coin side"
    if name == "GOOD":
        return f"player {p} receives no {GOODS[i]} now"
    if name in ("SELL", "BUY"):
        good, q = divmod(i, A.MAX_TRADE)
        if name == "SELL" and goods[good] < q + 1:
            return f"player {p} holds only {goods[good]} {GOODS[good]}"
        return "trades are limited to two kinds of goods, by money and by storehouse space"
    if name == "BUY_CARD":
        slot, variant = divmod(i, A.PAY_VARIANTS)
        card = int(s[DISPLAY + slot]) if slot < DISPLAY_SLOTS else -1
        if card < 0:
            return f"display slot {slot + 1} holds no card (or it was bought this action)"
        if int(s[ACTION_KIND]) == K_CONSUL and variant:
            return "the Consul pays only the card's own cost: use payment variant 0"
        needs_any = SLOT_ANY_COST[int(s[OPT_DISPLAY_COSTS]), slot] > 0
        if needs_any and not variant and int(s[ACTION_KIND]) != K_CONSUL:
            return f"slot {slot + 1} costs an 'any' good: choose which good pays it"
        if variant and not needs_any:
            return f"slot {slot + 1} has no 'any' cost"
        return f"player {p} cannot pay {CARD_ID[card]} (own cost {goods_text(CARD_COST[card])} plus the slot)"
    if name in ("SETTLE", "TRIBUNE_COLONIST"):
        return "needs a colonist of that kind in the storehouse, 1 food and 1 tool, and a suitable city"
    return None
