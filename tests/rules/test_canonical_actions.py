"""One legal action per distinct choice (docs/action-space.md).

Two choices of the rules are interchangeable: which of several same-kind colonists on one
place moves, and which of several opponents showing a card of one kind a Diplomat copies.
The mask offers one canonical action for each. Checked here against an exhaustive search
written independently of ``rules/legal.py``: every move the rules allow (any colonist, by a
breadth-first search over the map's paths; any opponent with a copyable card) is carried
out with the engine's effect functions, and its outcome is compared with those of the legal
actions, positions taken with each kind's colonists as an unordered set. (Two *different*
moves may still meet in one position, e.g. copying a Senator or a Consul when nothing is
affordable; they stay two actions.)
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from builders import expect_illegal, new_game, play, put_colonist, set_discard

from concordia_env import Game
from concordia_env.engine import actions as A
from concordia_env.engine.cards import CARD_KIND, COLONISTS_PER_PLAYER, K_ARCHITECT, K_DIPLOMAT
from concordia_env.engine.maps import SEA
from concordia_env.engine.rules.effects import apply_action
from concordia_env.engine.rules.entry_points import advance
from concordia_env.engine.state import (
    CURRENT_PLAYER,
    FIRST_SEA_SLOT,
    LOC_STOREHOUSE,
    NUM_PLAYERS,
    P_COLONISTS,
    P_DISCARD_TOP,
    PATH_LOC_BASE,
    PHASE,
    PHASE_ARCHITECT_MOVE,
    PHASE_DIPLOMAT,
    STEPS_LEFT,
    TURN_PLAYER,
    player_base,
)

#: (map, players) of the random games: every map, small and large tables
GAMES = [
    ("imperium", 3),
    ("imperium", 5),
    ("italia", 2),
    ("italia", 4),
    ("aegyptus", 2),
    ("aegyptus", 4),
    ("creta", 3),
    ("creta", 5),
]
#: look at every n-th decision of a random game
EVERY = 3


# --------------------------------------------------------------------------- the search
def canonical_key(state: np.ndarray) -> bytes:
    """The position with each player's land and sea colonists sorted (they are interchangeable)."""
    s = state.copy()
    for p in range(int(s[NUM_PLAYERS])):
        b = player_base(p) + P_COLONISTS
        s[b : b + FIRST_SEA_SLOT] = np.sort(s[b : b + FIRST_SEA_SLOT])
        s[b + FIRST_SEA_SLOT : b + COLONISTS_PER_PLAYER] = np.sort(s[b + FIRST_SEA_SLOT : b + COLONISTS_PER_PLAYER])
    return s.tobytes()


def path_steps(game: Game, loc: int) -> dict[int, int]:
    """Steps from a colonist location to every path it could reach (breadth-first over the paths).

    From a place, its paths are one step away; a path leads on to the paths of its kind that
    share an end, except through a special square (a dead end, docs/rules.md §9.1).
    """
    m = game.map
    special = {m.place_index(sq) for sq in m.special_squares}
    ends = [(m.place_index(a), m.place_index(b)) for _, a, b in m.paths]
    kinds = [kind for kind, _, _ in m.paths]
    if loc >= PATH_LOC_BASE:
        dist = {loc - PATH_LOC_BASE: 0}
    else:
        dist = {q: 1 for q, e in enumerate(ends) if loc in e}
    queue = deque(dist)
    while queue:
        q = queue.popleft()
        for r, e in enumerate(ends):
            shared = (set(e) & set(ends[q])) - special
            if r not in dist and kinds[r] == kinds[q] and shared:
                dist[r] = dist[q] + 1
                queue.append(r)
    return dist


