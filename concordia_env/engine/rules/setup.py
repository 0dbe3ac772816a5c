"""A new game from a seed (docs/rules.md §2). Plain Python: it runs once per game.

The seed drives one ``numpy.random.Generator``; the draws happen in a fixed order (city
tokens letter by letter, then each deck, then the start player), so a seed always gives
the same game.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cards import (
    CARD_DECK,
    CITY_TOKENS,
    COLONISTS_PER_PLAYER,
    DISPLAY_SLOTS,
    DISPLAY_VARIANTS,
    NUM_CARD_TYPES,
    NUM_SALE_CARDS,
    START_GOODS,
    START_HAND_COUNTS,
    START_MONEY,
)
from ..maps import Map
from ..state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    CITY_GOOD,
    CONCORDIA_HOLDER,
    CURRENT_PLAYER,
    DISPLAY,
    FINAL_TURNS_LEFT,
    FIRST_SEA_SLOT,
    LOC_STOREHOUSE,
    MAP_ID,
    NILE_MARKER,
    NUM_PLAYERS,
    OPT_DISPLAY_COSTS,
    OPT_INTERMEDIATE,
    P_COLONISTS,
    P_DISCARD_TOP,
    P_GOODS,
    P_HAND,
    P_MONEY,
    PHASE,
    PHASE_PLAY_CARD,
    PLAYED_KIND,
    PRAEFECTUS_MAGNUS,
    STACK,
    STACK_SIZE,
    STATE_SIZE,
    TURN_PLAYER,
    player_base,
)


def check_setup(m: Map, num_players: int) -> None:
    """Refuse a map/player-count combination the rules do not allow (docs/rules.md §2.1)."""
    if not isinstance(num_players, (int, np.integer)) or isinstance(num_players, bool):
        raise ValueError(f"num_players must be an int, got {num_players!r}")
    if num_players not in m.players:
        allowed = ", ".join(str(n) for n in m.players)
        raise ValueError(f"the {m.title} map is played by {allowed} players, not {num_players}")


def empty_state(m: Map, num_players: int, intermediate_scoring: bool, display_costs: str) -> np.ndarray:
    """A state with the header filled in and every player owning nothing yet."""
    check_setup(m, num_players)
    if display_costs not in DISPLAY_VARIANTS:
        raise ValueError(f"display_costs must be one of {DISPLAY_VARIANTS}, got {display_costs!r}")
    s = np.zeros(STATE_SIZE, dtype=np.int32)
    s[MAP_ID] = m.map_id
    s[NUM_PLAYERS] = num_players
    s[OPT_INTERMEDIATE] = int(bool(intermediate_scoring))
    s[OPT_DISPLAY_COSTS] = DISPLAY_VARIANTS.index(display_costs)
    s[CITY_GOOD : CITY_GOOD + len(m.places)] = -1
    s[BONUS_GOOD : BONUS_GOOD + len(m.provinces)] = -1
    s[DISPLAY : DISPLAY + DISPLAY_SLOTS] = -1
    s[STACK : STACK + NUM_SALE_CARDS] = -1
    s[CONCORDIA_HOLDER] = -1
    s[FINAL_TURNS_LEFT] = -1
    s[PLAYED_KIND] = -1
    s[ACTION_KIND] = -1
    s[NILE_MARKER] = -1
    s[PHASE] = PHASE_PLAY_CARD
    for p in range(num_players):
        b = player_base(p)
        s[b + P_COLONISTS : b + P_COLONISTS + COLONISTS_PER_PLAYER] = LOC_STOREHOUSE
        s[b + P_DISCARD_TOP] = -1
    return s


def most_valuable_goods(m: Map, s: np.ndarray) -> None:
    """Each province's bonus marker shows the most valuable good of its cities (docs/rules.md §2.3)."""
    plan = setup_plan(m)
    goods = s[CITY_GOOD + plan.marker_cities]  # the goods of every marked province's cities, province by province
    s[BONUS_GOOD + plan.marker_provinces] = np.maximum.reduceat(goods, plan.marker_starts)
    s[BONUS_COIN_SIDE + plan.marker_provinces] = 0


