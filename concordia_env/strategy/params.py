"""The strategy's numbers: the evaluation's weights, the planner's constants and the rollout noise.

Compiled code reads them from one float64 array with a named offset per number (the way the
state is one int32 array): :func:`params_array` packs the three Python dataclasses below into
it, after :class:`Weights`, :class:`PlannerSettings` and :class:`RolloutSettings` have checked
every value (a number of the right type, finite; an unknown field is refused by the dataclass
itself). Nothing else builds the array, so no unchecked number reaches compiled code.

* :class:`Weights`: the evaluation's constants, VP per unit (see :mod:`.evaluation`). Set by
  playing the heuristic against variants of itself on 2-player Italia (60-80 games per
  comparison, every seat): e.g. the current values beat the first guesses (money 0.3, need
  premium 0.3, economy fade 0.25, discard costs 1.7x these) in 50 of 80 games.
* :class:`PlannerSettings`: the rules of thumb's constants (see :mod:`.planner`) and how much
  the opponents count in the utility a choice maximises.
* :class:`RolloutSettings`: the noise of the rollout policy (see :mod:`.rollout`); zero noise
  is the heuristic itself.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from concordia_env.engine.cards import (
    K_ARCHITECT,
    K_COLONIST,
    K_CONSUL,
    K_DIPLOMAT,
    K_MERCATOR,
    K_MERCATOR_BOUGHT,
    K_PREFECT,
    K_SENATOR,
    K_TRIBUNE,
    NUM_KINDS,
)
from concordia_env.engine.layout import Layout

# --------------------------------------------------------------------------- the array's layout
_W = Layout()
W_MONEY = _W.field("MONEY", doc="VP of the first sestertius while the game runs")
W_MONEY_SCALE = _W.field("MONEY_SCALE", doc="sestertii over which one more sestertius loses a factor e")
W_NEED_PREMIUM = _W.field("NEED_PREMIUM", doc="extra worth of a needed unit, per sestertius of price")
W_HOUSE_NEED_BONUS = _W.field("HOUSE_NEED_BONUS", doc="extra worth of a unit the next houses need")
W_FUTURE_HOUSES = _W.field("FUTURE_HOUSES", doc="houses a player adds over a whole game")
W_FUTURE_PROVINCE_RATE = _W.field("FUTURE_PROVINCE_RATE", doc="share of future houses adding a province")
W_FUTURE_KIND_RATE = _W.field("FUTURE_KIND_RATE", doc="new kinds of goods per future house")
W_FUTURE_COLONISTS = _W.field("FUTURE_COLONISTS", doc="colonists a player adds over a whole game")
W_HOUSE_FUTURE = _W.field("HOUSE_FUTURE", doc="a house's worth beyond today's cards")
W_PROVINCE_FUTURE = _W.field("PROVINCE_FUTURE", doc="a province's worth beyond today's cards")
W_KIND_FUTURE = _W.field("KIND_FUTURE", doc="a kind of goods' worth beyond today's cards")
W_PRODUCTION = _W.field("PRODUCTION", doc="VP per sestertius of a house's good over a whole game")
W_COLONIST_MOBILITY = _W.field("COLONIST_MOBILITY", doc="a colonist on the board, times (0.5 + remaining)")
W_DISCARD_COST = _W.field("DISCARD_COST", NUM_KINDS, doc="cost of a card of each kind in the discard pile")
W_ECONOMY_FADE = _W.field("ECONOMY_FADE", doc="last share of the game over which money and goods lose their worth")
P_OPPONENT_WEIGHT = _W.field("OPPONENT_WEIGHT", doc="weight of the opponents' mean value in the utility")
P_POSITION_WEIGHT = _W.field("POSITION_WEIGHT", doc="Architect: share of an unaffordable good city's value")
P_STEP_COST = _W.field("STEP_COST", doc="Architect: VP per step, so that shorter moves win ties")
P_POSITION_CITIES = _W.field("POSITION_CITIES", doc="Architect/Colonist: best unbuilt cities that count")
P_SETTLE_POSITION_WEIGHT = _W.field("SETTLE_POSITION_WEIGHT", doc="Colonist: VP per unit of nearby cities' value")
R_EPSILON = _W.field("EPSILON", doc="rollouts: share of decisions taken uniformly at random")
R_TEMPERATURE = _W.field("TEMPERATURE", doc="rollouts: Gumbel temperature of the card choice (VP)")
R_NESTED_LOOKAHEAD = _W.field("NESTED_LOOKAHEAD", doc="1: decisions inside a turn's play-out by lookahead too")
R_OPTIONS = _W.field("OPTIONS", doc="rollouts: turn options the card choice weighs, drawn at random (0: all)")
NUM_PARAMS = _W.size
PARAMS_LAYOUT = _W


def _number(owner: str, name: str, value: Any) -> float:
    """``value`` as a finite float; TypeError for a non-number (a bool included), ValueError for nan/inf."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{owner}.{name} must be a number, got {type(value).__name__} {value!r}")
    if not math.isfinite(float(value)):
        raise ValueError(f"{owner}.{name} must be finite, got {value!r}")
    return float(value)


