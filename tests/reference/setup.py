"""The setup with numpy's generator, as it was before the draws were compiled: the reference for ``rules.setup``.

Steps 2-6 of docs/rules.md §2, written out over the map's names with one
``numpy.random.default_rng(seed)``, in the setup's fixed order of draws (city tokens letter
by letter, then each deck, then the start player). ``tests/test_setup_compiled.py`` checks
that :func:`concordia_env.engine.rules.setup.new_state` gives the same state for every map,
player count, option and seed.
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.cards import (
    CARD_DECK,
    CITY_TOKENS,
    DISPLAY_SLOTS,
    NUM_CARD_TYPES,
    START_GOODS,
    START_HAND_COUNTS,
    START_MONEY,
)
from concordia_env.engine.maps import Map
from concordia_env.engine.rules.setup import empty_state
from concordia_env.engine.state import (
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    CITY_GOOD,
    CURRENT_PLAYER,
    DISPLAY,
    FIRST_SEA_SLOT,
    NILE_MARKER,
    P_COLONISTS,
    P_GOODS,
    P_HAND,
    P_MONEY,
    PRAEFECTUS_MAGNUS,
    STACK,
    STACK_SIZE,
    TURN_PLAYER,
    player_base,
)


def new_state(
    m: Map,
    num_players: int,
    seed: int | None,
    intermediate_scoring: bool = False,
    display_costs: str = "standard",
    start_player: int | None = None,
) -> np.ndarray:
    """A new game, as ``rules.setup.new_state`` sets it up, with numpy's calls."""
    s = empty_state(m, num_players, intermediate_scoring, display_costs)
    rng = np.random.default_rng(seed)
    # 2. city tokens, shuffled per letter, one per city of that letter
    for letter in m.letters_used:
        cities = [m.place_index(c) for c in m.cities if m.letters.get(c) == letter]
        s[[CITY_GOOD + c for c in cities]] = rng.permutation(CITY_TOKENS[letter])
    # 3. bonus markers: the most valuable good of the province's cities (Gavdos has none)
    for v, (name, cities) in enumerate(m.provinces.items()):
        if name != m.variable_bonus_province:
            s[BONUS_GOOD + v] = max(s[CITY_GOOD + m.place_index(c)] for c in cities)
            s[BONUS_COIN_SIDE + v] = 0
    # 4. decks I..players, each shuffled, stacked with deck I on top; 7 into the display
    decks = [[t for t in range(NUM_CARD_TYPES) if CARD_DECK[t] == deck] for deck in range(1, num_players + 1)]
    stack = np.concatenate([rng.permutation(deck) for deck in decks])
    s[DISPLAY : DISPLAY + DISPLAY_SLOTS] = stack[:DISPLAY_SLOTS]
    rest = stack[DISPLAY_SLOTS:]
    s[STACK : STACK + len(rest)] = rest[::-1]  # stored bottom first
    s[STACK_SIZE] = len(rest)
    # 5./6. players: colonists, goods, hand; start player, money by turn position, PM
    if start_player is None:
        start_player = int(rng.integers(num_players))
    capital = m.place_index(m.capital)
    for p in range(num_players):
        b = player_base(p)
        s[b + P_COLONISTS] = capital
        s[b + P_COLONISTS + FIRST_SEA_SLOT] = capital
        s[b + P_GOODS : b + P_GOODS + len(START_GOODS)] = START_GOODS
        s[b + P_HAND : b + P_HAND + NUM_CARD_TYPES] = START_HAND_COUNTS
        s[b + P_MONEY] = START_MONEY[(p - start_player) % num_players]
    s[TURN_PLAYER] = s[CURRENT_PLAYER] = start_player
    s[PRAEFECTUS_MAGNUS] = (start_player - 1) % num_players
    if m.nile_route:
        s[NILE_MARKER] = m.province_index(m.nile_route[0])
    return s
