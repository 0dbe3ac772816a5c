"""Concordia as a single-agent Gymnasium environment (``"Concordia-v1"``), e.g. for Stable-Baselines3.

The learner plays one seat; the other seats are played by fixed opponents inside
``reset()`` and ``step()``, which return only when the learner must decide again (or the
game is over). This includes storehouse-overflow choices: when an opponent's Prefect
overflows the learner's storehouse, ``step()`` returns in the middle of the opponent's
turn with the learner to choose a good to keep.

| | |
| --- | --- |
| Creation | ``SingleAgentEnv(opponents="random", map="italia")`` or ``gymnasium.make("Concordia-v1", ...)`` |
| Observation space | ``Box(float32, (OBS_SIZES[version],))``: ``observe(game, learner_seat, version)`` |
| Action space | ``Discrete(NUM_ACTIONS)`` (:mod:`concordia_env.engine.actions`); ``sample()`` draws a legal action |
| Action mask | ``env.action_masks()`` (bool, for ``sb3_contrib.MaskablePPO``) and ``info["action_mask"]`` |
| Reward | as in the PettingZoo env (``"win"``, ``"rank"``, ``"vp"``, ``"score_delta"``), for the learner |
| Registered | ``"Concordia-v1"`` (current), ``"Concordia-v0"``; ``max_episode_steps`` 2000 (``env_common``) |
| Options level | ``level="options"`` (``"ConcordiaOptions-v1"``): ``Dict(observation, options (K, F),`` |
| | ``action_mask (K,))`` and ``Discrete(K)`` over the turn options; :mod:`concordia_env.envs.options_level` |

Options
-------
* ``opponents``: one opponent (used for every other seat) or a list with one per other
  seat, in seat order skipping the learner. Each is an agent spec string (``"random"``,
  ``"heuristic"``, ``"mcts:time_per_move=1.0"``, ``"learned"``, ``"policy:path"``; built by
  :mod:`concordia_env.envs.opponents`, which finds ``agents.from_spec`` through its entry
  point), an object with ``act(game)`` and ``reset(seed)`` such as an ``agents.Agent``, or
  a callable ``f(game) -> action``. Agents are reseeded from
  the episode's generator at every ``reset``, so a seeded episode is reproducible (a plain
  callable keeps whatever randomness it has). Spec strings keep the env picklable, which
  ``SubprocVecEnv`` needs.
* ``seat``: the learner's seat, an int or ``"random"`` (drawn anew each episode). A seat is
  a place at the table, not a place in the turn order: the game's seed draws the start
  player unless the game option ``start_player=k`` fixes it.
* ``map``, ``num_players``, ``reward``, ``render_mode``, ``seed`` and the engine's game
  options (``intermediate_scoring``, ``display_costs``, ``start_player``). Unless told:
  2-player Italia against ``"random"``, a fresh seed, the defaults of every form
  (:mod:`concordia_env.engine.defaults`).
* ``max_turns``: optional cap on the game's turns; the episode is then *truncated*
  (a policy that never builds nor buys could otherwise play forever). ``None`` (default):
  games end by the rules only; through ``gymnasium.make`` the registered
  ``max_episode_steps`` (learner decisions, Gymnasium's ``TimeLimit``) caps them too.
* ``illegal_action``: ``"raise"`` (default) or ``"penalize"``, see below.
* ``observation_version``: 1 (default, the current observation) or 0, see the version table.
* ``level``: ``"flat"`` (default: the spaces above) or ``"options"``: the learner chooses among
  the turn options of its decision, the candidates of the ``learned`` agent, computed on a
  determinized copy whose seed is one draw per decision from the episode's generator.
  ``max_options`` (K, default 96), ``granularity`` (``"decision"``, default, or ``"turn"``)
  and ``features_version`` (default 2, the newest; ``env.features_version``) shape it; the
  spaces, the rule that keeps K options and their order are in
  :mod:`concordia_env.envs.options_level`. ``action_masks()`` is then the option mask
  (bool (K,)); ``step(k)`` takes a kept option's index, and a masked or out-of-range one
  is refused like an illegal action (below). Rewards, seeding, opponents and infos are the
  flat level's; the infos add ``"option_actions"``.

``reset(options={"position": p})`` starts the episode from a copy of position ``p`` (a
:class:`~concordia_env.Game`, its JSON text or its dict) instead of a new game, at both
levels; the seed still draws the seat and seeds the opponents. A position of another map or
player count, of a game that is over, or a ``Game`` whose state fails the state check
raises ``PositionError`` (a ``ValueError``), nothing changed. A position whose game the
opponents end before the learner decides ends the episode at once: ``reset`` returns the
finished game (all-False mask, ``final_scores`` and ``winner`` in the info) and the first
``step`` returns ``terminated=True`` with the game's real terminal reward, whatever its
action (not read; :mod:`.options_level`, "Starting from a position"). No other reset
option is read: a key that names one of the options above (or of the game) raises
``ValueError`` and a value that is not a dict ``ArgumentTypeError``, with nothing changed;
any other key gives a ``UserWarning`` that it is ignored (but for PettingZoo's signature
probe ``"options"``: see ``envs.env_checks.check_reset_options``). No
options and ``{}`` warn nothing.

Rewards (see :mod:`concordia_env.envs.rewards` for the table): the terminal kinds are 0
until the game ends; ``"score_delta"`` is the change of the learner's VP-if-the-game-ended-now
between consecutive learner decisions (starting from 0), so an episode's rewards sum to the
learner's final VP.

Infos
-----
Every ``info`` has the same keys with the same types at every step (libraries that stack
infos into arrays need one schema); the end-of-game values are typed placeholders until
the game ends by the rules (a truncated episode keeps them):

| key | type | value |
| --- | --- | --- |
| ``"action_mask"`` | bool array (NUM_ACTIONS,), options level (K,) | ``action_masks()`` |
| ``"phase"`` | str | the pending decision |
| ``"learner_seat"`` | int | the learner's seat this episode |
| ``"final_scores"`` | int64 array (num_players,) | final VP by seat at the end; zeros before |
| ``"winner"`` | int | the winning seat at the end; −1 before |
| ``"score_breakdown"`` | dict str → int | the learner's VP per category at the end; all 0 before |
| ``"illegal_action"`` | str | the error message of a penalized illegal action; ``""`` otherwise |
| ``"option_actions"`` | int64 array (K, 2) | options level only: each kept option's first actions (a played |
| | | Diplomat: and the card it copies), -1 padded and past the count |

Illegal actions
---------------
With ``illegal_action="raise"`` (default) a learner action the rules do not allow raises
:class:`~concordia_env.IllegalActionError` and leaves the game unchanged (mask the policy
with ``action_masks()``); so does any value of any other type or range (``2**63``,
``None``, ``1.5``, ``"3"``). With ``illegal_action="penalize"`` each of those ends the
episode instead: reward −1, ``terminated=True``, ``info["illegal_action"]`` the message
(the PettingZoo env's ``TerminateIllegalWrapper`` semantics).

Lifecycle: ``step()`` before the first ``reset()``, or after the episode has ended, raises
:class:`~concordia_env.engine.errors.ResetNeededError` (a ``RuntimeError`` and Gymnasium's
``ResetNeeded``) and changes nothing.

Failing opponents
-----------------
An opponent is code the env runs but does not own, so its failures are contained:

* each opponent decides on a **clone** of the game (``act(game.clone())``, as the
  tournament and the web app hand them out): whatever it does to that copy, the episode's
  game changes only by the action it returns, which the rules check;
* an opponent that **raises**, or answers with anything ``Game.step`` refuses (an illegal
  action, a float, ``None``, an array), makes ``step()`` (or ``reset()``) raise
  :class:`~concordia_env.engine.errors.OpponentError`: the message names the opponent's
  seat and its spec (the spec string, or the object's repr), ``err.seat`` and ``err.spec``
  say the same, and the opponent's own exception is chained (``err.__cause__``). It is a
  ``RuntimeError``, never the ``IllegalActionError`` of a learner's move: with
  ``illegal_action="penalize"`` too, an opponent's illegal action is not charged to the
  learner;
* the episode is then **broken**: ``action_masks()`` is all False and every later
  ``step()`` raises ``ResetNeededError`` (naming what broke it) until ``reset()``, which
  starts a new game. The learner's action of the failing step had been applied, and some
  opponent moves may have been: the broken game is not a position to continue from.

Seeding: ``reset(seed=s)`` plays ``Game.new(..., seed=s)`` and draws the seat and the
opponents' seeds from ``s``; ``reset()`` draws everything from the episode generator,
which the constructor's ``seed`` starts.

Checking and wrappers
---------------------
* ``gymnasium.utils.env_checker.check_env(gymnasium.make("Concordia-v1",
  illegal_action="penalize"))`` passes. It needs "penalize": its step-determinism check
  samples an action *before* a seeded reset, legal in the old position but maybe not in
  the new one.
* ``gymnasium.make`` wraps the env (``TimeLimit``, ``OrderEnforcing``, ``PassiveEnvChecker``),
  and Gymnasium's wrappers do not forward methods: call
  ``env.get_wrapper_attr("action_masks")()`` (or ``env.unwrapped.action_masks()``).
  Stable-Baselines3's vector envs already look the method up that way.
* ``gymnasium.make_vec("Concordia-v1", num_envs=n)`` autoresets in Gymnasium's default
  ``NEXT_STEP`` mode: the step after a sub-env's episode ends *is* its reset, and the action
  given to that row is ignored. For that one step the row's mask
  (``envs.call("action_masks")``) is all False; send any action, e.g. 0.

Versions
--------
Each registered id fixes the observation version (``gymnasium.make`` options are passed on
to ``SingleAgentEnv``); ``SingleAgentEnv(observation_version=...)`` chooses it directly.

| id | ``observation_version`` | observation length | change |
| --- | ---: | ---: | --- |
| ``"Concordia-v1"`` (current) | 1 | ``OBS_SIZE_V1`` | shows where each of the learner's colonist slots stands |
| ``"Concordia-v0"`` | 0 | ``OBS_SIZE_V0`` | initial release |

v1 appends ``COLONIST_SLOTS`` to the v0 observation (``docs/observation.md``): a MOVE action
names a colonist *slot*, which v0 does not show. The v0 observation is the first
``OBS_SIZE_V0`` entries of the v1 one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle

from concordia_env.engine import defaults
from concordia_env.engine.actions import NUM_ACTIONS
from concordia_env.engine.errors import IllegalActionError, OpponentError, ResetNeededError, short_repr
from concordia_env.engine.game import Game
from concordia_env.engine.observation import (
    OBS_SIZES,
    OBSERVATION_VERSION,
    check_observation_version,
    observation_bounds,
    observe,
)
from concordia_env.strategy import FEATURES_VERSION

from .env_checks import (
    RENDER_FPS,
    RENDER_MODES,
    LegalActionSpace,
    check_cap,
    check_illegal_action,
    check_render_mode,
    check_reset_options,
    render_game,
)
from .opponents import Opponent, resolve
from .options_level import DEFAULT_MAX_OPTIONS, OptionSet, check_options_arguments, options_space
from .rewards import ILLEGAL_REWARD, Rewarder

OpponentSpec = Any  # str | opponents.Opponent | Callable[[Game], int]

#: seeds drawn for games and opponents are below this bound
SEED_BOUND = 2**63 - 1


class SingleAgentEnv(gymnasium.Env, EzPickle):
    """One learner seat against fixed opponents; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}  # noqa: RUF012 (as in Env)

    def __init__(
        self,
        opponents: OpponentSpec | Sequence[OpponentSpec] = defaults.OPPONENTS,
        seat: int | str = "random",
        map: str = defaults.MAP,
        num_players: int = defaults.NUM_PLAYERS,
        reward: str = "win",
        render_mode: str | None = None,
        seed: int | None = defaults.SEED,
        max_turns: int | None = None,
        illegal_action: str = "raise",
        observation_version: int = OBSERVATION_VERSION,
        level: str = "flat",
        max_options: int = DEFAULT_MAX_OPTIONS,
        granularity: str = "decision",
        features_version: int = FEATURES_VERSION,
        **game_options: Any,
    ) -> None:
        EzPickle.__init__(
            self,
            opponents=opponents,
            seat=seat,
            map=map,
            num_players=num_players,
            reward=reward,
            render_mode=render_mode,
            seed=seed,
            max_turns=max_turns,
            illegal_action=illegal_action,
            observation_version=observation_version,
            level=level,
            max_options=max_options,
            granularity=granularity,
            features_version=features_version,
            **game_options,
        )
        self.level, self.max_options, self.granularity, self.features_version = check_options_arguments(
            level, max_options, granularity, features_version
        )
        self.render_mode = check_render_mode(render_mode)
        self.illegal_action = check_illegal_action(illegal_action)
        self.observation_version = check_observation_version(observation_version)
        self._map_name = map
        self._num_players = num_players
        self._game_options = game_options
        self.game = Game.new(map, num_players, seed=0, **game_options)  # fails early on bad options
        self._map_name = self.game.map.name
        self._seat_option = self._check_seat(seat, num_players)
        self.seat = 0 if seat == "random" else int(seat)
        self._opponents, self._opponent_specs = self._build_opponents(opponents, num_players)
        self._rewarder = Rewarder(reward)
        self._init_seed = seed
        self._max_turns = check_cap("max_turns", max_turns)
        self._mask: np.ndarray | None = None
        self._opponent_of: dict[int, Opponent] = {}  # seat -> opponent, set by reset()
        self._spec_of: dict[int, str] = {}  # seat -> its spec, for error messages
        self._started = False  # no step() before the first reset()
        self._episode_over = False
        self._broken = ""  # why an opponent's failure ended the episode; "" while it runs
        self._no_score = dict.fromkeys(self.game.score_breakdown(0), 0)
        self._viewer: Any = None
        low, high = observation_bounds(self.observation_version)
        flat = spaces.Box(low, high, shape=(OBS_SIZES[self.observation_version],), dtype=np.float32)
        #: the options of the learner's pending decision (options level); None at the flat level
        self.options = OptionSet(self.max_options, self.features_version) if self.level == "options" else None
        if self.options is None:
            self.observation_space: spaces.Space = flat
            self.action_space: spaces.Discrete = LegalActionSpace(self.action_masks)
        else:
            self.observation_space = options_space(flat, self.max_options, self.features_version)
            self.action_space = LegalActionSpace(self.action_masks, n=self.max_options)

    @staticmethod
    def _check_seat(seat: int | str, num_players: int) -> int | str:
        if seat == "random":
            return seat
        if isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and 0 <= seat < num_players:
            return int(seat)
        raise ValueError(f"seat must be 'random' or an int in 0..{num_players - 1}; got {seat!r}")

    @staticmethod
    def _build_opponents(
        opponents: OpponentSpec | Sequence[OpponentSpec], num_players: int
    ) -> tuple[list[Opponent], list[str]]:
        """One opponent per other seat, and what each was built from (for error messages)."""
        if isinstance(opponents, str) or callable(opponents) or not isinstance(opponents, Sequence):
            specs = [opponents] * (num_players - 1)
        elif len(opponents) != num_players - 1:
            raise ValueError(f"give one opponent or {num_players - 1} (one per other seat); got {len(opponents)}")
        else:
            specs = list(opponents)
        shown = [spec if isinstance(spec, str) else short_repr(spec) for spec in specs]
        return [resolve(spec) for spec in specs], shown

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        position = check_reset_options(options, self._map_name, self._num_players)  # before anything changes
        if seed is None:
            seed = self._init_seed  # the constructor's seed starts the first episode (if no reset seed does)
        self._init_seed = None
        super().reset(seed=seed)
        rng = self.np_random
        if position is not None:
            self.game = position
        else:
            game_seed = seed if seed is not None else int(rng.integers(SEED_BOUND))
            self.game = Game.new(self._map_name, self._num_players, seed=game_seed, **self._game_options)
        if self._seat_option == "random":
            self.seat = int(rng.integers(self._num_players))
        others = [p for p in range(self._num_players) if p != self.seat]
        self._opponent_of = dict(zip(others, self._opponents, strict=True))
        self._spec_of = dict(zip(others, self._opponent_specs, strict=True))
        for opponent in self._opponents:
            opponent.reset(int(rng.integers(SEED_BOUND)))
        self._rewarder.reset(self._num_players)
        self._started = True
        self._episode_over = False
        self._broken = ""
        self._play_opponents()
        self._new_decision()
        # rewards earned before the learner's first decision (score_delta: the starting VP)
        # are paid with the first step, so that the episode's rewards still add up
        return self._observation(), self._info()

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict]:
        if not self._started:
            raise ResetNeededError("step() was called before reset(): call reset() to start an episode")
        if self._broken:
            raise ResetNeededError(f"the episode broke ({self._broken}); call reset() first")
        if self._episode_over:
            raise ResetNeededError("the episode is over; call reset() first")
        if self.game.is_over():  # only from a start position the opponents ended: see "Starting from a position"
            return self._end_before_a_decision()
        try:
            if self.options is None:
                self.game.step(action)  # the one check of the action: Game.step refuses any value but a legal index
            else:
                self.options.play(self.game, self.options.check(action), self.granularity)  # checked first
        except IllegalActionError as err:
            if self.illegal_action == "raise":
                raise  # the game is unchanged
            return self._end_illegally(err)
        self._play_opponents()
        reward = float(self._rewarder.after(self.game)[self.seat])
        terminated = self.game.is_over()
        truncated = not terminated and self._max_turns is not None and self.game.turn_count >= self._max_turns
        self._episode_over = terminated or truncated
        if truncated:
            self._no_decision()
        else:
            self._new_decision()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner's pending decision (bool; all False once the episode is over).

        At the options level: the option mask, bool (max_options,).
        """
        if self._mask is None:
            self._mask = self.game.legal_mask() if self.options is None else self.options.bool_mask()
        return self._mask

    def render(self) -> Any:
        out, self._viewer = render_game(self.game, self.render_mode, self._viewer)
        return out

    def close(self) -> None:
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None

    # ------------------------------------------------------------------ internals
    def _play_opponents(self) -> None:
        """Let the opponents decide until the learner must (or the game is over); see "Failing opponents"."""
        game = self.game
        opponent_of, spec_of = self._opponent_of, self._spec_of
        self._mask = None
        while not game.is_over() and game.current_player != self.seat:
            seat = game.current_player
            try:
                action = opponent_of[seat].act(game.clone())
            except Exception as err:  # contained: re-raised as the opponent's failure, chained
                raise self._break(seat, spec_of[seat], f"raised {_error_text(err)}") from err
            try:
                game.step(action)  # checks any value of any type before the compiled rules see it
            except IllegalActionError as err:
                raise self._break(seat, spec_of[seat], f"answered {short_repr(action)}: {err}") from err

    def _new_decision(self) -> None:
        """The learner's next decision is pending: at the options level its options are computed.

        Their determinization's seed is one draw from the episode's generator (``np_random``),
        as the ``learned`` agent draws one from its own (:mod:`.options_level`).
        """
        if self.options is not None:
            if self.game.is_over():
                self.options.clear()
            else:
                self.options.compute(self.game, int(self.np_random.integers(SEED_BOUND)))
        self._mask = None

    def _no_decision(self) -> None:
        """The episode ended (or broke) without the game ending: nothing to choose, all masks False."""
        if self.options is not None:
            self.options.clear()
        self._mask = np.zeros(NUM_ACTIONS if self.options is None else self.max_options, dtype=np.bool_)

    def _break(self, seat: int, spec: str, what: str) -> OpponentError:
        """Mark the episode broken by the opponent in ``seat`` and build the error that says so."""
        message = f"the opponent in seat {seat} ({spec}) {what}"
        self._broken = f"the opponent in seat {seat} ({spec}) failed"
        self._episode_over = True
        self._no_decision()
        return OpponentError(message, seat, spec)

    def _end_before_a_decision(self) -> tuple[Any, float, bool, bool, dict]:
        """The first step of an episode whose game the opponents ended in ``reset``: its real end, action unread."""
        reward = float(self._rewarder.after(self.game)[self.seat])
        self._episode_over = True
        return self._observation(), reward, True, False, self._info()

    def _end_illegally(self, err: IllegalActionError) -> tuple[Any, float, bool, bool, dict]:
        """illegal_action="penalize": the episode terminates with ILLEGAL_REWARD (the game stays as it was)."""
        self._episode_over = True
        self._no_decision()
        info = self._info()
        info["illegal_action"] = str(err)
        return self._observation(), ILLEGAL_REWARD, True, False, info

    def _observation(self) -> Any:
        flat = observe(self.game, self.seat, self.observation_version)
        return flat if self.options is None else self.options.observation(flat)

    def _info(self) -> dict[str, Any]:
        """Every key at every step (see "Infos"); the end-of-game values are placeholders until the end."""
        game = self.game
        over = game.is_over()
        return {
            "action_mask": self.action_masks(),
            "phase": game.phase_name,
            "learner_seat": self.seat,
            "final_scores": game.final_scores() if over else np.zeros(self._num_players, dtype=np.int64),
            "winner": game.winner() if over else -1,
            "score_breakdown": game.score_breakdown(self.seat) if over else dict(self._no_score),
            "illegal_action": "",
            **({} if self.options is None else {"option_actions": self.options.first}),
        }


def _error_text(err: BaseException) -> str:
    """``"KeyError: 'x'"``, cut short: an opponent's message may be huge, or its ``__str__`` may fail too."""
    try:
        text = str(err)
    except Exception:
        text = "(its message cannot be shown)"
    return f"{type(err).__name__}: {text[:200]}"
