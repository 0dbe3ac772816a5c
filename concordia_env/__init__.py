"""concordia-env: a rules-exact Concordia engine and RL environments."""

from __future__ import annotations

from . import maps
from .actions import NUM_ACTIONS
from .errors import IllegalActionError
from .game import Game

__all__ = ["NUM_ACTIONS", "Game", "IllegalActionError", "maps"]
__version__ = "0.1.0"
