"""Evaluation: the learner's masked argmax policy against fixed agents, with a 95% Wilson interval.

The interval is :func:`concordia_env.tools.report.wilson_interval`, the same as the tournaments'
(re-exported here as ``wilson_interval``).

Protocol
--------
* The policy plays its **masked argmax** move (what ``agents.make("policy")`` plays); the
  opponents are built from agent specs (``random``, ``heuristic``, ``mcts:50``...).
* **Fresh seeds**: every evaluation draws its own game seeds from
  ``SeedSequence([seed, EVAL_TAG, index])`` (``index`` counts evaluations), so no two
  evaluations share games and none is one of the training games (those come from the
  environments' own generators).
* **Every seat equally**: game ``i`` puts the learner in seat ``i % num_players``, so with a
  multiple of ``num_players`` games each seat (and so each start position) is played
  equally often.
* A win is first place by the rules' tie-break (docs/rules.md §7); the result also reports the
  learner's mean VP and the opponents' mean VP.
* **Turn cap**: two passive players can stall a game for ever (nobody buys the last cards
  nor builds the 15th house; an untrained argmax policy against the heuristic does). A game
  still running after ``max_turns`` turns is scored as it stands (``Game.ranking``: VP as
  if the game ended now, the rules' tie-break) and counted in ``truncated``.

The games are played in lockstep so that the network runs once per round on a batch of
all games where the learner decides, not once per decision: evaluation costs about the
engine's time plus the opponents' time.

``replay_dir`` keeps evaluation games to watch: the first ``replay_games`` games (by
default one per learner seat) are written there as self-contained HTML replays
(:mod:`concordia_env.views.html`), named ``vs-<opponent>-game<i>.html``.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import Game, agents
from concordia_env.tools.report import wilson_interval
from concordia_env.views.html import record_replay

from .policy_net import action_logits, masked_argmax

#: separates evaluation seeds from any other use of the run's seed
EVAL_TAG = 0xE7A1
#: game seeds are drawn below this bound (Game.new takes any non-negative int)
SEED_BOUND = 2**31
#: turn cap of an evaluation game (random 2-player Italia games last about 240 turns)
DEFAULT_MAX_TURNS = 1000


@dataclass
class EvalResult:
    """One evaluation against one opponent spec."""

    opponent: str
    games: int
    wins: int
    win_rate: float
    ci_low: float
    ci_high: float
    mean_vp: float
    mean_opponent_vp: float
    seconds: float
    timesteps: int = 0
    truncated: int = 0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EvalResult:
        return cls(**data)

    def summary(self) -> str:
        capped = f", {self.truncated} stopped at the turn cap" if self.truncated else ""
        return (
            f"vs {self.opponent}: won {self.wins}/{self.games} = {self.win_rate:.1%} "
            f"[95% CI {self.ci_low:.1%}-{self.ci_high:.1%}], mean VP {self.mean_vp:.1f} "
            f"vs {self.mean_opponent_vp:.1f}{capped}"
        )


def eval_seeds(seed: int, index: int, games: int) -> np.ndarray:
    """Game seeds of evaluation number ``index`` (fresh for every index)."""
    state = np.random.SeedSequence([seed, EVAL_TAG, index]).generate_state(games, dtype=np.uint64)
    return (state % SEED_BOUND).astype(np.int64)


def evaluate(
    policy: Any,
    opponent: str,
    games: int,
    *,
    map: str,
    num_players: int,
    seed: int,
    index: int,
    game_options: dict[str, Any] | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    replay_dir: str | Path | None = None,
    replay_games: int | None = None,
) -> EvalResult:
    """Play ``games`` games of the policy against ``opponent`` in every other seat.

    With ``replay_dir``, the first ``replay_games`` games (default: one per seat) are also
    written there as HTML replays.
    """
    start = time.perf_counter()
    seeds = eval_seeds(seed, index, games)
    learner_seats = np.arange(games) % num_players
    boards = [Game.new(map, num_players, int(s), **(game_options or {})) for s in seeds]
    opponents = [_opponents(opponent, num_players, int(s)) for s in seeds]
    actions: list[list[int]] = [[] for _ in boards]
    _play_lockstep(policy, boards, learner_seats, opponents, max_turns, actions)
    result = _result(opponent, boards, learner_seats, time.perf_counter() - start)
    if replay_dir is not None:
        count = min(games, num_players if replay_games is None else replay_games)
        for i in range(count):
            seats = [opponent] * num_players
            seats[learner_seats[i]] = "policy (learner)"
            start_game = Game.new(map, num_players, int(seeds[i]), **(game_options or {}))
            replay = record_replay(start_game, actions[i], seats=seats, seed=int(seeds[i]), options=game_options)
            Path(replay_dir).mkdir(parents=True, exist_ok=True)
            replay.write(Path(replay_dir) / f"vs-{_file_safe(opponent)}-game{i:03d}.html")
    return result


def _file_safe(spec: str) -> str:
    """An agent spec as part of a file name (``mcts:50`` -> ``mcts_50``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", spec)


def _opponents(spec: str, num_players: int, seed: int) -> list[agents.Agent]:
    """One agent per opponent seat, each reseeded for this game."""
    out = []
    for k in range(num_players - 1):
        agent = agents.from_spec(spec)
        agent.reset(seed + k + 1)
        out.append(agent)
    return out


def _running(game: Game, max_turns: int) -> bool:
    return not game.is_over() and game.turn_count < max_turns


def _play_lockstep(
    policy: Any,
    boards: list[Game],
    learner_seats: np.ndarray,
    opponents: list[list[agents.Agent]],
    max_turns: int,
    actions: list[list[int]],
) -> None:
    """Advance all games until over (or capped); the learner's decisions are batched through the network.

    ``actions[i]`` receives game ``i``'s actions in order.
    """
    live = [i for i, g in enumerate(boards) if _running(g, max_turns)]
    while live:
        mine = [i for i in live if boards[i].current_player == learner_seats[i]]
        if mine:
            obs = np.stack([boards[i].observation(int(learner_seats[i])) for i in mine])
            masks = np.stack([boards[i].legal_mask() for i in mine])
            for i, action in zip(mine, masked_argmax(action_logits(policy, obs), masks), strict=True):
                boards[i].step(int(action))
                actions[i].append(int(action))
        for i in live:
            game = boards[i]
            # opponents move until the learner decides again (or the game ends)
            while _running(game, max_turns) and game.current_player != learner_seats[i]:
                seat = game.current_player
                index = (seat - learner_seats[i] - 1) % game.num_players
                action = int(opponents[i][index].act(game))
                game.step(action)
                actions[i].append(action)
        live = [i for i in live if _running(boards[i], max_turns)]


def _result(opponent: str, boards: list[Game], learner_seats: np.ndarray, seconds: float) -> EvalResult:
    # ranking()[0] is winner() for a finished game and the leader of a capped one
    wins = sum(int(g.ranking()[0] == s) for g, s in zip(boards, learner_seats, strict=True))
    own_vp, other_vp = [], []
    for g, s in zip(boards, learner_seats, strict=True):
        scores = g.scores()
        own_vp.append(float(scores[s]))
        other_vp.append(float(np.delete(scores, s).mean()))
    low, high = wilson_interval(wins, len(boards))
    return EvalResult(
        opponent=opponent,
        games=len(boards),
        wins=wins,
        win_rate=wins / len(boards) if boards else 0.0,
        ci_low=low,
        ci_high=high,
        mean_vp=float(np.mean(own_vp)) if boards else 0.0,
        mean_opponent_vp=float(np.mean(other_vp)) if boards else 0.0,
        seconds=seconds,
        truncated=sum(int(not g.is_over()) for g in boards),
    )
