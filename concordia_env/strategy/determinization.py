"""No agent sees the hidden stack: every plan is made on a *determinization*.

Every player knows the decks lie in order (deck I on top of deck II, ...; docs/rules.md §2)
and which cards are left, but not the order inside a deck. :func:`determinize` replaces the
stack of a copy by one ordering the players cannot tell from the real one, with the engine's
one rule for it (:func:`concordia_env.engine.rules.hidden.shuffle_hidden_stack`: each deck's
segment sorted, then shuffled) driven by the caller's generator (:mod:`.noise`). Two games
that differ only in the hidden order therefore give the same determinization for the same
seed, and so the same decisions: a planner that looks past the end of a turn (a card bought
is replaced from the stack) sees a draw from what could come up, never the real next card.

Where it happens: the Python agents determinize before they ask the core for a plan (the
heuristic and the learned agent with :func:`determinize` and their own seeded generator;
tree search once per tree, :mod:`.search`); the compiled planner itself never reads ``STACK``
beyond what the engine's rules do when a turn ends, and its decisions inside a turn never
depend on it (the cards are drawn as the turn ends, and the evaluation counts the cards
left, never which they are).
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.rules import njit
from concordia_env.engine.rules.hidden import shuffle_hidden_stack
from concordia_env.engine.state import STACK_SIZE

from .noise import uniform


@njit
def determinize(s, rng):
    """Reshuffle the hidden stack of ``s`` in place, within each deck's segment (``rng``: a noise state)."""
    uniforms = np.empty(s[STACK_SIZE])
    for i in range(uniforms.shape[0]):
        uniforms[i] = uniform(rng)
    shuffle_hidden_stack(s, uniforms)
