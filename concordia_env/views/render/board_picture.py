"""The board picture (``render_mode="rgb_array"``) and PNG export.

A frame is the map with its legend (drawn by matplotlib) and the panel (drawn by Pillow),
side by side for the tall Aegyptus board and stacked for the wide ones; see
:mod:`concordia_env.views.render.frame`. Both libraries are the optional ``render`` extra: they
are imported only when a picture is drawn, and a missing install raises an ImportError
that says how to get it.
"""

from __future__ import annotations

from os import PathLike
from types import ModuleType

import numpy as np

from concordia_env.engine.game import Game

from .frame import frame_layout
from .style import BACKGROUND
from .view import snapshot

#: default picture width in pixels (the height follows from the map and the number of players)
DEFAULT_WIDTH = 1600
#: narrower pictures cannot hold the panel's text
MIN_WIDTH = 480
INSTALL_HINT = "drawing the board needs matplotlib and pillow: pip install concordia-env[render]"


def _drawing_modules() -> tuple[ModuleType, ModuleType]:
    """The map and panel modules (they import matplotlib and Pillow), or a clear ImportError."""
    try:
        from . import board_map, panel
    except ImportError as e:
        if (e.name or "").split(".")[0] in ("matplotlib", "PIL"):
            raise ImportError(f"{INSTALL_HINT} ({e})") from e
        raise
    return board_map, panel


def render_rgb(game: Game, width: int = DEFAULT_WIDTH) -> np.ndarray:
    """The board picture as an (H, W, 3) uint8 array, ``width`` pixels wide.

    The height depends only on the map, the number of players and ``width``, so every
    frame of one game has the same shape.
    """
    if width < MIN_WIDTH:
        raise ValueError(f"width must be at least {MIN_WIDTH} pixels, got {width}")
    board_map, panel = _drawing_modules()
    snap = snapshot(game)
    layout = frame_layout(snap.map.name, snap.num_players, int(width))
    frame = np.empty((layout.height, layout.width, 3), dtype=np.uint8)
    frame[:] = np.array([int(BACKGROUND[i : i + 2], 16) for i in (1, 3, 5)], dtype=np.uint8)
    map_pixels = board_map.draw_map(snap, layout)
    frame[: map_pixels.shape[0], : map_pixels.shape[1]] = map_pixels
    top, left = layout.panel_top, layout.panel_left
    frame[top : top + layout.panel_height, left : left + layout.panel_width] = panel.draw_panel(snap, layout)
    return frame


def save_png(game: Game, path: str | PathLike[str], width: int = DEFAULT_WIDTH) -> None:
    """Write the board picture of ``game`` to ``path`` as a PNG."""
    pixels = render_rgb(game, width)
    from PIL import Image

    Image.fromarray(pixels).save(path, format="PNG")
