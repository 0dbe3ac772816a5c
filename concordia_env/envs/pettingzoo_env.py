"""Concordia as a PettingZoo AEC environment (``concordia_v1``).

| | |
| --- | --- |
| Creation | ``from concordia_env import env; e = env(map="imperium", num_players=4)`` |
| Agents | ``["player_0", ..., "player_{n-1}"]``, 2-5 depending on the map; agent ``player_k`` is seat k |
| Action space | ``Discrete(NUM_ACTIONS)`` for every map and player count (see :mod:`concordia_env.engine.actions`) |
| Observation space | ``Dict(observation=Box(float32, (OBS_SIZE,)), action_mask=Box(int8 0/1, (NUM_ACTIONS,)))`` |
| State space | ``Box(int32, (STATE_SIZE,))``: ``state()`` is the engine's state array |
| Parallel API | ``parallel_env()``: the turn-based route (``pettingzoo.utils.turn_based_aec_to_parallel``) |
| Render modes | ``"ansi"`` (text board), ``"rgb_array"`` (board picture), ``"human"`` (window) |
| Versions | ``observation_version=1`` (default, ``concordia_v1``) or ``0`` (``concordia_v0``), see below |
| Options level | ``level="options"``: ``Discrete(K)`` over the turn options, observation ``Dict(observation,`` |
| | ``options (K, F), action_mask (K,))``; see "Options level" and :mod:`concordia_env.envs.options_level` |

Turn order
----------
``agent_selection`` is the engine's ``current_player``: normally the player whose turn it
is, but when goods produced by a Prefect overflow *another* player's storehouse, that
player is selected to choose which goods to keep, and the turn then goes on. A turn may
consist of several decisions (play a card, then its parts: Architect moves and builds,
Mercator trades, ...), so the same agent is often selected several times in a row. Seat 0
is not necessarily first: the game's seed draws the start player unless the game option
``start_player=k`` fixes it.

Observation
-----------
``observe(agent)`` is ``{"observation": observe(game, p, observation_version), "action_mask": mask}``
from that agent's point of view (players rotated so the agent is seat 0; every field is
documented in ``docs/observation.md`` and :mod:`concordia_env.engine.observation`). The mask is
the legal actions (int8 0/1) for the selected agent and all zeros for the others, like
PettingZoo's classic games. PettingZoo's ``api_test`` warns that the observation is "not a
NumPy array" and that the observation space "probably should be" a Box: both are expected
for this ``{"observation", "action_mask"}`` dict, the convention of PettingZoo's own
classic games.

Options level
-------------
``level="options"`` (with ``max_options`` K, default 96, ``granularity`` ``"decision"`` or
``"turn"`` and ``features_version``, default 2; :mod:`concordia_env.envs.options_level`)
makes every agent choose among the turn options of its decision, the ``learned`` agent's
candidates: ``observe(agent)`` is ``{"observation", "options", "action_mask"}``, the options'
afterstate features (K, F) and their int8 mask for the selected agent, all zeros for the
others; the action is a kept option's index, refused like an illegal action when it is
masked or out of range. The options are computed once per decision, on a determinized copy
whose seed is drawn from ``numpy.random.default_rng(game seed)`` (one draw per decision), so
a seed fixes them and the hidden stack does not show. The infos add ``"option_actions"``
(int64 (K, 2): each kept option's first actions, -1 padded; all -1 for agents not selected)
and their ``"action_mask"`` is the option mask.

Infos
-----
Every ``infos[agent]`` has the same keys with the same types at every step, so that
libraries which stack infos into arrays (Tianshou's buffer, Gymnasium's vector envs) see
one schema. Values that mean something only once the game has ended by the rules are
typed placeholders until then:

| key | type | value |
| --- | --- | --- |
| ``"action_mask"`` | int8 array (NUM_ACTIONS,) | the same mask as in the observation |
| ``"phase"`` | str | the pending decision (``state.PHASE_NAMES``) |
| ``"score_breakdown"`` | dict str → int | the agent's VP per category at the end; all 0 before |
| ``"final_scores"`` | dict agent → int | every agent's final VP at the end; all 0 before |
| ``"winner"`` | str | the winning agent (tie-break of docs/rules.md §7) at the end; ``""`` before |
| ``"illegal_action"`` | str | with ``illegal_action="penalize"``, the offender's error message; ``""`` otherwise |

A truncated game (``max_cycles``, ``max_turns``) has no winner: its infos keep the
placeholders. (``parallel_env()``'s wrapper adds ``"active_agent"`` to the infos of live
agents.)

Rewards
-------
``reward=`` is one of ``"win"`` (default), ``"rank"``, ``"vp"`` and ``"score_delta"``; what
each pays, when, and what it sums to over a game is written once, in the table of
:mod:`concordia_env.envs.rewards` (shared by every env). Every agent gets a reward at every
step (the terminal kinds 0 until the game is over), and a truncated game pays no terminal
reward.

Illegal actions
---------------
``illegal_action="raise"`` (default): an illegal action raises the engine's
:class:`~concordia_env.IllegalActionError` and changes nothing. This holds for any value of
any type that reaches ``raw_env.step`` for a live agent: an illegal index, an index outside
``0..NUM_ACTIONS-1`` (``2**63`` included), ``None``, a float, a string.
``illegal_action="penalize"`` behaves like PettingZoo's ``TerminateIllegalWrapper`` (classic
games) for all of those: the game ends for everyone at once, the offender's reward is −1
and everyone else's 0 for that step (its pending cumulative reward is dropped, the others
keep theirs), every agent's termination and truncation are True, and
``infos[offender]["illegal_action"]`` holds the error message. A done agent's only action
is ``None`` (its dead step); any other value for it raises ``IllegalActionError`` in both
modes. :func:`env` and :func:`parallel_env` behave exactly like ``raw_env`` here: they do
not add PettingZoo's ``AssertOutOfBoundsWrapper`` (the classic games' ``AssertionError`` for
a value outside the action space), because ``raw_env`` checks every value itself and
``"penalize"`` must see every illegal value.

The action space's ``sample()`` without a mask draws a *legal* action for the selected
agent (uniform over the whole space for the others), so generic checkers that sample
blindly (``state_test``, RLlib's env check) play legal games.

Episode caps
------------
Games end by the rules alone unless a cap is given; the only-Tribune policy, for one,
never ends a game. ``max_cycles=k`` truncates every agent once ``k`` decisions (AEC steps
with an action, all agents together; ``game.decision_count``) have been played;
``max_turns=t`` once ``t`` turns are complete (``game.turn_count``, as in the Gymnasium
env). In ``parallel_env()`` one parallel step is one decision, so ``max_cycles`` is exactly
its number of parallel steps (PettingZoo's ``max_cycles`` convention). PettingZoo's
``max_cycles_test`` also expects, in the AEC env, every agent to act once per cycle, which
a game whose turns hold several decisions of one player cannot do; ``tests/test_pettingzoo_env.py``
checks the parallel half of that test as written and the AEC cap directly.

Lifecycle
---------
``step()`` before the first ``reset()`` raises :class:`~concordia_env.engine.errors.ResetNeededError`
and changes nothing (through :func:`env` too: its ``OrderEnforcingWrapper`` would raise an
``AssertionError``). After the end, each done agent is stepped with ``None`` (PettingZoo's
dead step) until ``agents`` is empty; a further ``step()`` then warns ("step() called after
all agents are terminated or truncated") and does nothing, as PettingZoo's
``OrderEnforcingWrapper`` does.

Seeding
-------
``reset(seed=s)`` sets up exactly ``Game.new(map, num_players, seed=s, **game_options)``
and reseeds the generator that draws the seeds of later ``reset()`` calls; ``reset()``
without a seed draws the next game from that generator, which the constructor's ``seed``
starts (``None``: fresh entropy).

Options
-------
``map`` ("imperium", "italia", "aegyptus", "creta"), ``num_players`` (the map's range),
``reward``, ``illegal_action``, ``render_mode``, ``seed``, ``observation_version``,
``max_cycles``, ``max_turns``, and the engine's game options (``intermediate_scoring=True``,
``display_costs="alternative"``, ``start_player=k``). ``env.unwrapped.game`` is the engine
:class:`~concordia_env.Game` (its ``state`` is read-only: see ``Game``, "Who owns the state").
``level``, ``max_options``, ``granularity`` and ``features_version`` (see "Options level").
Unless told: 2-player Italia and a fresh seed, the defaults of every form
(:mod:`concordia_env.engine.defaults`).
``reset(options={"position": p})`` starts the game from a copy of position ``p`` (a ``Game``,
its JSON text or dict), at both levels; one of another map or player count, of a finished
game, or a ``Game`` whose state fails the state check (built with ``with_state(state,
check=False)``), raises ``PositionError`` (a ``ValueError``), nothing changed. No other reset option is
read: a key that names one of the options above (``{"map": "imperium"}``) raises
``ValueError`` and a value that is not a dict ``ArgumentTypeError``, with nothing changed;
any other key gives a ``UserWarning`` that it is ignored, except the ``{"options": 1}`` that
PettingZoo's ``api_test`` passes to check the signature, taken silently (see
``envs.env_checks.check_reset_options``). No options and ``{}`` warn nothing.

Bad agent names
---------------
``observe(agent)``, ``observation_space(agent)`` and ``action_space(agent)`` with a name
that is not one of ``possible_agents`` (``"player_9"``) raise ``ValueError`` naming the
agents (``ArgumentTypeError``, a ``TypeError`` and ``ValueError``, for a value that is not
a string), not a bare ``KeyError``. ``parallel_env().step(actions)`` refuses a key that is
not a live agent with ``ValueError``, the env unchanged.

Version history
---------------
``metadata["name"]`` is ``concordia_v{observation_version}``; ``observation_version=0``
reproduces the v0 observation (the first ``OBS_SIZE_V0`` entries of v1). v1 appends
``COLONIST_SLOTS`` (see :mod:`concordia_env.engine.observation`): a MOVE action names a colonist
*slot*, which v0 does not show. The other changes listed below apply to both versions.

| version | observation length | change |
| --- | ---: | --- |
| v1 (current) | ``OBS_SIZE_V1`` | the observation shows where each of the agent's colonist slots stands |
| | | (both versions) ``max_cycles``/``max_turns``, ``parallel_env()``, ``state_space``, stable info keys |
| v0 | ``OBS_SIZE_V0`` | initial release |
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper
from pettingzoo.utils.env_logger import EnvLogger

from concordia_env.engine import defaults
from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.errors import ArgumentTypeError, IllegalActionError, ResetNeededError, short_repr
from concordia_env.engine.game import Game
from concordia_env.engine.observation import (
    OBS_SIZES,
    OBSERVATION_VERSION,
    check_observation_version,
    observation_bounds,
)
from concordia_env.engine.state import STATE_SIZE
from concordia_env.strategy import FEATURE_COUNTS, FEATURES_VERSION

from .env_checks import (
    RENDER_FPS,
    RENDER_MODES,
    LegalActionSpace,
    action_index,
    check_cap,
    check_illegal_action,
    check_render_mode,
    check_reset_options,
    render_game,
)
from .options_level import DEFAULT_MAX_OPTIONS, OptionSet, check_options_arguments, options_space
from .rewards import ILLEGAL_REWARD, Rewarder

_INT32 = np.iinfo(np.int32)


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo's naming convention)
    """The unwrapped AEC environment; use :func:`env` for the standard wrappers."""

    # an instance variable of AECEnv: each env names its observation version in it
    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": RENDER_MODES,
        "name": f"concordia_v{OBSERVATION_VERSION}",
        "is_parallelizable": False,
        "render_fps": RENDER_FPS,
    }

    def __init__(
        self,
        map: str = defaults.MAP,
        num_players: int = defaults.NUM_PLAYERS,
        render_mode: str | None = None,
        reward: str = "win",
        seed: int | None = defaults.SEED,
        illegal_action: str = "raise",
        observation_version: int = OBSERVATION_VERSION,
        max_cycles: int | None = None,
        max_turns: int | None = None,
        level: str = "flat",
        max_options: int = DEFAULT_MAX_OPTIONS,
        granularity: str = "decision",
        features_version: int = FEATURES_VERSION,
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
            max_cycles=max_cycles,
            max_turns=max_turns,
            level=level,
            max_options=max_options,
            granularity=granularity,
            features_version=features_version,
            **game_options,
        )
        super().__init__()
        self.level, self.max_options, self.granularity, self.features_version = check_options_arguments(
            level, max_options, granularity, features_version
        )
        #: the options of the selected agent's decision (options level); None at the flat level
        self.options = OptionSet(self.max_options, self.features_version) if self.level == "options" else None
        self._option_rng = np.random.default_rng(0)  # reseeded by every reset
        self.illegal_action = check_illegal_action(illegal_action)
        self.observation_version = check_observation_version(observation_version)
        self.max_cycles = check_cap("max_cycles", max_cycles)
        self.max_turns = check_cap("max_turns", max_turns)
        self.metadata = {**raw_env.metadata, "name": f"concordia_v{self.observation_version}"}
        self.render_mode = check_render_mode(render_mode)
        self._map_name = map
        self._num_players = num_players
        self._game_options = game_options
        self._rewarder = Rewarder(reward)
        # build one game now so that a bad map / player count / option fails at construction
        self.game = Game.new(map, num_players, seed=0, **game_options)
        self._map_name = self.game.map.name
        self._seeds = np.random.default_rng(seed)
        self.possible_agents = [f"player_{p}" for p in range(num_players)]
        self._seat = {agent: p for p, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {agent: self._make_observation_space() for agent in self.possible_agents}
        self._actions = NUM_ACTIONS if self.options is None else self.max_options
        self.action_spaces = {
            agent: LegalActionSpace(partial(self._mask_of, agent), n=self._actions) for agent in self.possible_agents
        }
        self.state_space = spaces.Box(_INT32.min, _INT32.max, shape=(STATE_SIZE,), dtype=np.int32)
        self._no_actions = np.zeros(self._actions, dtype=np.int8)
        self._no_actions.setflags(write=False)
        self._no_options = np.zeros((self.max_options, FEATURE_COUNTS[self.features_version]), dtype=np.float32)
        self._no_options.setflags(write=False)
        self._no_first = np.full((self.max_options, 2), -1, dtype=np.int64)
        self._no_first.setflags(write=False)
        self._mask = self._no_actions
        self._no_score = dict.fromkeys(self.game.score_breakdown(0), 0)
        self._has_reset = False
        self._rewards_paid = False
        self._phase = ""
        self.agent_selection = self.possible_agents[0]
        self._viewer: Any = None

    def _make_observation_space(self) -> spaces.Dict:
        low, high = observation_bounds(self.observation_version)
        flat = spaces.Box(low, high, shape=(OBS_SIZES[self.observation_version],), dtype=np.float32)
        if self.options is not None:
            return options_space(flat, self.max_options, self.features_version)
        return spaces.Dict({"observation": flat, "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8)})

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[self._agent_name(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[self._agent_name(agent)]

    def _agent_name(self, agent: Any) -> str:
        """``agent`` if it is one of ``possible_agents``; ``ValueError`` (``ArgumentTypeError`` for a non-string)."""
        if not isinstance(agent, str):
            raise ArgumentTypeError(f"an agent is a name such as 'player_0', got {short_repr(agent)}")
        if agent not in self._seat:
            raise ValueError(f"unknown agent {short_repr(agent)}; the agents are {', '.join(self.possible_agents)}")
        return agent

    # ------------------------------------------------------------------ reset / step
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        position = check_reset_options(options, self._map_name, self._num_players)  # before anything changes
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
            game_seed = seed
        else:
            game_seed = int(self._seeds.integers(2**63 - 1))
        if position is not None:
            self.game = position
        else:
            self.game = Game.new(self._map_name, self._num_players, seed=game_seed, **self._game_options)
        self._option_rng = np.random.default_rng(game_seed)  # draws the options' determinizations
        self._rewarder.reset(self._num_players)
        self._has_reset = True
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._rewards_paid = False
        self.infos = {a: self._info(self._no_actions) for a in self.agents}
        self._phase = self.game.phase_name
        self._select_decider()

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise ResetNeededError("step() was called before reset(): call reset() to start a game")
        if not self.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                action_index(action)  # a value that is no action at all says so
                raise IllegalActionError(int(action), f"{agent} is done: its only action is None (its dead step)")
            self._was_dead_step(action)
            return
        try:
            if self.options is None:
                self.game.step(action)  # the one check of the action: Game.step refuses any value but a legal index
            else:
                self.options.play(self.game, self.options.check(action), self.granularity)  # checked first
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise  # the env is unchanged: the game refused the action
            self._cumulative_rewards[agent] = 0.0
            self._penalize(agent, err)
            return
        self._cumulative_rewards[agent] = 0.0
        rewards = self._rewarder.after(self.game)
        if rewards is not self._rewarder.nothing or self._rewards_paid:
            # a new rewards dict only when some reward is paid (or the previous step's must be cleared)
            self.rewards = dict(zip(self.possible_agents, rewards.tolist(), strict=True))
            self._rewards_paid = rewards is not self._rewarder.nothing
        if self.game.is_over():
            self._finish()
        elif self._cap_reached():
            self._truncate()
        else:
            self._select_decider()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _cap_reached(self) -> bool:
        game = self.game
        return (self.max_cycles is not None and game.decision_count >= self.max_cycles) or (
            self.max_turns is not None and game.turn_count >= self.max_turns
        )

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        """An info dict with every key (see "Infos"): the placeholders of a game still running."""
        info = {
            "action_mask": mask,
            "phase": self.game.phase_name,
            "score_breakdown": dict(self._no_score),
            "final_scores": dict.fromkeys(self.possible_agents, 0),
            "winner": "",
            "illegal_action": "",
        }
        if self.options is not None:
            info["option_actions"] = self._no_first
        return info

    def _select_decider(self) -> None:
        """Select the engine's current player and refresh the legal mask and the infos that changed.

        While a game runs only two entries of the infos change: the ``action_mask`` of the
        agent selected before and now, and everyone's ``phase``. Those are updated in place
        (as PettingZoo's classic games keep their info dicts for a whole game); the dicts
        are built once per game, by ``reset``.
        """
        before = self.agent_selection
        self.agent_selection = self.possible_agents[self.game.current_player]
        infos = self.infos
        infos[before]["action_mask"] = self._no_actions
        if self.options is None:
            self._mask = self.game.legal_mask().view(np.int8)  # a fresh bool array read as 0/1 int8: no copy
        else:
            self.options.compute(self.game, int(self._option_rng.integers(2**63 - 1)))
            self._mask = self.options.mask
            infos[before]["option_actions"] = self._no_first
            infos[self.agent_selection]["option_actions"] = self.options.first
        infos[self.agent_selection]["action_mask"] = self._mask
        phase = self.game.phase_name
        if phase != self._phase:
            self._phase = phase
            for info in infos.values():
                info["phase"] = phase

    def _mask_of(self, agent: str) -> np.ndarray:
        return self._mask if agent == self.agent_selection else self._no_actions

    def _finish(self) -> None:
        """The game is over: everyone terminates; infos get the scores. The last mover sees it first."""
        game = self.game
        final = {a: int(v) for a, v in zip(self.possible_agents, game.final_scores(), strict=True)}
        winner = self.possible_agents[game.winner()]
        self._mask = self._no_actions
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {a: self._info(self._no_actions) for a in self.agents}
        for a, info in self.infos.items():
            info.update(score_breakdown=game.score_breakdown(self._seat[a]), final_scores=dict(final), winner=winner)

    def _truncate(self) -> None:
        """A cap was reached: everyone is truncated; the game has no winner, so infos keep their placeholders."""
        self._mask = self._no_actions
        self.truncations = dict.fromkeys(self.agents, True)
        self.infos = {a: self._info(self._no_actions) for a in self.agents}

    def _penalize(self, agent: str, err: IllegalActionError) -> None:
        """TerminateIllegalWrapper semantics: end for all, −1 to the offender, 0 to the others."""
        self._mask = self._no_actions
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = ILLEGAL_REWARD
        self.infos = {a: self._info(self._no_actions) for a in self.agents}
        self.infos[agent]["illegal_action"] = str(err)
        self._accumulate_rewards()
        self._deads_step_first()

    # ------------------------------------------------------------------ views
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        # a new array each time (callers keep observations)
        seat = self._seat.get(agent) if isinstance(agent, str) else None
        if seat is None:
            seat = self._seat[self._agent_name(agent)]  # _agent_name raises the error that says what is wrong
        observation = self.game.observation(seat, self.observation_version)
        mask = self._mask_of(agent)
        if self.options is None:
            return {"observation": observation, "action_mask": mask}
        options = self.options.features if mask is not self._no_actions else self._no_options
        return {"observation": observation, "options": options, "action_mask": mask}

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


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` whose ``step()`` before ``reset()`` raises :class:`ResetNeededError`.

    The stock wrapper raises a bare ``AssertionError`` there; this keeps the error that
    ``raw_env`` documents for the same mistake. ``last()`` goes to ``raw_env`` directly (the
    same answers and errors, without six attribute look-ups through the wrapper). Everything
    else is the stock wrapper.
    """

    def step(self, action: Any) -> None:
        if not self._has_reset:
            raise ResetNeededError("step() was called before reset(): call reset() to start a game")
        super().step(action)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """``raw_env.last()`` directly: the stock wrapper reaches each of its six attributes through
        ``__getattr__``, which costs more than the rest of the call. Before ``reset()`` it raises
        the stock wrapper's ``AttributeError`` ("agent_selection cannot be accessed before reset")."""
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)


