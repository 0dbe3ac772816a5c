"""No agent sees the hidden stack: every plan is made on a *determinization*.

Every player knows the decks lie in order (deck I on top of deck II, ...; docs/rules.md §2)
and which cards are left, but not the order inside a deck. :func:`determinize` replaces the
stack of a copy by one ordering the players cannot tell from the real one: each deck's
segment sorted, then shuffled with the caller's generator (:mod:`.noise`). Two games that
differ only in the hidden order therefore give the same determinization for the same seed,
and so the same decisions: a planner that looks past the end of a turn (a card bought is
replaced from the stack) sees a draw from what could come up, never the real next card.
This is the rule of ``rules.setup.shuffle_hidden_stack`` (which ``Game.with_hidden_stack_shuffled``
uses with a numpy generator), compiled with the strategy's own generator.

Where it happens: the Python agents determinize before they ask the core for a plan (the
heuristic and the learned agent with :func:`determinize` and their own seeded generator, tree
search each tree with ``Game.with_hidden_stack_shuffled``); the compiled planner itself never
reads ``STACK`` beyond what the engine's rules do when a turn ends, and its decisions inside a
turn never depend on it (the cards are drawn as the turn ends, and the evaluation counts the
cards left, never which they are).
"""

from __future__ import annotations

from concordia_env.engine.cards import CARD_DECK
from concordia_env.engine.rules import njit
from concordia_env.engine.state import STACK, STACK_SIZE

from .noise import below


@njit
def determinize(s, rng):
    """Reshuffle the hidden stack of ``s`` in place, within each deck's segment (``rng``: a noise state)."""
    size = s[STACK_SIZE]
    start = 0
    while start < size:
        deck = CARD_DECK[s[STACK + start]]
        end = start
        while end < size and CARD_DECK[s[STACK + end]] == deck:
            end += 1
        segment = s[STACK + start : STACK + end]
        segment.sort()
        for i in range(end - start - 1, 0, -1):  # Fisher-Yates
            j = below(rng, i + 1)
            segment[i], segment[j] = segment[j], segment[i]
        start = end
