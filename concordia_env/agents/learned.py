"""``learned``: a trained afterstate model choosing among whole turns, one class per way of deciding.

``concordia_env.agents.make("learned")`` plays at once with the models shipped in the package,
one per player count (``agents/models/``: 2-player Italia, 3-, 4- and 5-player Imperium; how
each was made, its config and its report are in ``docs/training.md`` and ``docs/reports/``).
A game uses the shipped model of its player count (on any map: the features carry no map), or
of the nearest one. ``path=`` loads one model for every game
(``learned:runs/afterstate-…/model.npz`` on a command line).

Every learned agent is a :class:`LearnedAgent` (the model it plays with, ``path`` or ``model``);
how it decides is its class, and the options of a ``learned`` spec name the class
(:func:`learned_agent`, which ``LearnedAgent(**options)`` calls too):

* no option of the others (``path``, ``model``, ``replan``, ``seed``, ``strict`` only):
  :class:`GreedyLearnedAgent`, the best-scored turn option, one compiled call per decision;
* ``simulations`` > 0 or ``time_per_move`` (and ``rollout``, ``rollout_rounds``, ``prior_visits``):
  :class:`LearnedSearchAgent`, the project's MCTS guided by the model;
* ``temperature`` > 0 (and ``epsilon``): :class:`SampledLearnedAgent`, in Python, a turn option
  sampled from the scores;
* ``record=True``: a :class:`~concordia_env.agents.recording.RecordingAgent` around a
  :class:`SampledLearnedAgent`, deciding as that agent does and keeping every decision.

**Without search** (:class:`SearchFreeLearnedAgent`), at every decision with a choice the agent
takes the turn options of the pending decision on a determinized copy of the game (every legal
action, each followed to the end of the turn by the heuristic's rules of thumb), scores every
option's afterstate with the model and plays the best one's first action. At the turn's next
decision it decides again (``replan``, the default on the maps its models were trained on), so
the model, not a rule of thumb, chooses where to build, what to buy and what to trade.
``replan=False`` plays the rest of the chosen turn as that option planned it (the rest of a turn
never depends on the hidden stack, so the plan fits the real game), and decides again only where
the game leaves the plan (another player keeps other goods after an overflow, a card that comes
up differs from the determinized draw). Unless told, it replans on the maps the shipped models
were trained on (:data:`REPLAN_MAPS`: Imperium and Italia, where it gains 5 to 23 points) and
follows the chosen turn on Aegyptus and Creta, where replanning measured 3.5 to 7.5 points worse
(docs/benchmarks.md): their later decisions meet the map's own rules, which the rules of thumb
know and the models never saw.

* :class:`GreedyLearnedAgent` takes each decision in one call of the compiled player
  (:class:`~concordia_env.strategy.players.SeatPlayer`, the very player a batch runs inside
  :mod:`concordia_env.envs.vector_env`): the only learned agent with a compiled twin
  (``compiled_player``), so the only one that plays inside a batch.
* :class:`SampledLearnedAgent` takes it in readable Python
  (:func:`concordia_env.agents.learned_model.candidates`, the model's scores,
  :func:`concordia_env.agents.heuristic.follow`), which serves what needs Python: with
  ``temperature`` > 0 it samples a turn from ``softmax(score / temperature)`` instead of taking the
  best one, with probability ``epsilon`` per decision (training's exploration), and it shows each
  decision's candidates (``last_decision``), which ``record=True`` keeps (training's data). At
  temperature 0 it decides as the greedy agent does (tests/agents/test_learned_replan.py).

**With search** (:class:`LearnedSearchAgent`, ``simulations`` > 0 or ``time_per_move`` in
seconds): the project's MCTS over whole turns (:mod:`concordia_env.agents.mcts`,
:class:`~concordia_env.agents.learned_search.ModelGuidedSearch`), where the first estimate of
every turn option for the player choosing it is the model's score instead of the heuristic
evaluation. At a 2-player table the model also scores every simulation where it stops (no
rollout), and its first estimate of an option counts as 10 visits (:data:`TWO_PLAYER_SEARCH`);
with more players the search keeps MCTS's settings (a heuristic rollout of one round, 1 visit).
``rollout``, ``rollout_rounds`` and ``prior_visits`` (how many of the search's visits the model's
first estimate counts as) set them at every table, as ``mcts``'s options do. The search follows
the plan of the move it chose, as ``mcts`` does.

An option of one way of deciding given to another is refused (``learned:temperature=1,simulations=8``,
``learned:rollout=none``). ``strict``: see :class:`concordia_env.agents.base.Agent` (an illegal
planned action raises). What each setting measured is in docs/benchmarks.md.
"""

