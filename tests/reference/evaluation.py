"""A hand-written position evaluation shared by the heuristic agent and MCTS.

``Evaluator(game).value(p)`` estimates what player ``p``'s position is worth in victory
points *at the end of the game*:

* **cards**: every owned card scored for its god against the board the player will
  probably have at the end: today's houses, provinces, kinds of goods and colonists plus
  the share a player still adds over the rest of the game (a Jupiter card bought early
  will count the houses built later);
* **board**: houses, provinces and kinds of goods are worth a little more than today's
  cards make of them (future cards will count them, houses produce), and so are
  colonists (Architect steps, more cities in reach);
* **economy**: money and goods as *wealth* (goods at their price, as Vesta and the
  Mercator count them), concave: the first sestertii pay for houses, a hoard only waits
  for the end; the goods the player's next houses and next colonist need earn a premium
  (a brick above all), which is what makes the Mercator buy them and the storehouse keep
  them;
* **discard pile**: every card waiting there costs a little until a Tribune brings it
  back, so the Tribune is worth its turn once the pile has grown.

``remaining`` (0..1) says how much of the game is left: the smaller of the share of cards
still for sale and the share of houses the leader still has to build (either ends the
game), 0 once the Concordia card is taken. Future growth scales with it, and economy,
board and discard terms fade over the last ``economy_fade`` of the game: at the very end
only the final score counts. The weights (:class:`Weights`, VP per unit) were set by
playing the heuristic against variants of itself.

The evaluation is cheap (tens of microseconds per player, values of positions seen
before are remembered), which is what lookahead and tree search need. Every fact of the
rules it uses comes from ``Game``'s rule queries (:mod:`concordia_env.engine.rules.facts`: house
prices, reach, colonists on the board, cards for sale) and the constants of
:mod:`concordia_env.engine.cards` (god caps and VP, the Concordia card); the state array itself is
only read whole, as part of a cache key (a player's block, ``player_base`` and ``PLAYER_SIZE``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from concordia_env import Game
from concordia_env.engine.cards import (
    BRICK,
    CARD_GOD,
    CARD_KIND,
    COLONIST_COST,
    CONCORDIA_VP,
    FIRST_SPECIALIST,
    GOOD_PRICE,
    HOUSES_PER_PLAYER,
    JUPITER,
    JUPITER_CAP,
    JUPITER_VP,
    K_ARCHITECT,
    K_COLONIST,
    K_CONSUL,
    K_DIPLOMAT,
    K_MERCATOR,
    K_MERCATOR_BOUGHT,
    K_PREFECT,
    K_SENATOR,
    K_TRIBUNE,
    KIND_MINERVA_VP,
    KIND_SPECIALIST_GOOD,
    MARS,
    MARS_CAP,
    MARS_VP,
    MERCURIUS,
    MERCURIUS_CAP,
    MERCURIUS_VP,
    NUM_GODS,
    NUM_GOODS,
    NUM_KINDS,
    SATURNUS,
    SATURNUS_VP,
    VESTA,
    VESTA_SESTERTII_PER_VP,
    sale_cards_in_game,
)
from concordia_env.engine.maps import M_CITY_PROVINCE, M_PATH_END_A, M_PATH_END_B, M_PATH_KIND, Map, load
from concordia_env.engine.rules import facts
from concordia_env.engine.state import COLONISTS_PER_PLAYER, PATH_LOC_BASE, PLAYER_SIZE, player_base

MAX_COLONISTS = COLONISTS_PER_PLAYER
#: the cache entry naming the weights a cache was filled with
_WEIGHTS_KEY = "weights"


@dataclass(frozen=True)
class Weights:
    """The evaluation's constants (VP per unit).

    Set by playing the heuristic against variants of itself on 2-player Italia (60-80
    games per comparison, every seat): e.g. the current values beat the first guesses
    (money 0.3, need premium 0.3, economy fade 0.25, discard costs 1.7x these) in 50 of
    80 games.
    """

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
    discard_cost: tuple[float, ...] = field(
        default_factory=lambda: tuple(
            {
                K_TRIBUNE: 0.0,
                K_ARCHITECT: 0.5,
                K_PREFECT: 0.3,
                K_MERCATOR: 0.25,
                K_MERCATOR_BOUGHT: 0.3,
                K_SENATOR: 0.3,
                K_CONSUL: 0.25,
                K_DIPLOMAT: 0.3,
                K_COLONIST: 0.25,
            }.get(k, 0.2)
            for k in range(NUM_KINDS)
        )
    )
    #: money and goods lose their worth over the last part of the game (fraction of the game)
    economy_fade: float = 0.45


DEFAULT_WEIGHTS = Weights()


# --------------------------------------------------------------------------- board facts
@dataclass(frozen=True)
class Board:
    """Static facts of one map as small numpy arrays (cached per map).

    The rule facts among them (where a house may be built, Architect distances, which places
    a colonist is next to) are asked of the rule queries once per map and kept as tables.
    """

    num_places: int
    num_paths: int
    num_provinces: int
    capital: int
    buildable: np.ndarray  # bool [place]
    province: np.ndarray  # int [place], -1 capital/square
    path_ends: np.ndarray  # int [path, 2]
    path_kind: np.ndarray  # int [path]
    place_paths: tuple[np.ndarray, ...]  # paths leaving each place
    steps: dict[int, np.ndarray]  # colonist location -> Architect steps to each path
    next_to: dict[int, tuple[int, ...]]  # colonist location -> places it may build in

    def distance(self, loc: int, path: int) -> int:
        """Architect steps from a colonist location to a path (``maps.UNREACHABLE`` if it cannot)."""
        return int(self.steps[loc][path])

    def adjacent_places(self, loc: int) -> tuple[int, ...]:
        """Places a colonist at ``loc`` may build in: the city it stands in or its path's ends."""
        return self.next_to.get(loc, ())


