"""A training run's evaluation: the learner's masked argmax policy against fixed agents, with a 95% Wilson interval.

To evaluate a saved model, a callable or an agent yourself, use ``concordia_env.evaluate``
(:mod:`concordia_env.tools.evaluate`, ``concordia evaluate``): this module is that loop
(:func:`~concordia_env.tools.evaluate.play_duel`) with what a training run adds.

The games are played by the one evaluation loop of the project, the tournament's
(:mod:`concordia_env.tools.tournament`: the same seeds, seating and records as tournaments
and the strength bars), and stored: with ``db`` a results file, every evaluation game is
replayed by its id (``concordia replay DB`` lists them, ``concordia replay DB ID`` shows one).
The interval is :func:`concordia_env.tools.report.wilson_interval`, the same as the
tournaments' (re-exported here as ``wilson_interval``).

Protocol
--------
* The policy plays its **masked argmax** move (what ``agents.make("policy")`` plays) as an
  agent object (:class:`ActorAgent`, the actor as numpy matrix products) in the seats named
  ``LEARNER``; a policy of the options level plays as an :class:`OptionsAgent` (its most
  probable option of the decision's turn options, computed as the options-level env does);
  the opponents are built from agent specs (``random``, ``heuristic``, ``mcts:50``...),
  seeded as in every tournament (``agent_seed``).
* **Fresh seeds**: evaluation number ``index`` (default 0) of a run seeded ``seed`` (default 0) is a tournament with
  the seed ``eval_seed(seed, index)``, so no two evaluations share games and none is one of the
  training games (those come from the environments' own generators); its games have the
  tournament's seeds ``game_seed(eval_seed, i)``.
* **Every seat equally**: the evaluation is a :func:`~concordia_env.tools.tournament.duel`,
  which puts the learner in each seat equally often (exactly, with a multiple of
  ``num_players`` games).
* A win is first place by the rules' tie-break (docs/rules.md §7); the result also reports the
  learner's mean VP and the opponents' mean VP.
* **Turn cap**: two passive players can stall a game for ever (nobody buys the last cards
  nor builds the 15th house; an untrained argmax policy against the heuristic does). A game
  still running after ``max_turns`` turns is scored as it stands (``Game.ranking``: VP as
  if the game ended now, the rules' tie-break), stored with ``over`` False and counted in
  ``truncated``.

``replay_dir`` keeps evaluation games to watch: the first ``replay_games`` games (by
default one per learner seat) are written there as self-contained HTML replays
(:mod:`concordia_env.views.html`), named ``vs-<opponent>-game<i>.html``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import Game
from concordia_env.agents.base import Agent
from concordia_env.agents.options_agent import LEARNER, OptionsAgent  # LEARNER: the learner's seats' name
from concordia_env.tools.evaluate import DEFAULT_MAX_TURNS, EvalResult, eval_result, play_duel
from concordia_env.tools.replay import html_replay
from concordia_env.tools.report import wilson_interval
from concordia_env.tools.tournament import game_seed

#: re-exported: the training runs and their tests read them here
__all__ = [
    "DEFAULT_MAX_TURNS",
    "EVAL_DB",
    "LEARNER",
    "ActorAgent",
    "EvalResult",
    "OptionsAgent",
    "as_actor",
    "eval_result",
    "eval_seed",
    "eval_seeds",
    "evaluate",
    "weights_digest",
    "wilson_interval",
]

from .policy_net import NumpyActor, masked_argmax


@dataclass
class EvalHistory:
    """The evaluations a run has played, as its state keeps them (``EvalResult`` dicts): the part of
    every training run's state that its curve, ``evaluations.csv`` and report read."""

    history: list[dict[str, Any]] = field(default_factory=list)

    def results(self) -> list[EvalResult]:
        return [EvalResult.from_dict(r) for r in self.history]

    def latest(self, opponent: str) -> EvalResult | None:
        """The last evaluation against ``opponent``, None before the first."""
        matches = [r for r in self.results() if r.opponent == opponent]
        return matches[-1] if matches else None


