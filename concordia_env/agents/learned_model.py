"""Afterstate scoring: choose among whole turns by the position each one leads to.

This is the strategy behind the ``learned`` agent (:mod:`concordia_env.agents.learned`) and the model that
``concordia train afterstate`` and ``concordia train expert`` train. Nothing here knows a rule of the game: candidates
come from an agent's documented generator, features from the public observation, and a
small network ranks them.

Candidates
----------
At a decision, the candidates are the heuristic agent's *turn options*
(:meth:`concordia_env.agents.heuristic.HeuristicAgent.turn_options`): every legal action of the pending
decision (every card to play; every card a Diplomat may copy), each followed to the end of
the turn by the heuristic's rules of thumb. A candidate is therefore a whole turn, and it is
judged by its **afterstate**, the position it leads to (normally the next player's turn).
Scoring 5–10 afterstates is a far smaller problem than 769 independent logits, and the
afterstates of one decision differ exactly where the choices differ.

The generator runs on a **determinized copy** of the game: the hidden stack is shuffled
within each deck's segment (:mod:`concordia_env.strategy.determinization`), so a card that comes up on
the display after a purchase is a draw from the cards that could come up, never the real
next card. The chosen turn's remaining decisions are then planned on the real game by the
same rules of thumb (as MCTS does).

Features
--------
:func:`afterstate_features` keeps the *economic and scoring* part of the observation (the layout's
one home is :mod:`concordia_env.strategy.afterstate_scorer`, whose compiled twin of this module's numpy
scoring lets the learned agent play inside a batch)
(:mod:`concordia_env.engine.observation`), for every relative seat: money, goods, free storehouse
slots, colonists in the storehouse, house count, cards in hand and discard pile per kind,
cards per god, the Praefectus Magnus and the Concordia card, and the VP "as if the game ended
now" per god; plus whose turn it is, how far the game is (turns, cards left, final round),
the display and the cards still in the stack. The board itself (which city has which good
and whose houses) is left out on purpose: with the few thousand games a 2-core machine plays
in an hour, a network that sees the board one-hot memorises each game's outcome from its
unique city layout instead of learning what a position is worth (measured: held-out error
rose from the first epoch on). What the board means for a player reaches the network
through its score parts, through the heuristic's estimate below and, from feature version
2 on, through counts that read the same on every map: every seat's houses per good, the
places per good its Architect could build in now, and its best province for a Prefect.
A model reads the features of its version (its first layer's width); every version's
features begin with the previous one's.

Last come the heuristic evaluation's estimates of every player's final VP
(:mod:`concordia_env.strategy.evaluation`, already computed for each turn option) and the
utility the heuristic itself maximises, ``u`` = own estimate minus the opponents' mean.

Model
-----
:class:`AfterstateModel` predicts the final VP margin (own VP minus the opponents' mean, in
units of ``MARGIN_SCALE`` VP) of the player who chose the turn::

    score(c) = a · u(c) + b + MLP(x(c))

The last layer of the MLP starts at zero and ``a`` at one, so an untrained model ranks
turns exactly as the heuristic does; training learns where that ranking is wrong. It runs
in numpy (a few small matrix products), so playing needs no torch.
"""

from __future__ import annotations

import functools
import io
import itertools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from concordia_env import Game, strategy
from concordia_env.engine.observation import OBS_SIZE, observe_batch_into
from concordia_env.engine.state import MAX_PLAYERS
from concordia_env.engine.state_check import compiled_state

# the feature layout has one home, the compiled scorer's module (this numpy code is its reference)
from concordia_env.strategy import (
    BOARD_INDEX,
    FEATURE_COUNTS,
    FEATURE_WIDTHS,
    FEATURES_VERSION,
    MARGIN_SCALE,
    NUM_FEATURES,
    OBSERVATION_COLUMNS,
    UTILITY_INDEX,
    VALUE_SCALE,
    ModelArrays,
    board_features,
    check_features_version,
    features_version,
    pack_model,
)

from .base import draw_seed
from .heuristic import HeuristicAgent, TurnOption, evaluate, remaining_fraction
from .mcts import ROLLOUT_PARAMS


def utility(values: np.ndarray, player: int) -> float:
    """Own value minus the opponents' mean value (what the heuristic maximises)."""
    others = np.delete(np.asarray(values, dtype=np.float64), player)
    return float(values[player] - others.mean()) if len(others) else float(values[player])


def afterstate_features(game: Game, values: np.ndarray, player: int, remaining: float) -> np.ndarray:
    """The feature vector of the position ``game`` for ``player`` (see the module docstring).

    ``values`` are the heuristic evaluation's estimated final VP of every player in that
    position; ``remaining`` is the share of the game left at the decision (0..1).
    """
    values = np.asarray(values, dtype=np.float64)
    return batch_features(game.state[None, :], game.map.tables, values[None, :], player, remaining)[0]