from __future__ import annotations

import functools
import inspect
from abc import ABCMeta
from importlib import resources
from pathlib import Path
from typing import Any, cast

import numpy as np

from concordia_env import Game
from concordia_env.engine.errors import ArgumentTypeError, short_repr
from concordia_env.engine.rules import pcg64
from concordia_env.strategy import LEARNED, LEARNED_PLANNED, CompiledPlayer, SeatPlayer

from .base import Agent, draw_seed
from .heuristic import HeuristicAgent, TurnPlan, follow
from .learned_model import AfterstateModel, candidates
from .learned_search import DEFAULT_ROLLOUT_ROUNDS, TWO_PLAYER_SEARCH, ModelGuidedSearch
from .mcts import MAX_PRIOR_VISITS
from .option_checks import MAX_SIMULATIONS, MAX_TIME_PER_MOVE, bool_option, float_option, int_option
from .recording import Decision, RecordingAgent

#: the models shipped in the package, by the player count they were trained for
SHIPPED_MODELS = {
    2: "learned-italia-2p.npz",
    3: "learned-imperium-3p.npz",
    4: "learned-imperium-4p.npz",
    5: "learned-imperium-5p.npz",
}
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


#: shipped models loaded so far, by player count (shared by every agent of the process)
_SHIPPED: dict[int, AfterstateModel] = {}


class _BuiltFromOptions(ABCMeta):
    """The metaclass of :class:`LearnedAgent`: ``LearnedAgent(**options)`` builds the class its options name.

    Calling :class:`LearnedAgent` itself calls :func:`learned_agent`, as ``pathlib.Path(...)``
    builds a ``PosixPath``; its subclasses are built as any class is. ``inspect.signature``
    (which the registry checks a spec's options against) shows the options each takes.
    """

    def __call__(cls, *args: Any, **options: Any) -> Any:
        if cls is LearnedAgent:
            return learned_agent(*args, **options)
        return super().__call__(*args, **options)

    @property
    def __signature__(cls) -> inspect.Signature:
        if cls is LearnedAgent:
            return inspect.signature(learned_agent)
        return inspect.signature(functools.partial(cast(Any, cls).__init__, None))  # without ``self``


class LearnedAgent(Agent, metaclass=_BuiltFromOptions):
    """What every learned agent is: an afterstate model per player count; see the module docstring.

    ``LearnedAgent(**options)`` builds the agent of the options (:func:`learned_agent`): the
    ``learned`` spec's classes are its subclasses, and ``record=True`` wraps one. Type checkers
    see a class, not a builder: typed code builds a subclass or calls :func:`learned_agent`.
    """

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
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, strict)
        if model is not None and path is not None:
            raise ValueError("give either a model or a path, not both")
        if path is not None and not isinstance(path, (str, Path)):
            raise ArgumentTypeError(f"learned option 'path' must be a file path, got {short_repr(path)}")
        if model is not None and not isinstance(model, AfterstateModel):
            raise ArgumentTypeError(f"learned option 'model' must be an AfterstateModel, got {short_repr(model)}")
        #: the one model to play with (``path`` or ``model``); None: the shipped one per player count
        self.path = Path(path) if path is not None else None
        self.model = model if model is not None else AfterstateModel.load(self.path) if self.path is not None else None

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


class SearchFreeLearnedAgent(LearnedAgent):
    """The learned agents without search: they score the turn options of a decision (module docstring).

    ``replan``: decide at every decision (True) or follow the chosen turn's plan (False); None:
    by the map (:meth:`replans_on`).
    """

    def __init__(
        self,
        seed: int | None = None,
        path: str | Path | None = None,
        model: AfterstateModel | None = None,
        replan: bool | None = None,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, path, model, strict)
        #: decide at every decision (True) or follow the chosen turn's plan; None: by the map (:meth:`replans_on`)
        self.replan = None if replan is None else bool_option(replan, "replan", agent=self.name)
        #: the rules of thumb that finish every turn option (and the compiled player's weights)
        self._rules = HeuristicAgent(draw_seed(self.rng), strict=self.strict)

    def replans_on(self, map_name: str | None) -> bool:
        """Whether it decides at every decision on this map: ``replan``, else :data:`REPLAN_MAPS`."""
        if self.replan is not None:
            return self.replan
        return map_name is None or map_name in REPLAN_MAPS

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._rules.reset(draw_seed(self.rng))


