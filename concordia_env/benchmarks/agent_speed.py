"""What the agents cost, as multiples of the bare engine's cost per decision, measured in one run.

::

    concordia bench agent_speed [--map italia] [--players 2] [--seconds 5] [--agents heuristic learned mcts:30]

* ``engine``: the bare engine, ``legal_actions()`` + ``step()`` per decision with the random
  draws batched (:func:`concordia_env.benchmarks.throughput.engine_chunk`, the very loop of
  ``concordia bench throughput``'s engine line). Numpy's per-call ``rng.choice`` costs more
  than the engine itself and is kept out of the denominator. It is measured first and last
  (half the time each) and pooled, so that a change of machine load during the run biases
  the ratios less.
* every agent: the CPU time of its ``act()`` per decision it is asked (forced ones
  included), in games where it fills every seat; the engine's own ``step()`` is not counted.
  ``mcts`` (and any agent with a ``last_simulations`` count): per *simulation*, the time of
  the decisions that searched divided by the simulations they ran.
* ``learned: its turn options alone`` (when ``learned`` is measured): the compiled turn
  options the default ``learned`` agent takes at each of its decisions with a choice, timed
  alone (:func:`learned_options_floor`). The heuristic takes the same options only where a
  turn begins, so this line's ratio to ``heuristic`` is the least ``learned`` can cost against
  it while it decides at every decision, however cheap its scores become.

Times are the CPU time of this process (``time.process_time``), not the wall clock: on a
machine shared with other work, wall time counts the turns the other processes take too.

**Output.** Every line is warmed up first, outside the measurement (compiling its code on
first use, or loading it and the agents' models, then a short warm-up of play:
:func:`~concordia_env.benchmarks.throughput.warm_up`), and each warm-up's wall seconds are
printed as it ends (``set-up``, also ``setup_seconds`` in ``--json``); then each line is
printed as soon as it is measured (flushed), and the table with the ratios, which wait
for the engine's second half, at the end. ``--no-progress`` prints the table alone.

Each line prints the cost, its ratio to the engine's cost per decision and the project's
target where there is one (2-player Italia): ``heuristic`` ≤ 8×, the default ``learned``
(deciding at every decision) ≤ 25×, ``learned:replan=False`` ≤ 25×, ``mcts`` ≤ 50× per
simulation; the default ``learned`` and its turn options alone are also shown as multiples
of the ``heuristic`` of the same run (:data:`RELATIVE_TARGETS`; when both are in the run).
Machines differ; the ratios are what to compare. ``--check`` exits with status 1 if a
target is missed.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from typing import Protocol, cast

import numpy as np

from concordia_env import Game, agents, strategy
from concordia_env.agents.base import Agent, agent_seed
from concordia_env.agents.learned import GreedyLearnedAgent
from concordia_env.strategy import STATUS_SIZE, compiled_turn_options
from concordia_env.tools import arguments

from .throughput import engine_chunk, warm_up

DEFAULT_AGENTS = ("heuristic", "learned", "learned:replan=False", "mcts:30")
#: the project's targets (multiples of the bare engine's cost per decision), by agent name ...
TARGETS = {"heuristic": 8.0, "mcts": 50.0}
#: ... and by agent spec, where one setting of an agent has a target and its others not
SPEC_TARGETS = {"learned": 25.0, "learned:replan=False": 25.0}
#: the line of the bare engine, the denominator of every ratio (:func:`engine`)
ENGINE_LINE = "engine (legal_actions + step)"
#: the line of the default ``learned`` agent's turn options alone (:func:`learned_options_floor`)
FLOOR_LINE = "learned: its turn options alone"
#: lines measured as multiples of another line's cost in the same run: line -> (other line, at
#: most; None: compared, with no target)
RELATIVE_TARGETS: dict[str, tuple[str, float | None]] = {
    "learned": ("heuristic", None),
    FLOOR_LINE: ("heuristic", None),
}
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
    #: a target relative to another line of the run (:data:`RELATIVE_TARGETS`): its name, the bound, the ratio
    versus: str | None = None
    versus_target: float | None = None
    versus_ratio: float = float("nan")
    #: wall seconds of the line's warm-up before any measurement (compiling or loading its code and models, then play)
    setup_seconds: float = 0.0

    @property
    def missed(self) -> bool:
        """Whether a target of this line is missed (its ratio to the engine, or to the line it is set against)."""
        return (self.target is not None and self.ratio > self.target) or (
            self.versus_target is not None and self.versus_ratio > self.versus_target
        )

    @property
    def microseconds(self) -> float:
        return 1e6 * self.seconds / max(1, self.count)


def engine(map_name: str, players: int, seconds: float, seed: int = 0) -> Result:
    """The bare engine (:func:`~concordia_env.benchmarks.throughput.engine_chunk`) for about ``seconds`` of CPU time."""
    chunk = engine_chunk(map_name, players, seed)
    decisions = 0
    start = time.process_time()
    while True:
        decisions += chunk()[0]
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return Result(ENGINE_LINE, decisions, elapsed)


class Searcher(Protocol):
    """A searching agent: it counts the simulations of its last decision (``mcts``, ``learned:simulations=N``)."""

    last_simulations: int


def self_play(seats: Sequence[Agent], map_name: str, players: int, seed: int) -> Iterator[Game]:
    """Game after game of ``seats`` (game i from seed ``seed + i``, seats reset by ``agent_seed``), at every decision.

    The caller takes the decision and steps the game, and stops the endless play when its
    budget is spent.
    """
    game_index = 0
    while True:
        game = Game.new(map_name, players, seed + game_index)
        for seat, agent in enumerate(seats):
            agent.reset(agent_seed(seed + game_index, seat))
        while not game.is_over():
            yield game
        game_index += 1


def agent_cost(spec: str, map_name: str, players: int, seconds: float, seed: int = 0) -> Result:
    """Self-play games of ``spec`` for about ``seconds`` of thinking: the agents' act() time per decision."""
    name = agents.parse_spec(spec)[0]
    seats = [agents.from_spec(spec) for _ in range(players)]
    per_simulation = hasattr(seats[0], "last_simulations")
    decisions = simulations = 0
    think = search_think = 0.0
    for game in self_play(seats, map_name, players, seed):
        if think >= seconds:
            break
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
    if per_simulation:
        return Result(spec, simulations, search_think, unit="simulation", target=target_of(spec, name))
    return Result(spec, decisions, think, target=target_of(spec, name))


