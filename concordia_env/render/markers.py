"""Marker shapes for colonists: a pawn for land colonists, a boat for sea colonists.

The shapes echo the wooden pieces so that a land and a sea colonist of one player differ by
shape, not by colour. Vertices are in marker units with y pointing up (matplotlib flips
nothing for markers, even on the y-down map axes).
"""

from __future__ import annotations

import numpy as np
from matplotlib.path import Path

#: points on the pawn's head circle
_HEAD_POINTS = 16


def _polygon(vertices: np.ndarray) -> Path:
    """A closed polygon (``Path(closed=True)`` ignores the last vertex, so the first is repeated)."""
    return Path(np.vstack([vertices, vertices[:1]]), closed=True)


def _pawn() -> Path:
    angles = np.linspace(0.0, 2 * np.pi, _HEAD_POINTS, endpoint=False)
    head = np.stack([0.32 * np.cos(angles), 0.5 + 0.32 * np.sin(angles)], axis=1)
    body = np.array([[-0.55, -0.8], [0.55, -0.8], [0.22, 0.25], [-0.22, 0.25]])
    return Path.make_compound_path(_polygon(head), _polygon(body))


def _boat() -> Path:
    hull = np.array([[-0.9, -0.1], [0.9, -0.1], [0.55, -0.65], [-0.55, -0.65]])
    sail = np.array([[-0.05, 0.0], [-0.05, 0.9], [0.6, 0.0]])
    return Path.make_compound_path(_polygon(hull), _polygon(sail))


LAND_COLONIST = _pawn()
SEA_COLONIST = _boat()
