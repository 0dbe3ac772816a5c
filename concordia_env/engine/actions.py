"""The action space: one fixed ``Discrete(NUM_ACTIONS)`` for every map and player count.

Each decision of a turn is one action index. The ranges below are sized for the largest
board of the four maps, so adding a map never changes the space.

| range | actions | meaning |
| --- | --- | --- |
| ``A_PLAY``        | 14            | play a card of kind k (cards.KIND_NAMES) |
| ``A_DIPLOMAT``    | 4             | Diplomat: copy the top card of the opponent 1..4 seats to the left |
| ``A_MOVE``        | 6 × MAX_PATHS | Architect: move colonist slot i (land 0-2, sea 3-5) to path p |
| ``A_BUILD``       | MAX_CITIES    | Architect: build a house in place c |
| ``A_PRODUCE``     | MAX_PROVINCES | Prefect: production in province v |
| ``A_CASH``        | 1             | Prefect: cash bonus |
| ``A_GOOD``        | 5             | choose a good: the Gavdos bonus, or a good to keep when the storehouse overflows |
| ``A_SELL``        | 5 × 12        | Mercator: sell q (1..12) units of good g |
| ``A_BUY``         | 5 × 12        | Mercator: buy q (1..12) units of good g |
| ``A_BUY_CARD``    | 7 × 6         | Senator/Consul: buy the card in display slot s, paying the slot's "any" good with
  good g (variant 1..5) or without an "any" good (variant 0) |
| ``A_SETTLE``      | 2 × MAX_CITIES| Colonist: settle a land (0) / sea (1) colonist in place c |
| ``A_TAX``         | 1             | Colonist: tax |
| ``A_TRIBUNE_COLONIST`` | 2        | Tribune: buy a land (0) / sea (1) colonist into the capital |
| ``A_DONE``        | 1             | end the optional part of the current decision |

An Architect move goes straight to its destination and costs the shortest number of steps
(passing occupied paths is allowed and costs their step); a one-step move is the special
case of a neighbouring path. Moves may only end on a free path, which loses no end
position: colonists of one kind are interchangeable, so any legal final arrangement can
be reached by moving each colonist once, in an order where each destination is already
free (a cycle of own colonists swapping places is the same arrangement as not moving).

One legal action per distinct choice: the mask never offers two actions that make the same
move. Colonists of one kind are interchangeable, so of several on one place only
the lowest colonist slot may move (``MOVE`` slot 0 and slot 1 from Roma would be the same
move); a Diplomat copies the *kind* of a card, so of several opponents showing copyable
cards of one kind only the nearest to the left is offered. ``docs/action-space.md`` says
more.

Encoders and decoders
---------------------
Every range has a compiled encoder (its arguments -> the action index) and a compiled
decoder (the index -> the same arguments), side by side below, so that no other module
does the layout's arithmetic by hand: ``move(slot, path)`` / ``decode_move(a) -> (slot,
path)``, ``sell(good, quantity)`` / ``decode_sell(a)``, ``buy_card(slot, any_good)`` /
``decode_buy_card(a) -> (slot, variant)``, and so on. They are compiled (numba), so the rules,
the strategy core and plain Python call the very same functions; a decoder assumes its
action lies in its range (``range_of`` says which range an index is in; the compiled code
does not check), and ``tests/test_actions.py`` checks every round trip.
"""

from __future__ import annotations

from .cards import DISPLAY_SLOTS, NUM_GOODS, NUM_KINDS, STOREHOUSE_SLOTS
from .layout import Layout
from .maps import MAX_CITIES, MAX_PATHS, MAX_PROVINCES
from .rules import njit
from .state import COLONISTS_PER_PLAYER, MAX_PLAYERS

MAX_TRADE = STOREHOUSE_SLOTS
#: buy-card payment variants: 0 = no "any" good, 1 + g = pay the "any" good with good g
PAY_VARIANTS = 1 + NUM_GOODS

