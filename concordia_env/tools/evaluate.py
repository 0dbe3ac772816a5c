"""Evaluate a trained model, a callable or an agent against the reference agents: win rates with 95% intervals.

::

    concordia evaluate policy:model.zip                        # an SB3 MaskablePPO file, vs random and heuristic
    concordia evaluate learned --vs heuristic mcts:150 --games 400
    concordia evaluate heuristic --vs random --map imperium --players 4
    concordia evaluate learned --vs mcts:150 --sprt elo0=0 elo1=50 --games 2000   # stop when the answer is known

From Python (``concordia_env.evaluate`` is this module's :func:`evaluate`)::

    import concordia_env

    report = concordia_env.evaluate(model, opponents=["random", "heuristic"], games=200)
    print(report)                      # one line per opponent, and how much the games tell
    report["heuristic"].win_rate       # an EvalResult per opponent (wins, interval, mean VP)

What can be evaluated (``policy``)
----------------------------------
* an **agent spec** string, as everywhere in the project: ``"policy:path/to/model.zip"`` (a
  saved ``MaskablePPO``, loaded safely: :mod:`concordia_env.agents.policy`; or
  ``"policy:runs/<run>/model.pt"``, a ``concordia train ppo_options`` run's network), ``"learned"``,
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

Elo
---
Beside each win rate the report (and ``--json``: ``elo``, ``elo_ci``, null where infinite)
gives the Elo difference it implies, with its interval, as cutechess-cli and fishtest print
it: ``Elo = -400 log10(1/p - 1)``, its interval the same formula at the win rate interval's
ends (:func:`~concordia_env.tools.report.elo_interval`). At more than two players it is the
Elo of the win share against the equal share ``1/n``: ``Elo = 400 log10((n - 1) p / (1 - p))``,
the difference at which Luce's choice model gives ``p`` against ``n - 1`` equal opponents (0 at
``p = 1/n``), so results at different table sizes compare on one scale.

Progress, and Ctrl-C
--------------------
While the games play, a line on stderr per opponent shows the games done of the total, the
elapsed and remaining time, and the running win rate with its interval and Elo
(:mod:`concordia_env.tools.progress`; no tqdm needed). ``evaluate(progress=None)`` shows it
when stderr is a terminal; the command also not with ``--quiet``, so logs and ``--json`` runs
stay clean. Ctrl-C keeps the finished games: :func:`evaluate` raises
:class:`EvaluationInterrupted` (a ``KeyboardInterrupt``) holding the results so far, the last
one over the games finished against its opponent; the command prints that report with its
intervals, writes ``--json`` (``"interrupted": true``), says so in one line and exits 130.

A sequential test
-----------------
``--sprt elo0=0 elo1=50`` (or ``p0=0.5 p1=0.6``, with ``alpha`` and ``beta``, 0.05 each by
default; ``evaluate(..., sprt="elo0=0 elo1=50")``) plays against one opponent until Wald's
sequential probability ratio test decides between H0 (the win share is ``p0``) and H1 (it is
``p1``), with ``--games`` as the cap (default :data:`DEFAULT_SPRT_GAMES`): in batches that keep
every worker busy, deciding on the games ``0..n-1`` after each (:func:`play_sequential`). The
report says which hypothesis was accepted, the log-likelihood ratio and its bounds, the games
played and the win rate with its interval and Elo. At the bounds it needs about half the
games of a fixed-size test with the same error rates (:mod:`concordia_env.tools.sprt`, where
the error rates are checked by simulation). Bad bounds are a usage error before any game.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import agents
from concordia_env.agents.policy import PolicyAgent
from concordia_env.engine import defaults
from concordia_env.engine.errors import integer_argument, short_repr
from concordia_env.engine.game import Game
from concordia_env.envs.opponents import resolve
from concordia_env.tools import arguments
from concordia_env.tools.progress import Progress, show_progress
from concordia_env.tools.report import Z_95, elo_interval, elo_text, wilson_interval
from concordia_env.tools.sprt import Sprt, SprtResult, batch_size
from concordia_env.tools.store import GameRecord
from concordia_env.tools.tournament import OnDone, TournamentResult, duel, one_torch_thread, run_tournament

#: turn cap of an evaluation game (random 2-player Italia games last about 240 turns)
DEFAULT_MAX_TURNS = 1000
#: what a policy is evaluated against unless told: the reference agents without search
DEFAULT_OPPONENTS = ("random", "heuristic")
DEFAULT_GAMES = 200
#: the cap of a sequential test (``--sprt``) unless told (``--games``)
DEFAULT_SPRT_GAMES = 1000
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

    def elo(self, num_players: int) -> tuple[float, float, float]:
        """The Elo difference the win rate implies and its 95% interval.

        See :func:`~concordia_env.tools.report.elo_interval`; above 2 players, of the win share
        against the equal share ``1 / num_players``.
        """
        return elo_interval(self.wins, self.games, num_players)

    def elo_summary(self, num_players: int) -> str:
        """``Elo +70 [+22, +119]``."""
        elo, low, high = self.elo(num_players)
        return f"Elo {elo_text(elo)} [{elo_text(low)}, {elo_text(high)}]"

    def summary(self, num_players: int | None = None) -> str:
        """The result in one line; with ``num_players``, the Elo difference and its interval beside the win rate."""
        capped = f", {self.truncated} stopped at the turn cap" if self.truncated else ""
        elo = f", {self.elo_summary(num_players)}" if num_players is not None else ""
        return (
            f"vs {self.opponent}: won {self.wins}/{self.games} = {self.win_rate:.1%} "
            f"[95% CI {self.ci_low:.1%}-{self.ci_high:.1%}]{elo}, mean VP {self.mean_vp:.1f} "
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
    on_game: OnDone | None = None,
) -> tuple[EvalResult, TournamentResult]:
    """``agent`` (shown as ``name``) against ``opponent`` in every other seat: its result and the tournament played.

    The one evaluation loop under :func:`evaluate`, the training runs' evaluations
    (:func:`concordia_env.training.run_evaluation.evaluate`) and expert iteration's gate;
    ``seed`` is the tournament's seed. ``opponent_agent``: an agent object that plays the
    opponent's seats (shown as ``opponent``) instead of one built from the spec. ``on_game``
    is called with each game played, as it finishes (:func:`~concordia_env.tools.tournament.run_tournament`).
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
    played = run_tournament(config, db=db, workers=workers, given=given, ratings=False, on_game=on_game)
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
    """The results of :func:`evaluate`: one :class:`EvalResult` per opponent spec, in the order given.

    ``sprt``: the sequential test's outcome when one was asked for (one opponent);
    ``interrupted``: the run was stopped (Ctrl-C) and the last result holds the games
    finished by then.
    """

    policy: str
    results: list[EvalResult]
    map: str
    num_players: int
    seed: int
    sprt: SprtResult | None = None
    interrupted: bool = False

    def __getitem__(self, opponent: str) -> EvalResult:
        for result in self.results:
            if result.opponent == opponent:
                return result
        raise KeyError(f"no result against {opponent!r}; opponents: {[r.opponent for r in self.results]}")

    def report(self) -> str:
        """The results in words: each win rate with its interval and Elo, and how much the games tell."""
        n = self.num_players
        lines = [f"{self.policy} on {self.map}, {n} players (seed {self.seed}):"]
        for r in self.results:
            lines.append(f"  {r.summary(n)}")
            lines.append(f"    {r.versus_equal_strength(n)}")
        if n > 2:
            lines.append(f"Elo: of the win share against the equal share {1 / n:.0%} (0 at equal strength)")
        if self.sprt is not None:
            lines.append(self.sprt.summary(n, interrupted=self.interrupted))
        games = min((r.games for r in self.results), default=0)
        if self.sprt is None:
            lines.append(
                f"{games} games give a 95% interval of about ±{100 * margin(games):.0f} points near 50%; ±5 points "
                f"takes {games_for_margin(0.05)} games, ±3 takes {games_for_margin(0.03)}"
            )
        if 0 < games < FEW_GAMES and self.sprt is None:
            lines.append(f"note: fewer than {FEW_GAMES} games per opponent: too few for a result worth reporting")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.report()

    def to_dict(self) -> dict[str, Any]:
        """As JSON: each result with its Elo difference and interval (null where infinite), the test's outcome."""
        results = []
        for r in self.results:
            elo, low, high = r.elo(self.num_players)
            finite = [v if math.isfinite(v) else None for v in (elo, low, high)]
            results.append({**r.to_dict(), "elo": finite[0], "elo_ci": finite[1:]})
        return {
            **asdict(self),
            "results": results,
            "sprt": self.sprt.to_dict() if self.sprt is not None else None,
        }


class EvaluationInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`evaluate`: ``evaluation`` holds the results finished by then (the last one partial).

    A ``KeyboardInterrupt``, so that a script still stops; catch it to keep the finished games.
    """

    def __init__(self, evaluation: Evaluation) -> None:
        super().__init__("interrupted")
        self.evaluation = evaluation


class _Watch:
    """One opponent's games as they finish: kept for an interrupted run, shown on the progress line."""

    def __init__(self, name: str, num_players: int, line: Progress | None, test: Sprt | None, cap: int) -> None:
        self.name, self.num_players, self.line, self.test, self.cap = name, num_players, line, test, cap
        self.records: list[GameRecord] = []
        self.start = time.perf_counter()

    def __call__(self, record: GameRecord) -> None:
        self.records.append(record)
        if self.line is not None:
            self.line.update(len(self.records), self.status())

    def wins(self) -> int:
        return sum(int(r.winner == r.seats.index(self.name)) for r in self.records)

    def status(self) -> str:
        """``won 24 = 64.9% [48.8%-78.2%], Elo +107 [-8, +221]`` (and the test's LLR with its bounds)."""
        wins, games = self.wins(), len(self.records)
        low, high = wilson_interval(wins, games)
        elo, elo_low, elo_high = elo_interval(wins, games, self.num_players)
        text = f"won {wins} = {wins / games:.1%} [{low:.1%}-{high:.1%}], Elo {elo_text(elo)} "
        text += f"[{elo_text(elo_low)}, {elo_text(elo_high)}]"
        if self.test is not None:
            text += f", {SprtResult.of(self.test, wins, games, self.cap).status()}"
        return text

    def partial(self, opponent: str) -> tuple[EvalResult, SprtResult | None]:
        """The result of the games finished so far; the test's standing over them, undecided."""
        result = eval_result(opponent, self.records, self.name, time.perf_counter() - self.start)
        if self.test is None:
            return result, None
        return result, replace(SprtResult.of(self.test, result.wins, result.games, self.cap), decision=None)


