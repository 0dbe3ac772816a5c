"""``heuristic``: a hand-written strategy a decent human player would recognise.

The strategy itself is compiled and lives in :mod:`concordia_env.strategy` (its module
docstrings describe every rule of thumb); this agent is its thin Python wrapper.

How it plays
------------
*Which card.* For every card it may play (for a Diplomat, every card it may copy) the
agent plays the whole turn out with its rules of thumb and scores the position reached
with the position evaluation (:mod:`concordia_env.strategy.evaluation`): each player's
estimated final VP (cards scored against the board they will probably have, plus houses,
colonists, money and goods still to use, minus the cards waiting in the discard pile). It
plays the card whose turn leaves it best off relative to the opponents (its value minus
their mean value, ``opponent_weight``), then follows the turn it planned. That is the one
route of every decision of the strategy: options → afterstates → values → choice
(:func:`concordia_env.strategy.turn_options`). Where a Prefect produces and which Gavdos
bonus good it takes are chosen by the same lookahead, inside the turn.

*The rest of the turn* (:mod:`concordia_env.strategy.planner`): the Architect moves where
the best set of affordable houses opens up and builds them; the Mercator trades surplus for
the goods its next houses and colonist need; the Senator and Consul buy the cards that raise
its evaluation most; the Tribune buys a colonist when that is worth the food and tool; the
Colonist settles next to the best unbuilt cities or takes the tax; a full storehouse keeps
the goods it needs, then the dearest.

*No peeking.* Every plan is made on a determinized copy of the game: the hidden stack
shuffled within each deck (:mod:`concordia_env.strategy.determinization`) by the agent's own seeded
generator, so two games that differ only in the hidden order get the same decisions. The
chosen turn's actions are then matched to the real game (the states it expects before each
of them), and the agent follows them while the game stays on that path.

*One call per decision.* ``act()`` takes the legal actions, then asks the compiled player
once (:class:`concordia_env.strategy.players.SeatPlayer`, the very player a batch runs for
this agent): it follows the planned turn where the game is where the plan expected, and
otherwise plans afresh as described above. The seat owns the planned turn and, from the
agent's first decision after ``reset``, its own copy of the determinization generator.

Every answer is checked against the legal actions: a rule of thumb that proposes an
action the engine does not allow is a bug, which raises in strict mode (the tests) and is
otherwise counted and warned about (:meth:`concordia_env.agents.base.Agent.checked`).

``turn_options(game)`` and ``plan_turn(game, start)`` serve the other agents: tree search
(:mod:`concordia_env.agents.mcts`) and the learned agent (:mod:`concordia_env.agents.learned`) choose among the same
options and finish the chosen turn the same way. They plan on the game they are given: the
callers pass a determinized copy where the hidden stack must not show (``turn_options``),
while ``plan_turn`` determinizes itself and returns the plan's states on the real game.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from concordia_env import Game, strategy
from concordia_env.engine.rules import pcg64
from concordia_env.strategy import DEFAULT_WEIGHTS, HEURISTIC, CompiledPlayer, PlannerSettings, SeatPlayer, Weights

from .base import Agent, IllegalPlanError, draw_seed


def remaining_fraction(game: Game) -> float:
    """How much of the game is left (1 at the start, 0 once the end is triggered; see the evaluation)."""
    return strategy.remaining_fraction(game.state, game.map.tables)


def evaluate(game: Game, remaining: float | None = None, params: np.ndarray | None = None) -> np.ndarray:
    """Every player's estimated final VP in ``game`` (``remaining`` defaults to the game's own)."""
    return strategy.evaluate(game.state, game.map.tables, params, remaining)


class TurnPlan:
    """The rest of a turn decided on: the actions, and the state expected before each of them.

    ``TurnPlan(states, actions)``; the plans of turn options work their states out only
    when asked (tree search never asks).
    """

    __slots__ = ("_start", "_states", "_tables", "actions")

    def __init__(self, states: list[np.ndarray], actions: list[int]) -> None:
        self._states: list[np.ndarray] | None = list(states)
        self._start: np.ndarray | None = None
        self._tables: np.ndarray | None = None
        self.actions = [int(a) for a in actions]

    @classmethod
    def from_actions(cls, game: Game, actions: np.ndarray | list[int]) -> TurnPlan:
        """The plan of legal ``actions`` from ``game`` on; the states are replayed when first asked for."""
        plan = cls.__new__(cls)
        plan._states = None
        plan._start = game.state.copy()
        plan._tables = game.map.tables
        plan.actions = [int(a) for a in actions]
        return plan

    @property
    def states(self) -> list[np.ndarray]:
        if self._states is None:
            # from_actions keeps the start and the tables to replay from; plans made of states have them
            assert self._start is not None and self._tables is not None
            rows = strategy.replay(self._start, self._tables, np.asarray(self.actions, dtype=np.int64))
            if len(rows) != len(self.actions):
                raise RuntimeError("a planned turn holds an action that is not legal where it comes (a bug)")
            self._states = list(rows)
        return self._states

    def next_action(self, game: Game) -> int | None:
        """The planned action if ``game`` is one of the expected states, else None."""
        for expected, action in zip(self.states, self.actions, strict=True):
            if np.array_equal(expected, game.state):
                return action
        return None


def follow(game: Game, actions: np.ndarray | list[int]) -> TurnPlan:
    """A turn planned on a determinized copy of ``game``, as a plan on the real game.

    The rest of a turn never depends on the hidden stack (cards are drawn as it ends), so
    the actions fit the real game too; the plan's expected states are the real game's. Should
    an action not be legal there, the plan stops before it and the agent decides afresh.
    """
    rows = strategy.replay(game.state, game.map.tables, np.asarray(actions, dtype=np.int64))
    return TurnPlan(list(rows), [int(a) for a in actions[: len(rows)]])


@dataclass
class TurnOption:
    """One way to go on from a decision to the end of the turn, and where it leads."""

    plan: TurnPlan
    #: the position after the plan (usually the next player's turn)
    game: Game
    #: the evaluation's estimated final VP of every player in that position
    values: np.ndarray


class HeuristicAgent(Agent):
    """The rules of thumb of :mod:`concordia_env.strategy`; see the module docstring.

    ``weights`` are the evaluation's constants (a :class:`~concordia_env.strategy.Weights`, or
    a dict of the fields to change, handy on a command line: ``heuristic:weights={'money': 0.5}``;
    an unknown field, a value that is no number or not finite is refused at once);
    ``opponent_weight`` scales the opponents' mean value in the utility (1: pure relative
    play); ``strict``: see :class:`concordia_env.agents.base.Agent`.
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        weights: Weights | dict[str, Any] = DEFAULT_WEIGHTS,
        opponent_weight: float = 1.0,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, strict)
        self.weights = Weights.of(weights)
        self.planner = PlannerSettings(opponent_weight=opponent_weight)
        self.opponent_weight = self.planner.opponent_weight
        self.params = strategy.params_array(self.weights, self.planner)
        self._noise = strategy.new_rng(draw_seed(self.rng))
        self._seat: SeatPlayer | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._noise = strategy.new_rng(draw_seed(self.rng))
        self._seat = None

    # ------------------------------------------------------------------ entry point
    def act(self, game: Game) -> int:
        """Legal actions, then one call of the compiled player: the planned turn's next action, or a new plan."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        if self._seat is None:
            self._seat = SeatPlayer(self.compiled_player(game.num_players, game.map.name), *self.compiled_state())
        action, illegal = self._seat.act(np.array(game.state), game.map.tables, game.legal_mask(), len(legal))
        self.report_illegal(game, illegal)
        return self.checked(game, action, legal)

    # ------------------------------------------------------------------ checks
    def report_illegal(self, game: Game, count: int) -> None:
        """The compiled rules of thumb proposed ``count`` illegal actions: raise in strict mode, else warn and count."""
        if not count:
            return
        message = f"{self!r}: the compiled rules of thumb planned {count} illegal action(s) in {game!r}"
        if self.strict:
            raise IllegalPlanError(message)
        self.fallbacks += count
        warnings.warn(f"{message}; the first legal action was played instead", RuntimeWarning, stacklevel=3)

    # ------------------------------------------------------------------ inside a batch (envs.opponents)
    def compiled_player(self, num_players: int, map_name: str | None = None) -> CompiledPlayer:
        """This agent as a compiled player (:mod:`concordia_env.strategy.players`), with its weights (on any map)."""
        return CompiledPlayer(HEURISTIC, self.params)

    def compiled_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The generator states of a compiled twin after ``reset``: no numpy draws, its determinization noise."""
        return np.zeros(pcg64.STATE_WORDS, dtype=np.uint64), self._noise.copy()

    # ------------------------------------------------------------------ for the other agents
    def plan_turn(self, game: Game, start: list[int]) -> TurnPlan:
        """Take the actions ``start``, then finish the turn by the rules of thumb (the plan, not played).

        Planned on a determinized copy; the plan's expected states are those of ``game``.
        """
        sim = strategy.determinized(game.state, self._noise)
        actions, illegal = strategy.plan_turn(sim, game.map.tables, start, self.params, remaining_fraction(game))
        self.report_illegal(game, illegal)
        return follow(game, actions)

    def turn_options(self, game: Game) -> list[TurnOption]:
        """Every legal action of the pending decision, each followed to the end of the turn by the rules of thumb.

        A played Diplomat gives one option per card it may copy. Tree search uses these as
        its moves (one per turn) and their evaluations as first estimates. ``game`` is used
        as it is: pass a determinized copy (``game.with_hidden_stack_shuffled(rng)``) where
        the hidden stack must not show in the afterstates.
        """
        return self.as_turn_options(game, self.option_arrays(game))

    def option_arrays(self, game: Game) -> strategy.TurnOptions:
        """The turn options of ``game`` as the compiled core gives them: arrays, one row per option."""
        options = strategy.turn_options(game.state, game.map.tables, self.params, remaining_fraction(game))
        self.report_illegal(game, options.illegal)
        return options

    @staticmethod
    def as_turn_options(game: Game, options: strategy.TurnOptions) -> list[TurnOption]:
        """The rows of :meth:`option_arrays` as :class:`TurnOption` objects (afterstates as games)."""
        out = []
        for k in range(len(options.first)):
            after = game.with_state(options.afterstates[k], check=False)
            plan = TurnPlan.from_actions(game, options.plans[k, : options.lengths[k]])
            out.append(TurnOption(plan, after, options.values[k].copy()))
        return out


__all__ = ["HeuristicAgent", "TurnOption", "TurnPlan", "evaluate", "follow", "remaining_fraction"]
