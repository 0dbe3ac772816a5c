"""The compiled observation writes the same bits as its former, slower code (``tests/reference/observation.py``).

``fill_observation`` reads each player's houses and cards once, as bit sets, scores from
what it read, takes the card shares from tables and scales by reciprocals, where the
former code rescanned the cities for every question and divided every entry. Nothing an
agent sees may change with that: every entry must be the same float32, bit for bit, for
every map, player count, observer and observation version. The random games give the
positions play reaches; the perturbed states push the counts (houses, cards, money, the
counters) far beyond what random play reaches, where a rounding difference would show.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference.observation import fill_observation as reference_fill
from reference.observation import observe_batch_into as reference_batch

from concordia_env import Game
from concordia_env.engine import maps
from concordia_env.engine import observation as O
from concordia_env.engine.cards import (
    COLONISTS_PER_PLAYER,
    HOUSES_PER_PLAYER,
    NUM_CARD_TYPES,
    NUM_GOODS,
    NUM_SALE_CARDS,
    NUM_START_TYPES,
    START_HAND_COUNTS,
    STOREHOUSE_SLOTS,
)
from concordia_env.engine.observation import OBS_SIZES, fill_observation, observe_batch_into
from concordia_env.engine.rules.state_helpers import is_buildable_place, pbase
from concordia_env.engine.state import (
    CONCORDIA_HOLDER,
    HOUSES,
    MAX_CITIES,
    NUM_PLAYERS,
    P_DISCARD,
    P_GOODS,
    P_HAND,
    P_INTERMEDIATE_VP,
    P_MONEY,
    TURN_COUNT,
)
from concordia_env.engine.state_check import COUNTER_LIMIT, MAX_BUYS, MAX_INCOMING

#: a position every this many decisions is observed (and the last one of the game)
EVERY = 7
GAMES = 3
#: the options of game g: plain, intermediate scoring, alternative display costs
OPTIONS = ({}, {"intermediate_scoring": True}, {"display_costs": "alternative"})


def random_game_states(map_name: str, num_players: int, seed: int) -> list[np.ndarray]:
    """Every EVERY-th state of a random game to its end, and its final state."""
    game = Game.new(map_name, num_players, seed, **OPTIONS[seed % len(OPTIONS)])
    rng = np.random.default_rng(seed)
    states = []
    decisions = 0
    while not game.is_over():
        if decisions % EVERY == 0:
            states.append(game.state.copy())
        legal = game.legal_actions()
        game.step(int(legal[rng.integers(len(legal))]))
        decisions += 1
    states.append(game.state.copy())
    return states


def assert_same_bits(states: list[np.ndarray], tables: np.ndarray) -> None:
    """Every observer's observation of every state, both versions, one by one and batched: the reference's bits."""
    for size in OBS_SIZES.values():
        rows, seats = [], []
        for state in states:
            for p in range(int(state[NUM_PLAYERS])):
                got = np.full(size, np.nan, dtype=np.float32)  # an entry left unwritten would show
                expected = np.full(size, np.nan, dtype=np.float32)
                fill_observation(state, tables, p, got)
                reference_fill(state, tables, p, expected)
                assert np.array_equal(got.view(np.int32), expected.view(np.int32)), np.flatnonzero(got != expected)
                rows.append(state)
                seats.append(p)
        batch = np.stack(rows)
        players = np.array(seats, dtype=np.int64)
        got = np.full((len(rows), size), np.nan, dtype=np.float32)
        expected = np.full((len(rows), size), np.nan, dtype=np.float32)
        observe_batch_into(batch, tables, players, got)
        reference_batch(batch, tables, players, expected)
        assert np.array_equal(got.view(np.int32), expected.view(np.int32))


def perturbed(state: np.ndarray, m: maps.Map, rng: np.random.Generator) -> np.ndarray:
    """``state`` with random houses, cards, money and goods for every player.

    Not a position play can reach (that does not matter: both codes read the same fields),
    but one with many houses of every good, many specialists and large sums. Houses stand
    in cities only (the capital and the special squares have no province), and no player
    holds more cards of a type in a hand or a pile than the game has (check_state's bounds:
    a sale card may be in a hand and in its discard pile at once, which no game reaches).
    """
    s = state.copy()
    n = int(s[NUM_PLAYERS])
    cities = [c for c in range(int(m.tables[maps.M_NUM_CITIES])) if is_buildable_place(m.tables, c)]
    copies = np.where(np.arange(NUM_CARD_TYPES) < NUM_START_TYPES, START_HAND_COUNTS, 1)
    for q in range(n):
        b = pbase(q)
        s[HOUSES + q * MAX_CITIES + np.array(cities)] = rng.random(len(cities)) < rng.random()
        hand = rng.integers(0, copies + 1)
        s[b + P_HAND : b + P_HAND + NUM_CARD_TYPES] = hand
        most = copies if rng.random() < 0.2 else copies - hand  # mostly as in play: each card in one place
        s[b + P_DISCARD : b + P_DISCARD + NUM_CARD_TYPES] = rng.integers(0, most + 1)
        s[b + P_MONEY] = rng.integers(0, 1000 if rng.random() < 0.8 else COUNTER_LIMIT + 1)
        s[b + P_GOODS : b + P_GOODS + NUM_GOODS] = rng.integers(0, 4, NUM_GOODS)
        s[b + P_INTERMEDIATE_VP] = rng.integers(0, 200 if rng.random() < 0.8 else COUNTER_LIMIT + 1)
    s[CONCORDIA_HOLDER] = rng.integers(-1, n)
    s[TURN_COUNT] = rng.integers(0, COUNTER_LIMIT + 1)
    return s


@pytest.mark.parametrize("map_name", maps.MAP_NAMES)
def test_random_games_observe_as_the_reference(map_name: str) -> None:
    m = maps.load(map_name)
    for n in m.players:
        for seed in range(GAMES):
            assert_same_bits(random_game_states(map_name, n, seed), m.tables)


@pytest.mark.parametrize("map_name", maps.MAP_NAMES)
def test_perturbed_states_observe_as_the_reference(map_name: str) -> None:
    m = maps.load(map_name)
    rng = np.random.default_rng(1)
    for n in m.players:
        states = random_game_states(map_name, n, seed=n)
        assert_same_bits([perturbed(s, m, rng) for s in states], m.tables)


#: (scale, the largest count a checked state scales by it): every ``_scaled`` of the observation
SCALED = (
    (O.MONEY_SCALE, COUNTER_LIMIT),  # money
    (O.GOODS_SCALE, max(STOREHOUSE_SLOTS, MAX_INCOMING)),  # goods, free slots, incoming goods
    (O.STEPS_SCALE, COLONISTS_PER_PLAYER),
    (O.BUYS_SCALE, MAX_BUYS),
    (float(O.MAX_PLAYERS), O.MAX_PLAYERS),  # final turns, houses in a place
    (O.TURN_SCALE, COUNTER_LIMIT),
    (float(NUM_SALE_CARDS), NUM_SALE_CARDS),  # the stack
    (float(HOUSES_PER_PLAYER), MAX_CITIES),  # houses built
    (O.SCORE_PART_SCALE, COUNTER_LIMIT),  # a score part: Vesta's is money / 10 at most
    (O.SCORE_TOTAL_SCALE, COUNTER_LIMIT),  # the total VP and the intermediate VP marker
)


@pytest.mark.parametrize(("scale", "most"), SCALED)
def test_scaling_by_the_reciprocal_rounds_as_the_division(scale: float, most: int) -> None:
    """``_scaled``: count * (1 / scale) and count / scale round to the same float32, for every count up to ``most``.

    Every count up to 2**22, and a million more up to ``most`` (the docstring of ``_scaled``
    says why no count in between could differ).
    """
    counts = np.arange(min(most, 2**22) + 1, dtype=np.int64)
    if most > 2**22:
        extra = np.random.default_rng(0).integers(2**22, most + 1, 10**6)
        counts = np.concatenate([counts, extra, [most]])
    quotients = (counts.astype(np.float64) / scale).astype(np.float32)
    products = (counts.astype(np.float64) * (1.0 / scale)).astype(np.float32)
    assert np.array_equal(quotients.view(np.int32), products.view(np.int32))


def microseconds_per_row(map_name: str = "imperium", num_players: int = 4, rounds: int = 100) -> tuple[float, float]:
    """(reference, current) µs per row of ``observe_batch_into`` on 256 mid-game states (after 150 random steps).

    The two alternate on one output buffer, eight calls a round; the best round of each
    counts, so that another process on the machine biases the ratio less.
    """
    import time

    from concordia_env import VectorGame

    vec = VectorGame(256, map=map_name, num_players=num_players, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(150):
        vec.step(vec.sample_actions(rng))
    states, tables = np.array(vec.states), vec.map.tables
    players = (np.arange(len(states)) % num_players).astype(np.int64)
    out = np.zeros((len(states), OBS_SIZES[max(OBS_SIZES)]), dtype=np.float32)
    best = {reference_batch: np.inf, observe_batch_into: np.inf}
    for _ in range(rounds):
        for batch in best:
            batch(states, tables, players, out)
            start = time.perf_counter()
            for _ in range(8):
                batch(states, tables, players, out)
            best[batch] = min(best[batch], (time.perf_counter() - start) / 8 / len(states) * 1e6)
    return best[reference_batch], best[observe_batch_into]


if __name__ == "__main__":  # python tests/test_observation_speed_equivalence.py [map] [players]
    import sys

    before, after = microseconds_per_row(*sys.argv[1:2], *map(int, sys.argv[2:3]))
    print(f"reference {before:.3f} µs/row, now {after:.3f} µs/row: {before / after:.2f}x")
