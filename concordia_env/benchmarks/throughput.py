"""Throughput of the engine and the environments, measured against PettingZoo's Connect Four in the same run.

::

    concordia bench throughput [--seconds 3] [--maps imperium italia] [--batch 256] [--envs 64] [--json out.json]

Every measurement plays uniformly random legal moves for the learner (or every player) for
about ``--seconds`` of wall time and counts steps per second. Before it, the line's env is
built and warmed up (:func:`ready`): compiling its code on first use, or loading it, then
a short warm-up of play, repeated while it still compiles (:func:`warm_up`); that time is
the line's *set-up*, reported apart and never in its steps per second:

* ``connect_four_v3`` (the peer): PettingZoo's AEC loop, ``env.last()`` then
  ``env.step(action)`` with a random legal action of ``obs["action_mask"]``; every
  ``env.step`` call counts, including the ``None`` steps of finished agents, and games are
  reset when they end. Both AEC envs pick their action the same way, with one numpy draw
  (``action_space.sample(mask)`` would add a cost that grows with the action space, 7
  actions against 769, and measure the sampler rather than the env).
* ``engine``: ``Game.legal_actions()`` + ``Game.step()`` decisions per second (and games
  per second), for each map with 4 players and over all of them. The random index comes
  from uniforms drawn 64 at a time, so that the line measures the engine, not numpy's
  scalar ``integers`` (which costs about as much as a decision).
* ``aec``: the Concordia AEC env, exactly the peer's loop and counting.
* ``gym``: ``SingleAgentEnv`` steps per second (learner decisions; the random opponents'
  decisions happen inside those steps and are not counted).
* ``vector``: ``VectorGame(batch)``: each ``step`` counts ``batch`` decisions; the loop is
  ``sample_actions()`` (a random legal action per row, compiled) and
  ``step(actions, observe_into=buffer)``, which also writes every row's next observation
  (the target applies to this line); a line without the observations shows what they cost,
  and a line with ``threads=2`` is compared with the one-thread line of the same run (the
  two are measured in turn, four slices each, and pooled: :func:`measure_interleaved`).
* ``vector env``: :class:`~concordia_env.envs.vector_env.ConcordiaVectorEnv` against the
  compiled ``heuristic`` on 2-player Italia, ``--envs`` rows on 2 threads, learner steps per
  second; against it, Stable-Baselines3's ``SubprocVecEnv`` of ``SingleAgentEnv(opponents="heuristic")``
  with one process per core (2), the way ``training/selfplay.py`` ran before the vector env.
  Needs the ``train`` extra (Stable-Baselines3); without it the ``SubprocVecEnv`` line is left out.
* ``vector env ... options``: the same vector env at the options level
  (``level="options"``, :mod:`concordia_env.envs.options_level`): every row's turn options
  computed in compiled code on the 2 threads at every learner decision, a random kept option
  per row (``action_space.sample()``); learner steps per second, against the flat vector env
  of the same run (the two measured in turn and pooled, :func:`measure_interleaved`).

**Output.** Each line is printed as soon as it is measured (flushed): its steps per
second, the seconds measured and its set-up seconds, so that on first use, when compiling
takes minutes, the run shows where the time goes. The table with the ratios follows at
the end, with the set-up and measured seconds of the whole run (``--json`` writes every
line's ``setup_seconds`` beside its ``seconds``).

The peer is measured at the start and again at the end of the run (half the time each)
and pooled, so that a change of machine load during the run biases the ratios less (which
is why the ratios wait for the table). Each result in the table is printed with its ratio
to the peer and, where the project has one, its target: a ratio to the peer (engine ≥ 22×,
AEC ≥ 3.2×, VectorGame(256) ≥ 30×) or to another line of the same run (2 threads ≥ 1.7× one
thread; the vector env ≥ 10× the ``SubprocVecEnv``; the options level ≥ 0.5× the flat
vector env, in learner steps). Machines differ; the ratios are what to compare. ``--check``
exits with status 1 if a target is missed.

**A busy machine.** Every line also records the CPU time this process got while it ran.
When a line got less than ``BUSY_SHARE`` of the CPUs it uses (one, or both threads'), or
the load average exceeds the CPU count, the report ends with a note naming that evidence:
other work was running, the lines compared with each other met different conditions (a
line on two threads needs both cores, so a background job moves it most), and a MISS is
then more likely the load's doing than the code's. Run again on a quiet machine.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from functools import partial

import gymnasium
import numpy as np
from pettingzoo.utils.env import AECEnv

from concordia_env import Game
from concordia_env.engine import maps
from concordia_env.tools import arguments

#: how many steps between two looks at the clock (keeps timing overhead out of the loops)
CLOCK_EVERY = 64
#: the warm-up's play before a line is measured (a round of it; :func:`warm_up`)
WARMUP_SECONDS = 0.3
#: a warm-up round that took more CPU seconds than ``SETTLED_FACTOR`` times its length plus
#: ``SETTLED_SLACK`` compiled or loaded code (a second thread, or the untimed work around a
#: timed part, stays under it; a compile takes seconds)
SETTLED_FACTOR = 4.0
SETTLED_SLACK = 1.0
#: the most warm-up rounds before a line is measured anyway
WARMUP_ROUNDS = 5
ENGINE_PLAYERS = 4
#: targets as ratios to the peer
TARGETS = {"engine": 22.0, "aec": 3.2, "vector": 30.0}
#: targets as ratios to another line of the same run
THREADS_TARGET = 1.7
VECTOR_ENV_TARGET = 10.0
#: learner steps per second of the vector env at the options level, as a share of the flat vector env's
OPTIONS_TARGET = 0.5
#: turns of the lines measured against each other (one thread and two: :func:`measure_interleaved`)
ROUNDS = 4
#: threads of the multi-threaded lines (the machines this project runs on have 2 cores)
THREADS = 2
#: the processes of the SubprocVecEnv line (one per core)
SUBPROC_ENVS = 2
#: a line that got less than this share of the CPUs it uses ran beside other work
BUSY_SHARE = 0.8
#: the line that pools the engine's lines of every map
ENGINE_TOTAL = "engine, all maps"


@dataclass
class Result:
    name: str
    steps: int
    seconds: float
    games: int = 0
    target: float | None = None
    ratio: float | None = None
    #: the line ``target`` is a ratio to (None: the peer)
    versus: str | None = None
    versus_ratio: float | None = None
    #: CPU time this process got while the line ran, and the CPUs the line can use (0: its
    #: work runs in other processes, so this process's CPU time says nothing of the load)
    cpu_seconds: float = 0.0
    threads: int = 1
    #: wall seconds before the measurement (not in ``seconds``): building the line's env,
    #: compiling or loading its compiled code, the warm-up (:func:`ready`)
    setup_seconds: float = 0.0

    @property
    def cpu_share(self) -> float | None:
        """The share of its CPUs the line got (about 1 on a quiet machine; None when unknown)."""
        if not self.threads or self.seconds <= 0:
            return None
        return self.cpu_seconds / (self.seconds * self.threads)

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
def engine_chunk(map_name: str, num_players: int = ENGINE_PLAYERS, seed: int = 0) -> Callable[[], tuple[int, int]]:
    """The bare engine's decisions, ``CLOCK_EVERY`` at a time: ``legal_actions()`` + ``step()``, random draws batched.

    The random index comes from uniforms drawn ``CLOCK_EVERY`` at a time, so that the cost is
    the engine's, not numpy's per-call ``rng.choice`` (which costs more than a decision).
    Returns (decisions, games finished) per call. The one denominator of the engine's cost,
    here and in ``concordia bench agent_speed``.
    """
    rng = np.random.default_rng(seed)
    game, game_seed = Game.new(map_name, num_players, seed=seed), seed

    def chunk() -> tuple[int, int]:
        nonlocal game, game_seed
        games = 0
        for u in rng.random(CLOCK_EVERY):
            if game.is_over():
                game_seed += 1
                game = Game.new(map_name, num_players, seed=game_seed)
                games += 1
            legal = game.legal_actions()
            game.step(legal[int(u * len(legal))])
        return CLOCK_EVERY, games

    return chunk


def engine_runner(map_name: str, num_players: int = ENGINE_PLAYERS, seed: int = 0) -> Runner:
    """Raw ``Game`` decisions (:func:`engine_chunk`) for about ``seconds`` of wall time."""
    chunk = engine_chunk(map_name, num_players, seed)
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


def vector_runner(
    batch: int, map_name: str = "imperium", observe: bool = True, threads: int = 1, seed: int = 0
) -> Runner:
    """VectorGame random play; ``observe`` adds the batched observation of every step (as an RL loop needs)."""
    from concordia_env import VectorGame

    vec = VectorGame(batch, map=map_name, num_players=ENGINE_PLAYERS, seed=seed, threads=threads)
    rng = np.random.default_rng(seed)
    out = vec.observations()

    def chunk() -> tuple[int, int]:
        vec.step(vec.sample_actions(rng), observe_into=out if observe else None)
        # no games/s: all rows start together, so a short run finishes few or many games by chance
        return batch, 0

    return lambda seconds: timed(seconds, chunk)


def vector_env_runner(
    envs: int, opponent: str = "heuristic", threads: int = THREADS, seed: int = 0, level: str = "flat"
) -> Runner:
    """ConcordiaVectorEnv (2-player Italia, compiled opponents inside): learner steps of every row.

    ``level="options"``: a random kept option per row (the options computed at every step).
    """
    from concordia_env.envs.vector_env import ConcordiaVectorEnv

    env = ConcordiaVectorEnv(
        envs, opponents=opponent, map="italia", num_players=2, threads=threads, copy=False, level=level
    )
    env.reset(seed=seed)
    env.action_space.seed(seed)
    rng = np.random.default_rng(seed)

    def chunk() -> tuple[int, int]:
        actions = env.games.sample_actions(rng) if level == "flat" else env.action_space.sample()
        _, _, terminated, _, _ = env.step(actions)
        return envs, int(terminated.sum())

    return lambda seconds: timed(seconds, chunk)


def subproc_runner(
    processes: int = SUBPROC_ENVS, opponent: str = "heuristic", seed: int = 0
) -> tuple[Runner, Callable[[], None]]:
    """SB3's SubprocVecEnv of SingleAgentEnv (2-player Italia): learner steps of every process; and its close."""
    from stable_baselines3.common.vec_env import SubprocVecEnv

    from concordia_env import SingleAgentEnv

    fns: list[Callable[[], gymnasium.Env]] = [
        partial(SingleAgentEnv, opponents=opponent, map="italia", num_players=2, seed=seed + i)
        for i in range(processes)
    ]
    venv = SubprocVecEnv(fns)
    venv.reset()
    rng = np.random.default_rng(seed)

    def chunk() -> tuple[int, int]:
        masks = venv.env_method("action_masks")
        actions = np.array(
            [np.flatnonzero(m)[int(u * m.sum())] for m, u in zip(masks, rng.random(processes), strict=True)]
        )
        _, _, dones, _ = venv.step(actions)
        return processes, int(dones.sum())

    return (lambda seconds: timed(seconds, chunk)), venv.close


