"""Rewards shared by every environment (PettingZoo, Gymnasium, ``VectorGame``, RLlib).

``reward=`` chooses one kind; every kind gives all players a reward at every step, the
terminal kinds 0 until the game is over:

| ``reward`` | paid | value for player p |
| --- | --- | --- |
| ``"win"`` (default) | at the end | +1 for the winner, −1/(n−1) for every other player |
| ``"rank"`` | at the end | 1 − 2·rank/(n−1) for final rank 0 (first) … n−1 (last), tie-break included |
| ``"vp"`` | at the end | (VP of p − best VP of the others) / 100 |
| ``"score_delta"`` | every step | change of ``score_breakdown(p)["total"]`` since the previous step |

Summed over a whole game, a player's rewards are: for ``"win"``, +1 (winner) or
−1/(n−1); for ``"rank"``, +1 (first) down to −1 (last); for ``"vp"``, the VP margin / 100;
for ``"score_delta"`` (which starts from 0 before the first step), exactly the player's
final VP. The terminal kinds sum to 0 over all players except ``"vp"``.

``score_breakdown`` counts the position "as if the game ended now", so the dense reward
includes Vesta's money VP and the Concordia card as soon as they count. A game cut short
by an environment's cap (``max_cycles``, ``max_turns``) pays no terminal reward: it has no
winner.

An illegal action with ``illegal_action="penalize"`` costs the offender ``ILLEGAL_REWARD``
(−1, PettingZoo's ``TerminateIllegalWrapper``) and ends the episode.
"""

from __future__ import annotations

import numpy as np

from concordia_env.engine.game import Game
from concordia_env.engine.observation import player_scores

REWARDS: tuple[str, ...] = ("win", "rank", "vp", "score_delta")
#: reward of an illegal action with illegal_action="penalize" (TerminateIllegalWrapper's illegal_reward)
ILLEGAL_REWARD = -1.0
#: VP difference that counts as 1 in the "vp" reward
VP_REWARD_SCALE = 100.0


def check_reward(reward: str) -> str:
    """``reward`` if it is one of REWARDS, else ValueError."""
    if not isinstance(reward, str) or reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}; got {reward!r}")
    return reward


def final_rewards(game: Game, reward: str) -> np.ndarray:
    """Every player's terminal reward of a finished game (0 for the dense "score_delta")."""
    return rewards_of_result(game.final_scores(), game.ranking(), reward)


def rewards_of_result(scores: np.ndarray, ranking: list[int] | np.ndarray, reward: str) -> np.ndarray:
    """The terminal rewards of a finished game from its final ``scores`` and ``ranking`` (first place first)."""
    n = len(scores)
    out = np.zeros(n, dtype=np.float64)
    if reward == "win":
        out[:] = -1.0 / (n - 1)
        out[ranking[0]] = 1.0
    elif reward == "rank":
        for rank, p in enumerate(ranking):
            out[p] = 1.0 - 2.0 * rank / (n - 1)
    elif reward == "vp":
        vp = np.asarray(scores, dtype=np.float64)
        for p in range(n):
            out[p] = (vp[p] - np.delete(vp, p).max()) / VP_REWARD_SCALE
    return out


class Rewarder:
    """Turns the positions of one game into rewards for the chosen ``reward`` kind.

    ``after(game)`` returns every player's reward earned since the previous call (or since
    ``reset``): the score change for "score_delta", the terminal reward once the game is
    over for the others. Calling it once after several steps gives the sum of calling it
    after each, which is what the single-agent wrapper relies on between learner moves.
    """

    def __init__(self, reward: str) -> None:
        self.reward = check_reward(reward)
        self._scores = np.zeros(0, dtype=np.int64)
        #: what ``after`` returns when no reward is paid: one read-only array of zeros per game,
        #: so a caller can tell "nothing paid" by identity without looking at the values
        self.nothing = np.zeros(0, dtype=np.float64)
        self._paid = False

    def reset(self, num_players: int) -> None:
        self._scores = np.zeros(num_players, dtype=np.int64)
        self.nothing = np.zeros(num_players, dtype=np.float64)
        self.nothing.setflags(write=False)
        self._paid = False

    def after(self, game: Game) -> np.ndarray:
        if self.reward == "score_delta":
            scores = player_scores(game)
            delta = (scores - self._scores).astype(np.float64)
            self._scores = scores
            return delta
        if game.is_over() and not self._paid:
            self._paid = True
            return final_rewards(game, self.reward)
        return self.nothing  # read-only: every step before the end shares it