def env(
    map: str = defaults.MAP,
    num_players: int = defaults.NUM_PLAYERS,
    render_mode: str | None = None,
    reward: str = "win",
    seed: int | None = defaults.SEED,
    illegal_action: str = "raise",
    observation_version: int = OBSERVATION_VERSION,
    max_cycles: int | None = None,
    max_turns: int | None = None,
    level: str = "flat",
    max_options: int = DEFAULT_MAX_OPTIONS,
    granularity: str = "decision",
    features_version: int = FEATURES_VERSION,
    **game_options: Any,
) -> AECEnv:
    """The AEC env behind PettingZoo's order-enforcing wrapper (see "Illegal actions" and "Lifecycle").

    Unlike PettingZoo's classic games, there is no ``AssertOutOfBoundsWrapper``: ``raw_env``
    refuses every action value of any type with :class:`~concordia_env.IllegalActionError`
    (or penalizes it with ``illegal_action="penalize"``), which an ``AssertionError`` raised
    before it would hide.
    """
    e: AECEnv = raw_env(
        map=map,
        num_players=num_players,
        render_mode=render_mode,
        reward=reward,
        seed=seed,
        illegal_action=illegal_action,
        observation_version=observation_version,
        max_cycles=max_cycles,
        max_turns=max_turns,
        level=level,
        max_options=max_options,
        granularity=granularity,
        features_version=features_version,
        **game_options,
    )
    return OrderEnforcing(e)


