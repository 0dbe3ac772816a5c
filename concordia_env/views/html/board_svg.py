"""The board of a replay page: a static SVG of the map and the coordinates the page draws pieces at.

The picture is the PNG renderer's (:mod:`concordia_env.views.render.board_map`) in SVG: the same
place and path positions (:func:`concordia_env.views.render.geometry.board_geometry`), colours,
sizes and colonist outlines (:mod:`concordia_env.views.render.style`,
:mod:`concordia_env.views.render.shapes`). What never changes during a game (paths, the capital,
special squares, names, province labels) is drawn here once; the pieces (city tokens,
bonus markers, the Nile marker, houses, colonists) are drawn by the page's ``board.js``
from each frame at the positions given by :func:`board_data`.

Coordinates are map-height units times :data:`SCALE` (the map is ``SCALE`` high), y down.
"""

from __future__ import annotations

from functools import cache
from html import escape
from typing import Any

import numpy as np

from concordia_env.engine.cards import BONUS_MARKER_COINS, FOOD, GOODS
from concordia_env.engine.maps import LAND, load
from concordia_env.engine.state import LOC_STOREHOUSE, PATH_LOC_BASE

from ..render import style
from ..render.geometry import board_geometry
from ..render.shapes import BOAT_POLYGONS, PAWN_POLYGONS

#: SVG user units per map-height unit
SCALE = 1000.0
#: coordinates are written with this many decimals
DECIMALS = 1


def _n(value: float) -> str:
    """A number as short SVG text (``12.0`` -> ``12``)."""
    text = f"{value * SCALE:.{DECIMALS}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _outline(polygons: tuple[np.ndarray, ...]) -> str:
    """SVG path data of a colonist outline, scaled like a matplotlib marker of size 1 and flipped to y down.

    matplotlib scales a path marker so that its largest coordinate is half the marker size.
    """
    extent = max(float(np.abs(p).max()) for p in polygons)
    parts = []
    for poly in polygons:
        pts = poly / (2 * extent) * np.array([1.0, -1.0])
        parts.append("M" + " L".join(f"{x:.3f} {y:.3f}" for x, y in pts) + " Z")
    return " ".join(parts)


@cache
def static_svg(map_name: str) -> str:
    """The fixed layer of ``map_name``'s board as SVG elements (no ``<svg>`` wrapper)."""
    m = load(map_name)
    geo = board_geometry(map_name)
    out: list[str] = []
    width = style.PATH_WIDTH
    for p, (kind, a, b) in enumerate(m.paths):
        if kind == LAND:
            color, dashes = style.LAND_PATH, style.LAND_DASHES[1]
        else:
            shade = m.sea_path_kinds.get((min(a, b), max(a, b)), "sea")
            color, dashes = style.SEA_PATH_SHADES.get(shade, style.SEA_PATH), style.SEA_DASHES[1]
        (x1, y1), (x2, y2) = geo.segments[p]
        dash = ",".join(_n(d * width) for d in dashes)
        out.append(
            f'<line class="path" x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{color}" '
            f'stroke-dasharray="{dash}"/>'
        )
    cx, cy = geo.places[m.place_index(m.capital)]
    half = style.CAPITAL_SIZE / 2
    out.append(
        f'<rect class="capital" x="{_n(cx - half)}" y="{_n(cy - half)}" width="{_n(2 * half)}" '
        f'height="{_n(2 * half)}" fill="{style.CAPITAL}"/>'
    )
    for name in m.special_squares:
        x, y = geo.places[m.place_index(name)]
        r = style.SQUARE_SIZE / 2
        color = style.SPECIAL_SQUARE_COLORS.get(name, style.COIN)
        points = " ".join(f"{_n(px)},{_n(py)}" for px, py in ((x, y - r), (x + r, y), (x, y + r), (x - r, y)))
        out.append(f'<polygon class="square" points="{points}" fill="{color}"/>')
    for place, name in enumerate(m.places):
        x, y = geo.places[place]
        bold = " bold" if name == m.capital or name in m.special_squares else ""
        out.append(f'<text class="name{bold}" x="{_n(x)}" y="{_n(y + style.NAME_GAP)}">{escape(name)}</text>')
    for v, name in enumerate(m.province_names):
        x, y = geo.markers[v]
        label = m.province_numerals.get(name) or name
        out.append(
            f'<text class="province" x="{_n(x)}" y="{_n(y + style.MARKER_SIZE * 0.7)}" '
            f'data-province="{escape(name)}">{escape(label)}</text>'
        )
    return "\n".join(out)


