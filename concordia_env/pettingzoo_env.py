"""Concordia as a PettingZoo AEC environment (``concordia_v1``).

| | |
| --- | --- |
| Creation | ``from concordia_env import env; e = env(map="imperium", num_players=4)`` |
| Agents | ``["player_0", ..., "player_{n-1}"]``, 2-5 depending on the map |
| Action space | ``Discrete(NUM_ACTIONS)`` for every map and player count (see :mod:`concordia_env.actions`) |
| Observation space | ``Dict(observation=Box(float32, (OBS_SIZE,)), action_mask=Box(int8 0/1, (NUM_ACTIONS,)))`` |
| Versions | ``observation_version=1`` (default, ``concordia_v1``) or ``0`` (``concordia_v0``), see below |
| Parallel API | No (``is_parallelizable`` is False: one decision at a time) |
| Render modes | ``"ansi"`` (text board), ``"rgb_array"`` (board picture), ``"human"`` (window) |

Turn order
----------
``agent_selection`` is the engine's ``current_player``: normally the player whose turn it
is, but when goods produced by a Prefect overflow *another* player's storehouse, that
player is selected to choose which goods to keep, and the turn then goes on. A turn may
consist of several decisions (play a card, then its parts: Architect moves and builds,
Mercator trades, ...), so the same agent is often selected several times in a row.

Observation
-----------
``observe(agent)`` is ``{"observation": observe(game, p, observation_version), "action_mask": mask}``
from that agent's point of view (players rotated so the agent is seat 0; every field is
documented in ``docs/observation.md`` and :mod:`concordia_env.observation`). The mask is
the legal actions (int8 0/1) for the selected agent and all zeros for the others, like
PettingZoo's classic games. ``infos[agent]`` carries the same ``"action_mask"`` and the
decision ``"phase"`` name; once the game is over it also has ``"score_breakdown"`` (the
agent's VP per category), ``"final_scores"`` (``{agent: VP}``) and ``"winner"`` (an agent
name, after the tie-break of RULES §7).

Rewards
-------
``reward=`` chooses one of these (all players get a reward at every step; for the
terminal kinds it is 0 until the game is over):

| ``reward`` | paid | value for player p |
| --- | --- | --- |
| ``"win"`` (default) | at the end | +1 for the winner, −1/(n−1) for every other player |
| ``"rank"`` | at the end | 1 − 2·rank/(n−1) for final rank 0 (first) … n−1 (last), tie-break included |
| ``"vp"`` | at the end | (VP of p − best VP of the others) / 100 |
| ``"score_delta"`` | every step | change of ``score_breakdown(p)["total"]`` since the previous step |

Summed over a whole game, a player's rewards are: for ``"win"``, +1 (winner) or
−1/(n−1); for ``"rank"``, +1 (first) down to −1 (last); for ``"vp"``, the VP margin / 100;
for ``"score_delta"`` (which starts from 0 before the first step), exactly the player's
final VP. The terminal kinds sum to 0 over all players except ``"vp"``.

``score_breakdown`` counts the position "as if the game ended now", so the dense reward
includes Vesta's money VP and the Concordia card as soon as they count.

Illegal actions
---------------
``illegal_action="raise"`` (default): an illegal action raises the engine's
:class:`~concordia_env.IllegalActionError` and changes nothing. ``illegal_action="penalize"``
behaves like PettingZoo's ``TerminateIllegalWrapper`` (classic games): the game ends for
everyone at once, the offender's reward is −1 and everyone else's 0 for that step (its
pending cumulative reward is dropped, the others keep theirs), every agent's termination
and truncation are True, and ``infos[offender]["illegal_action"]`` holds the error
message. An action outside ``0..NUM_ACTIONS-1`` fails the ``AssertOutOfBoundsWrapper``
of :func:`env` (``raw_env`` treats it as illegal).

Seeding
-------
``reset(seed=s)`` sets up exactly ``Game.new(map, num_players, seed=s, **game_options)``
and reseeds the generator that draws the seeds of later ``reset()`` calls; ``reset()``
without a seed draws the next game from that generator, which the constructor's ``seed``
starts (``None``: fresh entropy). Games end by the rules alone (no ``max_cycles``).

Options
-------
``map`` ("imperium", "italia", "aegyptus", "creta"), ``num_players`` (the map's range),
``reward``, ``illegal_action``, ``render_mode``, ``seed``, ``observation_version``, and the
engine's game options (``intermediate_scoring=True``, ``display_costs="alternative"``,
``start_player=k``). ``env.unwrapped.game`` is the engine :class:`~concordia_env.Game`.

Version history
---------------
``metadata["name"]`` is ``concordia_v{observation_version}``; ``observation_version=0``
reproduces the v0 observation (the first ``OBS_SIZE_V0`` entries of v1). v1 appends
``COLONIST_SLOTS`` (see :mod:`concordia_env.observation`): a MOVE action names a colonist
*slot*, which v0 does not show.

| version | observation length | change |
| --- | ---: | --- |
| v1 (current) | ``OBS_SIZE_V1`` | the observation shows where each of the agent's colonist slots stands |
| v0 | ``OBS_SIZE_V0`` | initial release |
"""