def rule_moves(game: Game) -> set[int]:
    """Every Architect move the rules allow, whichever colonist makes it."""
    m, s = game.map, game.state
    p = int(s[CURRENT_PLAYER])
    special = {m.place_index(sq) for sq in m.special_squares}
    occupied: dict[int, int] = {}
    for q in range(game.num_players):
        for loc in game.colonist_locations(q):
            if loc >= PATH_LOC_BASE:
                occupied[int(loc) - PATH_LOC_BASE] = occupied.get(int(loc) - PATH_LOC_BASE, 0) + 1
    moves = set()
    for slot, loc in enumerate(game.colonist_locations(p).tolist()):
        if loc == LOC_STOREHOUSE or loc in special:
            continue
        kind = 0 if slot < FIRST_SEA_SLOT else SEA
        for path, steps in path_steps(game, loc).items():
            free = path not in occupied or (kind == SEA and m.shared_sea_paths)
            if m.paths[path][0] == kind and loc != PATH_LOC_BASE + path and steps <= s[STEPS_LEFT] and free:
                moves.add(A.move(slot, path))
    return moves


def rule_copies(game: Game) -> set[int]:
    """Every opponent a Diplomat may copy: a non-empty pile without a Diplomat on top."""
    s, n = game.state, game.num_players
    out = set()
    for offset in range(1, n):
        top = int(s[player_base((int(s[TURN_PLAYER]) + offset) % n) + P_DISCARD_TOP])
        if top >= 0 and CARD_KIND[top] != K_DIPLOMAT:
            out.add(A.A_DIPLOMAT + offset - 1)
    return out


def rule_actions(game: Game) -> set[int]:
    """The exhaustive set: the engine's mask with every colonist's moves and every copy target put in."""
    legal = {int(a) for a in game.legal_actions()}
    if game.phase == PHASE_ARCHITECT_MOVE:
        legal = {a for a in legal if not A.A_MOVE <= a < A.A_BUILD} | rule_moves(game)
    if game.phase == PHASE_DIPLOMAT:
        legal = {a for a in legal if not A.A_DIPLOMAT <= a < A.A_MOVE} | rule_copies(game)
    return legal


def outcome(game: Game, action: int) -> bytes:
    """The position after ``action``, applied by the engine's effects without the legality check."""
    s = game.state.copy()
    apply_action(s, game.map.tables, action)
    advance(s, game.map.tables, np.zeros(A.NUM_ACTIONS, dtype=np.bool_))
    return canonical_key(s)


def random_positions(map_name: str, players: int, seed: int):
    """Every ``EVERY``-th position of a game of uniformly random legal moves."""
    game = Game.new(map_name, players, seed)
    rng = np.random.default_rng(seed)
    k = 0
    while not game.is_over():
        if k % EVERY == 0:
            yield game
        legal = game.legal_actions()
        game.step(int(rng.choice(legal)))
        k += 1


def move_name(game: Game, action: int) -> tuple:
    """What an action does, leaving out the interchangeable choice.

    A colonist move is its kind, where it starts and where it goes (not its slot); a copy is
    the kind of the copied card (not whose it is); any other action names itself.
    """
    if A.A_MOVE <= action < A.A_BUILD:
        slot, path = divmod(action - A.A_MOVE, A.MAX_PATHS)
        loc = int(game.colonist_locations(game.current_player)[slot])
        return ("move", slot < FIRST_SEA_SLOT, loc, path)
    if A.A_DIPLOMAT <= action < A.A_MOVE:
        n = game.num_players
        target = (game.turn_player + action - A.A_DIPLOMAT + 1) % n
        return ("copy", int(CARD_KIND[int(game.state[player_base(target) + P_DISCARD_TOP])]))
    return ("action", action)


