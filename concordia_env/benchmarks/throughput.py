"""Throughput of the engine and the environments, measured against PettingZoo's Connect Four in the same run.

::

    concordia bench throughput [--seconds 3] [--maps imperium italia] [--batch 256] [--json out.json]

Every measurement plays uniformly random legal moves for about ``--seconds`` of wall time
(after a short warm-up that loads the compiled rules) and counts steps per second:

* ``connect_four_v3`` (the peer): PettingZoo's AEC loop, ``env.last()`` then
  ``env.step(action)`` with a random legal action of ``obs["action_mask"]``; every
  ``env.step`` call counts, including the ``None`` steps of finished agents, and games are
  reset when they end. Both AEC envs pick their action the same way, with one numpy draw
  (``action_space.sample(mask)`` would add a cost that grows with the action space, 7
  actions against 769, and measure the sampler rather than the env).
* ``engine``: ``Game.legal_actions()`` + ``Game.step()`` decisions per second (and games
  per second), for each map with 4 players and over all of them.
* ``aec``: the Concordia AEC env, exactly the peer's loop and counting.
* ``gym``: ``SingleAgentEnv`` steps per second (learner decisions; the random opponents'
  decisions happen inside those steps and are not counted).
* ``vector``: ``VectorGame(batch)``: each ``step`` counts ``batch`` decisions; the loop is
  ``sample_actions()`` (the masks and a random legal action per row, compiled), ``step()`` and
  ``observations()`` (the target applies to this line); a second line leaves the
  observations out, to show what they cost.

The peer is measured at the start and again at the end of the run (half the time each)
and pooled, so that a change of machine load during the run biases the ratios less.
Each result is printed with its ratio to the peer and the project's target where there
is one (engine ≥ 2×, AEC ≥ 1×, VectorGame(256) ≥ 10×). Machines differ; the ratios are
what to compare. ``--check`` exits with status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np
from pettingzoo.utils.env import AECEnv

from concordia_env import Game
from concordia_env.engine import maps

#: how many steps between two looks at the clock (keeps timing overhead out of the loops)
CLOCK_EVERY = 64
WARMUP_SECONDS = 0.3
ENGINE_PLAYERS = 4
TARGETS = {"engine": 2.0, "aec": 1.0, "vector": 10.0}


@dataclass
class Result:
    name: str
    steps: int
    seconds: float
    games: int = 0
    target: float | None = None
    ratio: float = float("nan")  # to the peer, set once the peer is measured

    @property
    def steps_per_second(self) -> float:
        return self.steps / self.seconds

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds


Runner = Callable[[float], tuple[int, int, float]]  # seconds -> (steps, games, elapsed)


def timed(seconds: float, chunk: Callable[[], tuple[int, int]]) -> tuple[int, int, float]:
    """Call ``chunk`` (which plays some steps and returns (steps, games finished)) for ``seconds``."""
    steps = games = 0
    start = time.perf_counter()
    while True:
        s, g = chunk()
        steps += s
        games += g
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps, games, elapsed


# --------------------------------------------------------------------------- AEC loops
def aec_runner(make_env: Callable[[], AECEnv], seed: int = 0) -> Runner:
    """The PettingZoo AEC random-play loop, counting every ``env.step`` call."""
    env = make_env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def chunk() -> tuple[int, int]:
        games = 0
        for _ in range(CLOCK_EVERY):
            if not env.agents:
                env.reset()
                games += 1
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
        return CLOCK_EVERY, games

    return lambda seconds: timed(seconds, chunk)


def connect_four() -> Runner:
    # connect_four_v3 imports pygame (for its own rendering); keep its banner out of the report.
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    from pettingzoo.classic import connect_four_v3

    return aec_runner(connect_four_v3.env)


def concordia_aec(map_name: str = "imperium", num_players: int = ENGINE_PLAYERS) -> Runner:
    from concordia_env import env

    return aec_runner(lambda: env(map=map_name, num_players=num_players))


# --------------------------------------------------------------------------- engine, gym, vector
def engine_runner(map_name: str, num_players: int = ENGINE_PLAYERS, seed: int = 0) -> Runner:
    """Raw ``Game`` decisions: legal_actions() and step() with a numpy random choice."""
    rng = np.random.default_rng(seed)
    game, game_seed = Game.new(map_name, num_players, seed=seed), seed

    def chunk() -> tuple[int, int]:
        nonlocal game, game_seed
        games = 0
        for _ in range(CLOCK_EVERY):
            if game.is_over():
                game_seed += 1
                game = Game.new(map_name, num_players, seed=game_seed)
                games += 1
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])
        return CLOCK_EVERY, games

    return lambda seconds: timed(seconds, chunk)


def gym_runner(map_name: str = "italia", num_players: int = 2, seed: int = 0) -> Runner:
    from concordia_env import SingleAgentEnv

    env = SingleAgentEnv(opponents="random", map=map_name, num_players=num_players, seed=seed)
    env.reset()
    rng = np.random.default_rng(seed)

    def chunk() -> tuple[int, int]:
        games = 0
        for _ in range(CLOCK_EVERY):
            legal = np.flatnonzero(env.action_masks())
            _, _, terminated, truncated, _ = env.step(int(legal[rng.integers(len(legal))]))
            if terminated or truncated:
                env.reset()
                games += 1
        return CLOCK_EVERY, games

    return lambda seconds: timed(seconds, chunk)


def vector_runner(batch: int, map_name: str = "imperium", observe: bool = True, seed: int = 0) -> Runner:
    """VectorGame random play; ``observe`` adds the batched observation of every step (as an RL loop needs)."""
    from concordia_env import VectorGame

    vec = VectorGame(batch, map=map_name, num_players=ENGINE_PLAYERS, seed=seed)
    rng = np.random.default_rng(seed)
    vec.observations()

    def chunk() -> tuple[int, int]:
        vec.step(vec.sample_actions(rng))
        if observe:
            vec.observations()
        # no games/s: all rows start together, so a short run finishes few or many games by chance
        return batch, 0

    return lambda seconds: timed(seconds, chunk)


# --------------------------------------------------------------------------- report
def measure(name: str, runner: Runner, seconds: float) -> Result:
    runner(min(WARMUP_SECONDS, seconds))
    steps, games, elapsed = runner(seconds)
    return Result(name=name, steps=steps, seconds=elapsed, games=games)


def run(seconds: float, map_names: Sequence[str], batch: int) -> list[Result]:
    """All measurements; the peer is measured first and last (half the time each) and pooled."""
    peer_runner = connect_four()
    peer = measure("connect_four_v3 (AEC)", peer_runner, seconds / 2)
    results = [peer]
    engine_total = Result("engine, all maps", steps=0, seconds=0.0, target=TARGETS["engine"])
    for name in map_names:
        r = measure(f"engine {name} {ENGINE_PLAYERS}p", engine_runner(name), seconds / len(map_names))
        engine_total.steps += r.steps
        engine_total.seconds += r.seconds
        engine_total.games += r.games
        results.append(r)
    results.append(engine_total)
    results.append(measure(f"AEC env {map_names[0]} {ENGINE_PLAYERS}p", concordia_aec(map_names[0]), seconds))
    results[-1].target = TARGETS["aec"]
    results.append(measure("Gymnasium SingleAgentEnv italia 2p", gym_runner(), seconds))
    label = f"VectorGame({batch}) {map_names[0]} {ENGINE_PLAYERS}p"
    results.append(measure(f"{label}, no obs", vector_runner(batch, map_names[0], observe=False), seconds))
    results.append(measure(label, vector_runner(batch, map_names[0]), seconds))
    if batch == 256:
        results[-1].target = TARGETS["vector"]
    again = measure("connect_four_v3 (AEC)", peer_runner, seconds / 2)
    peer.steps, peer.games, peer.seconds = (
        peer.steps + again.steps,
        peer.games + again.games,
        peer.seconds + again.seconds,
    )
    for r in results:
        r.ratio = r.steps_per_second / peer.steps_per_second
    return results


def table(results: Sequence[Result]) -> str:
    lines = [
        f"{'measurement':<40} {'steps/s':>12} {'games/s':>9} {'× c4':>7} {'target':>7}",
        "-" * 79,
    ]
    for r in results:
        target = "" if r.target is None else f"≥{r.target:g}× {'ok' if r.ratio >= r.target else 'MISS'}"
        games = f"{r.games_per_second:9.2f}" if r.games else " " * 9
        lines.append(f"{r.name:<40} {r.steps_per_second:12,.0f} {games} {r.ratio:7.2f} {target:>7}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="concordia bench throughput", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="wall time per measurement (default 3)")
    parser.add_argument("--maps", nargs="+", default=list(maps.MAP_NAMES), choices=maps.MAP_NAMES)
    parser.add_argument("--batch", type=int, default=256, help="VectorGame batch size (default 256)")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if a target is missed")
    args = parser.parse_args(argv)

    results = run(args.seconds, args.maps, args.batch)
    print(table(results))
    if args.json:
        rows = [
            asdict(r) | {"steps_per_second": r.steps_per_second, "games_per_second": r.games_per_second}
            for r in results
        ]
        with open(args.json, "w") as f:
            json.dump({"seconds": args.seconds, "results": rows}, f, indent=1)
    missed = [r.name for r in results if r.target is not None and r.ratio < r.target]
    if missed:
        print(f"targets missed: {', '.join(missed)}")
    return 1 if (missed and args.check) else 0


if __name__ == "__main__":
    raise SystemExit(main())
