"""The map part of the board picture, drawn with matplotlib (Agg, no pyplot).

What never changes during a game (paths, names, province labels, the legend) is drawn once
per map and size and cached as pixels; each frame puts that background into a fresh figure
and draws only the pieces on top. Text is matplotlib's slowest artist, so keeping the
names in the background keeps a frame fast.

Sizes are in map-height units (the map area is 1 high) and converted to points, so the
picture looks the same at every width. This module imports matplotlib at the top;
:mod:`concordia_env.views.render.board_picture` imports it only when a picture is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from matplotlib import patheffects
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.colors import is_color_like, to_rgb
from matplotlib.figure import Figure

from concordia_env.engine.cards import BONUS_MARKER_COINS, FOOD, GOODS
from concordia_env.engine.maps import LAND, SEA, load

from .frame import CHAR_WIDTH, LEGEND_SYMBOL_CHARS, FrameLayout
from .geometry import BoardGeometry, board_geometry, ring, spread
from .markers import LAND_COLONIST, SEA_COLONIST
from .style import (
    BACKGROUND,
    CAPITAL,
    CAPITAL_SIZE,
    CITY_RING,
    CITY_ROW_MAX,
    CITY_SIZE,
    COIN,
    COIN_AREA,
    COIN_SIDE_FADE,
    COLONIST_ROW_GAP,
    COLONIST_SIZE,
    DPI,
    EDGE_WIDTH,
    GOOD_COLORS,
    HALO_WIDTH,
    HOUSE_ROW_START,
    HOUSE_SIZE,
    HOUSE_SPACING,
    LAND_DASHES,
    LAND_PATH,
    LEGEND_LABELS,
    MARKER_FONT,
    MARKER_SIZE,
    MUTED,
    NAME_FONT,
    NAME_GAP,
    PATH_WIDTH,
    PLAYER_COLORS,
    POINTS_PER_PIXEL,
    SEA_DASHES,
    SEA_PATH_SHADES,
    SPECIAL_SQUARE_COLORS,
    SQUARE_SIZE,
    TEXT,
)
from .view import Snapshot

#: backgrounds kept (about 10 MB each at 1600 pixels wide); a process usually draws one map at one size
BACKGROUND_CACHE_SIZE = 4
#: province labels in a colour (Creta) are darkened by this factor
LABEL_DARKEN = 0.75
#: the legend shows its symbols this much larger than the font
LEGEND_SYMBOL = 1.05


@dataclass(frozen=True)
class Scale:
    """Converts map-height units to points for one picture."""

    points_per_unit: float

    def pt(self, units: float) -> float:
        return units * self.points_per_unit

    def area(self, units: float) -> float:
        """Scatter marker area (points²) for a marker ``units`` across."""
        return self.pt(units) ** 2


def draw_map(snap: Snapshot, layout: FrameLayout) -> np.ndarray:
    """The map and its legend for ``snap``: an (H, W, 3) uint8 array."""
    fig = _new_figure(layout)
    renderer = _canvas(fig).get_renderer()
    # start from the cached background's pixels and draw only the pieces on top (blitting)
    np.asarray(renderer.buffer_rgba())[:] = _background(snap.map.name, layout)
    ax, scale = _map_axes(fig, snap.map.name, layout)
    geo = board_geometry(snap.map.name)
    _draw_cities(ax, snap, geo, scale)
    _draw_bonus_markers(ax, snap, geo, scale)
    _draw_houses(ax, snap, geo, scale)
    _draw_colonists(ax, snap, geo, scale)
    for artist in sorted([*ax.collections, *ax.texts], key=lambda a: a.get_zorder()):
        artist.draw(renderer)
    return np.asarray(renderer.buffer_rgba())[..., :3].copy()


# --------------------------------------------------------------------------- figure plumbing
def _new_figure(layout: FrameLayout) -> Figure:
    height = layout.map_height + layout.legend_height
    fig = Figure(figsize=(layout.map_width / DPI, height / DPI), dpi=DPI, facecolor=BACKGROUND)
    FigureCanvasAgg(fig)
    return fig


def _canvas(fig: Figure) -> FigureCanvasAgg:
    """The Agg canvas :func:`_new_figure` gave the figure: it draws into a pixel buffer."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        raise TypeError(f"the board is drawn on an Agg canvas, not on {type(fig.canvas).__name__}")
    return fig.canvas


