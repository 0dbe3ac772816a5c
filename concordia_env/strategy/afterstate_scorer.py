"""The learned afterstate scorer, compiled: features of every turn option and the model's MLP over them.

The ``learned`` agent (:mod:`concordia_env.agents.learned`, the model in
:mod:`concordia_env.agents.learned_model`) scores every turn option's afterstate with a small
network, ``score = a · u + b + MLP(x)``. This module is the one home of what ``x`` is (the
feature layout: which observation entries, the evaluation's values, the utility) and runs
the same computation in compiled code, so that the learned agent can play inside a batch
(:mod:`.players`) without a Python call per decision. The numpy model
(``AfterstateModel.predict`` on ``agents.learned_model.batch_features``) stays the reference;
``tests/strategy/test_afterstate_scorer.py`` checks that both give the same scores (to
float32 rounding: the compiled MLP sums each product in float64 where BLAS sums in float32)
and the same choices.

Why the strategy may import the engine's observation: the features *are* observation
columns, and the compiled observation (:func:`~concordia_env.engine.observation.fill_observation`)
reads nothing but the state and the map tables, like the rules. ``tests/test_layering.py``
lets the strategy import it and nothing else of the engine beyond the rules and tables.

Features
--------
For the player who chose the turn, in this order (version 1, :data:`FEATURE_COUNTS`):
the observation entries of :data:`HEADER_FIELDS` and, for every relative seat (observer
first), of :data:`PLAYER_FIELDS`; the evaluation's estimated final VP of every relative
seat divided by ``VALUE_SCALE`` (0 for seats the game does not have); then
:data:`EXTRA_FEATURES`: ``u`` (own estimate minus the opponents' mean, by ``MARGIN_SCALE``),
the lead over the best opponent (same scale) and the share of the game left.

Version 2 appends a summary of the board for every relative seat (observer first, zeros for
seats the game does not have; :data:`BOARD_LAYOUT`): the seat's houses in cities of each
good, the places of each good an Architect of the seat could build in now, and the most
its houses would produce in one province a Prefect may choose. The board itself is not a
feature (which city holds which good changes every game, and a network that sees it
one-hot memorises games instead of positions): these counts say what it means, the same
on every map. A version's features begin with the previous version's, so a model reads
the first ``shapes[0, 0]`` entries: a version-1 model plays unchanged beside a version-2
one, and a version-1 model widened with zero weights for the new entries
(``AfterstateModel.widened``) scores exactly as it did.

Model arrays
------------
:func:`pack_model` turns a model's layers into what compiled code takes: one float32 array
holding every layer's weights (inputs × outputs, row-major) and biases in turn, the layer
shapes (int64, one row per layer) and ``(a, b)`` (float32).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from concordia_env.engine.cards import GOOD_PRICE, NUM_GOODS
from concordia_env.engine.layout import Layout
from concordia_env.engine.maps import M_CITY_PROVINCE, M_NUM_CITIES, M_NUM_PROVINCES, MAX_CITIES, MAX_PROVINCES
from concordia_env.engine.observation import (
    O_PLAYERS,
    OBS_LAYOUT,
    OBS_SIZE,
    PLAYER_OBS_LAYOUT,
    PLAYER_OBS_SIZE,
    fill_observation,
)
from concordia_env.engine.rules import njit
from concordia_env.engine.rules.facts import architect_steps, is_buildable_place, reachable_places
from concordia_env.engine.rules.state_helpers import pbase
from concordia_env.engine.state import (
    BONUS_COIN_SIDE,
    CITY_GOOD,
    COLONISTS_PER_PLAYER,
    HOUSES,
    MAX_PLAYERS,
    NUM_PLAYERS,
    P_COLONISTS,
)

#: VP of margin per unit of the model's output (and of ``u``)
MARGIN_SCALE = 30.0
#: VP per unit of the per-seat value estimates among the features
VALUE_SCALE = 100.0
#: header fields of the observation the features keep
HEADER_FIELDS = (
    "TURN_SEAT",
    "END_TRIGGERED",
    "FINAL_TURNS_LEFT",
    "TURN_COUNT",
    "STACK_SIZE",
    "DISPLAY_KIND",
    "DISPLAY_GOD",
    "STACK_CARDS",
)
#: per-seat fields of the observation the features keep (every relative seat, observer first)
PLAYER_FIELDS = (
    "PRESENT",
    "MONEY",
    "GOODS",
    "FREE_SLOTS",
    "COLONISTS_STOREHOUSE",
    "HOUSE_COUNT",
    "HAND",
    "DISCARD",
    "GOD_CARDS",
    "PRAEFECTUS_MAGNUS",
    "CONCORDIA",
    "SCORE_PARTS",
    "SCORE_TOTAL",
)
#: features after the observation part: u, margin over the best opponent, share of the game left
EXTRA_FEATURES = ("utility", "lead_over_best", "remaining")
#: houses of one good per unit of HOUSES_BY_GOOD
HOUSES_SCALE = 5.0
#: places of one good per unit of REACH_BY_GOOD
REACH_SCALE = 5.0
#: sestertii (goods at their price) per unit of BEST_PRODUCTION
PRODUCTION_SCALE = 20.0


def _columns() -> np.ndarray:
    header = {name: (offset, length) for name, offset, length, _ in OBS_LAYOUT.fields}
    player = {name: (offset, length) for name, offset, length, _ in PLAYER_OBS_LAYOUT.fields}
    cols: list[int] = []
    for name in HEADER_FIELDS:
        offset, length = header[name]
        cols.extend(range(offset, offset + length))
    for seat in range(MAX_PLAYERS):
        base = O_PLAYERS + seat * PLAYER_OBS_SIZE
        for name in PLAYER_FIELDS:
            offset, length = player[name]
            cols.extend(range(base + offset, base + offset + length))
    return np.asarray(cols, dtype=np.int64)


#: the observation entries the features keep, in order
OBSERVATION_COLUMNS = _columns()
#: where the values, ``u``, the lead and the share left sit in a feature vector
VALUES_INDEX = len(OBSERVATION_COLUMNS)
UTILITY_INDEX = VALUES_INDEX + MAX_PLAYERS
LEAD_INDEX = UTILITY_INDEX + 1
REMAINING_INDEX = UTILITY_INDEX + 2
#: where version 2's board summary begins (the length of a version-1 feature vector)
BOARD_INDEX = UTILITY_INDEX + len(EXTRA_FEATURES)

# --------------------------------------------------------------------------- v2: the board, per seat
_B = Layout()
B_HOUSES_BY_GOOD = _B.field(
    "HOUSES_BY_GOOD", NUM_GOODS, doc=f"the seat's houses in cities of each good, ÷{HOUSES_SCALE:g}"
)
B_REACH_BY_GOOD = _B.field(
    "REACH_BY_GOOD",
    NUM_GOODS,
    doc=(
        "places of each good where an Architect of the seat could build now (``reachable_places`` with "
        f"its ``architect_steps``; none of its houses there), ÷{REACH_SCALE:g}"
    ),
)
B_BEST_PRODUCTION = _B.field(
    "BEST_PRODUCTION",
    doc=(
        "the most the seat's houses produce in one province whose bonus marker shows its goods side "
        f"(what a Prefect may choose), the goods at their price, ÷{PRODUCTION_SCALE:g}"
    ),
)
#: the board summary's entries per relative seat, and their layout
BOARD_SEAT_SIZE = _B.size
BOARD_LAYOUT = _B

#: length of a feature vector of each version (a version's features begin with the previous one's)
FEATURE_COUNTS: dict[int, int] = {1: BOARD_INDEX, 2: BOARD_INDEX + MAX_PLAYERS * BOARD_SEAT_SIZE}
#: the newest version, and the length of its feature vector (what new models take)
FEATURES_VERSION = max(FEATURE_COUNTS)
NUM_FEATURES = FEATURE_COUNTS[FEATURES_VERSION]


#: the feature counts a model may take, for messages
FEATURE_WIDTHS = ", ".join(f"{count} (version {version})" for version, count in FEATURE_COUNTS.items())


def features_version(width: int) -> int:
    """The feature version whose vectors have ``width`` entries (``ValueError`` for another width)."""
    for version, count in FEATURE_COUNTS.items():
        if count == width:
            return version
    raise ValueError(f"a model takes {FEATURE_WIDTHS} features, not {width}")


def check_features_version(version: object) -> int:
    """``version`` if it is a feature version this code computes (an int key of FEATURE_COUNTS), else ``ValueError``."""
    if isinstance(version, bool) or not isinstance(version, int) or version not in FEATURE_COUNTS:
        raise ValueError(f"features_version must be one of {tuple(FEATURE_COUNTS)}, got {version!r}")
    return version


class ModelArrays(NamedTuple):
    """A model as compiled code takes it (:func:`pack_model`)."""

    #: every layer's weights (inputs × outputs, row-major), then its biases, layer after layer
    flat: np.ndarray
    #: (inputs, outputs) of each layer, int64
    shapes: np.ndarray
    #: ``(a, b)`` of ``a · u + b + MLP(x)``, float32
    ab: np.ndarray


def pack_model(weights: list[np.ndarray], biases: list[np.ndarray], a: float, b: float) -> ModelArrays:
    """The arrays of an MLP with ReLU hidden layers and one output (``ValueError`` if the shapes do not chain)."""
    if not weights or len(weights) != len(biases):
        raise ValueError("a model has one bias per weight matrix and at least one layer")
    shapes = np.array([np.shape(w) for w in weights], dtype=np.int64)
    if shapes.ndim != 2 or shapes.shape[1] != 2:
        raise ValueError("every weight matrix of a model is 2-D (inputs × outputs)")
    if not layers_chain(shapes):
        raise ValueError(f"a model takes {FEATURE_WIDTHS} features through chained layers to one output")
    parts = []
    for w, bias, (_, cols) in zip(weights, biases, shapes, strict=True):
        if np.shape(bias) != (cols,):
            raise ValueError(f"a bias of a layer with {cols} outputs has {cols} entries, got shape {np.shape(bias)}")
        parts += [np.asarray(w, dtype=np.float32).ravel(), np.asarray(bias, dtype=np.float32)]
    flat = np.ascontiguousarray(np.concatenate(parts), dtype=np.float32)
    if not np.all(np.isfinite(flat)) or not (np.isfinite(a) and np.isfinite(b)):
        raise ValueError("a model's numbers are finite")
    return ModelArrays(flat, shapes, np.array([a, b], dtype=np.float32))


def layers_chain(shapes: np.ndarray) -> bool:
    """Whether layers of these (inputs, outputs) take the features through each other to one output."""
    first = int(shapes[0, 0])
    return bool(first in FEATURE_COUNTS.values() and shapes[-1, 1] == 1 and np.all(shapes[1:, 0] == shapes[:-1, 1]))


def checked_arrays(model: object) -> ModelArrays:
    """``model`` if it is what :func:`pack_model` makes, else ``ValueError``.

    Compiled code reads the weights where the shapes say, without bounds checks: the types,
    the chained shapes and the number of weights are checked before it sees them.
    """
    problem = "model must be the arrays of a model (strategy.afterstate_scorer.pack_model)"
    if not isinstance(model, ModelArrays):
        raise ValueError(problem)
    flat, shapes, ab = model
    if not (
        all(isinstance(a, np.ndarray) for a in model)
        and flat.dtype == np.float32
        and flat.ndim == 1
        and shapes.dtype == np.int64
        and shapes.ndim == 2
        and shapes.shape[1] == 2
        and len(shapes) > 0
        and ab.dtype == np.float32
        and ab.shape == (2,)
    ):
        raise ValueError(problem)
    if not layers_chain(shapes) or np.any(shapes <= 0):
        raise ValueError(f"{problem}: {FEATURE_WIDTHS} features through chained layers to one output")
    if flat.size != int((shapes[:, 0] * shapes[:, 1] + shapes[:, 1]).sum()):
        raise ValueError(f"{problem}: the weights do not match the layer shapes")
    return model


def no_model() -> ModelArrays:
    """The arrays given to compiled code when no learned player takes part (never read)."""
    return ModelArrays(np.zeros(0, dtype=np.float32), np.zeros((0, 2), dtype=np.int64), np.zeros(2, dtype=np.float32))


# --------------------------------------------------------------------------- compiled
@njit
def seat_board(s, m, q, reach, out, at):
    """Seat q's board summary (:data:`BOARD_LAYOUT`) into ``out[at : at + BOARD_SEAT_SIZE]``.

    ``reach`` is scratch of at least the map's place count. A place counts towards
    REACH_BY_GOOD where an Architect could take a colonist next to it (``reachable_places``,
    the best case of its steps) and q may build there (a city without q's house); the
    production of a province counts q's houses only (the bonus marker's good is the same
    whoever holds the houses).
    """
    houses = np.zeros(NUM_GOODS)
    places = np.zeros(NUM_GOODS)
    production = np.zeros(MAX_PROVINCES)
    reachable_places(s, m, q, architect_steps(s, q), reach)
    for c in range(m[M_NUM_CITIES]):
        if not is_buildable_place(m, c):
            continue
        g = s[CITY_GOOD + c]
        if s[HOUSES + q * MAX_CITIES + c] == 1:
            houses[g] += 1.0
            production[m[M_CITY_PROVINCE + c]] += GOOD_PRICE[g]
        elif reach[c]:
            places[g] += 1.0
    for g in range(NUM_GOODS):
        out[at + B_HOUSES_BY_GOOD + g] = houses[g] / HOUSES_SCALE
        out[at + B_REACH_BY_GOOD + g] = places[g] / REACH_SCALE
    best = 0.0
    for v in range(m[M_NUM_PROVINCES]):
        if s[BONUS_COIN_SIDE + v] == 0 and production[v] > best:
            best = production[v]
    out[at + B_BEST_PRODUCTION] = best / PRODUCTION_SCALE


@njit
def board_features(s, m, player, out):
    """Every relative seat's board summary (observer first) into ``out[BOARD_INDEX:]``; zeros for absent seats."""
    n = s[NUM_PLAYERS]
    reach = np.empty(m[M_NUM_CITIES], dtype=np.bool_)
    for j in range(MAX_PLAYERS):
        at = BOARD_INDEX + j * BOARD_SEAT_SIZE
        if j < n:
            seat_board(s, m, (player + j) % n, reach, out, at)
        else:
            for i in range(BOARD_SEAT_SIZE):
                out[at + i] = 0.0


