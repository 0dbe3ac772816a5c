"""``Game``: one Concordia game, a thin object around one state array.

All rules live in :mod:`concordia_env.engine.rules` as functions of the array; this class holds
the array and the map, forwards to the compiled functions, and translates their status
codes into Python errors. ``clone()`` is an array copy.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numba import types

from . import actions as A
from . import defaults
from .cards import (
    CARD_KIND,
    COLONISTS_PER_PLAYER,
    DISPLAY_SLOTS,
    DISPLAY_VARIANTS,
    GODS,
    K_CONSUL,
    K_SENATOR,
    NUM_CARD_TYPES,
    NUM_GOODS,
    NUM_KINDS,
    NUM_SALE_CARDS,
)
from .describe import describe, explain_illegal
from .errors import ArgumentTypeError, IllegalActionError, integer_argument, seat_argument, short_repr
from .maps import Map, load
from .observation import OBS_SIZES, OBSERVATION_VERSION, check_observation_version, fill_observation_unless_busy
from .position_codec import parse_position, position_text, read_position, write_position
from .rules import entry_points, facts
from .rules.entry_points import (
    BUSY_LEGAL_LENGTH,
    CACHE_BUSY,
    CACHE_MASK,
    STEP_OK,
    legal_into_cache,
    new_cache,
    play_plan,
)
from .rules.hidden import shuffle_hidden_stack
from .rules.scoring import CONCORDIA_PART, NUM_SCORE_PARTS, SPECIAL_PART, ranking, score_parts, score_totals
from .rules.setup import new_state
from .serial import serialized
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
    MAX_PLAYERS,
    NILE_MARKER,
    NUM_PLAYERS,
    OPT_DISPLAY_COSTS,
    P_COLONISTS,
    P_DISCARD,
    P_DISCARD_TOP,
    P_GOODS,
    P_HAND,
    P_MONEY,
    PATH_LOC_BASE,
    PHASE,
    PHASE_GAME_OVER,
    PHASE_NAMES,
    PLAYED_KIND,
    PRAEFECTUS_MAGNUS,
    STACK,
    STACK_SIZE,
    STEPS_LEFT,
    TRADED_GOODS,
    TURN_COUNT,
    TURN_PLAYER,
    player_base,
)
from .state_check import as_state_array, check_state, read_only_view

NUM_ACTIONS = A.NUM_ACTIONS
#: keys of score_breakdown besides the gods
SCORE_KEYS: tuple[str, ...] = (*GODS, "special_squares", "concordia")


@serialized
class Game:
    """One game of Concordia.

    Create with :meth:`Game.new` (or :meth:`Game.from_json`). Every decision is one
    action index in ``0..NUM_ACTIONS-1``; :meth:`legal_mask` says which are allowed for
    :attr:`current_player`, :meth:`step` applies one.

    Every method refuses bad arguments before they reach compiled code: a player or slot
    index of the wrong type raises :class:`~concordia_env.engine.errors.ArgumentTypeError` (a
    ``TypeError`` and a ``ValueError``), one out of range ``ValueError``, and any action
    :meth:`step` cannot take ``IllegalActionError``; the state is then unchanged.

    Who owns the state
    ------------------
    A game owns its state array, and only the compiled rules write it: numba does not
    bounds-check, so a Python write of a wrong value (``CURRENT_PLAYER = 10**8``) would
    make them read or write outside the arrays (a segmentation fault), and a value that
    stays inside them (a seat 7 in a 2-player game) would give wrong answers silently.

    * :attr:`state` is a **read-only view** of that array: reading, copying and
      ``np.array_equal`` work as on any array; a write raises numpy's ``ValueError``
      ("assignment destination is read-only"), and so does setting
      ``state.flags.writeable = True`` (the view is of a read-only buffer). :attr:`state`
      and :attr:`map` cannot be reassigned (``AttributeError``).
    * ``Game(state, map)`` builds a game from a raw state array (int32, length
      ``STATE_SIZE``; any integer array-like): it **copies** the array, so the caller
      keeps no handle on the game's own, and checks the copy
      (:func:`~concordia_env.engine.state_check.check_state`): every index-like field in
      its range and every counter within its bound, else ``ValueError`` naming the field
      (``ArgumentTypeError`` for an array that is not of integers). It does not check that
      a game can reach the position: load positions with :meth:`from_json` for that.
    * To edit a position, edit a copy and build a game from it::

          edited = game.state.copy()
          edited[state.PLAYERS + state.P_MONEY] = 30   # player 0's money
          game = Game(edited, game.map)                # checked; refused with ValueError if out of range

    * Unpickling and ``copy.deepcopy`` check the state the same way; :meth:`clone` copies
      it (a state the engine produced needs no check).

    One game may be shared by threads: calls from several threads run one after another, as if
    one thread had made them all (:mod:`concordia_env.engine.serial`: the per-decision calls are
    single compiled calls that keep the GIL, every other public method holds the game's lock).
    A step that another thread's step made illegal is refused (``IllegalActionError``).

    The package's code outside the engine never touches the game's own array (``tests/test_layering.py``
    keeps it so): what it needs is a method here that checks its input first, such as
    :meth:`play_plan` (a turn plan of the strategy core), :meth:`observation` with ``out``
    (an environment's own buffer) and :meth:`lay_out_cards` (the OpenSpiel bridge's chance
    draws).
    """

    # The legal mask of the pending decision is computed once per position: ``_mask`` holds
    # it for the state kept beside it (``rules.entry_points.cached_legal``). ``step`` leaves both
    # describing the position it reaches (the engine computes that mask anyway), so a
    # decision's mask is neither recomputed for the legality check nor for ``legal_mask()``.
    # The flag is the state itself, compared in compiled code, not a boolean: a state
    # written in place by the package's compiled code is never given a stale mask.
    # Mask, state, indices and the count of locked calls under way live in one buffer, ``_cache``
    # (``rules.entry_points.new_cache``), which the compiled calls take; ``_mask`` and ``_busy``
    # are numpy views of two of its parts.
    # ``_tables`` is ``_map.tables``, kept at hand for the calls made on every decision.
    __slots__ = ("_busy", "_cache", "_lock", "_map", "_mask", "_state", "_tables", "_view")
    #: the per-decision calls are lock-free compiled calls, and is_over reads one value (engine.serial)
    LOCK_FREE = ("legal_mask", "legal_actions", "step", "is_over", "observation")

    def __init__(self, state: np.ndarray, map: Map | str) -> None:
        m = _map_of(map)
        own = as_state_array(state)  # a new array: the caller keeps no handle on it
        check_state(own, m)
        self._set(own, m)

    @classmethod
    def _wrap(cls, state: np.ndarray, m: Map) -> Game:
        """A game around a state the engine produced (a copy, a batch row): no check needed."""
        game = cls.__new__(cls)
        game._set(state, m)
        return game

    def _set(self, state: np.ndarray, m: Map) -> None:
        self._lock = threading.RLock()  # one locked call at a time (engine.serial): the compiled rules release the GIL
        self._map = m
        self._tables = m.tables
        self._state = state
        self._view: np.ndarray | None = None  # the read-only view, made on first use of .state
        self._cache = cache = new_cache()
        self._mask = cache[CACHE_MASK : CACHE_MASK + NUM_ACTIONS].view(np.bool_)
        self._busy = cache[CACHE_BUSY : CACHE_BUSY + 8].view(np.int64)  # locked calls under way (engine.serial)

    @property
    def state(self) -> np.ndarray:
        """The state array (int32, length ``STATE_SIZE``), read-only: see "Who owns the state"."""
        view = self._view
        if view is None:
            view = self._view = read_only_view(self._state)
        return view

    @property
    def map(self) -> Map:
        """The map this game is played on (fixed: the compiled rules index the state with its tables)."""
        return self._map

    def __getstate__(self) -> dict[str, Any]:
        return {"map": self._map.name, "state": self._state}

    def __setstate__(self, saved: dict[str, Any]) -> None:
        """A pickled game is data from outside: checked like ``Game(state, map)``."""
        m = _map_of(saved["map"])
        own = as_state_array(saved["state"])
        check_state(own, m)
        self._set(own, m)

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(
        cls,
        map: str = defaults.MAP,
        num_players: int = defaults.NUM_PLAYERS,
        seed: int | None = defaults.ENGINE_SEED,
        *,
        intermediate_scoring: bool = False,
        display_costs: str = "standard",
        start_player: int | None = None,
    ) -> Game:
        """A new game after setup (docs/rules.md §2).

        ``seed`` (``None`` or an integer >= 0) fixes the city tokens, the stack and the
        start player (0 unless told: the same position every time; the defaults of every
        form are in :mod:`concordia_env.engine.defaults`); ``intermediate_scoring`` (a bool) turns on docs/rules.md §8;
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
        return Game._wrap(self._state.copy(), self._map)

    # ------------------------------------------------------------------ decisions
    @property
    def num_players(self) -> int:
        return int(self._state[NUM_PLAYERS])

    @property
    def current_player(self) -> int:
        """Who takes the pending decision (-1 once the game is over).

        Usually the player whose turn it is; when produced goods overflow another
        player's storehouse, that player chooses what to keep.
        """
        return int(self._state[CURRENT_PLAYER])

    @property
    def turn_player(self) -> int:
        return int(self._state[TURN_PLAYER])

    @property
    def phase(self) -> int:
        """The pending decision as a ``state.PHASE_*`` number."""
        return int(self._state[PHASE])

    @property
    def phase_name(self) -> str:
        return PHASE_NAMES[self.phase]

    @property
    def turn_count(self) -> int:
        return int(self._state[TURN_COUNT])

    @property
    def decision_count(self) -> int:
        return int(self._state[DECISION_COUNT])

    def legal_mask(self) -> np.ndarray:
        """Bool array of length NUM_ACTIONS: which actions are legal now (all False when over).

        A fresh array the caller owns (a copy of the game's cached mask: changing it changes
        nothing in the game, and it does not change when the game moves on).
        """
        mask = _legal_mask_unless_busy(self._state, self._tables, self._cache, 0)  # engine.serial: lock-free
        if len(mask) == 0:  # another thread's locked call is under way
            with self._lock:
                mask = _legal_mask_unless_busy(self._state, self._tables, self._cache, int(self._busy[0]))
        return mask

    def legal_actions(self) -> np.ndarray:
        """The legal action indices, ascending (a fresh int64 array; empty when the game is over)."""
        legal = _legal_actions_unless_busy(self._state, self._tables, self._cache, 0)  # engine.serial: lock-free
        if len(legal) == BUSY_LEGAL_LENGTH:  # another thread's locked call is under way
            with self._lock:
                legal = _legal_actions_unless_busy(self._state, self._tables, self._cache, int(self._busy[0]))
        return legal

    def step(self, action: int) -> None:
        """Apply one action; an illegal one raises IllegalActionError and changes nothing.

        Any value that is not a legal action index raises ``IllegalActionError``, whatever
        its type: a float, a bool, ``None``, an array of several values, an integer beyond
        int64. Only a Python int in ``0..NUM_ACTIONS-1`` reaches the compiled rules, so an
        unusual type never compiles a new version of them.
        """
        a = action_index(action)
        code = _step_unless_busy(self._state, self._tables, a, self._cache, 0)  # engine.serial: lock-free
        if code != STEP_OK:
            self._step_refused(a, code)

    def _step_refused(self, a: int, code: int) -> None:
        """:meth:`step`'s slow path: another thread's locked call was under way, or ``a`` was illegal.

        Under the lock, counted as a locked call (the explanation reads the state: no
        lock-free step of another thread meanwhile), the step is tried once more: the
        refused try changed nothing, and another thread may have moved the game on since,
        to a position where ``a`` is legal. Refused again, it is explained in that position.
        """
        with self._lock:
            self._busy[0] += 1
            try:
                code = _step_unless_busy(self._state, self._tables, a, self._cache, int(self._busy[0]))
                if code != STEP_OK:
                    reason = explain_illegal(self._state, self._map, a)
                    raise IllegalActionError(a, reason, describe(self._state, self._map, a))
            finally:
                self._busy[0] -= 1

    def play_plan(self, actions: Sequence[int] | np.ndarray) -> int:
        """Play ``actions`` in order while each is legal and the mover's own; returns how many were played.

        A turn plan of the strategy core (a row of ``TurnOptions.plans``, what
        ``strategy.plan_turn`` returns) names one player's decisions to the end of the turn.
        The game may stop it sooner: the turn ends, another player chooses what to keep of
        an overflowing storehouse, the game ends, or an action is no longer legal. The rest
        is left unplayed, in one compiled call (no Python round trip per decision).

        ``actions`` is a 1-D sequence or array of action indices (``ArgumentTypeError`` for
        anything but integers, ``ValueError`` for an index outside ``0..NUM_ACTIONS-1``).
        The first one must be legal now: otherwise ``IllegalActionError``, as :meth:`step`,
        and nothing changes. An empty plan plays nothing.
        """
        plan = _action_array(actions)
        if len(plan) == 0:
            return 0
        legal_into_cache(self._state, self._tables, self._cache)
        mask = self._mask.copy()  # the compiled loop leaves the reached position's mask in it
        first = int(plan[0])
        if not mask[first]:
            raise IllegalActionError(
                first, explain_illegal(self._state, self._map, first), describe(self._state, self._map, first)
            )
        return int(play_plan(self._state, self._tables, int(self._state[CURRENT_PLAYER]), plan, len(plan), mask))

    def describe_action(self, action: int) -> str:
        """The action in words, for this position (e.g. "Architect: build a house in Massilia ...")."""
        a = integer_argument(action, "action")
        if not 0 <= a < NUM_ACTIONS:
            raise ValueError(f"action {short_repr(a)} is outside the action space 0..{NUM_ACTIONS - 1}")
        return describe(self._state, self._map, a)

    # ------------------------------------------------------------------ end and scores
    def is_over(self) -> bool:
        return int(self._state[PHASE]) == PHASE_GAME_OVER

    def score_breakdown(self, player: int) -> dict[str, int]:
        """VP per god plus ``special_squares``, ``concordia`` and ``total``, as if the game ended now."""
        p = self._check_player(player)
        parts = np.zeros(NUM_SCORE_PARTS, dtype=np.int32)
        score_parts(self._state, self._map.tables, p, parts, True)
        out = {god: int(parts[g]) for g, god in enumerate(GODS)}
        if self._map.special_squares:
            out["special_squares"] = int(parts[SPECIAL_PART])
        out["concordia"] = int(parts[CONCORDIA_PART])
        out["total"] = int(parts.sum())
        return out

    def scores(self) -> np.ndarray:
        """Total VP per player as if the game ended now (``rules.scoring.score_totals``)."""
        out = np.zeros(self.num_players, dtype=np.int64)
        score_totals(self._state, self._map.tables, out)
        return out

    def final_scores(self) -> np.ndarray:
        """VP per player; only once the game is over."""
        if not self.is_over():
            raise RuntimeError("final_scores() is only defined once the game is over; see score_breakdown()")
        return self.scores()

    def tie_break_order(self) -> list[int]:
        """Players in the order they win ties: the Praefectus Magnus holder, then passing right."""
        pm, n = int(self._state[PRAEFECTUS_MAGNUS]), self.num_players
        return [(pm - k) % n for k in range(n)]

    def ranking(self) -> list[int]:
        """Players from first to last place: most VP first, ties by docs/rules.md §7 (``rules.scoring.ranking``)."""
        out = np.zeros(self.num_players, dtype=np.int64)
        ranking(self._state, self.map.tables, out)
        return [int(p) for p in out]

    def winner(self) -> int:
        """The winner (docs/rules.md §7 tie-break); only once the game is over."""
        if not self.is_over():
            raise RuntimeError("winner() is only defined once the game is over")
        return self.ranking()[0]

    # ------------------------------------------------------------------ public view
    def money(self, player: int) -> int:
        return int(self._state[player_base(self._check_player(player)) + P_MONEY])

    def goods(self, player: int) -> np.ndarray:
        b = player_base(self._check_player(player)) + P_GOODS
        return self._state[b : b + NUM_GOODS].copy()

    def colonist_locations(self, player: int) -> np.ndarray:
        """Six location codes (land slots 0-2, sea 3-5); see :mod:`concordia_env.engine.state`."""
        b = player_base(self._check_player(player)) + P_COLONISTS
        return self._state[b : b + COLONISTS_PER_PLAYER].copy()

    def hand(self, player: int) -> np.ndarray:
        """Card counts per card type in the player's hand."""
        b = player_base(self._check_player(player)) + P_HAND
        return self._state[b : b + NUM_CARD_TYPES].copy()

    def discard(self, player: int) -> np.ndarray:
        b = player_base(self._check_player(player)) + P_DISCARD
        return self._state[b : b + NUM_CARD_TYPES].copy()

    def discard_top(self, player: int) -> int:
        return int(self._state[player_base(self._check_player(player)) + P_DISCARD_TOP])

    def hand_kinds(self, player: int) -> np.ndarray:
        """Number of cards per card kind in hand."""
        counts = np.zeros(NUM_KINDS, dtype=np.int64)
        np.add.at(counts, CARD_KIND, self.hand(player))
        return counts

    def houses(self) -> np.ndarray:
        """Bool array [player, place]: who has a house where."""
        n = self.num_players
        return self._state[HOUSES : HOUSES + n * MAX_CITIES].reshape(n, MAX_CITIES)[:, : len(self._map.places)] == 1

    def city_goods(self) -> np.ndarray:
        """Good index of each place's city token (-1 for the capital and special squares)."""
        return self._state[CITY_GOOD : CITY_GOOD + len(self._map.places)].copy()

    def display(self) -> np.ndarray:
        """Card type in each display slot (-1 empty)."""
        return self._state[DISPLAY : DISPLAY + DISPLAY_SLOTS].copy()

    def bonus_markers(self) -> list[tuple[int, bool]]:
        """(good, coin side up) of each province's bonus marker; good -1 when there is none (Gavdos)."""
        s = self._state
        return [(int(s[BONUS_GOOD + v]), bool(s[BONUS_COIN_SIDE + v])) for v in range(len(self._map.provinces))]

    @property
    def stack_size(self) -> int:
        """Cards left in the face-down stack (their order is hidden; see observation)."""
        return int(self._state[STACK_SIZE])

    def display_price(self, slot: int, kind: int = K_SENATOR) -> tuple[np.ndarray, int]:
        """The price of the card in ``slot``: (goods, units of an "any" good of the buyer's choice).

        A Senator (the default ``kind``) pays the card's own cost plus the goods under the
        slot; a Consul (``cards.K_CONSUL``) the card's own cost only.
        """
        slot = self._check_slot(slot)
        if kind not in (K_SENATOR, K_CONSUL):
            raise ValueError(f"kind must be cards.K_SENATOR or cards.K_CONSUL, got {kind!r}")
        goods = np.zeros(NUM_GOODS, dtype=np.int32)
        any_units = facts.display_price(self._state, slot, kind, goods)
        return goods, int(any_units)

    def slot_cost(self, slot: int) -> tuple[np.ndarray, int]:
        """The cost printed under display ``slot`` (this game's side of the display): (goods, 'any' units)."""
        slot = self._slot_index(slot)
        goods = np.zeros(NUM_GOODS, dtype=np.int32)
        any_units = facts.slot_cost(self._state, slot, goods)
        return goods, int(any_units)

    @property
    def display_costs_variant(self) -> int:
        """0 for the standard display slot costs, 1 for the alternative ones."""
        return int(self._state[OPT_DISPLAY_COSTS])

    @property
    def nile_marker(self) -> int | None:
        """Province holding the Nile food marker (Aegyptus), None elsewhere."""
        v = int(self._state[NILE_MARKER])
        return v if v >= 0 else None

    # ------------------------------------------------------------------ pending decision context
    @property
    def played_kind(self) -> int:
        """Kind of the card played this turn (cards.K_*), -1 before one is played."""
        return int(self._state[PLAYED_KIND])

    @property
    def action_kind(self) -> int:
        """Kind whose action is carried out (the copied one after a Diplomat), -1."""
        return int(self._state[ACTION_KIND])

    @property
    def steps_left(self) -> int:
        """Architect movement steps not yet used."""
        return int(self._state[STEPS_LEFT])

    def traded_goods(self) -> list[int]:
        """Goods already sold or bought in the pending Mercator action."""
        bits = int(self._state[TRADED_GOODS])
        return [g for g in range(NUM_GOODS) if bits >> g & 1]

    @property
    def buys_left(self) -> int:
        """Cards the pending Senator/Consul may still buy."""
        return int(self._state[BUYS_LEFT])

    def incoming_goods(self, player: int) -> np.ndarray:
        """Goods produced for ``player`` that wait for a storehouse-overflow choice."""
        b = INCOMING + self._check_player(player) * NUM_GOODS
        return self._state[b : b + NUM_GOODS].copy()

    @property
    def final_turns_left(self) -> int | None:
        """Turn ends left before the final scoring once the end is triggered, else None."""
        left = int(self._state[FINAL_TURNS_LEFT])
        return left if left >= 0 else None

    @property
    def praefectus_magnus(self) -> int:
        return int(self._state[PRAEFECTUS_MAGNUS])

    @property
    def concordia_holder(self) -> int | None:
        holder = int(self._state[CONCORDIA_HOLDER])
        return holder if holder >= 0 else None

    # ------------------------------------------------------------------ rule queries (rules/facts.py)
    # What the rules say about this position, answered by the same compiled functions the
    # engine uses: agents, renderers and descriptions ask these instead of re-deriving a rule.
    def free_slots(self, player: int) -> int:
        """Storehouse slots ``player`` has free for goods (12 − goods − colonists still stored)."""
        player = self._check_player(player)
        return int(facts.free_slots(self._state, player))

    def colonists_on_board(self, player: int) -> int:
        """``player``'s colonists in cities, on paths or on special squares (Mars, tax, Architect steps)."""
        player = self._check_player(player)
        return int(facts.colonists_on_board(self._state, player))

    @staticmethod
    def colonist_kind(slot: int) -> int:
        """``maps.LAND`` (0) for colonist slots 0-2, ``maps.SEA`` (1) for slots 3-5."""
        slot = integer_argument(slot, "slot")
        if not 0 <= slot < COLONISTS_PER_PLAYER:
            raise ValueError(f"a colonist slot is in 0..{COLONISTS_PER_PLAYER - 1}, got {slot}")
        return int(facts.colonist_kind(slot))

    def house_price(self, place: int) -> tuple[int, np.ndarray]:
        """(sestertii, goods) the next house in ``place`` costs; ValueError where no house may be built."""
        place = self._check_place(place)
        if not facts.is_buildable_place(self._map.tables, place):
            raise ValueError(f"no house may be built in {self._map.places[place]}")
        money, goods = self.house_prices()
        return int(money[place]), goods[place]

    def house_prices(self) -> tuple[np.ndarray, np.ndarray]:
        """The next house in every place: sestertii [place] and goods [place, good] (0 where none may be built)."""
        places = len(self._map.places)
        money = np.zeros(places, dtype=np.int64)
        goods = np.zeros((places, NUM_GOODS), dtype=np.int64)
        facts.house_prices(self._state, self._map.tables, money, goods)
        return money, goods

    def can_afford_house(self, player: int, place: int) -> bool:
        """Whether ``player`` holds the money and goods for the next house in ``place``."""
        player = self._check_player(player)
        place = self._check_place(place)
        if not facts.is_buildable_place(self._map.tables, place):
            return False
        return bool(facts.can_afford_house(self._state, player, place, self._state[CITY_GOOD + place]))

    def path_distance(self, location: int, path: int) -> int:
        """Architect steps from a colonist location to ``path`` (``maps.UNREACHABLE`` if it cannot get there)."""
        path = integer_argument(path, "path")
        if not 0 <= path < len(self._map.paths):
            raise ValueError(f"the {self._map.title} map has paths 0..{len(self._map.paths) - 1}, got {path}")
        location = self._check_location(location)
        return int(facts.path_distance(self._map.tables, int(location), int(path)))

    def places_next_to(self, location: int) -> list[int]:
        """Places a colonist at ``location`` may build in: the city it stands in, or its path's two ends."""
        location = self._check_location(location)
        return [int(c) for c in facts.places_next_to(self._map.tables, int(location)) if c >= 0]

    def reachable_places(self, player: int, steps: int | None = None) -> np.ndarray:
        """Bool per place: next to one of ``player``'s colonists after it moves up to ``steps``.

        Each colonist on its own, whether paths are free or not (the reach planning needs);
        ``steps`` defaults to what an Architect played now would have.
        """
        player = self._check_player(player)
        if steps is None:
            steps = self.architect_steps(player)
        out = np.zeros(len(self._map.places), dtype=np.bool_)
        facts.reachable_places(self._state, self._map.tables, player, int(steps), out)
        return out

    def architect_steps(self, player: int) -> int:
        """Movement steps of an Architect ``player`` plays now (one per colonist on the board)."""
        player = self._check_player(player)
        return int(facts.architect_steps(self._state, player))

    def prefect_production(self, province: int, bonus_good: int | None = None, player: int | None = None) -> np.ndarray:
        """Goods [player, good] each player receives if ``player`` (default: the one to move) produces there.

        The bonus good defaults to the province's marker (Gavdos has none: name one); the
        Praefectus Magnus doubles it, the Nile marker adds a food. Before the storehouse limit.
        """
        if not 0 <= int(province) < len(self._map.provinces):
            raise ValueError(
                f"the {self._map.title} map has provinces 0..{len(self._map.provinces) - 1}, got {province}"
            )
        player = self.current_player if player is None else player
        player = self._check_player(player)
        if bonus_good is None:
            bonus_good = int(self._state[BONUS_GOOD + province])
            if bonus_good < 0:
                raise ValueError(f"{self._map.province_names[province]} shows no bonus good: pass bonus_good")
        if not 0 <= int(bonus_good) < NUM_GOODS:
            raise ValueError(f"a good is in 0..{NUM_GOODS - 1}, got {bonus_good}")
        out = np.zeros(MAX_PLAYERS * NUM_GOODS, dtype=np.int32)
        facts.prefect_production(self._state, self._map.tables, player, int(province), int(bonus_good), out)
        return out.reshape(MAX_PLAYERS, NUM_GOODS)[: self.num_players].astype(np.int64)

    def cash_bonus(self) -> int:
        """Sestertii a Prefect's cash bonus pays now."""
        return int(facts.cash_bonus_value(self._state, self._map.tables))

    def buy_cost(self, slot: int, any_good: int | None = None, kind: int = K_SENATOR) -> np.ndarray:
        """Goods a Senator (or ``kind=cards.K_CONSUL``) pays for the card in ``slot``, "any" paid with ``any_good``.

        ValueError when the slot is empty or the payment does not fit it (a slot with an
        "any" cost needs ``any_good``, one without must not get it, a Consul never).
        """
        goods, any_units = self.display_price(slot, kind)
        if (any_good is not None) != (any_units > 0):
            raise ValueError(f"display slot {slot + 1} {'needs' if any_units else 'takes no'} 'any' good here")
        if any_good is not None:
            if not 0 <= int(any_good) < NUM_GOODS:
                raise ValueError(f"a good is in 0..{NUM_GOODS - 1}, got {any_good}")
            goods[int(any_good)] += any_units
        return goods.astype(np.int64)

    @property
    def trades_left(self) -> int:
        """Kinds of goods the pending Mercator may still trade (2 before it has traded)."""
        return int(facts.trades_left(self._state))

    def tribune_money(self, player: int) -> int:
        """Sestertii a Tribune ``player`` played now would pay (cards taken back beyond three)."""
        player = self._check_player(player)
        return int(facts.tribune_money(self._state, player))

    def colonist_tax(self, player: int) -> int:
        """Sestertii of ``player``'s Colonist tax now (5 + colonists on the board)."""
        player = self._check_player(player)
        return int(facts.colonist_tax(self._state, player))

    def with_state(self, state: np.ndarray, *, check: bool = True) -> Game:
        """A game of this map in ``state`` (copied): how code outside the engine builds a game from a state array.

        ``state`` is checked like ``Game(state, map)`` (about 40 µs). ``check=False`` skips the
        check (about 2 µs) for a state the package's compiled rules produced from this game's
        own: an afterstate or a determinized copy from :mod:`concordia_env.strategy`, a row of
        a batch. A state from anywhere else must be checked: the compiled rules index arrays
        with its values unchecked.
        """
        if not check:
            if not isinstance(state, np.ndarray) or state.shape != self._state.shape:
                raise ValueError(f"a state is an array of shape {self._state.shape}, got {short_repr(state)}")
            return Game._wrap(state.astype(np.int32, copy=True), self._map)
        return Game(state, self._map)

    def with_hidden_stack_shuffled(self, rng: np.random.Generator) -> Game:
        """A copy in which the face-down stack is reshuffled within each deck (a determinization).

        Every player knows the decks lie in order (I on top); only the order inside a deck is
        hidden, so this is one of the games the players cannot tell apart from this one.
        """
        game = self.clone()
        shuffle_hidden_stack(game._state, rng.random(int(game._state[STACK_SIZE])))
        return game

    def lay_out_cards(self, display: Sequence[int] | np.ndarray, stack: Sequence[int] | np.ndarray) -> None:
        """Lay the cards of the display and the face-down stack out anew: the same cards, moved or reordered.

        ``display``: the card type in each of the ``DISPLAY_SLOTS`` slots, -1 for an empty
        one; ``stack``: the stack's card types bottom first (its top card, drawn next, is
        the last). Together they must hold exactly the cards the display and the stack hold
        now, so no card appears or disappears. This is a chance move, not a rule: a game
        that draws every card at an explicit chance node (the OpenSpiel bridge,
        :mod:`concordia_env.integrations.openspiel`) keeps the stack in a canonical order
        that says nothing about the next card, empties the slots the rules just refilled,
        and fills a slot with the card chance draws.

        ``ArgumentTypeError`` for values that are not integers; ``ValueError`` for a display
        of the wrong length, a card type outside ``0..NUM_CARD_TYPES-1``, a stack longer than
        there are cards for sale, or other cards than the game holds there; nothing changes then.
        """
        new_display = _integer_array(display, "display")
        new_stack = _integer_array(stack, "stack")
        if len(new_display) != DISPLAY_SLOTS:
            raise ValueError(f"display lists the {DISPLAY_SLOTS} display slots, got {len(new_display)} entries")
        if len(new_stack) > NUM_SALE_CARDS:
            raise ValueError(f"the stack holds at most {NUM_SALE_CARDS} cards, got {len(new_stack)}")
        if ((new_display < -1) | (new_display >= NUM_CARD_TYPES)).any() or (
            (new_stack < 0) | (new_stack >= NUM_CARD_TYPES)
        ).any():
            raise ValueError(f"a card type is in 0..{NUM_CARD_TYPES - 1} (-1: an empty display slot)")
        s, size = self._state, int(self._state[STACK_SIZE])
        held = np.concatenate([s[DISPLAY : DISPLAY + DISPLAY_SLOTS], s[STACK : STACK + size]])
        given = np.concatenate([new_display, new_stack])
        if not np.array_equal(np.sort(held[held >= 0]), np.sort(given[given >= 0])):
            raise ValueError("display and stack must hold the cards the display and the stack hold now")
        s[DISPLAY : DISPLAY + DISPLAY_SLOTS] = new_display
        s[STACK : STACK + NUM_SALE_CARDS] = -1
        s[STACK : STACK + len(new_stack)] = new_stack
        s[STACK_SIZE] = len(new_stack)

    # ------------------------------------------------------------------ serialisation
    def to_json(self, indent: int | None = 1) -> str:
        """The position as JSON text (``docs/position-format.md``); ``indent=None`` gives one line."""
        return position_text(self.to_dict(), indent)

    def to_dict(self) -> dict[str, Any]:
        """The position as plain JSON-ready Python objects: ``Game.from_dict(game.to_dict()) == game``."""
        return write_position(self._state, self._map)

    @classmethod
    def from_json(cls, text: str | bytes) -> Game:
        """Load a position written by :meth:`to_json` or by hand; raises :class:`PositionError` only."""
        return cls.from_dict(parse_position(text))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Game:
        """Build the game of a position dict; every inconsistency raises :class:`PositionError` only."""
        state, m = read_position(d)
        return cls._wrap(state, m)  # read_position has checked the state

    def observation(
        self, player: int, version: int = OBSERVATION_VERSION, *, out: np.ndarray | None = None
    ) -> np.ndarray:
        """Flat float32 vector from ``player``'s point of view (see :mod:`concordia_env.engine.observation`).

        ``version`` picks the layout (``observation.OBSERVATION_VERSIONS``). ``out``, if
        given, is filled and returned instead of a new array: a writable, C-contiguous
        float32 array of length ``OBS_SIZES[version]`` (an environment's own buffer);
        ``ValueError`` for any other (``ArgumentTypeError`` for one that is no float32 array).
        """
        p = self._check_player(player)
        size = OBS_SIZES[check_observation_version(version)]
        if out is None:
            out = np.empty(size, dtype=np.float32)
        elif not isinstance(out, np.ndarray) or out.dtype != np.float32:
            raise ArgumentTypeError(f"out must be a float32 array, got {short_repr(out)}")
        elif out.shape != (size,) or not out.flags.c_contiguous or not out.flags.writeable:
            raise ValueError(
                f"out must be a writable, C-contiguous float32 array of shape ({size},) "
                f"(observation version {version}), got shape {out.shape}"
            )
        if not _fill_observation_unless_busy(self._state, self._tables, p, out, self._cache, 0):  # lock-free
            with self._lock:  # another thread's locked call is under way (engine.serial)
                _fill_observation_unless_busy(self._state, self._tables, p, out, self._cache, int(self._busy[0]))
        return out

    # ------------------------------------------------------------------ misc
    def _check_player(self, player: int) -> int:
        """``player`` as a Python int seat; ArgumentTypeError or ValueError if it is not one."""
        return seat_argument(player, self.num_players)

    def _check_place(self, place: int) -> int:
        """``place`` as a Python int place id of this map; ArgumentTypeError or ValueError if it is not one."""
        p = integer_argument(place, "place")
        if not 0 <= p < len(self._map.places):
            raise ValueError(
                f"the {self._map.title} map has places 0..{len(self._map.places) - 1}, got {short_repr(p)}"
            )
        return p

    def _slot_index(self, slot: int) -> int:
        """``slot`` as a Python int display slot (empty or not); ArgumentTypeError or ValueError if it is not one."""
        s = integer_argument(slot, "slot")
        if not 0 <= s < DISPLAY_SLOTS:
            raise ValueError(f"a display slot is in 0..{DISPLAY_SLOTS - 1} (the leftmost is 0), got {short_repr(s)}")
        return s

    def _check_slot(self, slot: int) -> int:
        """``slot`` as a Python int display slot holding a card."""
        s = self._slot_index(slot)
        if int(self._state[DISPLAY + s]) < 0:
            raise ValueError(f"display slot {s + 1} is empty")
        return s

    def _check_location(self, location: int) -> int:
        """A colonist location on the board: a place id or PATH_LOC_BASE + a path id."""
        loc = integer_argument(location, "location")
        if not (0 <= loc < len(self._map.places) or 0 <= loc - PATH_LOC_BASE < len(self._map.paths)):
            raise ValueError(f"{short_repr(loc)} is no colonist location on the {self._map.title} map")
        return loc

    def __eq__(self, other: object) -> bool:
        """Same map and same state. A game changes with every step, so it is not hashable
        (like a list); key a dict by ``game.state.tobytes()`` to remember positions."""
        return (
            isinstance(other, Game) and other._map.name == self._map.name and np.array_equal(self._state, other._state)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable: see __eq__

    def __repr__(self) -> str:
        status = "over" if self.is_over() else f"player {self.current_player}: {self.phase_name}"
        return f"Game({self._map.name}, {self.num_players} players, turn {self.turn_count}, {status})"


# ---------------------------------------------------------------------- the two calls of every decision
def entry_point(dispatcher: Any, *argument_types: Any) -> Callable[..., Any]:
    """The compiled code of ``dispatcher`` for these argument types, called without numba's dispatch.

    A decision through ``Game`` is two compiled calls (``legal_actions`` and ``step``), and
    numba's dispatcher spends about 0.2 µs of each working out the types of the arguments to
    find the compiled version: a tenth of the whole decision. ``Game`` always passes the same
    types (its own int32 state, the map's read-only tables, a Python int checked by
    :func:`action_index`, its own uint8 cache), so it looks the version up once. Loaded from
    numba's disk cache like any call; with ``NUMBA_DISABLE_JIT=1``, the Python function.
    """
    compile_for = getattr(dispatcher, "compile", None)
    return dispatcher if compile_for is None else compile_for(argument_types)


_STATE_T = types.Array(types.int32, 1, "C")
_TABLES_T = types.Array(types.int32, 1, "C", readonly=True)
_CACHE_T = types.Array(types.uint8, 1, "C")
_OBSERVATION_T = types.Array(types.float32, 1, "C")


def _step_unless_busy(state: np.ndarray, tables: np.ndarray, action: int, cache: np.ndarray, allowed: int) -> int:
    """``rules.entry_points.step_unless_busy``: on first use, replaces itself by its compiled entry point."""
    global _step_unless_busy
    _step_unless_busy = entry_point(
        entry_points.step_unless_busy, _STATE_T, _TABLES_T, types.int64, _CACHE_T, types.int64
    )
    return int(_step_unless_busy(state, tables, action, cache, allowed))


def _legal_actions_unless_busy(state: np.ndarray, tables: np.ndarray, cache: np.ndarray, allowed: int) -> np.ndarray:
    """``rules.entry_points.legal_actions_unless_busy``: on first use, replaces itself by its compiled entry point."""
    global _legal_actions_unless_busy
    _legal_actions_unless_busy = entry_point(
        entry_points.legal_actions_unless_busy, _STATE_T, _TABLES_T, _CACHE_T, types.int64
    )
    return _legal_actions_unless_busy(state, tables, cache, allowed)


def _legal_mask_unless_busy(state: np.ndarray, tables: np.ndarray, cache: np.ndarray, allowed: int) -> np.ndarray:
    """``rules.entry_points.legal_mask_unless_busy``: on first use, replaces itself by its compiled entry point."""
    global _legal_mask_unless_busy
    _legal_mask_unless_busy = entry_point(
        entry_points.legal_mask_unless_busy, _STATE_T, _TABLES_T, _CACHE_T, types.int64
    )
    return _legal_mask_unless_busy(state, tables, cache, allowed)


def _fill_observation_unless_busy(
    state: np.ndarray, tables: np.ndarray, player: int, out: np.ndarray, cache: np.ndarray, allowed: int
) -> bool:
    """``observation.fill_observation_unless_busy``: on first use, replaces itself by its compiled entry point."""
    global _fill_observation_unless_busy
    _fill_observation_unless_busy = entry_point(
        fill_observation_unless_busy, _STATE_T, _TABLES_T, types.int64, _OBSERVATION_T, _CACHE_T, types.int64
    )
    return bool(_fill_observation_unless_busy(state, tables, player, out, cache, allowed))


def _map_of(map: Map | str) -> Map:
    """A map object from a map or its name."""
    if isinstance(map, Map):
        return map
    if not isinstance(map, str):
        raise ArgumentTypeError(f"map must be a map name or a Map, got {short_repr(map)}")
    return load(map)


#: the integer types ``action_index`` accepts without further ado (exact types: no bool, no subclass)
_PLAIN_INTEGERS = frozenset(
    {int, np.int64, np.int32, np.intp, np.uint32, np.uint64, np.int16, np.uint16, np.int8, np.uint8}
)


def action_index(action: Any) -> int:
    """``action`` as a Python int in ``0..NUM_ACTIONS-1``, or ``IllegalActionError`` for any other value.

    Python and numpy integers and 0-d integer arrays (what policies return) are accepted.
    A float, a bool, ``None``, a string, an array of several values is refused with
    ``action == -1`` and the value, shortened, as ``given`` (the message names it: "illegal
    action '3': ..."); an integer outside the action space with itself as ``action`` (or
    -1 and ``given`` beyond int64, which no index can be). :meth:`Game.step` and the environments run
    this before the engine sees the value, so nothing can overflow or reach compiled
    code in an unexpected type.
    """
    if type(action) in _PLAIN_INTEGERS:  # the common case, decided cheaply (bool is not among the types)
        a = int(action)
        if 0 <= a < NUM_ACTIONS:
            return a
    if isinstance(action, np.ndarray) and action.ndim == 0:
        action = action[()]
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        reason = f"an action is an integer index in 0..{NUM_ACTIONS - 1}, not a {type(action).__name__}"
        raise IllegalActionError(-1, reason, given=short_repr(action))
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        outside = f"outside the action space 0..{NUM_ACTIONS - 1}"
        if -(2**63) <= a < 2**63:
            raise IllegalActionError(a, outside)
        raise IllegalActionError(-1, outside, given=short_repr(a))
    return a


def _integer_array(values: Any, what: str) -> np.ndarray:
    """``values`` as a 1-D int64 array (C-contiguous); ``ArgumentTypeError`` unless they are integers."""
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        raise ArgumentTypeError(f"{what} must be a sequence of integers, got {short_repr(values)}") from None
    if arr.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype == np.bool_ or arr.dtype.kind not in "iu":
        raise ArgumentTypeError(f"{what} must be integers (int64), got {short_repr(values)}")
    if arr.dtype.kind == "u" and arr.max() > np.iinfo(np.int64).max:
        raise ValueError(f"{what} holds a value beyond int64")
    return np.ascontiguousarray(arr, dtype=np.int64)


def _action_array(actions: Any) -> np.ndarray:
    """``actions`` as a 1-D int64 array of action indices (checked: the compiled rules index masks with them)."""
    plan = _integer_array(actions, "actions")
    if plan.size and (plan.min() < 0 or plan.max() >= NUM_ACTIONS):
        bad = int(plan[(plan < 0) | (plan >= NUM_ACTIONS)][0])
        raise ValueError(f"an action is in 0..{NUM_ACTIONS - 1}, got {bad}")
    return plan