# --------------------------------------------------------------------------- set-up and measurement
def warm_up(play: Callable[[float], object], seconds: float) -> None:
    """Call ``play(seconds)`` until a round runs without compiling code (at most ``WARMUP_ROUNDS``).

    The first round compiles the code the line calls, or loads it; a path first reached
    later (a game's end, a rare decision) compiles in a later round. A round whose CPU time
    passed ``SETTLED_FACTOR * seconds + SETTLED_SLACK`` did such work, so another follows; on
    a warm cache the first round is the only one. Shared with ``concordia bench agent_speed``.
    """
    for _ in range(WARMUP_ROUNDS):
        cpu = time.process_time()
        play(seconds)
        if time.process_time() - cpu <= SETTLED_FACTOR * seconds + SETTLED_SLACK:
            return


def ready(make_runner: Callable[[], Runner], warmup: float = WARMUP_SECONDS) -> tuple[Runner, float]:
    """Build a line's runner and warm it up (:func:`warm_up`): the runner, and the wall seconds of both (its set-up)."""
    start = time.perf_counter()
    runner = make_runner()
    warm_up(runner, warmup)
    return runner, time.perf_counter() - start


def measure(name: str, runner: Runner, seconds: float, threads: int = 1, setup_seconds: float = 0.0) -> Result:
    """``runner`` (built and warmed up: :func:`ready`) for about ``seconds``: the steps, games, wall and CPU time."""
    cpu = time.process_time()
    steps, games, elapsed = runner(seconds)
    cpu = time.process_time() - cpu
    return Result(
        name=name,
        steps=steps,
        seconds=elapsed,
        games=games,
        cpu_seconds=cpu,
        threads=threads,
        setup_seconds=setup_seconds,
    )


