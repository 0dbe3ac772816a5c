"""``learned``: a trained afterstate model choosing among whole turns.

``concordia_env.agents.make("learned")`` plays at once with the models shipped in the package,
one per player count (``agents/models/``: 2-player Italia, 3-, 4- and 5-player Imperium; how
each was made, its config and its report are in ``docs/training.md`` and ``docs/reports/``).
A game uses the shipped model of its player count (on any map: the features carry no map), or
of the nearest one. ``path=`` loads one model for every game
(``learned:runs/afterstate-…/model.npz`` on a command line).

At every decision with a choice, the agent takes the turn options of the pending decision on
a determinized copy of the game (every legal action, each followed to the end of the turn by
the heuristic's rules of thumb), scores every option's afterstate with the model and plays
the best one's first action. At the turn's next decision it decides again (``replan``, the
default on the maps its models were trained on), so the model, not a rule of thumb, chooses
where to build, what to buy and what to trade. That decision is one call of the compiled
player (:class:`~concordia_env.strategy.players.SeatPlayer`,
the very player a batch runs inside :mod:`concordia_env.envs.vector_env`); the readable
Python route (:func:`concordia_env.agents.learned_model.candidates`, the model's scores,
:func:`concordia_env.agents.heuristic.follow`) serves what needs Python: the candidates a
training run records (``record``) and a sampled choice (``temperature``). Both decide alike
(tests/agents/test_learned_replan.py). ``replan=False`` plays the rest of the chosen turn as
that option planned it (the rest of a turn never depends on the hidden stack, so the plan
fits the real game), and decides again only where the game leaves the plan (another player
keeps other goods after an overflow, a card that comes up differs from the determinized
draw). What each setting measured is in docs/benchmarks.md.

* ``simulations`` > 0 (or ``time_per_move`` in seconds) plays with a search instead: the
  project's MCTS over whole turns (:mod:`concordia_env.agents.mcts`), where the first estimate of every
  turn option for the player choosing it is the model's score instead of the heuristic
  evaluation. At a 2-player table the model also scores every simulation where it stops (no
  rollout), and its first estimate of an option counts as 10 visits (:data:`TWO_PLAYER_SEARCH`);
  with more players the search keeps MCTS's settings (a heuristic rollout of one round, 1
  visit). ``rollout``, ``rollout_rounds`` and ``prior_visits`` (how many of the search's
  visits the model's first estimate counts as) set them at every table, as ``mcts``'s options do;
* ``replan`` (search-free play): decide at every decision (True), see above, or follow the
  chosen turn (False). Unless told, it replans on the maps the shipped models were trained on
  (:data:`REPLAN_MAPS`: Imperium and Italia, where it gains 5 to 23 points) and follows the
  chosen turn on Aegyptus and Creta, where replanning measured 3.5 to 7.5 points worse
  (docs/benchmarks.md): their later decisions meet the map's own rules, which the rules of
  thumb know and the models never saw. The search follows the plan of the move it chose, as
  ``mcts`` does;
* ``temperature`` > 0 samples a turn from ``softmax(score / temperature)`` instead of taking
  the best one, with probability ``epsilon`` per decision (training's exploration);
* ``record=True`` keeps every decision it takes in :attr:`LearnedAgent.trace`: the player,
  the candidates (options and features) and the index of the one played (training's data);
* ``strict``: see :class:`concordia_env.agents.base.Agent` (an illegal planned action raises).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import Game, strategy
from concordia_env.engine.errors import ArgumentTypeError, short_repr
from concordia_env.engine.rules import pcg64
from concordia_env.engine.state import CURRENT_PLAYER, PHASE, PHASE_GAME_OVER
from concordia_env.strategy import LEARNED, LEARNED_PLANNED, CompiledPlayer, ModelArrays, SeatPlayer

from .base import Agent, draw_seed
from .heuristic import HeuristicAgent, TurnPlan, follow
from .learned_model import MARGIN_SCALE, AfterstateModel, Candidates, candidates
from .mcts import MAX_PRIOR_VISITS, MCTSAgent
from .option_checks import MAX_SIMULATIONS, MAX_TIME_PER_MOVE, bool_option, float_option, int_option

#: the models shipped in the package, by the player count they were trained for
SHIPPED_MODELS = {
    2: "learned-italia-2p.npz",
    3: "learned-imperium-3p.npz",
    4: "learned-imperium-4p.npz",
    5: "learned-imperium-5p.npz",
}
#: the rounds of a search's rollout unless told (MCTS's own default)
DEFAULT_ROLLOUT_ROUNDS = 1
#: the search's settings at a 2-player table, unless the options say otherwise. There the model's
#: estimate is both players' (the opponent's is its complement), and it judges a position better
#: than a round of the rollout policy does: simulations are scored by the model alone (no rollout)
#: and its first estimate of an option counts as 10 visits (the sweep that chose them is in
#: docs/benchmarks.md). With more players the others keep the heuristic's estimates, so there the
#: search keeps MCTS's settings.
TWO_PLAYER_SEARCH: dict[str, Any] = {"rollout": "none", "prior_visits": 10.0}
#: the highest sampling temperature (scores are margins of order 1: far beyond any useful value)
MAX_TEMPERATURE = 1e3
#: the maps where the search-free agent decides at every decision unless told (``replan``): those the
#: shipped models were trained on; elsewhere it follows the turn it chose
REPLAN_MAPS = frozenset({"imperium", "italia"})
#: the model of the 2-player game, the README's main example
DEFAULT_MODEL = SHIPPED_MODELS[2]


def shipped_model_path(num_players: int = 2) -> Path:
    """The shipped model for this player count, or for the nearest count that has one."""
    folder = resources.files("concordia_env.agents") / "models"
    present = [n for n, name in SHIPPED_MODELS.items() if (folder / name).is_file()]
    if not present:
        raise FileNotFoundError(f"no shipped afterstate model in {folder} (see docs/training.md)")
    best = min(present, key=lambda n: (abs(n - num_players), n))
    return Path(str(folder / SHIPPED_MODELS[best]))


def default_model_path() -> Path:
    """Where the shipped 2-player model lies inside the installed package."""
    return shipped_model_path(2)


class LearnedAgent(Agent):
    """Plays the best-scored turn option; see the module docstring."""

    name = "learned"

    @classmethod
    def files_read(cls, options: dict[str, Any], num_players: int) -> list[Path]:
        """The model file: ``path=`` if given, else the shipped model of this player count."""
        path = options.get("path")
        if isinstance(path, (str, Path)):
            return [Path(path)]
        if options.get("model") is not None:
            return []
        return [shipped_model_path(num_players)]

    def __init__(
        self,
        seed: int | None = None,
        path: str | Path | None = None,
        model: AfterstateModel | None = None,
        temperature: float = 0.0,
        epsilon: float = 1.0,
        record: bool = False,
        simulations: int = 0,
        time_per_move: float | None = None,
        prior_visits: float | None = None,
        rollout: str | None = None,
        rollout_rounds: int | None = DEFAULT_ROLLOUT_ROUNDS,
        replan: bool | None = None,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, strict)
        agent = self.name
        if model is not None and path is not None:
            raise ValueError("give either a model or a path, not both")
        if path is not None and not isinstance(path, (str, Path)):
            raise ArgumentTypeError(f"learned option 'path' must be a file path, got {short_repr(path)}")
        if model is not None and not isinstance(model, AfterstateModel):
            raise ArgumentTypeError(f"learned option 'model' must be an AfterstateModel, got {short_repr(model)}")
        #: the one model to play with (``path`` or ``model``); None: the shipped one per player count
        self.path = Path(path) if path is not None else None
        self.model = model if model is not None else AfterstateModel.load(self.path) if self.path is not None else None
        self.temperature = float_option(temperature, "temperature", 0.0, MAX_TEMPERATURE, agent=agent)
        self.epsilon = float_option(epsilon, "epsilon", 0.0, 1.0, agent=agent)
        self.record = bool_option(record, "record", agent=agent)
        #: decide at every decision (True) or follow the chosen turn's plan (search-free play); None:
        #: by the map (:meth:`replans_on`)
        self.replan = None if replan is None else bool_option(replan, "replan", agent=agent)
        simulations = int_option(simulations, "simulations", 0, MAX_SIMULATIONS, agent=agent)
        if time_per_move is not None:
            time_per_move = float_option(
                time_per_move, "time_per_move", 0.0, MAX_TIME_PER_MOVE, agent=agent, low_open=True
            )
        if prior_visits is not None:
            prior_visits = float_option(prior_visits, "prior_visits", 0.0, MAX_PRIOR_VISITS, agent=agent, low_open=True)
        self.simulations = simulations
        self.time_per_move = time_per_move
        self._search: ModelGuidedSearch | None = None
        if simulations > 0 or time_per_move is not None:
            if self.record or self.temperature > 0:
                raise ValueError("record and temperature apply to the search-free agent (simulations=0)")
            given = {"rollout": rollout, "prior_visits": prior_visits}
            self._search = ModelGuidedSearch(
                self.model_for,
                seed=seed,
                simulations=max(1, simulations),
                time_per_move=time_per_move,
                rollout_rounds=rollout_rounds,
                strict=self.strict,
                two_player={k: v for k, v in TWO_PLAYER_SEARCH.items() if given[k] is None},
                **{k: v for k, v in given.items() if v is not None},
            )
        else:
            for option, value, default in (
                ("prior_visits", prior_visits, None),
                ("rollout", rollout, None),
                ("rollout_rounds", rollout_rounds, DEFAULT_ROLLOUT_ROUNDS),
            ):
                if value != default:
                    raise ValueError(f"{option} applies to the search (simulations or time_per_move)")
        self._rules = HeuristicAgent(draw_seed(self.rng), strict=self.strict)
        self._plan: TurnPlan | None = None
        #: the greedy agent's decisions, compiled (``strategy.players``), made for a player count on first use
        self._seat: SeatPlayer | None = None
        #: (player count, replanning) the compiled player was made for
        self._seat_table: tuple[int, bool] = (0, True)
        self._seat_state = self.compiled_state()
        #: (player, candidates, index played) for every decision taken, when recording
        self.trace: list[tuple[int, Candidates, int]] = []

    @property
    def spec(self) -> str:
        return self.name if self.path is None else f"{self.name}:{self.path}"

    def model_for(self, game: Game) -> AfterstateModel:
        """The model that plays ``game``: the given one, else the shipped one for its player count."""
        return self.model_for_players(game.num_players)

    def model_for_players(self, count: int) -> AfterstateModel:
        """The model that plays games of ``count`` players: the given one, else the shipped one."""
        if self.model is not None:
            return self.model
        if count not in _SHIPPED:
            _SHIPPED[count] = AfterstateModel.load(shipped_model_path(count))
        return _SHIPPED[count]

    # ------------------------------------------------------------------ inside a batch (envs.opponents)
    def replans_on(self, map_name: str | None) -> bool:
        """Whether the search-free agent decides at every decision on this map: ``replan``, else :data:`REPLAN_MAPS`."""
        if self.replan is not None:
            return self.replan
        return map_name is None or map_name in REPLAN_MAPS

    def compiled_player(self, num_players: int, map_name: str | None = None) -> CompiledPlayer:
        """This agent as a compiled player (:mod:`concordia_env.strategy.players`): the greedy agent only.

        ``map_name``: the map of the games it will play (whether it replans there, :meth:`replans_on`).
        ``ValueError`` for a searching or sampling agent, which has no compiled twin.
        """
        if self._search is not None or self.temperature > 0 or self.record:
            raise ValueError(f"{self!r}: only the greedy learned agent (no search, temperature or record) is compiled")
        kind = LEARNED if self.replans_on(map_name) else LEARNED_PLANNED
        return CompiledPlayer(kind, self._rules.params, self.model_for_players(num_players).compiled)

    def compiled_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The generator states of a compiled twin after ``reset``: numpy's (for each decision's seed), no noise."""
        return pcg64.from_generator(self.rng), np.zeros(1, dtype=np.uint64)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._rules.reset(draw_seed(self.rng))
        self._plan = None
        self._seat = None
        self._seat_state = self.compiled_state()
        self.trace = []
        if self._search is not None:
            self._search.reset(seed)

    def act(self, game: Game) -> int:
        """Legal actions, then one strategy call: the search, the compiled greedy player, or Python's route.

        Python's route (:meth:`_act_recording_or_sampling`) is kept for what needs Python: the
        candidates a training run records, and a sampled choice.
        """
        if self._search is not None:
            return self._search.act(game)
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        if self.record or self.temperature > 0:
            return self._act_recording_or_sampling(game, legal)
        seat = self._seat_for(game.num_players, game.map.name)
        action, illegal = seat.act(np.array(game.state), game.map.tables, game.legal_mask())
        self._rules.report_illegal(game, illegal)
        return self.checked(game, action, legal)

    def _seat_for(self, num_players: int, map_name: str) -> SeatPlayer:
        """The compiled greedy player for games of ``num_players`` on ``map_name`` (its generators carry on)."""
        table = (num_players, self.replans_on(map_name))
        if self._seat is None or self._seat_table != table:
            if self._seat is not None:
                self._seat_state = (self._seat.rng, self._seat.noise)
            self._seat = SeatPlayer(self.compiled_player(num_players, map_name), *self._seat_state)
            self._seat_table = table
        return self._seat

    def _act_recording_or_sampling(self, game: Game, legal: np.ndarray) -> int:
        """The decision in Python, where training needs it: the candidates kept (``record``) or a sampled choice."""
        planned = None if self._plan is None or self.replans_on(game.map.name) else self._plan.next_action(game)
        if planned is not None:
            return self.checked(game, planned, legal)
        cands = candidates(game, self._rules, self.rng)
        scores = cands.scores(self.model_for(game))
        choice = self._choose(scores)
        if self.record:
            self.trace.append((game.current_player, cands, choice))
        # the options were played on a shuffled stack: follow the chosen turn on the real game
        self._plan = follow(game, cands.plan(choice))
        return self.checked(game, self._plan.actions[0], legal)

    def _choose(self, scores: np.ndarray) -> int:
        if self.temperature > 0 and self.rng.random() < self.epsilon:
            z = (scores - scores.max()) / self.temperature
            p = np.exp(z)
            return int(self.rng.choice(len(scores), p=p / p.sum()))
        return int(np.argmax(scores))


