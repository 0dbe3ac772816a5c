"""What the players cannot see: the order of the face-down stack inside each deck.

Every player knows the decks lie in order (deck I on top of deck II, ...; step 4 of
:func:`.setup.new_state`, docs/rules.md §2) and which cards are left, but not the order
inside a deck. :func:`shuffle_hidden_stack` replaces that order by one the players cannot
tell from the real one: a *determinization*. It is the one home of that rule: the engine's
``Game.with_hidden_stack_shuffled`` (a numpy generator) and the strategy's planners and
tree search (:mod:`concordia_env.strategy.determinization`, their own compiled generator) both call it
and differ only in where their random numbers come from.
"""

from __future__ import annotations

from ..cards import CARD_DECK
from ..state import STACK, STACK_SIZE
from ._jit import njit


@njit
def shuffle_hidden_stack(s, uniforms):
    """Reshuffle the face-down stack of ``s`` in place, each deck's cards among their own positions.

    ``uniforms`` holds at least ``s[STACK_SIZE]`` random numbers in [0, 1), one per stack
    position, which drive a Fisher-Yates shuffle of each deck's segment. The segment is sorted
    first, so the result depends on which cards are left and on ``uniforms``, never on their
    real (hidden) order: a search that reshuffles cannot peek through it.
    """
    size = s[STACK_SIZE]
    start = 0
    while start < size:
        deck = CARD_DECK[s[STACK + start]]
        end = start
        while end < size and CARD_DECK[s[STACK + end]] == deck:
            end += 1
        segment = s[STACK + start : STACK + end]
        segment.sort()
        for i in range(end - start - 1, 0, -1):
            j = min(int(uniforms[start + i] * (i + 1)), i)
            segment[i], segment[j] = segment[j], segment[i]
        start = end


__all__ = ["shuffle_hidden_stack"]
