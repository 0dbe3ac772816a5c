"""The numbers of the ``concordia`` command lines, checked by argparse itself.

A command line is input like any other: ``--seed -1`` ended in a numpy traceback and
``--games -5`` in a ``ValueError`` traceback from deep inside the tournament. Each
numeric option of the tools takes one of the types below instead of ``int``, so argparse
refuses a bad value before anything runs, with its usual usage line and a message that
says what is allowed::

    concordia tournament: error: argument --games: must be an integer >= 1, got '-5'

Seeds are integers >= 0 (what ``Game.new`` and numpy's generators take); counts of games,
players and workers at least 1; a port 1..65535.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

#: the highest TCP port
MAX_PORT = 65535


def integer_in(minimum: int, maximum: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` that reads an integer in ``minimum..maximum`` (no upper bound if None)."""
    allowed = f">= {minimum}" if maximum is None else f"in {minimum}..{maximum}"

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer {allowed}, got {text[:40]!r}") from None
        if value < minimum or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"must be an integer {allowed}, got {text[:40]!r}")
        return value

    parse.__name__ = f"integer {allowed}"
    return parse


#: a setup seed: ``Game.new`` and numpy's generators take any integer >= 0
seed = integer_in(0)
#: a number of games, players, workers, simulations...
count = integer_in(1)
#: an index or a number of actions that may be 0
index = integer_in(0)
#: a TCP port
port = integer_in(1, MAX_PORT)