def _map_axes(fig: Figure, map_name: str, layout: FrameLayout) -> tuple[Axes, Scale]:
    """Axes over the map area, in board units with y pointing down, and its unit-to-point scale."""
    geo = board_geometry(map_name)
    total = layout.map_height + layout.legend_height
    ax = fig.add_axes((0.0, layout.legend_height / total, 1.0, layout.map_height / total))
    ax.set_xlim(geo.bounds[0], geo.bounds[1])
    ax.set_ylim(geo.bounds[3], geo.bounds[2])
    ax.set_axis_off()
    return ax, Scale(layout.map_height * POINTS_PER_PIXEL / geo.height)


def _pixels(fig: Figure) -> np.ndarray:
    """The figure drawn, as an (H, W, 4) uint8 RGBA array."""
    canvas = _canvas(fig)
    canvas.draw()
    return np.asarray(canvas.buffer_rgba()).copy()


@lru_cache(maxsize=BACKGROUND_CACHE_SIZE)
def _background(map_name: str, layout: FrameLayout) -> np.ndarray:
    """Paths, place names, province labels, capital, special squares and legend: fixed for a map."""
    fig = _new_figure(layout)
    ax, scale = _map_axes(fig, map_name, layout)
    geo = board_geometry(map_name)
    _draw_paths(ax, map_name, geo, scale)
    _draw_fixed_places(ax, map_name, geo, scale)
    _draw_names(ax, map_name, geo, scale)
    _draw_province_labels(ax, map_name, geo, scale)
    _draw_legend(fig, layout)
    pixels = _pixels(fig)
    pixels.setflags(write=False)
    return pixels


def _halo(scale: Scale) -> list:
    return [patheffects.withStroke(linewidth=scale.pt(HALO_WIDTH), foreground=BACKGROUND)]


# --------------------------------------------------------------------------- fixed layer
def _draw_paths(ax: Axes, map_name: str, geo: BoardGeometry, scale: Scale) -> None:
    """Land paths brown and dotted, sea paths blue and dashed (Nile and Red Sea in their own shade)."""
    m = load(map_name)
    groups: dict[tuple[str, tuple], list[np.ndarray]] = {}
    for p, (kind, a, b) in enumerate(m.paths):
        if kind == LAND:
            key = (LAND_PATH, LAND_DASHES)
        else:
            shade = m.sea_path_kinds.get((min(a, b), max(a, b)), "sea")
            key = (SEA_PATH_SHADES.get(shade, SEA_PATH_SHADES["sea"]), SEA_DASHES)
        groups.setdefault(key, []).append(geo.segments[p])
    for (color, dashes), segments in groups.items():
        lines = LineCollection(segments, colors=color, linewidths=scale.pt(PATH_WIDTH), linestyles=[dashes], zorder=1)
        lines.set_capstyle("round")
        ax.add_collection(lines)


def _draw_fixed_places(ax: Axes, map_name: str, geo: BoardGeometry, scale: Scale) -> None:
    """The capital (a white square) and the special squares (diamonds): they never change."""
    m = load(map_name)
    capital = geo.places[m.place_index(m.capital)]
    edge = scale.pt(EDGE_WIDTH)
    ax.scatter(
        capital[0],
        capital[1],
        s=scale.area(CAPITAL_SIZE),
        c=CAPITAL,
        marker="s",
        edgecolors=TEXT,
        linewidths=edge * 2.5,
        zorder=3,
    )
    for name in m.special_squares:
        xy = geo.places[m.place_index(name)]
        color = SPECIAL_SQUARE_COLORS.get(name, COIN)
        ax.scatter(
            xy[0],
            xy[1],
            s=scale.area(SQUARE_SIZE),
            c=color,
            marker="D",
            edgecolors=TEXT,
            linewidths=edge * 1.5,
            zorder=3,
        )


