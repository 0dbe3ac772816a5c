"""A new game from a seed (docs/rules.md §2).

The seed drives one ``numpy.random.default_rng(seed)``; the draws happen in a fixed order
(city tokens letter by letter, then each deck, then the start player), so a seed always gives
the same game. The checks and the header are Python; the draws and the dealing are compiled
(:func:`deal`, drawing with :mod:`.pcg64`, numpy's generator compiled: the same numbers),
because a batch of games starts a new one in some row every few hundred decisions and
numpy's calls cost most of a setup. ``tests/reference/setup.py`` keeps the former all-numpy
setup, and ``tests/test_setup_compiled.py`` checks that both give every map, player count and
seed the same state.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

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
from . import pcg64
from ._jit import njit
from .state_helpers import pbase


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
    mark_bonus_goods(s, plan.marker_provinces, plan.marker_cities, plan.marker_starts)


@njit
def mark_bonus_goods(s, provinces, cities, starts):
    """Province ``provinces[i]`` shows the most valuable good of its cities, good side up.

    Its cities are ``cities[starts[i]:starts[i + 1]]`` (the last province's run to the end).

    Goods are numbered from the cheapest (brick) to the most valuable (cloth), so the most
    valuable is the largest number.
    """
    for i in range(len(provinces)):
        end = starts[i + 1] if i + 1 < len(provinces) else len(cities)
        best = -1
        for k in range(starts[i], end):
            best = max(best, s[CITY_GOOD + cities[k]])
        s[BONUS_GOOD + provinces[i]] = best
        s[BONUS_COIN_SIDE + provinces[i]] = 0


@dataclass(frozen=True)
class SetupPlan:
    """The places and cards a map's setup draws over, as index arrays (worked out once per map).

    Setting up reads the map's names (cities by letter, provinces, decks); a batch that starts
    a new game in a row every few hundred decisions spends most of its setup looking them up,
    so they are resolved here once. The draws themselves stay in :func:`new_state`, in their
    fixed order.
    """

    #: the place ids of each letter's cities in map order, letters in sorted order, one after
    #: the other; letter k's are ``letter_cities[letter_starts[k]:letter_starts[k + 1]]``
    letter_cities: np.ndarray
    #: the city tokens of each letter (goods, CITY_TOKENS), as letter_cities: one per city
    letter_tokens: np.ndarray
    letter_starts: np.ndarray
    #: the provinces that start with a bonus marker (Gavdos has none until someone produces there)
    marker_provinces: np.ndarray
    #: their cities' place ids, province after province, and where each province's start
    marker_cities: np.ndarray
    marker_starts: np.ndarray
    #: card types of deck I, II, ... one deck after the other; deck k (0 is deck I) is
    #: ``deck_cards[deck_starts[k]:deck_starts[k + 1]]``
    deck_cards: np.ndarray
    deck_starts: np.ndarray
    capital: int
    #: the Nile marker's first province (Aegyptus), or -1
    nile_start: int

    def deal_args(self) -> tuple[Any, ...]:
        """The plan as :func:`deal` takes it after the start player, in its order."""
        return (
            self.letter_cities,
            self.letter_tokens,
            self.letter_starts,
            self.marker_provinces,
            self.marker_cities,
            self.marker_starts,
            self.deck_cards,
            self.deck_starts,
            self.capital,
            self.nile_start,
        )


_PLANS: dict[str, SetupPlan] = {}


def setup_plan(m: Map) -> SetupPlan:
    """The :class:`SetupPlan` of map ``m`` (maps are identified by name, as everywhere in the engine)."""
    plan = _PLANS.get(m.name)
    if plan is None:
        by_letter = [[m.place_index(c) for c in m.cities if m.letters.get(c) == letter] for letter in m.letters_used]
        for letter, places in zip(m.letters_used, by_letter, strict=True):
            if len(places) != len(CITY_TOKENS[letter]):
                raise ValueError(
                    f"{m.name}: {len(places)} cities of letter {letter}, {len(CITY_TOKENS[letter])} tokens"
                )
        letter_cities = np.array([c for places in by_letter for c in places], dtype=np.intp)
        letter_tokens = np.array([g for letter in m.letters_used for g in CITY_TOKENS[letter]], dtype=np.int32)
        letter_starts = np.cumsum([0] + [len(places) for places in by_letter]).astype(np.intp)
        provinces_and_cities = enumerate(m.provinces.items())
        marked = [(v, cities) for v, (name, cities) in provinces_and_cities if name != m.variable_bonus_province]
        provinces = np.array([v for v, _ in marked], dtype=np.intp)
        cities = np.array([m.place_index(c) for _, names in marked for c in names], dtype=np.intp)
        starts = np.cumsum([0] + [len(names) for _, names in marked[:-1]]).astype(np.intp)
        decks = [[t for t in range(NUM_CARD_TYPES) if CARD_DECK[t] == deck] for deck in range(1, max(m.players) + 1)]
        deck_cards = np.array([t for deck in decks for t in deck], dtype=np.int32)
        deck_starts = np.cumsum([0] + [len(deck) for deck in decks]).astype(np.intp)
        nile = m.province_index(m.nile_route[0]) if m.nile_route else -1
        plan = _PLANS[m.name] = SetupPlan(
            letter_cities,
            letter_tokens,
            letter_starts,
            provinces,
            cities,
            starts,
            deck_cards,
            deck_starts,
            m.place_index(m.capital),
            nile,
        )
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
    s, start, plan = setup_args(m, num_players, intermediate_scoring, display_costs, start_player)
    deal(s, pcg64.seeded(seed), num_players, start, *plan)
    return s


def setup_args(
    m: Map,
    num_players: int,
    intermediate_scoring: bool = False,
    display_costs: str = "standard",
    start_player: int | None = None,
) -> tuple[np.ndarray, int, tuple[Any, ...]]:
    """What a setup needs besides the seed: the :func:`empty_state`, the start player (-1: drawn), the plan.

    The plan is :func:`deal`'s arguments after the start player (:meth:`SetupPlan.deal_args`).
    :func:`new_state` deals into the empty state; a batch keeps it as the template that
    :func:`start_game` copies for each row's next game.
    """
    s = empty_state(m, num_players, intermediate_scoring, display_costs)
    if start_player is not None and not 0 <= start_player < num_players:
        raise ValueError(f"start_player must be in 0..{num_players - 1}, got {start_player}")
    return s, -1 if start_player is None else int(start_player), setup_plan(m).deal_args()


@njit
def start_game(s, template, seed, start_player, plan):
    """``s`` becomes the game of int64 ``seed``: :func:`new_state`'s setup, compiled.

    ``template``, ``start_player`` and ``plan`` are :func:`setup_args`'; ``tests/test_setup_compiled.py``
    checks that both give the same state.
    """
    s[:] = template
    g = np.empty(pcg64.STATE_WORDS, dtype=np.uint64)
    pcg64.seed_int64_into(seed, g)
    deal(s, g, template[NUM_PLAYERS], start_player, *plan)


@njit
def deal(
    s,
    g,
    num_players,
    start_player,
    letter_cities,
    letter_tokens,
    letter_starts,
    marker_provinces,
    marker_cities,
    marker_starts,
    deck_cards,
    deck_starts,
    capital,
    nile_start,
):
    """Steps 2-6 of the setup into the empty state ``s``, drawing from the generator state ``g``.

    ``start_player`` -1 draws the start player; the plan's arrays are :class:`SetupPlan`'s.
    The draws come in the setup's fixed order: the city tokens, the decks, the start player.
    """
    place_city_tokens(s, g, letter_cities, letter_tokens, letter_starts)
    mark_bonus_goods(s, marker_provinces, marker_cities, marker_starts)
    stack_the_decks(s, g, num_players, deck_cards, deck_starts)
    if start_player < 0:
        start_player = pcg64.integers(g, num_players)
    seat_players(s, num_players, start_player, capital)
    if nile_start >= 0:
        s[NILE_MARKER] = nile_start


@njit
def place_city_tokens(s, g, letter_cities, letter_tokens, letter_starts):
    """Step 2: each letter's city tokens, shuffled, one per city of that letter (letters in sorted order)."""
    tokens = np.empty(len(letter_tokens), dtype=np.int32)
    for k in range(len(letter_starts) - 1):
        first, end = letter_starts[k], letter_starts[k + 1]
        pcg64.permute_into(g, letter_tokens[first:end], tokens[first:end])
        for i in range(first, end):
            s[CITY_GOOD + letter_cities[i]] = tokens[i]


@njit
def stack_the_decks(s, g, num_players, deck_cards, deck_starts):
    """Step 4: decks I..players, each shuffled, stacked with deck I on top; the top 7 into the display."""
    size = deck_starts[num_players]
    stack = np.empty(size, dtype=np.int32)
    for deck in range(num_players):
        first, end = deck_starts[deck], deck_starts[deck + 1]
        pcg64.permute_into(g, deck_cards[first:end], stack[first:end])
    for slot in range(DISPLAY_SLOTS):
        s[DISPLAY + slot] = stack[slot]
    rest = size - DISPLAY_SLOTS
    for i in range(rest):  # stored bottom first
        s[STACK + i] = stack[size - 1 - i]
    s[STACK_SIZE] = rest


@njit
def seat_players(s, num_players, start_player, capital):
    """Steps 5-6: colonists in the capital, goods, hands, money by turn position, the Praefectus Magnus."""
    for p in range(num_players):
        b = pbase(p)
        s[b + P_COLONISTS] = capital  # one land colonist in the capital
        s[b + P_COLONISTS + FIRST_SEA_SLOT] = capital  # one sea colonist in the capital
        for i in range(len(START_GOODS)):
            s[b + P_GOODS + i] = START_GOODS[i]
        for t in range(NUM_CARD_TYPES):
            s[b + P_HAND + t] = START_HAND_COUNTS[t]
        s[b + P_MONEY] = START_MONEY[(p - start_player) % num_players]
    s[TURN_PLAYER] = start_player
    s[CURRENT_PLAYER] = start_player
    s[PRAEFECTUS_MAGNUS] = (start_player - 1) % num_players
