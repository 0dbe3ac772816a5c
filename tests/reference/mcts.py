"""The MCTS the project used before the strategy core (commit 4b6e3e5), kept as a slow reference.

It is the old ``agents/mcts.py`` unchanged but for its imports and its name (``mcts-old``): Python turn options and
evaluation (the reference heuristic of :mod:`tests.reference.heuristic` and
:mod:`tests.reference.evaluation`) and the compiled greedy rollouts of the old
``agents/_fast_rollout.py`` (:mod:`tests.reference.fast_rollout`), the second set of rules of
thumb the core replaced. Only the strength script (:mod:`tests.reference.strength`) registers it,
as the agent ``mcts-old``, to measure the new search against it and to name its budget: how
many simulations it ran in one second per move. The original docstring follows.

``mcts``: Monte Carlo tree search over the engine, one tree level per turn.

A Concordia turn is a card plus a handful of sub-decisions (Architect moves and builds,
Mercator trades, ...). Searching every sub-decision spreads a small budget over hundreds
of near-identical branches, so the moves of this tree are whole *turns*:

* **Moves.** At a node the player to move has one move per legal action of the pending
  decision (per card to play; per card to copy for the Diplomat), each followed to the
  end of the turn by the heuristic agent's rules of thumb
  (:meth:`agents.heuristic.HeuristicAgent.turn_options`). A move is a sequence of engine
  actions applied with ``clone()`` + ``step()``; the child is the position after it
  (normally the next player's turn).
* **Expansion.** Expanding a node evaluates all its moves at once with the position
  evaluation of :mod:`agents._evaluation` (estimated final VP of every player); each new
  child starts with that estimate, worth one visit.
* **Multi-player values (max-n).** Nodes keep the summed value of every player, and the
  player to move at a node picks by UCB1 on their own value. A player's value is their
  margin over the best opponent squashed into 0..1,
  ``0.5 + 0.5·tanh(margin / value_scale)``: it rewards winning by more and means the same
  for any number of players.
* **Comparable leaves.** A position right after someone's turn flatters that player, so a
  simulation is scored where the searching player is about to play again: from the leaf
  it follows every player's best move (expanding those nodes) round to them.
* **Rollouts.** The position reached is scored by its estimate (``rollout="none"``) or by
  a rollout of ``rollout_rounds`` rounds (every player plays that many turns; ``None``:
  to the end of the game): ``"heuristic"`` plays the compiled greedy policy of
  :mod:`agents._fast_rollout` (a fast, noisy version of the rules of thumb),
  ``"random"`` uniformly random legal actions. Where a rollout stops, ``evaluation``
  scores the position: ``"heuristic"`` (the evaluation above) or ``"score"`` (VP if the
  game ended now plus a tenth of the wealth, compiled); a finished game counts its final
  scores (the tie-break winner ahead).
* **Hidden stack.** The order of the face-down stack is unknown: each tree searches one
  *determinization*, the stack shuffled within each deck's own segment (decks keep
  their order). ``determinizations`` > 1 splits the budget over that many independent
  trees and pools their root statistics.
* **Budget.** ``simulations`` per decision, or ``time_per_move`` seconds (at least one
  simulation; a simulation takes some tens of milliseconds, so the budget may be exceeded
  by about one). The move played is the root child with the best mean value (values are
  close, so visit counts mostly reflect exploration). The agent then follows that move's
  actions for the rest of its turn without searching again, unless the game leaves the
  expected path (e.g. another player keeps other goods after an overflow).

It scales from a couple of simulations (tests) to thousands; everything random comes from
the agent's seeded generator (the compiled rollouts are seeded from it).
"""

from __future__ import annotations

import math
import time

import numpy as np

from concordia_env import Game
from concordia_env.agents.base import Agent
from concordia_env.engine import actions as A

from . import fast_rollout as fast
from .evaluation import Evaluator
from .heuristic import HeuristicAgent, TurnOption, TurnPlan

ROLLOUTS = ("none", "heuristic", "random")
EVALUATIONS = ("heuristic", "score")
#: noise of the compiled greedy rollout policy: share of random sub-decisions, card-choice temperature
ROLLOUT_EPSILON = 0.05
ROLLOUT_TEMPERATURE = 0.5
#: turns played by a rollout with rollout_rounds=None (far more than any game lasts)
UNLIMITED_TURNS = 1_000_000
#: the first estimate of a child counts as this many visits
PRIOR_VISITS = 1


