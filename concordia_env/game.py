"""``Game``: one Concordia game, a thin object around one state array.

All rules live in :mod:`concordia_env.rules` as functions of the array; this class holds
the array and the map, forwards to the compiled functions, and translates their status
codes into Python errors. ``clone()`` is an array copy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import actions as A
from .cards import (
    CARD_COST,
    CARD_KIND,
    DISPLAY_SLOTS,
    DISPLAY_VARIANTS,
    GODS,
    NUM_CARD_TYPES,
    NUM_GOODS,
    NUM_KINDS,
    SLOT_ANY_COST,
    SLOT_FIXED_COST,
)
from .describe import describe, explain_illegal
from .errors import ArgumentTypeError, IllegalActionError, integer_argument, short_repr
from .maps import Map, load
from .rules import engine
from .rules.legal import fill_legal
from .rules.scoring import CONCORDIA_PART, NUM_SCORE_PARTS, SPECIAL_PART, score_parts
from .rules.setup import new_state
from .state import (
    ACTION_KIND,
    BONUS_COIN_SIDE,
    BONUS_GOOD,
    BUYS_LEFT,
    CITY_GOOD,
    CONCORDIA_HOLDER,
    CURRENT_PLAYER,
    DECISION_COUNT,
    DISPLAY,
    FINAL_TURNS_LEFT,
    HOUSES,
    INCOMING,
    MAX_CITIES,
    NILE_MARKER,
    NUM_PLAYERS,
    OPT_DISPLAY_COSTS,
    P_COLONISTS,
    P_DISCARD,
    P_DISCARD_TOP,
    P_GOODS,
    P_HAND,
    P_MONEY,
    PHASE,
    PHASE_GAME_OVER,
    PHASE_NAMES,
    PLAYED_KIND,
    PRAEFECTUS_MAGNUS,
    STACK_SIZE,
    STEPS_LEFT,
    TRADED_GOODS,
    TURN_COUNT,
    TURN_PLAYER,
    player_base,
)
from .state_check import as_state_array, check_state

NUM_ACTIONS = A.NUM_ACTIONS
#: keys of score_breakdown besides the gods
SCORE_KEYS: tuple[str, ...] = (*GODS, "special_squares", "concordia")


class Game:
    """One game of Concordia.

    Create with :meth:`Game.new` (or :meth:`Game.from_json`). Every decision is one
    action index in ``0..NUM_ACTIONS-1``; :meth:`legal_mask` says which are allowed for
    :attr:`current_player`, :meth:`step` applies one.

    ``Game(state, map)`` wraps a raw state array (int32, length ``STATE_SIZE``; an int32
    array is shared, anything else copied). Because the compiled rules do not
    bounds-check, the array is checked first (:func:`~concordia_env.state_check.check_state`):
    every index-like field in its range and every counter within its bound, else
    ``ValueError`` naming the field (``ArgumentTypeError`` for an array that is not of
    integers). It does not check that a game can reach the position: load positions
    with :meth:`from_json` for that.

    Every method refuses bad arguments before they reach compiled code: a player or slot
    index of the wrong type raises :class:`~concordia_env.errors.ArgumentTypeError` (a
    ``TypeError`` and a ``ValueError``), one out of range ``ValueError``, and any action
    :meth:`step` cannot take ``IllegalActionError``; the state is then unchanged.
    """

    __slots__ = ("_mask", "map", "state")

    def __init__(self, state: np.ndarray, map: Map | str) -> None:
        m = _map_of(map)
        state = as_state_array(state)
        check_state(state, m)
        self.map = m
        self.state = state
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)

    @classmethod
    def _wrap(cls, state: np.ndarray, m: Map) -> Game:
        """A game around a state the engine produced (a copy, a batch row): no check needed."""
        game = cls.__new__(cls)
        game.map = m
        game.state = state
        game._mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        return game

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(
        cls,
        map: str = "imperium",
        num_players: int = 4,
        seed: int | None = 0,
        *,
        intermediate_scoring: bool = False,
        display_costs: str = "standard",
        start_player: int | None = None,
    ) -> Game:
        """A new game after setup (RULES §2).

        ``seed`` (``None`` or an integer >= 0) fixes the city tokens, the stack and the
        start player; ``intermediate_scoring`` (a bool) turns on RULES §8;
        ``display_costs`` picks the ``"standard"`` or ``"alternative"`` display slot costs;
        ``start_player`` (``None`` or a seat) fixes the start player instead of drawing it.

        Options are typed strictly: a string is not a bool and a float is not a count
        (``ArgumentTypeError``, both a ``TypeError`` and a ``ValueError``); numpy integers
        and bools are accepted. A value the rules do not allow (a map/player-count
        combination, a start player beyond the seats) raises ``ValueError``.
        """
        m = _map_of(map)
        n = integer_argument(num_players, "num_players")
        if seed is not None and integer_argument(seed, "seed") < 0:
            raise ValueError(f"seed must be None or an integer >= 0, got {seed}")
        if not isinstance(intermediate_scoring, (bool, np.bool_)):
            shown = short_repr(intermediate_scoring)
            raise ArgumentTypeError(f"intermediate_scoring must be True or False, got {shown}")
        if not isinstance(display_costs, str) or display_costs not in DISPLAY_VARIANTS:
            error = ValueError if isinstance(display_costs, str) else ArgumentTypeError
            raise error(f"display_costs must be one of {', '.join(DISPLAY_VARIANTS)}, got {short_repr(display_costs)}")
        start = None if start_player is None else integer_argument(start_player, "start_player")
        seed = None if seed is None else int(seed)
        state = new_state(m, n, seed, bool(intermediate_scoring), display_costs, start)
        return cls._wrap(state, m)

    def clone(self) -> Game:
        return Game._wrap(self.state.copy(), self.map)

    # ------------------------------------------------------------------ decisions
    @property
    def num_players(self) -> int:
        return int(self.state[NUM_PLAYERS])

    @property
    def current_player(self) -> int:
        """Who takes the pending decision (-1 once the game is over).

        Usually the player whose turn it is; when produced goods overflow another
        player's storehouse, that player chooses what to keep.
        """
        return int(self.state[CURRENT_PLAYER])

    @property
    def turn_player(self) -> int:
        return int(self.state[TURN_PLAYER])

    @property
    def phase(self) -> int:
        """The pending decision as a ``state.PHASE_*`` number."""
        return int(self.state[PHASE])

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    @property
    def turn_count(self) -> int:
        return int(self.state[TURN_COUNT])

    @property
    def decision_count(self) -> int:
        return int(self.state[DECISION_COUNT])

    def legal_mask(self) -> np.ndarray:
        """Bool array of length NUM_ACTIONS: which actions are legal now (all False when over)."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        if not self.is_over():
            fill_legal(self.state, self.map.tables, mask)
        return mask

    def legal_actions(self) -> np.ndarray:
        return np.flatnonzero(self.legal_mask())

    def step(self, action: int) -> None:
        """Apply one action; an illegal one raises IllegalActionError and changes nothing.

        Any value that is not a legal action index raises ``IllegalActionError``, whatever
        its type: a float, a bool, ``None``, an array of several values, an integer beyond
        int64. Only a Python int in ``0..NUM_ACTIONS-1`` reaches the compiled rules, so an
        unusual type never compiles a new version of them.
        """
        a = action_index(action)
        code = engine.step(self.state, self.map.tables, a, self._mask)
        if code != engine.STEP_OK:
            reason = explain_illegal(self.state, self.map, a)
            raise IllegalActionError(a, reason, describe(self.state, self.map, a))

    def describe_action(self, action: int) -> str:
        """The action in words, for this position (e.g. "Architect: build a house in Massilia ...")."""
        a = integer_argument(action, "action")
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action must be in 0..{NUM_ACTIONS - 1}, got {short_repr(a)}")
        return describe(self.state, self.map, a)

    # ------------------------------------------------------------------ end and scores
    def is_over(self) -> bool:
        return int(self.state[PHASE]) == PHASE_GAME_OVER

    def score_breakdown(self, player: int) -> dict[str, int]:
        """VP per god plus ``special_squares``, ``concordia`` and ``total``, as if the game ended now."""
        p = self._check_player(player)
        parts = np.zeros(NUM_SCORE_PARTS, dtype=np.int32)
        score_parts(self.state, self.map.tables, p, parts, True)
        out = {god: int(parts[g]) for g, god in enumerate(GODS)}
        if self.map.special_squares:
            out["special_squares"] = int(parts[SPECIAL_PART])
        out["concordia"] = int(parts[CONCORDIA_PART])
        out["total"] = int(parts.sum())
        return out

    def scores(self) -> np.ndarray:
        """Total VP per player as if the game ended now."""
        return np.array([self.score_breakdown(p)["total"] for p in range(self.num_players)], dtype=np.int64)

    def final_scores(self) -> np.ndarray:
        """VP per player; only once the game is over."""
        if not self.is_over():
            raise RuntimeError("final_scores() is only defined once the game is over; see score_breakdown()")
        return self.scores()

    def tie_break_order(self) -> list[int]:
        """Players in the order they win ties: the Praefectus Magnus holder, then passing right."""
        pm, n = int(self.state[PRAEFECTUS_MAGNUS]), self.num_players
        return [(pm - k) % n for k in range(n)]

    def ranking(self) -> list[int]:
        """Players from first to last place (most VP first, ties broken by RULES §7)."""
        scores = self.scores()
        priority = {p: k for k, p in enumerate(self.tie_break_order())}
        return sorted(range(self.num_players), key=lambda p: (-scores[p], priority[p]))

    def winner(self) -> int:
        """The winner (RULES §7 tie-break); only once the game is over."""
        if not self.is_over():
            raise RuntimeError("winner() is only defined once the game is over")
        return self.ranking()[0]

    # ------------------------------------------------------------------ public view
    def money(self, player: int) -> int:
        return int(self.state[player_base(self._check_player(player)) + P_MONEY])

    def goods(self, player: int) -> np.ndarray:
        b = player_base(self._check_player(player)) + P_GOODS
        return self.state[b : b + NUM_GOODS].copy()

    def colonist_locations(self, player: int) -> np.ndarray:
        """Six location codes (land slots 0-2, sea 3-5); see :mod:`concordia_env.state`."""
        b = player_base(self._check_player(player)) + P_COLONISTS
        return self.state[b : b + 6].copy()

    def hand(self, player: int) -> np.ndarray:
        """Card counts per card type in the player's hand."""
        b = player_base(self._check_player(player)) + P_HAND
        return self.state[b : b + NUM_CARD_TYPES].copy()

    def discard(self, player: int) -> np.ndarray:
        b = player_base(self._check_player(player)) + P_DISCARD
        return self.state[b : b + NUM_CARD_TYPES].copy()

    def discard_top(self, player: int) -> int:
        return int(self.state[player_base(self._check_player(player)) + P_DISCARD_TOP])

    def hand_kinds(self, player: int) -> np.ndarray:
        """Number of cards per card kind in hand."""
        counts = np.zeros(NUM_KINDS, dtype=np.int64)
        np.add.at(counts, CARD_KIND, self.hand(player))
        return counts

    def houses(self) -> np.ndarray:
        """Bool array [player, place]: who has a house where."""
        n = self.num_players
        return self.state[HOUSES : HOUSES + n * MAX_CITIES].reshape(n, MAX_CITIES)[:, : len(self.map.places)] == 1

    def city_goods(self) -> np.ndarray:
        """Good index of each place's city token (-1 for the capital and special squares)."""
        return self.state[CITY_GOOD : CITY_GOOD + len(self.map.places)].copy()

    def display(self) -> np.ndarray:
        """Card type in each display slot (-1 empty)."""
        return self.state[DISPLAY : DISPLAY + 7].copy()

    def bonus_markers(self) -> list[tuple[int, bool]]:
        """(good, coin side up) of each province's bonus marker; good -1 when there is none (Gavdos)."""
        s = self.state
        return [(int(s[BONUS_GOOD + v]), bool(s[BONUS_COIN_SIDE + v])) for v in range(len(self.map.provinces))]

    @property
    def stack_size(self) -> int:
        """Cards left in the face-down stack (their order is hidden; see observation)."""
        return int(self.state[STACK_SIZE])

    def display_price(self, slot: int) -> tuple[np.ndarray, int]:
        """A Senator's price of the card in ``slot``: (goods: own cost + slot's named goods, 'any' units)."""
        slot = integer_argument(slot, "slot")
        if not 0 <= slot < DISPLAY_SLOTS:
            raise ValueError(f"slot must be in 0..{DISPLAY_SLOTS - 1} (the leftmost is 0), got {slot}")
        card = int(self.state[DISPLAY + slot])
        if card < 0:
            raise ValueError(f"display slot {slot + 1} is empty")
        variant = self.display_costs_variant
        return CARD_COST[card] + SLOT_FIXED_COST[variant, slot], int(SLOT_ANY_COST[variant, slot])

    @property
    def display_costs_variant(self) -> int:
        """0 for the standard display slot costs, 1 for the alternative ones."""
        return int(self.state[OPT_DISPLAY_COSTS])

    @property
    def nile_marker(self) -> int | None:
        """Province holding the Nile food marker (Aegyptus), None elsewhere."""
        v = int(self.state[NILE_MARKER])
        return v if v >= 0 else None

    # ------------------------------------------------------------------ pending decision context
    @property
    def played_kind(self) -> int:
        """Kind of the card played this turn (cards.K_*), -1 before one is played."""
        return int(self.state[PLAYED_KIND])

    @property
    def action_kind(self) -> int:
        """Kind whose action is carried out (the copied one after a Diplomat), -1."""
        return int(self.state[ACTION_KIND])

    @property
    def steps_left(self) -> int:
        """Architect movement steps not yet used."""
        return int(self.state[STEPS_LEFT])

    def traded_goods(self) -> list[int]:
        """Goods already sold or bought in the pending Mercator action."""
        bits = int(self.state[TRADED_GOODS])
        return [g for g in range(NUM_GOODS) if bits >> g & 1]

    @property
    def buys_left(self) -> int:
        """Cards the pending Senator/Consul may still buy."""
        return int(self.state[BUYS_LEFT])

    def incoming_goods(self, player: int) -> np.ndarray:
        """Goods produced for ``player`` that wait for a storehouse-overflow choice."""
        b = INCOMING + self._check_player(player) * NUM_GOODS
        return self.state[b : b + NUM_GOODS].copy()

    @property
    def final_turns_left(self) -> int | None:
        """Turn ends left before the final scoring once the end is triggered, else None."""
        left = int(self.state[FINAL_TURNS_LEFT])
        return left if left >= 0 else None

    @property
    def praefectus_magnus(self) -> int:
        return int(self.state[PRAEFECTUS_MAGNUS])

    @property
    def concordia_holder(self) -> int | None:
        holder = int(self.state[CONCORDIA_HOLDER])
        return holder if holder >= 0 else None

    # ------------------------------------------------------------------ serialisation
    def to_json(self, indent: int | None = 1) -> str:
        from .position import to_json

        return to_json(self, indent=indent)

    def to_dict(self) -> dict[str, Any]:
        from .position import to_dict

        return to_dict(self)

    @classmethod
    def from_json(cls, text: str) -> Game:
        from .position import from_json

        return from_json(text)

    def observation(self, player: int) -> np.ndarray:
        """Flat float32 vector from ``player``'s point of view (see :mod:`concordia_env.observation`)."""
        from .observation import observe

        return observe(self, self._check_player(player))

    # ------------------------------------------------------------------ misc
    def _check_player(self, player: int) -> int:
        """``player`` as a Python int seat; ArgumentTypeError or ValueError if it is not one."""
        p = integer_argument(player, "player")
        if not 0 <= p < self.num_players:
            raise ValueError(f"player must be in 0..{self.num_players - 1}, got {short_repr(p)}")
        return p

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Game) and other.map.name == self.map.name and np.array_equal(self.state, other.state)

    def __hash__(self) -> int:
        return hash((self.map.name, self.state.tobytes()))

    def __repr__(self) -> str:
        status = "over" if self.is_over() else f"player {self.current_player}: {self.phase_name}"
        return f"Game({self.map.name}, {self.num_players} players, turn {self.turn_count}, {status})"


def _map_of(map: Map | str) -> Map:
    """A map object from a map or its name."""
    if isinstance(map, Map):
        return map
    if not isinstance(map, str):
        raise ArgumentTypeError(f"map must be a map name or a Map, got {short_repr(map)}")
    return load(map)


def action_index(action: Any) -> int:
    """``action`` as a Python int in ``0..NUM_ACTIONS-1``, or ``IllegalActionError`` for any other value.

    Python and numpy integers and 0-d integer arrays (what policies return) are accepted.
    A float, a bool, ``None``, a string, an array of several values is refused with
    ``action == -1``; an integer outside the action space with itself as ``action`` (or
    -1 beyond int64, which no index can be). :meth:`Game.step` and the environments run
    this before the engine sees the value, so nothing can overflow or reach compiled
    code in an unexpected type.
    """
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        shown = f"{type(action).__name__} {short_repr(action)}"
        raise IllegalActionError(-1, f"an action is an integer index in 0..{NUM_ACTIONS - 1}, got {shown}")
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        outside = f"outside the action space 0..{NUM_ACTIONS - 1}"
        if -(2**63) <= a < 2**63:
            raise IllegalActionError(a, outside)
        raise IllegalActionError(-1, f"{short_repr(a)}, {outside}")
    return a
