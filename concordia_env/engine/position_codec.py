"""The position format's reader and writer, on a raw state array and its map.

This is the body of :mod:`concordia_env.engine.position` (the public module, where the format
is described) and of ``Game.to_json`` / ``Game.from_json``. It knows nothing of
:class:`~concordia_env.Game`: ``game.py`` builds on it and ``position.py`` on both, so the
package graph has no cycles (``tests/test_layering.py``).

* :func:`write_position` / :func:`position_text`: a state as a dict, a dict as JSON text;
* :func:`parse_position` / :func:`read_position`: JSON text as a dict, a dict as a state
  checked against the rules (everything wrong raises :class:`PositionError` only).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from typing import Any

import numpy as np

from .actions import NUM_ACTIONS
from .cards import (
    CARD_DECK,
    CARD_ID,
    CARD_ID_INDEX,
    CARD_KIND,
    CITY_TOKENS,
    COLONISTS_PER_PLAYER,
    DECKS,
    DISPLAY_SLOTS,
    DISPLAY_VARIANTS,
    FIRST_SPECIALIST,
    GOOD_INDEX,
    GOODS,
    HOUSES_PER_PLAYER,
    K_ARCHITECT,
    K_COLONIST,
    K_CONSUL,
    K_DIPLOMAT,
    K_MERCATOR,
    K_MERCATOR_BOUGHT,
    K_PREFECT,
    K_SENATOR,
    K_TRIBUNE,
    KIND_CARDS_BOUGHT,
    KIND_NAMES,
    LAND_COLONISTS,
    MERCATOR_KINDS,
    NUM_CARD_TYPES,
    NUM_GOODS,
    NUM_KINDS,
    NUM_START_TYPES,
    SEA_COLONISTS,
    START_HAND_COUNTS,
    STOREHOUSE_SLOTS,
)
from .errors import short_repr
from .maps import (
    LAND,
    M_PATH_KIND,
    M_PATH_SPECIAL,
    MAX_PATHS,
    PATH_KINDS,
    SEA,
    UNREACHABLE,
    Map,
    load,
)
from .rules import facts
from .rules.effects import begin_action, close_finished_parts, close_up_display, refill_display, store_what_is_forced
from .rules.entry_points import advance
from .rules.legal import (
    NO_PATH_OF_KIND,
    NOT_A_SETTLING_PLACE,
    fill_legal,
    path_is_free_for,
    settling_place_refusal,
)
from .rules.setup import check_setup, empty_state
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
    FIRST_SEA_SLOT,
    INCOMING,
    INTERMEDIATE_PAID,
    LOC_STOREHOUSE,
    NILE_MARKER,
    NUM_PLAYERS,
    OPT_DISPLAY_COSTS,
    OPT_INTERMEDIATE,
    P_COLONISTS,
    P_DISCARD,
    P_DISCARD_TOP,
    P_GOODS,
    P_HAND,
    P_INTERMEDIATE_DONE,
    P_INTERMEDIATE_VP,
    P_MONEY,
    PATH_LOC_BASE,
    PHASE,
    PHASE_ARCHITECT_BUILD,
    PHASE_ARCHITECT_MOVE,
    PHASE_BONUS_GOOD,
    PHASE_BUY_CARDS,
    PHASE_COLONIST,
    PHASE_COLONIST_SETTLE,
    PHASE_DIPLOMAT,
    PHASE_GAME_OVER,
    PHASE_MERCATOR,
    PHASE_NAMES,
    PHASE_OVERFLOW,
    PHASE_PLAY_CARD,
    PHASE_PREFECT,
    PHASE_TRIBUNE_COLONIST,
    PLAYED_KIND,
    PM_PASS_PENDING,
    PRAEFECTUS_MAGNUS,
    SLOTS_BOUGHT,
    STACK,
    STACK_SIZE,
    STEPS_LEFT,
    TRADED_GOODS,
    TURN_COUNT,
    TURN_PLAYER,
    house_index,
    player_base,
)
from .state_check import (
    INT32_MAX,
    MAX_DECISIONS,
    MAX_INCOMING,
    MAX_INTERMEDIATE_VP,
    MAX_MONEY,
    MAX_TURNS,
    check_state,
)

FORMAT = "concordia-position/1"
STOREHOUSE = "storehouse"
MARKER_SIDES: tuple[str, ...] = ("goods", "coins")
GOODS_SIDE, COIN_SIDE = range(len(MARKER_SIDES))
#: cards a Senator / Consul may buy in one action (docs/rules.md §4.6, §4.7)
BUYS_PER_ACTION = {kind: int(KIND_CARDS_BOUGHT[kind]) for kind in (K_SENATOR, K_CONSUL)}
#: an Architect never has more steps than colonists
MAX_STEPS = LAND_COLONISTS + SEA_COLONISTS
SPECIALIST_KINDS = tuple(range(FIRST_SPECIALIST, NUM_KINDS))

DECISION_INDEX = {name: phase for phase, name in enumerate(PHASE_NAMES)}
KIND_INDEX = {name: kind for kind, name in enumerate(KIND_NAMES)}

#: the fields of an action's context, and the decisions during which they can be set
CONTEXT_FIELDS: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    ("steps_left", STEPS_LEFT, (PHASE_ARCHITECT_MOVE, PHASE_ARCHITECT_BUILD)),
    ("traded", TRADED_GOODS, (PHASE_MERCATOR,)),
    ("buys_left", BUYS_LEFT, (PHASE_BUY_CARDS,)),
    ("slots_bought", SLOTS_BOUGHT, (PHASE_BUY_CARDS,)),
)
#: why a decision can have no legal choice at all (such a position is refused)
DEAD_DECISION_HINTS: dict[int, str] = {
    PHASE_DIPLOMAT: "no opponent's discard pile shows a card a Diplomat may copy",
    PHASE_OVERFLOW: "no good waits for the player choosing",
}

#: card kinds whose action can be under way in each pending decision (empty: none is)
DECISION_ACTIONS: dict[int, tuple[int, ...]] = {
    PHASE_PLAY_CARD: (),
    PHASE_DIPLOMAT: (),
    PHASE_TRIBUNE_COLONIST: (K_TRIBUNE,),
    PHASE_ARCHITECT_MOVE: (K_ARCHITECT,),
    PHASE_ARCHITECT_BUILD: (K_ARCHITECT,),
    PHASE_PREFECT: (K_PREFECT,),
    PHASE_BONUS_GOOD: (K_PREFECT,),
    PHASE_OVERFLOW: (K_PREFECT, *SPECIALIST_KINDS),
    PHASE_MERCATOR: (K_MERCATOR, K_MERCATOR_BOUGHT),
    PHASE_BUY_CARDS: (K_SENATOR, K_CONSUL),
    PHASE_COLONIST: (K_COLONIST,),
    PHASE_COLONIST_SETTLE: (K_COLONIST,),
    PHASE_GAME_OVER: (),
}

TOP_REQUIRED = (
    "format",
    "map",
    "num_players",
    "current_player",
    "praefectus_magnus",
    "concordia_card",
    "cities",
    "bonus_markers",
    "display",
    "players",
)
TOP_OPTIONAL = (
    "options",
    "turn_count",
    "decision_count",
    "turn_player",
    "pending",
    "final_turns_left",
    "nile_marker",
    "intermediate_scoring_paid",
    "stack",
)
PENDING_KEYS = (
    "decision",
    "card",
    "action",
    "steps_left",
    "traded",
    "buys_left",
    "slots_bought",
    "praefectus_magnus_passes",
    "incoming",
)
PLAYER_REQUIRED = ("money", "goods", "colonists", "hand", "discard")
PLAYER_OPTIONAL = ("intermediate_vp", "intermediate_done")


class PositionError(ValueError):
    """A position that is not valid JSON of this format, or that no game can reach."""


# =========================================================================== writing
def position_text(d: dict[str, Any], indent: int | None = 1) -> str:
    """A position dict as JSON text; ``indent=None`` gives one line, else short containers stay on one line."""
    if indent is None:
        return json.dumps(d, ensure_ascii=False)
    return _pretty(d, indent) + "\n"


def write_position(s: np.ndarray, m: Map) -> dict[str, Any]:
    """State ``s`` of map ``m`` as plain JSON-ready Python objects (see ``docs/position-format.md``)."""
    d: dict[str, Any] = {
        "format": FORMAT,
        "map": m.name,
        "num_players": int(s[NUM_PLAYERS]),
        "options": {
            "intermediate_scoring": bool(s[OPT_INTERMEDIATE]),
            "display_costs": DISPLAY_VARIANTS[int(s[OPT_DISPLAY_COSTS])],
        },
        "turn_count": int(s[TURN_COUNT]),
        "decision_count": int(s[DECISION_COUNT]),
        "current_player": _index_or_none(s[CURRENT_PLAYER]),
        "turn_player": int(s[TURN_PLAYER]),
        "pending": _pending_to_dict(s),
        "praefectus_magnus": int(s[PRAEFECTUS_MAGNUS]),
        "concordia_card": _index_or_none(s[CONCORDIA_HOLDER]),
        "final_turns_left": _index_or_none(s[FINAL_TURNS_LEFT]),
    }
    if m.nile_route:
        d["nile_marker"] = _name_or_none(m.province_names, s[NILE_MARKER])
    if s[OPT_INTERMEDIATE]:
        d["intermediate_scoring_paid"] = bool(s[INTERMEDIATE_PAID])
    d["cities"] = _cities_to_dict(s, m)
    d["bonus_markers"] = {
        name: {"good": _name_or_none(GOODS, s[BONUS_GOOD + v]), "side": MARKER_SIDES[int(s[BONUS_COIN_SIDE + v])]}
        for v, name in enumerate(m.province_names)
    }
    d["display"] = [_name_or_none(CARD_ID, s[DISPLAY + slot]) for slot in range(DISPLAY_SLOTS)]
    size = int(s[STACK_SIZE])
    d["stack"] = [CARD_ID[int(t)] for t in s[STACK : STACK + size][::-1]]
    d["players"] = [_player_to_dict(s, m, p) for p in range(int(s[NUM_PLAYERS]))]
    return d


def _index_or_none(value: Any) -> int | None:
    return int(value) if value >= 0 else None


def _name_or_none(names: Iterable[str], value: Any) -> str | None:
    return tuple(names)[int(value)] if value >= 0 else None


def _bits(mask: int) -> list[int]:
    return [bit for bit in range(mask.bit_length()) if (mask >> bit) & 1]


def _pending_to_dict(s: np.ndarray) -> dict[str, Any]:
    """The decision and its context; a context field is written only when it differs from its default.

    ``steps_left``, ``traded``, ``buys_left`` and ``slots_bought`` only exist during their
    own action (the engine clears them when the turn ends), so they are only ever written
    there.
    """
    d: dict[str, Any] = {"decision": PHASE_NAMES[int(s[PHASE])]}
    if s[PLAYED_KIND] >= 0:
        d["card"] = KIND_NAMES[int(s[PLAYED_KIND])]
    if s[ACTION_KIND] >= 0:
        d["action"] = KIND_NAMES[int(s[ACTION_KIND])]
    phase = int(s[PHASE])
    if s[STEPS_LEFT] or phase == PHASE_ARCHITECT_MOVE:  # where the default would not be 0
        d["steps_left"] = int(s[STEPS_LEFT])
    if s[TRADED_GOODS]:
        d["traded"] = [GOODS[g] for g in _bits(int(s[TRADED_GOODS]))]
    if s[BUYS_LEFT] or phase == PHASE_BUY_CARDS:
        d["buys_left"] = int(s[BUYS_LEFT])
    if s[SLOTS_BOUGHT]:
        d["slots_bought"] = [slot + 1 for slot in _bits(int(s[SLOTS_BOUGHT]))]
    if s[PM_PASS_PENDING]:
        d["praefectus_magnus_passes"] = True
    n = int(s[NUM_PLAYERS])
    incoming = s[INCOMING : INCOMING + n * NUM_GOODS].reshape(n, NUM_GOODS)
    if incoming.any():
        d["incoming"] = [{GOODS[g]: int(k) for g, k in enumerate(row) if k} for row in incoming]
    return d


def _cities_to_dict(s: np.ndarray, m: Map) -> dict[str, Any]:
    n = int(s[NUM_PLAYERS])
    out: dict[str, Any] = {}
    for c, name in enumerate(m.cities):
        good = _name_or_none(GOODS, s[CITY_GOOD + c])
        out[name] = {"good": good, "houses": [p for p in range(n) if s[house_index(p, c)]]}
    return out


def _location_name(m: Map, loc: int) -> str:
    if loc == LOC_STOREHOUSE:
        return STOREHOUSE
    if loc < PATH_LOC_BASE:
        return m.places[loc]
    return _path_ids(m)[loc - PATH_LOC_BASE]


_PATH_IDS: dict[str, tuple[str, ...]] = {}


def _path_ids(m: Map) -> tuple[str, ...]:
    """``m.path_ids``, computed once per map (the property rebuilds the list on every call)."""
    if m.name not in _PATH_IDS:
        _PATH_IDS[m.name] = tuple(m.path_ids)
    return _PATH_IDS[m.name]


def _player_to_dict(s: np.ndarray, m: Map, p: int) -> dict[str, Any]:
    b = player_base(p)
    slots = s[b + P_COLONISTS : b + P_COLONISTS + LAND_COLONISTS + SEA_COLONISTS]
    colonists = [  # the ones still in the storehouse are left out: they fill the remaining slots
        {"kind": PATH_KINDS[facts.colonist_kind(slot)], "at": _location_name(m, int(loc))}
        for slot, loc in enumerate(slots)
        if loc != LOC_STOREHOUSE
    ]
    d: dict[str, Any] = {
        "money": int(s[b + P_MONEY]),
        "goods": {GOODS[g]: int(s[b + P_GOODS + g]) for g in range(NUM_GOODS)},
        "colonists": colonists,
        "hand": _card_list(s[b + P_HAND : b + P_HAND + NUM_CARD_TYPES]),
        "discard": _discard_list(s[b + P_DISCARD : b + P_DISCARD + NUM_CARD_TYPES], int(s[b + P_DISCARD_TOP])),
    }
    if s[OPT_INTERMEDIATE]:
        d["intermediate_vp"] = int(s[b + P_INTERMEDIATE_VP])
        d["intermediate_done"] = bool(s[b + P_INTERMEDIATE_DONE])
    return d


def _card_list(counts: np.ndarray) -> list[str]:
    return [CARD_ID[t] for t in range(NUM_CARD_TYPES) for _ in range(int(counts[t]))]


def _discard_list(counts: np.ndarray, top: int) -> list[str]:
    """The pile in card-type order with its top card last (only the top card's place is stored)."""
    rest = counts.copy()
    if top >= 0:
        rest[top] -= 1
    return _card_list(rest) + ([CARD_ID[top]] if top >= 0 else [])


#: the column a line of ``to_json`` output should not pass
LINE_WIDTH = 100
#: one encoder for all the small pieces (``json.dumps`` with options builds a new one per call)
_encode = json.JSONEncoder(ensure_ascii=False).encode


def _min_flat_length(value: dict | list) -> int:
    """A lower bound of the one-line length: each item needs a separator and a value, each key its quotes."""
    if isinstance(value, dict):
        return sum(len(key) + 7 for key in value)  # '"key": 0, '
    return 3 * len(value)  # '0, '


def _pretty(value: Any, indent: int, level: int = 0, used: int = 0) -> str:
    """JSON with the innermost containers on one line, so a position reads like a table.

    A container is written on one line when it fits in ``LINE_WIDTH`` columns; a list of
    plain values that does not fit is wrapped several values per line.
    """
    if not isinstance(value, (dict, list)) or not value:
        return _encode(value)
    if used + _min_flat_length(value) <= LINE_WIDTH:  # else it cannot fit: skip encoding it on one line
        flat = _encode(value)
        if used + len(flat) <= LINE_WIDTH:
            return flat
    pad = " " * (indent * (level + 1))
    end = " " * (indent * level)
    if isinstance(value, dict):
        items = []
        for key, item in value.items():
            head = f"{pad}{_encode(key)}: "
            items.append(head + _pretty(item, indent, level + 1, len(head)))
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if all(not isinstance(item, (dict, list)) for item in value):
        lines, line = [], ""
        for item in (_encode(v) for v in value):
            if line and len(pad) + len(line) + len(item) + 2 > LINE_WIDTH:
                lines.append(line)
                line = ""
            line += (", " if line else "") + item
        lines.append(line)
        return "[\n" + ",\n".join(pad + ln for ln in lines) + "\n" + end + "]"
    items = [pad + _pretty(item, indent, level + 1, len(pad)) for item in value]
    return "[\n" + ",\n".join(items) + "\n" + end + "]"


# =========================================================================== reading
#: the longest key path and problem text an error message shows
WHERE_LIMIT, PROBLEM_LIMIT = 120, 400


def parse_position(text: str | bytes) -> Any:
    """The JSON value of a position's text (not yet checked); raises :class:`PositionError` only."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise PositionError(f"a position is JSON text (str or bytes), got {type(text).__name__}")
    try:
        d = json.loads(text)
    except RecursionError:
        raise PositionError("a position is JSON text: nested too deeply to read") from None
    except ValueError as e:  # not JSON, not UTF-8, an integer of more digits than Python reads
        raise PositionError(f"a position is JSON text: {_clip(str(e), PROBLEM_LIMIT)}") from None
    return d


def read_position(d: Any) -> tuple[np.ndarray, Map]:
    """The state and map of a position dict; every inconsistency raises :class:`PositionError`."""
    return _Reader(d).state()


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _fail(where: str, problem: str) -> PositionError:
    """The error for key path ``where``; both parts are cut short (a key may be a 5 MB string)."""
    problem = _clip(problem, PROBLEM_LIMIT)
    return PositionError(f"{_clip(where, WHERE_LIMIT)}: {problem}" if where else problem)


def _object(value: Any, where: str, required: Iterable[str] = (), optional: Iterable[str] = ()) -> dict[str, Any]:
    """``value`` as a JSON object with exactly the known keys (a typo must not pass silently)."""
    if not isinstance(value, dict):
        raise _fail(where, f"must be a JSON object, got {short_repr(value)}")
    required, optional = tuple(required), tuple(optional)
    for key in required:
        if key not in value:
            raise _fail(where, f"the required key {short_repr(key)} is missing")
    known = required + optional
    if known:
        for key in value:
            if key not in known:
                raise _fail(where, f"unknown key {short_repr(key)}; known keys: {', '.join(known)}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise _fail(where, f"must be a JSON list, got {short_repr(value)}")
    return value


def _int(value: Any, where: str, low: int = 0, high: int = INT32_MAX) -> int:
    """An integer in ``low..high`` (a numpy integer too); every field has a bound that int32 holds."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise _fail(where, f"must be an integer, got {short_repr(value)}")
    value = int(value)
    if value < low:
        shown = short_repr(value)
        raise _fail(where, f"must be at least {low}, got {shown}" + (" (negative)" if value < 0 <= low else ""))
    if value > high:
        raise _fail(where, f"must be at most {high}, got {short_repr(value)}")
    return value


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"must be true or false, got {short_repr(value)}")
    return value