def check_position(game: Game) -> int:
    """Assert the properties at one position; returns how many rule choices the mask leaves out."""
    legal = [int(a) for a in game.legal_actions()]
    everything = sorted(rule_actions(game))
    assert set(legal) <= set(everything), "the mask offers only what the rules allow"
    names = [move_name(game, a) for a in legal]
    assert len(set(names)) == len(names), "two legal actions name the same move"
    outcomes = {a: outcome(game, a) for a in everything}
    by_name: dict[tuple, set[bytes]] = {}
    for a in everything:
        by_name.setdefault(move_name(game, a), set()).add(outcomes[a])
    assert all(len(v) == 1 for v in by_name.values()), "one move, several outcomes: the choice is not interchangeable"
    assert set(by_name) == set(names), "a move the rules allow has no legal action"
    assert {outcomes[a] for a in legal} == set(outcomes.values()), "an outcome the rules allow has no legal action"
    texts = [game.describe_action(a) for a in legal]
    assert len(set(texts)) == len(texts), f"two legal actions read the same: {sorted(texts)}"
    return len(everything) - len(legal)


@pytest.mark.parametrize(("map_name", "players"), GAMES)
def test_random_positions_offer_one_action_per_outcome(map_name: str, players: int) -> None:
    positions = 0
    for seed in range(2):
        for game in random_positions(map_name, players, seed):
            check_position(game)
            positions += 1
    assert positions > 50


def test_random_games_meet_interchangeable_choices() -> None:
    """The random positions above do contain the duplicates the mask leaves out (else they test little)."""
    dropped = 0
    for map_name, players in GAMES:
        for seed in range(2):
            for game in random_positions(map_name, players, seed):
                if game.phase in (PHASE_ARCHITECT_MOVE, PHASE_DIPLOMAT):
                    dropped += len(rule_actions(game)) - len(game.legal_actions())
    assert dropped > 0


# --------------------------------------------------------------------------- constructed cases
def test_two_land_colonists_in_one_place_offer_the_moves_of_the_first() -> None:
    game = new_game(4)
    put_colonist(game, 0, 1, "Roma")  # slot 0 stands in Roma from the setup
    play(game, K_ARCHITECT)
    legal = set(game.legal_actions().tolist())
    target = game.map.path_index("land:Novaria-Roma")
    assert A.move(0, target) in legal
    assert not any(A.move(1, q) in legal for q in range(len(game.map.paths)))
    assert {outcome(game, A.move(0, target))} == {outcome(game, A.move(1, target))}
    expect_illegal(game, A.move(1, target), f"use action {A.move(0, target)}")
    check_position(game)


def test_colonists_in_different_places_move_separately() -> None:
    game = new_game(4)
    put_colonist(game, 0, 1, "land:Novaria-Roma")
    play(game, K_ARCHITECT)
    legal = set(game.legal_actions().tolist())
    assert any(A.move(0, q) in legal for q in range(len(game.map.paths)))
    assert any(A.move(1, q) in legal for q in range(len(game.map.paths)))
    check_position(game)


def test_a_diplomat_offers_each_kind_once_from_the_nearest_opponent() -> None:
    game = new_game(4)
    set_discard(game, 1, ["Prefect"])
    set_discard(game, 2, ["Architect"])
    set_discard(game, 3, ["Tribune", "Architect/II"])  # a bought Architect: the same kind as player 2's
    play(game, K_DIPLOMAT)
    assert game.state[PHASE] == PHASE_DIPLOMAT
    assert set(game.legal_actions().tolist()) == {A.A_DIPLOMAT + 0, A.A_DIPLOMAT + 1}
    texts = [game.describe_action(a) for a in game.legal_actions()]
    assert texts == ["Diplomat: copy player 1's Prefect", "Diplomat: copy player 2's Architect"]
    expect_illegal(game, A.A_DIPLOMAT + 2, f"use action {A.A_DIPLOMAT + 1}")
    check_position(game)


def test_a_starting_and_a_bought_mercator_are_different_kinds() -> None:
    game = new_game(3)
    set_discard(game, 1, ["Mercator"])
    set_discard(game, 2, ["Mercator/II"])
    play(game, K_DIPLOMAT)
    assert set(game.legal_actions().tolist()) == {A.A_DIPLOMAT + 0, A.A_DIPLOMAT + 1}
    check_position(game)
