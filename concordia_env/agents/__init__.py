"""Agents for concordia-env and a registry to build them by name.

``agents.make("random" | "heuristic" | "mcts" | "policy" | "learned", **options)`` builds an agent;
``agents.from_spec(spec)`` builds one from its command-line spelling. This is the one
parser of agent specs: the tournament, ``SingleAgentEnv`` opponents, the training pool and
the evaluation all call it, so a spec means the same everywhere. ``SingleAgentEnv`` reaches it
through :mod:`concordia_env.envs.opponents` (the environments do not import this package): this
package registers every agent there, and ``pyproject.toml`` names them as entry points.

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
import importlib
import inspect
from collections.abc import Callable
from typing import Any

from concordia_env.envs import opponents

from .base import Agent, IllegalPlanError

#: name -> "module:Class" (imported lazily: the policy agent needs torch)
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
    """Register an agent class by ``"module:Class"``; ``spec_option`` names the option of a bare spec value."""
    _REGISTRY[name] = target
    if spec_option is not None:
        SPEC_OPTION[name] = spec_option
    opponents.register(name, from_spec)  # SingleAgentEnv(opponents="name:...") builds it too


def names() -> list[str]:
    return sorted(_REGISTRY)


def make(name: str, **options: Any) -> Agent:
    """Build a registered agent with its options (``make("mcts", simulations=200)``)."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(names())}")
    module_name, cls_name = _REGISTRY[name].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    try:
        inspect.signature(cls).bind(**options)
    except TypeError as exc:  # an option the class does not take: say which agent and which options
        raise ValueError(f"agent {name!r} does not take the options {sorted(options)}: {exc}") from None
    return cls(**options)


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
    """Build an agent from its spec; ``extra`` options are added (and may not repeat the spec's)."""
    name, options = parse_spec(spec)
    twice = sorted(set(options) & set(extra))
    if twice:
        raise ValueError(f"options {twice} are given both in the spec {spec!r} and as keywords")
    return make(name, **options, **extra)


# the environments know agents only by the names registered with them (concordia_env.envs.opponents);
# pyproject.toml lists the same names as entry points, so an env finds them before this import
for _name in _REGISTRY:
    opponents.register(_name, from_spec)

__all__ = ["Agent", "IllegalPlanError", "from_spec", "make", "names", "parse_spec", "register"]
