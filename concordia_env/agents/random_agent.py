"""``random``: uniform over the legal actions (seeded)."""

from __future__ import annotations

from concordia_env import Game

from .base import Agent


class RandomAgent(Agent):
    """Picks uniformly among the legal actions of the pending decision."""

    name = "random"

    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        return int(legal[self.rng.integers(len(legal))])
