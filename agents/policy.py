"""``policy``: play a trained ``sb3_contrib.MaskablePPO`` model.

The model sees what the Gymnasium wrapper :class:`concordia_env.SingleAgentEnv` feeds the
learner: ``game.observation(game.current_player)`` and the legal mask ``game.legal_mask()``.
With ``deterministic=True`` (default) the agent plays the most probable legal action;
otherwise it samples from the masked distribution with its own seeded generator, so a
game is reproducible from ``reset(seed)``.

torch and sb3-contrib are imported when the agent is built, not when ``agents`` is
imported: the other agents do not need them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import Game

from .base import Agent


class PolicyAgent(Agent):
    """A MaskablePPO policy loaded from ``path`` (a ``.zip`` saved by ``model.save``)."""

    name = "policy"

    def __init__(
        self,
        seed: int | None = None,
        path: str | Path | None = None,
        deterministic: bool = True,
        device: str = "cpu",
    ) -> None:
        super().__init__(seed)
        if path is None:
            raise ValueError("the policy agent needs path= to a MaskablePPO .zip (agents.make('policy', path=...))")
        path = Path(path)
        if not path.exists() and not path.with_suffix(".zip").exists():
            raise FileNotFoundError(f"no saved model at {path}")
        from sb3_contrib import MaskablePPO  # heavy: imported only for this agent

        self.path = path
        self.deterministic = deterministic
        self.model: Any = MaskablePPO.load(str(path), device=device)

    @property
    def spec(self) -> str:
        return f"policy:{self.path}"

    def act(self, game: Game) -> int:
        return self.act_observation(game.observation(game.current_player), game.legal_mask())

    def act_observation(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for an observation and its legal mask (no engine game needed)."""
        probs = self.action_probabilities(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs))

    def action_probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The policy's distribution over actions, zero outside the mask."""
        import torch

        mask = np.asarray(action_mask, dtype=bool)
        if not mask.any():
            raise ValueError("no legal action in the mask (is the game over?)")
        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(np.asarray(observation, dtype=np.float32))
        with torch.no_grad():
            dist = policy.get_distribution(obs, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs = np.where(mask, probs, 0.0)
        total = probs.sum()
        return probs / total if total > 0 else mask / mask.sum()