@njit
def same_seat_inputs(a, b, m, q):
    """Whether states ``a`` and ``b`` agree on all that :func:`seat_board` reads of seat q.

    That is q's colonists (its reach and its Architect's steps), q's houses, the cities'
    goods and the provinces' bonus sides: equal there, q's board summary is equal too.
    """
    colonists = pbase(q) + P_COLONISTS
    for i in range(COLONISTS_PER_PLAYER):
        if a[colonists + i] != b[colonists + i]:
            return False
    houses = HOUSES + q * MAX_CITIES
    for c in range(m[M_NUM_CITIES]):
        if a[houses + c] != b[houses + c] or a[CITY_GOOD + c] != b[CITY_GOOD + c]:
            return False
    for v in range(m[M_NUM_PROVINCES]):
        if a[BONUS_COIN_SIDE + v] != b[BONUS_COIN_SIDE + v]:
            return False
    return True


@njit
def option_board_features(afterstates, k, m, player, out, source, reach):
    """:func:`board_features` of afterstate k into ``out[k]``; a seat's summary is copied where it cannot differ.

    The options of one decision are one player's turns: the other seats' boards are
    almost always those of every other option. ``source[j]`` is the row that last
    computed relative seat j's summary (-1: none yet); a seat whose inputs there are
    the same (:func:`same_seat_inputs`) is copied, bit for bit, instead of computed.
    """
    s = afterstates[k]
    n = s[NUM_PLAYERS]
    row = out[k]
    for j in range(MAX_PLAYERS):
        at = BOARD_INDEX + j * BOARD_SEAT_SIZE
        if j >= n:
            for i in range(BOARD_SEAT_SIZE):
                row[at + i] = 0.0
            continue
        q = (player + j) % n
        earlier = source[j]
        if earlier >= 0 and same_seat_inputs(s, afterstates[earlier], m, q):
            for i in range(BOARD_SEAT_SIZE):
                row[at + i] = out[earlier, at + i]
        else:
            seat_board(s, m, q, reach, row, at)
            source[j] = k


