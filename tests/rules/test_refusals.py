"""Every refused action has a specific reason, computed by the check that refused it.

``rules.legal.why_illegal(s, m, a)`` and the legal mask are one computation (the refusal
functions of ``rules/legal.py``); ``describe.REFUSAL_TEXT`` only puts the codes into words.
Here: over random positions of every map and player count, every one of the 769 actions
gets a code, the code is LEGAL exactly where the mask is True, no refused action is left
without a specific code, and every code has words that name the position's facts.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest
from builders import add_house, new_game, play, put_colonist, set_display, set_goods, set_hand, set_stack

from concordia_env import Game, IllegalActionError
from concordia_env.engine import actions as A
from concordia_env.engine.cards import CLOTH, FOOD, K_ARCHITECT, K_COLONIST, K_MERCATOR, K_SENATOR, K_TRIBUNE, WINE
from concordia_env.engine.describe import REFUSAL_TEXT, explain_illegal
from concordia_env.engine.maps import MAP_NAMES, SEA, load
from concordia_env.engine.rules import legal
from concordia_env.engine.state import BUYS_LEFT, HOUSES, NUM_PHASES, PHASE, PHASE_ARCHITECT_MOVE, TRADED_GOODS

#: (map, players, games) whose random positions are checked
GAMES = [(name, players, 2) for name in MAP_NAMES for players in (min(load(name).players), max(load(name).players))]
#: examples of each code put into words (the rest of the enumeration checks codes only)
WORDS_PER_CODE = 12


def random_positions(map_name: str, players: int, seed: int):
    """Every position of a game of uniformly random legal actions (the game itself, mutated)."""
    game = Game.new(map_name, players, seed)
    rng = np.random.default_rng(seed)
    while not game.is_over():
        yield game
        game.step(int(rng.choice(game.legal_actions())))
    yield game


def refusals(game: Game) -> np.ndarray:
    out = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
    legal.fill_refusals(game.state.copy(), game.map.tables, out)  # compiled code takes writable states
    return out


def checked_codes(map_name: str, players: int, seed: int, examples: dict[int, list[tuple[Game, int]]]) -> None:
    """Check every action of every position of one random game; keep a few examples of each code met."""
    for game in random_positions(map_name, players, seed):
        codes = refusals(game)
        assert np.array_equal(codes == legal.LEGAL, game.legal_mask()), "the code disagrees with the mask"
        assert codes.min() >= 0 and codes.max() < legal.NUM_REFUSALS
        for code in np.unique(codes).tolist():
            found = np.flatnonzero(codes == code)
            if code != legal.LEGAL and len(examples[code]) < WORDS_PER_CODE:
                examples[code].append((game.clone(), int(found[len(examples[code]) * 7 % len(found)])))


@pytest.mark.parametrize(("map_name", "players", "games"), GAMES)
def test_every_action_of_every_position_has_its_code(map_name: str, players: int, games: int) -> None:
    for seed in range(games):
        checked_codes(map_name, players, seed, defaultdict(list))


def test_the_codes_met_are_put_into_words() -> None:
    """Examples of each code met in random games, in words, as ``Game.step`` reports them."""
    examples: dict[int, list[tuple[Game, int]]] = defaultdict(list)
    for map_name, players, _ in GAMES:
        checked_codes(map_name, players, 0, examples)
    assert len(examples) >= 30, sorted(legal.REFUSAL_NAMES[c] for c in examples)
    for code, cases in examples.items():
        for game, action in cases:
            before = game.state.copy()
            with pytest.raises(IllegalActionError) as info:
                game.step(action)
            assert info.value.reason == explain_illegal(game.state, game.map, action)
            assert info.value.reason, legal.REFUSAL_NAMES[code]
            assert np.array_equal(game.state, before)


def test_every_code_has_a_name_and_words() -> None:
    assert legal.REFUSAL_NAMES[legal.LEGAL] == "LEGAL"
    for code, name in enumerate(legal.REFUSAL_NAMES):
        assert getattr(legal, name) == code, name
    assert set(REFUSAL_TEXT) == set(range(1, legal.NUM_REFUSALS)), "a code without words, or words without a code"


def test_why_illegal_agrees_with_fill_refusals_and_the_mask() -> None:
    game = new_game(4)
    codes = refusals(game)
    for a in range(A.NUM_ACTIONS):
        assert legal.why_illegal(game.state.copy(), game.map.tables, a) == codes[a]
    assert legal.why_illegal(game.state.copy(), game.map.tables, -1) == legal.NOT_AN_ACTION
    assert legal.why_illegal(game.state.copy(), game.map.tables, A.NUM_ACTIONS) == legal.NOT_AN_ACTION


def test_a_legal_action_has_nothing_to_explain() -> None:
    game = new_game(4)
    with pytest.raises(ValueError, match="legal in this position"):
        explain_illegal(game.state, game.map, int(game.legal_actions()[0]))


def test_decision_table_covers_every_decision() -> None:
    assert set(legal.DECISION_RANGES) == set(range(NUM_PHASES))
    for phase, ranges in legal.DECISION_RANGES.items():
        for r in range(len(A.RANGE_NAMES)):
            assert legal.DECISION_TAKES[phase, r] == (r in ranges)


def test_a_state_with_no_decision_refuses_everything_with_its_own_code() -> None:
    game = new_game(3)
    state = game.state.copy()
    state[PHASE] = NUM_PHASES + 3
    mask = np.ones(A.NUM_ACTIONS, dtype=np.bool_)
    legal.fill_legal(state, game.map.tables, mask)
    assert not mask.any()
    assert legal.why_illegal(state, game.map.tables, 0) == legal.NO_DECISION


# --------------------------------------------------------------------------- codes random play rarely meets
def code_of(game: Game, action: int) -> int:
    return int(legal.why_illegal(game.state.copy(), game.map.tables, action))


def test_codes_of_constructed_positions() -> None:
    """The refusals random games seldom or never show, each in a position made for it."""
    game = new_game(4)
    set_hand(game, 0, ["Tribune", "Architect"])
    for slot in (0, 1, 2):
        put_colonist(game, 0, slot, "Roma")
    play(game, K_TRIBUNE)
    assert code_of(game, A.tribune_colonist(0)) == legal.NO_COLONIST_IN_STOREHOUSE

    game = new_game(4)
    m = game.map
    put_colonist(game, 0, 3, "sea:Massilia-Roma")
    play(game, K_ARCHITECT)
    assert game.state[PHASE] == PHASE_ARCHITECT_MOVE
    assert code_of(game, A.move(3, m.path_index("sea:Massilia-Roma"))) == legal.ALREADY_ON_PATH
    assert code_of(game, A.move(1, 0)) == legal.COLONIST_IN_STOREHOUSE

    game = new_game(4)
    set_goods(game, 0, wine=1)
    play(game, K_MERCATOR)
    game.step(A.sell(WINE, 1))
    assert code_of(game, A.buy(WINE, 1)) == legal.GOOD_ALREADY_TRADED

    game = new_game(4)
    set_display(game, ["Mason/I", "Colonist/I", None, "Farmer/I"])
    set_stack(game, [])
    set_goods(game, 0, food=5, tool=2, brick=2)
    play(game, K_SENATOR)
    game.step(A.buy_card(0))
    assert code_of(game, A.buy_card(0)) == legal.SLOT_BOUGHT
    state = game.state.copy()
    state[BUYS_LEFT] = 0
    assert legal.why_illegal(state, game.map.tables, A.buy_card(1, 0)) == legal.NO_BUYS_LEFT

    game = new_game(4)
    set_hand(game, 0, ["Colonist/I"])
    add_house(game, 0, "Massilia")
    set_goods(game, 0, food=1, tool=1)
    play(game, K_COLONIST)
    assert code_of(game, A.settle(0, m.place_index("Novaria"))) == legal.NOT_A_SETTLING_PLACE
    game = new_game(3, map="italia")
    set_hand(game, 0, ["Colonist/I"])
    set_goods(game, 0, food=1, tool=1)
    play(game, K_COLONIST)
    assert code_of(game, A.settle(0, len(game.map.places))) == legal.NO_SUCH_PLACE


def test_codes_of_states_no_game_leaves_pending() -> None:
    """Refusals the engine's flow never leaves to be asked (the action would have ended), on edited states."""
    game = new_game(4)
    set_goods(game, 0, wine=1, food=1, cloth=1)
    play(game, K_MERCATOR)
    state = game.state.copy()
    state[TRADED_GOODS] = (1 << WINE) | (1 << FOOD)  # two kinds traded: the action is over
    assert legal.why_illegal(state, game.map.tables, A.sell(CLOTH, 1)) == legal.NO_TRADES_LEFT
    assert "at most 2 kinds" in explain_illegal(state, game.map, A.sell(CLOTH, 1))

    game = new_game(4)
    play(game, K_ARCHITECT)
    state = game.state.copy()
    cities = [c for c in range(len(game.map.places)) if game.map.places[c] != game.map.capital]
    state[[HOUSES + c for c in cities[:15]]] = 1  # player 0's houses: all 15 (the game would be over)
    assert legal.why_illegal(state, game.map.tables, A.build(cities[15])) == legal.ALL_HOUSES_BUILT
    assert "all 15 houses" in explain_illegal(state, game.map, A.build(cities[15]))


def test_a_colonist_on_a_special_square_never_moves() -> None:
    game = new_game(3, map="aegyptus")
    put_colonist(game, 0, 3, "gold")
    play(game, K_ARCHITECT)
    sea = next(p for p, (kind, _, _) in enumerate(game.map.paths) if kind == SEA)
    assert code_of(game, A.move(3, sea)) == legal.ON_SPECIAL_SQUARE
    assert "never moves again" in explain_illegal(game.state, game.map, A.move(3, sea))
