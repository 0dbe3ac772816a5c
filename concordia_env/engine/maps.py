"""Map boards: names, provinces, paths, and the numpy tables the rules read.

A map is loaded once from ``data/maps/<name>.json`` (the project's own copy of the
reference boards) and cached. Besides the human-facing attributes the issue names
(``name``, ``capital``, ``cities``, ``provinces``, ``letters``, ``land_paths``,
``sea_paths``) a :class:`Map` carries ``tables``: one flat int32 array with every fact the
compiled rules need, at the named offsets ``M_*`` declared below.

Places and paths get small integer ids:

* *places* ``0..num_places-1``: the board's cities in file order (capital included),
  then the Aegyptus special squares (frankincense, gold). Special squares are places a
  sea colonist can stand on, but nobody builds or settles there.
* *paths* ``0..num_paths-1``: land paths, then sea paths, then the lines leading to
  special squares (sea paths whose far end is the square). A path is one spot a colonist
  can stand on. Path ids in text read ``"land:Novaria-Roma"`` (ends in sorted order).

Distances between paths are precomputed: an Architect move costs the shortest number of
steps, and occupied paths may be passed through, so the distance only depends on the
board. A line to a special square is a dead end: the square does not connect its lines
to each other (**decision**: the square is not a city).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

import numpy as np

from .errors import short_repr
from .layout import Layout

MAP_NAMES: tuple[str, ...] = ("imperium", "italia", "aegyptus", "creta")
LAND, SEA = 0, 1
PATH_KINDS = ("land", "sea")
#: distance used for "cannot reach" (larger than any step budget: at most 6 colonists)
UNREACHABLE = 1000


def _read(name: str) -> dict:
    return json.loads(resources.files("concordia_env.engine.data").joinpath(f"maps/{name}.json").read_text())


def _sizes() -> tuple[int, int, int]:
    places = paths = provinces = 0
    for name in MAP_NAMES:
        d = _read(name)
        squares = d["special_squares"]
        places = max(places, len(d["cities"]) + len(squares))
        lines = sum(len(s["cities"]) for s in squares)
        paths = max(paths, len(d["land_paths"]) + len(d["sea_paths"]) + lines)
        provinces = max(provinces, len(d["provinces"]))
    return places, paths, provinces


#: the largest board of all four maps fixes the sizes of the state and action layouts
MAX_CITIES, MAX_PATHS, MAX_PROVINCES = _sizes()

# --------------------------------------------------------------------------- map tables
_T = Layout()
M_MAP_ID = _T.field("MAP_ID", doc="index in MAP_NAMES")
M_NUM_CITIES = _T.field("NUM_CITIES", doc="places on this board (cities, capital, special squares)")
M_NUM_PATHS = _T.field("NUM_PATHS")
M_NUM_PROVINCES = _T.field("NUM_PROVINCES")
M_CAPITAL = _T.field("CAPITAL", doc="place id of Roma / Memphis / Knossos")
M_SHARED_SEA = _T.field("SHARED_SEA", doc="1 where sea paths hold any number of colonists (Aegyptus)")
M_CASH_BONUS_EXTRA = _T.field("CASH_BONUS_EXTRA", doc="sestertii added to every cash bonus (Creta: 2)")
M_NILE_START = _T.field("NILE_START", doc="province where the Nile food marker starts, -1 if none")
M_FRANKINCENSE = _T.field("FRANKINCENSE", doc="place id of the frankincense square, -1 if none")
M_VARIABLE_PROVINCE = _T.field("VARIABLE_PROVINCE", doc="province with a free-choice bonus (Gavdos), -1")
M_CITY_PROVINCE = _T.field("CITY_PROVINCE", MAX_CITIES, doc="province of each place, -1 capital/square")
M_CITY_SPECIAL = _T.field("CITY_SPECIAL", MAX_CITIES, doc="1 for special squares")
M_CITY_HAS_PATH = _T.field("CITY_HAS_PATH", MAX_CITIES * 2, doc="[place, kind]: a path of that kind leaves it")
M_PATH_END_A = _T.field("PATH_END_A", MAX_PATHS)
M_PATH_END_B = _T.field("PATH_END_B", MAX_PATHS)
M_PATH_KIND = _T.field("PATH_KIND", MAX_PATHS, doc="0 land, 1 sea")
M_PATH_SPECIAL = _T.field("PATH_SPECIAL", MAX_PATHS, doc="special square this line leads to, -1")
M_DIST_PATH = _T.field("DIST_PATH", MAX_PATHS * MAX_PATHS, doc="steps from path to path (same kind)")
M_DIST_CITY = _T.field("DIST_CITY", MAX_CITIES * MAX_PATHS, doc="steps from a place to a path")
M_NILE_NEXT = _T.field("NILE_NEXT", MAX_PROVINCES, doc="next province downstream for the Nile marker")
M_FRANKINCENSE_PROVINCE = _T.field("FRANKINCENSE_PROVINCE", MAX_PROVINCES, doc="1: production pays traders")
MAP_TABLE_SIZE = _T.size
MAP_TABLE_LAYOUT = _T


@dataclass(frozen=True)
class Map:
    """One board. Immutable; get it with :func:`load`."""

    name: str
    title: str
    players: tuple[int, ...]
    capital: str
    cities: tuple[str, ...]
    provinces: dict[str, tuple[str, ...]]
    letters: dict[str, str]
    land_paths: list[tuple[str, str]]
    sea_paths: list[tuple[str, str]]
    special_squares: tuple[str, ...]
    special_lines: list[tuple[str, str]]
    sea_path_kinds: dict[tuple[str, str], str]
    xy: dict[str, tuple[float, float]]
    printed: dict[str, str]
    province_numerals: dict[str, str | None]
    nile_route: tuple[str, ...]
    frankincense_provinces: tuple[str, ...]
    variable_bonus_province: str | None
    cash_bonus_extra: int
    shared_sea_paths: bool
    tables: np.ndarray = field(repr=False, compare=False)

    # -- ids ---------------------------------------------------------------------------
    @property
    def map_id(self) -> int:
        return MAP_NAMES.index(self.name)

    @property
    def places(self) -> tuple[str, ...]:
        """Place names by id: cities (capital included), then special squares."""
        return self.cities + self.special_squares

    @property
    def province_names(self) -> tuple[str, ...]:
        return tuple(self.provinces)

    @property
    def paths(self) -> list[tuple[int, str, str]]:
        """Paths by id as (kind, end a, end b)."""
        return (
            [(LAND, a, b) for a, b in self.land_paths]
            + [(SEA, a, b) for a, b in self.sea_paths]
            + [(SEA, a, b) for a, b in self.special_lines]
        )

    @property
    def path_ids(self) -> list[str]:
        return [path_id(kind, a, b) for kind, a, b in self.paths]

    @property
    def letters_used(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.letters.values())))

    def place_index(self, name: str) -> int:
        try:
            return self.places.index(name)
        except ValueError:
            raise ValueError(f"no city {name!r} on the {self.title} map") from None

    def path_index(self, pid: str) -> int:
        try:
            return self.path_ids.index(pid)
        except ValueError:
            raise ValueError(f"no path {pid!r} on the {self.title} map (ids read like 'land:A-B')") from None

    def province_index(self, name: str) -> int:
        try:
            return self.province_names.index(name)
        except ValueError:
            raise ValueError(f"no province {name!r} on the {self.title} map") from None


def path_id(kind: int, a: str, b: str) -> str:
    """The text id of a path: ``"land:Novaria-Roma"`` with the ends sorted."""
    lo, hi = sorted((a, b))
    return f"{PATH_KINDS[kind]}:{lo}-{hi}"


@cache
def load(name: str) -> Map:
    """Load a map by name (``imperium``, ``italia``, ``aegyptus``, ``creta``)."""
    key = name.lower() if isinstance(name, str) else name
    if key not in MAP_NAMES:
        raise ValueError(f"unknown map {short_repr(name)}; choose one of {', '.join(MAP_NAMES)}")
    d = _read(key)
    cities = tuple(c["name"] for c in d["cities"])
    squares = tuple(s["name"] for s in d["special_squares"])
    provinces = {p["name"]: tuple(c["name"] for c in d["cities"] if c["province"] == p["name"]) for p in d["provinces"]}
    special_lines = [tuple(sorted((c, s["name"]))) for s in d["special_squares"] for c in s["cities"]]
    sea_kinds = {(a, b): k for a, b, k in d["sea_paths"]}
    for s in d["special_squares"]:
        for c in s["cities"]:
            sea_kinds[tuple(sorted((c, s["name"])))] = s["kind"]
    xy = {c["name"]: tuple(c["xy"]) for c in d["cities"]}
    for s in d["special_squares"]:  # draw a square beyond the mean of its cities' positions
        pts = np.array([xy[c] for c in s["cities"]])
        xy[s["name"]] = tuple(float(v) for v in pts.mean(axis=0) + np.array([0.06, 0.06]))
    m = Map(
        name=key,
        title=d["title"],
        players=tuple(d["players"]),
        capital=d["capital"],
        cities=cities,
        provinces=provinces,
        letters={c["name"]: c["letter"] for c in d["cities"] if c["letter"]},
        land_paths=[tuple(p) for p in d["land_paths"]],
        sea_paths=[(a, b) for a, b, _ in d["sea_paths"]],
        special_squares=squares,
        special_lines=special_lines,
        sea_path_kinds=sea_kinds,
        xy=xy,
        printed={c["name"]: c["printed"] for c in d["cities"]},
        province_numerals={p["name"]: p["numeral"] for p in d["provinces"]},
        nile_route=tuple(d["nile_marker_route"]),
        frankincense_provinces=tuple(d["frankincense_provinces"]),
        variable_bonus_province=d["variable_bonus_province"],
        cash_bonus_extra=int(d["cash_bonus_extra"]),
        shared_sea_paths=bool(d["shared_sea_paths"]),
        tables=np.zeros(0, dtype=np.int32),
    )
    object.__setattr__(m, "tables", _build_tables(m, {c["name"]: c["province"] for c in d["cities"]}))
    m.tables.setflags(write=False)
    return m


def _build_tables(m: Map, city_province: dict[str, str | None]) -> np.ndarray:
    t = np.zeros(MAP_TABLE_SIZE, dtype=np.int32)
    places = m.places
    paths = m.paths
    prov_names = m.province_names
    assert len(places) <= MAX_CITIES and len(paths) <= MAX_PATHS and len(prov_names) <= MAX_PROVINCES
    t[M_MAP_ID] = m.map_id
    t[M_NUM_CITIES] = len(places)
    t[M_NUM_PATHS] = len(paths)
    t[M_NUM_PROVINCES] = len(prov_names)
    t[M_CAPITAL] = places.index(m.capital)
    t[M_SHARED_SEA] = int(m.shared_sea_paths)
    t[M_CASH_BONUS_EXTRA] = m.cash_bonus_extra
    t[M_NILE_START] = prov_names.index(m.nile_route[0]) if m.nile_route else -1
    t[M_FRANKINCENSE] = places.index("frankincense") if "frankincense" in places else -1
    t[M_VARIABLE_PROVINCE] = prov_names.index(m.variable_bonus_province) if m.variable_bonus_province else -1
    t[M_CITY_PROVINCE : M_CITY_PROVINCE + MAX_CITIES] = -1
    for i, name in enumerate(places):
        prov = city_province.get(name)
        if prov is not None:
            t[M_CITY_PROVINCE + i] = prov_names.index(prov)
        t[M_CITY_SPECIAL + i] = int(name in m.special_squares)
    t[M_PATH_SPECIAL : M_PATH_SPECIAL + MAX_PATHS] = -1
    ends = []
    for p, (kind, a, b) in enumerate(paths):
        ia, ib = places.index(a), places.index(b)
        ends.append((ia, ib))
        t[M_PATH_END_A + p], t[M_PATH_END_B + p], t[M_PATH_KIND + p] = ia, ib, kind
        for end in (ia, ib):
            if name_is_square(m, places[end]):
                t[M_PATH_SPECIAL + p] = end
            t[M_CITY_HAS_PATH + end * 2 + kind] = 1
    dist_path, dist_city = _distances(m, paths, ends)
    t[M_DIST_PATH : M_DIST_PATH + MAX_PATHS * MAX_PATHS] = dist_path.ravel()
    t[M_DIST_CITY : M_DIST_CITY + MAX_CITIES * MAX_PATHS] = dist_city.ravel()
    t[M_NILE_NEXT : M_NILE_NEXT + MAX_PROVINCES] = -1
    route = [prov_names.index(p) for p in m.nile_route]
    for i, province in enumerate(route):
        t[M_NILE_NEXT + province] = route[(i + 1) % len(route)]
    for prov in m.frankincense_provinces:
        t[M_FRANKINCENSE_PROVINCE + prov_names.index(prov)] = 1
    return t


def name_is_square(m: Map, name: str) -> bool:
    return name in m.special_squares


def _distances(m: Map, paths: list, ends: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Shortest step counts path→path and place→path (a step enters the next path)."""
    n = len(paths)
    square_ids = {m.places.index(s) for s in m.special_squares}
    # two paths of one kind are adjacent when they share a place that is not a square
    neighbours: list[list[int]] = [[] for _ in range(n)]
    for p in range(n):
        for q in range(n):
            if p != q and paths[p][0] == paths[q][0]:
                shared = (set(ends[p]) & set(ends[q])) - square_ids
                if shared:
                    neighbours[p].append(q)
    dist_path = np.full((MAX_PATHS, MAX_PATHS), UNREACHABLE, dtype=np.int32)
    for src in range(n):
        dist_path[src, src] = 0
        queue = deque([src])
        while queue:
            p = queue.popleft()
            for q in neighbours[p]:
                if dist_path[src, q] == UNREACHABLE:
                    dist_path[src, q] = dist_path[src, p] + 1
                    queue.append(q)
    dist_city = np.full((MAX_CITIES, MAX_PATHS), UNREACHABLE, dtype=np.int32)
    for c in range(len(m.places)):
        if c in square_ids:
            continue  # a colonist on a square never moves again
        leaving = [p for p in range(n) if c in ends[p]]
        for p in range(n):
            best = min((dist_path[q, p] for q in leaving), default=UNREACHABLE)
            if best < UNREACHABLE:
                dist_city[c, p] = best + 1
    return dist_path, dist_city
