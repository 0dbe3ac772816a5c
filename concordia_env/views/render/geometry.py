"""Where things go on the board picture: place and path positions, computed once per map.

Positions are in map-height units with y pointing down, as on the printed board: a place at
``Map.xy = (fx, fy)`` sits at ``(fx * aspect, fy)``. Only numpy is needed here.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from concordia_env.engine.maps import LAND, Map, load

from .style import COLONIST_SPREAD, MAP_ASPECT, MAP_MARGIN, MARKER_SEARCH_RADII, TWIN_PATH_OFFSET

#: angles tried around a province's centre when looking for a free spot for its marker
_MARKER_ANGLES = np.linspace(0.0, 2 * np.pi, 12, endpoint=False)
#: where a city's houses, name and colonists are drawn relative to it (obstacles for the bonus markers)
HOUSE_ROW_OFFSET = np.array([0.025, 0.0])
NAME_OFFSET = np.array([0.0, 0.028])
COLONIST_ROW_OFFSET = np.array([0.0, 0.024])
#: clearance given up per unit of distance from the province's centre
MARKER_DRIFT_PENALTY = 0.15


@dataclass(frozen=True)
class BoardGeometry:
    """Static positions of one map's picture."""

    places: np.ndarray  # (num_places, 2)
    segments: np.ndarray  # (num_paths, 2, 2) drawn end points of each path
    midpoints: np.ndarray  # (num_paths, 2) where colonists on a path stand
    normals: np.ndarray  # (num_paths, 2) unit normal of each path, to spread colonists
    markers: np.ndarray  # (num_provinces, 2) where each province's bonus marker is drawn
    bounds: tuple[float, float, float, float]  # x0, x1, y0, y1 of the visible area

    @property
    def width(self) -> float:
        return self.bounds[1] - self.bounds[0]

    @property
    def height(self) -> float:
        return self.bounds[3] - self.bounds[2]


@cache
def board_geometry(map_name: str) -> BoardGeometry:
    """The positions for ``map_name``; cached because they never change."""
    m = load(map_name)
    aspect = MAP_ASPECT[m.name]
    places = np.array([m.xy[p] for p in m.places], dtype=np.float64) * np.array([aspect, 1.0])
    segments = _path_segments(m, places)
    midpoints = segments.mean(axis=1)
    direction = segments[:, 1] - segments[:, 0]
    direction /= np.maximum(np.linalg.norm(direction, axis=1, keepdims=True), 1e-9)
    normals = np.stack([-direction[:, 1], direction[:, 0]], axis=1)
    markers = _marker_positions(m, places, midpoints)
    lo = np.minimum(places.min(axis=0), markers.min(axis=0)) - MAP_MARGIN
    hi = np.maximum(places.max(axis=0), markers.max(axis=0)) + MAP_MARGIN
    return BoardGeometry(places, segments, midpoints, normals, markers, (lo[0], hi[0], lo[1], hi[1]))


def _path_segments(m: Map, places: np.ndarray) -> np.ndarray:
    """End points per path; a land and a sea path between the same cities are drawn side by side."""
    index = {name: i for i, name in enumerate(m.places)}
    kinds_between: dict[frozenset[str], set[int]] = {}
    for kind, a, b in m.paths:
        kinds_between.setdefault(frozenset((a, b)), set()).add(kind)
    segments = np.zeros((len(m.paths), 2, 2))
    for p, (kind, a, b) in enumerate(m.paths):
        start, end = places[index[a]], places[index[b]]
        if len(kinds_between[frozenset((a, b))]) > 1:
            lo, hi = sorted((a, b))  # the same side for both orders of the ends
            d = places[index[hi]] - places[index[lo]]
            normal = np.array([-d[1], d[0]]) / max(float(np.linalg.norm(d)), 1e-9)
            shift = normal * TWIN_PATH_OFFSET * (1 if kind == LAND else -1)
            start, end = start + shift, end + shift
        segments[p] = (start, end)
    return segments


def _marker_positions(m: Map, places: np.ndarray, midpoints: np.ndarray) -> np.ndarray:
    """A spot near each province's cities that keeps clear of what else is drawn there.

    Obstacles are the cities, their names (below them), their houses (to their right), the
    path midpoints where colonists stand, and the markers already placed.
    """
    obstacles = [places, midpoints, places + NAME_OFFSET, places - COLONIST_ROW_OFFSET]
    obstacles += [places + k * HOUSE_ROW_OFFSET for k in (1, 2)]
    obstacles += [places - COLONIST_ROW_OFFSET + k * HOUSE_ROW_OFFSET for k in (-1, 1)]
    out = np.zeros((len(m.provinces), 2))
    for v, cities in enumerate(m.provinces.values()):
        centre = places[[m.place_index(c) for c in cities]].mean(axis=0)
        candidates = np.array(
            [centre]
            + [centre + r * np.array([np.cos(a), np.sin(a)]) for r in MARKER_SEARCH_RADII[1:] for a in _MARKER_ANGLES]
        )
        taken = np.concatenate([*obstacles, out[:v]])
        nearest = np.linalg.norm(candidates[:, None, :] - taken[None, :, :], axis=2).min(axis=1)
        drift = np.linalg.norm(candidates - centre, axis=1)
        out[v] = candidates[int(np.argmax(nearest - MARKER_DRIFT_PENALTY * drift))]
    return out


def spread(centre: np.ndarray, normal: np.ndarray, count: int) -> np.ndarray:
    """``count`` points on a line through ``centre`` along ``normal``, COLONIST_SPREAD apart."""
    offsets = (np.arange(count) - (count - 1) / 2) * COLONIST_SPREAD
    return centre + offsets[:, None] * normal


def ring(centre: np.ndarray, radius: float, count: int) -> np.ndarray:
    """``count`` points evenly on a circle around ``centre``, starting at the top."""
    angles = -np.pi / 2 + 2 * np.pi * np.arange(count) / max(count, 1)
    return centre + radius * np.stack([np.cos(angles), np.sin(angles)], axis=1)