@njit
def option_features(afterstates, m, vals, player, remaining, columns, out):
    """The feature vector of every afterstate (row k) for ``player`` into ``out[k]`` (see "Features").

    ``vals[k, q]`` is every player's estimated final VP in afterstate k (float64);
    ``remaining`` the share of the game left at the decision. ``out``'s width says the
    version: a version-1 row stops before the board summary. The arithmetic follows
    ``agents.learned_model.batch_features`` step for step (float64, then stored as float32).
    """
    obs = np.empty(OBS_SIZE, dtype=np.float32)
    ncols = columns.shape[0]
    source = np.full(MAX_PLAYERS, -1, dtype=np.int64)
    reach = np.empty(m[M_NUM_CITIES], dtype=np.bool_)
    for k in range(afterstates.shape[0]):
        s = afterstates[k]
        n = s[NUM_PLAYERS]
        fill_observation(s, m, player, obs)
        row = out[k]
        for c in range(ncols):
            row[c] = obs[columns[c]]
        for c in range(ncols, row.shape[0]):
            row[c] = 0.0
        best_other = -np.inf
        for j in range(n):
            value = vals[k, (player + j) % n]
            row[ncols + j] = value / VALUE_SCALE
            if j > 0 and value > best_other:
                best_other = value
        others = 0.0
        for q in range(n):
            if q != player:
                others += vals[k, q]
        row[ncols + MAX_PLAYERS] = (vals[k, player] - others / (n - 1)) / MARGIN_SCALE
        row[ncols + MAX_PLAYERS + 1] = (vals[k, player] - best_other) / MARGIN_SCALE
        row[ncols + MAX_PLAYERS + 2] = remaining
        if row.shape[0] > BOARD_INDEX:
            option_board_features(afterstates, k, m, player, out, source, reach)


