"""Marker shapes for colonists: a pawn for land colonists, a boat for sea colonists.

The outlines are the plain polygons of :mod:`concordia_env.views.render.shapes`; here they become
matplotlib paths (matplotlib flips nothing for markers, even on the y-down map axes).
"""

from __future__ import annotations

import numpy as np
from matplotlib.path import Path

from .shapes import BOAT_POLYGONS, PAWN_POLYGONS


def _polygon(vertices: np.ndarray) -> Path:
    """A closed polygon (``Path(closed=True)`` ignores the last vertex, so the first is repeated)."""
    return Path(np.vstack([vertices, vertices[:1]]), closed=True)


def _compound(polygons: tuple[np.ndarray, ...]) -> Path:
    return Path.make_compound_path(*(_polygon(v) for v in polygons))


LAND_COLONIST = _compound(PAWN_POLYGONS)
SEA_COLONIST = _compound(BOAT_POLYGONS)
