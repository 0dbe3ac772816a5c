"""Every env form starts from a position, at both levels, and handles the hard ones alike.

* ``SB3VecEnv`` takes ``reset(options={"position": p})`` and SB3's ``env.set_options``;
* a position whose game the opponents end before the learner decides ends the episode at
  once with its real result (the vector forms: at ``reset``, the row then plays its next
  game; ``SingleAgentEnv``: at the first step, whose action is not read);
* a ``Game`` built from an edited state with ``with_state(state, check=False)`` is refused
  at ``reset`` with one ``PositionError`` line, nothing changed, never a crash.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np
import pytest

from concordia_env import ConcordiaVectorEnv, Game, SingleAgentEnv, env, parallel_env
from concordia_env.agents.heuristic import HeuristicAgent
from concordia_env.engine import state as S
from concordia_env.engine.position import PositionError
from concordia_env.envs.rewards import final_rewards
from concordia_env.envs.sb3 import SB3VecEnv

LEVELS = ["flat", "options"]
ROWS = 4
K = 16


def forms(level: str) -> dict[str, Any]:
    """The constructor options shared by the forms below (heuristic opponents, 2-player Italia)."""
    options = {"opponents": "heuristic", "level": level, "map": "italia", "num_players": 2}
    return {**options, "max_options": K} if level == "options" else options


@cache
def played(seed: int = 3) -> tuple[Game, ...]:
    """Every position of a heuristic game, in order, the finished game last."""
    game, agent, seen = Game.new("italia", 2, seed=seed), HeuristicAgent(seed=0), []
    while not game.is_over():
        seen.append(game.clone())
        game.step(agent.act(game))
    return (*seen, game)


def last_turn() -> tuple[Game, int]:
    """The start of the last player's closing streak of decisions, and the seat that has no decision left."""
    positions = played()[:-1]
    last = positions[-1].current_player
    i = len(positions) - 1
    while positions[i - 1].current_player == last:
        i -= 1
    return positions[i], 1 - last


def midgame() -> Game:
    return played()[40]


def edited(current_player: int) -> Game:
    """A game whose state was edited past the state check (``with_state(check=False)``)."""
    game = midgame()
    state = game.state.copy()
    state[S.CURRENT_PLAYER] = current_player
    return game.with_state(state, check=False)


# --------------------------------------------------------------------------- SB3VecEnv from a position
@pytest.mark.parametrize("level", LEVELS)
def test_sb3_vec_env_starts_from_a_position_both_ways(level: str) -> None:
    game = midgame()
    venv = SB3VecEnv(ROWS, seed=5, **forms(level))
    for start in ("reset", "set_options"):
        if start == "reset":
            venv.reset(options={"position": game.to_json()})
        else:
            venv.set_options({"position": game})
            venv.reset()
        for row in range(ROWS):
            row_game = venv.env.games.game(row)
            assert row_game.turn_count >= game.turn_count > 1, (start, row)
            if venv.env.games.learner_seats[row] == game.current_player:
                assert row_game == game, "the learner decides first: the row is the position itself"
        venv.reset()  # the options served one reset: the next starts new games
        assert all(venv.env.games.game(row).turn_count <= 1 for row in range(ROWS))


def test_sb3_set_options_refuses_one_position_per_row_and_a_bad_position_changes_nothing() -> None:
    venv = SB3VecEnv(2, seed=5, **forms("flat"))
    venv.reset()
    states = venv.env.games.states.copy()
    venv.set_options([{"position": played()[10]}, {"position": played()[11]}])
    with pytest.raises(ValueError, match="one position"):
        venv.reset()
    venv.set_options({"position": Game.new("italia", 4, seed=0)})
    with pytest.raises(PositionError, match="this env plays 2-player italia"):
        venv.reset()
    with pytest.raises(PositionError, match="this env plays 2-player italia"):
        venv.reset()  # a refused reset keeps its options
    assert np.array_equal(venv.env.games.states, states)
    venv.set_options(None)
    venv.reset()


