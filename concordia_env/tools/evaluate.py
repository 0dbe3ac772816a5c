"""Evaluate a trained model, a callable or an agent against the reference agents: win rates with 95% intervals.

::

    concordia evaluate policy:model.zip                        # an SB3 MaskablePPO file, vs random and heuristic
    concordia evaluate learned --vs heuristic mcts:150 --games 400
    concordia evaluate heuristic --vs random --map imperium --players 4

From Python (``concordia_env.evaluate`` is this module's :func:`evaluate`)::

    import concordia_env

    report = concordia_env.evaluate(model, opponents=["random", "heuristic"], games=200)
    print(report)                      # one line per opponent, and how much the games tell
    report["heuristic"].win_rate       # an EvalResult per opponent (wins, interval, mean VP)

What can be evaluated (``policy``)
----------------------------------
* an **agent spec** string, as everywhere in the project: ``"policy:path/to/model.zip"`` (a
  saved ``MaskablePPO``, loaded safely: :mod:`concordia_env.agents.policy`), ``"learned"``,
  ``"mcts:200"``, ``"heuristic"``...;
* a **Stable-Baselines3 model** in memory (``MaskablePPO``, or its policy): it plays its
  most probable legal action, from ``game.observation(game.current_player)`` and
  ``game.legal_mask()``, what ``SingleAgentEnv`` gives the learner (needs the ``train`` extra);
* an **agent object** (``act(game)`` and ``reset(seed)``, e.g. ``agents.make("mcts")``);
* any **callable** ``f(game) -> action`` (the opponents' convention of ``SingleAgentEnv``).

Protocol
--------
Each opponent spec is one :func:`~concordia_env.tools.tournament.duel`: the policy in one
seat and the opponent in every other, the policy in each seat equally often (exactly, with
a multiple of ``num_players`` games), game ``i`` seeded ``game_seed(seed, i)`` as in every
tournament (the same games as ``concordia tournament --seed``). A win is first place by the
rules' tie-break; a game still running after ``max_turns`` turns (two passive players can
stall for ever) is scored as it stands and counted in ``truncated``. ``workers > 1`` plays
games in parallel processes (the policy must then pickle: a lambda does not).

How many games
--------------
The interval is Wilson's 95% score interval (:func:`~concordia_env.tools.report.wilson_interval`).
Its half-width near a 50% win rate is about ``0.98 / sqrt(games)``: ±22 points with 20
games, ±7 with 200, ±5 with 400, ±3 with 1,000 (:func:`margin`, :func:`games_for_margin`).
A result means something when its interval excludes what it is compared with: equal
strength (``1 / num_players``), a target, or another agent's interval. 200 games tell a
60% agent from an equal one; telling 55% from 50% takes about 1,500. The report says which
side of equal strength each interval lies on and warns below ``FEW_GAMES`` games.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import agents
from concordia_env.agents.policy import PolicyAgent
from concordia_env.engine.errors import integer_argument, short_repr
from concordia_env.engine.game import Game
from concordia_env.envs.opponents import resolve
from concordia_env.tools import arguments
from concordia_env.tools.report import Z_95, wilson_interval
from concordia_env.tools.store import GameRecord
from concordia_env.tools.tournament import TournamentResult, duel, run_tournament

#: turn cap of an evaluation game (random 2-player Italia games last about 240 turns)
DEFAULT_MAX_TURNS = 1000
#: what a policy is evaluated against unless told: the reference agents without search
DEFAULT_OPPONENTS = ("random", "heuristic")
DEFAULT_GAMES = 200
#: below this many games per opponent the report warns that the interval is wide
FEW_GAMES = 100
#: the name the evaluated policy's seats show
EVALUATED = "evaluated"


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

    def versus_equal_strength(self, num_players: int) -> str:
        """Where the interval lies against equal strength (``1 / num_players``), in words."""
        equal = 1 / num_players
        if self.ci_low > equal:
            return f"stronger than equal strength ({equal:.0%}: the interval lies above it)"
        if self.ci_high < equal:
            return f"weaker than equal strength ({equal:.0%}: the interval lies below it)"
        return f"not told apart from equal strength ({equal:.0%} lies inside the interval): play more games"


def margin(games: int, rate: float = 0.5, z: float = Z_95) -> float:
    """About half the width of a 95% interval of a win rate near ``rate`` after ``games`` games."""
    return z * math.sqrt(rate * (1 - rate) / games) if games > 0 else 1.0


def games_for_margin(half_width: float, rate: float = 0.5, z: float = Z_95) -> int:
    """About how many games give a 95% interval of half-width ``half_width`` (0.05: ±5 points) near ``rate``."""
    if not 0 < half_width < 1:
        raise ValueError(f"half_width is a fraction in (0, 1), e.g. 0.05 for ±5 points; got {half_width!r}")
    return math.ceil((z / half_width) ** 2 * rate * (1 - rate))


def eval_result(opponent: str, records: list[GameRecord], learner: str, seconds: float) -> EvalResult:
    """The evaluated agent's results over an evaluation's games (``learner``: the name its seats show)."""
    wins, own_vp, other_vp = 0, [], []
    for record in records:
        seat = record.seats.index(learner)
        wins += int(record.winner == seat)  # the leader of a game stopped at the cap
        own_vp.append(float(record.scores[seat]))
        other_vp.append(float(np.mean([v for s, v in enumerate(record.scores) if s != seat])))
    low, high = wilson_interval(wins, len(records))
    return EvalResult(
        opponent=opponent,
        games=len(records),
        wins=wins,
        win_rate=wins / len(records) if records else 0.0,
        ci_low=low,
        ci_high=high,
        mean_vp=float(np.mean(own_vp)) if records else 0.0,
        mean_opponent_vp=float(np.mean(other_vp)) if records else 0.0,
        seconds=seconds,
        truncated=sum(int(not r.over) for r in records),
    )


def play_duel(
    agent: Any,
    name: str,
    opponent: str,
    games: int,
    *,
    map: str,
    num_players: int,
    seed: int,
    max_turns: int | None = DEFAULT_MAX_TURNS,
    db: str | Path = ":memory:",
    workers: int = 1,
    given_version: str | None = None,
    game_options: dict[str, Any] | None = None,
    opponent_agent: Any = None,
) -> tuple[EvalResult, TournamentResult]:
    """``agent`` (shown as ``name``) against ``opponent`` in every other seat: its result and the tournament played.

    The one evaluation loop under :func:`evaluate`, the training runs' evaluations
    (:func:`concordia_env.training.run_evaluation.evaluate`) and expert iteration's gate;
    ``seed`` is the tournament's seed. ``opponent_agent``: an agent object that plays the
    opponent's seats (shown as ``opponent``) instead of one built from the spec.
    """
    start = time.perf_counter()
    config = duel(
        name,
        opponent,
        map=map,
        players=num_players,
        games=games,
        seed=seed,
        max_turns=max_turns,
        given_version=given_version,
        **(game_options or {}),
    )
    given = {name: agent} if opponent_agent is None else {name: agent, opponent: opponent_agent}
    played = run_tournament(config, db=db, workers=workers, given=given, ratings=False)
    return eval_result(opponent, played.records, name, time.perf_counter() - start), played


def as_agent(policy: Any) -> Any:
    """What :func:`evaluate` plays: an agent built from a spec, an SB3 model as an agent, an agent, a callable."""
    if not isinstance(policy, str) and callable(getattr(policy, "predict", None)) and hasattr(policy, "policy"):
        return PolicyAgent.from_model(policy)
    if isinstance(policy, str):
        return agents.from_spec(policy)
    return resolve(policy)  # an agent object as it is, a callable f(game) wrapped; anything else: TypeError


def label_of(policy: Any) -> str:
    """How the report names the evaluated policy."""
    if isinstance(policy, str):
        return policy
    spec = getattr(policy, "spec", None)
    return spec if isinstance(spec, str) else type(policy).__name__


@dataclass
class Evaluation:
    """The results of :func:`evaluate`: one :class:`EvalResult` per opponent spec, in the order given."""

    policy: str
    results: list[EvalResult]
    map: str
    num_players: int
    seed: int

    def __getitem__(self, opponent: str) -> EvalResult:
        for result in self.results:
            if result.opponent == opponent:
                return result
        raise KeyError(f"no result against {opponent!r}; opponents: {[r.opponent for r in self.results]}")

    def report(self) -> str:
        """The results in words: each win rate with its interval, and how much the games tell."""
        n = self.num_players
        lines = [f"{self.policy} on {self.map}, {n} players (seed {self.seed}):"]
        for r in self.results:
            lines.append(f"  {r.summary()}")
            lines.append(f"    {r.versus_equal_strength(n)}")
        games = min((r.games for r in self.results), default=0)
        lines.append(
            f"{games} games give a 95% interval of about ±{100 * margin(games):.0f} points near 50%; ±5 points takes "
            f"{games_for_margin(0.05)} games, ±3 takes {games_for_margin(0.03)}"
        )
        if 0 < games < FEW_GAMES:
            lines.append(f"note: fewer than {FEW_GAMES} games per opponent: too few for a result worth reporting")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.report()

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "results": [r.to_dict() for r in self.results]}


def evaluate(
    policy: Any,
    opponents: str | Sequence[str] = DEFAULT_OPPONENTS,
    games: int = DEFAULT_GAMES,
    *,
    map: str = "italia",
    num_players: int = 2,
    seed: int = 0,
    max_turns: int | None = DEFAULT_MAX_TURNS,
    workers: int = 1,
) -> Evaluation:
    """Play ``games`` games of ``policy`` against each opponent spec; see the module docstring.

    ``policy``: an agent spec (``"policy:model.zip"``), an SB3 model, an agent or a callable
    ``f(game) -> action``. ``opponents``: one spec or several (``"random"``, ``"heuristic"``,
    ``"mcts:150"``, ``"learned"``). ``seed`` (default 0) seeds the games as a tournament's
    seed does: the same seed plays the same games. Returns an :class:`Evaluation`.
    """
    specs = [opponents] if isinstance(opponents, str) else list(opponents)
    if not specs or not all(isinstance(s, str) for s in specs):
        raise TypeError(f"opponents is an agent spec or a list of them, got {short_repr(opponents)}")
    if integer_argument(games, "games") < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if integer_argument(seed, "seed") < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    agent = as_agent(policy)
    name = f"{EVALUATED} {label_of(policy)}"
    results = [
        play_duel(
            agent, name, spec, games, map=map, num_players=num_players, seed=seed, max_turns=max_turns, workers=workers
        )[0]
        for spec in specs
    ]
    return Evaluation(policy=label_of(policy), results=results, map=map, num_players=num_players, seed=seed)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="concordia evaluate",
        description="Win rates, with 95% intervals, of a saved model or an agent against the reference agents.",
    )
    p.add_argument("policy", help="an agent spec: policy:path/to/model.zip, learned, mcts:200, heuristic...")
    p.add_argument(
        "--vs",
        nargs="+",
        default=list(DEFAULT_OPPONENTS),
        metavar="SPEC",
        help=f"opponent specs, one evaluation each (default: {' '.join(DEFAULT_OPPONENTS)})",
    )
    p.add_argument(
        "--games",
        type=arguments.count,
        default=DEFAULT_GAMES,
        help=f"games per opponent (default {DEFAULT_GAMES}: about ±7 points; 400: ±5)",
    )
    p.add_argument("--map", default="italia")
    p.add_argument("--players", type=arguments.count, default=2)
    p.add_argument("--seed", type=arguments.seed, default=0, help="the games' seed (default 0)")
    p.add_argument("--workers", type=arguments.count, default=1, help="parallel games (default 1)")
    p.add_argument("--max-turns", type=arguments.count, default=DEFAULT_MAX_TURNS, help="turn cap of a game")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:  # a bad spec, map or player count: a usage error before any game
        agent = as_agent(args.policy)
        for spec in args.vs:
            as_agent(spec)
        Game.new(args.map, args.players, 0)
    except (ValueError, TypeError, FileNotFoundError) as e:
        parser.error(arguments.mistake_text(e))
    arguments.refuse_unwritable(parser, "--json", args.json)  # before the games, not after them
    print(f"evaluating {args.policy}: {args.games} games against each of {', '.join(args.vs)}", file=sys.stderr)
    result = evaluate(
        agent,
        args.vs,
        args.games,
        map=args.map,
        num_players=args.players,
        seed=args.seed,
        max_turns=args.max_turns,
        workers=args.workers,
    )
    print(result.report())
    if args.json:
        import json

        arguments.write_text(args.json, json.dumps(result.to_dict(), indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
