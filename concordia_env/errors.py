"""Exceptions of the public API."""

from __future__ import annotations

import reprlib

import numpy as np


class IllegalActionError(ValueError):
    """An action the rules do not allow in this position.

    ``action`` is the refused index, ``reason`` says why in words. The game state is
    exactly as it was before the call.
    """

    def __init__(self, action: int, reason: str, description: str | None = None) -> None:
        self.action = action
        self.reason = reason
        what = f"action {action}" + (f" ({description})" if description else "")
        super().__init__(f"illegal {what}: {reason}")


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type: a string where a bool is expected, a float where an index is.

    It is a ``TypeError`` because that is what it is, and a ``ValueError`` because every
    bad argument of a public entry point raised one before types were checked strictly:
    ``except ValueError`` keeps catching every refused argument. The only argument is the
    message, so it pickles like any built-in exception.
    """


#: the longest ``short_repr`` (an error message names the bad value, it does not reproduce it)
SHORT_REPR_LIMIT = 80


def short_repr(value: object, limit: int = SHORT_REPR_LIMIT) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages about input of any size or type.

    A 5 MB string, a list nested 100,000 deep, an integer of a million digits (whose
    ``repr`` Python refuses) or an object whose ``__repr__`` raises all give a short text.
    """
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    shortener = reprlib.Repr()  # attributes, not keywords: Python 3.10 and 3.11 take none
    shortener.maxlevel = 3
    shortener.maxstring = shortener.maxother = shortener.maxlong = limit
    try:
        text = shortener.repr(value)
    except Exception:  # a broken __repr__, a recursion: name the type instead
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def integer_argument(value: object, what: str) -> int:
    """``value`` as a Python int, for an argument that is a count, an index or a seed.

    Python and numpy integers and 0-d integer arrays (what policies often return) are
    accepted; a bool, a float, a string or anything else raises :class:`ArgumentTypeError`
    naming the argument: ``1.5`` is not silently truncated, ``True`` is not player 1.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ArgumentTypeError(f"{what} must be an integer, got {short_repr(value)}")
    return int(value)