#: shipped models loaded so far, by player count (shared by every agent of the process)
_SHIPPED: dict[int, AfterstateModel] = {}


class ModelGuidedSearch(MCTSAgent):
    """MCTS over whole turns whose first estimate of an option, for the player choosing it, is the model's.

    The model predicts the chooser's final margin; it is squashed like every MCTS value
    (``0.5 + 0.5·tanh(margin / value_scale)``). In a 2-player game the opponent's estimate is
    its complement; with more players the others keep the heuristic's estimates. An option
    that ends the game keeps its result. ``two_player`` may set ``rollout`` and
    ``prior_visits`` for 2-player tables apart from the other options (what the ``learned``
    agent does, :data:`TWO_PLAYER_SEARCH`); expert iteration's teacher takes its options as
    given. The model runs inside the compiled search
    (:func:`concordia_env.strategy.search.guided_estimates`), so a guided simulation costs
    about what a plain one does.
    """

    name = "learned-search"

    def __init__(
        self,
        model_for: Callable[[Game], AfterstateModel],
        two_player: dict[str, Any] | None = None,
        **options: object,
    ) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.model_for = model_for
        #: ``rollout`` and ``prior_visits`` at 2-player tables where they differ from the options'
        #: (the ``learned`` agent's :data:`TWO_PLAYER_SEARCH`); empty: the same at every table
        self.two_player = dict(two_player or {})
        unknown = set(self.two_player) - {"rollout", "prior_visits"}
        if unknown:
            raise ValueError(f"two_player sets rollout and prior_visits only, got {sorted(unknown)}")
        if self.two_player:  # checked like the options themselves
            MCTSAgent(simulations=1, **self.two_player)

    def table_options(self, num_players: int) -> tuple[str, float]:
        rollout, prior_visits = super().table_options(num_players)
        if num_players == 2:
            rollout = self.two_player.get("rollout", rollout)
            prior_visits = float(self.two_player.get("prior_visits", prior_visits))
        return rollout, prior_visits

    def search_model(self, game: Game) -> ModelArrays:
        return self.model_for(game).compiled

    def first_estimates(
        self, game: Game, state: np.ndarray, afterstates: np.ndarray, values: np.ndarray, estimates: np.ndarray
    ) -> None:
        """The model's first estimates set from Python: what the compiled search computes by itself.

        The search reads them only with ``guided = True`` (a pause after every expansion);
        ``tests/strategy/test_guided_search.py`` runs it that way, without the compiled model,
        and checks that both searches are the same. Here for checking and inspection.
        """
        mover = int(state[CURRENT_PLAYER])
        remaining = strategy.remaining_fraction(state, game.map.tables)
        model = self.model_for(game).compiled
        scores = strategy.afterstate_scores(afterstates, game.map.tables, values, mover, remaining, model)
        running = afterstates[:, PHASE] != PHASE_GAME_OVER
        mine = 0.5 + 0.5 * np.tanh(scores.astype(np.float64) * MARGIN_SCALE / self.value_scale)
        estimates[running, mover] = mine[running]
        if game.num_players == 2:
            estimates[running, 1 - mover] = 1.0 - mine[running]


__all__ = [
    "DEFAULT_MODEL",
    "REPLAN_MAPS",
    "SHIPPED_MODELS",
    "LearnedAgent",
    "ModelGuidedSearch",
    "default_model_path",
    "shipped_model_path",
]