def parallel_env(**kwargs: Any) -> ParallelEnv:
    """The Parallel API: :class:`raw_env` (the options of :func:`env`) through PettingZoo's turn-based wrapper.

    Each parallel step takes an action for every live agent and applies only the selected
    agent's (``infos[agent]["active_agent"]`` names it; the others' masks are all zeros), so
    one parallel step is one decision. ``aec_to_parallel`` refuses this env
    (``is_parallelizable`` is False): its agents do not act once each per cycle.

    Bad input is refused before the game sees it, the env unchanged: ``step()`` before
    ``reset()`` raises :class:`~concordia_env.engine.errors.ResetNeededError`; ``actions`` that are
    not a mapping raise :class:`~concordia_env.engine.errors.ArgumentTypeError`; a key that is not a
    live agent raises ``ValueError``; a mapping without
    the selected agent's action raises :class:`~concordia_env.engine.errors.IllegalActionError`
    (as ``None`` would), and so does any action value that is not a legal index (or, with
    ``illegal_action="penalize"``, it ends the game as in :class:`raw_env`). The AEC wrappers
    of :func:`env` are not used: the parallel wrapper orders the calls itself, and
    ``raw_env`` checks every action, so PettingZoo's out-of-bounds assertion would only turn
    some of these refusals into ``AssertionError``.
    """
    return _TurnBasedParallelEnv(raw_env(**kwargs))


class _TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn-based parallel wrapper, with the lifecycle and input checks of :func:`parallel_env`."""

    _has_reset = False

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        result = super().reset(seed=seed, options=options)
        self._has_reset = True
        return result

    def step(self, actions: Any) -> tuple[dict, ...]:
        if not self._has_reset:
            raise ResetNeededError("step() was called before reset(): call reset() to start a game")
        if self.agents:
            if not isinstance(actions, Mapping):
                raise ArgumentTypeError(f"actions is a mapping {{agent: action}}, got {short_repr(actions)}")
            agent = self.aec_env.agent_selection
            unknown = [key for key in actions if key not in self.agents]
            if unknown:
                raise ValueError(
                    f"actions holds {', '.join(short_repr(k, 30) for k in unknown[:5])}, not live agents; "
                    f"the live agents are {', '.join(self.agents)}"
                )
            if agent not in actions:
                raise IllegalActionError(-1, f"actions holds no action for {agent}, the agent to move")
        return super().step(actions)
