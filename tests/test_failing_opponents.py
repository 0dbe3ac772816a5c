"""``SingleAgentEnv`` contains an opponent's failure.

Before: after an opponent raised, ``current_player`` was the opponent's seat, the mask no
longer matched the game, and the next ``env.step(a)`` applied the learner's action for the
opponent; the error was the opponent's bare exception; with ``illegal_action="penalize"``
an opponent's illegal action was charged to the learner; opponents got the env's own game.
"""

from __future__ import annotations

import pickle
from typing import Any

import gymnasium
import numpy as np
import pytest

from concordia_env import Game, IllegalActionError, OpponentError, ResetNeededError
from concordia_env.envs import opponents
from concordia_env.envs.gym_env import SingleAgentEnv


@pytest.fixture(autouse=True)
def _registry_restored():
    """Names registered by a test do not outlive it."""
    builders = dict(opponents._BUILDERS)
    yield
    opponents._BUILDERS.clear()
    opponents._BUILDERS.update(builders)


class RaisesOnCall:
    """Plays the first legal action, and raises on its ``fail_at``-th call."""

    def __init__(self, fail_at: int) -> None:
        self.fail_at = fail_at
        self.calls = 0

    def reset(self, seed: int | None = None) -> None:
        self.calls = 0

    def act(self, game: Game) -> int:
        self.calls += 1
        if self.calls == self.fail_at:
            raise KeyError("the opponent's own bug")
        return int(game.legal_actions()[0])

    def __repr__(self) -> str:
        return f"RaisesOnCall({self.fail_at})"


def first_legal(env: Any) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


def play_until_error(env: SingleAgentEnv) -> BaseException:
    """Step with legal actions until something raises (an episode must not end first)."""
    for _ in range(1000):
        try:
            env.step(first_legal(env))
        except Exception as err:
            return err
    raise AssertionError("nothing failed")


def test_an_opponent_that_raises_on_its_fifth_call_breaks_the_episode() -> None:
    """The reproducer: the 5th call raises; the error names seat and spec; every later step needs a reset."""
    env = SingleAgentEnv(opponents=RaisesOnCall(5), seat=0, map="italia", num_players=2, start_player=0)
    env.reset(seed=1)
    err = play_until_error(env)
    assert isinstance(err, OpponentError) and not isinstance(err, IllegalActionError)
    assert err.seat == 1 and err.spec == "RaisesOnCall(5)"
    assert "seat 1" in str(err) and "RaisesOnCall(5)" in str(err) and "KeyError" in str(err)
    assert isinstance(err.__cause__, KeyError)
    assert not env.action_masks().any()
    state = env.game.state.copy()
    for action in (first_legal_of(env.game), 0, 5):
        with pytest.raises(ResetNeededError, match=r"seat 1 \(RaisesOnCall\(5\)\) failed"):
            env.step(action)
    assert np.array_equal(env.game.state, state), "a refused step changed the game"
    _, info = env.reset(seed=2)  # a reset starts over
    assert env.game.current_player == env.seat and info["action_mask"].any()
    env.step(first_legal(env))


def first_legal_of(game: Game) -> int:
    legal = game.legal_actions()
    return int(legal[0]) if len(legal) else 0


def test_a_failure_during_reset_breaks_the_episode_too() -> None:
    """The opponent moves first (start_player=1) and raises at once: reset raises, step needs another reset."""
    env = SingleAgentEnv(opponents=RaisesOnCall(1), seat=0, map="italia", num_players=2, start_player=1)
    with pytest.raises(OpponentError, match="seat 1"):
        env.reset(seed=0)
    with pytest.raises(ResetNeededError):
        env.step(0)
    assert not env.action_masks().any()