def play_sequential(
    agent: Any,
    name: str,
    opponent: str,
    test: Sprt,
    max_games: int,
    *,
    workers: int = 1,
    num_players: int,
    on_game: OnDone | None = None,
    **duel_options: Any,
) -> tuple[EvalResult, SprtResult]:
    """``agent`` against ``opponent`` until the sequential test ``test`` decides, or ``max_games`` games.

    The games are :func:`play_duel`'s (game ``i`` the same game as in a fixed-size
    evaluation with the same seed), played in batches of :func:`~concordia_env.tools.sprt.batch_size`
    games into a results file of its own that each batch extends; the test looks at the games
    ``0..n-1`` after each batch (see :mod:`concordia_env.tools.sprt`).
    """
    start = time.perf_counter()
    batch = batch_size(workers, num_players)
    games = 0
    with tempfile.TemporaryDirectory(prefix="concordia-sprt-") as folder:
        db = Path(folder) / "games.db"
        while True:
            games = min(games + batch, max_games)
            result, _ = play_duel(
                agent, name, opponent, games, db=db, workers=workers, num_players=num_players, on_game=on_game,
                **duel_options,
            )  # fmt: skip
            outcome = SprtResult.of(test, result.wins, result.games, max_games)
            if outcome.decision is not None or games >= max_games:
                return replace(result, seconds=time.perf_counter() - start), outcome