@njit
def varying_inputs(x, differs, listed):
    """The inputs where some row of ``x`` differs from the first, ascending, into ``listed``; returns their count.

    ``differs`` is scratch of at least ``x``'s width. The rows are compared in the order they
    are stored (contiguous reads, no early exit: the comparison vectorizes).
    """
    width = x.shape[1]
    for i in range(width):
        differs[i] = False
    for k in range(1, x.shape[0]):
        for i in range(width):
            differs[i] |= x[k, i] != x[0, i]
    count = 0
    for i in range(width):
        if differs[i]:
            listed[count] = i
            count += 1
    return count


@njit
def earlier_same_row(x, k, kept, num_kept, listed, count):
    """The first row among ``kept[:num_kept]`` whose listed inputs (``listed[:count]``) are row k's, else -1.

    Rows that agree on every input that varies are the same row: the same score.
    """
    for f in range(num_kept):
        r = kept[f]
        same = True
        for c in range(count):
            i = listed[c]
            if x[k, i] != x[r, i]:
                same = False
                break
        if same:
            return r
    return -1


@njit
def add_inputs(h, w, rows, cols, use, shared, total):
    """Add ``h[i] · W[i, :]`` to ``total`` for every input i < rows with ``shared[i] == use`` and ``h[i] != 0``.

    ``w`` holds W row-major (``rows × cols``), walked in the order it is stored (contiguous
    reads); an input that is zero (a ReLU that is off, an absent seat's features) adds
    nothing and is skipped. The sums are float64.
    """
    for i in range(rows):
        if shared[i] != use:
            continue
        hi = np.float64(h[i])
        if hi != 0.0:
            at = i * cols
            for j in range(cols):
                total[j] += hi * np.float64(w[at + j])


