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
"""

from __future__ import annotations

from .cards import DISPLAY_SLOTS, NUM_GOODS, NUM_KINDS, STOREHOUSE_SLOTS
from .layout import Layout
from .maps import MAX_CITIES, MAX_PATHS, MAX_PROVINCES
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


def action_range(name: str) -> range:
    """The indices of one named range, e.g. ``action_range("MOVE")``."""
    for n, offset, length, _ in ACTION_LAYOUT.fields:
        if n == name:
            return range(offset, offset + length)
    raise KeyError(name)


def decode(action: int) -> tuple[str, int]:
    """Split an action index into its range name and the offset inside that range."""
    if not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action {action} is outside the action space 0..{NUM_ACTIONS - 1}")
    for n, offset, length, _ in ACTION_LAYOUT.fields:
        if offset <= action < offset + length:
            return n, action - offset
    raise AssertionError("unreachable")


def move(slot: int, path: int) -> int:
    return A_MOVE + slot * MAX_PATHS + path


def sell(good: int, quantity: int) -> int:
    return A_SELL + good * MAX_TRADE + quantity - 1


def buy(good: int, quantity: int) -> int:
    return A_BUY + good * MAX_TRADE + quantity - 1


def buy_card(slot: int, any_good: int | None = None) -> int:
    return A_BUY_CARD + slot * PAY_VARIANTS + (0 if any_good is None else 1 + any_good)


def settle(kind: int, place: int) -> int:
    return A_SETTLE + kind * MAX_CITIES + place