def board_of(m: Map) -> Board:
    """The board facts of a map (built once per map)."""
    return _board(m.name)


@cache
def _board(name: str) -> Board:
    m = load(name)
    t = m.tables
    places, paths, provinces = len(m.places), len(m.paths), len(m.provinces)
    province = t[M_CITY_PROVINCE : M_CITY_PROVINCE + places].astype(np.int64)
    ends = np.stack([t[M_PATH_END_A : M_PATH_END_A + paths], t[M_PATH_END_B : M_PATH_END_B + paths]], axis=1)
    place_paths = tuple(np.flatnonzero((ends[:, 0] == c) | (ends[:, 1] == c)) for c in range(places))
    locations = [*range(places), *(PATH_LOC_BASE + q for q in range(paths))]
    return Board(
        num_places=places,
        num_paths=paths,
        num_provinces=provinces,
        capital=m.place_index(m.capital),
        buildable=np.array([bool(facts.is_buildable_place(t, c)) for c in range(places)]),
        province=province,
        path_ends=ends.astype(np.int64),
        path_kind=t[M_PATH_KIND : M_PATH_KIND + paths].astype(np.int64),
        place_paths=place_paths,
        steps={loc: np.array([facts.path_distance(t, loc, q) for q in range(paths)]) for loc in locations},
        next_to={loc: tuple(int(c) for c in facts.places_next_to(t, loc) if c >= 0) for loc in locations},
    )


def remaining_fraction(game: Game) -> float:
    """How much of the game is left (1 at the start, 0 once the end is triggered).

    The game ends when the cards for sale run out or someone builds a 15th house; the
    estimate is the smaller of the two "distances" to those ends.
    """
    if game.concordia_holder is not None:
        return 0.0
    cards_left = int(np.count_nonzero(game.display() >= 0)) + game.stack_size
    card_left = cards_left / sale_cards_in_game(game.num_players)
    most_houses = int(game.houses().sum(axis=1).max())
    house_left = 1.0 - most_houses / HOUSES_PER_PLAYER
    return float(max(0.0, min(card_left, house_left)))


def _one_hot(index: np.ndarray, size: int) -> np.ndarray:
    out = np.zeros((len(index), size))
    valid = index >= 0
    out[np.flatnonzero(valid), index[valid]] = 1.0
    return out


#: [card type, god], [card type, kind], [card type, good of its specialist]: counts @ matrix
CARD_GOD_MATRIX = _one_hot(CARD_GOD, NUM_GODS)
CARD_KIND_MATRIX = _one_hot(CARD_KIND, NUM_KINDS)
CARD_SPECIALIST_MATRIX = _one_hot(KIND_SPECIALIST_GOOD[CARD_KIND], NUM_GOODS)
#: Minerva VP per house for each good (from the specialist of that good)
MINERVA_VP_BY_GOOD = np.zeros(NUM_GOODS)
for _k in range(FIRST_SPECIALIST, NUM_KINDS):
    MINERVA_VP_BY_GOOD[KIND_SPECIALIST_GOOD[_k]] = KIND_MINERVA_VP[_k]