from __future__ import annotations

from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .actions import NUM_ACTIONS
from .errors import IllegalActionError
from .game import Game
from .observation import (
    OBS_SIZES,
    OBSERVATION_VERSION,
    check_observation_version,
    observation_bounds,
    observe,
    player_scores,
)

REWARDS: tuple[str, ...] = ("win", "rank", "vp", "score_delta")
ILLEGAL_ACTION_MODES = ("raise", "penalize")
RENDER_MODES = ["human", "ansi", "rgb_array"]
#: reward of an illegal action with illegal_action="penalize" (TerminateIllegalWrapper's illegal_reward)
ILLEGAL_REWARD = -1.0
#: VP difference that counts as 1 in the "vp" reward
VP_REWARD_SCALE = 100.0
RENDER_FPS = 2


# --------------------------------------------------------------------------- rewards
def check_reward(reward: str) -> str:
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}; got {reward!r}")
    return reward


def final_rewards(game: Game, reward: str) -> np.ndarray:
    """Every player's terminal reward of a finished game (0 for the dense "score_delta")."""
    n = game.num_players
    out = np.zeros(n, dtype=np.float64)
    if reward == "win":
        out[:] = -1.0 / (n - 1)
        out[game.winner()] = 1.0
    elif reward == "rank":
        for rank, p in enumerate(game.ranking()):
            out[p] = 1.0 - 2.0 * rank / (n - 1)
    elif reward == "vp":
        scores = game.final_scores().astype(np.float64)
        for p in range(n):
            out[p] = (scores[p] - np.delete(scores, p).max()) / VP_REWARD_SCALE
    return out


class Rewarder:
    """Turns the positions of one game into rewards for the chosen ``reward`` kind.

    ``after(game)`` returns every player's reward earned since the previous call (or since
    ``reset``): the score change for "score_delta", the terminal reward once the game is
    over for the others. Calling it once after several steps gives the sum of calling it
    after each, which is what the single-agent wrapper relies on between learner moves.
    """

    def __init__(self, reward: str) -> None:
        self.reward = check_reward(reward)
        self._scores = np.zeros(0, dtype=np.int64)
        self._nothing = np.zeros(0, dtype=np.float64)
        self._paid = False

    def reset(self, num_players: int) -> None:
        self._scores = np.zeros(num_players, dtype=np.int64)
        self._nothing = np.zeros(num_players, dtype=np.float64)
        self._nothing.setflags(write=False)
        self._paid = False

    def after(self, game: Game) -> np.ndarray:
        if self.reward == "score_delta":
            scores = player_scores(game)
            delta = (scores - self._scores).astype(np.float64)
            self._scores = scores
            return delta
        if game.is_over() and not self._paid:
            self._paid = True
            return final_rewards(game, self.reward)
        return self._nothing  # read-only: every step before the end shares it


# --------------------------------------------------------------------------- rendering
def render_game(game: Game, mode: str | None, viewer: Any) -> tuple[Any, Any]:
    """Render ``game`` in ``mode``; returns (what render() returns, the human viewer to keep)."""
    if mode is None:
        gymnasium.logger.warn("render() was called without a render_mode; pass render_mode= to the constructor.")
        return None, viewer
    if mode == "ansi":
        from .render import render_text

        return render_text(game), viewer
    if mode == "rgb_array":
        from .render import render_rgb

        return render_rgb(game), viewer
    from .render import HumanViewer

    if viewer is None:
        viewer = HumanViewer()
    viewer.render(game)
    return None, viewer


def check_render_mode(render_mode: str | None) -> str | None:
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be None or one of {', '.join(RENDER_MODES)}; got {render_mode!r}")
    return render_mode


