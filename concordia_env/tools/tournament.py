"""Tournaments between agents: balanced seating, reproducible games, resumable, parallel.

::

    concordia tournament --agents random heuristic mcts:200 --map imperium --players 4 --games 400

The map, player count and seed default to 2-player Italia and seed 0, as in ``concordia
evaluate`` and every environment (:mod:`concordia_env.engine.defaults`): two agents listed
play one seat each; more play every pairing at 2-player tables, unless ``--players`` says
otherwise.

**Seating.** The ``--agents`` list is a list of *entries*; the same spec may be listed
several times (``heuristic random random random`` puts one heuristic against three
random agents). Seats are filled from a periodic schedule whose period (a *block*) seats
every entry in every seat exactly once as often as any other:

* ``k >= p`` entries for ``p`` seats: every combination of ``p`` entries plays all ``p``
  rotations of its seating (rotation-major, so a short tournament still meets every
  combination early). Every pair of entries meets equally often.
* ``k < p``: an entry fills several seats. Game ``j`` of the block seats entry
  ``(j + s) mod k`` in seat ``s``, so over a block of ``k`` games every entry sits in every
  seat once and fills ``p`` seats in all.

Seat balance is exact when ``--games`` is a multiple of the block length (the CLI says so
otherwise).

**Statistics are per agent spec**: entries with the same spec are pooled, and a spec
filling several seats of a game counts each seat (so a win rate is "won games per seat
played", comparable to the ``1/p`` of equal agents). See :mod:`concordia_env.tools.report`.

**Seeds.** Game ``i`` has the seed ``game_seed(seed, i)``; the board setup uses it and the
agent in seat ``s`` is ``reset(agent_seed(game seed, s))``, so every game is reproducible
on its own, whatever process or machine plays it.

**The one evaluation loop.** Everything that measures agents plays its games here, with
these seeds: tournaments, the strength bars (:mod:`concordia_env.benchmarks.strength_bars`)
and the training runs' evaluations (:mod:`concordia_env.training.run_evaluation`, the afterstate
learner's). An evaluation is a tournament of the shape :func:`duel` builds (one agent against
one opponent spec in every other seat, the agent in each seat equally often); a learner that
exists only in memory is passed as an object (``given``) under the name its seats show, and
``max_turns`` stops games that stall (scored as they stand, stored with ``over`` False). Every
game is stored, so any evaluation game is replayed by its id (``concordia replay DB ID``).

**Think time.** The report's ``ms/decision`` is the wall time of the agents' ``act`` calls
(on a copy of the game) divided by their decisions. Before the first game each agent takes
one untimed decision on a throwaway game (:func:`warm_up`), so the loading of its compiled
code (a compile, on a first run) is not counted. It is wall time: on a busy machine it grows
with the load; ``concordia bench agent_speed`` measures CPU time per decision.

**Resuming.** Games are written to SQLite (:mod:`concordia_env.tools.store`) one transaction each,
keyed by ``(tournament id, game index)``. The tournament id is a hash of everything that
decides the games (agents, map, players, seed, options, and the contents of the model files
the specs read: ``learned``'s shipped model, a ``policy:path``'s file) but not of ``--games``:
running again with the same arguments plays only the missing games, and a larger ``--games``
extends a finished tournament. The id does not cover the agents' code: after changing an
agent, use another ``--db`` (or ``--seed``) so that old and new games are not pooled.

**A damaged results file is refused, never started over.** If ``--db`` names a file that
is empty (truncated, or its write-ahead log deleted after a kill), damaged, or not a
results database, the run stops with a message saying so (exit status 2) and the file is
left as it is. Either name another file with ``--db``, or pass ``--reset``: the old file
is renamed to ``<db>.old-<time>`` (kept, not deleted) and the tournament starts in a new
one. See :mod:`concordia_env.tools.store`.

**Workers end with the tournament.** Each worker process watches its parent and exits
within a second once the parent is gone (killed with ``kill -9`` included), so an
interrupted tournament leaves no process behind; a rerun resumes it. A worker killed
during the tournament (the out-of-memory killer) ends it with one line: the finished games
are saved, and the same command resumes.

**Mistakes are found before the games.** An unknown agent or a spec naming a missing model
file, an impossible map or player count, an ``--out`` that is a file, ``--address`` without
``--backend ray``, and a Ray address that does not answer within
:data:`RAY_CONNECT_SECONDS` are usage errors (exit status 2) before the results file is
touched.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import hashlib
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import Game, agents
from concordia_env.agents.base import Agent, agent_seed
from concordia_env.engine import defaults
from concordia_env.tools import arguments
from concordia_env.tools.progress import Progress, show_progress
from concordia_env.tools.report import print_summary, report_console, summarize, wilson_interval, write_reports
from concordia_env.tools.store import GameRecord, Store, StoreError

DEFAULT_DB = "results/tournament.db"
DEFAULT_RESULTS_DIR = "results"
BACKENDS = ("local", "ray")
#: more games in flight than workers keeps every worker busy while the parent writes results
IN_FLIGHT_PER_WORKER = 4
#: how often a worker process checks that the tournament process is still there (seconds)
PARENT_POLL_SECONDS = 0.5


# ---------------------------------------------------------------------- configuration
@dataclass(frozen=True)
class TournamentConfig:
    """What to play. Everything but ``games`` decides the games and so the tournament id."""

    agents: tuple[str, ...]
    map: str = defaults.MAP
    players: int = defaults.NUM_PLAYERS
    games: int = 100
    seed: int = defaults.COMMAND_SEED
    intermediate_scoring: bool = False
    display_costs: str = "standard"
    #: stop a game after this many turns and score it as it stands (None: play every game to its end)
    max_turns: int | None = None
    #: what the agent objects given to :func:`run_tournament` are, e.g. a digest of a learner's
    #: weights: part of the id, so that a results file never reads back games that other
    #: objects played under the same names (a training run's final evaluation after more
    #: iterations); None: the agents are built from their specs
    given_version: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "agents", tuple(self.agents))
        if not self.agents:
            raise ValueError("a tournament needs at least one agent")
        if self.games < 0:
            raise ValueError(f"games must be >= 0, got {self.games}")
        if self.max_turns is not None and self.max_turns < 1:
            raise ValueError(f"max_turns must be >= 1 or None, got {self.max_turns}")

    def identity(self) -> dict[str, Any]:
        """The fields that decide the games (all but ``games``; ``max_turns`` and ``given_version`` only
        when set, so that the ids of tournaments without them stay what they were).

        ``files``: the digest of what each spec that reads a file reads at this table
        (:func:`concordia_env.agents.spec_version`: ``learned``'s shipped model, a ``policy``'s
        file), present only when some spec reads one. A new shipped model is a new tournament,
        so a stored ladder is never read back as the new model's games.
        """
        out = asdict(self)
        out.pop("games")
        for optional in ("max_turns", "given_version"):
            if out[optional] is None:
                out.pop(optional)
        out["agents"] = list(self.agents)
        if self.files:
            out["files"] = dict(self.files)
        return out

    @functools.cached_property
    def files(self) -> dict[str, str]:
        """The digest of the files each spec reads (:func:`concordia_env.agents.spec_version`), read once.

        Read when first asked for and then kept, so that one tournament has one id from its
        start to its report even if a model file is replaced while it plays.
        """
        versions = {spec: agents.spec_version(spec, self.players) for spec in self.agent_names()}
        return {spec: digest for spec, digest in versions.items() if digest is not None}

    @property
    def tournament_id(self) -> str:
        digest = hashlib.sha1(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()
        return f"t-{digest[:12]}"

    @property
    def name(self) -> str:
        """A readable folder name, e.g. ``imperium4p_heuristic_random-x3_s0``."""
        counts: dict[str, int] = {}
        for spec in self.agents:
            counts[spec] = counts.get(spec, 0) + 1
        parts = [spec if n == 1 else f"{spec}-x{n}" for spec, n in counts.items()]
        raw = f"{self.map}{self.players}p_{'_'.join(parts)}_s{self.seed}"
        return re.sub(r"[^A-Za-z0-9_.=-]+", "-", raw)

    @property
    def game_options(self) -> dict[str, Any]:
        """Keyword options of ``Game.new`` besides map, players and seed."""
        return {"intermediate_scoring": self.intermediate_scoring, "display_costs": self.display_costs}

    def agent_names(self) -> list[str]:
        """The distinct agent specs, in the order first listed (the rows of every report)."""
        return list(dict.fromkeys(self.agents))


# ---------------------------------------------------------------------- schedule and seeds
def schedule_block(num_entries: int, players: int) -> list[tuple[int, ...]]:
    """One period of the seating schedule: per game, the entry index of each seat.

    See the module docstring for why every entry sits in every seat equally often.
    """
    if num_entries < 1 or players < 1:
        raise ValueError("need at least one entry and one seat")
    if num_entries < players:
        return [tuple((j + s) % num_entries for s in range(players)) for j in range(num_entries)]
    combos = list(combinations(range(num_entries), players))
    return [combo[r:] + combo[:r] for r in range(players) for combo in combos]


def seating(config: TournamentConfig, game_index: int) -> list[str]:
    """The agent spec in each seat of game ``game_index``."""
    block = schedule_block(len(config.agents), config.players)
    return [config.agents[e] for e in block[game_index % len(block)]]


def game_seed(tournament_seed: int, game_index: int) -> int:
    """The seed of one game: a 31-bit hash of (tournament seed, game index)."""
    return int(np.random.SeedSequence([tournament_seed, game_index]).generate_state(1)[0] >> 1)


def duel(
    agent: str,
    opponent: str,
    *,
    map: str,
    players: int,
    games: int,
    seed: int,
    max_turns: int | None = None,
    given_version: str | None = None,
    **game_options: Any,
) -> TournamentConfig:
    """An evaluation: ``agent`` against ``opponent`` in every other seat, in each seat equally often.

    The entries are the agent and ``players - 1`` copies of the opponent, so the schedule
    rotates one seating through every seat (``schedule_block``): a multiple of ``players``
    games balances the seats exactly. ``given_version``: see :class:`TournamentConfig`.
    """
    return TournamentConfig(
        agents=(agent, *[opponent] * (players - 1)),
        map=map,
        players=players,
        games=games,
        seed=seed,
        max_turns=max_turns,
        given_version=given_version,
        **game_options,
    )


# ---------------------------------------------------------------------- agents from specs
def make_agent(spec: str) -> Agent:
    """Build an agent from its spec with :func:`agents.from_spec`, the one spec parser.

    ``mcts:200``, ``mcts:time_per_move=1.0``, ``mcts:simulations=400,exploration=1.4``
    (see :mod:`agents`). Specs are strings so that any worker process or Ray node can rebuild
    the same agent.
    """
    return agents.from_spec(spec)


def validate(config: TournamentConfig, given: Mapping[str, Agent] | None = None) -> None:
    """Fail early, in the parent, on an unknown agent or an impossible map/player count.

    Taking one step also loads the compiled rules here, once: forked workers inherit them
    instead of each loading them (about a second) on its first game.
    """
    game = Game.new(config.map, config.players, 0, **config.game_options)
    game.step(int(game.legal_actions()[0]))
    game.score_breakdown(0)
    for spec in config.agent_names():
        if spec not in (given or {}):
            make_agent(spec)


def refuse_unplayable(parser: argparse.ArgumentParser, config: TournamentConfig) -> None:
    """A command's usage error (one line, exit status 2) for a tournament that cannot be played.

    An unknown agent, an impossible map or player count, a ``policy:`` or ``learned:`` spec
    naming a missing file (``OSError``): refused before any file is touched.
    """
    try:
        validate(config)
    except (ValueError, TypeError, OSError) as e:
        parser.error(str(e))


def warm_up(config: TournamentConfig, given: Mapping[str, Agent] | None = None) -> None:
    """Let each agent of the tournament take one decision on a throwaway game, untimed, in this process.

    An agent's first decision in a process loads its compiled code (from numba's cache on
    disk, or compiles it on a first run: tens of seconds). Counted in the first game's think
    time, that made a short tournament report ``heuristic`` and ``learned`` at 1-16 ms per
    decision where they take 0.1-0.3 ms. The throwaway agents are built like the real ones
    and then dropped, so no game's decisions change; forked workers inherit what was loaded.
    """
    game = Game.new(config.map, config.players, 0, **config.game_options)
    for spec in config.agent_names():
        agent = copy.deepcopy(given[spec]) if given and spec in given else make_agent(spec)
        agent.reset(agent_seed(0, 0))
        # a failing agent fails again in its first game, whose error names the game
        with contextlib.suppress(Exception):
            agent.act(game.clone())


# ---------------------------------------------------------------------- one game
@dataclass(frozen=True)
class GameTask:
    """Everything a worker needs to play one game (small and picklable)."""

    tournament_id: str
    game_index: int
    seed: int
    map: str
    players: int
    options: dict[str, Any]
    seats: tuple[str, ...]
    #: stop after this many turns, scoring the game as it stands (None: play to the end)
    max_turns: int | None = None
    #: agents passed as objects, by the name their seats show (each seat plays a copy)
    given: dict[str, Agent] = field(default_factory=dict)


def tasks_for(
    config: TournamentConfig, indices: Iterable[int], given: Mapping[str, Agent] | None = None
) -> list[GameTask]:
    """The tasks of the games ``indices``."""
    tid = config.tournament_id
    return [
        GameTask(
            tournament_id=tid,
            game_index=i,
            seed=game_seed(config.seed, i),
            map=config.map,
            players=config.players,
            options=config.game_options,
            seats=tuple(seating(config, i)),
            max_turns=config.max_turns,
            given=dict(given or {}),
        )
        for i in indices
    ]


def play_game(task: GameTask) -> GameRecord:
    """Play one game to the end (runs in a worker process or on a Ray node).

    Every seat gets its own, freshly built agent, so no state leaks from one game into
    the next and the result depends only on the task. Agents see a clone of the game: a
    planning bug in an agent cannot corrupt the recorded game.
    """
    try:
        return _play(task)
    except Exception as exc:
        # name the game, so that it can be played again on its own to find the fault
        raise GameFailedError(
            f"game {task.game_index} (seed {task.seed}, {task.map} {task.players}p, seats {list(task.seats)}) "
            f"failed: {type(exc).__name__}: {exc}"
        ) from exc


class GameFailedError(RuntimeError):
    """An agent or the engine failed during a tournament game."""


def _play(task: GameTask) -> GameRecord:
    start = time.perf_counter()
    game = Game.new(task.map, task.players, task.seed, **task.options)
    seat_agents = [copy.deepcopy(task.given[spec]) if spec in task.given else make_agent(spec) for spec in task.seats]
    for seat, agent in enumerate(seat_agents):
        agent.reset(agent_seed(task.seed, seat))
    actions: list[int] = []
    think = [0.0] * task.players
    decisions = [0] * task.players
    while not game.is_over() and (task.max_turns is None or game.turn_count < task.max_turns):
        player = game.current_player
        t0 = time.perf_counter()
        action = int(seat_agents[player].act(game.clone()))
        think[player] += time.perf_counter() - t0
        decisions[player] += 1
        game.step(action)
        actions.append(action)
    return record_from_game(
        game,
        tournament_id=task.tournament_id,
        game_index=task.game_index,
        seed=task.seed,
        options=task.options,
        seats=list(task.seats),
        actions=actions,
        think_seconds=think,
        decisions=decisions,
        duration=time.perf_counter() - start,
    )


def record_from_game(
    game: Game,
    *,
    tournament_id: str,
    game_index: int,
    seed: int,
    options: dict[str, Any],
    seats: list[str],
    actions: list[int],
    think_seconds: list[float],
    decisions: list[int],
    duration: float,
) -> GameRecord:
    """The stored form of a finished game, or of one stopped at a turn cap (scored as it stands).

    Shared with ``concordia_env.tools.play``.
    """
    n = game.num_players
    ranking = game.ranking()
    return GameRecord(
        tournament_id=tournament_id,
        game_index=game_index,
        seed=seed,
        map=game.map.name,
        players=n,
        options=dict(options),
        seats=list(seats),
        actions=list(actions),
        scores=[int(v) for v in game.scores()],
        winner=ranking[0],
        ranking=ranking,
        breakdowns=[game.score_breakdown(p) for p in range(n)],
        think_seconds=[float(t) for t in think_seconds],
        decisions=list(decisions),
        duration=float(duration),
        over=game.is_over(),
    )


# ---------------------------------------------------------------------- backends
OnDone = Callable[[GameRecord], None]


def run_local(tasks: Sequence[GameTask], workers: int, on_done: OnDone) -> None:
    """Play the tasks on local processes; ``workers <= 1`` plays them in this process."""
    if workers <= 1 or len(tasks) <= 1:
        for task in tasks:
            on_done(play_game(task))
        return
    queue = list(reversed(tasks))
    max_in_flight = workers * IN_FLIGHT_PER_WORKER
    with ProcessPoolExecutor(max_workers=workers, initializer=start_worker) as pool:
        in_flight: set[Future[GameRecord]] = set()
        try:
            while queue or in_flight:
                while queue and len(in_flight) < max_in_flight:
                    in_flight.add(pool.submit(play_game, queue.pop()))
                done, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    on_done(future.result())
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise


def start_worker() -> None:
    """Run in each worker process as it starts: :func:`exit_with_parent` and :func:`one_torch_thread`."""
    exit_with_parent()
    one_torch_thread()


def one_torch_thread() -> None:
    """Run in each forked worker, and by the commands that play in their own process once their
    agents are built (:func:`run_for_command`, ``concordia evaluate``): torch's operations on one
    thread, if torch is imported.

    A process forked after torch ran a parallel operation (building a policy's network does:
    ``policy:model.zip`` is checked in the parent before the first game) inherits an OpenMP
    thread pool whose threads did not survive the fork, and its first parallel operation (the
    orthogonal initialisation of the next network it builds) waits for them for ever. On one
    thread torch never enters the pool; the agents' networks are small, and one thread a
    worker is what they run best on, and so does a command's own process (CHANGELOG.md has the
    measure). The library's ``evaluate`` leaves its caller's torch settings alone.
    """
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(1)


def exit_with_parent() -> None:
    """Run in each worker process: end it as soon as the process that started it is gone.

    A worker busy with a long game would otherwise outlive a tournament killed with
    ``kill -9`` and keep a CPU busy for nothing (its results can no longer be written).
    When its parent dies, a process is adopted by another one, so its parent pid changes;
    a daemon thread polls for that. The game's compiled code releases the GIL, so the
    thread runs even while a worker plays.
    """
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def run_ray(tasks: Sequence[GameTask], workers: int, address: str | None, on_done: OnDone) -> None:
    """Play the tasks on a Ray cluster (a local one, with ``workers`` CPUs, when ``address`` is None).

    The nodes of a remote cluster must have this project installed (``pip install -e .``).
    Results are written by this process as they arrive, exactly as with the local backend.
    """
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        init_ray(address, workers)
    try:
        remote_play = ray.remote(num_cpus=1)(play_game)
        queue = list(reversed(tasks))
        cluster_cpus = int(ray.cluster_resources().get("CPU", workers))
        max_in_flight = max(1, cluster_cpus) * IN_FLIGHT_PER_WORKER
        in_flight: list[Any] = []
        while queue or in_flight:
            while queue and len(in_flight) < max_in_flight:
                in_flight.append(remote_play.remote(queue.pop()))
            done, in_flight = ray.wait(in_flight, num_returns=1)
            for ref in done:
                on_done(ray.get(ref))
    finally:
        if started_here:
            ray.shutdown()


#: how long joining a Ray cluster may wait for its address to answer (seconds)
RAY_CONNECT_SECONDS = 10.0


def check_ray_address(address: str, timeout: float = RAY_CONNECT_SECONDS) -> None:
    """Refuse a Ray address that cannot be reached, within ``timeout`` seconds.

    ``auto`` (the cluster this machine runs, found by Ray at once) passes as it is; a
    ``host:port`` or ``ray://host:port`` must accept a TCP connection in time, else
    ``ConnectionError`` in one line. ``ray.init`` itself would retry an unreachable address
    for minutes, and not end on SIGTERM meanwhile.
    """
    if address == "auto":
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"a Ray address is auto, host:port or ray://host:port, got {address!r}")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as e:
        raise ConnectionError(
            f"cannot reach the Ray cluster at {address} within {timeout:g} s ({e.strerror or e}); "
            "is `ray start --head` running there?"
        ) from None


def init_ray(address: str | None, workers: int) -> None:
    """Join the Ray cluster at ``address`` (checked first: :func:`check_ray_address`), or start a local one."""
    import ray

    if address is not None:
        check_ray_address(address)
        ray.init(address=address, log_to_driver=False)
        return
    # the local workers inherit this environment: let them import the checkout even where
    # `benchmarks` is not installed (cheaper than a runtime_env, which starts an extra agent)
    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = _pythonpath_with_checkout()
    try:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = saved


def _pythonpath_with_checkout() -> str:
    root = str(Path(__file__).resolve().parent.parent)
    existing = os.environ.get("PYTHONPATH", "")
    return root if not existing else f"{root}{os.pathsep}{existing}"


# ---------------------------------------------------------------------- the tournament
@dataclass
class TournamentResult:
    """The finished tournament: its games (index order), their statistics, what this run did."""

    config: TournamentConfig
    records: list[GameRecord]
    summary: dict[str, Any]
    played: int = 0
    resumed: int = 0
    files: list[Path] = field(default_factory=list)
    #: where ``reset=True`` moved the previous results file (None: nothing was there, or no reset)
    moved_aside: Path | None = None

    @property
    def tournament_id(self) -> str:
        return self.config.tournament_id


def run_tournament(
    config: TournamentConfig,
    *,
    db: str | Path = ":memory:",
    workers: int = 1,
    backend: str = "local",
    address: str | None = None,
    progress: bool = False,
    keep_actions: bool = True,
    reset: bool = False,
    given: Mapping[str, Agent] | None = None,
    ratings: bool = True,
    on_game: OnDone | None = None,
) -> TournamentResult:
    """Play the games of ``config`` not yet in ``db`` and return statistics over all of them.

    Each game is written to ``db`` as soon as it finishes; games already there are read
    back, not played again. ``keep_actions=False`` leaves the action lists in the
    database only (the statistics do not need them; a long tournament's lists are large).
    A ``db`` that is not a readable results file raises :class:`~concordia_env.tools.store.StoreError`;
    ``reset=True`` renames an existing file aside first and starts a new one. ``given`` maps
    names of ``config.agents`` to agent objects that play those seats (copied per seat and
    game) instead of agents built from the names: a learner that exists only in memory.
    ``ratings=False`` leaves the OpenSkill ratings out of the summary (:func:`~concordia_env.tools.report.summarize`).
    ``on_game`` is called with each game played now, once it is stored (an evaluation's progress,
    and its finished games when it is interrupted). ``progress`` shows the tournament's progress
    line on stderr (:mod:`concordia_env.tools.progress`): games done, the leader's win rate per
    seat with its interval, elapsed and left.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    unknown = sorted(set(given or {}) - set(config.agents))
    if unknown:
        raise ValueError(f"given agents {unknown} are not among the tournament's agents {list(config.agents)}")
    validate(config, given)
    tid = config.tournament_id
    with Store(db, reset=reset) as store:
        moved_aside = store.moved_aside
        store.register_tournament(tid, config.identity())
        finished = store.finished_indices(tid)
        missing = [i for i in range(config.games) if i not in finished]
        resumed = config.games - len(missing)
        line = TournamentProgress(config, resumed) if progress else None

        def on_done(record: GameRecord) -> None:
            store.add_game(record)
            if line is not None:
                line.add(record)
            if on_game is not None:
                on_game(record)

        try:
            tasks = tasks_for(config, missing, given)
            if tasks:
                warm_up(config, given)
            if backend == "ray":
                run_ray(tasks, workers, address, on_done)
            else:
                run_local(tasks, workers, on_done)
        finally:
            if line is not None:
                line.close()
        records = store.games(tid, limit_index=config.games, with_actions=keep_actions)
    summary = summarize(config, records, ratings=ratings)
    return TournamentResult(
        config=config,
        records=records,
        summary=summary,
        played=len(missing),
        resumed=resumed,
        moved_aside=moved_aside,
    )


class TournamentProgress:
    """A tournament's progress line: games done, the leader's wins per seat with its interval, elapsed and left.

    The leader is the spec with the highest win rate per seat among the games played in this
    run (a resumed tournament's stored games are in the report, not on the line).
    """

    def __init__(self, config: TournamentConfig, already_done: int) -> None:
        self.line = Progress(f"{config.map} {config.players}p", config.games, done=already_done)
        self.wins: dict[str, int] = {}
        self.seats: dict[str, int] = {}

    def add(self, record: GameRecord) -> None:
        for seat, spec in enumerate(record.seats):
            self.seats[spec] = self.seats.get(spec, 0) + 1
            self.wins[spec] = self.wins.get(spec, 0) + int(record.winner == seat)
        leader = max(self.seats, key=lambda spec: self.wins[spec] / self.seats[spec])
        wins, seats = self.wins[leader], self.seats[leader]
        low, high = wilson_interval(wins, seats)
        status = f"leader {leader} {wins}/{seats} = {wins / seats:.1%} [{low:.1%}-{high:.1%}]"
        self.line.update(self.line.done + 1, status)

    def close(self) -> None:
        self.line.close()


# ---------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="concordia tournament",
        description="Play a seat-balanced tournament between agents and report win rates, VP and ratings.",
    )
    p.add_argument(
        "--agents",
        nargs="+",
        required=True,
        help="agent specs (random, heuristic, mcts:200, mcts:time_per_move=1.0); list a spec several times to "
        "give it several seats",
    )
    arguments.add_table(p, seed_help=f"the tournament's seed (default {defaults.COMMAND_SEED})")
    p.add_argument("--games", type=arguments.count, default=100)
    p.add_argument("--intermediate-scoring", action="store_true", help="docs/rules.md §8 intermediate scoring")
    p.add_argument("--display-costs", choices=("standard", "alternative"), default="standard")
    p.add_argument("--db", default=DEFAULT_DB, help=f"SQLite results file (default {DEFAULT_DB})")
    p.add_argument(
        "--reset",
        action="store_true",
        help="start a new results file: an existing --db (and its -wal/-shm) is renamed to <db>.old-<time>, not "
        "deleted; the way on after a damaged or empty results file was refused",
    )
    p.add_argument("--out", default=None, help="report folder (default results/<tournament name>/)")
    p.add_argument(
        "--workers", type=arguments.count, default=os.cpu_count() or 1, help="parallel games (default: CPU count)"
    )
    p.add_argument("--backend", choices=BACKENDS, default="local")
    p.add_argument("--address", default=None, help="Ray cluster address (default: start a local Ray)")
    p.add_argument("--no-plots", action="store_true", help="write JSON/CSV only")
    arguments.add_quiet(p)
    return p