def measure_interleaved(
    lines: Sequence[tuple[str, Callable[[], Runner], int]], seconds: float, rounds: int = ROUNDS
) -> list[Result]:
    """Lines compared with each other (name, its runner's maker, threads), measured in turn ``rounds`` times, pooled.

    A line measured only after another meets whatever the machine does meanwhile; taking
    turns in short slices gives both the same conditions (a line on two threads needs both
    cores, so a background job on a 2-core machine moves it most). Every line is built and
    warmed up (:func:`ready`) before the first slice.
    """
    results = [Result(name=name, steps=0, seconds=0.0, threads=threads) for name, _, threads in lines]
    runners = []
    for result, (_, make_runner, _) in zip(results, lines, strict=True):
        runner, result.setup_seconds = ready(make_runner)
        runners.append(runner)
    for _ in range(rounds):
        for result, runner in zip(results, runners, strict=True):
            cpu = time.process_time()
            steps, games, elapsed = runner(seconds / rounds)
            result.cpu_seconds += time.process_time() - cpu
            result.steps += steps
            result.games += games
            result.seconds += elapsed
    return results


def run(
    seconds: float,
    map_names: Sequence[str],
    batch: int,
    envs: int = 64,
    report: Callable[[Result], None] | None = None,
) -> list[Result]:
    """All measurements; the peer is measured first and last (half the time each) and pooled.

    ``report`` is called with each line as soon as it is measured (before the ratios, which
    wait for the peer's second half); the peer's second half is reported as its own line.
    """

    def shown(*measured: Result) -> None:
        for result in measured:
            if report is not None:
                report(result)

    def line(name: str, make_runner: Callable[[], Runner], seconds: float, threads: int = 1) -> Result:
        runner, setup = ready(make_runner, min(WARMUP_SECONDS, seconds))
        result = measure(name, runner, seconds, threads, setup)
        shown(result)
        return result

    peer_runner, setup = ready(connect_four, min(WARMUP_SECONDS, seconds / 2))
    peer = measure("connect_four_v3 (AEC)", peer_runner, seconds / 2, setup_seconds=setup)
    shown(peer)
    results = [peer]
    engine_total = Result(ENGINE_TOTAL, steps=0, seconds=0.0, target=TARGETS["engine"])
    for name in map_names:
        r = line(f"engine {name} {ENGINE_PLAYERS}p", partial(engine_runner, name), seconds / len(map_names))
        engine_total.steps += r.steps
        engine_total.seconds += r.seconds
        engine_total.games += r.games
        engine_total.cpu_seconds += r.cpu_seconds
        engine_total.setup_seconds += r.setup_seconds
        results.append(r)
    results.append(engine_total)
    shown(engine_total)
    results.append(line(f"AEC env {map_names[0]} {ENGINE_PLAYERS}p", partial(concordia_aec, map_names[0]), seconds))
    results[-1].target = TARGETS["aec"]
    results.append(line("Gymnasium SingleAgentEnv italia 2p", gym_runner, seconds))
    label = f"VectorGame({batch}) {map_names[0]} {ENGINE_PLAYERS}p"
    results.append(line(f"{label}, no obs", partial(vector_runner, batch, map_names[0], observe=False), seconds))
    one_thread, two = measure_interleaved(
        [
            (label, partial(vector_runner, batch, map_names[0]), 1),
            (f"{label}, {THREADS} threads", partial(vector_runner, batch, map_names[0], threads=THREADS), THREADS),
        ],
        seconds,
    )
    shown(one_thread, two)
    if batch == 256:
        one_thread.target = TARGETS["vector"]
    two.target, two.versus = THREADS_TARGET, one_thread.name
    results += [one_thread, two]
    if envs > 0:
        if importlib.util.find_spec("stable_baselines3") is not None:
            closes: list[Callable[[], None]] = []

            def subproc() -> Runner:
                runner, close = subproc_runner()
                closes.append(close)
                return runner

            baseline = line(f"SubprocVecEnv({SUBPROC_ENVS}) heuristic italia 2p", subproc, seconds, threads=0)
            closes[0]()
            results.append(baseline)
        name = f"vector env({envs}) heuristic italia 2p"
        vector_env, options = measure_interleaved(
            [
                (name, partial(vector_env_runner, envs), THREADS),
                (f"{name}, options", partial(vector_env_runner, envs, level="options"), THREADS),
            ],
            2 * seconds,
        )
        shown(vector_env, options)
        if results[-1].name.startswith("SubprocVecEnv"):
            vector_env.target, vector_env.versus = VECTOR_ENV_TARGET, results[-1].name
        options.target, options.versus = OPTIONS_TARGET, vector_env.name
        results += [vector_env, options]
    again = line("connect_four_v3 (AEC), again", lambda: peer_runner, seconds / 2)
    peer.steps, peer.games, peer.seconds, peer.cpu_seconds, peer.setup_seconds = (
        peer.steps + again.steps,
        peer.games + again.games,
        peer.seconds + again.seconds,
        peer.cpu_seconds + again.cpu_seconds,
        peer.setup_seconds + again.setup_seconds,
    )
    by_name = {r.name: r for r in results}
    for r in results:
        r.ratio = r.steps_per_second / peer.steps_per_second
        if r.versus is not None:
            r.versus_ratio = r.steps_per_second / by_name[r.versus].steps_per_second
    return results