def _draw_names(ax: Axes, map_name: str, geo: BoardGeometry, scale: Scale) -> None:
    m = load(map_name)
    halo = _halo(scale)
    for place, name in enumerate(m.places):
        bold = name == m.capital or name in m.special_squares
        x, y = geo.places[place]
        ax.text(
            x,
            y + NAME_GAP,
            name,
            ha="center",
            va="top",
            fontsize=scale.pt(NAME_FONT),
            color=TEXT,
            weight="bold" if bold else "normal",
            path_effects=halo,
            zorder=6,
        )


def _draw_province_labels(ax: Axes, map_name: str, geo: BoardGeometry, scale: Scale) -> None:
    """Each province's numeral (or name) under the spot of its bonus marker."""
    m = load(map_name)
    halo = _halo(scale)
    for v, name in enumerate(m.province_names):
        x, y = geo.markers[v]
        label = m.province_numerals.get(name) or name
        ax.text(
            x,
            y + MARKER_SIZE * 0.7,
            label,
            ha="center",
            va="top",
            fontsize=scale.pt(MARKER_FONT) * 0.9,
            color=_label_color(name),
            style="italic",
            path_effects=halo,
            zorder=2,
        )


def _label_color(province: str) -> str | tuple[float, ...]:
    """Creta's provinces are named by colour: their labels take that colour, darkened to stay readable."""
    if not is_color_like(province.lower()):
        return MUTED
    rgb = np.array(to_rgb(province.lower()))
    return tuple(rgb * LABEL_DARKEN)


def _draw_legend(fig: Figure, layout: FrameLayout) -> None:
    """One entry per symbol the map uses, flowed into rows under the map (positions from the layout)."""
    total = layout.map_height + layout.legend_height
    ax = fig.add_axes((0.0, 0.0, 1.0, layout.legend_height / total))
    ax.set_xlim(0, layout.map_width)
    ax.set_ylim(layout.legend_height, 0)
    ax.set_axis_off()
    font_pt = layout.legend_font_px * POINTS_PER_PIXEL
    char = CHAR_WIDTH * layout.legend_font_px
    for kind, x, y in layout.legend_spots:
        _legend_symbol(ax, kind, x + char, y, font_pt * LEGEND_SYMBOL, char)
        ax.text(
            x + LEGEND_SYMBOL_CHARS * char,
            y,
            LEGEND_LABELS[kind],
            family="DejaVu Sans Mono",
            fontsize=font_pt,
            color=TEXT,
            va="center",
            ha="left",
        )


