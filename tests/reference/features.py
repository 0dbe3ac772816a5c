"""The learned agent's features as they were computed before (one ``Game.observation`` per option): the reference.

``concordia_env.agents.afterstate.batch_features`` observes every afterstate of a decision in one compiled
call; ``tests/test_afterstate.py`` checks that it gives these numbers.
"""

from __future__ import annotations

import numpy as np

from concordia_env import Game
from concordia_env.agents.afterstate import MARGIN_SCALE, NUM_FEATURES, OBSERVATION_COLUMNS, VALUE_SCALE, utility
from concordia_env.engine.state import MAX_PLAYERS


def afterstate_features(game: Game, values: np.ndarray, player: int, remaining: float) -> np.ndarray:
    """The feature vector of the position ``game`` for ``player`` (see ``agents/afterstate.py``)."""
    n = game.num_players
    out = np.zeros(NUM_FEATURES, dtype=np.float32)
    k = len(OBSERVATION_COLUMNS)
    out[:k] = game.observation(player)[OBSERVATION_COLUMNS]
    rotated = np.roll(np.asarray(values, dtype=np.float64), -player)  # relative seats, observer first
    out[k : k + n] = rotated / VALUE_SCALE
    others = rotated[1:]
    out[k + MAX_PLAYERS] = utility(values, player) / MARGIN_SCALE
    out[k + MAX_PLAYERS + 1] = (rotated[0] - others.max()) / MARGIN_SCALE if n > 1 else 0.0
    out[k + MAX_PLAYERS + 2] = remaining
    return out
