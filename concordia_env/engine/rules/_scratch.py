"""Scratch arrays on the stack: ``stack_zeros(shape, dtype)``, for functions compiled without reference counting.

Why: a compiled function that takes arrays and is not inlined updates their reference counts
on entry and on every exit (numba's atomic ``NRT_incref``/``NRT_decref``). In the turn
options' play-outs, where the legal masks, the reach and the evaluation run at every step of
every option, those updates were a quarter of the time (docs/benchmarks.md). A function
compiled with ``njit_borrowing`` has none, but may not allocate: ``np.zeros`` needs numba's
allocator, which counts references. ``stack_zeros`` gives such a function the small
fixed-size scratch it needs (colonists per path, a card's price, places in reach), zeroed,
in its own stack frame: nothing to allocate, free, or count.

The shape must be a constant (an int or a tuple of ints known when compiling: the module's
``MAX_PATHS``, ``NUM_GOODS``, ...), and the array must not outlive the call: never returned,
never stored. With ``NUMBA_DISABLE_JIT=1`` it is ``np.zeros``.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np


def _stack_zeros_python(shape: Any, dtype: Any) -> np.ndarray:
    """``np.zeros(shape, dtype)``: what ``stack_zeros`` is when numba's compiler is switched off."""
    return np.zeros(shape, dtype=dtype)


def _stack_zeros_intrinsic() -> Any:
    """The compiled ``stack_zeros``: an alloca in the caller's entry block, zeroed, viewed as a C-order array."""
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic
    from numba.np.arrayobj import make_array, populate_array

    def constant_shape(shape: Any) -> tuple[int, ...] | None:
        if isinstance(shape, types.IntegerLiteral):
            return (shape.literal_value,)
        members = getattr(shape, "types", None) if isinstance(shape, types.BaseTuple) else None
        if members and all(isinstance(t, types.IntegerLiteral) for t in members):
            return tuple(t.literal_value for t in members)
        return None

    @intrinsic
    def stack_zeros(typingctx: Any, shape: Any, dtype: Any) -> Any:
        dims = constant_shape(shape)
        if dims is None or not isinstance(dtype, (types.NumberClass, types.DType)):
            return None
        item = dtype.dtype if isinstance(dtype, types.DType) else dtype.instance_type
        array_type = types.Array(item, len(dims), "C")

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            element = context.get_data_type(item)
            itemsize = context.get_abi_sizeof(element)
            count = int(np.prod(dims))
            data = cgutils.alloca_once(builder, element, size=count)
            intp = context.get_value_type(types.intp)
            cgutils.memset(builder, data, intp(count * itemsize), 0)
            strides = [int(np.prod(dims[i + 1 :])) * itemsize for i in range(len(dims))]
            array = make_array(array_type)(context, builder)
            populate_array(
                array,
                data=data,
                shape=[intp(d) for d in dims],
                strides=[intp(s) for s in strides],
                itemsize=intp(itemsize),
                meminfo=None,
            )
            return array._getvalue()

        return array_type(shape, dtype), codegen

    return stack_zeros


stack_zeros = _stack_zeros_python if numba.config.DISABLE_JIT else _stack_zeros_intrinsic()  # type: ignore[attr-defined]

__all__ = ["stack_zeros"]
