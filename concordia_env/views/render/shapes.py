"""Outlines of the colonist pieces as plain polygons (numpy only).

A land colonist is a pawn, a sea colonist a boat, so that a player's two kinds differ by
shape, not by colour. Vertices are in marker units with y pointing up. The PNG renderer
turns them into matplotlib markers (:mod:`concordia_env.views.render.markers`), the HTML replay
into SVG paths (:mod:`concordia_env.views.html`).
"""

from __future__ import annotations

import numpy as np

#: points on the pawn's head circle
_HEAD_POINTS = 16


def _pawn() -> tuple[np.ndarray, ...]:
    angles = np.linspace(0.0, 2 * np.pi, _HEAD_POINTS, endpoint=False)
    head = np.stack([0.32 * np.cos(angles), 0.5 + 0.32 * np.sin(angles)], axis=1)
    body = np.array([[-0.55, -0.8], [0.55, -0.8], [0.22, 0.25], [-0.22, 0.25]])
    return head, body


def _boat() -> tuple[np.ndarray, ...]:
    hull = np.array([[-0.9, -0.1], [0.9, -0.1], [0.55, -0.65], [-0.55, -0.65]])
    sail = np.array([[-0.05, 0.0], [-0.05, 0.9], [0.6, 0.0]])
    return hull, sail


#: closed polygons (first vertex not repeated) of each piece
PAWN_POLYGONS: tuple[np.ndarray, ...] = _pawn()
BOAT_POLYGONS: tuple[np.ndarray, ...] = _boat()
