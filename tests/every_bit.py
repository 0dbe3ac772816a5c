"""Values compared bit for bit: ``every_bit(a) == every_bit(b)``.

``repr`` is no comparison for observations: numpy elides the middle of an array of more than
1,000 values (``[0., 0., 0., ..., 1., 0., 0.]``), so two observations that differ only
there, e.g. in a leaked hidden card, would print the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def every_bit(value: Any) -> Any:
    """``value`` as nested tuples of plain values: arrays by dtype, shape and bytes; dicts by sorted key."""
    if isinstance(value, np.ndarray):
        return ("ndarray", value.dtype.str, value.shape, np.ascontiguousarray(value).tobytes())
    if isinstance(value, np.generic):
        return ("scalar", value.dtype.str, value.tobytes())
    if isinstance(value, dict):
        return ("dict", tuple((key, every_bit(value[key])) for key in sorted(value, key=repr)))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(every_bit(v) for v in value))
    return value