def config_from_args(args: argparse.Namespace) -> TournamentConfig:
    return TournamentConfig(
        agents=tuple(args.agents),
        map=args.map,
        players=args.players,
        games=args.games,
        seed=args.seed,
        intermediate_scoring=args.intermediate_scoring,
        display_costs=args.display_costs,
    )


def run_for_command(config: TournamentConfig, console: Any, **options: Any) -> TournamentResult | int:
    """:func:`run_tournament` for a command line: its result, or the exit status after one line.

    The one home of what a command says about its results file and when a run stops early:
    where ``--reset`` moved the old file, an interrupt or a dead worker (finished games are
    saved, the same command resumes), a results file that is not one, a Ray address that
    stopped answering. ``concordia tournament`` and ``concordia bench ladder`` both run through it.
    Its games in this process run torch on one thread, as its workers do (:func:`one_torch_thread`;
    the commands built their agents when they checked them, :func:`refuse_unplayable`).
    """
    from rich.markup import escape

    one_torch_thread()
    try:
        result = run_tournament(config, **options)
    except KeyboardInterrupt:
        console.print("[red]interrupted[/]: finished games are saved; run the same command again to resume")
        return 130
    except StoreError as e:
        console.print(f"[red]results file refused[/]: {escape(str(e))}")
        return 2
    except ConnectionError as e:  # the Ray address stopped answering after the command's check
        console.print(f"[red]Ray refused[/]: {escape(str(e))}")
        return 2
    except BrokenProcessPool:
        console.print(
            "[red]a worker process died[/] (killed, or out of memory?): finished games are saved; run the same "
            "command again to resume"
        )
        return 1
    if result.moved_aside is not None:
        console.print(f"--reset: the previous results file was renamed to {escape(str(result.moved_aside))}")
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    config = config_from_args(args)
    refuse_unplayable(parser, config)
    out_dir = Path(args.out) if args.out else Path(DEFAULT_RESULTS_DIR) / config.name
    arguments.refuse_unwritable(parser, "--out", out_dir, folder=True)  # before the games, not after them
    if args.address is not None:
        if args.backend != "ray":
            parser.error("--address joins a Ray cluster: it needs --backend ray")
        try:  # a bounded wait, before any file is touched (ray.init would retry for minutes)
            check_ray_address(args.address)
        except (ValueError, ConnectionError) as e:
            parser.error(str(e))
    console = report_console()
    block = len(schedule_block(len(config.agents), config.players))
    if config.games % block:
        console.print(
            f"[yellow]note:[/] seats are exactly balanced every {block} games; {config.games} is not a multiple"
        )
    console.print(f"tournament {config.tournament_id} ({config.name}) -> {args.db}")
    result = run_for_command(
        config,
        console,
        db=args.db,
        workers=args.workers,
        backend=args.backend,
        address=args.address,
        progress=show_progress(args.quiet),
        keep_actions=False,
        reset=args.reset,
    )
    if isinstance(result, int):
        return result
    if result.resumed:
        console.print(f"{result.resumed} games read back from {args.db}, {result.played} played now")
    files = write_reports(result.summary, result.records, out_dir, plots=not args.no_plots)
    print_summary(result.summary, console)
    console.print(f"reports: {', '.join(str(f) for f in files)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
