"""One ``Game`` or ``VectorGame`` shared by two threads stays a valid game.

The compiled rules release the GIL, so two threads calling one object used to interleave
inside its state: a step checked against a position the other thread had just changed left
rows with negative goods or money, or a colonist index of -2, and every later step raised.
Every public method now holds the object's lock (``concordia_env.engine.serial``): the calls
run one after another. A thread that chose its action before the other stepped is refused
like any illegal action, and changes nothing.
"""

from __future__ import annotations

import threading

import numpy as np

from concordia_env import Game, IllegalActionError
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


def test_the_per_decision_calls_lock_inline_and_every_other_public_method_is_wrapped() -> None:
    """Game's hot path holds the lock in its own body (a wrapper's call frame cost the bare engine 60%)."""
    import inspect

    from concordia_env import Game

    for name in Game.LOCKS_INLINE:
        method = vars(Game)[name]
        assert not hasattr(method, "__wrapped__") and "lock.acquire()" in inspect.getsource(method), name
    wrapped = [
        name
        for name, value in vars(Game).items()
        if inspect.isfunction(value) and not name.startswith("_") and name not in (*Game.LOCKS_INLINE, *Game.LOCK_FREE)
    ]
    assert wrapped and all(hasattr(vars(Game)[name], "__wrapped__") for name in wrapped)


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