def evaluate(
    policy: Any,
    opponents: str | Sequence[str] = DEFAULT_OPPONENTS,
    games: int | None = None,
    *,
    map: str = defaults.MAP,
    num_players: int = defaults.NUM_PLAYERS,
    seed: int = defaults.COMMAND_SEED,
    max_turns: int | None = DEFAULT_MAX_TURNS,
    workers: int = 1,
    progress: bool | None = None,
    sprt: str | Mapping[str, Any] | Sprt | None = None,
) -> Evaluation:
    """Play ``games`` games of ``policy`` against each opponent spec; see the module docstring.

    ``policy``: an agent spec (``"policy:model.zip"``), an SB3 model, an agent or a callable
    ``f(game) -> action``. ``opponents``: one spec or several (``"random"``, ``"heuristic"``,
    ``"mcts:150"``, ``"learned"``). ``games``: per opponent (default 200), or the cap of a
    sequential test (default 1,000). ``seed`` (default 0) seeds the games as a tournament's
    seed does: the same seed plays the same games. ``progress``: show a progress line on
    stderr (default: when stderr is a terminal). ``sprt``: a sequential test against one
    opponent, ``"elo0=0 elo1=50"`` or ``"p0=0.5 p1=0.6"`` with ``alpha`` and ``beta``
    (default 0.05 each), a mapping of those keys or an :class:`~concordia_env.tools.sprt.Sprt`:
    it stops as soon as the test decides. Returns an :class:`Evaluation`; Ctrl-C raises
    :class:`EvaluationInterrupted`, which holds the finished games' results.
    """
    specs = [opponents] if isinstance(opponents, str) else list(opponents)
    if not specs or not all(isinstance(s, str) for s in specs):
        raise TypeError(f"opponents is an agent spec or a list of them, got {short_repr(opponents)}")
    test = Sprt.parse(sprt, num_players) if sprt is not None else None
    if test is not None and len(specs) != 1:
        raise ValueError(f"a sequential test is against one opponent, got {len(specs)}: {specs}")
    games = (DEFAULT_SPRT_GAMES if test is not None else DEFAULT_GAMES) if games is None else games
    if integer_argument(games, "games") < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if integer_argument(seed, "seed") < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    agent = as_agent(policy)
    name = f"{EVALUATED} {label_of(policy)}"
    show = show_progress() if progress is None else bool(progress)
    options: dict[str, Any] = {"map": map, "num_players": num_players, "seed": seed, "max_turns": max_turns}
    results: list[EvalResult] = []
    outcome: SprtResult | None = None
    for spec in specs:
        line = Progress(f"vs {spec}", games, capped=test is not None) if show else None
        watch = _Watch(name, num_players, line, test, games)
        try:
            if test is None:
                results.append(play_duel(agent, name, spec, games, workers=workers, on_game=watch, **options)[0])
            else:
                result, outcome = play_sequential(
                    agent, name, spec, test, games, workers=workers, on_game=watch, **options
                )
                results.append(result)
        except KeyboardInterrupt:
            partial, outcome = watch.partial(spec)
            done = Evaluation(label_of(policy), [*results, partial], map, num_players, seed, outcome, interrupted=True)
            raise EvaluationInterrupted(done) from None
        finally:
            if line is not None:
                line.close()
    return Evaluation(label_of(policy), results, map, num_players, seed, sprt=outcome)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="concordia evaluate",
        description="Win rates, with 95% intervals and Elo, of a saved model or an agent against the reference agents.",
    )
    p.add_argument(
        "policy",
        help="an agent spec: policy:path/to/model.zip (or a ppo_options run's model.pt), learned, mcts:200, "
        "heuristic...",
    )
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
        default=None,
        help=f"games per opponent (default {DEFAULT_GAMES}: about ±7 points; 400: ±5); with --sprt the most "
        f"games the test plays (default {DEFAULT_SPRT_GAMES})",
    )
    p.add_argument(
        "--sprt",
        nargs="+",
        metavar="KEY=VALUE",
        help="a sequential test against one --vs that stops when it decides: elo0=0 elo1=50 (or p0=0.5 p1=0.6), "
        "alpha=0.05 beta=0.05 (the defaults)",
    )
    arguments.add_table(p, seed_help=f"the games' seed (default {defaults.COMMAND_SEED})")
    p.add_argument("--workers", type=arguments.count, default=1, help="parallel games (default 1)")
    p.add_argument("--max-turns", type=arguments.count, default=DEFAULT_MAX_TURNS, help="turn cap of a game")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    arguments.add_quiet(p)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    test: Sprt | None = None
    try:  # a bad spec, map, player count or test: a usage error before any game
        agent = as_agent(args.policy)
        for spec in args.vs:
            as_agent(spec)
        Game.new(args.map, args.players, 0)
        if args.sprt is not None:
            test = Sprt.parse(" ".join(args.sprt), args.players)
    except (ValueError, TypeError, FileNotFoundError) as e:
        parser.error(arguments.mistake_text(e))
    if test is not None and len(args.vs) != 1:
        parser.error(f"--sprt tests against one opponent: give one --vs SPEC (got {len(args.vs)})")
    arguments.refuse_unwritable(parser, "--json", args.json)  # before the games, not after them
    one_torch_thread()  # the agents are built: a model plays on one thread here, as in the workers
    games = args.games or (DEFAULT_SPRT_GAMES if test is not None else DEFAULT_GAMES)
    if not args.quiet:
        if test is None:
            what = f"{games} games against each of {', '.join(args.vs)}"
        else:
            what = f"a sequential test against {args.vs[0]}, {test.describe(args.players)}, at most {games} games"
        print(f"evaluating {args.policy}: {what}", file=sys.stderr)
    status = 0
    try:
        result = evaluate(
            agent,
            args.vs,
            games,
            map=args.map,
            num_players=args.players,
            seed=args.seed,
            max_turns=args.max_turns,
            workers=args.workers,
            progress=show_progress(args.quiet),
            sprt=test,
        )
    except EvaluationInterrupted as stop:
        result, status = stop.evaluation, 130
    print(result.report())
    if args.json:
        import json

        arguments.write_text(args.json, json.dumps(result.to_dict(), indent=1) + "\n")
    if status:
        played = result.results[-1]
        print(
            f"interrupted: the last result holds only the {played.games} games finished against {played.opponent}",
            file=sys.stderr,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
