"""The agent registry, and the players of the other seats in :class:`~concordia_env.envs.gym_env.SingleAgentEnv`.

This module is the one agent registry of the project: it says which agent names exist and
what builds each. The environments read it to turn ``"heuristic"`` into a player, and so do
:mod:`concordia_env.agents` (``agents.names``, ``agents.make``, ``agents.from_spec``) and
everything built on them (the tournament, the training evaluation, the terminal game). It
sits in ``envs`` because the environments are below the agents in the package graph
(engine ← envs ← agents ← tools / training / benchmarks; ``tests/test_layering.py``), so
it knows agents only by their names:

* an **opponent** is any object with ``act(game) -> action`` and ``reset(seed)``
  (:class:`Opponent`; every ``agents.Agent`` is one), or a plain callable
  ``f(game) -> action``, which :func:`resolve` wraps;
* a **spec string** (``"heuristic"``, ``"mcts:time_per_move=1.0"``) is built by the
  *builder* registered for its name, the part before the first ``:``. A builder is a
  function ``build(spec) -> Opponent`` that parses the whole spec.

Builders are found in two places, the way Gymnasium and PettingZoo find the environments of
plugins:

* the entry-point group ``concordia_env.agents`` (``ENTRY_POINT_GROUP``): this
  distribution's ``pyproject.toml`` lists every agent of :mod:`concordia_env.agents` there
  with ``agents.from_spec`` as the builder, so ``gymnasium.make("Concordia-v1",
  opponents="heuristic")`` works without importing the agents first; another installed
  package adds its own names the same way;
* :func:`register`, at run time: importing :mod:`concordia_env.agents` registers its agents
  (also those added later with ``agents.register``), which covers a source checkout that is
  not installed, and ``register(name, builder)`` adds any other.

A name registered at run time wins over an entry point of the same name. An unknown name
raises ``ValueError`` listing the known ones; what a builder raises for a bad spec (e.g.
``agents.from_spec``'s ``ValueError`` for ``"mcts:simulations=-1"``) passes through.

Opponents inside a batch
------------------------
``VectorGame(..., opponents=...)`` (and the vector env on it) plays the other seats of every
row in compiled code (:mod:`concordia_env.strategy.players`), with :class:`CompiledOpponents`.
An opponent qualifies when it is a :class:`CompiledOpponent`: besides ``act`` and ``reset``
it answers ``compiled_player(num_players, map_name)`` (what it is made of, for games of that
many players on that map: ``random``, ``heuristic`` or
the greedy ``learned`` agent, with its weights and model) and ``compiled_state()`` (its
generators' states after a ``reset``). The agents of those names do; any other opponent
is refused with ``ValueError``. Each row's k-th game seeds its opponents the way
``SingleAgentEnv.reset(seed=game_seed)`` does (one draw per opponent, in seat order, from
``numpy.random.default_rng(game_seed)``), so that the row plays the very game that env
plays with the same seat and seed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from typing import Any, Protocol, cast, runtime_checkable

import numpy as np

from concordia_env.engine.errors import short_repr
from concordia_env.engine.game import Game
from concordia_env.engine.rules import pcg64
from concordia_env.engine.state import STATE_SIZE
from concordia_env.strategy import (
    LEARNED_KINDS,
    MAX_TURN_DECISIONS,
    NUM_PARAMS,
    SEED_BOUND,
    STATUS_ILLEGAL,
    STATUS_SIZE,
    CompiledPlayer,
    ModelArrays,
    compiled_model,
    play_rows,
)

#: the entry-point group that names agent builders (see the module docstring)
ENTRY_POINT_GROUP = "concordia_env.agents"


@runtime_checkable
class Opponent(Protocol):
    """A player for the other seats: a legal action for the player to move, reseeded per episode."""

    def act(self, game: Game) -> int: ...

    def reset(self, seed: int | None = None) -> None: ...


#: a builder turns a whole spec string into an opponent
Builder = Callable[[str], Opponent]
#: the builders registered at run time, by agent name
_BUILDERS: dict[str, Builder] = {}


class CallableOpponent:
    """A plain ``f(game) -> action`` as an :class:`Opponent` (it has no seed to set)."""

    def __init__(self, func: Callable[[Game], int]) -> None:
        self.func = func

    def reset(self, seed: int | None = None) -> None:
        """A plain callable keeps whatever randomness it has."""

    def act(self, game: Game) -> int:
        """What the callable answers, as it is: ``Game.step`` checks it (``int()`` would turn 2.7 into 2)."""
        return self.func(game)

    def __repr__(self) -> str:
        return f"CallableOpponent({self.func!r})"


def register(name: str, builder: Builder) -> None:
    """Build the spec strings named ``name`` (``"name"`` or ``"name:options"``) with ``builder(spec)``."""
    if not isinstance(name, str) or not name or ":" in name or name != name.strip():
        raise ValueError(f"an agent name is a non-empty string without ':' or surrounding spaces, got {name!r}")
    if not callable(builder):
        raise TypeError(f"a builder is a callable build(spec) -> opponent, got {short_repr(builder)}")
    _BUILDERS[name] = builder


def names() -> list[str]:
    """Every name a spec string may start with: the ones registered and the installed entry points."""
    return sorted(set(_BUILDERS) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def builder_for(name: str) -> Builder:
    """The builder of agent ``name``: registered at run time, else loaded from its entry point."""
    if name in _BUILDERS:
        return _BUILDERS[name]
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        builder = ep.load()  # e.g. imports the agents package, which registers its agents
        _BUILDERS.setdefault(name, builder)
        return _BUILDERS[name]
    known = ", ".join(names()) or "none (is concordia-env installed? `pip install -e .`, or `import agents`)"
    raise ValueError(f"unknown agent {name!r}; known agents: {known}")


def split_spec(spec: str) -> tuple[str, str | None]:
    """Name and options text: ``"mcts:200"`` -> ``("mcts", "200")``, ``"random"`` -> ``("random", None)``.

    The one place a spec's name is read (``agents.parse_spec`` reads the options on from
    here); ``ValueError`` if the name is empty.
    """
    name, colon, rest = spec.strip().partition(":")
    if not name:
        raise ValueError(f"agent spec {spec!r} has no agent name")
    return name, rest if colon else None


def from_spec(spec: str) -> Opponent:
    """The opponent a spec string names (``"mcts:time_per_move=1.0"``), built by its name's builder."""
    if not isinstance(spec, str):
        raise TypeError(f"an agent spec is a string such as 'mcts:200', got {short_repr(spec)}")
    name, _ = split_spec(spec)
    opponent = builder_for(name)(spec)
    if not isinstance(opponent, Opponent):
        raise TypeError(f"the builder of {name!r} returned {short_repr(opponent)}: no act(game) and reset(seed)")
    return opponent


