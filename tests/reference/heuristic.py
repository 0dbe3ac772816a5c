"""``heuristic``: a hand-written strategy a decent human player would recognise.

How it plays
------------
*Which card.* For every card it may play, the agent plays the whole turn out on a copy of
the game (``clone()`` + ``step()``) with the rules of thumb below and scores the result
with the position evaluation of :mod:`concordia_env.agents._evaluation`: each player's estimated final
VP (cards scored against the board they will probably have, plus houses, colonists,
money and goods still to use, minus the cards waiting in the discard pile). It plays the
card whose turn leaves it best off relative to the opponents (its value minus their mean
value), then follows the turn it planned. The Diplomat is chosen the same way, for every
card it could copy, and so are the Prefect's province and the Gavdos bonus good.

*What a house is worth.* God scoring with the cards it holds: a house in a non-brick city
counts for every Jupiter card, a new province for every Saturnus card, a new kind of good
for every Mercurius card (2 VP each), a city of a specialist's good for Minerva; plus what
the house will produce and what future cards will make of it; minus its price in money
and goods.

*Architect.* Moves one colonist at a time to the path that makes the most valuable set of
houses affordable now (greedily, best house first, within its money and goods; a
position next to good cities it cannot afford yet is worth a little; shorter moves win
ties), then builds those houses, best first, and stops.

*Prefect.* Tries every province and the cash bonus: production gives it goods (the ones
it needs are worth more) and gives the opponents with houses there goods too, so it
produces where its own houses are and theirs are not, and takes the cash bonus when the
coins are worth more.

*Mercator.* Plans its trades, at most two kinds: sells surplus and buys the goods its
next houses (those within reach of its colonists; bricks above all) and a new colonist
need, as far as money and storehouse space allow, and stops there.

*Senator / Consul.* Buys the cards that raise its evaluation most: gods that score well on
its board (Jupiter with many non-brick houses, Saturnus with many provinces, ...),
specialists of goods it produces, useful actions; it pays the "any" good with the good
it needs least, and buys nothing when nothing is worth its price.

*Tribune.* Worth its turn once the discard pile holds many cards (the hand is nearly
empty) or the money bonus is large; it buys a colonist when that is worth the food and
tool.

*Colonist.* Settles when a colonist is worth its food and tool (Mars cards, another
Architect step), next to the best cities it has not built in yet; otherwise it takes
the tax.

*Storehouse overflow.* Keeps the goods it needs first, then the most valuable ones.

Every answer is checked against the legal actions: a rule of thumb that proposes an
action the engine does not allow is a bug, which raises in strict mode (the tests) and is
otherwise counted and warned about (:meth:`concordia_env.agents.base.Agent.checked`). Every fact of the
rules the agent uses (free storehouse slots, trades left, house prices, reach, production)
comes from ``Game``'s rule queries; the strategy is all that is written here.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from concordia_env import Game
from concordia_env.agents.base import Agent
from concordia_env.engine import actions as A
from concordia_env.engine.cards import GOOD_PRICE, K_DIPLOMAT, MERCATOR_KINDS, NUM_GOODS
from concordia_env.engine.state import (
    PHASE_ARCHITECT_BUILD,
    PHASE_ARCHITECT_MOVE,
    PHASE_BONUS_GOOD,
    PHASE_BUY_CARDS,
    PHASE_COLONIST,
    PHASE_COLONIST_SETTLE,
    PHASE_DIPLOMAT,
    PHASE_GAME_OVER,
    PHASE_MERCATOR,
    PHASE_OVERFLOW,
    PHASE_PLAY_CARD,
    PHASE_PREFECT,
    PHASE_TRIBUNE_COLONIST,
)

from .evaluation import DEFAULT_WEIGHTS, Board, Evaluator, Weights, remaining_fraction

#: a colonist next to a good city it cannot afford yet is worth this share of that city's value
POSITION_WEIGHT = 0.3
#: prefer shorter moves among equally good ones (VP per step)
STEP_COST = 0.05
#: how many of the best unaffordable cities next to the colonists count for the position
POSITION_CITIES = 2
#: a turn plan never has more decisions than this (a safety net for the planning loop)
MAX_TURN_DECISIONS = 64
#: bonus for settling next to a place's best unbuilt cities (VP per unit of their value)
SETTLE_POSITION_WEIGHT = 0.1
#: decisions taken by playing the rest of the turn out for every option
_TURN_LOOKAHEAD_PHASES = (PHASE_PLAY_CARD, PHASE_DIPLOMAT, PHASE_PREFECT, PHASE_BONUS_GOOD)


@dataclass
class TurnPlan:
    """The rest of a turn decided on: the actions, and the state expected before each of them."""

    states: list[np.ndarray]
    actions: list[int]

    def next_action(self, game: Game) -> int | None:
        """The planned action if ``game`` is one of the expected states, else None."""
        for expected, action in zip(self.states, self.actions, strict=True):
            if np.array_equal(expected, game.state):
                return action
        return None


@dataclass
class TurnOption:
    """One way to go on from a decision to the end of the turn, and where it leads."""

    plan: TurnPlan
    #: the position after the plan (usually the next player's turn)
    game: Game
    #: the evaluation's estimated final VP of every player in that position
    values: np.ndarray


class HeuristicAgent(Agent):
    """The rules of thumb described in the module docstring.

    ``opponent_weight`` scales the opponents' mean value in the utility (1: pure relative
    play); ``weights`` are the evaluation's constants (a :class:`Weights`, or a dict of the
    fields to change, handy on a command line); ``strict``: see :class:`concordia_env.agents.base.Agent`.
    """

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        weights: Weights | dict = DEFAULT_WEIGHTS,
        opponent_weight: float = 1.0,
        strict: bool | None = None,
    ) -> None:
        super().__init__(seed, strict)
        self.weights = replace(DEFAULT_WEIGHTS, **weights) if isinstance(weights, dict) else weights
        self.opponent_weight = opponent_weight
        self._plan: TurnPlan | None = None
        #: needs and values shared by the evaluations of one decision (see Evaluator)
        self._cache: dict = {}

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._plan = None

    # ------------------------------------------------------------------ entry point
    def act(self, game: Game) -> int:
        legal = game.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        planned = self._planned_action(game)
        if planned is not None:
            return self.checked(game, planned, legal)
        self._plan = None
        self._cache = {}
        remaining = remaining_fraction(game)
        if game.phase in _TURN_LOOKAHEAD_PHASES:
            action, self._plan = self._choose_card(game, remaining)
        else:
            action = self.decide(game, remaining)
        return self.checked(game, action, legal)

    def _planned_action(self, game: Game) -> int | None:
        """The next action of the planned turn, if the game is where the plan expected."""
        return None if self._plan is None else self._plan.next_action(game)

    # ------------------------------------------------------------------ decisions
    def decide(self, game: Game, remaining: float) -> int:
        """One decision other than choosing the card to play (also used inside lookaheads)."""
        phase = game.phase
        if phase in (PHASE_ARCHITECT_MOVE, PHASE_ARCHITECT_BUILD):
            return self._architect(game, remaining)
        if phase == PHASE_MERCATOR:
            return self._mercator(game, remaining)
        if phase == PHASE_OVERFLOW:
            return self._keep_good(game, remaining)
        if phase in (PHASE_COLONIST, PHASE_COLONIST_SETTLE):
            return self._colonist(game, remaining)
        if phase in _TURN_LOOKAHEAD_PHASES:
            return self._choose_card(game, remaining)[0]
        if phase in (PHASE_TRIBUNE_COLONIST, PHASE_BUY_CARDS):
            return self._best_by_one_step(game, remaining)
        raise ValueError(f"no decision to take in phase {phase}")

    def clear_cache(self) -> None:
        """Forget remembered evaluations (they are keyed by state, so this only frees memory)."""
        self._cache = {}

    def _evaluator(self, game: Game, remaining: float) -> Evaluator:
        return Evaluator(game, remaining, self.weights, self._cache)

    def utility(self, game: Game, player: int, remaining: float) -> float:
        return self._evaluator(game, remaining).utility(player, self.opponent_weight)

    # ------------------------------------------------------------------ turn lookahead
    def _finish_turn(self, sim: Game, turn: int, remaining: float) -> tuple[list[np.ndarray], list[int]]:
        """Play the rest of turn number ``turn`` (if it is still going on) on ``sim`` with the rules of thumb."""
        states: list[np.ndarray] = []
        actions: list[int] = []
        while sim.phase != PHASE_GAME_OVER and sim.turn_count == turn and len(actions) < MAX_TURN_DECISIONS:
            legal = sim.legal_actions()
            a = int(legal[0]) if len(legal) == 1 else self.checked(sim, self.decide(sim, remaining), legal)
            states.append(sim.state.copy())
            actions.append(a)
            sim.step(a)
        return states, actions

    def _lookahead(self, game: Game, actions: list[int], remaining: float) -> tuple[Game, TurnPlan]:
        """Take ``actions`` on a copy of the game and finish the turn with the rules of thumb."""
        sim = game.clone()
        states = []
        for a in actions:
            states.append(sim.state.copy())
            sim.step(a)
        more_states, more_actions = self._finish_turn(sim, game.turn_count, remaining)
        return sim, TurnPlan(states + more_states, list(actions) + more_actions)

    def _choose_card(self, game: Game, remaining: float) -> tuple[int, TurnPlan | None]:
        """The option whose whole turn, played out with the rules of thumb, ends best (and that turn)."""
        player = game.current_player
        best: tuple[float, int, TurnPlan | None] = (-np.inf, -1, None)
        for a in game.legal_actions():
            sim, plan = self._lookahead(game, [int(a)], remaining)
            value = self.utility(sim, player, remaining)
            if value > best[0]:
                best = (value, int(a), plan)
        return best[1], best[2]

    def plan_turn(self, game: Game, start: list[int]) -> TurnPlan:
        """Take the actions ``start``, then finish the turn by the rules of thumb (the plan, not played)."""
        return self._lookahead(game, start, remaining_fraction(game))[1]

    def turn_options(self, game: Game) -> list[TurnOption]:
        """Every legal action of the pending decision, each followed to the end of the turn by the rules of thumb.

        A played Diplomat gives one option per card it may copy. Tree search uses these as
        its moves (one per turn) and their evaluations as first estimates.
        """
        remaining = remaining_fraction(game)
        starts: list[list[int]] = []
        for a in game.legal_actions():
            if a == A.A_PLAY + K_DIPLOMAT and game.phase == PHASE_PLAY_CARD:
                after = game.clone()
                after.step(int(a))
                starts.extend([int(a), int(d)] for d in after.legal_actions())
            else:
                starts.append([int(a)])
        options = []
        for start in starts:
            sim, plan = self._lookahead(game, start, remaining)
            values = self._evaluator(sim, remaining).values()
            options.append(TurnOption(plan, sim, values))
        return options

    def _best_by_one_step(self, game: Game, remaining: float) -> int:
        """The action whose immediate result has the highest utility (cards, colonists)."""
        player = game.current_player
        best, best_value = -1, -np.inf
        for a in game.legal_actions():
            sim = game.clone()
            sim.step(int(a))
            value = self.utility(sim, player, remaining)
            if value > best_value:
                best, best_value = int(a), value
        return best

    # ------------------------------------------------------------------ Architect
    def _architect(self, game: Game, remaining: float) -> int:
        """Move one colonist where the best set of affordable houses opens up, else build, else stop."""
        return self._architect_options(game, remaining)[0][1]

    def _architect_options(self, game: Game, remaining: float) -> list[tuple[float, int]]:
        """Scored Architect options, best first: staying put (build the best house, or stop) and every move.

        A move is worth the houses it makes affordable (greedily, best first, within money and
        goods) plus a share of the good cities next to the colonists that are not affordable
        yet, minus a little per step.
        """
        p = game.current_player
        ev = self._evaluator(game, remaining)
        board = ev.board
        locs = game.colonist_locations(p).tolist()
        adjacent = [board.adjacent_places(loc) for loc in locs]
        houses = _Houses(ev, p, game.money(p), game.goods(p))

        def value_of(places: set[int]) -> tuple[float, list[int]]:
            total, chosen = houses.plan(places)
            rest = sorted((houses.net[c] for c in places if c not in chosen and houses.net[c] > 0), reverse=True)
            return total + POSITION_WEIGHT * sum(rest[:POSITION_CITIES]), chosen

        legal = game.legal_actions()
        value_here, builds = value_of(set().union(*adjacent))
        stay = next((A.A_BUILD + c for c in builds if A.A_BUILD + c in legal), A.A_DONE)
        options = [(value_here, stay)]
        if game.phase == PHASE_ARCHITECT_MOVE:
            for a in legal[(legal >= A.A_MOVE) & (legal < A.A_BUILD)]:
                slot, path = divmod(int(a) - A.A_MOVE, A.MAX_PATHS)
                places = set(board.path_ends[path].tolist())
                for other, adj in enumerate(adjacent):
                    if other != slot:
                        places.update(adj)
                value = value_of(places)[0] - STEP_COST * board.distance(locs[slot], path)
                options.append((value - 1e-9, int(a)))  # staying wins ties
        return sorted(options, key=lambda t: -t[0])

    # ------------------------------------------------------------------ Mercator
    def _mercator(self, game: Game, remaining: float) -> int:
        """The first trade of the best plan of at most two kinds (sell surplus, buy what is needed), or stop."""
        p = game.current_player
        ev = self._evaluator(game, remaining)
        traded = game.traded_goods()
        open_goods = [g for g in range(NUM_GOODS) if g not in traded]
        goods = game.goods(p).astype(np.int64)
        plan = _plan_trades(ev, p, game.money(p), goods, game.free_slots(p), open_goods, game.trades_left)
        legal = game.legal_actions()
        for good, delta in sorted(plan, key=lambda t: t[1]):  # sales first: they pay for the purchases
            a = A.sell(good, -delta) if delta < 0 else A.buy(good, delta)
            if a in legal:
                return a
        return A.A_DONE

    # ------------------------------------------------------------------ storehouse overflow
    def _keep_good(self, game: Game, remaining: float) -> int:
        """Keep the good that adds most to the storehouse's need-based value."""
        p = game.current_player
        ev = self._evaluator(game, remaining)
        goods = game.goods(p).astype(np.int64)
        base = ev.need_value(p, goods)
        best, best_gain = -1, -np.inf
        for a in game.legal_actions():
            g = int(a) - A.A_GOOD
            goods[g] += 1
            gain = ev.need_value(p, goods) - base + GOOD_PRICE[g] * 1e-3  # then the most valuable
            goods[g] -= 1
            if gain > best_gain:
                best, best_gain = int(a), gain
        return best

    # ------------------------------------------------------------------ Colonist
    def _colonist(self, game: Game, remaining: float) -> int:
        """Settle or tax by lookahead; a settled colonist goes next to the best unbuilt cities."""
        return self._colonist_options(game, remaining)[0][1]

    def _colonist_options(self, game: Game, remaining: float) -> list[tuple[float, int]]:
        p = game.current_player
        ev = self._evaluator(game, remaining)
        net = np.where(np.isfinite(ev.house_net_values(p)), ev.house_gains(p), 0.0)
        options = []
        for a in game.legal_actions():
            sim = game.clone()
            sim.step(int(a))
            value = self.utility(sim, p, remaining)
            if A.A_SETTLE <= a < A.A_TAX:
                kind, place = divmod(int(a) - A.A_SETTLE, A.MAX_CITIES)
                value += SETTLE_POSITION_WEIGHT * _place_potential(ev.board, place, kind, net)
            options.append((value, int(a)))
        return sorted(options, key=lambda t: -t[0])


