"""One ``Game`` or ``VectorGame`` shared by two threads stays a valid game.

The compiled rules release the GIL, so two threads calling one object used to interleave
inside its state: a step checked against a position the other thread had just changed left
rows with negative goods or money, or a colonist index of -2, and every later step raised.
Now the calls run one after another (``concordia_env.engine.serial``): ``Game``'s per-decision
calls are single compiled calls that keep the GIL, every other public method holds the
object's lock, and a per-decision call waits for another thread's locked call. A thread that
chose its action before the other stepped is refused like any illegal action, and changes
nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from concordia_env import Game, IllegalActionError
from concordia_env.engine import serial
from concordia_env.engine.state_check import check_state
from concordia_env.envs.vector_game import VectorGame

ROUNDS = 400
#: games and threads of the one-game test
GAMES, STEPPERS = 20, 4


def _together(work: list) -> list[BaseException]:
    """Run the callables in threads started at the same moment; the exceptions they ended with."""
    start, errors = threading.Barrier(len(work)), []

    def run(task) -> None:
        start.wait()
        try:
            task()
        except BaseException as e:  # reported to the test
            errors.append(e)

    threads = [threading.Thread(target=run, args=(task,)) for task in work]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    return errors


def test_two_threads_stepping_one_batch_leave_every_row_a_valid_game() -> None:
    vec = VectorGame(64, map="imperium", num_players=4, seed=3)
    refused = [0, 0]

    def stepper(k: int) -> None:
        rng = np.random.default_rng(k)
        for _ in range(ROUNDS):
            actions = vec.sample_actions(rng)
            try:
                vec.step(actions)
            except IllegalActionError:
                refused[k] += 1  # the other thread stepped after this one chose: refused, nothing changed

    assert _together([lambda: stepper(0), lambda: stepper(1)]) == []
    assert sum(refused) < 2 * ROUNDS  # the threads did step
    for row in range(vec.n):
        check_state(vec.states[row].copy(), vec.map)  # goods, money, colonists: every field in range
    rng = np.random.default_rng(9)
    for _ in range(50):  # and the batch goes on
        vec.step(vec.sample_actions(rng))


def test_threads_stepping_one_game_leave_a_valid_game() -> None:
    for seed in range(GAMES):
        _threads_on_one_game(seed)


def _threads_on_one_game(seed: int) -> None:
    game = Game.new("imperium", 4, seed=seed)
    stepped = [0] * STEPPERS

    def stepper(k: int) -> None:
        rng = np.random.default_rng(k)
        for _ in range(ROUNDS):
            if game.is_over():
                return
            legal = game.legal_actions()
            if not len(legal):
                return
            try:
                game.step(int(rng.choice(legal)))
                stepped[k] += 1
            except IllegalActionError:
                pass  # the other thread moved the game on after this one chose

    def reader() -> None:
        for _ in range(ROUNDS):
            game.observation(0)
            game.scores()
            game.legal_mask()

    assert _together([*(lambda k=k: stepper(k) for k in range(STEPPERS)), reader]) == []
    assert game.decision_count == sum(stepped) > 0
    check_state(game.state.copy(), game.map)
    rng = np.random.default_rng(1)
    while not game.is_over():
        game.step(int(rng.choice(game.legal_actions())))
    assert len(game.final_scores()) == 4


def test_the_lock_is_per_object_and_reentrant() -> None:
    one, two = Game.new("italia", 2, seed=1), Game.new("italia", 2, seed=1)
    with one._lock:  # a thread holding one game's lock still calls its methods (they nest)
        one.legal_actions()
        done = []
        other = threading.Thread(target=lambda: done.append(two.legal_actions()))
        other.start()
        other.join(timeout=30)
        assert done  # another game is not held up
    clone = one.clone()
    assert clone._lock is not one._lock


def test_the_per_decision_calls_are_lock_free_compiled_calls_and_every_other_public_method_is_wrapped() -> None:
    """Game's hot path takes no lock: one compiled call each, keeping the GIL (engine.serial)."""
    import inspect

    from concordia_env.engine.observation import fill_observation_unless_busy
    from concordia_env.engine.rules import entry_points

    for name in ("legal_mask", "legal_actions", "step", "observation"):
        method = vars(Game)[name]
        assert name in Game.LOCK_FREE and not hasattr(method, "__wrapped__"), name
        assert "_unless_busy(" in inspect.getsource(method) and ".acquire()" not in inspect.getsource(method), name
    for entry in (entry_points.step_unless_busy, entry_points.legal_actions_unless_busy,
                  entry_points.legal_mask_unless_busy, fill_observation_unless_busy):  # fmt: skip
        assert entry.targetoptions["nogil"] is False, entry  # atomic for every other Python thread
    wrapped = [
        name
        for name, value in vars(Game).items()
        if inspect.isfunction(value) and not name.startswith("_") and name not in Game.LOCK_FREE
    ]
    assert wrapped and all(hasattr(vars(Game)[name], "__wrapped__") for name in wrapped)


