"""The action layout's compiled encoders and decoders (``engine/actions.py``): every round trip.

Each range has an encoder (arguments -> index) and a decoder (index -> the same
arguments); together they must cover their range exactly once, agree with the Python
``decode`` and ``range_of``, and be callable from compiled code.
"""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from concordia_env.engine import actions as A
from concordia_env.engine.cards import DISPLAY_SLOTS, NUM_GOODS, NUM_KINDS
from concordia_env.engine.maps import MAX_CITIES, MAX_PATHS, MAX_PROVINCES
from concordia_env.engine.rules import njit
from concordia_env.engine.state import COLONISTS_PER_PLAYER, MAX_PLAYERS

#: range name -> (encoder, decoder, the values of each of the encoder's arguments)
ROUND_TRIPS = {
    "PLAY": (A.play, A.decode_play, [range(NUM_KINDS)]),
    "DIPLOMAT": (A.diplomat, A.decode_diplomat, [range(1, MAX_PLAYERS)]),
    "MOVE": (A.move, A.decode_move, [range(COLONISTS_PER_PLAYER), range(MAX_PATHS)]),
    "BUILD": (A.build, A.decode_build, [range(MAX_CITIES)]),
    "PRODUCE": (A.produce, A.decode_produce, [range(MAX_PROVINCES)]),
    "GOOD": (A.choose_good, A.decode_good, [range(NUM_GOODS)]),
    "SELL": (A.sell, A.decode_sell, [range(NUM_GOODS), range(1, A.MAX_TRADE + 1)]),
    "BUY": (A.buy, A.decode_buy, [range(NUM_GOODS), range(1, A.MAX_TRADE + 1)]),
    "BUY_CARD": (A.buy_card_variant, A.decode_buy_card, [range(DISPLAY_SLOTS), range(A.PAY_VARIANTS)]),
    "SETTLE": (A.settle, A.decode_settle, [range(2), range(MAX_CITIES)]),
    "TRIBUNE_COLONIST": (A.tribune_colonist, A.decode_tribune_colonist, [range(2)]),
}


@pytest.mark.parametrize("name", ROUND_TRIPS)
def test_encoder_and_decoder_cover_their_range_once(name: str) -> None:
    encode, decode, values = ROUND_TRIPS[name]
    indices = []
    for args in product(*values):
        a = encode(*args)
        decoded = decode(a)
        assert (decoded if isinstance(decoded, tuple) else (decoded,)) == args, (name, args, a)
        assert A.decode(a)[0] == name
        assert A.RANGE_NAMES[A.range_of(a)] == name
        indices.append(a)
    assert sorted(indices) == list(A.action_range(name)), "the encoder misses or repeats an index of its range"


def test_buy_card_names_the_any_good() -> None:
    for slot in range(DISPLAY_SLOTS):
        assert A.buy_card(slot) == A.buy_card_variant(slot, 0)
        for good in range(NUM_GOODS):
            assert A.buy_card(slot, good) == A.buy_card_variant(slot, 1 + good)
            assert A.decode_buy_card(A.buy_card(slot, good)) == (slot, 1 + good)


def test_range_of_agrees_with_the_layout_everywhere() -> None:
    assert len(A.RANGE_NAMES) == len(A.ACTION_LAYOUT.fields) == A.RANGE_DONE + 1
    for name in A.RANGE_NAMES:
        assert A.RANGE_NAMES[getattr(A, f"RANGE_{name}")] == name
    for a in range(A.NUM_ACTIONS):
        name, offset = A.decode(a)
        assert A.RANGE_NAMES[A.range_of(a)] == name
        assert A.action_range(name)[offset] == a
    for outside in (-1, A.NUM_ACTIONS, 10**6):
        assert A.range_of(outside) == A.RANGE_NONE
        with pytest.raises(ValueError, match="outside the action space"):
            A.decode(outside)


def test_single_actions_are_their_ranges_first_index() -> None:
    assert A.range_of(A.A_CASH) == A.RANGE_CASH and A.range_of(A.A_TAX) == A.RANGE_TAX
    assert A.range_of(A.A_DONE) == A.RANGE_DONE == len(A.RANGE_NAMES) - 1


@njit
def _compiled_round_trips(out):
    """The encoders and decoders called from compiled code (as the rules and the strategy core call them)."""
    k = 0
    for slot in range(COLONISTS_PER_PLAYER):
        for path in range(MAX_PATHS):
            s, p = A.decode_move(A.move(slot, path))
            out[k] = s * MAX_PATHS + p == slot * MAX_PATHS + path
            k += 1
    for good in range(NUM_GOODS):
        for q in range(1, A.MAX_TRADE + 1):
            g1, q1 = A.decode_sell(A.sell(good, q))
            g2, q2 = A.decode_buy(A.buy(good, q))
            out[k] = g1 == good and q1 == q and g2 == good and q2 == q
            k += 1
    slot, variant = A.decode_buy_card(A.buy_card(3, 2))
    out[k] = slot == 3 and variant == 3 and A.buy_card(3) == A.buy_card_variant(3, 0)
    return k + 1


def test_encoders_and_decoders_compile() -> None:
    out = np.zeros(1000, dtype=np.bool_)
    n = _compiled_round_trips(out)
    assert n == COLONISTS_PER_PLAYER * MAX_PATHS + NUM_GOODS * A.MAX_TRADE + 1
    assert out[:n].all()