def batch_features(
    afterstates: np.ndarray,
    tables: np.ndarray,
    values: np.ndarray,
    player: int,
    remaining: float,
    width: int = NUM_FEATURES,
) -> np.ndarray:
    """The feature vectors of the afterstates of one decision (one row each), all at once.

    ``afterstates`` are states the engine produced (the turn options' rows, or games'
    states), all of the map whose ``tables`` are given; ``values[i]`` every player's
    estimated final VP in row i. One compiled call observes every row. ``width`` is a
    length in ``FEATURE_COUNTS`` (the newest version's by default): an older version's
    vectors are the first entries of a newer one's.
    """
    features_version(width)  # ValueError for a width no version has
    states = compiled_state(np.ascontiguousarray(afterstates, dtype=np.int32))  # game.state is read-only
    vals = np.asarray(values, dtype=np.float64)
    rows, n = vals.shape
    obs = np.empty((rows, OBS_SIZE), dtype=np.float32)
    observe_batch_into(states, tables, np.full(rows, player, dtype=np.int64), obs)
    out = np.empty((rows, width), dtype=np.float32)
    k = len(OBSERVATION_COLUMNS)
    np.take(obs, OBSERVATION_COLUMNS, axis=1, out=out[:, :k])
    out[:, k:] = 0.0
    seats, others = _seat_orders(n, player)
    rotated = vals[:, seats]  # relative seats, observer first
    out[:, k : k + n] = rotated / VALUE_SCALE
    if n > 1:
        out[:, k + MAX_PLAYERS] = (vals[:, player] - vals[:, others].mean(axis=1)) / MARGIN_SCALE
        out[:, k + MAX_PLAYERS + 1] = (rotated[:, 0] - rotated[:, 1:].max(axis=1)) / MARGIN_SCALE
    else:
        out[:, k + MAX_PLAYERS] = vals[:, player] / MARGIN_SCALE
    out[:, k + MAX_PLAYERS + 2] = remaining
    if width > BOARD_INDEX:
        for i in range(rows):
            board_features(states[i], tables, player, out[i])
    return out


@functools.cache
def _seat_orders(n: int, player: int) -> tuple[np.ndarray, np.ndarray]:
    """The seats relative to ``player`` (observer first), and the other seats in seat order."""
    seats = (np.arange(n) + player) % n
    return seats, np.array([q for q in range(n) if q != player], dtype=np.int64)


