"""The search that ``learned:simulations=N`` plays: the project's MCTS guided by an afterstate model.

:class:`ModelGuidedSearch` is :class:`~concordia_env.agents.mcts.MCTSAgent` whose first
estimate of every turn option, for the player choosing it, is a model's score. It takes the
model from a function of the game (``model_for``), so that one search serves the ``learned``
agent (the shipped model of each player count, :class:`concordia_env.agents.learned.LearnedSearchAgent`)
and expert iteration's teacher (the model being trained) alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from concordia_env import Game, strategy
from concordia_env.engine.state import CURRENT_PLAYER, PHASE, PHASE_GAME_OVER
from concordia_env.strategy import ModelArrays

from .learned_model import MARGIN_SCALE, AfterstateModel
from .mcts import MCTSAgent

#: the rounds of a search's rollout unless told (MCTS's own default)
DEFAULT_ROLLOUT_ROUNDS = 1
#: the search's settings at a 2-player table, unless the options say otherwise. There the model's
#: estimate is both players' (the opponent's is its complement), and it judges a position better
#: than a round of the rollout policy does: simulations are scored by the model alone (no rollout)
#: and its first estimate of an option counts as 10 visits (the sweep that chose them is in
#: docs/benchmarks.md). With more players the others keep the heuristic's estimates, so there the
#: search keeps MCTS's settings.
TWO_PLAYER_SEARCH: dict[str, Any] = {"rollout": "none", "prior_visits": 10.0}


class ModelGuidedSearch(MCTSAgent):
    """MCTS over whole turns whose first estimate of an option, for the player choosing it, is the model's.

    The model predicts the chooser's final margin; it is squashed like every MCTS value
    (``0.5 + 0.5·tanh(margin / value_scale)``). In a 2-player game the opponent's estimate is
    its complement; with more players the others keep the heuristic's estimates. An option
    that ends the game keeps its result. ``two_player`` may set ``rollout`` and
    ``prior_visits`` for 2-player tables apart from the other options (what the ``learned``
    agent does, :data:`TWO_PLAYER_SEARCH`); expert iteration's teacher takes its options as
    given. The model runs inside the compiled search
    (:func:`concordia_env.strategy.search.guided_estimates`), so a guided simulation costs
    about what a plain one does.
    """

    name = "learned-search"

    def __init__(
        self,
        model_for: Callable[[Game], AfterstateModel],
        two_player: dict[str, Any] | None = None,
        **options: object,
    ) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.model_for = model_for
        #: ``rollout`` and ``prior_visits`` at 2-player tables where they differ from the options'
        #: (the ``learned`` agent's :data:`TWO_PLAYER_SEARCH`); empty: the same at every table
        self.two_player = dict(two_player or {})
        unknown = set(self.two_player) - {"rollout", "prior_visits"}
        if unknown:
            raise ValueError(f"two_player sets rollout and prior_visits only, got {sorted(unknown)}")
        if self.two_player:  # checked like the options themselves
            MCTSAgent(simulations=1, **self.two_player)

    def table_options(self, num_players: int) -> tuple[str, float]:
        rollout, prior_visits = super().table_options(num_players)
        if num_players == 2:
            rollout = self.two_player.get("rollout", rollout)
            prior_visits = float(self.two_player.get("prior_visits", prior_visits))
        return rollout, prior_visits

    def search_model(self, game: Game) -> ModelArrays:
        return self.model_for(game).compiled

    def first_estimates(
        self, game: Game, state: np.ndarray, afterstates: np.ndarray, values: np.ndarray, estimates: np.ndarray
    ) -> None:
        """The model's first estimates set from Python: what the compiled search computes by itself.

        The search reads them only with ``guided = True`` (a pause after every expansion);
        ``tests/strategy/test_guided_search.py`` runs it that way, without the compiled model,
        and checks that both searches are the same. Here for checking and inspection.
        """
        mover = int(state[CURRENT_PLAYER])
        remaining = strategy.remaining_fraction(state, game.map.tables)
        model = self.model_for(game).compiled
        scores = strategy.afterstate_scores(afterstates, game.map.tables, values, mover, remaining, model)
        running = afterstates[:, PHASE] != PHASE_GAME_OVER
        mine = 0.5 + 0.5 * np.tanh(scores.astype(np.float64) * MARGIN_SCALE / self.value_scale)
        estimates[running, mover] = mine[running]
        if game.num_players == 2:
            estimates[running, 1 - mover] = 1.0 - mine[running]


__all__ = ["DEFAULT_ROLLOUT_ROUNDS", "TWO_PLAYER_SEARCH", "ModelGuidedSearch"]