#: separates evaluation seeds from any other use of the run's seed
EVAL_TAG = 0xE7A1
#: the results file a training run keeps its evaluation games in (in its run directory)
EVAL_DB = "evaluations.db"


def eval_seed(seed: int, index: int) -> int:
    """The tournament seed of evaluation number ``index`` of a run seeded ``seed`` (fresh for every index)."""
    return int(np.random.SeedSequence([seed, EVAL_TAG, index]).generate_state(1)[0] >> 1)


def eval_seeds(seed: int, index: int, games: int) -> np.ndarray:
    """Game seeds of evaluation number ``index``: the tournament's game seeds under ``eval_seed``."""
    tournament_seed = eval_seed(seed, index)
    return np.array([game_seed(tournament_seed, i) for i in range(games)], dtype=np.int64)


class ActorAgent(Agent):
    """The learner's masked argmax policy as an agent: the actor's most probable legal action.

    Copies share the actor (its weights do not change during an evaluation), so the
    tournament's per-seat copy costs nothing.
    """

    name = LEARNER

    def __init__(self, actor: NumpyActor) -> None:
        super().__init__()
        self.actor = actor

    def __deepcopy__(self, memo: dict[int, Any]) -> ActorAgent:
        return ActorAgent(self.actor)

    def act(self, game: Game) -> int:
        observation = game.observation(game.current_player)[None, :]
        return int(masked_argmax(self.actor.logits(observation), game.legal_mask()[None, :])[0])


def as_actor(policy: Any) -> NumpyActor:
    """A NumpyActor as it is; an SB3 actor-critic policy as the same actor in numpy."""
    return policy if isinstance(policy, NumpyActor) else NumpyActor.from_policy(policy)


def evaluate(
    policy: Any,
    opponent: str,
    games: int,
    *,
    map: str,
    num_players: int,
    seed: int = 0,
    index: int = 0,
    game_options: dict[str, Any] | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    replay_dir: str | Path | None = None,
    replay_games: int | None = None,
    db: str | Path = ":memory:",
    workers: int = 1,
    given_version: str | None = None,
) -> EvalResult:
    """Play ``games`` games of the policy against ``opponent`` in every other seat.

    ``policy`` is an agent (an :class:`OptionsAgent`, ...), a :class:`NumpyActor` or an SB3
    actor-critic policy of the flat level.

    The games are a tournament (:func:`~concordia_env.tools.tournament.duel`) stored in
    ``db`` (a results file keeps them for ``concordia replay``; the default keeps nothing).
    Games of the same tournament already in ``db`` are read back, not played again (an
    interrupted evaluation goes on): a run that evaluates another policy with the same seeds
    passes its ``given_version`` (:func:`weights_digest`), which makes it a tournament of its own.
    With ``replay_dir``, the first ``replay_games`` games (default: one per seat) are also
    written there as HTML replays.
    """
    result, played = play_duel(
        policy if isinstance(policy, Agent) else ActorAgent(as_actor(policy)),
        LEARNER,
        opponent,
        games,
        map=map,
        num_players=num_players,
        seed=eval_seed(seed, index),
        max_turns=max_turns,
        db=db,
        workers=workers,
        given_version=given_version,
        game_options=game_options,
    )
    if replay_dir is not None:
        count = min(games, num_players if replay_games is None else replay_games)
        Path(replay_dir).mkdir(parents=True, exist_ok=True)
        for i, record in enumerate(played.records[:count]):
            html_replay(record).write(Path(replay_dir) / f"vs-{_file_safe(opponent)}-game{i:03d}.html")
    return result


def weights_digest(arrays: Iterable[np.ndarray]) -> str:
    """A short digest of a model's weights (dtype, shape and bytes of each array, in order).

    A training run names its learner's evaluations by it (``given_version``): the final
    evaluation of a run resumed for more iterations plays the new model on the same seeds
    instead of reading back the games the old one played.
    """
    digest = hashlib.sha1()
    for array in arrays:
        a = np.ascontiguousarray(array)
        digest.update(f"{a.dtype.str}{a.shape}".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()[:16]


def _file_safe(spec: str) -> str:
    """An agent spec as part of a file name (``mcts:50`` -> ``mcts_50``)."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", spec)