def achieved(r: Result) -> float:
    """The ratio ``r``'s target is about: to the peer, or to the line it names (NaN before it is measured)."""
    ratio = r.versus_ratio if r.versus is not None else r.ratio
    return float("nan") if ratio is None else ratio


def missed(r: Result) -> bool:
    """Whether ``r`` has a target (a ratio) and misses it."""
    return r.target is not None and not achieved(r) >= r.target


PROGRESS_HEADER = (
    f"{'measured (ratios in the table at the end)':<46} {'steps/s':>12} {'games/s':>9} {'measured':>9} {'set-up':>9}"
)


def progress_line(r: Result) -> str:
    """A line as soon as it is measured: steps (and games) per second, its measured seconds and its set-up seconds."""
    games = f"{r.games_per_second:9.2f}" if r.games else " " * 9
    return f"{r.name:<46} {r.steps_per_second:12,.0f} {games} {r.seconds:8.2f}s {r.setup_seconds:8.1f}s"


def time_note(results: Sequence[Result], wall: float) -> str:
    """Where the run's wall time went: the lines' set-up and their measurement (the engine's total counted once)."""
    lines = [r for r in results if r.name != ENGINE_TOTAL]
    setup, measured = sum(r.setup_seconds for r in lines), sum(r.seconds for r in lines)
    return (
        f"time: {wall:.1f} s in all, of which {measured:.1f} s measured and {setup:.1f} s set-up "
        "(building the envs, compiling or loading their code, warm-up)"
    )


