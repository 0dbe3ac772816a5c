"""The public operations through which code outside the engine has a game changed or read in place.

Environments and integrations handed ``game._state`` to compiled code: a turn plan played
in one compiled call (the options level), an observation written into an env's buffer
(PettingZoo, OpenSpiel), the stack and display laid out at OpenSpiel's chance nodes. Each
is now a method of ``Game`` that checks its input first (``tests/test_layering.py`` keeps
the array inside the engine).
"""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import Game, IllegalActionError, strategy
from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.cards import DISPLAY_SLOTS
from concordia_env.engine.errors import ArgumentTypeError
from concordia_env.engine.observation import OBS_SIZES
from concordia_env.engine.state import DISPLAY, STACK, STACK_SIZE


@pytest.fixture
def game() -> Game:
    game = Game.new("italia", 2, seed=5)
    for _ in range(6):
        game.step(int(game.legal_actions()[0]))
    return game


def stepped(game: Game, plan: np.ndarray) -> tuple[Game, int]:
    """``plan`` played by ``step``: while each action is legal and the first mover's own."""
    copy, mover, taken = game.clone(), game.current_player, 0
    for a in plan:
        if copy.is_over() or copy.current_player != mover or not copy.legal_mask()[a]:
            break
        copy.step(int(a))
        taken += 1
    return copy, taken


# =========================================================================== play_plan
def test_a_plan_plays_as_its_steps_would(game: Game) -> None:
    options = strategy.turn_options(game.state, game.map.tables)
    assert len(options.lengths) > 1
    for k in range(len(options.lengths)):
        plan = options.plans[k, : options.lengths[k]]
        played = game.clone()
        twice = np.concatenate([plan, plan])  # the turn ends before the second copy: the rest is left
        taken = played.play_plan(twice)
        expected, count = stepped(game, twice)
        assert taken == count and 1 <= taken <= len(plan)
        assert played == expected
        assert np.array_equal(played.legal_mask(), expected.legal_mask())  # no stale cached mask


def test_a_plan_takes_sequences_and_stops_at_an_illegal_action(game: Game) -> None:
    first = int(game.legal_actions()[0])
    after = game.clone()
    after.step(first)
    illegal = int(np.flatnonzero(~after.legal_mask())[0])
    played = game.clone()
    assert played.play_plan([first, illegal, first]) == 1
    assert played == after
    assert game.clone().play_plan([]) == 0
    assert game.clone().play_plan(np.array([first], dtype=np.int16)) == 1


@pytest.mark.parametrize(
    ("plan", "error"),
    [
        ([1.0], ArgumentTypeError),
        (["3"], ArgumentTypeError),
        ([True], ArgumentTypeError),
        (None, ValueError),
        ([[1, 2]], ValueError),
        ([-1], ValueError),
        ([NUM_ACTIONS], ValueError),
        ([2**70], ArgumentTypeError),
    ],
)
def test_a_bad_plan_is_refused_and_changes_nothing(game: Game, plan: object, error: type[Exception]) -> None:
    before = game.clone()
    with pytest.raises(error):
        game.play_plan(plan)  # type: ignore[arg-type]
    assert game == before


def test_a_plan_whose_first_action_is_illegal_is_refused_as_step_refuses_it(game: Game) -> None:
    legal = int(game.legal_actions()[0])
    illegal = int(np.flatnonzero(~game.legal_mask())[0])
    before = game.clone()
    with pytest.raises(IllegalActionError) as err:
        game.play_plan([illegal, legal])
    assert err.value.action == illegal
    assert game == before


# =========================================================================== observation(out=)
def test_an_observation_fills_the_given_buffer(game: Game) -> None:
    for version, size in OBS_SIZES.items():
        out = np.full(size, np.nan, dtype=np.float32)
        assert game.observation(1, version, out=out) is out
        assert np.array_equal(out, game.observation(1, version))
    assert np.array_equal(game.observation(0, 0), game.observation(0)[: OBS_SIZES[0]])


