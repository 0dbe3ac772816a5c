"""Colours and proportions of the board picture (plain data: no matplotlib needed to read them).

The PNG renderer (:mod:`concordia_env.views.render.board_map`) and the HTML replay
(:mod:`concordia_env.views.html`) both draw with these, so the two pictures agree.
"""

from __future__ import annotations

from concordia_env.engine.maps import Map

#: width / height of the printed board each map's ``Map.xy`` fractions refer to: Imperium,
#: Italia and Creta are landscape boards, Aegyptus (the reverse of Creta) a portrait one
MAP_ASPECT: dict[str, float] = {"imperium": 1.42, "italia": 1.42, "creta": 1.42, "aegyptus": 1 / 1.42}

#: player colours as on the box (red, blue, green, yellow, black)
PLAYER_COLORS: tuple[str, ...] = ("#d62728", "#1f55d6", "#2ca02c", "#f2c500", "#262626")
#: goods in the order of cards.GOODS: brick, food, tool, wine, cloth
GOOD_COLORS: tuple[str, ...] = ("#b5472f", "#e3b80f", "#7d8a93", "#7b2d6b", "#2b8cc4")
#: darker versions for text on a light background (yellow food is hard to read otherwise)
GOOD_TEXT_COLORS: tuple[str, ...] = ("#a03c26", "#9a7a00", "#56626a", "#7b2d6b", "#1f6f9e")

#: pixels per inch of every figure (sizes are computed in pixels, fonts in points)
DPI = 100
POINTS_PER_PIXEL = 72 / DPI

BACKGROUND = "#f4ecd8"
PANEL_BACKGROUND = "#fbf8f0"
TEXT = "#202020"
MUTED = "#6b6b6b"
LAND_PATH = "#8b5a2b"
SEA_PATH = "#2f7fd0"
#: Aegyptus: the Nile and the Red Sea get their own shade (``Map.sea_path_kinds``)
SEA_PATH_SHADES: dict[str, str] = {"sea": SEA_PATH, "nile": "#16a3a3", "red_sea": "#c2405a"}
CAPITAL = "#ffffff"
SPECIAL_SQUARE_COLORS: dict[str, str] = {"frankincense": "#e9c27b", "gold": "#ffd700"}
COIN = "#e8c34a"
HIGHLIGHT = "#ff8c00"

#: map layout, in map-height units (the map is 1 high, ``aspect`` wide)
MAP_MARGIN = 0.045
#: panel width in map-height units, beside the map
PANEL_WIDTH = 0.72
#: perpendicular shift separating a land and a sea path that join the same two cities
TWIN_PATH_OFFSET = 0.009
#: spacing of several colonists on one path, and ring radius of colonists in a city
COLONIST_SPREAD = 0.018
CITY_RING = 0.026
#: how far a province's bonus marker may move from its cities' mean to stay clear of them
MARKER_SEARCH_RADII: tuple[float, ...] = (0.0, 0.03, 0.045, 0.06, 0.075)

#: sizes of the pieces, in map-height units (shared by the PNG renderer and the HTML replay)
CITY_SIZE = 0.024
CAPITAL_SIZE = 0.032
SQUARE_SIZE = 0.03
HOUSE_SIZE = 0.0115
#: houses stand in a row right of their city, HOUSE_SPACING house sizes apart (centre to centre),
#: the first one HOUSE_ROW_START such spacings from the city's edge
HOUSE_SPACING = 1.15
HOUSE_ROW_START = 0.7
COLONIST_SIZE = 0.021
MARKER_SIZE = 0.025
NAME_FONT = 0.0135
MARKER_FONT = 0.0125
PATH_WIDTH = 0.0032
EDGE_WIDTH = 0.0013
HALO_WIDTH = 0.004
#: a city's name hangs this far below its centre; its colonists stand this far above it
NAME_GAP = 0.019
COLONIST_ROW_GAP = 0.024
#: a city shows up to this many colonists in one row above it, more in a ring around it
CITY_ROW_MAX = 5
#: dash patterns (offset, (on, off)) in multiples of the path width
LAND_DASHES = (0, (1.0, 1.6))
SEA_DASHES = (0, (3.5, 2.2))
#: a marker on its coin side: how faded its good's square is, and the coin's area relative to it
COIN_SIDE_FADE = 0.45
COIN_AREA = 0.65

#: legend entries under the map: kind -> label (the map module draws each kind's symbol)
LEGEND_LABELS: dict[str, str] = {
    "brick": "brick",
    "food": "food",
    "tool": "tool",
    "wine": "wine",
    "cloth": "cloth",
    "capital": "capital",
    "square": "special square",
    "land": "land path",
    "sea": "sea path",
    "nile": "Nile",
    "red_sea": "Red Sea",
    "land_colonist": "land colonist",
    "sea_colonist": "sea colonist",
    "house": "house",
    "goods_side": "bonus marker",
    "coin_side": "coin side",
    "nile_marker": "Nile food marker",
    "free_marker": "bonus of choice",
}


def legend_kinds(m: Map) -> list[str]:
    """The legend entries map ``m`` needs, in drawing order."""
    sea_kinds = set(m.sea_path_kinds.values())
    kinds = ["brick", "food", "tool", "wine", "cloth", "capital"]
    if m.special_squares:
        kinds.append("square")
    kinds += ["land", "sea"] + [k for k in ("nile", "red_sea") if k in sea_kinds]
    kinds += ["land_colonist", "sea_colonist", "house", "goods_side", "coin_side"]
    if "nile" in sea_kinds:
        kinds.append("nile_marker")
    if m.variable_bonus_province:
        kinds.append("free_marker")
    return kinds
