"""``mcts``: Monte Carlo tree search over whole turns, on the compiled strategy core.

A Concordia turn is a card plus a handful of sub-decisions (Architect moves and builds,
Mercator trades, ...). Searching every sub-decision spreads a small budget over hundreds
of near-identical branches, so the moves of this tree are whole *turns*. The search itself
is compiled (:mod:`concordia_env.strategy.search`: the tree as arrays, every simulation in
numba); this agent sets it up, spends the budget and plays the move it finds.

* **Moves.** At a node the player to move has one move per legal action of the pending
  decision (per card to play; per card to copy for the Diplomat), each followed to the
  end of the turn by the heuristic's planner: the core's turn options
  (:func:`concordia_env.strategy.turn_options`), the same options the heuristic chooses
  among. The child is the position where that turn ends (normally the next player's turn).
* **Expansion.** Expanding a node asks the core for its turn options and their
  evaluation (estimated final VP of every player, :mod:`concordia_env.strategy.evaluation`);
  each new child starts with that estimate, worth one visit.
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
  to the end of the game): ``"heuristic"`` plays the rollout policy of
  :mod:`concordia_env.strategy.rollout` (the heuristic's own planner with noise on the
  card choice and cheaper settings, ``ROLLOUT_SETTINGS``), ``"random"`` uniformly random
  legal actions. Where a rollout stops, ``evaluation`` scores the position:
  ``"heuristic"`` (the evaluation above) or ``"score"`` (VP if the game ended now plus a
  tenth of the wealth); a finished game counts its final scores (the tie-break winner ahead).
* **Hidden stack (chance).** The order of the face-down stack is unknown: each tree
  searches one *determinization*, the stack shuffled within each deck's own segment
  (:mod:`concordia_env.strategy.determinization`); the card draws inside that tree follow it.
  ``determinizations`` > 1 splits the budget over that many independent trees, each with
  its own shuffle, and pools their root statistics (by the move's first action, and the
  card a Diplomat copies).
* **Budget.** ``simulations`` per decision, or ``time_per_move`` seconds: the compiled
  search runs in batches of simulations sized to about ``BATCH_SECONDS`` from the time the
  earlier ones took, and the clock is read between batches, so the budget may be exceeded
  by about one batch (at least one simulation is run). The move played is the root move
  with the best mean value (values are close, so visit counts mostly reflect exploration).
  The agent then follows that move's actions for the rest of its turn (replanned on the
  real game by the heuristic's planner) without searching again, unless the game leaves the
  expected path (e.g. another player keeps other goods after an overflow).

What it costs (2-player Italia, ``concordia bench agent_speed``): a simulation is one or two
expansions (the turn options of a position) and a rollout of one round, all compiled; see
docs/agents.md for the measured multiple of the engine's cost. The tree's arrays are kept
from one search to the next. It scales from a couple of simulations (tests) to tens of
thousands; everything random comes from the agent's seeded generator (the compiled search
draws from a generator state seeded from it at every search), so a search with a fixed
number of simulations is reproducible from the agent's seed.

A subclass may give the search a learned model (:meth:`MCTSAgent.search_model`): the first
estimate of every option for the player choosing it is then the model's, computed inside the
compiled search (the ``learned`` agent's search). Or it may replace the first estimates of
the children of every new node in Python (:meth:`MCTSAgent.first_estimates`, with
``guided = True``): the compiled search stops after each expansion for it, which costs far
more than a compiled model.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np

from concordia_env import Game, strategy
from concordia_env.strategy import PRIOR_VISITS as PRIOR
from concordia_env.strategy import STATUS_ILLEGAL, STATUS_SIZE, RolloutSettings

from .base import Agent, draw_seed
from .heuristic import HeuristicAgent, TurnPlan
from .option_checks import MAX_SIMULATIONS, MAX_TIME_PER_MOVE, choice_option, float_option, int_option

#: the rollout policy: the heuristic's planner choosing its card among two turn options drawn at
#: random, with Gumbel noise of this many VP on their utilities, and no nested lookahead inside a
#: card's turn (a third of the cost of weighing every option: see docs/agents.md)
ROLLOUT_SETTINGS = RolloutSettings(epsilon=0.0, temperature=0.5, nested_lookahead=False, options=2)
ROLLOUT_PARAMS = strategy.params_array(rollout=ROLLOUT_SETTINGS)
ROLLOUT_PARAMS.flags.writeable = False
#: turns played by a rollout with rollout_rounds=None (far more than any game lasts)
UNLIMITED_TURNS = strategy.UNLIMITED_TURNS
#: the first estimate of a child counts as this many visits, by default (option ``prior_visits``)
PRIOR_VISITS = PRIOR
#: a time-limited search runs the compiled simulations in batches of about this many seconds
BATCH_SECONDS = 0.01
#: limits of the options (agents.option_checks has the budget limits): far beyond any useful value, so
#: that a typo cannot build an agent whose every move takes hours or whose values mean nothing
MAX_EXPLORATION = 100.0
MAX_ROLLOUT_ROUNDS = 1_000
MAX_VALUE_SCALE = 1e6
MAX_DETERMINIZATIONS = 1_000
MAX_PRIOR_VISITS = 1e6


class SearchStatistics(NamedTuple):
    """What a search found at its root: one entry per root move, pooled over the determinizations."""

    #: the move's first actions: the action, and for a played Diplomat the card it copies (the rest of
    #: the turn is replanned on the real game, so these identify the move)
    first: list[tuple[int, ...]]
    #: visits of each move, its first estimate included
    visits: np.ndarray
    #: summed value of each move for the player choosing, in 0..1 per visit
    values: np.ndarray

    @property
    def means(self) -> np.ndarray:
        """Each move's mean value for the player choosing (what the search plays by)."""
        return self.values / self.visits


