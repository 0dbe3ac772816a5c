"""The tests' bit-for-bit comparison sees what ``repr`` elides."""

from __future__ import annotations

import numpy as np

from tests.every_bit import every_bit


def test_a_difference_in_the_middle_of_a_large_observation_is_seen() -> None:
    a = {"observation": np.zeros(2510, np.float32), "action_mask": np.ones(8, np.int8)}
    b = {"observation": a["observation"].copy(), "action_mask": a["action_mask"].copy()}
    b["observation"][1255] = 1.0  # e.g. a leaked hidden card
    assert repr(a) == repr(b)  # why repr is no comparison
    assert every_bit(a) != every_bit(b)
    assert every_bit(a) == every_bit({"action_mask": np.ones(8, np.int8), "observation": np.zeros(2510, np.float32)})
    assert every_bit(np.zeros(3, np.float32)) != every_bit(np.zeros(3, np.float64))  # the dtype counts
    assert every_bit((a, 1.5)) != every_bit((a, np.float32(1.5)))  # so does a scalar's type