@dataclass(frozen=True)
class SetupPlan:
    """The places and cards a map's setup draws over, as index arrays (worked out once per map).

    Setting up reads the map's names (cities by letter, provinces, decks); a batch that starts
    a new game in a row every few hundred decisions spends most of its setup looking them up,
    so they are resolved here once. The draws themselves stay in :func:`new_state`, in their
    fixed order.
    """

    #: (letter, place ids of its cities in map order), letters in sorted order
    letter_cities: tuple[tuple[str, np.ndarray], ...]
    #: the provinces that start with a bonus marker (Gavdos has none until someone produces there)
    marker_provinces: np.ndarray
    #: their cities' place ids, province after province, and where each province's start
    marker_cities: np.ndarray
    marker_starts: np.ndarray
    #: card types of deck I, II, ... (index 0 is deck I)
    decks: tuple[list[int], ...]
    capital: int
    #: the Nile marker's first province (Aegyptus), or -1
    nile_start: int


_PLANS: dict[str, SetupPlan] = {}


def setup_plan(m: Map) -> SetupPlan:
    """The :class:`SetupPlan` of map ``m`` (maps are identified by name, as everywhere in the engine)."""
    plan = _PLANS.get(m.name)
    if plan is None:
        letters = tuple(
            (letter, np.array([m.place_index(c) for c in m.cities if m.letters.get(c) == letter], dtype=np.intp))
            for letter in m.letters_used
        )
        provinces_and_cities = enumerate(m.provinces.items())
        marked = [(v, cities) for v, (name, cities) in provinces_and_cities if name != m.variable_bonus_province]
        provinces = np.array([v for v, _ in marked], dtype=np.intp)
        cities = np.array([m.place_index(c) for _, names in marked for c in names], dtype=np.intp)
        starts = np.cumsum([0] + [len(names) for _, names in marked[:-1]]).astype(np.intp)
        decks = tuple(
            [t for t in range(NUM_CARD_TYPES) if CARD_DECK[t] == deck] for deck in range(1, max(m.players) + 1)
        )
        nile = m.province_index(m.nile_route[0]) if m.nile_route else -1
        plan = _PLANS[m.name] = SetupPlan(letters, provinces, cities, starts, decks, m.place_index(m.capital), nile)
    return plan


def new_state(
    m: Map,
    num_players: int,
    seed: int | None,
    intermediate_scoring: bool = False,
    display_costs: str = "standard",
    start_player: int | None = None,
) -> np.ndarray:
    """Set up a new game (docs/rules.md §2)."""
    s = empty_state(m, num_players, intermediate_scoring, display_costs)
    plan = setup_plan(m)
    rng = np.random.default_rng(seed)
    # 2. city tokens, shuffled per letter, one per city of that letter
    for letter, cities in plan.letter_cities:
        s[CITY_GOOD + cities] = rng.permutation(CITY_TOKENS[letter])
    # 3. bonus markers
    most_valuable_goods(m, s)
    # 4. decks I..players, each shuffled, stacked with deck I on top; 7 into the display
    stack = np.concatenate([rng.permutation(plan.decks[deck]) for deck in range(num_players)])
    s[DISPLAY : DISPLAY + DISPLAY_SLOTS] = stack[:DISPLAY_SLOTS]
    rest = stack[DISPLAY_SLOTS:]
    s[STACK : STACK + len(rest)] = rest[::-1]  # stored bottom first
    s[STACK_SIZE] = len(rest)
    # 5./6. players: colonists, goods, hand; start player, money by turn position, PM
    if start_player is None:
        start_player = int(rng.integers(num_players))
    if not 0 <= start_player < num_players:
        raise ValueError(f"start_player must be in 0..{num_players - 1}, got {start_player}")
    for p in range(num_players):
        b = player_base(p)
        s[b + P_COLONISTS] = plan.capital  # one land colonist in the capital
        s[b + P_COLONISTS + FIRST_SEA_SLOT] = plan.capital  # one sea colonist in the capital
        s[b + P_GOODS : b + P_GOODS + len(START_GOODS)] = START_GOODS
        s[b + P_HAND : b + P_HAND + NUM_CARD_TYPES] = START_HAND_COUNTS
        s[b + P_MONEY] = START_MONEY[(p - start_player) % num_players]
    s[TURN_PLAYER] = s[CURRENT_PLAYER] = start_player
    s[PRAEFECTUS_MAGNUS] = (start_player - 1) % num_players
    if plan.nile_start >= 0:
        s[NILE_MARKER] = plan.nile_start
    return s
