"""The one interface every agent implements.

An agent picks a legal action for ``game.current_player`` of an engine
:class:`~concordia_env.Game`. It may plan on ``game.clone()`` but must never change
``game`` itself. ``reset(seed)`` makes its randomness reproducible (called by the
tournament before every game).

An agent whose plan names an action the rules do not allow has a bug. In *strict* mode
(``strict=True``, or the environment variable ``CONCORDIA_STRICT_AGENTS=1``, which the test
suite sets) it raises :class:`IllegalPlanError`; otherwise it warns, counts the event in
``agent.fallbacks`` and plays the first legal action, so that a long tournament finishes
and the count shows what happened.
"""

from __future__ import annotations

import os
import warnings
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import NUM_ACTIONS, Game

from .option_checks import seed_option, strict_option

#: set to 1 to make every agent built without ``strict=`` strict
STRICT_ENV = "CONCORDIA_STRICT_AGENTS"
#: the seed stream of agents is kept apart from the setup seed by this domain tag
_AGENT_SEED_TAG = 0x5EA7


class IllegalPlanError(RuntimeError):
    """An agent planned an action the rules do not allow (a bug in the agent)."""


def agent_seed(seed_of_game: int, seat: int) -> int:
    """The ``reset`` seed of the agent in ``seat`` of a game: distinct per seat, fixed by the game's seed.

    Tournaments, the terminal game and the web app seed their agents this way, so a game
    with a given seed is played the same wherever it is played.
    """
    return int(np.random.SeedSequence([_AGENT_SEED_TAG, seed_of_game, seat]).generate_state(1)[0] >> 1)


def draw_seed(rng: np.random.Generator) -> int:
    """A seed for a helper's own generator (a compiled planner's, an inner agent's), drawn from an agent's."""
    return int(rng.integers(2**63 - 1))


def strict_by_default() -> bool:
    """Whether agents built without ``strict=`` are strict (``CONCORDIA_STRICT_AGENTS=1``)."""
    return os.environ.get(STRICT_ENV, "0") not in ("", "0")


class Agent(ABC):
    """Base class: ``act(game) -> int`` and ``reset(seed)``."""

    #: the registry name (``concordia_env.agents.make(name)``)
    name: str = "agent"

    def __init__(self, seed: int | None = None, strict: bool | None = None) -> None:
        self.rng = np.random.default_rng(seed_option(seed, agent=self.name))
        strict = strict_option(strict, agent=self.name)
        #: raise IllegalPlanError on an illegal plan instead of falling back (see the module docstring)
        self.strict = strict_by_default() if strict is None else strict
        #: illegal plans replaced by the first legal action so far (always 0 in strict mode)
        self.fallbacks = 0

    @classmethod
    def files_read(cls, options: dict[str, Any], num_players: int) -> list[Path]:
        """The files an agent built with ``options`` for a game of ``num_players`` would read (a model).

        A tournament names its games by the agents' specs *and* these files' contents
        (:meth:`concordia_env.tools.tournament.TournamentConfig.identity`), so that a results
        file never reads back games that another model played under the same spec (``learned``
        after a new model is shipped). Most agents read none.
        """
        return []

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the agent's randomness."""
        self.rng = np.random.default_rng(seed_option(seed, agent=self.name))

    @abstractmethod
    def act(self, game: Game) -> int:
        """A legal action for ``game.current_player``; ``game`` is left unchanged."""

    def checked(self, game: Game, action: int, legal: np.ndarray | None = None) -> int:
        """``action`` if it is legal in ``game``; an illegal one raises in strict mode, else falls back loudly."""
        legal = game.legal_actions() if legal is None else legal
        if action in legal.tolist():  # a list's scan: a tenth of numpy's ``in`` on a few dozen actions
            return int(action)
        text = game.describe_action(action) if 0 <= action < NUM_ACTIONS else "outside the action space"
        message = f"{self!r} planned illegal action {action} ({text}) in {game!r}"
        if self.strict:
            raise IllegalPlanError(message)
        self.fallbacks += 1
        warnings.warn(f"{message}; playing the first legal action instead", RuntimeWarning, stacklevel=2)
        return int(legal[0])

    @property
    def spec(self) -> str:
        """How this agent is written on a command line (``mcts:200``)."""
        return self.name

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.spec})"