def _locked_call(game: Game, during: Callable[[], Any]) -> None:
    """A locked call of ``game`` (as every wrapped public method makes) that runs ``during`` inside it."""
    serial._holding_the_lock(lambda self: during())(game)


@pytest.mark.parametrize("call", ["step", "legal_actions", "legal_mask", "observation"])
def test_a_lock_free_call_waits_for_another_thread_s_locked_call(call: str) -> None:
    """While one thread is inside a locked call (several compiled calls, the GIL released between them),
    a lock-free call of another thread refuses in its compiled code, takes the lock and runs after it."""
    game = Game.new("italia", 2, seed=1)
    action = int(game.legal_actions()[0])
    inside, leave = threading.Event(), threading.Event()
    holder = threading.Thread(target=_locked_call, args=(game, lambda: (inside.set(), leave.wait(30))))
    holder.start()
    assert inside.wait(30)
    done: list[Any] = []
    special = {"step": lambda: game.step(action), "observation": lambda: game.observation(1)}
    work = special.get(call, getattr(game, call))
    caller = threading.Thread(target=lambda: done.append(work()))
    caller.start()
    caller.join(timeout=0.5)
    assert caller.is_alive() and not done and game.decision_count == 0  # waiting for the lock
    leave.set()
    holder.join(timeout=30)
    caller.join(timeout=30)
    assert done and int(game._busy[0]) == 0
    if call == "step":
        assert game.decision_count == 1
    else:
        reference = Game.new("italia", 2, seed=1)
        expected = reference.observation(1) if call == "observation" else getattr(reference, call)()
        assert np.array_equal(done[0], expected)


def test_a_lock_free_call_inside_its_own_thread_s_locked_call_runs() -> None:
    """The lock is reentrant, and so is the lock-free path: a thread's own locked call does not block it."""
    game = Game.new("italia", 2, seed=1)
    legal: list[np.ndarray] = []

    def inside() -> None:
        legal.append(game.legal_actions())
        game.step(int(legal[0][0]))
        legal.append(game.legal_mask())
        legal.append(game.observation(0))

    _locked_call(game, inside)
    assert game.decision_count == 1 and int(game._busy[0]) == 0
    assert np.array_equal(np.flatnonzero(legal[1]), game.legal_actions())
    assert np.array_equal(legal[2], game.observation(0))


def test_a_refused_step_leaves_no_locked_call_counted() -> None:
    game = Game.new("italia", 2, seed=1)
    illegal = int(np.flatnonzero(~game.legal_mask())[0])
    with pytest.raises(IllegalActionError):
        game.step(illegal)
    assert int(game._busy[0]) == 0 and game.decision_count == 0
    game.step(int(game.legal_actions()[0]))  # and the fast path runs again
    assert game.decision_count == 1


def test_two_threads_stepping_one_options_level_env_see_each_decision_s_own_options() -> None:
    """The env's option arrays change under the batch's lock with the rows they describe.

    Each thread reads the option masks and steps a kept option of every row. Without the
    lock, a thread's step could read options of one decision beside rows of another: the
    batch then refused "an action of another decision", or took an option whose action was
    illegal. With it, a stale choice is at worst an option the current decision does not
    have ("is masked"), and every kept option is an action of its row's decision.
    """
    from concordia_env import ConcordiaVectorEnv

    env = ConcordiaVectorEnv(8, opponents="heuristic", level="options", max_options=16, seed=4)
    env.reset()
    refusals: list[str] = []

    def stepper(k: int) -> None:
        rng = np.random.default_rng(k)
        for _ in range(150):
            masks = env.action_masks()
            options = np.array([rng.choice(np.flatnonzero(row)) for row in masks])
            try:
                env.step(options)
            except IllegalActionError as err:
                refusals.append(str(err))

    assert _together([lambda: stepper(0), lambda: stepper(1)]) == []
    assert len(refusals) < 300, "the threads did step"
    assert all("is masked" in refusal for refusal in refusals), [r for r in refusals if "is masked" not in r][:3]
    legal, options = env.games.legal_masks(), env.options
    assert options is not None
    for row in range(env.num_envs):
        count = int(options.counts[row])
        assert count > 0 and legal[row, options.plans[row, :count, 0]].all(), row
