"""The batch's entry points agree on what an integer is, and a refused call changes nothing.

``VectorGame.restart`` refuses floats, bools and strings as every other entry point does
(it used to restart row 0 for ``[0.9]`` and row 1 for ``[True]``); an object array of numpy
integers is integers; ``ConcordiaVectorEnv.reset(seed=np.arange(n))`` is the list of those
seeds; ``SB3VecEnv.seed`` refuses a seed the batch would refuse, at once; ``step_wait`` does
not send refused actions again; an unseeded vector env stepped before ``reset()`` does not
play the seed-0 games.
"""

from __future__ import annotations

import numpy as np
import pytest

from concordia_env import IllegalActionError
from concordia_env.engine.errors import ArgumentTypeError
from concordia_env.envs.vector_env import ConcordiaVectorEnv
from concordia_env.envs.vector_game import VectorGame


def _snapshot(vec: VectorGame) -> tuple[np.ndarray, np.ndarray]:
    return vec.states.copy(), vec.game_counts.copy()


@pytest.mark.parametrize("rows", [[0.9], [True], "2", np.array([1.0]), [None], [1, "1"], np.array([True, False])])
def test_restart_refuses_what_is_not_an_integer_and_changes_nothing(rows: object) -> None:
    vec = VectorGame(3, map="italia", num_players=2, seed=1)
    states, counts = _snapshot(vec)
    with pytest.raises(ArgumentTypeError, match="rows must be integers"):
        vec.restart(rows)  # type: ignore[arg-type]
    assert np.array_equal(vec.states, states) and np.array_equal(vec.game_counts, counts)


def test_restart_takes_integers_of_every_kind_and_refuses_rows_out_of_range() -> None:
    vec = VectorGame(3, map="italia", num_players=2, seed=1)
    vec.restart([np.int64(1)])
    vec.restart(np.array([np.uint8(2), 1], dtype=object))
    vec.restart(np.array([0], dtype=np.uint64))
    assert vec.game_counts.tolist() == [1, 2, 1]
    states, counts = _snapshot(vec)
    for rows in ([3], [-1], [2**70], np.array([2**64 - 1], dtype=np.uint64)):
        with pytest.raises(ValueError, match=r"rows must be in 0\.\.2"):
            vec.restart(rows)
    assert np.array_equal(vec.states, states) and np.array_equal(vec.game_counts, counts)


def test_an_object_array_of_numpy_integers_is_integers() -> None:
    one, two = (VectorGame(4, map="italia", num_players=2, seed=5) for _ in range(2))
    actions = one.sample_actions(np.random.default_rng(0))
    one.step(actions)
    two.step(np.array([np.int32(a) for a in actions], dtype=object))
    assert np.array_equal(one.states, two.states)
    states = two.states.copy()
    with pytest.raises(IllegalActionError, match="actions must be integers"):
        two.step(np.array([np.float64(a) for a in two.sample_actions(np.random.default_rng(1))], dtype=object))
    assert np.array_equal(two.states, states)


def test_reset_takes_an_array_of_seeds_as_the_list_of_them() -> None:
    env = ConcordiaVectorEnv(3, opponents="random", seed=None)
    from_list, _ = env.reset(seed=[4, 5, 6])
    from_array, _ = env.reset(seed=np.arange(4, 7))
    assert np.array_equal(from_list, from_array) and env.games.seed == 4
    with pytest.raises(ArgumentTypeError):
        env.reset(seed=np.array([4.0, 5.0, 6.0]))


def test_an_unseeded_env_stepped_before_reset_does_not_play_the_seed_0_games() -> None:
    seeds = {ConcordiaVectorEnv(2, opponents="random").games.seed for _ in range(3)}
    assert 0 not in seeds and len(seeds) == 3
    assert ConcordiaVectorEnv(2, opponents="random", seed=9).games.seed == 9


def test_sb3_seed_is_checked_at_once_and_step_wait_does_not_resend_refused_actions() -> None:
    pytest.importorskip("stable_baselines3")
    from concordia_env.envs.sb3 import SB3VecEnv

    venv = SB3VecEnv(2, opponents="random", seed=3)
    for bad, error in ((-1, ValueError), (2**63, ValueError), ("x", ArgumentTypeError), (1.5, ArgumentTypeError)):
        with pytest.raises(error, match="seed"):
            venv.seed(bad)  # type: ignore[arg-type]
    first = venv.reset()  # the constructor's seed is still the pending one
    assert venv.env.games.seed == 3
    venv.seed(np.int64(3))
    assert np.array_equal(venv.reset(), first)
    states = venv.env.games.states.copy()
    venv.step_async(np.array([768, 768]))
    with pytest.raises(IllegalActionError):
        venv.step_wait()
    with pytest.raises(RuntimeError, match="without step_async"):
        venv.step_wait()  # the refused actions are not pending any more
    assert np.array_equal(venv.env.games.states, states)
