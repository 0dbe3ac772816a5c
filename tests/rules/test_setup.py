"""Setup (docs/rules.md §2): city tokens, bonus markers, the card stack, players' starting material.

The expected numbers are written out here from docs/rules.md rather than read from the
engine's data files, so a wrong data file fails these tests too.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from builders import colonist_at, free_slots, goods_of, new_game

from concordia_env import Game
from concordia_env.engine.cards import CARD_DECK, CARD_ID, GOODS
from concordia_env.engine.state import BONUS_COIN_SIDE, BONUS_GOOD, STACK, STACK_SIZE

#: docs/rules.md §1: city tokens per letter
TOKENS = {
    "A": {"brick": 2, "food": 2, "tool": 1, "wine": 1, "cloth": 1},
    "B": {"brick": 2, "food": 2, "tool": 2, "wine": 1, "cloth": 1},
    "C": {"brick": 3, "food": 2, "tool": 2, "wine": 2, "cloth": 1},
    "D": {"brick": 1, "food": 1, "tool": 1, "wine": 1, "cloth": 1},
}
PRICE = {"brick": 3, "food": 4, "tool": 5, "wine": 6, "cloth": 7}
#: docs/rules.md §2.1 (and the [decision] for the expansion maps)
PLAYERS = {"imperium": (3, 4, 5), "italia": (2, 3, 4), "aegyptus": (2, 3, 4, 5), "creta": (2, 3, 4, 5)}
LETTERS = {"imperium": "ABCD", "italia": "ABC", "aegyptus": "ACD", "creta": "ABD"}
CITIES_WITH_TOKEN = {"imperium": 30, "italia": 25, "aegyptus": 22, "creta": 20}
CAPITAL = {"imperium": "Roma", "italia": "Roma", "aegyptus": "Memphis", "creta": "Knossos"}
DECK_SIZES = {1: 8, 2: 7, 3: 6, 4: 5, 5: 4}
START_MONEY = (5, 6, 7, 8, 9)
START_GOODS = {"brick": 1, "food": 2, "tool": 1, "wine": 1, "cloth": 1}
START_HAND = Counter(["Tribune", "Architect", "Prefect", "Prefect", "Mercator", "Senator", "Diplomat"])
DISPLAY_SIZE = 7
SEEDS = range(4)

VALID = [(m, n) for m, counts in PLAYERS.items() for n in counts]


def goods_by_city(game: Game) -> dict[str, str | None]:
    tokens = game.city_goods()
    return {c: (GOODS[tokens[i]] if tokens[i] >= 0 else None) for i, c in enumerate(game.map.cities)}


@pytest.mark.parametrize(("map_name", "n"), VALID)
def test_every_allowed_map_and_player_count_sets_up(map_name: str, n: int) -> None:
    game = new_game(n, map=map_name)
    assert game.num_players == n
    assert game.map.capital == CAPITAL[map_name]


@pytest.mark.parametrize("map_name", PLAYERS)
@pytest.mark.parametrize("seed", SEEDS)
def test_each_letter_gets_exactly_its_token_multiset(map_name: str, seed: int) -> None:
    game = Game.new(map_name, PLAYERS[map_name][0], seed)
    goods = goods_by_city(game)
    letters = game.map.letters
    assert "".join(sorted(set(letters.values()))) == LETTERS[map_name]
    assert len(letters) == CITIES_WITH_TOKEN[map_name]
    for letter in LETTERS[map_name]:
        got = Counter(goods[c] for c, lt in letters.items() if lt == letter)
        assert got == Counter(TOKENS[letter]), f"{map_name} letter {letter}"
    assert goods[CAPITAL[map_name]] is None, "the capital has no city token"


def test_tokens_are_shuffled_by_the_seed() -> None:
    arrangements = {tuple(Game.new("imperium", 3, seed).city_goods()) for seed in range(6)}
    assert len(arrangements) > 1


@pytest.mark.parametrize("map_name", PLAYERS)
@pytest.mark.parametrize("seed", SEEDS)
def test_bonus_marker_is_the_most_valuable_good_goods_side_up(map_name: str, seed: int) -> None:
    game = Game.new(map_name, PLAYERS[map_name][0], seed)
    goods = goods_by_city(game)
    for v, (province, cities) in enumerate(game.map.provinces.items()):
        if province == game.map.variable_bonus_province:
            continue  # Gavdos: no marker at setup (docs/rules.md §9.2)
        best = max((goods[c] for c in cities), key=PRICE.__getitem__)
        assert GOODS[game.state[BONUS_GOOD + v]] == best, province
        assert game.state[BONUS_COIN_SIDE + v] == 0, province


def draw_order(game: Game) -> list[int]:
    """Display slots 1..7, then the stack from its top card down."""
    size = int(game.state[STACK_SIZE])
    stack_top_first = [int(t) for t in game.state[STACK : STACK + size][::-1]]
    return [int(t) for t in game.display()] + stack_top_first


@pytest.mark.parametrize(("map_name", "n"), VALID)
def test_decks_above_player_count_removed_and_deck_one_on_top(map_name: str, n: int) -> None:
    game = new_game(n, map=map_name, seed=n)
    order = draw_order(game)
    decks = [int(CARD_DECK[t]) for t in order]
    assert Counter(decks) == Counter({d: DECK_SIZES[d] for d in range(1, n + 1)})
    assert len(set(order)) == len(order), "each card for sale exists once"
    assert decks == sorted(decks), f"decks must be stacked I on top, then II...: {decks}"
    assert all(CARD_ID[t].count("/") == 1 for t in order), "no starting card in the stack"


@pytest.mark.parametrize("n", [3, 4, 5])
def test_seven_cards_in_the_display(n: int) -> None:
    game = new_game(n)
    assert (game.display() >= 0).sum() == DISPLAY_SIZE
    assert int(game.state[STACK_SIZE]) == sum(DECK_SIZES[d] for d in range(1, n + 1)) - DISPLAY_SIZE


def test_decks_are_shuffled_by_the_seed() -> None:
    assert len({tuple(draw_order(Game.new("imperium", 5, seed))) for seed in range(4)}) > 1


@pytest.mark.parametrize(("map_name", "n"), VALID)
def test_start_money_in_turn_order_and_praefectus_magnus_to_the_last_player(map_name: str, n: int) -> None:
    for start in range(n):
        game = new_game(n, map=map_name, start_player=start)
        assert game.turn_player == start == game.current_player
        for k in range(n):
            assert game.money((start + k) % n) == START_MONEY[k]
        assert game.praefectus_magnus == (start - 1) % n, "the player right of the start player"


def test_start_player_drawn_by_the_seed_is_consistent() -> None:
    starts = set()
    for seed in range(8):
        game = Game.new("imperium", 4, seed)
        start = game.turn_player
        starts.add(start)
        assert game.money(start) == START_MONEY[0]
        assert game.praefectus_magnus == (start - 1) % 4
    assert len(starts) > 1, "the start player is drawn at random"


@pytest.mark.parametrize("map_name", PLAYERS)
def test_players_start_material(map_name: str) -> None:
    n = PLAYERS[map_name][-1]
    game = new_game(n, map=map_name)
    capital = CAPITAL[map_name]
    for p in range(n):
        assert [colonist_at(game, p, s) for s in range(6)] == [
            capital,
            "storehouse",
            "storehouse",
            capital,
            "storehouse",
            "storehouse",
        ], "1 land + 1 sea colonist in the capital, 2 + 2 in the storehouse"
        assert goods_of(game, p) == START_GOODS
        assert free_slots(game, p) == 2, "10 of 12 slots used"
        hand = Counter({CARD_ID[t]: int(c) for t, c in enumerate(game.hand(p)) if c})
        assert hand == START_HAND
        assert not game.discard(p).any() and game.discard_top(p) == -1
        assert not game.houses()[p].any()
    assert game.concordia_holder is None
    assert not game.is_over()


INVALID_COUNTS = [
    ("imperium", 0),
    ("imperium", 1),
    ("imperium", 2),
    ("imperium", 6),
    ("italia", 1),
    ("italia", 5),
    ("aegyptus", 1),
    ("aegyptus", 6),
    ("creta", 1),
    ("creta", 6),
]


@pytest.mark.parametrize(("map_name", "n"), INVALID_COUNTS)
def test_map_player_count_refusals(map_name: str, n: int) -> None:
    with pytest.raises(ValueError, match=str(n)):
        Game.new(map_name, n, 0)


@pytest.mark.parametrize("n", ["4", 4.0, True, None])
def test_player_count_must_be_an_int(n: object) -> None:
    with pytest.raises(ValueError):
        Game.new("imperium", n, 0)  # type: ignore[arg-type]


def test_unknown_map_refused() -> None:
    with pytest.raises(ValueError, match="atlantis"):
        Game.new("atlantis", 4, 0)


def test_bad_options_refused() -> None:
    with pytest.raises(ValueError):
        Game.new("imperium", 4, 0, start_player=4)
    with pytest.raises(ValueError):
        Game.new("imperium", 4, 0, display_costs="gold-plated")


def test_same_seed_same_game() -> None:
    assert np.array_equal(Game.new("italia", 3, 11).state, Game.new("italia", 3, 11).state)
