"""The agent registry: agents built by name, and the one parser of agent specs.

``agents.make("random" | "heuristic" | "mcts" | "policy" | "learned", **options)`` builds an agent;
``agents.from_spec(spec)`` builds one from its command-line spelling. This is the one
parser of agent specs: the tournament, ``SingleAgentEnv`` opponents, the training pool and
the evaluation all call it, so a spec means the same everywhere.

**One registry.** Which names exist is said in one place, the agent registry of
:mod:`concordia_env.envs.opponents`: the entry points of the group ``concordia_env.agents``
(``pyproject.toml`` lists this package's agents there, with :func:`from_spec` as their
builder) and what :func:`register` adds at run time. ``names()``, ``make`` and
``from_spec`` read it, as the environments do, so an agent of another package (an entry
point of its own, or ``opponents.register(name, builder)`` at run time) is built by
``agents.make``, ``from_spec``, the tournament, the evaluation and ``SingleAgentEnv``
alike: ``from_spec`` hands its spec to its builder, and ``make(name, **options)`` writes the
options into a spec for it (``name:key=value,...``, so they must be literals). The table
below (``_REGISTRY``) is only how this package's builder finds the class of each of its
own names (``learned``'s, :class:`~concordia_env.agents.learned.LearnedAgent`, builds the
class of its options: the greedy agent, the search, the sampled one or a recording).

A spec is ``name`` or ``name:options``, the options separated by commas:

* a bare value sets the agent's main option (``SPEC_OPTION``): ``mcts:200`` is
  ``simulations=200``, ``policy:runs/model.zip`` is ``path="runs/model.zip"``;
* ``key=value`` sets any constructor option, the value read as a Python literal (a number,
  ``True``, ``None``, a quoted string, a dict...) or else taken as a string:
  ``mcts:time_per_move=1.0``, ``mcts:200,exploration=0.2,rollout=random``,
  ``heuristic:weights={'money': 0.5}``.

A value may not itself contain a comma outside brackets or quotes.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from concordia_env.envs import opponents

from .base import Agent

#: the classes this package's builder (``from_spec``) builds, by name -> "module:Class" (imported lazily:
#: the policy agent needs torch); which names exist is the registry's to say (``names()``)
_REGISTRY: dict[str, str] = {
    "random": "concordia_env.agents.random_agent:RandomAgent",
    "heuristic": "concordia_env.agents.heuristic:HeuristicAgent",
    "mcts": "concordia_env.agents.mcts:MCTSAgent",
    "policy": "concordia_env.agents.policy:PolicyAgent",
    "learned": "concordia_env.agents.learned:LearnedAgent",
}
#: the option a spec's bare value sets: "mcts:200" -> simulations=200
SPEC_OPTION: dict[str, tuple[str, Callable[[str], Any]]] = {
    "mcts": ("simulations", int),
    "policy": ("path", str),
    "learned": ("path", str),
}


def register(name: str, target: str, spec_option: tuple[str, Callable[[str], Any]] | None = None) -> None:
    """Register an agent class by ``"module:Class"``; ``spec_option`` names the option of a bare spec value.

    The name joins the one registry (:mod:`concordia_env.envs.opponents`) with this package's
    builder, so every reader of the registry builds it.
    """
    _REGISTRY[name] = target
    if spec_option is not None:
        SPEC_OPTION[name] = spec_option
    opponents.register(name, from_spec)


def names() -> list[str]:
    """Every registered agent name: this package's, other packages' entry points, and run-time registrations."""
    return opponents.names()


def make(name: str, **options: Any) -> Agent:
    """Build a registered agent with its options (``make("mcts", simulations=200)``).

    A name of this package builds its class with ``options``; another package's name is
    built by its registered builder, from the spec ``name:key=value,...`` of the options.
    """
    if name in _REGISTRY:
        return _make_own(name, options)
    return _checked_agent(name, _foreign_builder(name)(spec_of(name, options)))


def _own_class(name: str) -> type[Agent]:
    """The class of one of this package's agent names."""
    module_name, cls_name = _REGISTRY[name].split(":")
    cls: type[Agent] = getattr(importlib.import_module(module_name), cls_name)
    return cls


def spec_version(spec: str, num_players: int) -> str | None:
    """A digest of the files the agent of ``spec`` reads at a table of ``num_players`` (its model), or None.

    ``learned`` names whichever model is shipped for the player count and ``policy:path``
    whatever file lies at the path: the spec alone does not say what plays. The digest (16
    hex digits of the SHA-1 of the files' bytes) does, for a tournament's id. None for an agent
    that reads no file, another package's agent, or a file that is not there (building the
    agent then fails with its own message).
    """
    if not isinstance(spec, str):
        return None
    name, _ = opponents.split_spec(spec)
    if name not in _REGISTRY:
        return None
    try:
        _, options = parse_spec(spec)
        files = _own_class(name).files_read(options, num_players)
    except (ValueError, FileNotFoundError):
        return None
    digest = hashlib.sha1()
    for path in files:
        if not Path(path).is_file():
            return None
        digest.update(Path(path).read_bytes())
    return digest.hexdigest()[:16] if files else None


