"""One call at a time per object: the lock that serializes the calls of a ``Game`` or a ``VectorGame``.

The compiled rules release the GIL (numba ``nogil``), so two threads calling one object
at once would interleave inside its state: one thread's legality check overtaken by the
other's step leaves negative goods or money, or a colonist on no place, and every later
step fails. A class decorated with :func:`serialized` gives each object a reentrant lock
(``self._lock``, made by its constructor) and every public method holds it for the whole
call: calls of one object from several threads run one after another, each seeing the
position the previous one left, as if one thread had made them all. Threads that use
objects of their own never wait for each other.

What a lock cannot do is decide the order: a thread that picks an action from
``legal_actions()`` and then calls ``step`` may find that another thread stepped in
between; its step is then refused like any illegal action (``IllegalActionError``, nothing
changed). Properties (``current_player``, ``state``...) read one value without the lock: a
number or a read-only view, current when read.

The hot path locks inline. A wrapper around a method costs a Python call frame, which on
``Game``'s per-decision calls (``is_over``, ``legal_actions``, ``step``) took the bare engine
from 2.7 to 4.4 µs per decision. A class names such methods in ``LOCKS_INLINE``: they hold
``self._lock`` in their own body around the compiled calls (``acquire``, then ``release``
in a ``finally``: about a tenth of a microsecond, half a with-block's cost), and methods that
read one value (``is_over``) in ``LOCK_FREE``.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def serialized(cls: T) -> T:
    """Make every public method of ``cls`` (defined in ``cls`` itself) hold ``self._lock`` while it runs.

    Methods named in the class's ``LOCKS_INLINE`` (they lock in their own body) and
    ``LOCK_FREE`` (they read one value) are left as they are.
    """
    own = set(getattr(cls, "LOCKS_INLINE", ())) | set(getattr(cls, "LOCK_FREE", ()))
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and name not in own and inspect.isfunction(value):
            setattr(cls, name, _holding_the_lock(value))
    return cls


def _holding_the_lock(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            return method(self, *args, **kwargs)

    return call
