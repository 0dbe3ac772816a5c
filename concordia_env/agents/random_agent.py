"""``random``: uniform over the legal actions (seeded)."""

from __future__ import annotations

import numpy as np

from concordia_env import Game
from concordia_env.engine.rules import pcg64
from concordia_env.strategy import DEFAULT_PARAMS, RANDOM, CompiledPlayer

from .base import Agent


class RandomAgent(Agent):
    """Picks uniformly among the legal actions of the pending decision."""

    name = "random"

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        return int(legal[self.rng.integers(len(legal))])

    # ------------------------------------------------------------------ inside a batch (envs.opponents)
    def compiled_player(self, num_players: int, map_name: str | None = None) -> CompiledPlayer:
        """This agent as a compiled player (:mod:`concordia_env.strategy.players`), on any map."""
        return CompiledPlayer(RANDOM, DEFAULT_PARAMS)

    def compiled_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The generator states of a compiled twin after ``reset``: its numpy generator's, no noise."""
        return pcg64.from_generator(self.rng), np.zeros(1, dtype=np.uint64)