def view_box(map_name: str) -> str:
    x0, x1, y0, y1 = board_geometry(map_name).bounds
    return f"{_n(x0)} {_n(y0)} {_n(x1 - x0)} {_n(y1 - y0)}"


def _points(array: np.ndarray) -> list[list[float]]:
    return [[round(float(v) * SCALE, DECIMALS) for v in row] for row in array]


def board_data(map_name: str) -> dict[str, Any]:
    """What ``board.js`` needs to draw the pieces: positions, sizes, colours, outlines, names."""
    m = load(map_name)
    geo = board_geometry(map_name)
    sizes = {
        name.lower(): getattr(style, name) * SCALE
        for name in (
            "CITY_SIZE",
            "HOUSE_SIZE",
            "COLONIST_SIZE",
            "MARKER_SIZE",
            "NAME_FONT",
            "MARKER_FONT",
            "PATH_WIDTH",
            "EDGE_WIDTH",
            "HALO_WIDTH",
            "COLONIST_ROW_GAP",
            "COLONIST_SPREAD",
            "CITY_RING",
        )
    }
    sizes.update(
        city_row_max=style.CITY_ROW_MAX,
        house_spacing=style.HOUSE_SPACING,
        house_row_start=style.HOUSE_ROW_START,
        coin_side_fade=style.COIN_SIDE_FADE,
        coin_area=style.COIN_AREA,
    )
    return {
        "map": m.name,
        "title": m.title,
        "view_box": view_box(map_name),
        "static_svg": static_svg(map_name),
        "places": _points(geo.places),
        "midpoints": _points(geo.midpoints),
        "normals": [[round(float(v), 4) for v in row] for row in geo.normals],
        "markers": _points(geo.markers),
        "place_names": list(m.places),
        "capital": m.place_index(m.capital),
        "province_names": list(m.province_names),
        "province_labels": [m.province_numerals.get(n) or n for n in m.province_names],
        "path_names": [f"{a}–{b}" for _, a, b in m.paths],
        "path_kinds": [kind for kind, _, _ in m.paths],
        "sizes": sizes,
        "colors": {
            "players": list(style.PLAYER_COLORS),
            "goods": list(style.GOOD_COLORS),
            "goods_text": list(style.GOOD_TEXT_COLORS),
            "background": style.BACKGROUND,
            "panel": style.PANEL_BACKGROUND,
            "text": style.TEXT,
            "muted": style.MUTED,
            "coin": style.COIN,
            "highlight": style.HIGHLIGHT,
            "nile": style.SEA_PATH_SHADES["nile"],
            "nile_marker": style.GOOD_COLORS[FOOD],
            "land_path": style.LAND_PATH,
            "sea_path": style.SEA_PATH,
            "red_sea": style.SEA_PATH_SHADES["red_sea"],
        },
        "legend": [[kind, style.LEGEND_LABELS[kind]] for kind in style.legend_kinds(m)],
        "outlines": {"land": _outline(PAWN_POLYGONS), "sea": _outline(BOAT_POLYGONS)},
        "bonus_marker_coins": [int(c) for c in BONUS_MARKER_COINS],
        "goods": list(GOODS),
        "path_loc_base": PATH_LOC_BASE,
        "loc_storehouse": LOC_STOREHOUSE,
    }