def _choice(value: Any, where: str, names: dict[str, int], what: str) -> int:
    if not isinstance(value, str) or value not in names:
        raise _fail(where, f"unknown {what} {short_repr(value)}; choose one of {', '.join(map(repr, names))}")
    return names[value]


def _good(value: Any, where: str) -> int:
    return _choice(value, where, GOOD_INDEX, "good")


def _card(value: Any, where: str) -> int:
    if not isinstance(value, str) or value not in CARD_ID_INDEX:
        raise _fail(
            where,
            f"unknown card id {short_repr(value)} (starting cards are named like 'Architect', "
            "cards for sale like 'Architect/II'; see cards.CARD_ID)",
        )
    return CARD_ID_INDEX[value]


class _Reader:
    """Reads one position dict into a state array, checking it section by section."""

    def __init__(self, d: Any) -> None:
        self.d = _object(d, "position", TOP_REQUIRED, TOP_OPTIONAL)
        if d["format"] != FORMAT:
            raise _fail("format", f"must be {FORMAT!r}, got {short_repr(d['format'])}")
        if not isinstance(d["map"], str):
            raise _fail("map", f"must be a map name, got {short_repr(d['map'])}")
        try:
            self.m = load(d["map"])
        except ValueError as e:
            raise _fail("map", str(e)) from None
        self.n = _int(d["num_players"], "num_players", 1)
        try:
            check_setup(self.m, self.n)
        except ValueError as e:
            raise _fail("num_players", str(e)) from None
        intermediate, display_costs = self._options()
        self.s = empty_state(self.m, self.n, intermediate, display_costs)
        self.place_index = {name: i for i, name in enumerate(self.m.places)}
        self.path_index = {pid: i for i, pid in enumerate(_path_ids(self.m))}

    def state(self) -> tuple[np.ndarray, Map]:
        self._cities()
        self._bonus_markers()
        self._players()
        self._cards()
        self._header()
        self._pending()
        self._check_board()
        self._check_flow()
        self._check_pending_is_reachable()
        try:  # the ranges of the raw state (what Game(state, map) checks): a second line behind the checks above
            check_state(self.s, self.m)
        except ValueError as e:
            raise _fail("position", str(e)) from None
        return self.s, self.m

    # ---------------------------------------------------------------- helpers
    def _player(self, value: Any, where: str) -> int:
        return _int(value, where, 0, self.n - 1)

    def _province(self, value: Any, where: str) -> int:
        if not isinstance(value, str) or value not in self.m.provinces:
            raise _fail(where, f"no province {short_repr(value)} on the {self.m.title} map")
        return self.m.province_index(value)

    # ---------------------------------------------------------------- options
    def _options(self) -> tuple[bool, str]:
        opts = _object(self.d.get("options", {}), "options", (), ("intermediate_scoring", "display_costs"))
        intermediate = _bool(opts.get("intermediate_scoring", False), "options.intermediate_scoring")
        display_costs = opts.get("display_costs", DISPLAY_VARIANTS[0])
        if display_costs not in DISPLAY_VARIANTS:
            raise _fail(
                "options.display_costs",
                f"must be one of {', '.join(DISPLAY_VARIANTS)}, got {short_repr(display_costs)}",
            )
        return intermediate, display_costs

    # ---------------------------------------------------------------- board
    def _cities(self) -> None:
        m, s = self.m, self.s
        cities = _object(self.d["cities"], "cities")
        for name, entry in cities.items():
            where = f"cities.{name}"
            if name in m.special_squares:
                raise _fail(where, f"{name} is a special square, not a city (colonists name it in 'at')")
            if name not in m.cities:
                raise _fail(where, f"no city {short_repr(name)} on the {m.title} map")
            entry = _object(entry, where, ("good",), ("houses",))
            c = self.place_index[name]
            if name == m.capital:
                if entry["good"] is not None:
                    raise _fail(where, f"the capital {name} has no city token: its good must be null")
            else:
                s[CITY_GOOD + c] = _good(entry["good"], f"{where}.good")
            owners = [self._player(p, f"{where}.houses") for p in _list(entry.get("houses", []), f"{where}.houses")]
            if owners and name == m.capital:
                raise _fail(where, f"nobody may build a house in the capital {name}")
            for p, k in Counter(owners).items():
                if k > 1:
                    raise _fail(f"{where}.houses", f"player {p} has two houses in {name}; one per player and city")
                s[house_index(p, c)] = 1
        missing = [c for c in m.cities if c != m.capital and c not in cities]
        if missing:
            raise _fail("cities", f"every city needs its good; missing: {', '.join(missing)}")
        self._check_tokens()

    def _check_tokens(self) -> None:
        """The goods of a letter's cities are exactly that letter's token set (docs/rules.md §2.2)."""
        m, s = self.m, self.s
        for letter in m.letters_used:
            cities = [c for c in m.cities if m.letters.get(c) == letter]
            found = Counter(GOODS[s[CITY_GOOD + self.place_index[c]]] for c in cities)
            tokens = Counter(GOODS[g] for g in CITY_TOKENS[letter])
            if found != tokens:
                raise _fail(
                    "cities",
                    f"the {letter} cities ({', '.join(cities)}) have goods {_counts_text(found)}, "
                    f"but the {letter} tokens are {_counts_text(tokens)}",
                )

    def _bonus_markers(self) -> None:
        m, s = self.m, self.s
        markers = _object(self.d["bonus_markers"], "bonus_markers")
        for name, entry in markers.items():
            where = f"bonus_markers.{name}"
            v = self._province(name, where)
            entry = _object(entry, where, ("good",), ("side",))
            side = _choice(entry.get("side", MARKER_SIDES[GOODS_SIDE]), f"{where}.side", _indexed(MARKER_SIDES), "side")
            if entry["good"] is None:
                if name != m.variable_bonus_province:
                    raise _fail(where, "every province but Gavdos (Creta) always has its bonus marker: good is needed")
                if side == COIN_SIDE:
                    raise _fail(where, "no marker (good null) has no coin side: use side 'goods'")
                continue
            good = _good(entry["good"], f"{where}.good")
            if name == m.variable_bonus_province and side != COIN_SIDE:
                raise _fail(where, "the Gavdos marker is put on the '?' coin side up and stays so until a cash bonus")
            if name != m.variable_bonus_province:
                best = max(s[CITY_GOOD + self.place_index[c]] for c in m.provinces[name])
                if good != best:
                    raise _fail(
                        where, f"the marker shows the most valuable good of the province's cities: {GOODS[best]}"
                    )
            s[BONUS_GOOD + v] = good
            s[BONUS_COIN_SIDE + v] = side
        missing = [v for v in m.province_names if v not in markers]
        if missing:
            raise _fail("bonus_markers", f"every province needs its marker; missing: {', '.join(missing)}")
        nile = self.d.get("nile_marker")
        if m.nile_route:
            where = "nile_marker"
            province = self._province(nile, where) if nile is not None else m.province_index(m.nile_route[0])
            if m.province_names[province] not in m.nile_route:
                raise _fail(where, f"the Nile marker moves along {' → '.join(m.nile_route)}; {nile} is not on it")
            s[NILE_MARKER] = province
        elif nile is not None:
            raise _fail("nile_marker", f"only the Aegyptus map has a Nile marker, not the {m.title} map")

    # ---------------------------------------------------------------- players
    def _players(self) -> None:
        players = _list(self.d["players"], "players")
        if len(players) != self.n:
            raise _fail("players", f"num_players is {self.n} but {len(players)} players are listed")
        for p, entry in enumerate(players):
            self._player_block(p, _object(entry, f"players[{p}]", PLAYER_REQUIRED, PLAYER_OPTIONAL))

    def _player_block(self, p: int, d: dict[str, Any]) -> None:
        s, where, b = self.s, f"players[{p}]", player_base(p)
        s[b + P_MONEY] = _int(d["money"], f"{where}.money", 0, MAX_MONEY)
        goods = _object(d["goods"], f"{where}.goods")
        for name, k in goods.items():
            good = _good(name, f"{where}.goods")
            s[b + P_GOODS + good] = _int(k, f"{where}.goods.{name}", 0, STOREHOUSE_SLOTS)
        self._colonists(p, _list(d["colonists"], f"{where}.colonists"))
        if facts.free_slots(s, p) < 0:
            stored = int(s[b + P_GOODS : b + P_GOODS + NUM_GOODS].sum())
            waiting = COLONISTS_PER_PLAYER - int(facts.colonists_on_board(s, p))
            raise _fail(
                where,
                f"{stored} goods and {waiting} colonists in the storehouse use more than its {STOREHOUSE_SLOTS} slots",
            )
        intermediate = bool(s[OPT_INTERMEDIATE])
        for key, field in (("intermediate_vp", P_INTERMEDIATE_VP), ("intermediate_done", P_INTERMEDIATE_DONE)):
            if key not in d:
                continue
            if key == "intermediate_done":
                value = int(_bool(d[key], f"{where}.{key}"))
            else:
                value = _int(d[key], f"{where}.{key}", 0, MAX_INTERMEDIATE_VP)
            if value and not intermediate:
                raise _fail(f"{where}.{key}", "the intermediate scoring option is off")
            s[b + field] = int(value)

    def _colonists(self, p: int, entries: list[Any]) -> None:
        """Land colonists fill slots 0-2 and sea colonists 3-5 in the listed order; the rest wait in the storehouse."""
        placed: dict[int, list[int]] = {LAND: [], SEA: []}
        for i, entry in enumerate(entries):
            where = f"players[{p}].colonists[{i}]"
            entry = _object(entry, where, ("kind", "at"))
            kind = _choice(entry["kind"], f"{where}.kind", _indexed(PATH_KINDS), "colonist kind")
            loc = self._location(p, kind, entry["at"], f"{where}.at")
            placed[kind].append(loc)
        b = player_base(p) + P_COLONISTS
        for kind, first, limit in ((LAND, 0, LAND_COLONISTS), (SEA, FIRST_SEA_SLOT, SEA_COLONISTS)):
            if len(placed[kind]) > limit:
                raise _fail(f"players[{p}].colonists", f"a player has {limit} {PATH_KINDS[kind]} colonists at most")
            on_board = [loc for loc in placed[kind] if loc != LOC_STOREHOUSE]
            for slot, loc in enumerate(on_board):
                self.s[b + first + slot] = loc

    def _location(self, p: int, kind: int, at: Any, where: str) -> int:
        m = self.m
        if at == STOREHOUSE:
            return LOC_STOREHOUSE
        if isinstance(at, str) and at in self.path_index:
            path = self.path_index[at]
            if m.tables[M_PATH_KIND + path] != kind:
                raise _fail(where, f"a {PATH_KINDS[kind]} colonist cannot stand on the {at} path")
            return PATH_LOC_BASE + path
        if not isinstance(at, str) or at not in self.place_index:
            raise _fail(
                where,
                f"{short_repr(at)} is neither a place on the {m.title} map, a path id ('land:A-B', 'sea:A-B') "
                "nor 'storehouse'",
            )
        c = self.place_index[at]
        if at in m.special_squares:
            if kind != SEA:
                raise _fail(where, f"only sea colonists reach the {at} square")
            return c
        # a colonist in a city was settled there: the Colonist's and the Tribune's own check
        code = settling_place_refusal(self.s, m.tables, p, kind, c)
        if code == NO_PATH_OF_KIND:
            raise _fail(
                where, f"no {PATH_KINDS[kind]} path leaves {at}, so no {PATH_KINDS[kind]} colonist stands there"
            )
        if code == NOT_A_SETTLING_PLACE:
            raise _fail(where, f"a colonist stands in a city only after settling where its player has a house: {at}")
        return c

    # ---------------------------------------------------------------- cards
    def _cards(self) -> None:
        """Display, hands, discards and the stack: every card for sale in use exactly once."""
        s, d = self.s, self.d
        seen: dict[int, str] = {}
        display = _list(d["display"], "display")
        if len(display) > DISPLAY_SLOTS:
            raise _fail("display", f"the display has {DISPLAY_SLOTS} slots, got {len(display)} entries")
        for slot, cid in enumerate(display):
            if cid is not None:
                s[DISPLAY + slot] = self._sale_card(cid, f"display[{slot}]", seen)
        for p in range(self.n):
            self._hand_and_discard(p, d["players"][p], seen)
        in_use = [t for t in range(NUM_START_TYPES, NUM_CARD_TYPES) if CARD_DECK[t] <= self.n]
        if "stack" in d:
            stack = [self._sale_card(cid, f"stack[{i}]", seen) for i, cid in enumerate(_list(d["stack"], "stack"))]
            missing = [CARD_ID[t] for t in in_use if t not in seen]
            if missing:
                raise _fail(
                    "stack",
                    "every card for sale of the decks in use appears once across display, stack, hands and "
                    f"discards; missing: {', '.join(missing)} (or leave out 'stack' to stack the unseen cards)",
                )
        else:  # the unseen cards, deck I on top, in card-type order
            stack = [t for t in in_use if t not in seen]
        s[STACK : STACK + len(stack)] = stack[::-1]
        s[STACK_SIZE] = len(stack)

    def _sale_card(self, cid: Any, where: str, seen: dict[int, str]) -> int:
        t = _card(cid, where)
        if t < NUM_START_TYPES:
            raise _fail(where, f"{cid} is a starting card; only cards for sale ('{cid}/I'...) are sold")
        return self._count_sale(t, where, seen)

    def _count_sale(self, t: int, where: str, seen: dict[int, str]) -> int:
        if CARD_DECK[t] > self.n:
            raise _fail(
                where, f"{CARD_ID[t]} is in a deck removed for {self.n} players (decks I-{DECKS[self.n]} are used)"
            )
        if t in seen:
            raise _fail(where, f"{CARD_ID[t]} is a single card, but it is also at {seen[t]}")
        seen[t] = where
        return t

    def _hand_and_discard(self, p: int, d: dict[str, Any], seen: dict[int, str]) -> None:
        s, b, where = self.s, player_base(p), f"players[{p}]"
        owned = np.zeros(NUM_CARD_TYPES, dtype=np.int32)
        for key, field in (("hand", P_HAND), ("discard", P_DISCARD)):
            for i, cid in enumerate(_list(d[key], f"{where}.{key}")):
                at = f"{where}.{key}[{i}]"
                t = _card(cid, at)
                if t >= NUM_START_TYPES:
                    self._count_sale(t, at, seen)
                elif key == "discard" and CARD_KIND[t] == K_TRIBUNE:
                    raise _fail(at, "the Tribune never stays in the discard pile: playing it takes the pile back")
                s[b + field + t] += 1
                owned[t] += 1
                if key == "discard":
                    s[b + P_DISCARD_TOP] = t  # the last card listed is the top
        if not np.array_equal(owned[:NUM_START_TYPES], START_HAND_COUNTS[:NUM_START_TYPES]):
            have = Counter(CARD_ID[t] for t in range(NUM_START_TYPES) for _ in range(owned[t]))
            need = Counter(CARD_ID[t] for t in range(NUM_START_TYPES) for _ in range(START_HAND_COUNTS[t]))
            raise _fail(
                where,
                f"hand and discard must hold the starting cards {_counts_text(need)} exactly once each "
                f"(Prefect twice); found {_counts_text(have)}",
            )

    # ---------------------------------------------------------------- header
    def _header(self) -> None:
        s, d = self.s, self.d
        s[TURN_COUNT] = _int(d.get("turn_count", 0), "turn_count", 0, MAX_TURNS)
        s[DECISION_COUNT] = _int(d.get("decision_count", 0), "decision_count", 0, MAX_DECISIONS)
        s[PRAEFECTUS_MAGNUS] = self._player(d["praefectus_magnus"], "praefectus_magnus")
        holder = d["concordia_card"]
        s[CONCORDIA_HOLDER] = -1 if holder is None else self._player(holder, "concordia_card")
        if s[OPT_INTERMEDIATE]:
            s[INTERMEDIATE_PAID] = int(_bool(d.get("intermediate_scoring_paid", False), "intermediate_scoring_paid"))
        elif d.get("intermediate_scoring_paid", False):
            raise _fail("intermediate_scoring_paid", "the intermediate scoring option is off")
        self._check_intermediate()

    def _check_intermediate(self) -> None:
        """A VP marker is set by a first Tribune; once all have one, the payout resets them (docs/rules.md §8)."""
        s, n = self.s, self.n
        done = [bool(s[player_base(p) + P_INTERMEDIATE_DONE]) for p in range(n)]
        for p in range(n):
            b = player_base(p)
            if s[INTERMEDIATE_PAID] and (not done[p] or s[b + P_INTERMEDIATE_VP]):
                raise _fail(f"players[{p}]", "after the intermediate payout every player is done and every VP is 0")
            if not done[p] and s[b + P_INTERMEDIATE_VP]:
                raise _fail(f"players[{p}].intermediate_vp", "a player scores it at their first Tribune (done)")
        if all(done) and s[OPT_INTERMEDIATE] and not s[INTERMEDIATE_PAID]:
            raise _fail("intermediate_scoring_paid", "every player has scored, so the payout has happened: true")

    def _pending(self) -> None:
        pending = _object(self.d.get("pending", {}), "pending", (), PENDING_KEYS)
        phase = self._decision_and_players(pending)
        action = self._cards_played(pending)
        self._action_context(pending, phase, action)
        self._incoming(pending.get("incoming"))
        self.s[FINAL_TURNS_LEFT] = self._final_turns_left()

    def _decision_and_players(self, pending: dict[str, Any]) -> int:
        """The decision, who takes it (``current_player``) and whose turn it is."""
        s, d = self.s, self.d
        decision = pending.get("decision", PHASE_NAMES[PHASE_PLAY_CARD])
        phase = s[PHASE] = _choice(decision, "pending.decision", DECISION_INDEX, "decision")
        if phase == PHASE_GAME_OVER:
            if d["current_player"] is not None:
                raise _fail("current_player", "must be null once the game is over")
            s[CURRENT_PLAYER] = -1
        else:
            s[CURRENT_PLAYER] = self._player(d["current_player"], "current_player")
        if "turn_player" in d:
            s[TURN_PLAYER] = self._player(d["turn_player"], "turn_player")
        else:
            s[TURN_PLAYER] = self._default_turn_player()
        return phase

    def _cards_played(self, pending: dict[str, Any]) -> int:
        """The card played and the action carried out (the card's own unless a Diplomat copies one)."""
        played = self._kind(pending.get("card"), "pending.card")
        own_action = KIND_NAMES[played] if played not in (-1, K_DIPLOMAT) else None
        action = self._kind(pending.get("action", own_action), "pending.action")
        self.s[PLAYED_KIND], self.s[ACTION_KIND] = played, action
        return action

    def _action_context(self, pending: dict[str, Any], phase: int, action: int) -> None:
        """Architect steps, Mercator trades, Senator/Consul purchases and the Praefectus Magnus pass."""
        s = self.s
        s[STEPS_LEFT] = _int(pending.get("steps_left", self._default_steps(phase)), "pending.steps_left", 0, MAX_STEPS)
        traded = [_good(g, "pending.traded") for g in _list(pending.get("traded", []), "pending.traded")]
        if len(set(traded)) != len(traded) or len(traded) > MERCATOR_KINDS:
            raise _fail(
                "pending.traded",
                f"lists at most {MERCATOR_KINDS} different goods, got {short_repr(pending['traded'])}",
            )
        s[TRADED_GOODS] = sum(1 << g for g in traded)
        most = max(BUYS_PER_ACTION.values())
        bought = _list(pending.get("slots_bought", []), "pending.slots_bought")
        slots = [_int(k, "pending.slots_bought", 1, DISPLAY_SLOTS) - 1 for k in bought]
        if len(set(slots)) != len(slots) or len(slots) > most:
            raise _fail("pending.slots_bought", f"lists at most {most} different slot numbers (1..{DISPLAY_SLOTS})")
        s[SLOTS_BOUGHT] = sum(1 << slot for slot in slots)
        buys = pending.get("buys_left", self._default_buys(phase, action, len(slots)))
        s[BUYS_LEFT] = _int(buys, "pending.buys_left", 0, most)
        passes = pending.get("praefectus_magnus_passes", False)
        s[PM_PASS_PENDING] = int(_bool(passes, "pending.praefectus_magnus_passes"))

    def _kind(self, value: Any, where: str) -> int:
        return -1 if value is None else _choice(value, where, KIND_INDEX, "card kind")

    def _default_turn_player(self) -> int:
        if self.s[PHASE] != PHASE_GAME_OVER:
            return int(self.s[CURRENT_PLAYER])
        if self.s[CONCORDIA_HOLDER] < 0:
            raise _fail("concordia_card", "the game only ends after someone took the Concordia card")
        return (int(self.s[CONCORDIA_HOLDER]) - 1) % self.n  # the last final turn was the holder's right neighbour's

    def _default_steps(self, phase: int) -> int:
        """An Architect starts with one step per colonist on the board."""
        if phase != PHASE_ARCHITECT_MOVE:
            return 0
        return int(facts.architect_steps(self.s, int(self.s[TURN_PLAYER])))

    def _default_buys(self, phase: int, action: int, bought: int) -> int:
        if phase != PHASE_BUY_CARDS or action not in BUYS_PER_ACTION:
            return 0
        return max(0, BUYS_PER_ACTION[action] - bought)

    def _incoming(self, value: Any) -> None:
        if value is None:
            return
        rows = _list(value, "pending.incoming")
        if len(rows) != self.n:
            raise _fail("pending.incoming", f"lists the goods waiting for each of the {self.n} players")
        for p, row in enumerate(rows):
            where = f"pending.incoming[{p}]"
            for name, k in _object(row, where).items():
                good = _good(name, where)
                self.s[INCOMING + p * NUM_GOODS + good] = _int(k, f"{where}.{name}", 0, MAX_INCOMING)

    def _final_turns_left(self) -> int:
        """Turn ends left before scoring: fixed by who took the Concordia card and whose turn it is."""
        s, n, given = self.s, self.n, self.d.get("final_turns_left")
        holder = int(s[CONCORDIA_HOLDER])
        if holder < 0:
            if given is not None:
                raise _fail("final_turns_left", "must be null while nobody holds the Concordia card")
            return -1
        if s[PHASE] == PHASE_GAME_OVER:
            last = (holder - 1) % n  # the final turns end with the holder's right neighbour
            if s[TURN_PLAYER] != last:
                raise _fail(
                    "turn_player", f"player {holder} took the Concordia card, so player {last} had the last turn"
                )
            expected = 0
        else:  # the holder's own turn ends too, then one turn per other player
            expected = int(facts.final_turns_left(n, holder, int(s[TURN_PLAYER])))
        if given is not None and _int(given, "final_turns_left", 0, n) != expected:
            raise _fail(
                "final_turns_left",
                f"player {holder} took the Concordia card and it is player {int(s[TURN_PLAYER])}'s turn, "
                f"so {expected} turn ends are left, not {given}",
            )
        return expected

    # ---------------------------------------------------------------- cross checks
    def _check_board(self) -> None:
        """Houses and colonists: the limits per player and who may share a path."""
        s, m, n = self.s, self.m, self.n
        occupant: dict[int, str] = {}
        occupancy = np.zeros(MAX_PATHS, dtype=np.int32)  # colonists per path so far (``legal.path_occupancy``)
        for p in range(n):
            b = player_base(p)
            houses = int(sum(s[house_index(p, c)] for c in range(len(m.places))))
            if houses > HOUSES_PER_PLAYER:
                raise _fail("cities", f"player {p} has {houses} houses; a player has {HOUSES_PER_PLAYER}")
            if houses == HOUSES_PER_PLAYER and s[CONCORDIA_HOLDER] < 0:
                raise _fail("concordia_card", f"player {p} built all {HOUSES_PER_PLAYER} houses, so someone holds it")
            squares: set[int] = set()
            for slot in range(LAND_COLONISTS + SEA_COLONISTS):
                loc = int(s[b + P_COLONISTS + slot])
                if loc >= PATH_LOC_BASE:
                    path = loc - PATH_LOC_BASE
                    # the Architect's own rule for ending a move there (sea paths are shared on Aegyptus)
                    if not path_is_free_for(m.tables, occupancy, path, m.tables[M_PATH_KIND + path]):
                        raise _fail(
                            f"players[{p}].colonists",
                            f"only one colonist fits on {_path_ids(m)[path]}; {occupant[path]} already stands there",
                        )
                    occupancy[path] += 1
                    occupant[path] = f"a colonist of player {p}"
                elif loc >= 0 and m.places[loc] in m.special_squares:
                    if loc in squares:
                        raise _fail(f"players[{p}].colonists", f"one colonist per player on the {m.places[loc]} square")
                    squares.add(loc)
            self._check_reachable(p)

    def _check_reachable(self, p: int) -> None:
        """A colonist on a path or square got there from the capital or a city with its house.

        Colonists enter the board only there (Tribune, Colonist) and move only along paths of
        their kind, so a path no such city connects to (the Red Sea without a house in a Red
        Sea port, an island) cannot hold one.
        """
        s, m = self.s, self.m
        origins = [m.places.index(m.capital)]
        origins += [c for c in range(len(m.places)) if s[house_index(p, c)] == 1]
        for slot in range(LAND_COLONISTS + SEA_COLONISTS):
            loc = int(s[player_base(p) + P_COLONISTS + slot])
            if loc >= PATH_LOC_BASE:
                paths = [loc - PATH_LOC_BASE]
            elif loc >= 0 and m.places[loc] in m.special_squares:
                paths = [q for q in range(len(m.paths)) if m.tables[M_PATH_SPECIAL + q] == loc]
            else:
                continue
            if not any(facts.path_distance(m.tables, c, q) < UNREACHABLE for c in origins for q in paths):
                where = _path_ids(m)[paths[0]] if loc >= PATH_LOC_BASE else f"the {m.places[loc]} square"
                raise _fail(
                    f"players[{p}].colonists",
                    f"no colonist of player {p} can reach {where}: its paths connect neither to the capital "
                    "nor to a city with a house of that player",
                )

    def _check_flow(self) -> None:
        """The pending decision agrees with the card played, the players involved and the display."""
        s, n = self.s, self.n
        phase, played, action = int(s[PHASE]), int(s[PLAYED_KIND]), int(s[ACTION_KIND])
        decision, turn = PHASE_NAMES[phase], int(s[TURN_PLAYER])
        allowed = DECISION_ACTIONS[phase]
        if phase == PHASE_GAME_OVER and s[CONCORDIA_HOLDER] < 0:
            raise _fail("concordia_card", "the game only ends after someone took the Concordia card")
        if phase in (PHASE_PLAY_CARD, PHASE_GAME_OVER) and (played >= 0 or action >= 0):
            raise _fail("pending", f"no card is played yet in '{decision}': leave out card and action")
        if phase == PHASE_DIPLOMAT and (played != K_DIPLOMAT or action >= 0):
            raise _fail("pending", f"'{decision}' follows playing a Diplomat (card) before any action is copied")
        if allowed and action not in allowed:
            names = " or ".join(KIND_NAMES[k] for k in allowed)
            raise _fail("pending.action", f"'{decision}' is part of the action of a {names}")
        if action >= 0 and played not in (action, K_DIPLOMAT):
            raise _fail("pending.card", f"the {KIND_NAMES[action]} action comes from playing it or a Diplomat")
        if played >= 0 and played != K_TRIBUNE:
            top = int(s[player_base(turn) + P_DISCARD_TOP])
            if top < 0 or CARD_KIND[top] != played:
                raise _fail(f"players[{turn}].discard", f"the {KIND_NAMES[played]} played this turn must be on top")
        current = int(s[CURRENT_PLAYER])
        if phase not in (PHASE_OVERFLOW, PHASE_GAME_OVER) and current != turn:
            raise _fail("turn_player", f"only a full storehouse asks another player than the turn player ({decision})")
        incoming = s[INCOMING : INCOMING + n * NUM_GOODS]
        if incoming.any() and phase != PHASE_OVERFLOW:
            raise _fail("pending.incoming", "goods wait for a storehouse only while a player chooses what to keep")
        if phase == PHASE_OVERFLOW and not incoming[current * NUM_GOODS : (current + 1) * NUM_GOODS].any():
            raise _fail("pending.incoming", f"player {current} chooses goods to keep, so goods must be waiting")
        if s[PM_PASS_PENDING] and (phase != PHASE_OVERFLOW or int(s[PRAEFECTUS_MAGNUS]) != turn):
            raise _fail("pending.praefectus_magnus_passes", "only while the holder's own production is being stored")
        if phase == PHASE_BONUS_GOOD:
            gavdos = self.m.variable_bonus_province
            if gavdos is None or s[BONUS_GOOD + self.m.province_index(gavdos)] >= 0:
                raise _fail("pending.decision", f"'{decision}' needs the Gavdos province (Creta) without its marker")
        self._check_display(phase)

    def _check_display(self, phase: int) -> None:
        """The display is as the engine's close-up and refill leave it (docs/rules.md §4.6)."""
        s = self.s
        bought = _bits(int(s[SLOTS_BOUGHT])) if phase == PHASE_BUY_CARDS else []
        for slot in bought:
            if s[DISPLAY + slot] >= 0:
                raise _fail("display", f"slot {slot + 1} was bought from this action, so it is empty")
        before = s.copy()
        before[[DISPLAY + slot for slot in bought]] = 0  # bought this action: still in place until the action ends
        settled = before.copy()
        close_up_display(settled)
        if not np.array_equal(settled, before):
            raise _fail("display", "the cards close up to the left: an empty slot is followed by a card")
        cards = refill_display(settled)
        if not np.array_equal(settled, before):
            raise _fail("display", "a slot is empty while the stack still holds cards to refill it")
        ended = phase in (PHASE_BUY_CARDS, PHASE_GAME_OVER) or s[CONCORDIA_HOLDER] >= 0
        if not ended and cards == 0:
            raise _fail("concordia_card", "the display and stack are empty: the last buyer took the Concordia card")

    # ---------------------------------------------------------------- reachability of the pending decision
    # The checks above test each part of a position against the rules; these ask the
    # engine's own functions whether the pending decision is one it could leave pending:
    # it never waits on a decision nobody can take, never leaves open an action that has
    # nothing left to do, and only asks about a storehouse when the choice is real.
    def _check_pending_is_reachable(self) -> None:
        s, phase = self.s, int(self.s[PHASE])
        if phase == PHASE_GAME_OVER:
            return
        self._check_context_belongs_to_the_decision(phase)
        self._check_allowance(phase)
        if phase == PHASE_OVERFLOW:
            self._check_storehouse_choice()
        decision = PHASE_NAMES[phase]
        mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
        fill_legal(s, self.m.tables, mask)
        if not mask.any():
            hint = DEAD_DECISION_HINTS.get(phase, "no choice of it is legal here")
            raise _fail("pending.decision", f"'{decision}' cannot be taken: {hint}, so the game could not go on")
        closed = s.copy()
        close_finished_parts(closed, self.m.tables)
        if not np.array_equal(closed, s):
            raise _fail("pending", f"the action has used up what it may do, so it ended: '{decision}' is over")
        closed = s.copy()
        advance(closed, self.m.tables, mask)
        if not np.array_equal(closed, s):
            raise _fail(
                "pending.decision",
                f"'{decision}' offers nothing but 'done' here, which the engine takes by itself: "
                "the action would already be over",
            )

    def _check_context_belongs_to_the_decision(self, phase: int) -> None:
        """The engine clears an action's context when the turn ends: it exists during its own decisions only."""
        for key, field, phases in CONTEXT_FIELDS:
            if self.s[field] and phase not in phases:
                names = " or ".join(f"'{PHASE_NAMES[q]}'" for q in phases)
                raise _fail(f"pending.{key}", f"belongs to {names}; it is cleared once that action ends")

    def _action_start(self, kind: int) -> np.ndarray:
        """The state right after the engine began the ``kind`` action for the turn player (a scratch copy)."""
        start = self.s.copy()
        begin_action(start, self.m.tables, int(self.s[TURN_PLAYER]), kind)
        return start

    def _check_allowance(self, phase: int) -> None:
        """An Architect never has more steps, nor a Senator/Consul more purchases, than the action began with."""
        s, action = self.s, int(self.s[ACTION_KIND])
        if phase in (PHASE_ARCHITECT_MOVE, PHASE_ARCHITECT_BUILD):
            steps = int(self._action_start(action)[STEPS_LEFT])
            if s[STEPS_LEFT] > steps:
                raise _fail(
                    "pending.steps_left",
                    f"the Architect began with {steps} steps (one per colonist on the board); {int(s[STEPS_LEFT])} "
                    "are left",
                )
        if phase == PHASE_BUY_CARDS:
            allowance = int(self._action_start(action)[BUYS_LEFT])
            bought = len(_bits(int(s[SLOTS_BOUGHT])))
            if s[BUYS_LEFT] + bought != allowance:
                raise _fail(
                    "pending.buys_left",
                    f"a {KIND_NAMES[action]} buys {allowance} card(s) in all: {bought} bought leaves "
                    f"{allowance - bought}, not {int(s[BUYS_LEFT])}",
                )

    def _check_storehouse_choice(self) -> None:
        """Produced goods are stored player by player from the turn player; one asks only when the choice is real."""
        s, n = self.s, self.n
        chooser, turn = int(s[CURRENT_PLAYER]), int(s[TURN_PLAYER])
        for k in range((chooser - turn) % n):
            q = (turn + k) % n
            if s[INCOMING + q * NUM_GOODS : INCOMING + (q + 1) * NUM_GOODS].any():
                raise _fail(
                    f"pending.incoming[{q}]",
                    f"player {q} stores before player {chooser} (storing goes round from player {turn}): "
                    "nothing of theirs can still wait",
                )
        if not store_what_is_forced(s.copy(), chooser):
            free = int(facts.free_slots(s, chooser))
            raise _fail(
                f"pending.incoming[{chooser}]",
                f"player {chooser} has {free} free storehouse slots: these goods are stored or lost without a "
                "choice (a choice needs more goods of at least two kinds than free slots, and a free slot)",
            )


def _indexed(names: Iterable[str]) -> dict[str, int]:
    return {name: i for i, name in enumerate(names)}


def _counts_text(counts: Counter[str]) -> str:
    return ", ".join(f"{k}×{name}" for name, k in sorted(counts.items())) or "nothing"