# --------------------------------------------------------------------------- helpers
class _Houses:
    """The houses a player could build, as plain Python lists (planning tries many sets of places)."""

    def __init__(self, ev: Evaluator, player: int, money: int, goods: np.ndarray) -> None:
        net = ev.house_net_values(player)
        self.net = np.where(np.isfinite(net), net, -1.0).tolist()
        price, cost = ev.house_costs(player)
        self.price = price.tolist()
        self.cost = [tuple(row) for row in cost.tolist()]
        self.money = money
        self.goods = goods.tolist()

    def plan(self, places: set[int]) -> tuple[float, list[int]]:
        """Greedy: the best-valued affordable houses among ``places`` (value, cities in build order)."""
        money, goods = self.money, list(self.goods)
        total, chosen = 0.0, []
        for c in sorted(places, key=lambda c: -self.net[c]):
            if not self.net[c] > 0:
                break
            cost = self.cost[c]
            if self.price[c] <= money and all(h >= k for h, k in zip(goods, cost, strict=True)):
                money -= self.price[c]
                goods = [h - k for h, k in zip(goods, cost, strict=True)]
                total += self.net[c]
                chosen.append(c)
        return total, chosen


def _place_potential(board: Board, place: int, kind: int, value: np.ndarray) -> float:
    """Value of the best unbuilt cities one path away from ``place`` by paths of this kind."""
    paths = board.place_paths[place]
    paths = paths[board.path_kind[paths] == kind]
    near = {int(c) for c in board.path_ends[paths].ravel()} - {place}
    best = sorted((value[c] for c in near if value[c] > 0), reverse=True)
    return float(sum(best[:POSITION_CITIES]))


