"""Agents for concordia-env and a registry to build them by name.

``agents.make("random" | "heuristic" | "mcts" | "policy" | "learned", **options)`` builds an agent;
``agents.from_spec("mcts:200")`` builds one from its command-line spelling, where the
part after the colon is the agent's main option (see ``SPEC_OPTION``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .base import Agent

#: name -> "module:Class" (imported lazily: the policy agent needs torch)
_REGISTRY: dict[str, str] = {
    "random": "agents.random_agent:RandomAgent",
    "heuristic": "agents.heuristic:HeuristicAgent",
    "mcts": "agents.mcts:MCTSAgent",
    "policy": "agents.policy:PolicyAgent",
    "learned": "agents.learned:LearnedAgent",
}
#: the option a command-line spec's value sets: "mcts:200" -> simulations=200
SPEC_OPTION: dict[str, tuple[str, Callable[[str], Any]]] = {
    "mcts": ("simulations", int),
    "policy": ("path", str),
    "learned": ("path", str),
}


def register(name: str, target: str, spec_option: tuple[str, Callable[[str], Any]] | None = None) -> None:
    """Register an agent class by ``"module:Class"``; ``spec_option`` names the colon option."""
    _REGISTRY[name] = target
    if spec_option is not None:
        SPEC_OPTION[name] = spec_option


def names() -> list[str]:
    return sorted(_REGISTRY)


def make(name: str, **options: Any) -> Agent:
    """Build a registered agent with its options (``make("mcts", simulations=200)``)."""
    if name not in _REGISTRY:
        raise ValueError(f"unknown agent {name!r}; known agents: {', '.join(names())}")
    module_name, cls_name = _REGISTRY[name].split(":")
    cls = getattr(importlib.import_module(module_name), cls_name)
    return cls(**options)


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:200"`` -> ``("mcts", {"simulations": 200})``."""
    name, _, value = spec.partition(":")
    if not value:
        return name, {}
    if name not in SPEC_OPTION:
        raise ValueError(f"agent {name!r} takes no ':' option (got {spec!r})")
    option, convert = SPEC_OPTION[name]
    return name, {option: convert(value)}


def from_spec(spec: str, **extra: Any) -> Agent:
    name, options = parse_spec(spec)
    return make(name, **options, **extra)


__all__ = ["Agent", "from_spec", "make", "names", "parse_spec", "register"]