@njit
def add_listed_inputs(h, w, cols, listed, count, total):
    """Add ``h[i] · W[i, :]`` to ``total`` for the inputs i of ``listed[:count]`` (ascending) with ``h[i] != 0``.

    :func:`add_inputs` over a list of inputs instead of a mask: the same terms in the same
    order (float64 sums). Kept apart from it: one function for both, called with a list of
    every input for the hidden layers, made ``mlp_scores`` about half as slow again.
    """
    for c in range(count):
        i = listed[c]
        hi = np.float64(h[i])
        if hi != 0.0:
            at = i * cols
            for j in range(cols):
                total[j] += hi * np.float64(w[at + j])


@njit
def mlp_scores(x, flat, shapes, ab, out):
    """``a · u + b + MLP(x)`` of every row of ``x`` into ``out`` (float32; ReLU between layers).

    The rows are the options of one decision, and most of their inputs are alike (the
    table, the other seats): the first layer sums the terms of the inputs that every row
    has alike (and that are not zero) once, and each row adds only the terms of the inputs
    that vary (:func:`varying_inputs`). Many options of a decision (about half,
    docs/benchmarks.md) have the same features as an earlier one (they differ where no
    feature looks, a colonist's place beyond what it reaches, say): such a row is given that row's score
    (:func:`earlier_same_row`), computed once. The sums are float64, so the order of the
    terms moves them far less than float32's rounding.
    """
    n = x.shape[0]
    inputs = x.shape[1]
    width = inputs
    for layer in range(shapes.shape[0]):
        width = max(width, shapes[layer, 1])
    h = np.empty(width, dtype=np.float32)
    total = np.empty(width, dtype=np.float64)
    hidden = np.zeros(width, dtype=np.bool_)  # the hidden units differ from row to row: none shared
    differs = np.zeros(inputs, dtype=np.bool_)
    listed = np.empty(inputs, dtype=np.int64)
    count = varying_inputs(x, differs, listed)
    if n == 1:  # a lone row shares nothing: every input is its own
        for i in range(inputs):
            listed[i] = i
        count = inputs
    shared = np.zeros(inputs, dtype=np.bool_)
    for i in range(inputs):
        shared[i] = n > 1 and x[0, i] != 0.0 and not differs[i]
    base = np.zeros(shapes[0, 1], dtype=np.float64)
    add_inputs(x[0], flat, shapes[0, 0], shapes[0, 1], True, shared, base)
    kept = np.empty(n, dtype=np.int64)
    num_kept = 0
    last = shapes.shape[0] - 1
    for k in range(n):
        earlier = earlier_same_row(x, k, kept, num_kept, listed, count)
        if earlier >= 0:
            out[k] = out[earlier]
            continue
        kept[num_kept] = k
        num_kept += 1
        at = 0
        for layer in range(shapes.shape[0]):
            rows = shapes[layer, 0]
            cols = shapes[layer, 1]
            if layer == 0:
                total[:cols] = base
                add_listed_inputs(x[k], flat, cols, listed, count, total)
            else:
                total[:cols] = 0.0
                add_inputs(h, flat[at:], rows, cols, False, hidden, total)
            bias_at = at + rows * cols
            for j in range(cols):
                value = np.float32(total[j]) + flat[bias_at + j]
                h[j] = value if (layer == last or value > 0) else np.float32(0.0)
            at = bias_at + cols
        out[k] = ab[0] * x[k, UTILITY_INDEX] + ab[1] + h[0]


@njit
def score_options(afterstates, m, vals, player, remaining, columns, flat, shapes, ab):
    """The model's score of every afterstate of one decision (float32, one per row)."""
    x = np.empty((afterstates.shape[0], shapes[0, 0]), dtype=np.float32)
    option_features(afterstates, m, vals, player, remaining, columns, x)
    out = np.empty(afterstates.shape[0], dtype=np.float32)
    mlp_scores(x, flat, shapes, ab, out)
    return out