class GreedyLearnedAgent(SearchFreeLearnedAgent):
    """Plays the best-scored turn option, one call of the compiled player per decision (what ``learned`` is)."""

    def __init__(
        self,
        seed: int | None = None,
        path: str | Path | None = None,
        model: AfterstateModel | None = None,
        replan: bool | None = None,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, path, model, replan, strict)
        #: the compiled player, made for a player count and map on first use
        self._seat: SeatPlayer | None = None
        #: (player count, replanning) the compiled player was made for
        self._seat_table: tuple[int, bool] = (0, True)
        self._seat_state = self.compiled_state()

    # ------------------------------------------------------------------ inside a batch (envs.opponents)
    def compiled_player(self, num_players: int, map_name: str | None = None) -> CompiledPlayer:
        """This agent as a compiled player (:mod:`concordia_env.strategy.players`).

        ``map_name``: the map of the games it will play (whether it replans there, :meth:`replans_on`).
        """
        kind = LEARNED if self.replans_on(map_name) else LEARNED_PLANNED
        return CompiledPlayer(kind, self._rules.params, self.model_for_players(num_players).compiled)

    def compiled_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The generator states of a compiled twin after ``reset``: numpy's (for each decision's seed), no noise."""
        return pcg64.from_generator(self.rng), np.zeros(1, dtype=np.uint64)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._seat = None
        self._seat_state = self.compiled_state()

    def act(self, game: Game) -> int:
        """Legal actions, then one call of the compiled player."""
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        seat = self._seat_for(game.num_players, game.map.name)
        action, illegal = seat.act(np.array(game.state), game.map.tables, game.legal_mask(), len(legal))
        self._rules.report_illegal(game, illegal)
        return self.checked(game, action, legal)

    def _seat_for(self, num_players: int, map_name: str) -> SeatPlayer:
        """The compiled player for games of ``num_players`` on ``map_name`` (its generators carry on)."""
        table = (num_players, self.replans_on(map_name))
        if self._seat is None or self._seat_table != table:
            if self._seat is not None:
                self._seat_state = (self._seat.rng, self._seat.noise)
            self._seat = SeatPlayer(self.compiled_player(num_players, map_name), *self._seat_state)
            self._seat_table = table
        return self._seat


class SampledLearnedAgent(SearchFreeLearnedAgent):
    """Decides in Python: samples a turn option from the scores (``temperature``), and shows each decision.

    At temperature 0 it takes the best option, as :class:`GreedyLearnedAgent` does. Its last
    decision among candidates is :attr:`last_decision` (what :class:`RecordingAgent` keeps).
    """

    def __init__(
        self,
        seed: int | None = None,
        path: str | Path | None = None,
        model: AfterstateModel | None = None,
        temperature: float = 0.0,
        epsilon: float = 1.0,
        replan: bool | None = None,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, path, model, replan, strict)
        #: sample from ``softmax(score / temperature)`` (0: take the best option)
        self.temperature = float_option(temperature, "temperature", 0.0, MAX_TEMPERATURE, agent=self.name)
        #: the share of decisions that sample (the others take the best option)
        self.epsilon = float_option(epsilon, "epsilon", 0.0, 1.0, agent=self.name)
        #: the turn being followed (``replan=False``)
        self._plan: TurnPlan | None = None
        #: the last move's decision among candidates; None after a forced or planned move
        self.last_decision: Decision | None = None

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None
        self.last_decision = None

    def act(self, game: Game) -> int:
        """The next action of the turn being followed, else a decision among the turn options."""
        self.last_decision = None
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        planned = None if self._plan is None or self.replans_on(game.map.name) else self._plan.next_action(game)
        if planned is not None:
            return self.checked(game, planned, legal)
        cands = candidates(game, self._rules, self.rng)
        choice = self._choose(cands.scores(self.model_for(game)))
        self.last_decision = Decision(game.current_player, cands, choice)
        # the options were played on a shuffled stack: follow the chosen turn on the real game
        self._plan = follow(game, cands.plan(choice))
        return self.checked(game, self._plan.actions[0], legal)

    def _choose(self, scores: np.ndarray) -> int:
        if self.temperature > 0 and self.rng.random() < self.epsilon:
            z = (scores - scores.max()) / self.temperature
            p = np.exp(z)
            return int(self.rng.choice(len(scores), p=p / p.sum()))
        return int(np.argmax(scores))


class LearnedSearchAgent(LearnedAgent):
    """The project's MCTS over whole turns, guided by the model (:class:`ModelGuidedSearch`); module docstring.

    ``simulations`` per decision, or ``time_per_move`` seconds (then ``simulations`` may be 0).
    ``rollout`` and ``prior_visits`` not given: :data:`TWO_PLAYER_SEARCH` at a 2-player table,
    MCTS's own elsewhere.
    """

    def __init__(
        self,
        seed: int | None = None,
        path: str | Path | None = None,
        model: AfterstateModel | None = None,
        simulations: int = 0,
        time_per_move: float | None = None,
        prior_visits: float | None = None,
        rollout: str | None = None,
        rollout_rounds: int | None = DEFAULT_ROLLOUT_ROUNDS,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, path, model, strict)
        self.simulations = _checked_simulations(simulations)
        self.time_per_move = _checked_time_per_move(time_per_move)
        if not _searches(self.simulations, self.time_per_move):
            raise ValueError("the learned search needs simulations > 0 or a time_per_move")
        if prior_visits is not None:
            prior_visits = float_option(
                prior_visits, "prior_visits", 0.0, MAX_PRIOR_VISITS, agent=self.name, low_open=True
            )
        given = {"rollout": rollout, "prior_visits": prior_visits}
        self._search = ModelGuidedSearch(
            self.model_for,
            seed=seed,
            simulations=max(1, self.simulations),
            time_per_move=self.time_per_move,
            rollout_rounds=rollout_rounds,
            strict=self.strict,
            two_player={k: v for k, v in TWO_PLAYER_SEARCH.items() if given[k] is None},
            **{k: v for k, v in given.items() if v is not None},
        )

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._search.reset(seed)

    def act(self, game: Game) -> int:
        return self._search.act(game)


def _checked_simulations(simulations: int) -> int:
    return int_option(simulations, "simulations", 0, MAX_SIMULATIONS, agent=LearnedAgent.name)


def _checked_time_per_move(time_per_move: float | None) -> float | None:
    if time_per_move is None:
        return None
    return float_option(time_per_move, "time_per_move", 0.0, MAX_TIME_PER_MOVE, agent=LearnedAgent.name, low_open=True)


def _searches(simulations: int, time_per_move: float | None) -> bool:
    """Whether these options ask for the search."""
    return simulations > 0 or time_per_move is not None


def _refuse_given(given: dict[str, tuple[Any, Any]], where: str) -> None:
    """``ValueError`` for the first option given away from its default (``{name: (value, default)}``)."""
    for option, (value, default) in given.items():
        if value != default:
            raise ValueError(f"{option} applies to {where}")


def learned_agent(
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
) -> Agent:
    """The learned agent these options name (the ``learned`` spec; the table of the module docstring).

    An option of another way of deciding than the one the options name raises ``ValueError``.
    """
    simulations, time_per_move = _checked_simulations(simulations), _checked_time_per_move(time_per_move)
    temperature = float_option(temperature, "temperature", 0.0, MAX_TEMPERATURE, agent=LearnedAgent.name)
    epsilon = float_option(epsilon, "epsilon", 0.0, 1.0, agent=LearnedAgent.name)
    record = bool_option(record, "record", agent=LearnedAgent.name)
    sampled = record or temperature > 0
    if not sampled:
        _refuse_given({"epsilon": (epsilon, 1.0)}, "a sampled choice (temperature > 0)")
    if _searches(simulations, time_per_move):
        search_free = {"record": (record, False), "temperature": (temperature, 0.0), "replan": (replan, None)}
        _refuse_given(search_free, "the search-free agent (simulations=0)")
        return LearnedSearchAgent(
            seed, path, model, simulations, time_per_move, prior_visits, rollout, rollout_rounds, strict
        )
    search: dict[str, tuple[Any, Any]] = {"prior_visits": (prior_visits, None), "rollout": (rollout, None)}
    search["rollout_rounds"] = (rollout_rounds, DEFAULT_ROLLOUT_ROUNDS)
    _refuse_given(search, "the search (simulations or time_per_move)")
    if not sampled:
        return GreedyLearnedAgent(seed, path, model, replan, strict)
    agent = SampledLearnedAgent(seed, path, model, temperature, epsilon, replan, strict)
    return RecordingAgent(agent) if record else agent


__all__ = [
    "DEFAULT_MODEL",
    "REPLAN_MAPS",
    "SHIPPED_MODELS",
    "TWO_PLAYER_SEARCH",
    "GreedyLearnedAgent",
    "LearnedAgent",
    "LearnedSearchAgent",
    "ModelGuidedSearch",
    "RecordingAgent",
    "SampledLearnedAgent",
    "SearchFreeLearnedAgent",
    "default_model_path",
    "learned_agent",
    "shipped_model_path",
]