def _make_own(name: str, options: dict[str, Any]) -> Agent:
    """An agent of this package: its class, checked against the options first."""
    cls = _own_class(name)
    try:
        inspect.signature(cls).bind(**options)
    except TypeError as exc:  # an option the class does not take: say which agent and which options
        raise ValueError(f"agent {name!r} does not take the options {sorted(options)}: {exc}") from None
    return cls(**options)


def _foreign_builder(name: str) -> opponents.Builder:
    """The registered builder of a name that is not this package's (``ValueError`` for an unknown name)."""
    builder = opponents.builder_for(name)
    if builder is from_spec:  # e.g. the entry points of another installed version of this package
        raise ValueError(f"agent {name!r} is registered as this package's, which has no such agent; known: {names()}")
    return builder


def _checked_agent(name: str, agent: Any) -> Agent:
    """What another package's builder returned, if it plays (``act(game)``, ``reset(seed)``)."""
    if not isinstance(agent, opponents.Opponent):
        raise TypeError(f"the builder of agent {name!r} returned {agent!r}: no act(game) and reset(seed)")
    return agent  # type: ignore[return-value]


def spec_of(name: str, options: dict[str, Any]) -> str:
    """The spec that names ``options`` (``spec_of("mcts", {"simulations": 8})`` -> ``"mcts:simulations=8"``).

    Values are written as Python literals, which :func:`parse_spec` reads back; a value that is
    no literal (an object) cannot be written into a spec and raises ``ValueError``.
    """
    items = []
    for key, value in options.items():
        text = repr(value)
        try:
            same = ast.literal_eval(text) == value
        except (ValueError, SyntaxError):
            same = False
        if not same:
            raise ValueError(f"option {key}={text} of agent {name!r} cannot be written in a spec (not a literal)")
        items.append(f"{key}={text}")
    return f"{name}:{','.join(items)}" if items else name


def _split_options(text: str) -> list[str]:
    """Split at the commas that are outside brackets and quotes."""
    items, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items]


def _literal(value: str) -> Any:
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:200,time_per_move=1.0"`` -> ``("mcts", {"simulations": 200, "time_per_move": 1.0})``.

    Raises ``ValueError`` for an empty name or option, a bare value for an agent without a
    main option, two bare values, or an option given twice.
    """
    if not isinstance(spec, str):
        raise ValueError(f"an agent spec is a string such as 'mcts:200', got {spec!r}")
    name, rest = opponents.split_spec(spec)
    options: dict[str, Any] = {}
    if rest is None:
        return name, options
    for item in _split_options(rest):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq:  # a bare value: the agent's main option
            if name not in SPEC_OPTION:
                raise ValueError(f"agent {name!r} takes no bare ':' value (got {spec!r}); write key=value")
            key, convert = SPEC_OPTION[name]
            if key in options:
                raise ValueError(f"agent spec {spec!r} gives {key} twice")
            try:
                options[key] = convert(item)
            except ValueError:
                raise ValueError(f"agent spec {spec!r}: {item!r} is not a valid {key}") from None
            continue
        if not key.isidentifier() or not value.strip():
            raise ValueError(f"agent spec {spec!r}: {item!r} is not key=value")
        if key in options:
            raise ValueError(f"agent spec {spec!r} gives {key} twice")
        options[key] = _literal(value.strip())
    return name, options


def from_spec(spec: str, **extra: Any) -> Agent:
    """Build an agent from its spec; ``extra`` options are added (and may not repeat the spec's).

    This package's names are parsed here (:func:`parse_spec`); another package's name is built
    by its registered builder, which reads its own spec (with ``extra`` written into it).
    """
    name, rest = opponents.split_spec(spec) if isinstance(spec, str) else (None, None)
    if name is not None and name not in _REGISTRY:
        builder = _foreign_builder(name)
        if extra:
            spec = f"{spec.strip()}{',' if rest else ':'}{spec_of(name, extra).partition(':')[2]}"
        return _checked_agent(name, builder(spec))
    name, options = parse_spec(spec)
    twice = sorted(set(options) & set(extra))
    if twice:
        raise ValueError(f"options {twice} are given both in the spec {spec!r} and as keywords")
    return _make_own(name, {**options, **extra})


# this package's agents join the registry at run time too: a source checkout that is not installed
# has no entry points (an installed one finds the same names there)
for _name in _REGISTRY:
    opponents.register(_name, from_spec)

__all__ = [
    "SPEC_OPTION",
    "from_spec",
    "make",
    "names",
    "parse_spec",
    "register",
    "spec_of",
    "spec_version",
]