# --------------------------------------------------------------------------- the model
@dataclass
class AfterstateModel:
    """``score = a · u + b + MLP(x)`` in numpy; see the module docstring.

    ``weights[k]`` has shape (inputs, outputs); hidden layers use ReLU. ``metadata`` records
    how the model was made (config, command, training numbers) and travels with it.
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    a: float = 1.0
    b: float = 0.0
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.weights = [np.ascontiguousarray(w, dtype=np.float32) for w in self.weights]
        self.biases = [np.ascontiguousarray(b, dtype=np.float32) for b in self.biases]
        if not self.weights or self.weights[0].ndim != 2:
            raise ValueError("an afterstate model has at least one 2-D weight matrix")
        features_version(self.weights[0].shape[0])  # ValueError: a width no feature version has
        if self.weights[-1].shape[1] != 1:
            raise ValueError("an afterstate model has one output")

    @property
    def num_features(self) -> int:
        """How many features the model reads (its first layer's inputs)."""
        return int(self.weights[0].shape[0])

    @property
    def features_version(self) -> int:
        """The feature version the model reads (see :data:`FEATURE_COUNTS`)."""
        return features_version(self.num_features)

    @classmethod
    def heuristic_only(
        cls, hidden: tuple[int, ...] = (64, 64), seed: int = 0, version: int = FEATURES_VERSION
    ) -> AfterstateModel:
        """An untrained model (MLP output zero): it ranks turns exactly like the heuristic's utility."""
        rng = np.random.default_rng(seed)
        sizes = [FEATURE_COUNTS[check_features_version(version)], *hidden, 1]
        weights = [rng.normal(0, np.sqrt(2 / i), (i, o)) for i, o in itertools.pairwise(sizes)]
        weights[-1][:] = 0.0
        return cls(weights, [np.zeros(o) for o in sizes[1:]])

    def widened(self, version: int) -> AfterstateModel:
        """This model reading the features of a later ``version``, with zero weights on the new ones.

        It scores every option exactly as this model does (the new entries are multiplied by
        zero), so training can start from it and learn what the new features add.
        """
        if FEATURE_COUNTS[check_features_version(version)] < self.num_features:
            raise ValueError(
                f"a version-{self.features_version} model widens to a version in {tuple(FEATURE_COUNTS)} "
                f"at least as new, not {version!r}"
            )
        first = np.zeros((FEATURE_COUNTS[version], self.weights[0].shape[1]), dtype=np.float32)
        first[: self.num_features] = self.weights[0]
        meta = {**self.metadata, "widened_from_features_version": self.features_version}
        return AfterstateModel([first, *self.weights[1:]], list(self.biases), self.a, self.b, meta)

    @functools.cached_property
    def compiled(self) -> ModelArrays:
        """The model as compiled code takes it (:func:`concordia_env.strategy.afterstate_scorer.pack_model`).

        Packed once, on first use: a model's weights are not changed after it plays (training
        makes a new model from the trained weights).
        """
        return pack_model(self.weights, self.biases, self.a, self.b)

    def predict(self, features: np.ndarray) -> np.ndarray:
        """Predicted final margin (units of MARGIN_SCALE) for each row of ``features``.

        Rows may be longer than the model's version (a newer version's features): it reads
        its first :attr:`num_features` entries.
        """
        x = np.asarray(features, dtype=np.float32)
        if x.shape[-1] < self.num_features:
            raise ValueError(f"this model reads {self.num_features} features, the rows have {x.shape[-1]}")
        h = x[..., : self.num_features]
        last = len(self.weights) - 1
        for k, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = h @ w + b
            if k < last:
                h = np.maximum(h, 0.0)
        return self.a * x[..., UTILITY_INDEX] + self.b + h[..., 0]

    # ------------------------------------------------------------------ files
    def save(self, path: str | Path) -> Path:
        """Write the model as one ``.npz`` (weights, ``a``, ``b`` and the metadata as JSON)."""
        path = Path(path)
        with open(path, "wb") as f:  # an open file: np.savez would add ".npz" to another name
            self._write(f)
        return path

    def _write(self, f: Any) -> None:
        arrays: dict[str, Any] = {f"w{k}": w for k, w in enumerate(self.weights)}
        arrays |= {f"b{k}": b for k, b in enumerate(self.biases)}
        meta = {**self.metadata, "features_version": self.features_version, "num_features": self.num_features}
        np.savez(f, a=np.float32(self.a), b=np.float32(self.b), metadata=np.array(json.dumps(meta)), **arrays)

    def to_bytes(self) -> bytes:
        """The model as the bytes of its ``.npz`` file (what :meth:`save` writes)."""
        buffer = io.BytesIO()
        self._write(buffer)
        return buffer.getvalue()

    @classmethod
    def load(cls, path: str | Path) -> AfterstateModel:
        """Read a model written by :meth:`save`; a file of a feature version this code lacks is refused."""
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(f"no afterstate model at {path}")
        return cls._read(path, str(path))

    @classmethod
    def load_bytes(cls, data: bytes) -> AfterstateModel:
        """A model from the bytes of its ``.npz`` file (a model sent to another process or machine as data)."""
        if not isinstance(data, bytes):
            raise TypeError(f"an afterstate model's bytes are bytes, got {type(data).__name__}")
        return cls._read(io.BytesIO(data), "these bytes")

    @classmethod
    def _read(cls, source: Path | io.BytesIO, name: str) -> AfterstateModel:
        try:
            with np.load(source, allow_pickle=False) as data:
                meta = json.loads(str(data["metadata"]))
                n = sum(1 for key in data.files if key.startswith("w"))
                weights = [data[f"w{k}"] for k in range(n)]
                biases = [data[f"b{k}"] for k in range(n)]
                a, b = float(data["a"]), float(data["b"])
        except (KeyError, ValueError, OSError, EOFError) as err:
            raise ValueError(f"{name} is not an afterstate model file: {err}") from err
        version = meta.get("features_version")
        if version not in FEATURE_COUNTS or not weights or np.shape(weights[0])[0] != FEATURE_COUNTS[version]:
            raise ValueError(
                f"{name} was made for features version {version!r}, this code computes {FEATURE_WIDTHS} features"
            )
        return cls(weights, biases, a, b, meta)


# --------------------------------------------------------------------------- candidates
class Candidates:
    """The turn options of one decision (on a determinized copy of the game), for one chooser.

    What the learned agent needs at every decision is computed at once: the options' arrays
    from the compiled core (``raw``) and, through :meth:`scores`, the model's score of each.
    What only training and tree search read is computed when first asked for: the options as
    :class:`~concordia_env.agents.heuristic.TurnOption` objects (:attr:`options`) and their
    feature vectors (:attr:`features`).
    """

    def __init__(self, sim: Game, raw: strategy.TurnOptions, player: int, remaining: float) -> None:
        #: the determinized copy of the game the options were played on
        self.sim = sim
        #: the options as the compiled core gave them
        self.raw = raw
        #: the chooser and the share of the game left at the decision
        self.player = player
        self.remaining = remaining
        self._options: list[TurnOption] | None = None
        self._features: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.raw.first)

    @property
    def tables(self) -> np.ndarray:
        return self.sim.map.tables

    @property
    def first(self) -> np.ndarray:
        """Each option's first actions, -1 padded: the action, and for a played Diplomat the card it
        copies (what identifies the option, as in a search's root statistics)."""
        return self.raw.first

    def keys(self) -> list[tuple[int, ...]]:
        """Each option's first actions as a tuple (the keys of :meth:`MCTSAgent.last_search`'s moves)."""
        return [tuple(int(a) for a in row if a >= 0) for row in self.first]

    def plan(self, k: int) -> np.ndarray:
        """Every action of option ``k``'s turn from the decision on."""
        return self.raw.plans[k, : self.raw.lengths[k]]

    @property
    def options(self) -> list[TurnOption]:
        """The options as :class:`TurnOption` objects (plans and afterstates as games), made when first asked for."""
        if self._options is None:
            self._options = HeuristicAgent.as_turn_options(self.sim, self.raw)
        return self._options

    @property
    def features(self) -> np.ndarray:
        """(len(options), NUM_FEATURES) float32: every option's features (newest version), made when first asked for."""
        if self._features is None:
            raw = self.raw
            self._features = batch_features(raw.afterstates, self.tables, raw.values, self.player, self.remaining)
        return self._features

    @property
    def utilities(self) -> np.ndarray:
        return self.features[:, UTILITY_INDEX]

    def scores(self, model: AfterstateModel) -> np.ndarray:
        """The model's score of every option, computed by the compiled scorer.

        The learned agent chooses with these, inside a batch and out of it alike
        (:mod:`concordia_env.strategy.afterstate_scorer`): ``model.predict(self.features)`` gives
        the same numbers to float32 rounding, but BLAS may score two identical rows a last
        bit apart, which would decide ties between equal afterstates by their position.
        """
        raw = self.raw
        return strategy.afterstate_scores(
            raw.afterstates, self.tables, raw.values, self.player, self.remaining, model.compiled
        )