# --------------------------------------------------------------------------- the game ends before the learner decides
@pytest.mark.parametrize("level", LEVELS)
def test_single_agent_env_ends_such_an_episode_at_its_first_step_with_the_real_result(level: str) -> None:
    position, seat = last_turn()
    for reward in ("win", "vp"):
        env_ = SingleAgentEnv(seat=seat, reward=reward, **forms(level))
        _, info = env_.reset(seed=0, options={"position": position})
        assert env_.game.is_over() and not env_.action_masks().any()
        scores = env_.game.final_scores()
        assert np.array_equal(info["final_scores"], scores) and info["winner"] == env_.game.winner()
        obs, paid, terminated, truncated, info = env_.step(12345)  # any action: it is not read
        assert terminated and not truncated and np.array_equal(info["final_scores"], scores)
        assert paid == final_rewards(env_.game, reward)[seat] != 0.0
        assert env_.observation_space.contains(obs)


@pytest.mark.parametrize("level", LEVELS)
def test_vector_forms_end_such_a_row_at_reset_and_start_its_next_game(level: str) -> None:
    position, seat = last_turn()
    vec = ConcordiaVectorEnv(ROWS, seed=7, **forms(level))
    _, infos = vec.reset(options={"position": position})
    ended = np.array([(row % 2) == seat for row in range(ROWS)])  # row i's first game seats the learner at i % 2
    assert np.array_equal(infos["_final_info"], ended) and np.array_equal(infos["_final_obs"], ended)
    for row in np.flatnonzero(ended):
        assert infos["final_info"]["learner_seat"][row] == seat and infos["final_info"]["seed"][row] == 7 + row
        assert infos["final_info"]["final_scores"][row].sum() > 0 and infos["final_info"]["winner"][row] >= 0
        assert vec.games.game_counts[row] == 1 and vec.games.game(row).turn_count <= 1  # its next game
    assert vec.action_masks().any(axis=1).all(), "every row has a decision"
    assert (vec.action_space.sample() >= 0).all()
    rng = np.random.default_rng(0)
    for _ in range(5):  # and the batch steps on
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.action_masks()]))

    venv = SB3VecEnv(ROWS, seed=7, **forms(level))
    venv.set_options({"position": position})
    venv.reset()
    for row in range(ROWS):
        assert ("final_info" in venv.reset_infos[row]) == ended[row]
        assert ("terminal_observation" in venv.reset_infos[row]) == ended[row]
    assert venv.action_masks().any(axis=1).all()


def test_pettingzoo_has_no_learner_seat_so_the_position_s_current_agent_decides() -> None:
    position, _ = last_turn()
    aec = env(map="italia", num_players=2)
    aec.reset(seed=0, options={"position": position})
    observation, _, termination, _, _ = aec.last()
    assert not termination and observation["action_mask"].any()
    assert aec.agent_selection == f"player_{position.current_player}"


# --------------------------------------------------------------------------- an edited game is checked at reset
@pytest.mark.parametrize("current_player", [7, 2, -5, 100000])
@pytest.mark.parametrize("level", LEVELS)
def test_an_edited_game_is_refused_in_one_line_by_every_form(level: str, current_player: int) -> None:
    bad = edited(current_player)
    match = rf"Game whose state is no position: state CURRENT_PLAYER \(entry \d+\) is {current_player}"
    single = SingleAgentEnv(seat=0, **forms(level))
    single.reset(seed=1)
    state = single.game.state.copy()
    vec = ConcordiaVectorEnv(ROWS, seed=1, **forms(level))
    states = vec.games.states.copy()
    venv = SB3VecEnv(ROWS, seed=1, **forms(level))
    venv.reset()
    aec = env(map="italia", num_players=2, level=level)
    aec.reset(seed=1)
    parallel = parallel_env(map="italia", num_players=2, level=level)
    parallel.reset(seed=1)
    for reset in (
        lambda: single.reset(seed=2, options={"position": bad}),
        lambda: vec.reset(seed=2, options={"position": bad}),
        lambda: venv.reset(options={"position": bad}),
        lambda: aec.reset(seed=2, options={"position": bad}),
        lambda: parallel.reset(seed=2, options={"position": bad}),
    ):
        with pytest.raises(PositionError, match=match) as caught:
            reset()
        assert "\n" not in str(caught.value)
    assert np.array_equal(single.game.state, state) and np.array_equal(vec.games.states, states)
    single.step(int(np.flatnonzero(single.action_masks())[0]))  # nothing changed: the episodes go on