@pytest.mark.parametrize(
    ("out", "error"),
    [
        (np.zeros(OBS_SIZES[1], dtype=np.float64), ArgumentTypeError),
        ([0.0] * OBS_SIZES[1], ArgumentTypeError),
        (np.zeros(OBS_SIZES[0], dtype=np.float32), ValueError),  # the length of the other version
        (np.zeros(2 * OBS_SIZES[1], dtype=np.float32)[::2], ValueError),  # not contiguous
        (np.zeros(OBS_SIZES[1], dtype=np.float32).reshape(1, -1), ValueError),
    ],
)
def test_a_bad_buffer_is_refused(game: Game, out: object, error: type[Exception]) -> None:
    with pytest.raises(error):
        game.observation(0, 1, out=out)  # type: ignore[arg-type]


def test_a_read_only_buffer_or_a_bad_seat_or_version_is_refused(game: Game) -> None:
    out = np.zeros(OBS_SIZES[1], dtype=np.float32)
    out.flags.writeable = False
    with pytest.raises(ValueError, match="writable"):
        game.observation(0, out=out)
    with pytest.raises(ValueError, match="player"):
        game.observation(2)
    with pytest.raises(ValueError, match="observation_version"):
        game.observation(0, 7)


# =========================================================================== lay_out_cards
def display_and_stack(game: Game) -> tuple[np.ndarray, list[int]]:
    return game.display(), [int(t) for t in game.state[STACK : STACK + game.stack_size]]


def test_cards_move_between_the_display_and_the_stack(game: Game) -> None:
    display, stack = display_and_stack(game)
    slot = DISPLAY_SLOTS - 1
    card = int(display[slot])
    assert card >= 0
    buys_before = game.legal_mask().copy()
    emptied = display.copy()
    emptied[slot] = -1
    game.lay_out_cards(emptied, [card, *reversed(stack)])  # back into the stack, at its bottom, the rest reversed
    assert np.array_equal(game.display(), emptied)
    assert game.stack_size == len(stack) + 1
    assert [int(t) for t in game.state[STACK : STACK + game.stack_size]] == [card, *reversed(stack)]
    assert int(game.state[STACK + game.stack_size]) == -1  # the rest of the stack field stays empty
    Game(game.state, game.map)  # still a valid state
    game.lay_out_cards(display, stack)  # and back
    assert np.array_equal(game.display(), display) and display_and_stack(game)[1] == stack
    assert np.array_equal(game.legal_mask(), buys_before)


def test_the_legal_actions_follow_a_new_layout() -> None:
    """The cached mask is the state's own: a Senator's purchases change with the display."""
    game = Game.new("italia", 2, seed=0)
    senator = [a for a in game.legal_actions() if "Senator" in game.describe_action(int(a))]
    assert senator
    game.step(int(senator[0]))
    before = game.legal_actions()
    display, stack = display_and_stack(game)
    empty = np.full(DISPLAY_SLOTS, -1)
    game.lay_out_cards(empty, [*stack, *(int(t) for t in display if t >= 0)])
    after = game.legal_actions()
    assert len(after) < len(before)
    assert np.array_equal(after, game.clone().legal_actions())


@pytest.mark.parametrize(
    "change",
    ["a card added", "a card lost", "a card doubled", "a display too short", "a card type beyond the cards"],
)
def test_other_cards_are_refused_and_nothing_changes(game: Game, change: str) -> None:
    display, stack = display_and_stack(game)
    if change == "a card added":
        stack = [*stack, int(display[0])]
    elif change == "a card lost":
        stack = stack[1:]
    elif change == "a card doubled":
        stack = [stack[0], *stack[:-1]]
    elif change == "a display too short":
        display = display[:-1]
    else:
        display = display.copy()
        display[0] = 10**6
    before = game.clone()
    with pytest.raises(ValueError):
        game.lay_out_cards(display, stack)
    assert game == before


def test_cards_that_are_no_integers_are_refused(game: Game) -> None:
    display, stack = display_and_stack(game)
    with pytest.raises(ArgumentTypeError):
        game.lay_out_cards(display.astype(np.float64), stack)
    with pytest.raises(ArgumentTypeError):
        game.lay_out_cards(display, [str(t) for t in stack])
    assert int(game.state[STACK_SIZE]) == len(stack)
    assert np.array_equal(game.state[DISPLAY : DISPLAY + DISPLAY_SLOTS], display)