#: the same tables as Python lists, for the scalar arithmetic of the evaluation
_PRICES = GOOD_PRICE.tolist()
_MINERVA_VP = MINERVA_VP_BY_GOOD.tolist()


# --------------------------------------------------------------------------- per-player facts
@dataclass
class PlayerView:
    """What the evaluation reads about one player, computed once per position.

    Counts the evaluation uses in arithmetic are plain Python numbers: the evaluation runs
    thousands of times per decision, and numpy's per-call overhead dominates on arrays this
    small.
    """

    money: int
    goods: np.ndarray
    houses: np.ndarray  # bool [place]
    by_good: np.ndarray  # own houses per city good
    provinces: np.ndarray  # bool [province]: at least one own house
    colonists: np.ndarray  # location codes
    on_board: int
    gods: list[float]  # cards owned per god
    specialists: list[float]  # specialist cards owned per good
    discard_cost: float  # see Weights.discard_cost
    num_houses: int
    non_brick_houses: int
    num_provinces: int
    num_kinds: int


@cache
def _discard_cost_by_type(discard_cost: tuple[float, ...]) -> np.ndarray:
    return CARD_KIND_MATRIX @ np.asarray(discard_cost)


def player_view(
    game: Game, board: Board, player: int, houses: np.ndarray, city_goods: np.ndarray, w: Weights
) -> PlayerView:
    own = houses[player]
    discard = game.discard(player)
    owned = game.hand(player) + discard
    colonists = game.colonist_locations(player)
    provinces = np.zeros(board.num_provinces, dtype=bool)
    provinces[board.province[own]] = True
    by_good = np.bincount(city_goods[own], minlength=NUM_GOODS)
    num_houses = int(by_good.sum())
    return PlayerView(
        money=game.money(player),
        goods=game.goods(player).astype(np.int64),
        houses=own,
        by_good=by_good,
        provinces=provinces,
        colonists=colonists,
        on_board=game.colonists_on_board(player),
        gods=(owned @ CARD_GOD_MATRIX).tolist(),
        specialists=(owned @ CARD_SPECIALIST_MATRIX).tolist(),
        discard_cost=float(discard @ _discard_cost_by_type(w.discard_cost)),
        num_houses=num_houses,
        non_brick_houses=num_houses - int(by_good[BRICK]),
        num_provinces=int(np.count_nonzero(provinces)),
        num_kinds=int(np.count_nonzero(by_good)),
    )


