"""Goods, personality cards, gods and display slot costs as numpy tables.

Everything here is static: it is read once from ``data/cards.json`` (the project's own
copy of the reference facts) and frozen into numpy arrays that the compiled rules use as
constants.

Card *types* identify physical cards up to interchangeability:

* types ``0..5`` are the starting cards every player owns (Tribune, Architect, Prefect,
  Mercator, Senator, Diplomat; a player owns two Prefects, so a hand holds counts);
* types ``6..35`` are the thirty cards for sale, one physical card each, in deck order
  I..V as listed in the data file.

Card *kinds* are what a player chooses when playing a card: cards of one kind do the same
thing (a bought Mercator pays 5 and is therefore its own kind, every specialist is a kind).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np

_DATA = json.loads(resources.files("concordia_env.engine.data").joinpath("cards.json").read_text())

# --------------------------------------------------------------------------- goods
GOODS: tuple[str, ...] = tuple(_DATA["goods"])
NUM_GOODS = len(GOODS)
BRICK, FOOD, TOOL, WINE, CLOTH = range(NUM_GOODS)
GOOD_INDEX = {g: i for i, g in enumerate(GOODS)}
GOOD_PRICE = np.array([_DATA["good_price"][g] for g in GOODS], dtype=np.int32)
BONUS_MARKER_COINS = np.array([_DATA["bonus_marker_coins"][g] for g in GOODS], dtype=np.int32)

#: goods paid for a house in a city producing good g (one row per city good)
HOUSE_GOODS_COST = np.zeros((NUM_GOODS, NUM_GOODS), dtype=np.int32)
#: money paid for a house in a city producing good g, before the multiplier
HOUSE_MONEY_COST = np.zeros(NUM_GOODS, dtype=np.int32)
for _g, _good in enumerate(GOODS):
    for _paid in _DATA["house_cost"][_good]["goods"]:
        HOUSE_GOODS_COST[_g, GOOD_INDEX[_paid]] += 1
    HOUSE_MONEY_COST[_g] = _DATA["house_cost"][_good]["money"]

COLONIST_COST = np.zeros(NUM_GOODS, dtype=np.int32)
for _paid in _DATA["colonist_cost"]:
    COLONIST_COST[GOOD_INDEX[_paid]] += 1

STOREHOUSE_SLOTS: int = _DATA["storehouse_slots"]
HOUSES_PER_PLAYER: int = _DATA["houses_per_player"]
LAND_COLONISTS: int = _DATA["colonists_per_player"]["land"]
SEA_COLONISTS: int = _DATA["colonists_per_player"]["sea"]
COLONISTS_PER_PLAYER = LAND_COLONISTS + SEA_COLONISTS
START_MONEY = np.array(_DATA["start_money_by_turn_position"], dtype=np.int32)
CONCORDIA_VP: int = _DATA["concordia_card_vp"]
SPECIAL_SQUARE_VP: int = _DATA["special_square_vp"]
#: the goods every player starts with in the storehouse (docs/rules.md, Setup)
START_GOODS = np.array([_DATA["start_goods"][g] for g in GOODS], dtype=np.int32)
#: Mercator: kinds of goods one action may trade
MERCATOR_KINDS: int = _DATA["mercator_kinds"]
#: Tribune: cards taken back that pay nothing; each further card pays 1 sestertius
TRIBUNE_FREE_CARDS: int = _DATA["tribune_free_cards"]
#: Colonist tax: this many sestertii plus one per colonist on the board
COLONIST_TAX_BASE: int = _DATA["colonist_tax_base"]
#: units of the bonus good a Prefect producing with the Praefectus Magnus takes (1 without it)
PRAEFECTUS_MAGNUS_BONUS_UNITS: int = _DATA["praefectus_magnus_bonus_units"]
#: Aegyptus: food the Nile marker adds to a production in its province
NILE_FOOD: int = _DATA["nile_food"]
#: Aegyptus: sestertii per colonist on the frankincense square when Sinai, Arabia or Litus produces
FRANKINCENSE_TRADE_MONEY: int = _DATA["frankincense_trade_money"]
#: intermediate scoring (variant): sestertii paid by rank, first place first
INTERMEDIATE_PRIZES: tuple[int, ...] = tuple(_DATA["intermediate_prizes"])

#: city tokens per letter: CITY_TOKENS[letter] = list of good indices, one per token
CITY_TOKENS: dict[str, list[int]] = {
    letter: [GOOD_INDEX[g] for g, n in counts.items() for _ in range(n)]
    for letter, counts in _DATA["city_tokens"].items()
}

# --------------------------------------------------------------------------- gods
GODS: tuple[str, ...] = ("Vesta", "Jupiter", "Saturnus", "Mercurius", "Mars", "Minerva")
NUM_GODS = len(GODS)
VESTA, JUPITER, SATURNUS, MERCURIUS, MARS, MINERVA = range(NUM_GODS)
GOD_INDEX = {g: i for i, g in enumerate(GODS)}
_GOD_SCORING = _DATA["god_scoring"]
#: Vesta: one VP per card for every this many sestertii of money and goods at their price
VESTA_SESTERTII_PER_VP: int = _GOD_SCORING["Vesta"]["sestertii_per_vp"]
#: VP per card for each house in a non-brick city, each province with a house, each kind of
#: good produced, each colonist on the board; and the caps of those VP per card
JUPITER_VP: int = _GOD_SCORING["Jupiter"]["vp_per_house"]
JUPITER_CAP: int = _GOD_SCORING["Jupiter"]["cap"]
SATURNUS_VP: int = _GOD_SCORING["Saturnus"]["vp_per_province"]
MERCURIUS_VP: int = _GOD_SCORING["Mercurius"]["vp_per_kind"]
MERCURIUS_CAP: int = _GOD_SCORING["Mercurius"]["cap"]
MARS_VP: int = _GOD_SCORING["Mars"]["vp_per_colonist"]
MARS_CAP: int = _GOD_SCORING["Mars"]["cap"]

# --------------------------------------------------------------------------- kinds
KIND_NAMES: tuple[str, ...] = (
    "Tribune",
    "Architect",
    "Prefect",
    "Mercator",
    "Mercator (bought)",
    "Senator",
    "Consul",
    "Diplomat",
    "Colonist",
    "Mason",
    "Farmer",
    "Smith",
    "Vintner",
    "Weaver",
)
NUM_KINDS = len(KIND_NAMES)
(
    K_TRIBUNE,
    K_ARCHITECT,
    K_PREFECT,
    K_MERCATOR,
    K_MERCATOR_BOUGHT,
    K_SENATOR,
    K_CONSUL,
    K_DIPLOMAT,
    K_COLONIST,
    K_MASON,
    K_FARMER,
    K_SMITH,
    K_VINTNER,
    K_WEAVER,
) = range(NUM_KINDS)
FIRST_SPECIALIST = K_MASON
SPECIALIST_NAMES = ("Mason", "Farmer", "Smith", "Vintner", "Weaver")
#: the good a specialist kind produces (-1 for other kinds)
KIND_SPECIALIST_GOOD = np.full(NUM_KINDS, -1, dtype=np.int32)
#: Minerva VP per city of the specialist's good (0 for other kinds)
KIND_MINERVA_VP = np.zeros(NUM_KINDS, dtype=np.int32)
#: money a Mercator kind pays before trading
KIND_MERCATOR_MONEY = np.zeros(NUM_KINDS, dtype=np.int32)
#: cards a Senator / Consul kind may buy in one action (0 for other kinds)
KIND_CARDS_BOUGHT = np.zeros(NUM_KINDS, dtype=np.int32)
KIND_CARDS_BOUGHT[K_SENATOR] = _DATA["cards_bought"]["senator"]
KIND_CARDS_BOUGHT[K_CONSUL] = _DATA["cards_bought"]["consul"]

_ACTION_TO_KIND = {
    "tribune": K_TRIBUNE,
    "architect": K_ARCHITECT,
    "prefect": K_PREFECT,
    "senator": K_SENATOR,
    "consul": K_CONSUL,
    "diplomat": K_DIPLOMAT,
    "colonist": K_COLONIST,
}


def _kind_of(card: dict) -> int:
    action = card["action"]
    if action == "mercator":
        kind = K_MERCATOR if card["mercator_money"] == 3 else K_MERCATOR_BOUGHT
        KIND_MERCATOR_MONEY[kind] = card["mercator_money"]
        return kind
    if action == "specialist":
        kind = FIRST_SPECIALIST + SPECIALIST_NAMES.index(card["name"])
        KIND_SPECIALIST_GOOD[kind] = GOOD_INDEX[card["good"]]
        KIND_MINERVA_VP[kind] = _DATA["minerva_vp_per_city"][card["name"]]
        return kind
    return _ACTION_TO_KIND[action]


# --------------------------------------------------------------------------- card types
DECKS: tuple[str, ...] = ("", "I", "II", "III", "IV", "V")  # index 0: starting cards
_starting: list[dict] = []
START_HAND_COUNTS_LIST: list[int] = []
for _card in _DATA["starting_hand"]:
    for _i, _seen in enumerate(_starting):
        if _seen["name"] == _card["name"]:
            START_HAND_COUNTS_LIST[_i] += 1
            break
    else:
        _starting.append(_card)
        START_HAND_COUNTS_LIST.append(1)
_sale = [(d, c) for d, deck in enumerate(DECKS[1:], start=1) for c in _DATA["decks"][deck]]

NUM_START_TYPES = len(_starting)
NUM_SALE_CARDS = len(_sale)
NUM_CARD_TYPES = NUM_START_TYPES + NUM_SALE_CARDS

CARD_NAME: list[str] = [c["name"] for c in _starting] + [c["name"] for _, c in _sale]
#: the card id used by the position format: "Architect" (starting) or "Architect/II"
CARD_ID: list[str] = CARD_NAME[:NUM_START_TYPES] + [f"{c['name']}/{DECKS[d]}" for d, c in _sale]
CARD_ID_INDEX = {cid: i for i, cid in enumerate(CARD_ID)}
CARD_KIND = np.array([_kind_of(c) for c in _starting] + [_kind_of(c) for _, c in _sale], dtype=np.int32)
CARD_GOD = np.array([GOD_INDEX[c["god"]] for c in _starting] + [GOD_INDEX[c["god"]] for _, c in _sale], dtype=np.int32)
CARD_DECK = np.array([0] * NUM_START_TYPES + [d for d, _ in _sale], dtype=np.int32)
CARD_COST = np.zeros((NUM_CARD_TYPES, NUM_GOODS), dtype=np.int32)
for _t, (_, _card) in enumerate(_sale, start=NUM_START_TYPES):
    for _paid in _card["cost"]:
        CARD_COST[_t, GOOD_INDEX[_paid]] += 1
START_HAND_COUNTS = np.zeros(NUM_CARD_TYPES, dtype=np.int32)
START_HAND_COUNTS[:NUM_START_TYPES] = START_HAND_COUNTS_LIST
START_HAND_SIZE = int(START_HAND_COUNTS.sum())
NUM_DECKS = len(DECKS) - 1
#: bit set of the sale card types (bit t: type t): one card each, so a hand or a pile holds 0 or 1
SALE_TYPES = (1 << NUM_CARD_TYPES) - (1 << NUM_START_TYPES)
#: [kind]: bit set of the kind's sale card types; KIND_START_TYPE[kind]: its starting card type, -1 if none
KIND_SALE_TYPES = np.zeros(NUM_KINDS, dtype=np.int64)
KIND_START_TYPE = np.full(NUM_KINDS, -1, dtype=np.int64)
#: [god]: bit set of the god's sale card types; GOD_START_TYPES[god]: its starting card types (-1: none)
GOD_SALE_TYPES = np.zeros(NUM_GODS, dtype=np.int64)
GOD_START_TYPES = np.full((NUM_GODS, 2), -1, dtype=np.int64)
for _t in range(NUM_START_TYPES):
    _kind, _god = CARD_KIND[_t], CARD_GOD[_t]
    assert KIND_START_TYPE[_kind] < 0, "one starting card type per kind"
    KIND_START_TYPE[_kind] = _t
    _free = np.flatnonzero(GOD_START_TYPES[_god] < 0)
    assert len(_free) > 0, "two starting card types per god at most"
    GOD_START_TYPES[_god, _free[0]] = _t
for _t in range(NUM_START_TYPES, NUM_CARD_TYPES):
    KIND_SALE_TYPES[CARD_KIND[_t]] |= 1 << _t
    GOD_SALE_TYPES[CARD_GOD[_t]] |= 1 << _t


def sale_cards_in_game(num_players: int) -> int:
    """Cards for sale in a game of ``num_players``: the decks I..num_players (docs/rules.md §2)."""
    return int(np.count_nonzero((CARD_DECK >= 1) & (num_players >= CARD_DECK)))


# --------------------------------------------------------------------------- display
DISPLAY_SLOTS = len(_DATA["display_slot_costs"]["standard"])
DISPLAY_VARIANTS: tuple[str, ...] = tuple(_DATA["display_slot_costs"])  # ("standard", "alternative")
#: goods named under each display slot, per variant: [variant, slot, good]
SLOT_FIXED_COST = np.zeros((len(DISPLAY_VARIANTS), DISPLAY_SLOTS, NUM_GOODS), dtype=np.int32)
#: number of "any good" units under each display slot, per variant
SLOT_ANY_COST = np.zeros((len(DISPLAY_VARIANTS), DISPLAY_SLOTS), dtype=np.int32)
for _v, _variant in enumerate(DISPLAY_VARIANTS):
    for _slot, _costs in enumerate(_DATA["display_slot_costs"][_variant]):
        for _paid in _costs:
            if _paid == "any":
                SLOT_ANY_COST[_v, _slot] += 1
            else:
                SLOT_FIXED_COST[_v, _slot, GOOD_INDEX[_paid]] += 1
assert SLOT_ANY_COST.max() <= 1, "the action layout allows one 'any' good per display slot"


def card_type(card_id: str) -> int:
    """The card type of a position-format card id ("Architect", "Diplomat/IV")."""
    try:
        return CARD_ID_INDEX[card_id]
    except KeyError:
        raise ValueError(f"unknown card id {card_id!r}; known ids: {', '.join(CARD_ID)}") from None