def candidates(game: Game, rules: HeuristicAgent, rng: np.random.Generator) -> Candidates:
    """The turn options of the pending decision on a determinized copy of ``game``.

    ``rules`` is the heuristic agent whose documented generator makes the options (one call
    of the compiled strategy core); the features of every option come from one compiled
    observation of all the afterstates, when asked for.
    """
    player = game.current_player
    sim = game.with_state(strategy.determinized(game.state, strategy.new_rng(draw_seed(rng))), check=False)
    return Candidates(sim, rules.option_arrays(sim), player, remaining_fraction(sim))


# --------------------------------------------------------------------------- rollout targets
def rollout_value(game: Game, player: int, rounds: int, samples: int, rng: np.random.Generator) -> float:
    """What ``game`` is worth to ``player`` a few turns later: the mean over ``samples`` short rollouts.

    Each rollout shuffles the hidden stack (a determinization), plays ``rounds`` rounds (every
    player ``rounds`` turns) with the rollout policy MCTS uses
    (:mod:`concordia_env.strategy.rollout`), and scores the position reached by the heuristic
    evaluation's utility (own estimated final VP minus the opponents' mean), or by the final
    margin if the game ended; in units of ``MARGIN_SCALE``. Playing a round on "cashes in"
    what a position's hand and storehouse are about to do, which a static evaluation misses;
    averaging several rollouts keeps the target's noise low. ``rng`` also seeds the compiled
    policy's own generator, so the value is reproducible.
    """
    noise = strategy.new_rng(int(rng.integers(2**63 - 1)))
    total = 0.0
    for _ in range(samples):
        sim = game.with_hidden_stack_shuffled(rng)
        if not sim.is_over():
            state = np.array(sim.state)
            strategy.rollout_turns(state, sim.map.tables, ROLLOUT_PARAMS, rounds * sim.num_players, noise)
            sim = sim.with_state(state, check=False)
        if sim.is_over():
            scores = sim.final_scores().astype(np.float64)
            total += utility(scores, player)
        else:
            total += utility(evaluate(sim), player)
    return total / samples / MARGIN_SCALE


__all__ = [
    "FEATURES_VERSION",
    "FEATURE_COUNTS",
    "MARGIN_SCALE",
    "NUM_FEATURES",
    "OBSERVATION_COLUMNS",
    "UTILITY_INDEX",
    "VALUE_SCALE",
    "AfterstateModel",
    "Candidates",
    "afterstate_features",
    "batch_features",
    "candidates",
    "rollout_value",
    "utility",
]