def table(results: Sequence[Result]) -> str:
    lines = [
        f"{'measurement':<46} {'steps/s':>12} {'games/s':>9} {'× c4':>7}  target",
        "-" * 100,
    ]
    for r in results:
        target = ""
        if r.target is not None:
            versus = "" if r.versus is None else f" ({achieved(r):.2f}× {r.versus})"
            target = f"≥{r.target:g}×{versus} {'MISS' if missed(r) else 'ok'}"
        games = f"{r.games_per_second:9.2f}" if r.games else " " * 9
        lines.append(f"{r.name:<46} {r.steps_per_second:12,.0f} {games} {r.ratio:7.2f}  {target}")
    return "\n".join(lines)


def busy_note(results: Sequence[Result], load: float | None, cpus: int) -> str | None:
    """A note when the run likely met other work (see "A busy machine" above); None on a quiet machine.

    ``load``: the 1-minute load average at the end of the run (None where the system has none).
    """
    starved = [r for r in results if r.cpu_share is not None and r.cpu_share < BUSY_SHARE]
    loaded = load is not None and load > cpus
    if not starved and not loaded:
        return None
    evidence = []
    if loaded:
        evidence.append(f"load average {load:.1f} on {cpus} CPUs")
    if starved:
        worst = min(starved, key=lambda r: r.cpu_share or 0.0)
        share = worst.cpu_share or 0.0
        evidence.append(
            f"{len(starved)} of {len(results)} lines got less than {BUSY_SHARE:.0%} of their CPUs "
            f"(least: {worst.name}, {share:.0%} of {worst.threads})"
        )
    return (
        f"note: the machine was busy ({'; '.join(evidence)}): other work shared the CPUs, so a MISS in this run "
        "is likely the load, not the code; run again on a quiet machine"
    )