def _check_numbers(obj: Any) -> None:
    """Check every field of a settings dataclass (tuples element by element)."""
    owner = type(obj).__name__
    for f in fields(obj):
        value = getattr(obj, f.name)
        if isinstance(value, tuple):
            for k, item in enumerate(value):
                _number(owner, f"{f.name}[{k}]", item)
        else:
            _number(owner, f.name, value)


def _default_discard_cost() -> tuple[float, ...]:
    costs = {
        K_TRIBUNE: 0.0,
        K_ARCHITECT: 0.5,
        K_PREFECT: 0.3,
        K_MERCATOR: 0.25,
        K_MERCATOR_BOUGHT: 0.3,
        K_SENATOR: 0.3,
        K_CONSUL: 0.25,
        K_DIPLOMAT: 0.3,
        K_COLONIST: 0.25,
    }
    return tuple(costs.get(k, 0.2) for k in range(NUM_KINDS))


@dataclass(frozen=True)
class Weights:
    """The evaluation's constants (VP per unit); see :mod:`.evaluation` for where each counts."""

    #: VP of the first sestertius while the game runs (a house costs ~10-15 and is worth ~4-8 VP);
    #: each further one is worth a little less: money only helps as far as turns can spend it
    money: float = 0.4
    #: sestertii over which the value of one more sestertius falls by a factor e
    money_scale: float = 25.0
    #: goods count as their price in sestertii (they can be sold at it); the units a player
    #: needs soon are worth this much more per sestertius of price
    need_premium: float = 0.2
    #: and the units its next houses need (a brick above all) this much more again, per unit
    house_need_bonus: float = 1.0
    #: houses a player is expected to add over a whole game (scaled by ``remaining``)
    future_houses: float = 11.0
    #: of those, the share that adds a province, and the new goods kinds per house
    future_province_rate: float = 0.5
    future_kind_rate: float = 0.35
    #: colonists a player is expected to add over a whole game
    future_colonists: float = 2.0
    #: a house's value beyond today's cards: future god cards will count it, and it produces
    house_future: float = 1.2
    province_future: float = 0.9
    kind_future: float = 1.0
    #: VP per sestertius of a house's good over a whole game of production
    production: float = 1.0
    #: a colonist on the board (an Architect step, more cities in reach) is worth this much,
    #: times (0.5 + remaining)
    colonist_mobility: float = 2.5
    #: what a card of each kind lying in the discard pile costs: a Tribune turn must bring it
    #: back (a turn is worth a few VP and brings back several cards, minus its money bonus).
    #: Only a cost, never a value of the hand, so that a card is played whenever its action
    #: gains more than this, and the Tribune when the discard pile has grown costly.
    discard_cost: tuple[float, ...] = field(default_factory=_default_discard_cost)
    #: money and goods lose their worth over the last part of the game (fraction of the game)
    economy_fade: float = 0.45

    def __post_init__(self) -> None:
        if not isinstance(self.discard_cost, (tuple, list)) or len(self.discard_cost) != NUM_KINDS:
            raise TypeError(f"Weights.discard_cost must be {NUM_KINDS} numbers, one per card kind")
        object.__setattr__(self, "discard_cost", tuple(self.discard_cost))
        _check_numbers(self)
        if self.money_scale <= 0:
            raise ValueError(f"Weights.money_scale must be positive, got {self.money_scale}")

    @classmethod
    def of(cls, value: Weights | dict[str, Any] | None) -> Weights:
        """Weights from a :class:`Weights`, a dict of the fields to change (``{"money": 0.5}``) or None."""
        if value is None:
            return DEFAULT_WEIGHTS
        if isinstance(value, Weights):
            return value
        if not isinstance(value, dict):
            raise TypeError(f"weights must be a Weights or a dict of its fields, got {type(value).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(value) - known)
        if unknown:
            raise ValueError(f"unknown weights {unknown}; the fields are {sorted(known)}")
        return cls(**value)


@dataclass(frozen=True)
class PlannerSettings:
    """The rules of thumb's constants (see :mod:`.planner`)."""

    #: the utility a choice maximises: own value minus this times the opponents' mean value
    opponent_weight: float = 1.0
    #: a colonist next to a good city it cannot afford yet is worth this share of that city's value
    position_weight: float = 0.3
    #: prefer shorter moves among equally good ones (VP per step)
    step_cost: float = 0.05
    #: how many of the best unaffordable cities next to the colonists count for the position
    position_cities: int = 2
    #: bonus for settling next to a place's best unbuilt cities (VP per unit of their value)
    settle_position_weight: float = 0.1

    def __post_init__(self) -> None:
        _check_numbers(self)
        if self.position_cities < 0 or self.position_cities != int(self.position_cities):
            raise ValueError(f"PlannerSettings.position_cities must be a count, got {self.position_cities}")


@dataclass(frozen=True)
class RolloutSettings:
    """The rollout policy's noise (see :mod:`.rollout`); the defaults are the heuristic, noise-free."""

    #: share of decisions (other than forced ones) taken uniformly at random
    epsilon: float = 0.0
    #: Gumbel noise on the card choice, in VP of utility (0: the best card)
    temperature: float = 0.0
    #: inside a card's play-out, choose whom a Diplomat copies, where a Prefect produces and the
    #: Gavdos good by lookahead too (the heuristic); False: by the position right after (cheaper)
    nested_lookahead: bool = True
    #: the card choice plays out and weighs only this many of the turn options, drawn uniformly
    #: at random (0: every option, as the heuristic does); cheaper, and noisier, in proportion
    options: int = 0

    def __post_init__(self) -> None:
        if isinstance(self.options, (bool, np.bool_)) or not isinstance(self.options, (int, np.integer)):
            raise TypeError(f"RolloutSettings.options must be a count, got {self.options!r}")
        if self.options < 0:
            raise ValueError(f"RolloutSettings.options must be >= 0 (0: every option), got {self.options}")
        if not isinstance(self.nested_lookahead, (bool, np.bool_)):
            raise TypeError(f"RolloutSettings.nested_lookahead must be True or False, got {self.nested_lookahead!r}")
        _number("RolloutSettings", "epsilon", self.epsilon)
        _number("RolloutSettings", "temperature", self.temperature)
        if not 0.0 <= self.epsilon <= 1.0:
            raise ValueError(f"RolloutSettings.epsilon must be in 0..1, got {self.epsilon}")
        if self.temperature < 0:
            raise ValueError(f"RolloutSettings.temperature must be >= 0, got {self.temperature}")


DEFAULT_WEIGHTS = Weights()
DEFAULT_PLANNER = PlannerSettings()
NO_NOISE = RolloutSettings()


def params_array(
    weights: Weights = DEFAULT_WEIGHTS,
    planner: PlannerSettings = DEFAULT_PLANNER,
    rollout: RolloutSettings = NO_NOISE,
) -> np.ndarray:
    """The float64 array compiled code reads (offsets ``W_*``, ``P_*``, ``R_*`` of this module)."""
    if not isinstance(weights, Weights):
        raise TypeError(f"weights must be a Weights, got {type(weights).__name__}")
    if not isinstance(planner, PlannerSettings):
        raise TypeError(f"planner must be a PlannerSettings, got {type(planner).__name__}")
    if not isinstance(rollout, RolloutSettings):
        raise TypeError(f"rollout must be a RolloutSettings, got {type(rollout).__name__}")
    out = np.zeros(NUM_PARAMS, dtype=np.float64)
    out[W_MONEY] = weights.money
    out[W_MONEY_SCALE] = weights.money_scale
    out[W_NEED_PREMIUM] = weights.need_premium
    out[W_HOUSE_NEED_BONUS] = weights.house_need_bonus
    out[W_FUTURE_HOUSES] = weights.future_houses
    out[W_FUTURE_PROVINCE_RATE] = weights.future_province_rate
    out[W_FUTURE_KIND_RATE] = weights.future_kind_rate
    out[W_FUTURE_COLONISTS] = weights.future_colonists
    out[W_HOUSE_FUTURE] = weights.house_future
    out[W_PROVINCE_FUTURE] = weights.province_future
    out[W_KIND_FUTURE] = weights.kind_future
    out[W_PRODUCTION] = weights.production
    out[W_COLONIST_MOBILITY] = weights.colonist_mobility
    out[W_DISCARD_COST : W_DISCARD_COST + NUM_KINDS] = weights.discard_cost
    out[W_ECONOMY_FADE] = weights.economy_fade
    out[P_OPPONENT_WEIGHT] = planner.opponent_weight
    out[P_POSITION_WEIGHT] = planner.position_weight
    out[P_STEP_COST] = planner.step_cost
    out[P_POSITION_CITIES] = planner.position_cities
    out[P_SETTLE_POSITION_WEIGHT] = planner.settle_position_weight
    out[R_EPSILON] = rollout.epsilon
    out[R_TEMPERATURE] = rollout.temperature
    out[R_NESTED_LOOKAHEAD] = float(rollout.nested_lookahead)
    out[R_OPTIONS] = float(rollout.options)
    return out


#: the heuristic's array: default weights and planner, no noise (read-only: a shared constant)
DEFAULT_PARAMS = params_array()
DEFAULT_PARAMS.flags.writeable = False