def learned_options_floor(map_name: str, players: int, seconds: float, seed: int = 0) -> Result:
    """The part of the default ``learned`` agent's decision that no scoring can remove: its turn options.

    Self-play games of ``learned`` (not timed); at every decision it takes with a choice, the
    compiled enumeration it runs there (:func:`~concordia_env.strategy.compiled_turn_options`
    on a determinized copy, every legal action played out to the end of the turn and valued)
    is timed alone. The heuristic runs the same enumeration only where a turn begins and
    follows its plan after, so this line against ``heuristic`` is the floor of ``learned``'s ratio
    to it, whatever its scoring and network cost.
    """
    seats = [agents.from_spec("learned") for _ in range(players)]
    params = np.array(cast(GreedyLearnedAgent, seats[0]).compiled_player(players, map_name).params, dtype=np.float64)
    noise = strategy.new_rng(seed)
    status = np.zeros(STATUS_SIZE, dtype=np.int64)
    decisions = 0
    spent = 0.0
    for game in self_play(seats, map_name, players, seed):
        if spent >= seconds:
            break
        if len(game.legal_actions()) > 1:
            tables = game.map.tables
            sim = strategy.determinized(game.state, noise)
            remaining = strategy.remaining_fraction(sim, tables)
            start = time.process_time()
            compiled_turn_options(sim, tables, params, remaining, status)
            spent += time.process_time() - start
            decisions += 1
        game.step(seats[game.current_player].act(game))
    return Result(FLOOR_LINE, decisions, spent)


def target_of(spec: str, name: str) -> float | None:
    """The target of the agent ``spec`` (of agent ``name``): its spec's, else its name's, if either has one."""
    return SPEC_TARGETS.get(spec, TARGETS.get(name))