def _load_average() -> float | None:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # a system without a load average
        return None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="concordia bench throughput", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=arguments.seconds, default=3.0, help="wall time per measurement (default 3)")
    parser.add_argument("--maps", nargs="+", default=list(maps.MAP_NAMES), choices=maps.MAP_NAMES)
    parser.add_argument("--batch", type=arguments.count, default=256, help="VectorGame batch size (default 256)")
    parser.add_argument(
        "--envs",
        type=arguments.index,
        default=64,
        help="rows of the vector env line (default 64; 0 leaves both env lines out)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--check", action="store_true", help="exit with status 1 if a target is missed")
    args = parser.parse_args(argv)
    arguments.refuse_unwritable(parser, "--json", args.json)  # before the measurements, not after them

    print(PROGRESS_HEADER, flush=True)
    start = time.perf_counter()
    results = run(args.seconds, args.maps, args.batch, args.envs, report=lambda r: print(progress_line(r), flush=True))
    wall = time.perf_counter() - start
    print()
    print(table(results))
    print(time_note(results, wall))
    if args.json:
        rows = [
            asdict(r) | {"steps_per_second": r.steps_per_second, "games_per_second": r.games_per_second}
            for r in results
        ]
        arguments.write_text(args.json, json.dumps({"seconds": args.seconds, "results": rows}, indent=1))
    failed = [r.name for r in results if missed(r)]
    note = busy_note(results, _load_average(), os.cpu_count() or 1)
    if failed:
        print(f"targets missed: {', '.join(failed)}" + (" (the machine was busy: see below)" if note else ""))
    if note:
        print(note)
    return 1 if (failed and args.check) else 0


if __name__ == "__main__":
    raise SystemExit(main())
