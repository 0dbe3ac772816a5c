"""Exceptions of the public API.

Every exception here pickles with its message and attributes (``pickle.loads(pickle.dumps(err))``
gives an equal error), so it crosses process boundaries intact: Gymnasium's async vector
envs and Ray workers re-raise it in the parent with its real message. (An exception whose
``__init__`` takes more than the message does not pickle by default: Python rebuilds it as
``cls(*err.args)``.) Gymnasium's ``AsyncVectorEnv`` re-raises a worker's error as
``type(err)(err)``; :class:`IllegalActionError` accepts that copy form too.
"""

from __future__ import annotations

import functools
import reprlib
from typing import Any

import gymnasium
import numpy as np


class IllegalActionError(ValueError):
    """An action the rules do not allow in this position.

    ``action`` is the refused index (``-1`` when the value was not an integer at all),
    ``reason`` says why in words, ``description`` names the action in this position when it
    has a name. ``given`` is the refused value as the message shows it when it was no index
    (``game.step('3')``: "illegal action '3': ..."), else None. The game state is exactly as
    it was before the call.
    """

    action: int
    reason: str
    description: str | None
    given: str | None
    #: the refused row of a batch (``VectorGame.step``); absent for a single game
    row: int

    def __init__(
        self,
        action: int | IllegalActionError,
        reason: str | None = None,
        description: str | None = None,
        *,
        given: str | None = None,
    ):
        if isinstance(action, IllegalActionError) and reason is None:
            # the copy form type(err)(err), in which Gymnasium's AsyncVectorEnv re-raises a worker's error
            original = action
            self.__dict__.update(original.__dict__)
            action, reason, description = original.action, original.reason, original.description
            given = original.given
        if reason is None:
            raise TypeError("IllegalActionError(action, reason, description=None) needs a reason")
        if isinstance(action, IllegalActionError):
            raise TypeError("IllegalActionError(err) copies an error; with a reason, the action is an index")
        self.action = action
        self.reason = reason
        self.description = description
        self.given = given
        what = f"action {action if given is None else given}" + (f" ({description})" if description else "")
        super().__init__(f"illegal {what}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from its arguments, then any attribute set later (VectorGame's ``row``)
        rebuild = functools.partial(type(self), given=self.given)
        return (rebuild, (self.action, self.reason, self.description), self.__dict__)


class ResetNeededError(RuntimeError, gymnasium.error.ResetNeeded):
    """``step()`` was called on an environment that has no episode running: call ``reset()`` first.

    Raised before the first ``reset()`` and (by the single-agent env) after an episode has
    ended; the environment is left exactly as it was. It is both a ``RuntimeError`` and
    Gymnasium's ``ResetNeeded``.
    """


class OpponentError(RuntimeError):
    """An opponent inside an environment failed: it raised, or answered with an action the rules refuse.

    The single-agent env raises it in place of the opponent's own error (chained as
    ``__cause__``), so a failure of an opponent is never taken for one of the learner:
    ``seat`` is the opponent's seat, ``spec`` what it was built from (its spec string, or
    the repr of the object or callable). The episode is then broken: every later
    ``step()`` raises :class:`ResetNeededError` until ``reset()``.
    """

    def __init__(self, message: str, seat: int = -1, spec: str = "") -> None:
        super().__init__(message)
        self.seat = seat
        self.spec = spec

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self), self.seat, self.spec))


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


def seat_argument(value: object, num_players: int, what: str = "player") -> int:
    """``value`` as a seat of a ``num_players`` game: :func:`integer_argument`, then ``0 <= seat < num_players``.

    The compiled rules index the player arrays with a seat unchecked, so every public entry
    point that takes one checks it here first (``ValueError`` for a seat the game lacks).
    """
    seat = integer_argument(value, what)
    if not 0 <= seat < num_players:
        raise ValueError(f"{what} must be in 0..{num_players - 1}, got {short_repr(seat)}")
    return seat