# --------------------------------------------------------------------------- the env
class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo's naming convention)
    """The unwrapped AEC environment; use :func:`env` for the standard wrappers."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES,
        "name": f"concordia_v{OBSERVATION_VERSION}",
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }

    def __init__(
        self,
        map: str = "imperium",
        num_players: int = 4,
        render_mode: str | None = None,
        reward: str = "win",
        seed: int | None = None,
        illegal_action: str = "raise",
        observation_version: int = OBSERVATION_VERSION,
        **game_options: Any,
    ) -> None:
        EzPickle.__init__(
            self,
            map=map,
            num_players=num_players,
            render_mode=render_mode,
            reward=reward,
            seed=seed,
            illegal_action=illegal_action,
            observation_version=observation_version,
            **game_options,
        )
        super().__init__()
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise ValueError(f"illegal_action must be one of {ILLEGAL_ACTION_MODES}; got {illegal_action!r}")
        self.observation_version = check_observation_version(observation_version)
        self.metadata = {**raw_env.metadata, "name": f"concordia_v{self.observation_version}"}
        self.render_mode = check_render_mode(render_mode)
        self.illegal_action = illegal_action
        self._map_name = map
        self._num_players = num_players
        self._game_options = game_options
        self._rewarder = Rewarder(reward)
        # build one game now so that a bad map / player count / option fails at construction
        self.game = Game.new(map, num_players, seed=0, **game_options)
        self._seeds = np.random.default_rng(seed)
        self.possible_agents = [f"player_{p}" for p in range(num_players)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: self._make_observation_space() for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}
        self._no_actions = np.zeros(NUM_ACTIONS, dtype=np.int8)
        self._no_actions.setflags(write=False)
        self._mask = self._no_actions
        self._viewer: Any = None

    def _make_observation_space(self) -> spaces.Dict:
        low, high = observation_bounds(self.observation_version)
        return spaces.Dict(
            {
                "observation": spaces.Box(low, high, shape=(OBS_SIZES[self.observation_version],), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = seed
        else:
            game_seed = int(self._seeds.integers(2**63 - 1))
        self.game = Game.new(self._map_name, self._num_players, seed=game_seed, **self._game_options)
        self._rewarder.reset(self._num_players)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._select_decider()

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        try:
            self.game.step(action)
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise  # the env is unchanged: the game refused the action
            self._cumulative_rewards[agent] = 0.0
            self._penalize(agent, err)
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = self._rewarder.after(self.game)
        self.rewards = dict(zip(self.possible_agents, rewards.tolist(), strict=True))
        if self.game.is_over():
            self._finish()
        else:
            self._select_decider()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _select_decider(self) -> None:
        """Select the engine's current player and refresh the legal mask and infos."""
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._mask = self.game.legal_mask().astype(np.int8)
        phase = self.game.phase_name
        self.infos = {a: {"action_mask": self._mask_of(a), "phase": phase} for a in self.agents}

    def _mask_of(self, agent: str) -> np.ndarray:
        return self._mask if agent == self.agent_selection else self._no_actions

    def _finish(self) -> None:
        """The game is over: everyone terminates; infos get the scores. The last mover sees it first."""
        game = self.game
        final = {a: int(v) for a, v in zip(self.possible_agents, game.final_scores(), strict=True)}
        winner = self.possible_agents[game.winner()]
        self._mask = self._no_actions
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {
            a: {
                "action_mask": self._no_actions,
                "phase": game.phase_name,
                "score_breakdown": game.score_breakdown(p),
                "final_scores": final,
                "winner": winner,
            }
            for a, p in self._seat.items()
        }

    def _penalize(self, agent: str, err: IllegalActionError) -> None:
        """TerminateIllegalWrapper semantics: end for all, −1 to the offender, 0 to the others."""
        self._mask = self._no_actions
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_REWARD
        for a in self.agents:
            self.infos[a] = {"action_mask": self._no_actions, "phase": self.game.phase_name}
        self.infos[agent]["illegal_action"] = str(err)
        self._accumulate_rewards()
        self._deads_step_first()

    # ------------------------------------------------------------------ views
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = observe(self.game, self._seat[agent], self.observation_version)
        return {"observation": observation, "action_mask": self._mask_of(agent)}

    def state(self) -> np.ndarray:
        """The engine state array (a copy): the complete, perfect-information state."""
        return self.game.state.copy()

    def render(self) -> Any:
        out, self._viewer = render_game(self.game, self.render_mode, self._viewer)
        return out

    def close(self) -> None:
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None


def env(
    map: str = "imperium",
    num_players: int = 4,
    render_mode: str | None = None,
    reward: str = "win",
    seed: int | None = None,
    illegal_action: str = "raise",
    observation_version: int = OBSERVATION_VERSION,
    **game_options: Any,
) -> AECEnv:
    """The AEC env with PettingZoo's standard wrappers (out-of-bounds assert, order enforcing)."""
    e: AECEnv = raw_env(
        map=map,
        num_players=num_players,
        render_mode=render_mode,
        reward=reward,
        seed=seed,
        illegal_action=illegal_action,
        observation_version=observation_version,
        **game_options,
    )
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)