# --------------------------------------------------------------------------- evaluator
class Evaluator:
    """Estimates of final VP for the players of one position.

    ``remaining`` is fixed when the evaluator is made (pass it to keep one scale across a
    lookahead: buying the last cards must not make every asset look worthless).
    """

    def __init__(
        self,
        game: Game,
        remaining: float | None = None,
        weights: Weights = DEFAULT_WEIGHTS,
        cache: dict | None = None,
    ) -> None:
        self.game = game
        self.w = weights
        self.board = board_of(game.map)
        self.remaining = remaining_fraction(game) if remaining is None else remaining
        #: economy weight: 1 for most of the game, fading to 0 at its end
        self.economy = min(1.0, self.remaining / weights.economy_fade) if weights.economy_fade > 0 else 1.0
        self.houses = game.houses()
        self.city_goods = game.city_goods().astype(np.int64)
        self._views: dict[int, PlayerView] = {}
        self._house_prices: tuple[np.ndarray, np.ndarray] | None = None
        #: needs and values keyed by everything they depend on besides the player's own block
        #: of the state: the map, every house, the city goods and the game's remaining share
        self._key = (game.map.name, self.houses.tobytes(), self.city_goods.tobytes(), self.remaining)
        #: needs and values shared by the evaluations of one decision (an opponent's position
        #: rarely changes during a lookahead of my turn); one cache serves one set of weights
        self._cache = {} if cache is None else cache
        cached = self._cache.setdefault(_WEIGHTS_KEY, weights)
        if cached is not weights and cached != weights:
            raise ValueError("an evaluation cache serves one set of weights; pass a new dict for these")

    # ------------------------------------------------------------------ views
    def view(self, player: int) -> PlayerView:
        if player not in self._views:
            self._views[player] = player_view(self.game, self.board, player, self.houses, self.city_goods, self.w)
        return self._views[player]

    def _player_key(self, kind: str, player: int) -> tuple:
        """A cache key: what is computed, for whom, from their block of the state and the shared key."""
        b = player_base(player)
        return (kind, player, self.game.state[b : b + PLAYER_SIZE].tobytes(), self._key)

    def need(self, player: int) -> np.ndarray:
        """Goods the player needs soon: [0] for the best houses within reach, [1] for a new colonist."""
        key = self._player_key("need", player)
        need = self._cache.get(key)
        if need is None:
            need = self._cache[key] = self._compute_need(player)
        return need

    def _compute_need(self, player: int) -> np.ndarray:
        v = self.view(player)
        need = np.zeros((2, NUM_GOODS), dtype=np.int64)
        targets = self.reachable_targets(player, max(v.on_board, 1))
        values = self.house_gains(player)
        best = sorted(targets, key=lambda c: -values[c])[: max(2, v.on_board)]
        house_goods = self.house_costs(player)[1]
        for c in best:
            need[0] += house_goods[c]
        need[0, BRICK] = max(need[0, BRICK], 1)
        if v.on_board < MAX_COLONISTS:
            need[1] = COLONIST_COST
        return need

    # ------------------------------------------------------------------ reach
    def reachable_targets(self, player: int, steps: int) -> list[int]:
        """Buildable places without an own house that the player's colonists reach in ``steps``."""
        seen = self.game.reachable_places(player, steps) & self.board.buildable & ~self.view(player).houses
        return [int(c) for c in np.flatnonzero(seen)]

    # ------------------------------------------------------------------ houses
    def house_gains(self, player: int) -> np.ndarray:
        """Value (VP) of one more house of the player in each place, before paying for it."""
        v = self.view(player)
        w, e = self.w, self.economy
        goods = self.city_goods.copy()
        goods[goods < 0] = BRICK
        new_province = ~v.provinces[np.maximum(self.board.province, 0)]
        new_kind = v.by_good[goods] == 0
        gain = v.gods[JUPITER] * (goods != BRICK)
        gain = gain + (v.gods[SATURNUS] + e * w.province_future) * new_province
        gain = gain + (MERCURIUS_VP * v.gods[MERCURIUS] + e * w.kind_future) * new_kind
        gain = gain + (np.asarray(v.specialists) * MINERVA_VP_BY_GOOD)[goods]
        gain = gain + e * (w.house_future + w.production * self.remaining * GOOD_PRICE[goods])
        return np.where(self.board.buildable & ~v.houses, gain, 0.0)

    @property
    def houses_in_city(self) -> np.ndarray:
        return self.houses.sum(axis=0)

    def house_costs(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """Money and goods (per place) the next house of the player costs (``Game.house_prices``)."""
        if self._house_prices is None:
            self._house_prices = self.game.house_prices()
        return self._house_prices

    def house_net_values(self, player: int) -> np.ndarray:
        """Value of building in each place minus what the house costs (money and goods, Vesta included)."""
        v = self.view(player)
        money, goods = self.house_costs(player)
        vesta = v.gods[VESTA] / VESTA_SESTERTII_PER_VP
        per_sestertius = self.marginal_money_value(self.wealth(v.money, v.goods)) + vesta
        cost = money * per_sestertius + goods @ (GOOD_PRICE * (per_sestertius + self.economy * self.w.need_premium))
        return np.where(self.board.buildable & ~self.view(player).houses, self.house_gains(player) - cost, -np.inf)

    # ------------------------------------------------------------------ value
    @staticmethod
    def wealth(money: int, goods: np.ndarray) -> int:
        """Money plus the goods at their price (what Vesta counts, and what selling everything gives)."""
        return money + sum(p * q for p, q in zip(_PRICES, goods.tolist(), strict=True))

    def need_value(self, player: int, goods: np.ndarray) -> float:
        """The premium of the goods the player needs soon (VP, before the economy weight).

        Units cover the houses' needs first, then the colonist's; the rest earns nothing.
        """
        for_houses, for_colonist = self.need(player).tolist()
        premium, bonus = self.w.need_premium, self.w.house_need_bonus
        total = 0.0
        for g, held in enumerate(goods.tolist()):
            house_units = min(held, for_houses[g])
            colonist_units = min(held - house_units, for_colonist[g])
            price = _PRICES[g]
            total += house_units * (premium * price + bonus) + colonist_units * premium * price
        return total

    def good_need_values(self, player: int, good: int, held: np.ndarray) -> np.ndarray:
        """The need premium of holding ``held`` units (an array) of one good.

        Units cover the houses' needs first, then the colonist's; the rest earns nothing.
        """
        for_houses, for_colonist = self.need(player)[:, good]
        house_units = np.minimum(held, for_houses)
        colonist_units = np.minimum(held - house_units, for_colonist)
        premium = self.w.need_premium * GOOD_PRICE[good]
        return house_units * (premium + self.w.house_need_bonus) + colonist_units * premium

    def marginal_money_value(self, wealth: int) -> float:
        """What one more sestertius adds to the (concave) value of this much wealth."""
        return self.economy * self.w.money * math.exp(-wealth / self.w.money_scale)

    def economy_value(self, player: int, money: int, goods: np.ndarray) -> float:
        """Money and goods as wealth (concave) plus the premium of needed goods, fading at the end."""
        if self.economy == 0:
            return 0.0
        scale = self.w.money_scale
        wealth = self.w.money * scale * (1.0 - math.exp(-self.wealth(money, goods) / scale))
        return self.economy * (wealth + self.need_value(player, goods))

    def card_score(self, v: PlayerView, wealth: int) -> float:
        """The owned cards scored against the board the player will probably have at the end.

        Today's houses, provinces, kinds of goods and colonists, plus the share of the
        houses and colonists a player still adds over the ``remaining`` part of the game.
        """
        w, r = self.w, self.remaining
        future = min(HOUSES_PER_PLAYER - v.num_houses, r * w.future_houses)
        kinds = v.num_kinds
        extra_colonists = min(MAX_COLONISTS - v.on_board, r * w.future_colonists)
        gods = v.gods
        score = gods[VESTA] * wealth / VESTA_SESTERTII_PER_VP
        score += gods[JUPITER] * min(JUPITER_VP * (v.non_brick_houses + 0.8 * future), JUPITER_CAP)
        provinces = min(v.num_provinces + w.future_province_rate * future, self.board.num_provinces)
        score += gods[SATURNUS] * SATURNUS_VP * provinces
        score += gods[MERCURIUS] * min(
            MERCURIUS_VP * (kinds + min(NUM_GOODS - kinds, w.future_kind_rate * future)), MERCURIUS_CAP
        )
        score += gods[MARS] * min(MARS_VP * (v.on_board + extra_colonists), MARS_CAP)
        # Minerva: a future house is of a given good about one time in five
        share = future * 0.2
        by_good = v.by_good.tolist()
        for g, cards in enumerate(v.specialists):
            if cards:
                score += cards * _MINERVA_VP[g] * (by_good[g] + share)
        return score

    def value(self, player: int) -> float:
        """Estimated final VP of ``player`` (see the module docstring)."""
        v = self.view(player)
        w, e, r = self.w, self.economy, self.remaining
        score = self.card_score(v, self.wealth(v.money, v.goods))
        if self.game.concordia_holder == player:
            score += CONCORDIA_VP
        if e == 0:
            return score
        production = sum(p * n for p, n in zip(_PRICES, v.by_good.tolist(), strict=True))
        board = (
            w.house_future * v.num_houses
            + w.province_future * v.num_provinces
            + w.kind_future * v.num_kinds
            + w.production * r * production
            + w.colonist_mobility * (0.5 + r) * v.on_board
        )
        return score + e * (board - v.discard_cost) + self.economy_value(player, v.money, v.goods)

    def cached_value(self, player: int) -> float:
        """``value(player)``, remembered by everything it depends on (see ``_player_key``)."""
        key = (*self._player_key("value", player), self.game.concordia_holder == player)
        value = self._cache.get(key)
        if value is None:
            value = self._cache[key] = self.value(player)
        return value

    def values(self) -> np.ndarray:
        return np.array([self.cached_value(q) for q in range(self.game.num_players)])

    def utility(self, player: int, opponent_weight: float = 1.0) -> float:
        """The player's value minus the opponents' mean value (what a move should maximise)."""
        n = self.game.num_players
        others = sum(self.cached_value(q) for q in range(n) if q != player) / max(1, n - 1)
        return self.cached_value(player) - opponent_weight * others