@pytest.mark.parametrize("illegal_action", ["raise", "penalize"])
def test_an_opponents_illegal_action_is_not_the_learners(illegal_action: str) -> None:
    """With "penalize" the opponent's IllegalActionError was charged to the learner (reward -1, terminated)."""

    def illegal(game: Game) -> int:
        return int(np.flatnonzero(~game.legal_mask())[0])

    env = SingleAgentEnv(
        opponents=illegal, seat=0, map="italia", num_players=2, illegal_action=illegal_action, start_player=0
    )
    env.reset(seed=3)
    err = play_until_error(env)
    assert isinstance(err, OpponentError) and not isinstance(err, IllegalActionError)
    assert "seat 1" in str(err) and "illegal action" in str(err) and "illegal" in err.spec
    assert isinstance(err.__cause__, IllegalActionError)
    with pytest.raises(ResetNeededError):
        env.step(first_legal_of(env.game))


@pytest.mark.parametrize("answer", [1.5, None, "3", np.array([1, 2]), 2**70, True, object()])
def test_an_opponent_answering_no_action_fails_as_the_opponent(answer: Any) -> None:
    """Odd types never become actions: 1.5 is not truncated to 1 (the callable wrapper did int())."""
    env = SingleAgentEnv(opponents=lambda game: answer, seat=0, map="italia", num_players=2, start_player=0)
    env.reset(seed=4)
    err = play_until_error(env)
    assert isinstance(err, OpponentError) and "seat 1" in str(err)
    assert isinstance(err.__cause__, IllegalActionError)
    assert env.game.current_player == 1  # the opponent's decision, still open: nothing was played for it


def test_opponents_act_on_a_clone() -> None:
    """An opponent that plays on the game it is given changes only its copy."""
    seen: list[Game] = []

    def meddler(game: Game) -> int:
        seen.append(game)
        action = int(game.legal_actions()[0])
        game.step(action)  # on the env's own game this would play twice
        return action

    env = SingleAgentEnv(opponents=meddler, seat=0, map="italia", num_players=2)
    env.reset(seed=5)
    reference = SingleAgentEnv(opponents=lambda g: int(g.legal_actions()[0]), seat=0, map="italia", num_players=2)
    reference.reset(seed=5)
    for _ in range(30):
        action = first_legal(env)
        env.step(action)
        reference.step(action)
        assert env.game == reference.game
    assert seen and all(g is not env.game for g in seen)


class FailsInEpisode:
    """Registered by name: plays randomly, and raises in its ``episode``-th episode (counted by resets)."""

    def __init__(self, episode: int) -> None:
        self.episode = episode
        self.episodes = 0
        self.rng = np.random.default_rng(0)

    def reset(self, seed: int | None = None) -> None:
        self.episodes += 1
        self.rng = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        if self.episodes == self.episode:
            raise RuntimeError(f"broken in episode {self.episodes}")
        return int(self.rng.choice(game.legal_actions()))


def test_a_registered_opponent_failing_in_episode_50_under_gymnasium_make() -> None:
    opponents.register("flaky", lambda spec: FailsInEpisode(int(spec.partition(":")[2])))
    env = gymnasium.make("Concordia-v1", opponents="flaky:50", map="italia", num_players=2, seat=0, max_turns=8)
    rng = np.random.default_rng(0)
    failure = None
    for episode in range(1, 51):
        env.reset(seed=episode)
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            try:
                _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            except OpponentError as err:
                failure = (episode, err)
                break
            done = terminated or truncated
        if failure:
            break
    assert failure is not None and failure[0] == 50
    err = failure[1]
    assert err.seat == 1 and err.spec == "flaky:50" and "broken in episode 50" in str(err)
    assert isinstance(err.__cause__, RuntimeError)
    with pytest.raises(ResetNeededError, match=r"flaky:50"):
        env.step(0)
    env.reset(seed=51)  # the next episode plays again (the opponent counts it as its 51st)
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))


def test_opponent_errors_pickle() -> None:
    """Vector envs re-raise a worker's error in the parent: it must keep its seat and spec."""
    err = OpponentError("the opponent in seat 2 (heuristic) failed", 2, "heuristic")
    again = pickle.loads(pickle.dumps(err))
    assert (str(again), again.seat, again.spec) == (str(err), 2, "heuristic")
    assert isinstance(again, RuntimeError)
