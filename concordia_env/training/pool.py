"""The opponent pool: frozen snapshots of the learner plus fixed agents, sampled per episode.

How the pool reaches the environment processes
----------------------------------------------
The learner runs in the main process; the environments run in ``SubprocVecEnv`` worker
processes, and the opponents play *inside* those workers (they act between the learner's
decisions). The two sides share nothing but files in the run directory:

* the main process (:class:`OpponentPool`) saves each snapshot's actor network as
  ``pool/snapshot_<timesteps>.npz`` (:class:`~concordia_env.training.policy_net.NumpyActor`: the actor's
  weights only, no value head nor optimizer; it runs in numpy) and then rewrites
  ``pool.json`` atomically (write a temporary file, ``os.replace``) with the list of
  snapshots in the pool and the share of each opponent kind;
* in every worker, each opponent seat is a :class:`PoolOpponent`. At the start of every
  episode (its ``reset``) it re-reads ``pool.json``, draws an opponent kind by the shares
  (``snapshot`` or an agent spec such as ``random`` / ``heuristic``), and for a snapshot a
  file uniformly from the pool; loaded policies are cached per file, so a snapshot is read
  from disk once per worker.

Because ``pool.json`` is replaced atomically, a worker sees the old or the new pool, never
half of one. Evicted snapshots (beyond ``max_snapshots``) leave ``pool.json`` at once but
their files are deleted only at the next checkpoint, so a resumed run always finds every
snapshot its checkpoint refers to.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import Game, agents
from concordia_env.agents.base import Agent

from .config import SNAPSHOT
from .policy_net import NumpyActor, masked_argmax, masked_sample
from .run_folder import write_json_atomic

POOL_FILE = "pool.json"
SNAPSHOT_DIR = "pool"


@dataclass(frozen=True)
class Snapshot:
    """One frozen learner: its weights file (relative to the run directory) and when it was taken."""

    path: str
    timesteps: int


def normalised_shares(shares: dict[str, float]) -> dict[str, float]:
    total = float(sum(shares.values()))
    return {kind: float(w) / total for kind, w in shares.items() if w > 0}


class OpponentPool:
    """Main-process side: takes snapshots, keeps the newest ``max_snapshots``, publishes ``pool.json``."""

    def __init__(
        self, run_dir: Path, shares: dict[str, float], max_snapshots: int, deterministic: bool = False
    ) -> None:
        self.run_dir = Path(run_dir)
        self.shares = normalised_shares(shares)
        self.max_snapshots = max_snapshots
        self.deterministic = deterministic
        self.snapshots: list[Snapshot] = []
        #: evicted snapshot files, deleted at the next checkpoint (see module docstring)
        self.evicted: list[Snapshot] = []
        (self.run_dir / SNAPSHOT_DIR).mkdir(parents=True, exist_ok=True)

    @property
    def pool_file(self) -> Path:
        return self.run_dir / POOL_FILE

    def add_snapshot(self, policy: Any, timesteps: int) -> Snapshot:
        """Freeze the actor of ``policy`` (an SB3 MlpPolicy) as taken at ``timesteps`` and publish the pool."""
        snapshot = Snapshot(f"{SNAPSHOT_DIR}/snapshot_{timesteps:010d}.npz", int(timesteps))
        tmp = self.run_dir / f"{snapshot.path}.tmp"
        NumpyActor.from_policy(policy).save(tmp)
        os.replace(tmp, self.run_dir / snapshot.path)
        self.snapshots = [s for s in self.snapshots if s.path != snapshot.path] + [snapshot]
        while len(self.snapshots) > self.max_snapshots:
            self.evicted.append(self.snapshots.pop(0))
        self.publish()
        return snapshot

    def publish(self) -> None:
        write_json_atomic(self.pool_file, self.state())

    def delete_evicted(self) -> None:
        """Delete the files of evicted snapshots (call once a checkpoint no longer refers to them)."""
        kept = {s.path for s in self.snapshots}
        for s in self.evicted:
            if s.path not in kept:
                (self.run_dir / s.path).unlink(missing_ok=True)
        self.evicted = []

    # ------------------------------------------------------------------ state for checkpoints
    def state(self) -> dict[str, Any]:
        return {
            "shares": self.shares,
            "deterministic": self.deterministic,
            "snapshots": [asdict(s) for s in self.snapshots],
        }

    def restore(self, state: dict[str, Any]) -> None:
        """Take the snapshot list of a checkpoint (missing files are an error: the pool would be wrong)."""
        snapshots = [Snapshot(s["path"], int(s["timesteps"])) for s in state["snapshots"]]
        missing = [s.path for s in snapshots if not (self.run_dir / s.path).exists()]
        if missing:
            raise FileNotFoundError(f"the checkpoint's pool refers to missing snapshot files: {missing}")
        self.snapshots = snapshots
        self.publish()

    def describe(self) -> str:
        shares = ", ".join(f"{k} {v:.0%}" for k, v in self.shares.items())
        steps = ", ".join(str(s.timesteps) for s in self.snapshots)
        return f"{len(self.snapshots)} snapshots (at timesteps {steps}); opponent shares: {shares}"


# ---------------------------------------------------------------------- worker side
class SnapshotPlayer(Agent):
    """A frozen learner: its masked actor over ``game.observation(current_player)``.

    ``deterministic`` plays the argmax move; otherwise it samples from the masked
    distribution, which keeps self-play opponents varied.
    """

    name = "snapshot"

    def __init__(self, policy: NumpyActor, deterministic: bool = False, seed: int | None = None) -> None:
        super().__init__(seed)
        self.policy = policy
        self.deterministic = deterministic

    def act(self, game: Game) -> int:
        logits = self.policy.logits(game.observation(game.current_player)[None])
        mask = game.legal_mask()[None]
        if self.deterministic:
            return int(masked_argmax(logits, mask)[0])
        return int(masked_sample(logits, mask, self.rng)[0])


class PoolOpponent(Agent):
    """One opponent seat in an environment worker: a fresh draw from the pool every episode.

    ``reset(seed)`` (called by the environment before each episode) re-reads the pool file
    and picks this episode's opponent; ``act`` delegates to it. ``label`` says who it is
    (``random``, ``heuristic``, ``snapshot@40000``).
    """

    name = "pool"

    def __init__(self, pool_file: str | Path, seed: int | None = None, cache_size: int = 16) -> None:
        super().__init__(seed)
        self.pool_file = Path(pool_file)
        self.cache_size = cache_size
        self._policies: OrderedDict[str, NumpyActor] = OrderedDict()
        self._agents: dict[str, Agent] = {}
        self.current: Agent | None = None
        self.label = ""

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        pool = json.loads(self.pool_file.read_text())
        kinds = list(pool["shares"])
        kind = kinds[self.rng.choice(len(kinds), p=[pool["shares"][k] for k in kinds])]
        agent_seed = int(self.rng.integers(2**31))
        if kind == SNAPSHOT and pool["snapshots"]:
            entry = pool["snapshots"][self.rng.integers(len(pool["snapshots"]))]
            path = str(self.pool_file.parent / entry["path"])
            self.current = SnapshotPlayer(self._policy(path), pool["deterministic"], agent_seed)
            self.label = f"snapshot@{entry['timesteps']}"
        else:
            spec = "random" if kind == SNAPSHOT else kind  # an empty pool plays like the untrained learner
            if spec not in self._agents:
                self._agents[spec] = agents.from_spec(spec)
            self.current = self._agents[spec]
            self.current.reset(agent_seed)
            self.label = spec

    def _policy(self, path: str) -> NumpyActor:
        if path in self._policies:
            self._policies.move_to_end(path)
        else:
            self._policies[path] = NumpyActor.load(path)
            while len(self._policies) > self.cache_size:
                self._policies.popitem(last=False)
        return self._policies[path]

    def act(self, game: Game) -> int:
        if self.current is None:
            self.reset()
        assert self.current is not None
        return self.current.act(game)
