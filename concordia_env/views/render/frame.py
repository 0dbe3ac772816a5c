"""The frame layout: where the map, its legend and the panel go, in pixels.

A frame's size depends only on the map, the number of players and the requested width,
never on the position, so that all frames of one game have one shape (a video needs it).
Wide boards (Imperium, Italia, Creta) get the panel below the map, in columns; the tall
Aegyptus board gets it on the right. Pure arithmetic: no drawing library needed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

from concordia_env.engine.maps import load

from .geometry import board_geometry
from .style import LEGEND_LABELS, legend_kinds

#: advance of one DejaVu Sans Mono character and the line pitch, in font sizes
CHAR_WIDTH = 0.602
LINE_SPACING = 1.4
#: characters in one panel column; padding left of each column (characters) and above and below (lines)
COLUMN_CHARS = 56
COLUMN_PADDING = 2
ROW_PADDING = 1
#: panel lines reserved per block; fixed so the frame size never depends on the position
HEADER_LINES = 8
PLAYER_LINES = 4.5
DISPLAY_LINES = 8
#: panel columns below a wide map: header and display, then the players in two columns
BOTTOM_COLUMNS = 3
#: maps wider than this (width / height) get the panel below, others beside them
WIDE_MAP = 1.2
#: share of the frame's width a side panel takes
SIDE_PANEL_SHARE = 0.45
#: legend font as a fraction of the map's smaller side; a legend entry's symbol and gap, in characters
LEGEND_FONT = 0.017
LEGEND_SYMBOL_CHARS = 2.5
LEGEND_GAP_CHARS = 2.0
#: space under the legend's last row, in lines
LEGEND_BOTTOM_PAD = 0.3


@dataclass(frozen=True)
class FrameLayout:
    width: int
    height: int
    map_width: int
    map_height: int  # the map area, without the legend strip
    legend_height: int
    legend_font_px: float
    legend_spots: tuple[tuple[str, float, float], ...]  # (kind, x, y) of each entry, pixels in the strip
    panel_left: int
    panel_top: int
    panel_width: int
    panel_height: int
    columns: int
    font_px: int

    @property
    def below(self) -> bool:
        """True when the panel lies below the map (wide boards)."""
        return self.panel_top > 0

    @property
    def column_width(self) -> float:
        return self.panel_width / self.columns


def panel_lines(num_players: int, columns: int) -> float:
    """Lines of the tallest panel column."""
    if columns == 1:
        return HEADER_LINES + num_players * PLAYER_LINES + DISPLAY_LINES
    players_per_column = math.ceil(num_players / (columns - 1))
    return max(HEADER_LINES + DISPLAY_LINES, players_per_column * PLAYER_LINES)


def legend_flow(map_name: str, font_px: float, width: float) -> tuple[tuple[tuple[str, float, float], ...], float]:
    """Legend entries flowed into rows ``width`` wide: their (kind, x, y) and the strip's height."""
    char = CHAR_WIDTH * font_px
    pitch = LINE_SPACING * font_px
    margin = LEGEND_GAP_CHARS * char
    x, y = margin, pitch / 2
    spots = []
    for kind in legend_kinds(load(map_name)):
        entry = (LEGEND_SYMBOL_CHARS + len(LEGEND_LABELS[kind]) + LEGEND_GAP_CHARS) * char
        if x + entry > width and x > margin:
            x, y = margin, y + pitch
        spots.append((kind, x, y))
        x += entry
    return tuple(spots), y + pitch / 2 + LEGEND_BOTTOM_PAD * pitch


@cache
def frame_layout(map_name: str, num_players: int, width: int) -> FrameLayout:
    """The layout of a ``width``-pixel frame for ``map_name`` with ``num_players`` players."""
    geo = board_geometry(map_name)
    aspect = geo.width / geo.height
    column_px_per_font = (COLUMN_CHARS + 2 * COLUMN_PADDING) * CHAR_WIDTH
    if aspect > WIDE_MAP:
        map_w, map_h = width, round(width / aspect)
        spots, legend_h = legend_flow(map_name, min(map_w, map_h) * LEGEND_FONT, map_w)
        font = width / (BOTTOM_COLUMNS * column_px_per_font)
        panel_h = round((panel_lines(num_players, BOTTOM_COLUMNS) + 2 * ROW_PADDING) * LINE_SPACING * font)
        panel_top, panel_left, panel_w, columns = map_h + round(legend_h), 0, width, BOTTOM_COLUMNS
        height = panel_top + panel_h
    else:
        # side panel: a fixed share of the width; the map fills the rest, the font fits the column
        map_w = round(width * (1 - SIDE_PANEL_SHARE))
        map_h = round(map_w / aspect)
        spots, legend_h = legend_flow(map_name, min(map_w, map_h) * LEGEND_FONT, map_w)
        height = map_h + round(legend_h)
        lines = panel_lines(num_players, 1) + 2 * ROW_PADDING
        font = min((width - map_w) / column_px_per_font, height / (lines * LINE_SPACING))
        panel_top, panel_left, panel_w, columns, panel_h = 0, map_w, width - map_w, 1, height
    return FrameLayout(
        width=width,
        height=height,
        map_width=map_w,
        map_height=map_h,
        legend_height=round(legend_h),
        legend_font_px=min(map_w, map_h) * LEGEND_FONT,
        legend_spots=spots,
        panel_left=panel_left,
        panel_top=panel_top,
        panel_width=panel_w,
        panel_height=panel_h,
        columns=columns,
        font_px=int(font),
    )
