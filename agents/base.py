"""The one interface every agent implements.

An agent picks a legal action for ``game.current_player`` of an engine
:class:`~concordia_env.Game`. It may plan on ``game.clone()`` but must never change
``game`` itself. ``reset(seed)`` makes its randomness reproducible (called by the
tournament before every game).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from concordia_env import Game


class Agent(ABC):
    """Base class: ``act(game) -> int`` and ``reset(seed)``."""

    #: the registry name (``agents.make(name)``)
    name: str = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the agent's randomness."""
        self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, game: Game) -> int:
        """A legal action for ``game.current_player``; ``game`` is left unchanged."""

    @property
    def spec(self) -> str:
        """How this agent is written on a command line (``mcts:200``)."""
        return self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec})"