def _plan_trades(
    ev: Evaluator, player: int, money: int, goods: np.ndarray, free: int, open_goods: list[int], kinds: int
) -> list[tuple[int, int]]:
    """The best Mercator trades as (good, +bought / -sold), at most ``kinds`` goods.

    Trades at the fixed price keep the player's wealth, so what a trade gains is the need
    premium of :class:`Evaluator`: the plan turns money and surplus into the goods the
    next houses (bricks first) and colonist need, and stops there. Every pair of goods and quantities is
    scored at once with numpy (at most 25 x 25 per pair of goods).
    """
    if kinds <= 0 or not open_goods:
        return []
    deltas, gains, moneys = {}, {}, {}
    for g in open_goods:
        d = np.arange(-min(int(goods[g]), A.MAX_TRADE), A.MAX_TRADE + 1)
        values = ev.good_need_values(player, g, goods[g] + d)
        deltas[g] = d
        gains[g] = values - values[d == 0][0]
        moneys[g] = -d * int(GOOD_PRICE[g])

    def score(gain: np.ndarray, dmoney: np.ndarray, dslots: np.ndarray) -> np.ndarray:
        # a tiny preference for fewer units moved breaks ties towards keeping things as they are
        value = gain - 1e-3 * np.abs(dslots)
        return np.where((money + dmoney >= 0) & (dslots <= free), value, -np.inf)

    best_gain, best_plan = 1e-6, []
    for g in open_goods:
        values = score(gains[g], moneys[g], deltas[g])
        i = int(np.argmax(values))
        if values[i] > best_gain:
            best_gain, best_plan = float(values[i]), [(g, int(deltas[g][i]))]
    if kinds >= MERCATOR_KINDS:
        for i1, g1 in enumerate(open_goods):
            for g2 in open_goods[i1 + 1 :]:
                values = score(
                    gains[g1][:, None] + gains[g2][None, :],
                    moneys[g1][:, None] + moneys[g2][None, :],
                    deltas[g1][:, None] + deltas[g2][None, :],
                )
                i, j = np.unravel_index(int(np.argmax(values)), values.shape)
                if values[i, j] > best_gain:
                    plan = [(g1, int(deltas[g1][i])), (g2, int(deltas[g2][j]))]
                    best_gain, best_plan = float(values[i, j]), [t for t in plan if t[1] != 0]
    return best_plan


__all__ = ["HeuristicAgent"]