class Node:
    """A position in the tree, reached by a sequence of turns from the root."""

    __slots__ = ("children", "game", "options", "player", "value", "visits")

    def __init__(self, game: Game, value: np.ndarray, visits: int) -> None:
        self.game = game
        self.player = game.current_player  # -1 once the game is over
        self.value = value * visits
        self.visits = visits
        self.options: list[TurnOption] | None = None
        self.children: list[Node] = []

    @property
    def expanded(self) -> bool:
        return self.options is not None

    def mean(self, player: int) -> float:
        return float(self.value[player] / self.visits)


class MCTSAgent(Agent):
    """UCT over whole turns with max-n values; see the module docstring.

    * ``simulations``: simulations per decision (30 take well under a second on a laptop
      core in 2-player Italia); ignored when ``time_per_move`` (seconds) is given;
    * ``exploration``: the UCB1 constant, on values in 0..1;
    * ``rollout`` (``"heuristic"``, ``"random"``, ``"none"``), ``rollout_rounds`` (rounds of
      turns, ``None`` to the end of the game) and ``evaluation`` (``"heuristic"``,
      ``"score"``): how a simulation is scored;
    * ``value_scale``: VP of margin that count as a clear lead (tanh scale);
    * ``determinizations``: independent trees, each with its own shuffled stack;
    * ``strict``: see :class:`agents.base.Agent` (also passed to the rules of thumb it plans with).
    """

    name = "mcts-old"

    def __init__(
        self,
        seed: int | None = None,
        simulations: int = 30,
        time_per_move: float | None = None,
        exploration: float = 0.1,
        rollout: str = "heuristic",
        rollout_rounds: int | None = 1,
        evaluation: str = "heuristic",
        value_scale: float = 30.0,
        determinizations: int = 1,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, strict)
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {ROLLOUTS}, got {rollout!r}")
        if evaluation not in EVALUATIONS:
            raise ValueError(f"evaluation must be one of {EVALUATIONS}, got {evaluation!r}")
        if simulations < 1:
            raise ValueError(f"simulations must be at least 1, got {simulations}")
        if time_per_move is not None and time_per_move <= 0:
            raise ValueError(f"time_per_move must be positive, got {time_per_move}")
        if rollout_rounds is not None and rollout_rounds < 1:
            raise ValueError(f"rollout_rounds must be at least 1 (or None: to the end), got {rollout_rounds}")
        if determinizations < 1:
            raise ValueError(f"determinizations must be at least 1, got {determinizations}")
        self.simulations = simulations
        self.time_per_move = time_per_move
        self.exploration = exploration
        self.rollout = rollout
        self.rollout_rounds = rollout_rounds
        self.evaluation = evaluation
        self.value_scale = value_scale
        self.determinizations = determinizations
        self._rules = HeuristicAgent(strict=self.strict)
        self._plan: TurnPlan | None = None
        #: simulations run for the last search (diagnostics and tests)
        self.last_simulations = 0

    @property
    def spec(self) -> str:
        """The spec that builds this agent's budget again (``mcts:200`` or ``mcts:time_per_move=1.0``)."""
        if self.time_per_move is None:
            return f"{self.name}:{self.simulations}"
        return f"{self.name}:time_per_move={self.time_per_move}"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None

    # ------------------------------------------------------------------ entry point
    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        planned = None if self._plan is None else self._plan.next_action(game)
        if planned is not None:
            return self.checked(game, planned, legal)
        self._plan = self._search(game)
        return self.checked(game, self._plan.actions[0], legal)

    def _search(self, game: Game) -> TurnPlan:
        """Run the trees; return the best root move as the plan of its actions on the real game."""
        fast.seed(int(self.rng.integers(2**31 - 1)))
        self._rules.clear_cache()
        deadline = None if self.time_per_move is None else time.perf_counter() + self.time_per_move
        per_tree = max(1, self.simulations // self.determinizations)
        visits: dict[tuple[int, ...], int] = {}
        values: dict[tuple[int, ...], float] = {}
        done = 0
        for k in range(self.determinizations):
            sim = game.with_hidden_stack_shuffled(self.rng)
            root = Node(sim, np.zeros(game.num_players), 0)
            tree_deadline = None
            if deadline is not None:
                tree_deadline = time.perf_counter() + (deadline - time.perf_counter()) / (self.determinizations - k)
            count = 0
            while True:
                self._simulate(root)
                count += 1
                if tree_deadline is None and count >= per_tree:
                    break
                if tree_deadline is not None and time.perf_counter() >= tree_deadline:
                    break
            done += count
            for option, child in zip(root.options, root.children, strict=True):
                first = first_actions(option.plan)
                visits[first] = visits.get(first, 0) + child.visits
                values[first] = values.get(first, 0.0) + float(child.value[root.player])
        self.last_simulations = done
        # the best mean value: with values this close, visit counts mostly reflect exploration
        best = max(visits, key=lambda key: (values[key] / visits[key], visits[key]))
        # the tree played on a shuffled stack: replan the chosen move's rest on the real game
        return self._rules.plan_turn(game, list(best))

    # ------------------------------------------------------------------ one simulation
    def _simulate(self, root: Node) -> None:
        path = [root]
        node = root
        while node.expanded and node.children:
            node = self._select(node)
            path.append(node)
        # evaluate where the searching player is about to play again: positions at different
        # points of the round are not comparable (whoever just played looks ahead)
        while not node.game.is_over():
            if not node.expanded:
                self._expand(node)
            mover = node.player
            node = max(node.children, key=lambda c: c.mean(mover))
            path.append(node)
            if node.player == root.player:
                break
        value = self._leaf_value(node)
        for n in path:
            n.visits += 1
            n.value += value

    def _expand(self, node: Node) -> None:
        node.options = self._rules.turn_options(node.game)
        estimates = self.option_values(node.game, node.options)
        node.children = [Node(o.game, v, PRIOR_VISITS) for o, v in zip(node.options, estimates, strict=True)]

    def option_values(self, game: Game, options: list[TurnOption]) -> list[np.ndarray]:
        """Each option's first estimate for every player (0..1), worth ``PRIOR_VISITS`` visits.

        The heuristic evaluation of the position the option leads to, squashed (or a finished
        game's result). A subclass may estimate differently (``agents.learned`` puts a trained
        model's estimate in the column of the player who chooses).
        """
        return [self._game_value(o.game) if o.game.is_over() else self._squash(o.values) for o in options]

    def _select(self, node: Node) -> Node:
        """UCB1 for the player to move, on their own value."""
        log_n = math.log(max(1, node.visits))
        p = node.player
        return max(node.children, key=lambda c: c.mean(p) + self.exploration * math.sqrt(log_n / c.visits))

    def _leaf_value(self, node: Node) -> np.ndarray:
        """The value of a leaf: its first estimate, or the outcome of a rollout from it."""
        if node.game.is_over() or self.rollout == "none":
            return node.value / node.visits if node.visits else self._game_value(node.game)
        sim = node.game.clone()
        turns = UNLIMITED_TURNS if self.rollout_rounds is None else self.rollout_rounds * sim.num_players
        if self.rollout == "random":
            fast.random_rollout(sim.state, sim.map.tables, turns)
        else:
            fast.rollout(sim.state, sim.map.tables, turns, ROLLOUT_EPSILON, ROLLOUT_TEMPERATURE)
        return self._game_value(sim)

    def _game_value(self, game: Game) -> np.ndarray:
        if game.is_over():
            points = game.final_scores().astype(float)
            points[game.winner()] += 0.5  # ties go to the tie-break winner (docs/rules.md §7)
        elif self.evaluation == "heuristic":
            points = Evaluator(game).values()
        else:
            points = np.zeros(game.num_players)
            fast.score_estimate(game.state, game.map.tables, points)
        return self._squash(points)

    def _squash(self, points: np.ndarray) -> np.ndarray:
        """Each player's margin over the best opponent, mapped into 0..1."""
        n = len(points)
        best_other = np.array([np.max(np.delete(points, p)) for p in range(n)])
        return 0.5 + 0.5 * np.tanh((points - best_other) / self.value_scale)


def first_actions(plan: TurnPlan) -> tuple[int, ...]:
    """What identifies a root move across determinizations: its first action (two for a Diplomat)."""
    if len(plan.actions) > 1 and A.A_DIPLOMAT <= plan.actions[1] < A.A_MOVE:
        return tuple(plan.actions[:2])
    return (plan.actions[0],)