class MCTSAgent(Agent):
    """UCT over whole turns with max-n values; see the module docstring.

    * ``simulations``: simulations per decision; ignored when ``time_per_move`` (seconds) is given;
    * ``exploration``: the UCB1 constant, on values in 0..1;
    * ``rollout`` (``"heuristic"``, ``"random"``, ``"none"``), ``rollout_rounds`` (rounds of
      turns, ``None`` to the end of the game) and ``evaluation`` (``"heuristic"``,
      ``"score"``): how a simulation is scored;
    * ``value_scale``: VP of margin that count as a clear lead (tanh scale);
    * ``prior_visits``: how many visits the first estimate of a new option counts as (the
      search's trust in it against its own simulations; 1 by default);
    * ``determinizations``: independent trees, each with its own shuffled stack;
    * ``strict``: see :class:`concordia_env.agents.base.Agent` (also passed to the rules of thumb it plans with).
    """

    name = "mcts"
    #: True: :meth:`first_estimates` sets the first estimates of every new node's children
    guided = False

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
        prior_visits: float = PRIOR_VISITS,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, strict)
        agent = self.name
        simulations = int_option(simulations, "simulations", 1, MAX_SIMULATIONS, agent=agent)
        if time_per_move is not None:
            time_per_move = float_option(
                time_per_move, "time_per_move", 0.0, MAX_TIME_PER_MOVE, agent=agent, low_open=True
            )
        exploration = float_option(exploration, "exploration", 0.0, MAX_EXPLORATION, agent=agent)
        rollout = choice_option(rollout, "rollout", ROLLOUTS, agent=agent)
        if rollout_rounds is not None:
            rollout_rounds = int_option(rollout_rounds, "rollout_rounds", 1, MAX_ROLLOUT_ROUNDS, agent=agent)
        evaluation = choice_option(evaluation, "evaluation", EVALUATIONS, agent=agent)
        value_scale = float_option(value_scale, "value_scale", 0.0, MAX_VALUE_SCALE, agent=agent, low_open=True)
        determinizations = int_option(determinizations, "determinizations", 1, MAX_DETERMINIZATIONS, agent=agent)
        prior_visits = float_option(prior_visits, "prior_visits", 0.0, MAX_PRIOR_VISITS, agent=agent, low_open=True)
        self.simulations = simulations
        self.time_per_move = time_per_move
        self.exploration = exploration
        self.rollout = rollout
        self.rollout_rounds = rollout_rounds
        self.evaluation = evaluation
        self.value_scale = value_scale
        self.determinizations = determinizations
        self.prior_visits = prior_visits
        self._rules = HeuristicAgent(draw_seed(self.rng), strict=self.strict)
        self._noise = strategy.new_rng(0)
        self._plan: TurnPlan | None = None
        self._tree: strategy.Tree | None = None
        #: simulations run for the last search (diagnostics and tests)
        self.last_simulations = 0
        self._statistics: SearchStatistics | None = None

    @property
    def spec(self) -> str:
        """The spec that builds this agent's budget again (``mcts:200`` or ``mcts:time_per_move=1.0``)."""
        if self.time_per_move is None:
            return f"mcts:{self.simulations}"
        return f"mcts:time_per_move={self.time_per_move}"

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._rules.reset(draw_seed(self.rng))
        self._plan = None

    def last_search(self) -> SearchStatistics:
        """The root statistics of the last search: every move's first actions, visits and summed value.

        Expert iteration reads them as per-option labels; the move played is the best mean.
        A decision the agent did not search (a forced action, the rest of a planned turn) leaves
        the statistics of the search before it.
        """
        if self._statistics is None:
            raise RuntimeError("this agent has not searched yet")
        return self._statistics

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

    def table_options(self, num_players: int) -> tuple[str, float]:
        """The rollout and the prior visits of a search at a table of ``num_players`` (a subclass may vary them)."""
        return self.rollout, self.prior_visits

    def _settings(self, num_players: int) -> np.ndarray:
        turns = None if self.rollout_rounds is None else self.rollout_rounds * num_players
        rollout, prior_visits = self.table_options(num_players)
        return strategy.search_settings(
            self.exploration,
            self.value_scale,
            rollout,
            turns,
            self.evaluation,
            pause=self.guided,
            prior_visits=prior_visits,
        )

    def _search(self, game: Game) -> TurnPlan:
        """Run the trees; return the best root move as the plan of its actions on the real game."""
        self._noise = strategy.new_rng(draw_seed(self.rng))
        settings = self._settings(game.num_players)
        deadline = None if self.time_per_move is None else time.perf_counter() + self.time_per_move
        per_tree = max(1, self.simulations // self.determinizations)
        visits: dict[tuple[int, ...], float] = {}
        values: dict[tuple[int, ...], float] = {}
        status = np.zeros(STATUS_SIZE, dtype=np.int64)
        done = 0
        for k in range(self.determinizations):
            root = strategy.determinized(game.state, self._noise)
            self._tree = strategy.search_tree(root, self._tree)
            tree_deadline = None
            if deadline is not None:
                tree_deadline = time.perf_counter() + (deadline - time.perf_counter()) / (self.determinizations - k)
            done += self._run_tree(game, settings, per_tree, tree_deadline, status)
            first, tree_visits, tree_values = strategy.root_statistics(self._tree)
            for row, n, v in zip(first, tree_visits, tree_values, strict=True):
                key = tuple(int(a) for a in row if a >= 0)
                visits[key] = visits.get(key, 0.0) + float(n)
                values[key] = values.get(key, 0.0) + float(v)
        self.last_simulations = done
        moves = list(visits)
        self._statistics = SearchStatistics(
            moves, np.array([visits[m] for m in moves]), np.array([values[m] for m in moves])
        )
        self._rules.report_illegal(game, int(status[STATUS_ILLEGAL]))
        # the best mean value: with values this close, visit counts mostly reflect exploration
        best = max(visits, key=lambda key: (values[key] / visits[key], visits[key]))
        # the tree played on a shuffled stack: replan the chosen move's rest on the real game
        return self._rules.plan_turn(game, list(best))

    def _run_tree(
        self, game: Game, settings: np.ndarray, budget: int, deadline: float | None, status: np.ndarray
    ) -> int:
        """Simulations on the current tree: ``budget`` of them, or batches until ``deadline``; returns the count.

        The clock is read whenever the compiled search returns: after a batch, and after each
        expansion of a guided search (a simulation cut short there is simply not counted).
        """
        count = 0
        batch = 1
        model = self.search_model(game)
        while True:
            want = budget - count if deadline is None else batch
            start = time.perf_counter()
            tree = self._searched_tree()
            params = self._rules.params
            self._tree, ran, paused = strategy.simulate(
                tree, game.map.tables, params, ROLLOUT_PARAMS, settings, self._noise, want, status, model
            )
            count += ran
            if paused:
                self._guide(game)
            if deadline is None:
                if count >= budget:
                    return count
                continue
            now = time.perf_counter()
            if now >= deadline and count >= 1:
                return count
            if not paused:
                per_simulation = (now - start) / max(1, ran)
                batch = max(1, int(min(BATCH_SECONDS, deadline - now) / max(per_simulation, 1e-9)))

    def _guide(self, game: Game) -> None:
        """The search paused after an expansion: let :meth:`first_estimates` set the children's first estimates."""
        tree = self._searched_tree()
        node = strategy.expansion(tree)
        estimates = node.estimates.copy()
        self.first_estimates(game, node.state, node.afterstates, node.values, estimates)
        strategy.set_first_estimates(tree, estimates)

    def _searched_tree(self) -> strategy.Tree:
        """The tree of the search under way (made by ``_search`` before any simulation)."""
        if self._tree is None:
            raise RuntimeError("no search tree yet: _search makes it before simulating")
        return self._tree

    def search_model(self, game: Game) -> strategy.ModelArrays | None:
        """The learned model whose estimates start every new node's options (see the module docstring).

        ``None`` (the plain search): the heuristic evaluation's. A model's estimate replaces the
        heuristic's for the player choosing (in 2-player games the opponent's is its
        complement); an option that ends the game keeps its result.
        """
        return None

    def first_estimates(
        self, game: Game, state: np.ndarray, afterstates: np.ndarray, values: np.ndarray, estimates: np.ndarray
    ) -> None:
        """Change the first estimates (0..1, [option, player]) of a new node's children in place.

        Called only when ``guided`` is True, for every node the search expands: ``state`` is
        the node's position, ``afterstates`` and ``values`` its turn options' afterstates and
        every player's estimated final VP there; ``estimates`` hold the heuristic's squashed
        estimates (a finished game's result where an option ends the game). ``game`` is the
        real game the search is for. The plain search keeps the heuristic's estimates.
        """


ROLLOUTS = tuple(strategy.SEARCH_ROLLOUTS)
EVALUATIONS = tuple(strategy.SEARCH_EVALUATIONS)
