"""Checks of agent options, applied when an agent is built (``agents.make``, ``from_spec``, the constructors).

An option of the wrong type raises :class:`concordia_env.engine.errors.ArgumentTypeError` (both a
``TypeError`` and a ``ValueError``), one out of range a ``ValueError``; the message names the
option and the agent and shows a short form of the bad value, as the engine's checks do. A
spec read from a command line or a request therefore fails when the agent is built, not in
the middle of a game (``mcts:determinizations=2.5`` once built an agent that raised on every
move).

Budgets have documented limits, so that no option can make one move take hours:
:data:`MAX_SIMULATIONS` simulations and :data:`MAX_TIME_PER_MOVE` seconds per decision.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from typing import Any

import numpy as np

from concordia_env.engine.errors import ArgumentTypeError, integer_argument, short_repr

#: the most simulations one search may run per decision (a few minutes at today's cost per simulation)
MAX_SIMULATIONS = 100_000
#: the longest thinking time one decision may take, in seconds
MAX_TIME_PER_MOVE = 600.0


def int_option(value: Any, name: str, low: int, high: int | None = None, *, agent: str = "agent") -> int:
    """``value`` as an int in ``low..high`` (``high`` None: no upper bound); a bool or a float is refused."""
    number = integer_argument(value, f"{agent} option {name!r}")
    if number < low or (high is not None and number > high):
        bound = f"{low}..{high}" if high is not None else f">= {low}"
        raise ValueError(f"{agent} option {name!r} must be in {bound}, got {short_repr(number)}")
    return number


def float_option(
    value: Any,
    name: str,
    low: float,
    high: float,
    *,
    agent: str = "agent",
    low_open: bool = False,
) -> float:
    """``value`` as a finite float in ``[low, high]`` (``(low, high]`` with ``low_open``); ints are fine, bools not."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ArgumentTypeError(f"{agent} option {name!r} must be a number, got {short_repr(value)}")
    number = float(value)
    too_low = number <= low if low_open else number < low
    if not math.isfinite(number) or too_low or number > high:
        bound = f"{'(' if low_open else '['}{low:g}, {high:g}]"
        raise ValueError(f"{agent} option {name!r} must be a finite number in {bound}, got {short_repr(value)}")
    return number


def bool_option(value: Any, name: str, *, agent: str = "agent") -> bool:
    """``value`` as a bool: only ``True``/``False`` (``"false"`` or ``0`` is not taken for one)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{agent} option {name!r} must be True or False, got {short_repr(value)}")
    return bool(value)


def choice_option(value: Any, name: str, choices: Collection[Any], *, agent: str = "agent") -> Any:
    """``value`` if it is one of ``choices`` (compared by type too: ``1`` is not ``True``)."""
    if not any(type(value) is type(c) and value == c for c in choices):
        raise ValueError(
            f"{agent} option {name!r} must be one of {sorted(map(repr, choices))}, got {short_repr(value)}"
        )
    return value


def seed_option(value: Any, *, agent: str = "agent") -> int | None:
    """A seed: None or a non-negative integer (what ``numpy.random.default_rng`` takes)."""
    return None if value is None else int_option(value, "seed", 0, None, agent=agent)


def strict_option(value: Any, *, agent: str = "agent") -> bool | None:
    """``strict``: None (the environment decides) or a bool."""
    return None if value is None else bool_option(value, "strict", agent=agent)


__all__ = [
    "MAX_SIMULATIONS",
    "MAX_TIME_PER_MOVE",
    "bool_option",
    "choice_option",
    "float_option",
    "int_option",
    "seed_option",
    "strict_option",
]