def resolve(spec: Any) -> Opponent:
    """An :class:`Opponent` from a spec string, an opponent object (kept as it is) or a callable ``f(game)``."""
    if isinstance(spec, str):
        return from_spec(spec)
    if isinstance(spec, type):  # Opponent's check would pass a class, whose act is unbound
        raise TypeError(f"an opponent is an object, not a class: pass {spec.__name__}(...) instead of {spec.__name__}")
    if isinstance(spec, Opponent):
        return spec
    if callable(spec):
        return CallableOpponent(spec)
    raise TypeError(
        f"an opponent is a spec string, an object with act(game) and reset(seed), or a callable f(game) -> action; "
        f"got {short_repr(spec)}"
    )


def resolve_all(opponents: Any, num_players: int) -> list[Opponent]:
    """One opponent per other seat: ``opponents`` for each (a spec, object or callable) or a list, one per seat."""
    if isinstance(opponents, str) or callable(opponents) or not isinstance(opponents, Sequence):
        return [resolve(opponents) for _ in range(num_players - 1)]
    if len(opponents) != num_players - 1:
        raise ValueError(f"give one opponent or {num_players - 1} (one per other seat); got {len(opponents)}")
    return [resolve(spec) for spec in opponents]


@runtime_checkable
class CompiledOpponent(Opponent, Protocol):
    """An opponent with a compiled twin that can play inside a batch (see "Opponents inside a batch")."""

    def compiled_player(self, num_players: int, map_name: str | None = None) -> CompiledPlayer: ...

    def compiled_state(self) -> tuple[np.ndarray, np.ndarray]: ...


