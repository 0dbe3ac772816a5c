"""No Python write reaches compiled code unchecked.

``Game.state`` was a public, writable array that the compiled rules trust: writing
``state[CURRENT_PLAYER] = 10**8`` and then asking for the legal actions ended the process
with a segmentation fault, and ``= 7`` in a 2-player game gave an answer. ``Game(arr, map)``
checked ``arr`` once and then kept it, so the caller could still change it. Now a game
owns its array (``Game``, "Who owns the state"); so does a ``VectorGame`` its rows.
"""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from concordia_env import Game, IllegalActionError, VectorGame
from concordia_env.engine.maps import load
from concordia_env.engine.state import CURRENT_PLAYER, NUM_PLAYERS, P_MONEY, STATE_SIZE, player_base

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def game() -> Game:
    game = Game.new("italia", 2, seed=3)
    for _ in range(20):
        game.step(int(game.legal_actions()[0]))
    return game


# =========================================================================== Game
@pytest.mark.parametrize("value", [10**8, 7, -5])
def test_the_state_refuses_writes(game: Game, value: int) -> None:
    """The reproducers: ``state[CURRENT_PLAYER] = 10**8`` segfaulted in legal_actions(); ``= 7`` answered."""
    before = game.state.copy()
    with pytest.raises(ValueError, match="read-only"):
        game.state[CURRENT_PLAYER] = value
    with pytest.raises(ValueError, match="read-only"):
        game.state[:] = 0
    assert np.array_equal(game.state, before)
    assert len(game.legal_actions()) > 0


def test_the_view_cannot_be_made_writable_again(game: Game) -> None:
    with pytest.raises(ValueError, match="WRITEABLE"):
        game.state.flags.writeable = True
    with pytest.raises(ValueError, match="WRITEABLE"):
        game.state[:10].flags.writeable = True  # nor a slice of it
    with pytest.raises(ValueError):
        game.state.setflags(write=True)


def test_state_and_map_cannot_be_reassigned(game: Game) -> None:
    with pytest.raises(AttributeError):
        game.state = np.zeros(STATE_SIZE, dtype=np.int32)  # type: ignore[misc]
    with pytest.raises(AttributeError):
        game.map = load("imperium")  # type: ignore[misc]  # other tables over this state would read past it
    with pytest.raises(AttributeError):
        game.anything = 1  # type: ignore[attr-defined]  # slots: nowhere to hide another array


def test_the_view_follows_the_game(game: Game) -> None:
    view = game.state
    decisions = game.decision_count
    game.step(int(game.legal_actions()[0]))
    assert int(view[NUM_PLAYERS]) == 2 and game.decision_count == decisions + 1
    assert np.array_equal(view, game.state)


def test_the_constructor_copies_the_callers_array(game: Game) -> None:
    """``Game(arr, map)`` kept ``arr``: a write after the check reached the compiled rules."""
    arr = game.state.copy()
    built = Game(arr, game.map)
    arr[CURRENT_PLAYER] = 10**8  # after the check: the game must not see it
    arr[player_base(0) + P_MONEY] = 999
    assert built.current_player == game.current_player and built.money(0) == game.money(0)
    assert not np.shares_memory(arr, built.state)
    assert len(built.legal_actions()) > 0


def test_an_edited_copy_is_checked(game: Game) -> None:
    """The documented way to edit a position: a copy, then ``Game(edited, map)``."""
    edited = game.state.copy()
    edited[player_base(1) + P_MONEY] = 42
    assert Game(edited, game.map).money(1) == 42
    edited[CURRENT_PLAYER] = 7  # a seat a 2-player game does not have
    with pytest.raises(ValueError, match=r"state CURRENT_PLAYER \(entry \d+\) is 7"):
        Game(edited, game.map)
    edited[CURRENT_PLAYER] = 10**8
    with pytest.raises(ValueError, match="CURRENT_PLAYER"):
        Game(edited, game.map)


def test_clones_own_their_arrays(game: Game) -> None:
    clone = game.clone()
    assert clone == game and not np.shares_memory(clone.state, game.state)
    clone.step(int(clone.legal_actions()[0]))
    assert clone != game
    shuffled = game.with_hidden_stack_shuffled(np.random.default_rng(0))
    assert not np.shares_memory(shuffled.state, game.state)


def test_pickles_and_deep_copies_stay_read_only_and_checked(game: Game) -> None:
    for twin in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game), copy.copy(game)):
        assert twin == game and not twin.state.flags.writeable
        assert not np.shares_memory(twin.state, game.state)
        twin.step(int(twin.legal_actions()[0]))
        assert twin != game
    tampered = game.__getstate__()
    tampered["state"] = tampered["state"].copy()
    tampered["state"][CURRENT_PLAYER] = 10**8
    with pytest.raises(ValueError, match="CURRENT_PLAYER"):
        Game.__new__(Game).__setstate__(tampered)


def test_the_segfault_reproducer_in_a_child_process() -> None:
    """The reproducer of the issue, run where a crash cannot take the test runner down."""
    code = (
        "from concordia_env import Game\n"
        "from concordia_env.engine.state import CURRENT_PLAYER\n"
        "g = Game.new('italia', 2, seed=0)\n"
        "try:\n"
        "    g.state[CURRENT_PLAYER] = 10**8\n"
        "except ValueError as e:\n"
        "    print('refused:', e)\n"
        "print(len(g.legal_actions()))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "refused: assignment destination is read-only" in run.stdout


# =========================================================================== VectorGame
@pytest.fixture
def vec() -> VectorGame:
    return VectorGame(3, "italia", 2, seed=1)


def test_vector_states_refuse_writes(vec: VectorGame) -> None:
    before = vec.states.copy()
    with pytest.raises(ValueError, match="read-only"):
        vec.states[0, CURRENT_PLAYER] = 10**8
    with pytest.raises(ValueError, match="read-only"):
        vec.states[1] = 0
    with pytest.raises(ValueError, match="WRITEABLE"):
        vec.states.flags.writeable = True
    assert np.array_equal(vec.states, before)
    vec.step(vec.sample_actions())
    assert not np.array_equal(vec.states, before)  # the view shows the rows as they are


def test_vector_attributes_the_compiled_code_reads_cannot_be_reassigned(vec: VectorGame) -> None:
    for name, value in [
        ("states", np.zeros((3, STATE_SIZE), dtype=np.int32)),
        ("n", 100),
        ("map", load("imperium")),
        ("num_players", 6),
    ]:
        with pytest.raises(AttributeError):
            setattr(vec, name, value)
    vec.step(vec.sample_actions())


def test_vector_masks_cannot_be_widened(vec: VectorGame) -> None:
    """``step`` trusts its cached masks: a widened mask would let illegal actions into the compiled batch step."""
    masks = vec.legal_masks()
    with pytest.raises(ValueError, match="read-only"):
        masks[:] = True
    illegal = np.array([int(np.flatnonzero(~row)[0]) for row in masks])
    before = vec.states.copy()
    with pytest.raises(IllegalActionError):
        vec.step(illegal)
    assert np.array_equal(vec.states, before)


def test_vector_hands_out_copies_or_read_only_views(vec: VectorGame) -> None:
    row = vec.game(0)
    assert not np.shares_memory(row.state, vec.states)
    rng = np.random.default_rng(0)
    for _ in range(3000):
        _, dones, infos = vec.step(vec.sample_actions(rng))
        if dones.any():
            final = infos["final_info"][int(np.flatnonzero(dones)[0])]["state"]
            assert not final.flags.writeable and not np.shares_memory(final, vec.states)
            break
    else:
        pytest.fail("no game of the batch finished")