def _legend_symbol(ax: Axes, kind: str, x: float, y: float, size: float, char: float) -> None:
    """The symbol of one legend entry, centred at (x, y) in pixels; ``size`` in points."""
    edge: dict[str, Any] = {"edgecolors": TEXT, "linewidths": size * 0.06}
    if kind in GOODS:
        ax.scatter(x, y, s=size**2, c=GOOD_COLORS[GOODS.index(kind)], **edge)
    elif kind == "capital":
        ax.scatter(x, y, s=size**2, c=CAPITAL, marker="s", **edge)
    elif kind == "square":
        ax.scatter(x, y, s=size**2, c=SPECIAL_SQUARE_COLORS["gold"], marker="D", **edge)
    elif kind in ("land", "sea", "nile", "red_sea"):
        color = LAND_PATH if kind == "land" else SEA_PATH_SHADES[kind]
        dashes = LAND_DASHES if kind == "land" else SEA_DASHES
        ax.plot([x - char, x + char], [y, y], color=color, linestyle=dashes, linewidth=size * 0.22)
    elif kind in ("land_colonist", "sea_colonist"):
        marker = LAND_COLONIST if kind == "land_colonist" else SEA_COLONIST
        ax.scatter(x, y, s=(size * 1.2) ** 2, c=MUTED, marker=marker, **edge)
    elif kind == "house":
        ax.scatter(x, y, s=(size * 0.6) ** 2, c=MUTED, marker="s", **edge)
    elif kind == "goods_side":
        ax.scatter(x, y, s=size**2, c=GOOD_COLORS[0], marker="s", **edge)
        ax.text(x, y, "B", ha="center", va="center", color="white", fontsize=size * 0.6, weight="bold")
    elif kind == "coin_side":
        _coin_side(ax, x, y, 0, size**2, size * 0.06)
        ax.text(x, y, "2", ha="center", va="center", color=TEXT, fontsize=size * 0.6, weight="bold")
    elif kind == "nile_marker":
        ax.scatter(
            x, y, s=(size * 0.85) ** 2, c=GOOD_COLORS[FOOD], edgecolors=SEA_PATH_SHADES["nile"], linewidths=size * 0.12
        )
        ax.text(x, y, "N", ha="center", va="center", color=TEXT, fontsize=size * 0.5, weight="bold")
    elif kind == "free_marker":
        ax.scatter(x, y, s=size**2, c=BACKGROUND, marker="s", edgecolors=MUTED, linewidths=size * 0.08, linestyle="--")
        ax.text(x, y, "?", ha="center", va="center", color=MUTED, fontsize=size * 0.6, weight="bold")


# --------------------------------------------------------------------------- pieces
def _draw_cities(ax: Axes, snap: Snapshot, geo: BoardGeometry, scale: Scale) -> None:
    """City markers in the colour of the good each produces (the tokens are drawn at setup)."""
    cities = [c for c in range(len(snap.map.places)) if int(snap.city_goods[c]) >= 0]
    colors = [GOOD_COLORS[int(snap.city_goods[c])] for c in cities]
    xy = geo.places[cities]
    ax.scatter(
        xy[:, 0],
        xy[:, 1],
        s=scale.area(CITY_SIZE),
        c=colors,
        edgecolors=TEXT,
        linewidths=scale.pt(EDGE_WIDTH) * 1.6,
        zorder=3,
    )


def _draw_houses(ax: Axes, snap: Snapshot, geo: BoardGeometry, scale: Scale) -> None:
    """Small squares in player colours in a row to the right of each city."""
    xs, ys, colors = [], [], []
    step = HOUSE_SIZE * HOUSE_SPACING
    for place in range(snap.houses.shape[1]):
        x0 = geo.places[place, 0] + CITY_SIZE / 2 + step * HOUSE_ROW_START
        for k, p in enumerate(np.flatnonzero(snap.houses[:, place])):
            xs.append(x0 + k * step)
            ys.append(geo.places[place, 1])
            colors.append(PLAYER_COLORS[p])
    if xs:
        ax.scatter(
            xs,
            ys,
            s=scale.area(HOUSE_SIZE),
            c=colors,
            marker="s",
            edgecolors=TEXT,
            linewidths=scale.pt(EDGE_WIDTH),
            zorder=4,
        )


def _draw_colonists(ax: Axes, snap: Snapshot, geo: BoardGeometry, scale: Scale) -> None:
    """Colonists at their path's midpoint (spread across the path when several) or above their city."""
    on_path: dict[int, list[tuple[int, int]]] = {}
    in_city: dict[int, list[tuple[int, int]]] = {}
    for pv in snap.players:
        for c in pv.colonists:
            group = on_path.setdefault(c.path, []) if c.on_path else in_city.setdefault(c.location, [])
            group.append((pv.index, c.kind))
    placed: list[tuple[np.ndarray, int, int]] = []  # (xy, player, kind)
    for path, who in on_path.items():
        spots = spread(geo.midpoints[path], geo.normals[path], len(who))
        placed += [(xy, p, kind) for xy, (p, kind) in zip(spots, who, strict=True)]
    for place, who in in_city.items():
        who = sorted(who, key=lambda pk: (pk[1], pk[0]))  # land first, then sea
        placed += [(xy, p, kind) for xy, (p, kind) in zip(_city_spots(geo, place, len(who)), who, strict=True)]
    for kind, marker in ((LAND, LAND_COLONIST), (SEA, SEA_COLONIST)):
        mine = [(xy, p) for xy, p, k in placed if k == kind]
        if mine:
            xy = np.array([pt for pt, _ in mine])
            colors = [PLAYER_COLORS[p] for _, p in mine]
            ax.scatter(
                xy[:, 0],
                xy[:, 1],
                s=scale.area(COLONIST_SIZE),
                c=colors,
                marker=marker,
                edgecolors=TEXT,
                linewidths=scale.pt(EDGE_WIDTH),
                zorder=5,
            )