class CompiledOpponents:
    """The other seats of every row of a batch, played in compiled code; see "Opponents inside a batch".

    ``learner_seats[row]`` is the seat the caller plays in that row; :meth:`new_game` sets it
    and seeds the row's opponents for a new game, :meth:`play` lets them decide until the
    learner must. Opponent j plays the j-th seat other than the learner's, as in
    ``SingleAgentEnv``.
    """

    def __init__(self, opponents: Any, n: int, num_players: int, map_name: str | None = None) -> None:
        agents = resolve_all(opponents, num_players)
        players = [self._compiled(agent, num_players, map_name) for agent in agents]
        self.agents: list[CompiledOpponent] = [cast(CompiledOpponent, agent) for agent in agents]  # checked above
        slots = len(players)
        self.kinds = np.array([p.kind for p in players], dtype=np.int64)
        self.params = np.ascontiguousarray(np.stack([p.params for p in players]), dtype=np.float64)
        if self.params.shape != (slots, NUM_PARAMS):
            raise ValueError(f"a compiled player's params are {NUM_PARAMS} numbers (strategy.params_array)")
        given = [p.model for p in players if p.kind in LEARNED_KINDS]
        models = [model for model in given if isinstance(model, ModelArrays)]
        if len(models) != len(given):
            raise ValueError("a compiled learned player brings its model's arrays")
        if any(not all(np.array_equal(a, b) for a, b in zip(models[0], model, strict=True)) for model in models[1:]):
            raise ValueError("the learned opponents of one batch play with one model")
        self.model = compiled_model(models[0] if models else None)
        self.learner_seats = np.zeros(n, dtype=np.int64)
        self.rng = np.zeros((n, slots, pcg64.STATE_WORDS), dtype=np.uint64)
        self.noise = np.zeros((n, slots, 1), dtype=np.uint64)
        self.plan_state = np.zeros((n, slots, STATE_SIZE), dtype=np.int32)
        self.plan_pos = np.zeros((n, slots), dtype=np.int64)
        self.plan_actions = np.zeros((n, slots, MAX_TURN_DECISIONS), dtype=np.int64)
        self.plan_len = np.zeros((n, slots), dtype=np.int64)
        self.status = np.zeros((n, STATUS_SIZE), dtype=np.int64)
        #: per row, the generator ``SingleAgentEnv.np_random`` is after seeding the opponents: what the
        #: learner's side draws from next (the options level's determinizations, :mod:`.options_level`)
        self.learner_rng = np.zeros((n, pcg64.STATE_WORDS), dtype=np.uint64)

    @staticmethod
    def _compiled(agent: Opponent, num_players: int, map_name: str | None) -> CompiledPlayer:
        if not isinstance(agent, CompiledOpponent):
            raise ValueError(
                f"{short_repr(agent)} cannot play inside a batch: the opponents of a batch are compiled agents "
                "(random, heuristic, and the greedy learned: no search, temperature or record)"
            )
        player = agent.compiled_player(num_players, map_name)
        if not isinstance(player, CompiledPlayer):
            raise TypeError(f"{short_repr(agent)}.compiled_player() gave {short_repr(player)}, not a CompiledPlayer")
        return player

    def new_game(self, row: int, game_seed: int, learner_seat: int) -> None:
        """Row ``row`` starts the game of seed ``game_seed`` with the learner in ``learner_seat``."""
        self.learner_seats[row] = learner_seat
        draws = np.random.default_rng(game_seed)  # SingleAgentEnv.reset(seed=game_seed)'s generator
        for j, agent in enumerate(self.agents):
            agent.reset(int(draws.integers(SEED_BOUND)))
            rng, noise = agent.compiled_state()
            self.rng[row, j] = rng
            self.noise[row, j] = noise
        self.learner_rng[row] = pcg64.from_generator(draws)
        self.plan_len[row] = 0
        self.status[row] = 0

    def arrays(self) -> tuple[Any, ...]:
        """What the compiled players read and write, in ``strategy.players.play_rows``'s order after the masks."""
        return (
            self.learner_seats,
            self.kinds,
            self.params,
            self.model,
            self.rng,
            self.noise,
            self.plan_state,
            self.plan_pos,
            self.plan_actions,
            self.plan_len,
            self.status,
        )

    def play(self, states: np.ndarray, tables: np.ndarray, masks: np.ndarray, rows: slice) -> None:
        """The opponents of ``rows`` decide until the learner must; ``masks`` are the rows' legal masks, kept so."""
        learners, kinds, params, model, *per_row = self.arrays()
        play_rows(states[rows], tables, learners[rows], masks[rows], kinds, params, model, *(a[rows] for a in per_row))

    def check(self) -> None:
        """``RuntimeError`` naming the first row whose compiled opponent proposed an illegal action (a bug)."""
        bad = np.flatnonzero(self.status[:, STATUS_ILLEGAL])
        if bad.size:
            raise RuntimeError(
                f"row {int(bad[0])}: a compiled opponent proposed an action the rules do not allow "
                "(a bug in concordia_env.strategy.players)"
            )