_A = Layout()
A_PLAY = _A.field("PLAY", NUM_KINDS, doc="play a card of kind k")
A_DIPLOMAT = _A.field("DIPLOMAT", MAX_PLAYERS - 1, doc="copy the opponent k+1 seats to the left")
A_MOVE = _A.field("MOVE", COLONISTS_PER_PLAYER * MAX_PATHS, doc="slot * MAX_PATHS + path")
A_BUILD = _A.field("BUILD", MAX_CITIES, doc="build a house in place c")
A_PRODUCE = _A.field("PRODUCE", MAX_PROVINCES, doc="Prefect production in province v")
A_CASH = _A.field("CASH", 1, doc="Prefect cash bonus")
A_GOOD = _A.field("GOOD", NUM_GOODS, doc="choose good g (Gavdos bonus, overflow keep)")
A_SELL = _A.field("SELL", NUM_GOODS * MAX_TRADE, doc="good * 12 + (quantity - 1)")
A_BUY = _A.field("BUY", NUM_GOODS * MAX_TRADE, doc="good * 12 + (quantity - 1)")
A_BUY_CARD = _A.field("BUY_CARD", DISPLAY_SLOTS * PAY_VARIANTS, doc="slot * 6 + payment variant")
A_SETTLE = _A.field("SETTLE", 2 * MAX_CITIES, doc="kind * MAX_CITIES + place")
A_TAX = _A.field("TAX", 1, doc="Colonist tax")
A_TRIBUNE_COLONIST = _A.field("TRIBUNE_COLONIST", 2, doc="buy a land (0) or sea (1) colonist")
A_DONE = _A.field("DONE", 1, doc="end the optional part of the decision")
NUM_ACTIONS = _A.size
ACTION_LAYOUT = _A

#: the ranges in layout order; ``range_of(a)`` is an index into this tuple
RANGE_NAMES: tuple[str, ...] = tuple(name for name, _, _, _ in ACTION_LAYOUT.fields)
RANGE_PLAY, RANGE_DIPLOMAT, RANGE_MOVE, RANGE_BUILD, RANGE_PRODUCE, RANGE_CASH, RANGE_GOOD = range(7)
RANGE_SELL, RANGE_BUY, RANGE_BUY_CARD, RANGE_SETTLE, RANGE_TAX, RANGE_TRIBUNE_COLONIST, RANGE_DONE = range(7, 14)
#: no range: an index outside ``0..NUM_ACTIONS - 1``
RANGE_NONE = -1


def action_range(name: str) -> range:
    """The indices of one named range, e.g. ``action_range("MOVE")``."""
    for n, offset, length, _ in ACTION_LAYOUT.fields:
        if n == name:
            return range(offset, offset + length)
    raise KeyError(name)


