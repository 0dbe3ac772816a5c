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
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any, Protocol, runtime_checkable

from concordia_env.engine.errors import short_repr
from concordia_env.engine.game import Game

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