def run(specs: Sequence[str], map_name: str, players: int, seconds: float, progress: bool = True) -> list[Result]:
    """The engine (before and after, pooled) and every agent; ratios to the engine's cost per decision.

    Every line is warmed up before the first measurement (:func:`~concordia_env.benchmarks.throughput.warm_up`,
    its wall seconds the line's ``setup_seconds``). ``progress``: print each warm-up and each
    line as soon as it ends (flushed).
    """
    warmup = min(WARMUP_SECONDS, seconds)
    warmups: dict[str, Callable[[float], object]] = {
        spec: partial(agent_cost, spec, map_name, players) for spec in specs
    }
    if "learned" in specs:
        warmups[FLOOR_LINE] = partial(learned_options_floor, map_name, players)
    warmups[ENGINE_LINE] = partial(engine, map_name, players)
    if progress:
        print("set-up (compiling or loading each line's code, then a warm-up; not measured):", flush=True)
    setup = {}
    for name, play in warmups.items():  # load compiled code and models outside the timed part
        start = time.perf_counter()
        warm_up(play, warmup)
        setup[name] = time.perf_counter() - start
        if progress:
            print(f"  {name:<36} {setup[name]:8.1f} s", flush=True)
    if progress:
        print(f"{'measured (ratios in the table at the end)':<38} {'µs':>10} {'per':>11} {'CPU s':>8}", flush=True)

    def shown(result: Result, name: str | None = None) -> Result:
        result.setup_seconds = setup[result.name]
        if progress:
            label = name or result.name
            print(f"{label:<38} {result.microseconds:10.1f} {result.unit:>11} {result.seconds:8.2f}", flush=True)
        return result

    base = shown(engine(map_name, players, seconds / 2))
    results = [base]
    for spec in specs:
        results.append(shown(agent_cost(spec, map_name, players, seconds)))
        if spec == "learned":
            results.append(shown(learned_options_floor(map_name, players, seconds)))
    again = shown(engine(map_name, players, seconds / 2, seed=1), name=f"{ENGINE_LINE}, again")
    base.count += again.count
    base.seconds += again.seconds
    for r in results:
        r.ratio = r.microseconds / base.microseconds
    by_name = {r.name: r for r in results}
    for r in results:
        if r.name in RELATIVE_TARGETS and RELATIVE_TARGETS[r.name][0] in by_name:
            r.versus, r.versus_target = RELATIVE_TARGETS[r.name]
            r.versus_ratio = r.microseconds / by_name[r.versus].microseconds
    if progress:
        print()
    return results


def table(results: Sequence[Result], map_name: str, players: int) -> str:
    lines = [
        f"{map_name}, {players} players",
        f"{'measurement':<38} {'µs':>10} {'per':>11} {'× engine':>9} {'target':>12}",
        "-" * 84,
    ]
    for r in results:
        target = "" if r.target is None else f"≤{r.target:g}× {'ok' if r.ratio <= r.target else 'MISS'}"
        if r.versus_target is not None:
            verdict = "ok" if r.versus_ratio <= r.versus_target else "MISS"
            target = f"{r.versus_ratio:.1f}× {r.versus} (≤{r.versus_target:g}×) {verdict}"
        elif r.versus is not None:
            target = f"{r.versus_ratio:.1f}× {r.versus}"
        lines.append(f"{r.name:<38} {r.microseconds:10.1f} {r.unit:>11} {r.ratio:9.1f} {target:>12}")
    return "\n".join(lines)


def refuse_unmeasurable(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error (one line, exit status 2) before any measurement: a player count the map
    does not allow, an agent spec that makes no agent, a ``--json`` that cannot be written
    (checked first, so that no measurement is lost to it). A time not > 0 is argparse's."""
    arguments.refuse_unwritable(parser, "--json", args.json)
    try:
        Game.new(args.map, args.players, 0)
        for spec in args.agents:
            agents.from_spec(spec)
    except (ValueError, TypeError, OSError) as e:
        parser.error(str(e))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="concordia bench agent_speed", description=__doc__.split("\n\n")[0])
    arguments.add_table(parser, with_seed=False)
    parser.add_argument("--seconds", type=arguments.seconds, default=5.0, help="time per measurement (default 5)")
    parser.add_argument("--agents", nargs="+", default=list(DEFAULT_AGENTS), help="agent specs to measure")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if a target is missed")
    parser.add_argument(
        "--no-progress", action="store_true", help="print the table alone (not each set-up and line as it ends)"
    )
    args = parser.parse_args(argv)
    refuse_unmeasurable(parser, args)

    results = run(args.agents, args.map, args.players, args.seconds, progress=not args.no_progress)
    print(table(results, args.map, args.players))
    if args.json:
        rows = [asdict(r) | {"microseconds": r.microseconds} for r in results]
        summary = {"map": args.map, "players": args.players, "seconds": args.seconds, "results": rows}
        arguments.write_text(args.json, json.dumps(summary, indent=1))
    missed = [r.name for r in results if r.missed]
    if missed:
        print(f"targets missed: {', '.join(missed)}")
    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    raise SystemExit(main())