def decode(action: int) -> tuple[str, int]:
    """Split an action index into its range name and the offset inside that range (checked: ``ValueError``)."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside the action space 0..{NUM_ACTIONS - 1}")
    r = range_of(action)
    return RANGE_NAMES[r], action - ACTION_LAYOUT.fields[r][1]


@njit
def range_of(a):
    """The range action ``a`` lies in (``RANGE_*``, in layout order), ``RANGE_NONE`` outside the space.

    Written as a chain of comparisons with the ranges' first indices, which numba compiles
    in as constants.
    """
    if a < 0 or a >= NUM_ACTIONS:
        return RANGE_NONE
    if a < A_DIPLOMAT:
        return RANGE_PLAY
    if a < A_MOVE:
        return RANGE_DIPLOMAT
    if a < A_BUILD:
        return RANGE_MOVE
    if a < A_PRODUCE:
        return RANGE_BUILD
    if a < A_CASH:
        return RANGE_PRODUCE
    if a < A_GOOD:
        return RANGE_CASH
    if a < A_SELL:
        return RANGE_GOOD
    if a < A_BUY:
        return RANGE_SELL
    if a < A_BUY_CARD:
        return RANGE_BUY
    if a < A_SETTLE:
        return RANGE_BUY_CARD
    if a < A_TAX:
        return RANGE_SETTLE
    if a < A_TRIBUNE_COLONIST:
        return RANGE_TAX
    if a < A_DONE:
        return RANGE_TRIBUNE_COLONIST
    return RANGE_DONE


# --------------------------------------------------------------------------- encoders and decoders
@njit
def play(kind):
    """Play a card of ``kind`` (cards.K_*)."""
    return A_PLAY + kind


@njit
def decode_play(a):
    """The card kind a PLAY action plays."""
    return a - A_PLAY


@njit
def diplomat(offset):
    """Diplomat: copy the opponent ``offset`` (1..MAX_PLAYERS - 1) seats to the left."""
    return A_DIPLOMAT + offset - 1


@njit
def decode_diplomat(a):
    """How many seats to the left (from 1) the opponent a DIPLOMAT action copies sits."""
    return a - A_DIPLOMAT + 1


@njit
def move(slot, path):
    """Architect: move colonist ``slot`` (land 0-2, sea 3-5) to ``path``."""
    return A_MOVE + slot * MAX_PATHS + path


@njit
def decode_move(a):
    """``(slot, path)`` of a MOVE action."""
    offset = a - A_MOVE
    return offset // MAX_PATHS, offset % MAX_PATHS


@njit
def build(place):
    """Architect: build a house in ``place``."""
    return A_BUILD + place


@njit
def decode_build(a):
    """The place a BUILD action builds in."""
    return a - A_BUILD


@njit
def produce(province):
    """Prefect: production in ``province``."""
    return A_PRODUCE + province


@njit
def decode_produce(a):
    """The province a PRODUCE action produces in."""
    return a - A_PRODUCE


@njit
def choose_good(g):
    """Choose good ``g`` (the Gavdos bonus, or a good to keep when the storehouse overflows)."""
    return A_GOOD + g


@njit
def decode_good(a):
    """The good a GOOD action chooses."""
    return a - A_GOOD


@njit
def sell(good, quantity):
    """Mercator: sell ``quantity`` (1..MAX_TRADE) units of ``good``."""
    return A_SELL + good * MAX_TRADE + quantity - 1


@njit
def decode_sell(a):
    """``(good, quantity)`` of a SELL action."""
    offset = a - A_SELL
    return offset // MAX_TRADE, offset % MAX_TRADE + 1


@njit
def buy(good, quantity):
    """Mercator: buy ``quantity`` (1..MAX_TRADE) units of ``good``."""
    return A_BUY + good * MAX_TRADE + quantity - 1


@njit
def decode_buy(a):
    """``(good, quantity)`` of a BUY action."""
    offset = a - A_BUY
    return offset // MAX_TRADE, offset % MAX_TRADE + 1


@njit
def buy_card(slot, any_good=None):
    """Senator/Consul: buy display ``slot``, paying the slot's "any" good with ``any_good`` (None: no "any" good)."""
    if any_good is None:
        return buy_card_variant(slot, 0)
    return buy_card_variant(slot, 1 + any_good)


@njit
def buy_card_variant(slot, variant):
    """Senator/Consul: buy display ``slot`` with payment ``variant`` (0: no "any" good, 1 + g: good g)."""
    return A_BUY_CARD + slot * PAY_VARIANTS + variant


@njit
def decode_buy_card(a):
    """``(slot, variant)`` of a BUY_CARD action (variant 0: no "any" good, 1 + g: pays it with good g)."""
    offset = a - A_BUY_CARD
    return offset // PAY_VARIANTS, offset % PAY_VARIANTS


@njit
def settle(kind, place):
    """Colonist: settle a land (0) or sea (1) colonist in ``place``."""
    return A_SETTLE + kind * MAX_CITIES + place


@njit
def decode_settle(a):
    """``(kind, place)`` of a SETTLE action."""
    offset = a - A_SETTLE
    return offset // MAX_CITIES, offset % MAX_CITIES


@njit
def tribune_colonist(kind):
    """Tribune: buy a land (0) or sea (1) colonist into the capital."""
    return A_TRIBUNE_COLONIST + kind


@njit
def decode_tribune_colonist(a):
    """The colonist kind (land 0, sea 1) a TRIBUNE_COLONIST action buys."""
    return a - A_TRIBUNE_COLONIST