def _city_spots(geo: BoardGeometry, place: int, count: int) -> np.ndarray:
    """A row just above the city; a ring around it when there are many (the capital early on)."""
    if count > CITY_ROW_MAX:
        return ring(geo.places[place], CITY_RING * (1 + count / 10), count)
    return spread(geo.places[place] - np.array([0.0, COLONIST_ROW_GAP]), np.array([1.0, 0.0]), count)


def _draw_bonus_markers(ax: Axes, snap: Snapshot, geo: BoardGeometry, scale: Scale) -> None:
    """Each province's marker: a square in its good's colour (goods side), or that square faded under a coin
    with its value (coin side), or a dashed "?" where there is none (Gavdos)."""
    font = scale.pt(MARKER_FONT)
    size = scale.area(MARKER_SIZE)
    edge = scale.pt(EDGE_WIDTH)
    for pv in snap.provinces:
        x, y = geo.markers[pv.index]
        if pv.bonus_good < 0:
            ax.scatter(
                x, y, s=size, c=BACKGROUND, marker="s", edgecolors=MUTED, linewidths=edge, linestyle="--", zorder=2
            )
            label, color = "?", MUTED
        elif pv.coin_side:
            _coin_side(ax, x, y, pv.bonus_good, size, edge)
            label, color = str(int(BONUS_MARKER_COINS[pv.bonus_good])), TEXT
        else:
            ax.scatter(
                x, y, s=size, c=GOOD_COLORS[pv.bonus_good], marker="s", edgecolors=TEXT, linewidths=edge, zorder=2
            )
            label, color = GOODS[pv.bonus_good][0].upper(), "white"
        ax.text(x, y, label, ha="center", va="center", fontsize=font, color=color, weight="bold", zorder=2)
        if pv.nile:
            _draw_nile_marker(ax, np.array([x + MARKER_SIZE * 1.15, y]), scale)


def _coin_side(ax: Axes, x: float, y: float, good: int, size: float, edge: float) -> None:
    """A marker turned to its coin side: its good's square, faded, under a coin (area ``size``, points²)."""
    ax.scatter(
        x, y, s=size, c=GOOD_COLORS[good], marker="s", alpha=COIN_SIDE_FADE, edgecolors=TEXT, linewidths=edge, zorder=2
    )
    ax.scatter(x, y, s=size * COIN_AREA, c=COIN, marker="o", edgecolors=TEXT, linewidths=edge, zorder=2)


def _draw_nile_marker(ax: Axes, xy: np.ndarray, scale: Scale) -> None:
    """The Nile food marker: a small food-coloured disc marked N beside the province's bonus marker."""
    ax.scatter(
        xy[0],
        xy[1],
        s=scale.area(MARKER_SIZE * 0.8),
        c=GOOD_COLORS[FOOD],
        marker="o",
        edgecolors=SEA_PATH_SHADES["nile"],
        linewidths=scale.pt(EDGE_WIDTH) * 2.5,
        zorder=2,
    )
    ax.text(
        xy[0],
        xy[1],
        "N",
        ha="center",
        va="center",
        fontsize=scale.pt(MARKER_FONT) * 0.85,
        color=TEXT,
        weight="bold",
        zorder=2,
    )
