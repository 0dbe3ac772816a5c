"""One call at a time per object: how a ``Game`` or a ``VectorGame`` stays whole when threads share it.

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

**The lock-free path.** A single thread should not pay for the rare shared use: the lock
took ``Game``'s bare decision (``legal_actions`` + ``step``) from 2.7 to 3.1 µs. So
``Game``'s per-decision calls (named in the class's ``LOCK_FREE``, with methods that read
one value such as ``is_over``) take no lock: each is **one compiled call that keeps the
GIL** (``rules._jit.njit_holding_gil``), and while it runs no other Python thread does, so
two of them never interleave. A locked method is different: it makes several compiled
calls, each releasing the GIL, and Python steps between them. So a locked call counts
itself in the object's ``_busy`` while it runs (:func:`serialized` does it), and a lock-free
call finding the count above what its caller allows refuses inside its compiled code
(atomically, since the GIL is held), leaving everything as it was; its caller then takes the
lock, which waits for the locked call to end, and calls again allowing its own thread's
count (nonzero only when it runs inside one of its own locked calls). A class without
``_busy`` (``VectorGame``) has no lock-free calls; its methods are all locked.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T", bound=type)


def serialized(cls: T) -> T:
    """Make every public method of ``cls`` (defined in ``cls`` itself) hold ``self._lock`` while it runs.

    Methods named in the class's ``LOCK_FREE`` (single compiled calls that keep the GIL, or
    reads of one value) are left as they are. A wrapped method counts itself in the object's
    ``_busy`` counter while it runs, where the class has one.
    """
    free = set(getattr(cls, "LOCK_FREE", ()))
    for name, value in list(vars(cls).items()):
        if not name.startswith("_") and name not in free and inspect.isfunction(value):
            setattr(cls, name, _holding_the_lock(value))
    return cls


def _holding_the_lock(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        with self._lock:
            busy = getattr(self, "_busy", None)
            if busy is None:
                return method(self, *args, **kwargs)
            busy[0] += 1  # the lock-free calls of other threads wait for this one (see the module docstring)
            try:
                return method(self, *args, **kwargs)
            finally:
                busy[0] -= 1

    return call
