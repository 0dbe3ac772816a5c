"""The rules of Concordia as compiled functions of the state array (``docs/rules.md``).

One module per concern, each the only home of its rules:

* :mod:`.setup`: a new game from a seed (checks in Python, the draws compiled: :mod:`.pcg64`);
* :mod:`.legal`: the legal-action mask and why an action is refused (``why_illegal``), one refusal
  function per kind of action behind both;
* :mod:`.effects`: what each action does, one section per card, and the turn flow;
* :mod:`.scoring`: the gods, the Concordia card and the special squares;
* :mod:`.facts`: the public rule queries (free slots, house prices, production, cash bonus,
  buy costs, reach, ...) that everything outside ``rules/`` asks instead of re-deriving;
* :mod:`.hidden`: the hidden order of the face-down stack, and the determinization that
  replaces it;
* :mod:`.entry_points`: the entry points ``Game`` and ``VectorGame`` call (check and apply an
  action, batches, random playouts);
* :mod:`.state_helpers`: small helpers shared by the above.

``njit`` is how a function joins the compiled rules (cached on disk, recompiled after any
edit of the package); code outside ``rules/`` that compiles its own functions over the
state (observations, fast rollouts) uses it from here. ``njit_borrowing`` compiles a
function that only reads the arrays it is given, without reference counting (see
``_jit.njit_borrowing`` for why the refusal checks need it); ``njit_inline`` one that numba
copies into its few callers (the strategy's innermost Architect rule, ``_jit.njit_inline``);
``njit_holding_gil`` an entry point that keeps the GIL (``Game``'s lock-free calls, ``engine.serial``).
``stack_zeros(shape, dtype)`` is the fixed-size scratch array a borrowing function may use
(on its stack: nothing allocated, nothing counted; ``_scratch``). ``stamps_record()`` is what
the build of the compiled code records of the sources' stamps (``_jit.recorded_stamps``).
"""

from __future__ import annotations

from ._jit import njit, njit_borrowing, njit_holding_gil, njit_inline, njit_parallel, stamps_record
from ._scratch import stack_zeros

__all__ = [
    "njit",
    "njit_borrowing",
    "njit_holding_gil",
    "njit_inline",
    "njit_parallel",
    "stack_zeros",
    "stamps_record",
]
