"""Rendering of a position: a text board, a board picture and a window.

* :func:`render_text` (``render_mode="ansi"``): every public fact in under 100 columns;
  needs nothing beyond the core package.
* :func:`render_rgb` (``render_mode="rgb_array"``) and :func:`save_png`: the board drawn
  from the map's city positions with a side panel.
* :class:`HumanViewer` (``render_mode="human"``): that picture in a matplotlib window; on a
  machine without a display it warns once and does nothing.

The pictures need matplotlib and Pillow, the optional extra ``pip install concordia-env[render]``;
they are imported only when a picture is drawn.
"""

from __future__ import annotations

from .board_picture import DEFAULT_WIDTH, render_rgb, save_png
from .text import render_text
from .viewer import HumanViewer

__all__ = ["DEFAULT_WIDTH", "HumanViewer", "render_rgb", "render_text", "save_png"]
