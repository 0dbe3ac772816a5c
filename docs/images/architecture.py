"""Draw ``docs/images/architecture.svg``: the package's parts and what each may import.

``python docs/images/architecture.py`` writes it from the one statement of the layering,
``ALLOWED`` in ``tests/test_layering.py``; ``tests/test_docs.py`` checks that the committed
picture is this script's output, so the picture cannot drift from the rule the test enforces.
Only the direct edges are drawn (an import that a longer path already implies is left out).
"""

from __future__ import annotations

import sys
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.test_layering import ALLOWED  # noqa: E402

OUT = ROOT / "docs" / "images" / "architecture.svg"
#: what each part holds, one line each
CONTENTS = {
    "engine": "rules on one state array, Game, positions, observation",
    "strategy": "compiled evaluation, planner, turn options, rollouts",
    "views": "text and pictures of a position, HTML replays",
    "envs": "PettingZoo, Gymnasium, VectorGame, rewards",
    "integrations": "OpenSpiel game, RLlib env and fixed policies",
    "agents": "random, heuristic, mcts, learned, policy",
    "tools": "the concordia command: play, web, replays...",
    "training": "afterstate, self-play PPO, RLlib, Tianshou",
    "benchmarks": "throughput, agent speed, strength bars",
}
BOX_W, BOX_H, GAP_X, GAP_Y, MARGIN = 310, 56, 30, 40, 20


def levels() -> dict[str, int]:
    """Each part's row: one above the highest part it imports (the engine is row 0)."""
    out: dict[str, int] = {}
    while len(out) < len(ALLOWED):
        for part, below in ALLOWED.items():
            if part not in out and below <= set(out):
                out[part] = 1 + max((out[b] for b in below), default=-1)
    return out


def direct_edges() -> list[tuple[str, str]]:
    """(part, part it imports) without the edges that a path through another part implies."""

    def reaches(a: str, b: str) -> bool:
        return b in ALLOWED[a] or any(reaches(c, b) for c in ALLOWED[a])

    return [(a, b) for a in ALLOWED for b in sorted(ALLOWED[a]) if not any(reaches(c, b) for c in ALLOWED[a])]


def svg() -> str:
    """The picture as SVG text (deterministic: the same ALLOWED gives the same bytes)."""
    row = levels()
    rows = max(row.values()) + 1
    by_row = [[p for p in ALLOWED if row[p] == r] for r in range(rows)]
    width = MARGIN * 2 + max(len(r) for r in by_row) * (BOX_W + GAP_X) - GAP_X
    height = MARGIN * 2 + rows * (BOX_H + GAP_Y) - GAP_Y + 24
    centre: dict[str, tuple[float, float]] = {}
    for r, parts in enumerate(by_row):
        span = len(parts) * (BOX_W + GAP_X) - GAP_X
        for k, part in enumerate(parts):
            x = (width - span) / 2 + k * (BOX_W + GAP_X) + BOX_W / 2
            y = MARGIN + (rows - 1 - r) * (BOX_H + GAP_Y) + BOX_H / 2  # the engine at the bottom
            centre[part] = (x, y)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" '
        'orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" fill="#555"/></marker></defs>',
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="#fbf7ee"/>',
    ]
    for a, b in direct_edges():
        (x1, y1), (x2, y2) = centre[a], centre[b]
        out.append(
            f'<line x1="{x1:.0f}" y1="{y1 + BOX_H / 2:.0f}" x2="{x2:.0f}" y2="{y2 - BOX_H / 2:.0f}" '
            'stroke="#555" stroke-width="1.5" marker-end="url(#arrow)"/>'
        )
    for part, (x, y) in centre.items():
        out.append(
            f'<rect x="{x - BOX_W / 2:.0f}" y="{y - BOX_H / 2:.0f}" width="{BOX_W}" height="{BOX_H}" rx="8" '
            'fill="#fffdf6" stroke="#8a7a5a" stroke-width="1.5"/>'
        )
        out.append(
            f'<text x="{x:.0f}" y="{y - 6:.0f}" text-anchor="middle" font-size="16" font-weight="bold">{part}</text>'
        )
        out.append(
            f'<text x="{x:.0f}" y="{y + 14:.0f}" text-anchor="middle" font-size="11" fill="#444">'
            f"{escape(CONTENTS[part])}</text>"
        )
    out.append(
        f'<text x="{MARGIN}" y="{height - MARGIN / 2:.0f}" font-size="12" fill="#444">'
        "an arrow points from a part to a part it may import (tests/test_layering.py)</text>"
    )
    out.append("</svg>")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    OUT.write_text(svg())
    print(f"wrote {OUT.relative_to(ROOT)}")
