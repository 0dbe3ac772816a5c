"""What the agents cost, as multiples of the engine's cost per decision, measured in one run.

::

    concordia bench agent_speed [--map italia] [--players 2] [--seconds 5] [--agents heuristic learned mcts:30]

* ``engine``: random play through :class:`~concordia_env.Game`: ``legal_actions()``, one
  uniformly random choice and ``step()``, per decision. It is measured first and last (half
  the time each) and pooled, so that a change of machine load during the run biases the
  ratios less.
* every agent: the wall time of its ``act()`` per decision it is asked (forced ones
  included), in games where it fills every seat; the engine's own ``step()`` is not counted.
  ``mcts`` (and any agent with a ``last_simulations`` count): per *simulation*, the time of
  the decisions that searched divided by the simulations they ran.

Times are the CPU time of this process (``time.process_time``), not the wall clock: on a
machine shared with other work, wall time counts the turns the other processes take too and
moved single runs by tens of percent (on the project's shared 2-core machine, the heuristic
came out at 3.5× and 10.6× in two wall-clock runs a minute apart, 5.1× and 5.1× in CPU time).

Each line prints the cost, its ratio to the engine's cost per decision and the
project's target where there is one (2-player Italia: ``heuristic`` ≤ 7×,
``learned:replan=False`` ≤ 10×, ``mcts`` ≤ 20× per simulation). Machines differ; the ratios
are what to compare. ``--check`` exits with status 1 if a target is missed.

The learned agent's target was set for the agent that follows its chosen turn
(``learned:replan=False``), which scores turn options only where a turn begins or leaves
its plan. The ``learned`` agent decides at every decision since 2026-12-04 (``replan``): it
scores options about three times as often and costs about that much more per decision
(docs/agents.md), a cost chosen for its strength (without search, 51.5% against
``mcts:150`` where the plan-following agent won 28.0%); it is measured beside the other,
with no target of its own.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Protocol, cast

import numpy as np

from concordia_env import Game, agents
from concordia_env.agents.base import agent_seed
from concordia_env.engine import maps

DEFAULT_AGENTS = ("heuristic", "learned", "learned:replan=False", "mcts:30")
#: the project's targets (multiples of the engine's cost per decision), by agent name ...
TARGETS = {"heuristic": 7.0, "mcts": 20.0}
#: ... and by agent spec, where one setting of an agent has a target and its others not
SPEC_TARGETS = {"learned:replan=False": 10.0}
WARMUP_SECONDS = 1.0


@dataclass
class Result:
    name: str
    #: decisions (or, per simulation, simulations) timed
    count: int
    seconds: float
    unit: str = "decision"
    target: float | None = None
    ratio: float = float("nan")  # to the engine, set once the engine is measured

    @property
    def microseconds(self) -> float:
        return 1e6 * self.seconds / max(1, self.count)


def engine(map_name: str, players: int, seconds: float, seed: int = 0) -> Result:
    """Random play through ``Game`` for about ``seconds``: decisions and the time they took."""
    rng = np.random.default_rng(seed)
    game = Game.new(map_name, players, seed)
    games = decisions = 0
    start = time.process_time()
    while True:
        for _ in range(64):
            if game.is_over():
                games += 1
                game = Game.new(map_name, players, seed + games)
            game.step(int(rng.choice(game.legal_actions())))
        decisions += 64
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return Result("engine (random play through Game)", decisions, elapsed)


class Searcher(Protocol):
    """A searching agent: it counts the simulations of its last decision (``mcts``, ``learned:simulations=N``)."""

    last_simulations: int


def agent_cost(spec: str, map_name: str, players: int, seconds: float, seed: int = 0) -> Result:
    """Self-play games of ``spec`` for about ``seconds`` of thinking: the agents' act() time per decision."""
    name = agents.parse_spec(spec)[0]
    seats = [agents.from_spec(spec) for _ in range(players)]
    per_simulation = hasattr(seats[0], "last_simulations")
    decisions = simulations = 0
    think = search_think = 0.0
    game_index = 0
    while think < seconds:
        game = Game.new(map_name, players, seed + game_index)
        for seat, agent in enumerate(seats):
            agent.reset(agent_seed(seed + game_index, seat))
        while not game.is_over() and think < seconds:
            agent = seats[game.current_player]
            if per_simulation:
                cast(Searcher, agent).last_simulations = 0
            start = time.process_time()
            action = agent.act(game)
            spent = time.process_time() - start
            think += spent
            decisions += 1
            if per_simulation and cast(Searcher, agent).last_simulations:
                simulations += cast(Searcher, agent).last_simulations
                search_think += spent
            game.step(action)
        game_index += 1
    if per_simulation:
        return Result(spec, simulations, search_think, unit="simulation", target=target_of(spec, name))
    return Result(spec, decisions, think, target=target_of(spec, name))


def target_of(spec: str, name: str) -> float | None:
    """The target of the agent ``spec`` (of agent ``name``): its spec's, else its name's, if either has one."""
    return SPEC_TARGETS.get(spec, TARGETS.get(name))


def run(specs: Sequence[str], map_name: str, players: int, seconds: float, progress: bool = True) -> list[Result]:
    """The engine (before and after, pooled) and every agent; ratios to the engine's cost per decision."""
    bar = _progress_bar(len(specs) + 2) if progress else None
    for spec in specs:  # load compiled code and models outside the timed part
        agent_cost(spec, map_name, players, min(WARMUP_SECONDS, seconds))
    engine(map_name, players, min(WARMUP_SECONDS, seconds))
    base = engine(map_name, players, seconds / 2)
    _advance(bar, "engine")
    results = [base]
    for spec in specs:
        results.append(agent_cost(spec, map_name, players, seconds))
        _advance(bar, spec)
    again = engine(map_name, players, seconds / 2, seed=1)
    _advance(bar, "engine again")
    base.count += again.count
    base.seconds += again.seconds
    for r in results:
        r.ratio = r.microseconds / base.microseconds
    if bar is not None:
        bar.close()
    return results


def _progress_bar(total: int):
    try:
        from tqdm import tqdm
    except ImportError:  # the bench extra brings tqdm; without it the run is silent
        return None
    return tqdm(total=total, unit="measurement", leave=False)


def _advance(bar, label: str) -> None:
    if bar is not None:
        bar.set_postfix_str(label)
        bar.update(1)


def table(results: Sequence[Result], map_name: str, players: int) -> str:
    lines = [
        f"{map_name}, {players} players",
        f"{'measurement':<38} {'µs':>10} {'per':>11} {'× engine':>9} {'target':>12}",
        "-" * 84,
    ]
    for r in results:
        target = "" if r.target is None else f"≤{r.target:g}× {'ok' if r.ratio <= r.target else 'MISS'}"
        lines.append(f"{r.name:<38} {r.microseconds:10.1f} {r.unit:>11} {r.ratio:9.1f} {target:>12}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="concordia bench agent_speed", description=__doc__.split("\n\n")[0])
    parser.add_argument("--map", default="italia", choices=maps.MAP_NAMES)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS), help="agent specs to measure")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if a target is missed")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    results = run(args.agents, args.map, args.players, args.seconds, progress=not args.no_progress)
    print(table(results, args.map, args.players))
    if args.json:
        rows = [asdict(r) | {"microseconds": r.microseconds} for r in results]
        with open(args.json, "w") as f:
            json.dump({"map": args.map, "players": args.players, "seconds": args.seconds, "results": rows}, f, indent=1)
    missed = [r.name for r in results if r.target is not None and r.ratio > r.target]
    if missed:
        print(f"targets missed: {', '.join(missed)}")
    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    raise SystemExit(main())
